// The shape of the browser code (src/clashofdecks/web/static/): ES modules importing each other by
// relative path, all reached from main.js, no import cycle, the modules without DOM importing only
// each other (so Node's test runner can load them), and index.html loading main.js and preloading
// every other module.
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { test } from "node:test";
import { fileURLToPath } from "node:url";

const STATIC = fileURLToPath(new URL("../../src/clashofdecks/web/static/", import.meta.url));
const MODULES = readdirSync(STATIC).filter((name) => name.endsWith(".js")).sort();
// The modules the unit tests import under Node: no DOM, no network, no browser global at all.
const WITHOUT_DOM = ["analysis.js", "cards.js", "clock.js", "deltas.js", "frame.js", "newtournament.js", "paths.js", "store.js", "summaries.js", "words.js"];

function importsOf(name) {
  const source = readFileSync(STATIC + name, "utf8");
  return [...source.matchAll(/^import\s[^;]*?from\s+"([^"]+)";/gms)].map((m) => m[1]);
}
const GRAPH = new Map(MODULES.map((name) => [name, importsOf(name)]));

test("every import is a module of the folder, by relative path", () => {
  for (const [name, imports] of GRAPH) {
    for (const path of imports) {
      assert.match(path, /^\.\/[a-z]+\.js$/, `${name} imports ${path}`);
      assert.ok(GRAPH.has(path.slice(2)), `${name} imports ${path}, which does not exist`);
    }
  }
});

test("main.js reaches every module, and no module imports itself through others", () => {
  const reached = new Set();
  const walk = (name, trail) => {
    assert.ok(!trail.includes(name), "an import cycle: " + [...trail, name].join(" -> "));
    if (reached.has(name)) return;
    for (const path of GRAPH.get(name)) walk(path.slice(2), [...trail, name]);
    reached.add(name);
  };
  walk("main.js", []);
  assert.deepEqual([...reached].sort(), MODULES);
  for (const name of MODULES) walk(name, []);  // each module checked from its own start too
});

test("the modules without DOM import only each other and name no browser global", () => {
  for (const name of WITHOUT_DOM) {
    for (const path of GRAPH.get(name)) assert.ok(WITHOUT_DOM.includes(path.slice(2)), `${name} imports ${path}`);
    const code = readFileSync(STATIC + name, "utf8").replace(/\/\/.*$/gm, "");
    assert.doesNotMatch(code, /\b(document|window|localStorage|navigator|location|history|fetch|WebSocket)\b/, name);
  }
});

test("index.html runs main.js as a module and preloads every other module, nothing else", () => {
  const html = readFileSync(STATIC + "index.html", "utf8");
  const scripts = [...html.matchAll(/<script\b[^>]*>/g)].map((m) => m[0]);
  assert.deepEqual(scripts, ['<script type="module" src="/static/main.js">']);
  const preloaded = [...html.matchAll(/<link rel="modulepreload" href="\/static\/([^"]+)">/g)].map((m) => m[1]);
  assert.deepEqual(preloaded.sort(), MODULES.filter((name) => name !== "main.js"));
});
