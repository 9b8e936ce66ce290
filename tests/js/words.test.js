// The page's words (static/words.js): the language chosen, placeholders filled, English under a gap.
import assert from "node:assert/strict";
import { beforeEach, test } from "node:test";

import { state } from "../../src/clashofdecks/web/static/store.js";
import { hasWord, pickLang, t, timeControlName } from "../../src/clashofdecks/web/static/words.js";

beforeEach(() => {
  state.words = { undo: "Rückgängig", time_left: "noch {time} ({time})", tc_3_2: "3 Min + 2 s" };
  state.fallback = { undo: "Undo", end: "End turn" };
});

test("the saved language comes first, then the browser's, then English", () => {
  const codes = ["en", "de", "fr", "ja"];
  assert.equal(pickLang(codes, "fr", ["de-DE"]), "fr");
  assert.equal(pickLang(codes, null, ["tlh", "de-AT", "fr"]), "de");
  assert.equal(pickLang(codes, "tlh", ["JA-jp"]), "ja");
  assert.equal(pickLang(codes, null, ["tlh", ""]), "en");
});

test("a word in the page's language, else English, else its key", () => {
  assert.equal(t("undo"), "Rückgängig");
  assert.equal(t("end"), "End turn");
  assert.equal(t("nowhere"), "nowhere");
  assert.ok(hasWord("end") && !hasWord("nowhere"));
});

test("every placeholder is filled, as text", () => {
  assert.equal(t("time_left", { time: "2:05" }), "noch 2:05 (2:05)");
  assert.equal(t("undo", { unused: 1 }), "Rückgängig");
  assert.equal(timeControlName("3+2"), "3 Min + 2 s");
});
