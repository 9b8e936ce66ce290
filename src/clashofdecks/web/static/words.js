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
  const template = state.words[key] || state.fallback[key] || key;
  const named = withNouns(template, values || {});
  let s = named;
  for (const [k, v] of Object.entries(values || {})) s = s.split("{" + k + "}").join(String(v));
  // A sentence starts with a capital ("der Automat ist am Zug" → "Der Automat …"); a player's own
  // name stays as typed.
  return named !== template && template.startsWith("{") ? s.charAt(0).toUpperCase() + s.slice(1) : s;
}

// A name that is a common noun (German "Automat") takes the form the word before it asks for, as
// the server's sentences do (words/glossary.py): "von {name}" → "des Automaten".
function withNouns(template, values) {
  const nouns = (state.grammar && state.grammar.nouns) || {};
  if (!Object.keys(nouns).length) return template;
  const accusative = new Set(state.grammar.accusative_after || []);
  return template.replace(/(?:(\S+) )?\{(\w+)\}/g, (m, before, key) => {
    const forms = nouns[String(values[key])];
    if (!forms) return m;
    if (before === "von") return forms.gen;
    const word = accusative.has(before) ? forms.acc : forms.nom;
    return before ? before + " " + word : word;
  });
}

// A refusal in the reader's language: the word for its code (err_<code>) when the catalog has one,
// its placeholders filled from the refusal's values (a limit: {low}, {high}), else by the HTTP status
// (404: not found, 429: too many tries, 5xx or no answer: busy), else the server's own sentence
// after "Refused:".
export function errorText(code, message, status, values) {
  if (code && hasWord("err_" + code)) return t("err_" + code, values);
  if (status === 404) return t("err_not_found");
  if (status === 429) return t("err_rate_limited");
  if (status === 0 || status >= 500) return t("err_busy");
  return t("error") + ": " + message;
}

// What a failed request says: api.js's refusals are in the reader's language already.
export function failText(e) { return e && e.localized ? e.message : t("error") + ": " + (e && e.message); }

// A time control's name ("3+2" is the catalog's tc_3_2).
export function timeControlName(control) { return t("tc_" + control.replace("+", "_")); }
