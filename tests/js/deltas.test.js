// Protocol version 2's deltas applied by the page (static/deltas.js), as web/deltas.py makes them.
// Whole games: tests/web/test_deltas_js.py runs check_deltas.js on the frames the server sent.
import assert from "node:assert/strict";
import { test } from "node:test";

import { applyDelta, baseOf, DeltaError } from "../../src/clashofdecks/web/static/deltas.js";

const STATE = Object.freeze({
  type: "state", index: 3, to_move: 0, events: [{ kind: "cast" }], setup: null,
  view: Object.freeze({ hand: ["a1", "b2"], me: Object.freeze({ life: 20, deck: 30 }) }),
  clock: Object.freeze({ left: [60, 60], running: 0 }), playable: ["a1"],
});

function delta(changed, removed = []) { return { type: "delta", changed, removed }; }

test("changed values replace the old ones; nested objects merge; lists are replaced whole", () => {
  const next = applyDelta(STATE, delta({ index: 4, view: { me: { life: 18 }, hand: ["b2"] }, events: [] }));
  assert.deepEqual(next, {
    ...STATE, index: 4, events: [], view: { hand: ["b2"], me: { life: 18, deck: 30 } },
  });
});

test("removed paths go first, then changed keys come in (an object where null was, null where one was)", () => {
  const next = applyDelta(STATE, delta({ setup: { format: "draft" }, clock: null }, [["playable"], ["view", "me", "deck"]]));
  assert.deepEqual(next, {
    type: "state", index: 3, to_move: 0, events: [{ kind: "cast" }], setup: { format: "draft" },
    view: { hand: ["a1", "b2"], me: { life: 20 } }, clock: null,
  });
});

test("the state applied to is never changed, and what the delta leaves is shared", () => {
  const next = applyDelta(STATE, delta({ view: { me: { life: 1 } } }, [["view", "me", "deck"]]));
  assert.equal(STATE.view.me.life, 20);
  assert.equal(STATE.view.me.deck, 30);
  assert.equal(next.clock, STATE.clock);
  assert.notEqual(next.view, STATE.view);
});

test("an empty delta gives the same state", () => {
  assert.deepEqual(applyDelta(STATE, delta({})), STATE);
});

test("a delta that does not fit its state is refused, not half applied", () => {
  assert.throws(() => applyDelta(null, delta({ index: 4 })), DeltaError);
  assert.throws(() => applyDelta({ type: "error" }, delta({})), DeltaError);
  assert.throws(() => applyDelta(STATE, delta({}, [["nothing"]])), DeltaError);
  assert.throws(() => applyDelta(STATE, delta({}, [["setup", "x"]])), DeltaError);
  assert.throws(() => applyDelta(STATE, delta({}, [[]])), DeltaError);
  assert.throws(() => applyDelta(STATE, { type: "delta", changed: [] , removed: [] }), DeltaError);
  assert.throws(() => applyDelta(STATE, { type: "delta", changed: {} }), DeltaError);
  assert.equal(STATE.index, 3);
});

test("the base of a delta is the state without the hello-only keys", () => {
  const hello = { ...STATE, log: [{ kind: "turn" }], open_seats: [1] };
  assert.deepEqual(baseOf(hello), STATE);
  assert.ok("log" in hello);
});
