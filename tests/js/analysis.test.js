// The arithmetic of a replay's analysis (static/analysis.js).
import assert from "node:assert/strict";
import { test } from "node:test";

import { lastStepOfTurns, pct, stepFromHash, stepOfDecision, turnAtStep } from "../../src/clashofdecks/web/static/analysis.js";

const DECISIONS = [{ index: 0, turn: 0 }, { index: 1, turn: 1 }, { index: 2, turn: 1 }, { index: 3, turn: 2 }];

test("a decision leads to the step after its frame", () => {
  assert.equal(stepOfDecision({ index: 4 }), 5);
  assert.equal(pct(0.456), 46);
});

test("the turn shown at a step: the setup at 0, the last analysed turn past the decisions", () => {
  assert.equal(turnAtStep(DECISIONS, 0), 0);
  assert.equal(turnAtStep(DECISIONS, 2), 1);
  assert.equal(turnAtStep(DECISIONS, 4), 2);
  assert.equal(turnAtStep(DECISIONS, 40), 2);
  assert.equal(turnAtStep([], 3), 0);
});

test("each turn's row jumps to the step after its last decision", () => {
  assert.deepEqual([...lastStepOfTurns(DECISIONS)], [[0, 1], [1, 3], [2, 4]]);
});

test("the step in the address, within the replay; the last without one", () => {
  assert.equal(stepFromHash("#s=3", 10), 3);
  assert.equal(stepFromHash("#s=30", 10), 10);
  assert.equal(stepFromHash("#s=-2", 10), 0);
  assert.equal(stepFromHash("", 10), 10);
});
