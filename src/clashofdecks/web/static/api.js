// The server's HTTP answers: JSON in and out; the words and the card catalogue loaded into the store.
import { state } from "./store.js";
import { errorText, pickLang } from "./words.js";

// A refusal is thrown as an Error whose message is already in the reader's language (words.js's
// errorText); its code and status stay on it.
export async function api(path, options) {
  let res;
  try {
    res = await fetch(path, Object.assign({ credentials: "same-origin" }, options || {}));
  } catch (e) {
    throw refusal("", e.message, 0);
  }
  const body = await res.json().catch(() => ({ error: "bad reply" }));
  if (!res.ok) throw refusal(body.code, body.error || res.statusText, res.status, body);
  return body;
}

// ``body.field``: the request's field refused, when the server names it (a form shows the refusal
// beside that field); ``body.values``: what the refusal's words name.
function refusal(code, message, status, body) {
  const values = (body && body.values) || {};
  const e = new Error(state.words && Object.keys(state.words).length ? errorText(code, message, status, values) : message);
  e.code = code; e.status = status; e.localized = true; e.field = (body && body.field) || null;
  return e;
}

export function postJson(path, body) {
  return api(path, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body || {}) });
}

// The words come from the server's catalog of the page's language (GET /api/i18n?lang=xx: the
// catalog's web.* messages, English under them); so do the languages the header offers.
async function loadWords() {
  if (!state.lang) {
    const en = await api("/api/i18n?lang=en");
    const browser = navigator.languages || [navigator.language || "en"];
    state.lang = pickLang(en.languages.map((l) => l.code), localStorage.getItem("clash.lang"), browser);
  }
  const cat = await api("/api/i18n?lang=" + encodeURIComponent(state.lang));
  state.lang = cat.lang;
  state.languages = cat.languages;
  state.words = cat.words;
  state.fallback = cat.fallback;
  state.grammar = cat.grammar || {};
}

export async function loadCatalogue() {
  await loadWords();
  if (!state.cards) state.cards = await api("/api/cards");
  state.rules = await api("/api/rules?lang=" + state.lang);
}
