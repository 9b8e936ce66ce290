// The page's words: the language chosen and the catalog's messages with their {placeholders}.
// No DOM (tests/js/words.test.js).
import { state } from "./store.js";

// The saved choice, else the browser's first language the server has a catalog for, else English.
export function pickLang(codes, saved, browserLanguages) {
  if (codes.includes(saved)) return saved;
  for (const l of browserLanguages) {
    const short = (l || "").slice(0, 2).toLowerCase();
    if (codes.includes(short)) return short;
  }
  return "en";
}

export function hasWord(key) { return key in state.words || key in state.fallback; }

export function t(key, values) {
  let s = state.words[key] || state.fallback[key] || key;
  for (const [k, v] of Object.entries(values || {})) s = s.split("{" + k + "}").join(String(v));
  return s;
}

// A time control's name ("3+2" is the catalog's tc_3_2).
export function timeControlName(control) { return t("tc_" + control.replace("+", "_")); }
