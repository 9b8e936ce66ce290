// Protocol version 2 (docs/web.md, "Protocol versions"): after the answer to `hello`, the server
// sends what changed since the last state (`delta`), and the page rebuilds the full state from it,
// the same frame key for key that version 1 would have sent (web/deltas.py does the same in Python;
// tests/web/test_deltas_js.py checks the two agree over whole games).  No DOM (tests/js/deltas.test.js).

// Keys of the answer to `hello` (and to `resync`) only: no delta applies to them.
const HELLO_ONLY = ["log", "open_seats"];

// A delta that does not fit the state it should apply to: the page asks for the whole state again.
export class DeltaError extends Error {}

function isObject(value) {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

// The state a delta applies to: a `state` frame without its hello-only keys.
export function baseOf(frame) {
  const base = { ...frame };
  for (const key of HELLO_ONLY) delete base[key];
  return base;
}

// The objects along a path are copied before they change, so the state given (maybe on screen) is
// never changed; what the delta does not touch is shared between the two.
function removePath(out, path) {
  if (!Array.isArray(path) || path.length === 0 || !path.every((k) => typeof k === "string")) {
    throw new DeltaError("a removed path must be a list of keys");
  }
  let target = out;
  for (const key of path.slice(0, -1)) {
    if (!isObject(target[key])) throw new DeltaError(`no object at ${path.join(".")}`);
    target = target[key] = { ...target[key] };
  }
  const last = path[path.length - 1];
  if (!Object.hasOwn(target, last)) throw new DeltaError(`nothing to remove at ${path.join(".")}`);
  delete target[last];
}

function merge(target, changed) {
  for (const [key, value] of Object.entries(changed)) {
    if (isObject(value) && isObject(target[key])) {
      target[key] = { ...target[key] };
      merge(target[key], value);
    } else {
      target[key] = value;
    }
  }
}

// The new state: `state` (left as it is) with `delta` applied -- its `removed` paths removed, then
// its `changed` merged in (an object into an object, any other value in place of the old one).
// Throws DeltaError when there is no state, or the delta does not fit it.
export function applyDelta(state, delta) {
  if (!isObject(state) || state.type !== "state") throw new DeltaError("no state to apply a delta to");
  if (!isObject(delta) || !isObject(delta.changed) || !Array.isArray(delta.removed)) {
    throw new DeltaError("a delta has `changed` (an object) and `removed` (a list)");
  }
  const out = { ...state };
  for (const path of delta.removed) removePath(out, path);
  merge(out, delta.changed);
  return out;
}
