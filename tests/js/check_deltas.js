// Run by tests/web/test_deltas_js.py (not by `node --test`): the frames a real server sent to pages
// of protocol version 1 and 2, side by side (`node check_deltas.js FIXTURE.json`).  Each version-2
// page's state, rebuilt with static/deltas.js, must equal the version-1 page's frame after every
// change.  The fixture: {"pairs": [{"name", "steps": [{"v1": [text, ...], "v2": [text, ...]}]}]}.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";

import { applyDelta, baseOf } from "../../src/clashofdecks/web/static/deltas.js";

const GAME_FRAMES = ["state", "delta"];

function gameFrames(texts) {
  return texts.map((text) => JSON.parse(text)).filter((f) => GAME_FRAMES.includes(f.type));
}

function checkPair(pair) {
  let state = null;
  let checked = 0;
  pair.steps.forEach((step, i) => {
    const v1 = gameFrames(step.v1);
    const v2 = gameFrames(step.v2);
    // Before both pages had said hello, the version-1 page may have had more: the last ones pair up.
    if (i === 0) v1.splice(0, v1.length - v2.length);
    else assert.equal(v2.length, v1.length, `${pair.name}, step ${i}: ${v1.length} frames, ${v2.length} in version 2`);
    v1.forEach((full, j) => {
      const f = v2[j];
      assert.equal(full.type, "state");
      if (f.type === "state") state = baseOf(f);
      else state = applyDelta(state, f);
      assert.deepStrictEqual(state, baseOf(full), `${pair.name}, step ${i}, frame ${j}`);
      checked += 1;
    });
  });
  return checked;
}

const fixture = JSON.parse(readFileSync(process.argv[2], "utf8"));
let frames = 0;
let deltas = 0;
for (const pair of fixture.pairs) {
  frames += checkPair(pair);
  deltas += pair.steps.reduce((n, s) => n + gameFrames(s.v2).filter((f) => f.type === "delta").length, 0);
}
console.log(JSON.stringify({ pairs: fixture.pairs.length, frames, deltas }));
