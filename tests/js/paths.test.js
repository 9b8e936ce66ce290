// The page's addresses (static/paths.js).
import assert from "node:assert/strict";
import { test } from "node:test";

import { inviteOf, pageOf } from "../../src/clashofdecks/web/static/paths.js";

test("each address opens its page; anything else is not found", () => {
  assert.deepEqual(pageOf("/g/abc123"), ["game", "abc123"]);
  assert.deepEqual(pageOf("/r/abc123"), ["replay", "abc123"]);
  assert.deepEqual(pageOf("/p/guest-3f.9_x"), ["player", "guest-3f.9_x"]);
  assert.deepEqual(pageOf("/t/0a1b2c3d4e5f6a7b"), ["tournament", "0a1b2c3d4e5f6a7b"]);
  assert.deepEqual(pageOf("/t/new"), ["newtournament", null]);
  for (const page of ["rules", "tutorial", "account", "leaderboard"]) assert.deepEqual(pageOf("/" + page), [page, null]);
  assert.deepEqual(pageOf("/puzzle/daily"), ["puzzle", "daily"]);
  assert.deepEqual(pageOf("/puzzle/d530c411b9c4ff26"), ["puzzle", "d530c411b9c4ff26"]);
  assert.deepEqual(pageOf("/puzzle/../x"), ["notfound", "/puzzle/../x"]);
  assert.deepEqual(pageOf("/"), ["lobby", null]);
  assert.deepEqual(pageOf("/g/a-b"), ["notfound", "/g/a-b"]);
  assert.deepEqual(pageOf("/g/abc/extra"), ["notfound", "/g/abc/extra"]);
  assert.deepEqual(pageOf("/nowhere"), ["notfound", "/nowhere"]);
});

test("an invite's tokens, its rated offer and its hints offer (only with a token)", () => {
  assert.deepEqual(inviteOf("#t=a,b&rated=1"), { tokens: ["a", "b"], rated: true, hints: false, hasTokens: true });
  assert.deepEqual(inviteOf("#t=a&hints=1"), { tokens: ["a"], rated: false, hints: true, hasTokens: true });
  assert.deepEqual(inviteOf("#rated=1&hints=1"), { tokens: [], rated: false, hints: false, hasTokens: false });
  assert.deepEqual(inviteOf(""), { tokens: [], rated: false, hints: false, hasTokens: false });
  assert.deepEqual(inviteOf("#t=,"), { tokens: [], rated: false, hints: false, hasTokens: true });
});
