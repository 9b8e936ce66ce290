// The page's words (static/words.js): the language chosen, placeholders filled, English under a gap.
import assert from "node:assert/strict";
import { beforeEach, test } from "node:test";

import { state } from "../../src/clashofdecks/web/static/store.js";
import { errorText, hasWord, pickLang, t, timeControlName } from "../../src/clashofdecks/web/static/words.js";

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

test("a German common-noun name takes its article and case from the word before it", () => {
  state.words = { hand_of: "Hand von {name}", acting: "{name} ist am Zug", wait: "Warte auf {name}…", you: "Du bist {name}" };
  state.grammar = { nouns: { Automat: { nom: "der Automat", acc: "den Automaten", gen: "des Automaten" } }, accusative_after: ["auf"] };
  try {
    assert.equal(t("hand_of", { name: "Automat" }), "Hand des Automaten");
    assert.equal(t("acting", { name: "Automat" }), "Der Automat ist am Zug");
    assert.equal(t("wait", { name: "Automat" }), "Warte auf den Automaten…");
    assert.equal(t("hand_of", { name: "Anna" }), "Hand von Anna");
  } finally { state.grammar = {}; }
});

test("a refusal's word names the values the server sent with it", () => {
  state.words = { err_bad_minutes: "Eine Arena dauert {low} bis {high} Minuten.", error: "Fehler" };
  assert.equal(errorText("bad_minutes", "'minutes' must be…", 400, { low: 10, high: 360 }), "Eine Arena dauert 10 bis 360 Minuten.");
  assert.equal(errorText("bad_input", "unknown field 'x'", 400, {}), "Fehler: unknown field 'x'");
});
