// One line about a game or a campaign level (static/summaries.js).
import assert from "node:assert/strict";
import { beforeEach, test } from "node:test";

import { state } from "../../src/clashofdecks/web/static/store.js";
import { campaignWord, gameLabel, gameLink, threatOption } from "../../src/clashofdecks/web/static/summaries.js";

beforeEach(() => {
  state.words = { draft: "Draft", mode_duel: "Duel", over: "over", campaign_won: "won", campaign_lost: "lost",
    campaign_not_played: "open", campaign_locked: "locked" };
  state.fallback = {};
});

test("a game's line: players, mode and format in words, a format without a word as it is", () => {
  assert.equal(gameLabel({ players: ["Ann", "Bob"], mode: "duel", format: "draft", status: "playing" }), "Ann – Bob · Duel · Draft");
  assert.equal(gameLabel({ players: ["Ann"], mode: "duel", format: "position", status: "over" }), "Ann · Duel · position · over");
});

test("a seat nobody named has the default name in the page's language", () => {
  state.words.default_player = "Spieler {n}";
  assert.equal(gameLabel({ players: ["", "Bob"], mode: "duel", format: "draft", status: "playing" }), "Spieler 1 – Bob · Duel · Draft");
});

test("a bot account's seat says so in the page's language", () => {
  state.words.bot_badge = "Bot";
  assert.equal(gameLabel({ players: ["Ann", "Robo"], bots: [false, true], mode: "duel", format: "draft", status: "playing" }),
    "Ann – Robo (Bot) · Duel · Draft");
});

test("a game's link: the replay once over, else resume my game or watch another's", () => {
  assert.deepEqual(gameLink({ id: "a1", status: "over", mine: true }), { href: "/r/a1", word: "replay", testid: "replay-link" });
  assert.deepEqual(gameLink({ id: "a1", status: "playing", mine: true }), { href: "/g/a1", word: "resume", testid: "resume-link" });
  assert.equal(gameLink({ id: "a1", status: "playing", mine: false }).word, "watch");
});

test("a campaign level's word", () => {
  assert.equal(campaignWord({ best: "won", open: true }), "won");
  assert.equal(campaignWord({ best: "lost", open: true }), "lost");
  assert.equal(campaignWord({ best: null, open: true }), "open");
  assert.equal(campaignWord({ best: null, open: false }), "locked");
});

test("a threat option is a number when it is one", () => {
  assert.equal(threatOption("12"), 12);
  assert.equal(threatOption("hard"), "hard");
  assert.equal(threatOption("1.5"), "1.5");
});
