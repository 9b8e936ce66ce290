// The page frame: the header, mounting a page, routing an address to its page, and redrawing the game.
import { loadCatalogue } from "./api.js";
import { hideCardHelp } from "./cardhelp.js";
import { h } from "./dom.js";
import { pageOf } from "./paths.js";
import { state } from "./store.js";
import { t } from "./words.js";

// The pages by name (paths.js's pageOf), given once by main.js: the modules below the pages route
// without importing them.
let pages = {};
export function setPages(table) { pages = table; }

// Each route() opens a page view.  A page that waits for the server before drawing draws only if it is
// still the current view: a lobby reloading for a new language must not cover the game that a click
// on its Start button opened meanwhile (the player would see the lobby under the game's address).
export async function route() {
  state.pageView += 1;
  document.documentElement.lang = state.lang;
  hideCardHelp();
  const [page, arg] = pageOf(location.pathname);
  return pages[page](arg);
}
// A bot account's name (docs/web.md, "Bots") bears this badge wherever it is shown.
export function botBadge(isBot) {
  return isBot ? h("span", { class: "bot-badge", "data-testid": "bot-badge" }, t("bot_badge")) : null;
}

export function currentView() { return state.pageView; }
export function stillShowing(view) { return view === state.pageView; }

// Opens an address of this page (a new history entry).
export function go(path) {
  history.pushState(null, "", path);
  route();
}

// The game page's redraw, given by game.js: the board and the panels redraw after a click without
// importing the page that draws them.
let redrawGame = () => {};
export function setRedraw(fn) { redrawGame = fn; }
export function redraw() { redrawGame(); }

// What the reader has typed into the page's fields (by id), so a change of language, which draws the
// page again in the new words, does not throw it away (a half-filled tournament or sign-up form).
// The fields are read from the old page as the new one replaces it, so a choice made while the new
// words loaded is kept too.  Only while that redraw runs: ``carried`` is null otherwise.
let carried = null;

function typedFields() {
  const fields = document.querySelectorAll("#app main input[id], #app main select[id], #app main textarea[id]");
  return [...fields].map((el) => [el.id, el.type === "checkbox" || el.type === "radio" ? el.checked : el.value]);
}

// Selects first, each announcing its change (a form shows the inputs its choice needs), then the rest.
function restoreFields(saved) {
  const found = [...saved].map(([id, value]) => [document.getElementById(id), value]).filter(([el]) => el);
  const order = [...found.filter(([el]) => el.tagName === "SELECT"), ...found.filter(([el]) => el.tagName !== "SELECT")];
  for (const [el, value] of order) {
    if (typeof value === "boolean") el.checked = value;
    else if (el.tagName !== "SELECT" || [...el.options].some((o) => o.value === value)) el.value = value;
    if (el.tagName === "SELECT") el.dispatchEvent(new Event("change"));
    saved.delete(el.id);
  }
}

function languageSelect() {
  return h("select", { "data-testid": "lang", "aria-label": t("language"),
    onchange: async (e) => {
      state.lang = e.target.value; localStorage.setItem("clash.lang", state.lang);
      document.documentElement.lang = state.lang;
      carried = new Map();
      try { await loadCatalogue(); await route(); } finally { carried = null; }
    } },
  state.languages.map((l) => h("option", { value: l.code, selected: l.code === state.lang, title: l.name }, l.code.toUpperCase())));
}

function header() {
  return h("header", { class: "top" },
    h("h1", { class: "brand" }, h("a", { href: "/" }, t("title"))),
    h("nav", {}, h("a", { href: "/" }, t("lobby")), " ", h("a", { href: "/rules", "data-testid": "rules-link" }, t("rules")), " ",
      h("a", { href: "/leaderboard", "data-testid": "nav-leaderboard" }, t("leaderboard")), " ",
      h("a", { href: "/account", "data-testid": "account-link" }, (state.me && state.me.identity && state.me.display_name) || t("account"))),
    languageSelect());
}

export function mount(...nodes) {
  const app = document.getElementById("app");
  if (carried) for (const [id, value] of typedFields()) carried.set(id, value);
  app.replaceChildren(header(), ...nodes);
  if (carried) restoreFields(carried);
}

// An address the app does not know (the server answered it with 404): said in the reader's
// language, with the way back to the lobby and to the tutorial.
export function notFoundPage() {
  mount(h("main", { class: "lobby not-found", "data-testid": "not-found" },
    h("section", { class: "panel" },
      h("h1", {}, t("not_found_title")),
      h("p", {}, t("not_found_text")),
      h("div", { class: "row" },
        h("a", { class: "button primary", href: "/", "data-testid": "not-found-back" }, t("back_lobby")),
        h("a", { class: "button", href: "/tutorial" }, t("tutorial"))))));
}
