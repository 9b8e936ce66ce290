// The clocks as the page shows them (static/clock.js): counted down from the frame's arrival.
import assert from "node:assert/strict";
import { test } from "node:test";

import { clockLeft, clockText } from "../../src/clashofdecks/web/static/clock.js";
import { state } from "../../src/clashofdecks/web/static/store.js";

test("minutes and seconds, rounded up", () => {
  assert.equal(clockText(125, "realtime"), "2:05");
  assert.equal(clockText(0.2, "realtime"), "0:01");
  assert.equal(clockText(0, "realtime"), "0:00");
  assert.equal(clockText(3 * 3600, "realtime"), "180:00");
});

test("a correspondence clock says days and hours, or hours and minutes", () => {
  state.words = { dur_days: "{d} d {h} h", dur_hours: "{h} h {m} min" };
  assert.equal(clockText(2 * 86400 + 5 * 3600 + 59, "correspondence"), "2 d 5 h");
  assert.equal(clockText(3 * 3600 + 7 * 60, "correspondence"), "3 h 7 min");
  assert.equal(clockText(3599, "correspondence"), "59:59");
});

test("only the running clock counts down, never below zero, and not once the game is over", () => {
  const f = { phase: "main", receivedAt: 1000, clock: { left: [60, 30], running: 1 } };
  assert.equal(clockLeft(f, 0, 11000), 60);
  assert.equal(clockLeft(f, 1, 11000), 20);
  assert.equal(clockLeft(f, 1, 100000), 0);
  assert.equal(clockLeft({ ...f, phase: "over" }, 1, 11000), 30);
});
