// Clash of Decks in the browser: shared state, words, DOM helpers, routing.  Plain JavaScript, no build
// step; the page loads app.js, lobby.js, game.js, board.js, play.js, replay.js, tutorial.js, account.js,
// ratings.js and rules.js in that order.
// The server is the only judge: this page shows the frames it receives and sends action text.
"use strict";

// The words come from the server's catalog of the page's language (GET /api/i18n?lang=xx: the
// catalog's web.* messages, English under them); so do the languages the header offers.
const state = { lang: null, languages: [], words: {}, fallback: {}, cards: null, rules: null, ws: null, frame: null, selected: null,
  log: [], gameId: null, tokens: [], me: null, retry: 0, hint: null, notice: null, frames: [], animating: false };

// The saved choice, else the browser's first language the server has a catalog for, else English.
function pickLang(codes) {
  const saved = localStorage.getItem("clash.lang");
  if (codes.includes(saved)) return saved;
  for (const l of navigator.languages || [navigator.language || "en"]) {
    const short = (l || "").slice(0, 2).toLowerCase();
    if (codes.includes(short)) return short;
  }
  return "en";
}

async function loadWords() {
  if (!state.lang) {
    const en = await api("/api/i18n?lang=en");
    state.lang = pickLang(en.languages.map((l) => l.code));
  }
  const cat = await api("/api/i18n?lang=" + encodeURIComponent(state.lang));
  state.lang = cat.lang;
  state.languages = cat.languages;
  state.words = cat.words;
  state.fallback = cat.fallback;
}

function hasWord(key) { return key in state.words || key in state.fallback; }

function t(key, values) {
  let s = state.words[key] || state.fallback[key] || key;
  for (const [k, v] of Object.entries(values || {})) s = s.split("{" + k + "}").join(String(v));
  return s;
}

// h("div", {class: "x", "data-action": "end"}, child, "text") — text children are never parsed as HTML.
function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === null || v === undefined || v === false) continue;
    if (k.startsWith("on")) el.addEventListener(k.slice(2), v);
    else el.setAttribute(k, v === true ? "" : v);
  }
  for (const c of children.flat(Infinity)) {
    if (c === null || c === undefined || c === false) continue;
    el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return el;
}

const SVG_NS = "http://www.w3.org/2000/svg";
// Ability icons: small inline SVG glyphs (no image files).
const ICONS = {
  splash: "M8 2 L10 6 L14 7 L10 9 L8 14 L6 9 L2 7 L6 6 Z",
  perforation: "M1 8 H12 M9 4 L14 8 L9 12",
  rage: "M8 1 L11 7 H8 L10 15 L4 6 H7 Z",
  protection: "M8 1 L14 4 V8 C14 12 11 14 8 15 C5 14 2 12 2 8 V4 Z",
  indestructible: "M3 3 H13 V13 H3 Z M6 6 H10 V10 H6 Z",
  berserk: "M2 14 L14 2 M2 2 L14 14",
  sprint: "M2 4 L8 8 L2 12 M8 4 L14 8 L8 12",
  aura: "M8 3 A5 5 0 1 0 8.01 3 M8 6 A2 2 0 1 0 8.01 6",
};
function icon(name) {
  const svg = document.createElementNS(SVG_NS, "svg");
  svg.setAttribute("viewBox", "0 0 16 16");
  svg.setAttribute("class", "icon icon-" + name);
  svg.setAttribute("aria-hidden", "true");
  const p = document.createElementNS(SVG_NS, "path");
  p.setAttribute("d", ICONS[name] || "M2 2 H14 V14 H2 Z");
  svg.append(p);
  return svg;
}

async function api(path, options) {
  const res = await fetch(path, Object.assign({ credentials: "same-origin" }, options || {}));
  const body = await res.json().catch(() => ({ error: "bad reply" }));
  if (!res.ok) throw new Error(body.error || res.statusText);
  return body;
}

async function loadCatalogue() {
  await loadWords();
  if (!state.cards) state.cards = await api("/api/cards");
  state.rules = await api("/api/rules?lang=" + state.lang);
}

function abilityName(a) {
  const names = state.cards.ability_names[a];
  return (names && (names[state.lang] || names.en)) || a;
}
function abilityHelp(a) { return (state.rules && state.rules.abilities[a]) || ""; }
function card(id) { return state.cards.cards[id]; }
function cardName(id) { return id === "?" ? "?" : (card(id) ? card(id).name : id === "FORT" ? "Fort" : "Bastion"); }

// ------------------------------------------------------------------ page frame

function header() {
  const select = h("select", { "data-testid": "lang", "aria-label": t("language"),
    onchange: async (e) => { state.lang = e.target.value; localStorage.setItem("clash.lang", state.lang);
      document.documentElement.lang = state.lang; await loadCatalogue(); route(); } },
    state.languages.map((l) => h("option", { value: l.code, selected: l.code === state.lang, title: l.name }, l.code.toUpperCase())));
  return h("header", { class: "top" },
    h("h1", { class: "brand" }, h("a", { href: "/" }, t("title"))),
    h("nav", {}, h("a", { href: "/" }, t("lobby")), " ", h("a", { href: "/rules", "data-testid": "rules-link" }, t("rules")), " ",
      h("a", { href: "/leaderboard", "data-testid": "nav-leaderboard" }, t("leaderboard")), " ",
      h("a", { href: "/account", "data-testid": "account-link" }, (state.me && state.me.identity && state.me.display_name) || t("account"))),
    select);
}

function mount(...nodes) {
  const app = document.getElementById("app");
  app.replaceChildren(header(), ...nodes);
}

// Each route() opens a page view.  A page that waits for the server before drawing draws only if it is
// still the current view: a lobby reloading for a new language must not cover the game that a click
// on its Start button opened meanwhile (the player would see the lobby under the game's address).
let pageView = 0;
function stillShowing(view) { return view === pageView; }

async function route() {
  pageView += 1;
  document.documentElement.lang = state.lang;
  hideCardHelp();
  const path = location.pathname;
  let m;
  if ((m = path.match(/^\/g\/([A-Za-z0-9]+)$/))) return gamePage(m[1]);
  if ((m = path.match(/^\/r\/([A-Za-z0-9]+)$/))) return replayPage(m[1]);
  if (path === "/rules") return rulesPage();
  if (path === "/tutorial") return tutorialPage();
  if (path === "/account") return accountPage();
  if (path === "/leaderboard") return leaderboardPage();
  if ((m = path.match(/^\/p\/([A-Za-z0-9_.-]+)$/))) return playerPage(m[1]);
  return lobbyPage();
}
