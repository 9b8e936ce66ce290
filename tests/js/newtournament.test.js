// The "Create a tournament" form's arithmetic (static/newtournament.js): the request body from the
// inputs, and which input a refusal of the server is shown beside.
import assert from "node:assert/strict";
import { test } from "node:test";

import { inputOfRefusal, localTimeSeconds, localTimeText, tournamentBody, typedNumber } from "../../src/clashofdecks/web/static/newtournament.js";

const FORM = { name: "  Friday arena ", kind: "arena", format: "draft", timeControl: "3+2", startMode: "in", startsIn: "10",
  startsAt: "", minutes: "45", rounds: "5", bots: false };

test("an arena sends its minutes and a start in seconds from now", () => {
  assert.deepEqual(tournamentBody(FORM), { name: "Friday arena", kind: "arena", format: "draft", time_control: "3+2",
    bots_allowed: false, minutes: 45, starts_in: 600 });
});

test("a Swiss sends its rounds, not the arena's minutes", () => {
  const body = tournamentBody({ ...FORM, kind: "swiss", rounds: "7", bots: true });
  assert.equal(body.rounds, 7);
  assert.ok(!("minutes" in body));
  assert.equal(body.bots_allowed, true);
});

test("a start at a set time is the local time's seconds since the epoch", () => {
  const body = tournamentBody({ ...FORM, startMode: "at", startsAt: "2026-12-06T18:30" });
  assert.equal(body.starts_at, new Date(2026, 11, 6, 18, 30).getTime() / 1000);
  assert.ok(!("starts_in" in body));
  assert.equal(localTimeSeconds(localTimeText(new Date(2027, 0, 2, 3, 4).getTime())), new Date(2027, 0, 2, 3, 4).getTime() / 1000);
  assert.equal(localTimeText(new Date(2027, 0, 2, 3, 4).getTime()), "2027-01-02T03:04");
});

test("a value the server will refuse is sent as typed, for the server to say why", () => {
  assert.equal(typedNumber(""), null);
  assert.equal(typedNumber(" 12.5 "), 12.5);
  assert.equal(typedNumber("ten"), "ten");
  assert.equal(tournamentBody({ ...FORM, minutes: "" }).minutes, null);
  assert.equal(tournamentBody({ ...FORM, startsIn: "soon" }).starts_in, "soon");
  assert.equal(tournamentBody({ ...FORM, startMode: "at", startsAt: "" }).starts_at, null);
  assert.equal(localTimeSeconds("tomorrow"), null);
});

test("a refusal is shown beside the input it names; the start's beside the start shown", () => {
  assert.equal(inputOfRefusal("minutes", "in"), "minutes");
  assert.equal(inputOfRefusal("name", "in"), "name");
  assert.equal(inputOfRefusal("starts_in", "at"), "starts_at");
  assert.equal(inputOfRefusal("starts_at", "in"), "starts_in");
  assert.equal(inputOfRefusal(null, "in"), null);
  assert.equal(inputOfRefusal("extra", "in"), null);
});
