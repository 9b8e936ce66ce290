// Reading a state frame (static/frame.js): legal texts by verb, the prompt, targets, names, results.
import assert from "node:assert/strict";
import { beforeEach, test } from "node:test";

import {
  actionLabel, chanceWords, eventDelay, eventText, handActions, legalByVerb, ordersFitting, placesByCard,
  playerName, promptText, reasonText, stepParts, targetsOf,
} from "../../src/clashofdecks/web/static/frame.js";
import { state } from "../../src/clashofdecks/web/static/store.js";

beforeEach(() => {
  state.cards = { cards: { BRUTE: { name: "Brute" } }, ability_names: {} };
  state.words = { choose_target: "Where does {card} go?", prompt_summon: "Summon", prompt_deck: "Take a deck",
    prompt_combat: "Combat", automaton: "the Automaton", default_player: "Player {n}",
    end_resigned: "{loser} resigned", undone: "Undone: {actions}", end_fortress: "{winner} took {loser}'s fortress",
    chance_calibrated: "{p} % win chance" };
  state.fallback = {};
});

const FRAME = {
  seats: [0], to_move: 0, phase: "main", index: 7,
  legal: ["play BRUTE top", "play BRUTE bottom", "cast BOLT 1.top.0", "cast BOLT 1.bottom.2", "end"],
  labels: ["Summon Brute to the top lane", "", "Cast Bolt at the Troll", "", "End the turn"],
  players: [{ name: "Ann", kind: "human" }, { name: "", kind: "human" }],
};

test("legal actions by verb, keyed by their first word", () => {
  const plays = legalByVerb(FRAME, "play");
  assert.deepEqual([...plays.keys()], ["BRUTE"]);
  assert.deepEqual(plays.get("BRUTE"), ["play BRUTE top", "play BRUTE bottom"]);
  assert.equal(legalByVerb(null, "deck").size, 0);
  assert.deepEqual([...handActions(FRAME)], ["BRUTE", "BOLT"]);
});

test("the server's sentence for an action, none for an empty label or an action not legal", () => {
  assert.equal(actionLabel(FRAME, "play BRUTE top"), "Summon Brute to the top lane");
  assert.equal(actionLabel(FRAME, "play BRUTE bottom"), null);
  assert.equal(actionLabel(FRAME, "pass"), null);
});

test("the prompt: the chosen card's, the server's, else one from the legal verbs; none when waiting", () => {
  assert.equal(promptText(FRAME, "BRUTE"), "Where does Brute go?");
  assert.equal(promptText({ ...FRAME, prompt: "Server says" }, null), "Server says");
  assert.equal(promptText(FRAME, null), "Summon");
  assert.equal(promptText({ ...FRAME, legal: ["deck 1", "deck 2"] }, null), "Take a deck");
  assert.equal(promptText({ ...FRAME, legal: ["next", "end"] }, null), "Combat");
  assert.equal(promptText({ ...FRAME, to_move: 1 }, null), "");
  assert.equal(promptText({ ...FRAME, phase: "over" }, null), "");
});

test("where the chosen card may go: lanes for a creature, creatures for an incantation", () => {
  assert.deepEqual([...targetsOf(FRAME, "BRUTE")], [["top", "play BRUTE top"], ["bottom", "play BRUTE bottom"]]);
  assert.deepEqual([...targetsOf(FRAME, "BOLT").keys()], ["1.top.0", "1.bottom.2"]);
  assert.equal(targetsOf(FRAME, null).size, 0);
});

test("a return order is sent once the clicks fit one legal order only", () => {
  const orders = ["order A B C", "order A C B", "order B A C"];
  assert.equal(ordersFitting(orders, ["A"]).length, 2);
  assert.deepEqual(ordersFitting(orders, ["A", "C"]), ["order A C B"]);
  assert.deepEqual(ordersFitting(orders, ["C"]), []);
});

test("players' names: the automaton's and a default for an unnamed seat", () => {
  const f = { players: [{ name: "Ann" }, { kind: "automaton" }] };
  assert.equal(playerName(f, 0), "Ann");
  assert.equal(playerName(f, 1), "the Automaton");
  assert.equal(playerName(FRAME, 1), "Player 2");
  assert.equal(playerName(FRAME, 5), "?");
});

test("the result in the page's words, with names; the server's sentence for a reason without one", () => {
  assert.equal(reasonText({ ...FRAME, result: { winner: 1, termination: "fortress", reason: "x" } }), "Player 2 took Ann's fortress");
  assert.equal(reasonText({ ...FRAME, result: { winner: null, termination: "odd", reason: "As sent" } }), "As sent");
});

test("events: the server's sentence, undo and resignation said by the page", () => {
  assert.equal(eventText({ kind: "damaged", text: "Brute takes 2" }, FRAME), "Brute takes 2");
  assert.equal(eventText({ kind: "resigned", player: 0 }, FRAME), "Ann resigned");
  assert.equal(eventText({ kind: "resigned", player: 0 }, null), "? resigned");
  assert.equal(eventText({ kind: "undo", labels: ["a", "b"] }, FRAME), "Undone: a; b");
});

test("a hint's chance: a percentage in words, another label as the server sent it", () => {
  assert.equal(chanceWords({ label: "win chance", score: 0.734 }), "73 % win chance");
  assert.equal(chanceWords({ label: "value", score: 0.5 }), "value 0.50");
});

test("events play slower one by one, faster in a long queue, not at all when off", () => {
  assert.equal(eventDelay(0, "normal"), 420);
  assert.equal(eventDelay(11, "normal"), 140);
  assert.equal(eventDelay(0, "fast"), 40);
  assert.equal(eventDelay(0, "off"), 0);
});

test("a tutorial step's action: a card and its place, or a button", () => {
  assert.deepEqual(stepParts("play ZOMBIE top"), { card: "ZOMBIE", drop: "top" });
  assert.deepEqual(stepParts("cast BOLT 1.top.0"), { card: "BOLT", drop: "1.top.0" });
  assert.deepEqual(stepParts("end"), { button: "end" });
  const byCard = placesByCard(["play ZOMBIE top", "play ZOMBIE bottom", "end"]);
  assert.deepEqual([...byCard.get("ZOMBIE").keys()], ["top", "bottom"]);
  assert.equal(byCard.size, 1);
});

test("rule numbers are left out of a sentence unless the reader asks for them", async () => {
  const { ruleWords } = await import("../../src/clashofdecks/web/static/frame.js");
  assert.equal(ruleWords("Draft: take one of the revealed cards (R2.4).", false), "Draft: take one of the revealed cards.");
  assert.equal(ruleWords("7 cards, 7 mana (R3.1, R3.2).", false), "7 cards, 7 mana.");
  assert.equal(ruleWords("使える（R3.1）。", false), "使える。");
  assert.equal(ruleWords("R5 呪文：1ダメージ", false), "呪文：1ダメージ");
  assert.equal(ruleWords("Draft (R2.4).", true), "Draft (R2.4).");
});

test("a rule number inside a sentence goes too", async () => {
  const { ruleWords } = await import("../../src/clashofdecks/web/static/frame.js");
  assert.equal(ruleWords("手札があなたの命です。R4.2 一番右に達すると", false), "手札があなたの命です。一番右に達すると");
  assert.equal(ruleWords("Your hand is your life. R4.2 At the right end", false), "Your hand is your life. At the right end");
});
