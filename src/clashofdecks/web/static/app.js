// Clash of Decks in the browser: lobby, board, replays, rules.  Plain JavaScript, no build step.
// The server is the only judge: this page shows the frames it receives and sends action text.
"use strict";

const I18N = window.CLASH_I18N;
const LANGS = ["en", "de", "fr", "ja"];
const state = { lang: pickLang(), cards: null, rules: null, ws: null, frame: null, selected: null,
  log: [], gameId: null, tokens: [], retry: 0, hint: null, notice: null, frames: [], animating: false };

function pickLang() {
  const saved = localStorage.getItem("clash.lang");
  if (LANGS.includes(saved)) return saved;
  for (const l of navigator.languages || [navigator.language || "en"]) {
    const short = (l || "").slice(0, 2).toLowerCase();
    if (LANGS.includes(short)) return short;
  }
  return "en";
}

function t(key, values) {
  let s = (I18N[state.lang] && I18N[state.lang][key]) || I18N.en[key] || key;
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
    LANGS.map((l) => h("option", { value: l, selected: l === state.lang }, l.toUpperCase())));
  return h("header", { class: "top" },
    h("a", { href: "/", class: "brand" }, t("title")),
    h("nav", {}, h("a", { href: "/" }, t("lobby")), " ", h("a", { href: "/rules", "data-testid": "rules-link" }, t("rules"))),
    select);
}

function mount(...nodes) {
  const app = document.getElementById("app");
  app.replaceChildren(header(), ...nodes);
}

async function route() {
  document.documentElement.lang = state.lang;
  const path = location.pathname;
  let m;
  if ((m = path.match(/^\/g\/([A-Za-z0-9]+)$/))) return gamePage(m[1]);
  if ((m = path.match(/^\/r\/([A-Za-z0-9]+)$/))) return replayPage(m[1]);
  if (path === "/rules") return rulesPage();
  return lobbyPage();
}

// ------------------------------------------------------------------ lobby

function getCookie(name) {
  const m = document.cookie.match(new RegExp("(?:^|; )" + name + "=([^;]*)"));
  return m ? decodeURIComponent(m[1]) : "";
}

async function lobbyPage() {
  closeSocket();
  const lobby = await api("/api/lobby");
  const name = h("input", { id: "name", "data-testid": "name", maxlength: "40", value: getCookie("clash_name") || "", placeholder: t("your_name") });
  const fmt = (id, formats) => h("select", { id }, (formats || ["draft", "precon", "custom"]).map((f) => h("option", { value: f }, t(f))));
  const soloFormat = fmt("solo-format", ["draft", "precon"]);  // no custom decks in solo (R2.2)
  const soloDeck = h("select", { id: "solo-deck" }, h("option", { value: "" }, t("choose_in_game")),
    [1, 2, 3, 4].map((n) => h("option", { value: n }, t("deck") + " " + n)));
  const level = h("select", { id: "solo-level", "data-testid": "level" }, lobby.levels.map((n) => h("option", { value: n }, t("level") + " " + n)));
  // Custom threat options (R8.2) instead of a level: open the box to use them.
  const threatBox = h("details", { "data-testid": "custom-threat" }, h("summary", {}, t("custom_threat")));
  const threatInputs = {};
  for (const [name, choices] of Object.entries(lobby.threat_choices)) {
    threatInputs[name] = h("select", { "data-threat": name }, choices.map((c) => h("option", { value: String(c) }, String(c))));
    threatBox.append(h("label", { class: "row" }, name.replace(/_/g, " ") + " ", threatInputs[name]));
  }
  const abilityBoxes = lobby.threat_abilities.map((a) => h("input", { type: "checkbox", value: a, "data-threat-ability": a }));
  threatBox.append(h("div", { class: "row" }, t("abilities") + ":",
    lobby.threat_abilities.map((a, i) => h("label", {}, abilityBoxes[i], " ", abilityName(a)))));
  const threatValue = () => {
    const out = {};
    for (const [name, el] of Object.entries(threatInputs)) out[name] = /^\d+$/.test(el.value) ? Number(el.value) : el.value;
    out.abilities = abilityBoxes.filter((b) => b.checked).map((b) => b.value);
    return out;
  };
  const aiFormat = fmt("ai-format");
  const ai = h("select", { id: "ai-level", "data-testid": "ai-level" }, lobby.ai_levels.map((a) => h("option", { value: a, selected: a === lobby.ai_default }, t("ai_" + a))));
  const friendFormat = fmt("friend-format");
  const hotFormat = fmt("hot-format");
  const err = h("p", { class: "error", role: "alert", "data-testid": "lobby-error" });

  async function start(body) {
    body.name = name.value.trim();
    try {
      const res = await api("/api/games", { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) });
      localStorage.setItem("clash.tokens." + res.id, res.tokens.join(","));
      if (res.invite) localStorage.setItem("clash.invite." + res.id, res.invite);
      history.pushState(null, "", "/g/" + res.id);
      route();
    } catch (e) { err.textContent = t("error") + ": " + e.message; }
  }
  const importInput = h("input", { type: "file", accept: ".json,application/json", "data-testid": "import-file",
    onchange: async (e) => {
      const file = e.target.files[0];
      if (!file) return;
      try {
        const res = await api("/api/import", { method: "POST", headers: { "Content-Type": "application/json" }, body: await file.text() });
        history.pushState(null, "", res.replay); route();
      } catch (x) { err.textContent = t("error") + ": " + x.message; }
    } });

  const gameItem = (g) => {
    const label = `${g.players.join(" – ")} · ${g.mode} · ${g.format}`;
    const links = [];
    if (g.status === "over") links.push(h("a", { href: "/r/" + g.id, "data-testid": "replay-link" }, t("replay")));
    else if (localStorage.getItem("clash.tokens." + g.id)) links.push(h("a", { href: "/g/" + g.id }, t("resume")));
    else links.push(h("a", { href: "/g/" + g.id }, t("watch")));
    const result = g.result && g.result.reason ? " · " + g.result.reason : "";
    return h("li", {}, label + result + " ", ...links);
  };
  const list = (items) => items.length ? h("ul", {}, items.map(gameItem)) : h("p", { class: "muted" }, t("none"));

  mount(h("main", { class: "lobby" },
    h("section", { class: "panel" }, h("label", { for: "name" }, t("your_name")), name),
    h("section", { class: "panel" }, h("h2", {}, t("new_solo")),
      h("div", { class: "row" }, soloFormat, soloDeck, level), threatBox,
      h("button", { class: "primary", "data-testid": "new-solo", onclick: () => start(Object.assign({ kind: "solo", format: soloFormat.value,
        deck: soloFormat.value === "precon" && soloDeck.value ? Number(soloDeck.value) : null },
        threatBox.open ? { threat: threatValue() } : { level: Number(level.value) })) }, t("start"))),
    h("section", { class: "panel" }, h("h2", {}, t("new_ai")), h("div", { class: "row" }, aiFormat, ai),
      h("button", { class: "primary", "data-testid": "new-duel-ai", onclick: () => start({ kind: "ai", format: aiFormat.value, ai: ai.value }) }, t("start"))),
    h("section", { class: "panel" }, h("h2", {}, t("new_friend")), h("div", { class: "row" }, friendFormat),
      h("button", { class: "primary", "data-testid": "new-duel-friend", onclick: () => start({ kind: "friend", format: friendFormat.value }) }, t("start"))),
    h("section", { class: "panel" }, h("h2", {}, t("new_hotseat")), h("div", { class: "row" }, hotFormat),
      h("button", { class: "primary", "data-testid": "new-hotseat", onclick: () => start({ kind: "hotseat", format: hotFormat.value }) }, t("start"))),
    err,
    h("section", { class: "panel wide" }, h("h2", {}, t("my_games")), list(lobby.mine)),
    h("section", { class: "panel wide" }, h("h2", {}, t("open_games")), list(lobby.open)),
    h("section", { class: "panel wide" }, h("label", {}, t("import_record"), " ", importInput)),
  ));
}

// ------------------------------------------------------------------ game page

function closeSocket() {
  if (state.ws) { state.ws.onclose = null; state.ws.close(); state.ws = null; }
}

function gamePage(id) {
  closeSocket();
  const frag = new URLSearchParams(location.hash.slice(1));
  if (frag.get("t")) {
    localStorage.setItem("clash.tokens." + id, frag.get("t"));
    history.replaceState(null, "", location.pathname);  // a token never stays in the address bar
  }
  state.gameId = id;
  state.tokens = (localStorage.getItem("clash.tokens." + id) || "").split(",").filter(Boolean);
  state.frame = null; state.log = []; state.selected = null; state.hint = null; state.notice = null;
  state.frames = []; state.animating = false; state.playing = false; state.overFolded = false;
  state.shownSeat = undefined; state.build = null;
  mount(h("main", { class: "game", id: "game" }, h("p", {}, "…")));
  connect();
}

function connect() {
  const proto = location.protocol === "https:" ? "wss:" : "ws:";
  const ws = new WebSocket(`${proto}//${location.host}/ws`);
  state.ws = ws;
  ws.onopen = () => { state.retry = 0; ws.send(JSON.stringify({ type: "hello", game: state.gameId, tokens: state.tokens, lang: state.lang })); };
  ws.onmessage = (e) => onFrame(JSON.parse(e.data));
  ws.onclose = () => {
    state.notice = t("connection_lost"); render();
    state.retry = Math.min(state.retry + 1, 5);
    setTimeout(() => { if (state.ws === ws) connect(); }, 500 * state.retry);
  };
}

function send(msg) {
  if (state.ws && state.ws.readyState === WebSocket.OPEN) state.ws.send(JSON.stringify(msg));
}

function act(action) {
  if (state.playing) return;  // the board on screen is older than the game: no choices from it
  state.selected = null;
  send({ type: "act", action, index: state.frame.index });
}

function onFrame(f) {
  if (f.type === "state") {
    state.frames.push(f);
    if (!state.animating) nextFrame();
  } else if (f.type === "error") {
    state.notice = t("error") + ": " + f.message; render();
  } else if (f.type === "hint") {
    state.hint = f;
    if (state.notice === t("hint_wait")) state.notice = null;  // answered: the waiting line goes
    render();
  } else if (f.type === "notice") {
    const names = state.frame ? state.frame.players.map((p) => p.name) : [];
    if (f.code === "opponent_away") state.notice = t("opponent_away", { name: names[f.seat] || "?", s: Math.round(f.seconds) });
    if (f.code === "abandoned") state.notice = t("abandoned", { name: names[f.seat] || "?" });
    render();
  }
}

// Animation speed: "normal", "fast" (scripts and tests) or "off"; kept in localStorage.
function eventDelay(pending) {
  const speed = localStorage.getItem("clash.speed") || "normal";
  if (speed === "off") return 0;
  const base = speed === "fast" ? 40 : 420;
  return pending > 10 ? base / 3 : base;
}

// State frames are shown in order.  A frame's events play first on the board as it was (who hits
// whom, damage, destroyed, returned, fortress moved), then the new board is drawn.
function nextFrame() {
  const f = state.frames.shift();
  if (!f) { state.animating = false; return; }
  state.animating = true;
  const show = () => {
    state.playing = false;
    if (f.log) state.log = f.log.slice(-400);
    state.frame = f;
    state.notice = null;
    if (f.index !== (state.hint && state.hint.index)) state.hint = null;
    render();
    nextFrame();
  };
  const events = f.log ? [] : (f.events || []);
  const board = document.querySelector("#game [data-testid=board]");
  if (!events.length || !board || eventDelay(0) === 0) {
    state.log.push(...events);
    show();
    return;
  }
  // No stale choices while the events play: the move list and clickable cards go away.
  state.playing = true;
  document.querySelectorAll("#game [data-select], #game .target").forEach((el) => el.classList.remove("choosable", "target"));
  document.querySelectorAll("#game [data-select]").forEach((el) => el.removeAttribute("data-select"));
  const moves = document.querySelector("#game [data-testid=moves]");
  if (moves) moves.replaceChildren(h("p", { class: "muted" }, "…"));
  document.querySelectorAll("#game [data-action]").forEach((el) => el.remove());
  const queue = events.slice();
  const step = () => {
    const e = queue.shift();
    if (!e) { show(); return; }
    state.log.push(e);
    playEvent(e);
    setTimeout(step, eventDelay(queue.length));
  };
  step();
}

function boardCard(owner, id) {
  if (owner === undefined || !id) return null;
  return document.querySelector(`#game .lanes [data-owner="${owner}"][data-card="${id}"]`)
    || document.querySelector(`#game [data-realm="${owner}"] [data-card="${id}"]`);
}

function mark(el, cls, badge) {
  if (!el) return;
  el.classList.remove(cls); void el.offsetWidth; el.classList.add(cls);
  if (badge) el.append(h("span", { class: "badge" }, badge));
}

function playEvent(e) {
  renderLog();
  const ticker = document.getElementById("ticker");
  if (ticker) {
    ticker.replaceChildren(e.rule ? h("span", { class: "rule" }, e.rule) : "", " ", eventText(e));
    ticker.className = "ticker kind-" + e.kind;
  }
  const me = boardCard(e.player, e.card);
  switch (e.kind) {
    case "attacked":
      mark(me, "ev-attacking");
      if (e.target_card) mark(boardCard(e.target_player, e.target_card), "ev-attacked");
      else mark(document.querySelector(`#game [data-realm="${e.target_player}"]`), "ev-attacked");
      break;
    case "cast":
      mark(me, "ev-attacking");
      mark(boardCard(e.target_player, e.target_card), "ev-attacked");
      break;
    case "damaged": mark(me, "ev-damaged", "−" + e.amount); break;
    case "absorbed": mark(me, "ev-absorbed"); break;
    case "destroyed": case "returned": case "discarded": mark(me, "ev-destroyed"); break;
    case "fortress_moved": mark(document.querySelector(`#game [data-track="${e.player}"]`), "ev-fort", "+" + e.amount); break;
    case "bastion_fell": mark(document.querySelector(`#game [data-track="${e.player}"]`), "ev-fort"); break;
    default: mark(me, "flash");
  }
}

function playerName(f, seat) {
  const p = f.players[seat];
  if (!p) return "?";
  if (p.kind === "automaton") return t("automaton");
  return p.name || "Player " + seat;
}

function render() {
  const root = document.getElementById("game");
  if (!root || state.playing) return;
  const f = state.frame;
  if (!f) { root.replaceChildren(h("p", { class: "notice" }, state.notice || "…")); return; }
  const me = f.seat === null ? 0 : f.seat;
  root.dataset.index = String(f.index);
  root.dataset.toMove = String(f.to_move);
  const children = [statusBar(f, me)];
  const invite = localStorage.getItem("clash.invite." + f.game);
  if (invite && f.kind === "friend" && f.phase !== "over") {
    children.push(h("div", { class: "invite" }, t("invite"), " ",
      h("input", { readonly: true, value: invite, "data-testid": "invite-link", size: "50", onclick: (e) => e.target.select() }),
      h("button", { onclick: () => navigator.clipboard && navigator.clipboard.writeText(invite) }, t("copy"))));
  }
  if (state.notice) children.push(h("p", { class: "notice", role: "status", "data-testid": "notice" }, state.notice));
  // Hot-seat: the next player's hand stays covered until the device has changed hands.
  if (f.kind === "hotseat" && f.phase !== "over" && f.seats.length === 2 && f.seat !== state.shownSeat) {
    const name = playerName(f, f.seat);
    children.push(h("div", { class: "panel handover" }, h("p", { class: "big" }, t("pass_device", { name })),
      h("button", { class: "primary", "data-testid": "handover", onclick: () => { state.shownSeat = f.seat; render(); } }, t("i_am", { name }))));
    root.replaceChildren(...children);
    return;
  }
  const board = f.setup ? setupBoard(f, me) : boardView(f.view, me, f);
  const side = h("aside", { class: "side" }, controls(f), moveList(f), h("div", { class: "ticker", id: "ticker" }), logPanel());
  children.push(h("div", { class: "layout" }, h("section", { class: "board-wrap" }, board), side));
  if (f.result) children.push(gameOver(f, me));
  root.replaceChildren(...children);
  const log = document.getElementById("log");
  if (log) log.scrollTop = log.scrollHeight;
}

function statusBar(f, me) {
  const items = [];
  items.push(h("span", {}, t("turn") + " " + f.turn));
  items.push(h("span", {}, t("phase") + ": " + t(f.phase)));
  if (f.view) items.push(h("span", { "data-testid": "mana" }, t("mana") + ": " + f.view.mana));
  let who;
  if (f.to_move < 0) who = t("over");
  else if (f.seats.includes(f.to_move)) who = t("your_turn");
  else if (f.thinking) who = t("thinking", { name: playerName(f, f.to_move) });
  else who = t("waiting", { name: playerName(f, f.to_move) });
  items.push(h("strong", { "data-testid": "to-move" }, who));
  if (f.seat === null) items.push(h("em", {}, t("spectating")));
  else items.push(h("span", {}, t("you_are", { name: playerName(f, me) })));
  return h("div", { class: "status", role: "status" }, items);
}

// The hint's number in the player's language: a chance as a percentage, calibrated or not (the
// server's label says which); any other label is shown as the server sent it.
function chanceWords(hint) {
  const key = { "win chance": "chance_calibrated", "estimated win chance": "chance_estimated" }[hint.label];
  return key ? t(key, { p: Math.round(hint.score * 100) }) : hint.label + " " + hint.score.toFixed(2);
}

function controls(f) {
  const mine = f.seat !== null && f.phase !== "over";
  const row = h("div", { class: "controls" });
  if (mine) {
    row.append(h("button", { "data-testid": "undo", disabled: !f.can_undo, title: "u", onclick: () => send({ type: "undo", index: f.index }) }, t("undo")));
    row.append(h("button", { "data-testid": "hint", disabled: !f.seats.includes(f.to_move) || !!f.setup, title: "h",
      onclick: () => { state.notice = t("hint_wait"); render(); send({ type: "hint" }); } }, t("hint")));
    row.append(h("button", { "data-testid": "resign", onclick: () => { if (confirm(t("confirm_resign"))) send({ type: "resign" }); } }, t("resign")));
  }
  if (state.hint) {
    row.append(h("p", { class: "hint", "data-testid": "hint-result" },
      t("hint_result", { action: state.hint.action, chance: chanceWords(state.hint) })));
    // Only a calibrated chance ("win chance") is drawn as a bar; an estimate stays a labelled number.
    if (state.hint.label === "win chance") {
      row.append(h("meter", { min: "0", max: "1", value: String(state.hint.score), "data-testid": "win-chance",
        title: Math.round(state.hint.score * 100) + "%" }));
    }
  }
  return row;
}

function moveList(f) {
  if (!f.legal.length) return h("div", { class: "empty" });
  return h("div", { class: "moves", "data-testid": "moves" }, h("h3", {}, t("moves")),
    h("ol", {}, f.legal.map((a, i) => h("li", {}, h("button", { "data-action": a, title: i < 9 ? String(i + 1) : null,
      class: state.hint && state.hint.action === a ? "hinted" : null, onclick: () => act(a) }, a)))));
}

// The server writes event sentences in the page's language; undo and resignation are said here.
function eventText(e) {
  if (e.kind === "undo") return t("undone", { actions: (e.actions || []).join(", ") });
  if (e.kind === "resigned") return t("end_resigned", { loser: state.frame ? playerName(state.frame, e.player) : "?" });
  return e.text;
}

function renderLog() {
  const el = document.getElementById("log");
  if (!el) return;
  el.replaceChildren(...logItems());
  el.scrollTop = el.scrollHeight;
}
function logItems() {
  return state.log.slice(-200).map((e) => h("li", { class: "log-" + e.kind }, e.rule ? h("span", { class: "rule" }, e.rule) : null, " ", eventText(e)));
}
function logPanel() {
  if (state.logOpen === undefined) state.logOpen = window.innerWidth > 760;
  return h("details", { class: "log", open: state.logOpen, ontoggle: (e) => { state.logOpen = e.target.open; } },
    h("summary", {}, t("log")),
    h("ol", { id: "log", "data-testid": "log", "aria-live": "polite" }, logItems()));
}

function gameOver(f, me) {
  const w = f.result.winner;
  const text = w === null ? t("draw") : t("winner_is", { name: playerName(f, w) });
  return h("div", { class: "game-over" + (state.overFolded ? " folded" : ""), "data-testid": "game-over", "data-winner": w === null ? "draw" : String(w), role: "dialog" },
    h("button", { class: "fold", "aria-label": t("fold"), title: t("fold"), onclick: () => { state.overFolded = !state.overFolded; render(); } }, state.overFolded ? "▴" : "▾"),
    h("h2", {}, t("game_over")), h("p", { class: "big" }, text), h("p", { "data-testid": "reason" }, reasonText(f)),
    h("div", { class: "row" },
      h("a", { class: "button", href: "/r/" + f.game, "data-testid": "open-replay" }, t("replay")),
      h("a", { class: "button", href: "/api/games/" + f.game + "/record", download: "clash-" + f.game + ".json", "data-testid": "export" }, t("export")),
      h("a", { class: "button", href: "/" }, t("back_lobby"))));
}

// Why the game ended, in the page's language, with names instead of seat numbers.
function reasonText(f) {
  const r = f.result;
  const loser = r.winner === null ? null : 1 - r.winner;
  const key = "end_" + r.termination;
  if (!I18N.en[key]) return r.reason;
  return t(key, { winner: r.winner === null ? "" : playerName(f, r.winner), loser: loser === null ? "" : playerName(f, loser) });
}

// ------------------------------------------------------------------ setup

function setupBoard(f, me) {
  const s = f.setup;
  const picks = new Map(f.legal.filter((a) => a.startsWith("pick ")).map((a) => [a.slice(5), a]));
  const revealed = h("div", { class: "hand revealed" }, s.revealed.map((id) => {
    const el = cardFace(id, {});
    if (picks.has(id)) { el.classList.add("choosable"); el.tabIndex = 0; el.addEventListener("click", () => act(picks.get(id)));
      el.addEventListener("keydown", (e) => { if (e.key === "Enter") act(picks.get(id)); }); }
    return el;
  }));
  const cardsOf = s.cards.map((ids, seat) => h("div", { class: "setup-cards" },
    h("h3", {}, t("cards_of", { name: playerName(f, seat) })),
    h("div", { class: "hand small" }, ids.map((id) => cardFace(id, { small: true })))));
  return h("div", { class: "board setup" },
    f.build ? buildPicker() : null,
    s.revealed.length ? h("h3", {}, t("revealed")) : null, revealed,
    s.face_down ? h("p", { class: "muted" }, t("face_down", { n: s.face_down })) : null,
    s.decks_taken.length ? h("p", {}, t("decks_taken") + ": " + s.decks_taken.join(", ")) : null,
    cardsOf);
}

// Custom format (R2.5): choose ten of the 32 cards; the button carries the build action's text.
function buildPicker() {
  const chosen = state.build || (state.build = new Set());
  const ids = Object.keys(state.cards.cards).sort();
  const action = chosen.size === 10 ? "build " + [...chosen].sort().join(" ") : null;
  return h("div", { class: "build", "data-testid": "build" },
    h("h3", {}, t("build_deck", { n: chosen.size })),
    h("div", { class: "hand" }, ids.map((id) => {
      const el = cardFace(id, { small: true });
      el.classList.add("choosable");
      if (chosen.has(id)) el.classList.add("selected");
      el.tabIndex = 0;
      el.setAttribute("data-build-card", id);
      const toggle = () => { if (chosen.has(id)) chosen.delete(id); else if (chosen.size < 10) chosen.add(id); render(); };
      el.addEventListener("click", toggle);
      el.addEventListener("keydown", (e) => { if (e.key === "Enter" || e.key === " ") { e.preventDefault(); toggle(); } });
      return el;
    })),
    h("button", { class: "primary", "data-action": action, disabled: !action,
      onclick: () => { if (action) { state.build = null; act(action); } } }, t("build_go")));
}

// ------------------------------------------------------------------ the board

// Positions write a creature as its id, or as an object with only the fields that differ from these.
const CREATURE_DEFAULTS = { damage: 0, new: false, protected: false, activated: false, sprint_bonus: 0 };
function creatureOf(c) { return Object.assign({}, CREATURE_DEFAULTS, typeof c === "string" ? { card: c } : c); }

// Card names on the board: a long name may take two lines, broken at a syllable with a hyphen (soft
// hyphens, shown only where the line breaks) instead of being cut ("Abo-mination", "Mi-croctopus").
// The break points follow the common English rules (vowel | consonant vowel; between two consonants,
// but before a pair that starts a syllable: "cr", "bl"; never inside "ch", "th"), at least two letters
// from the start and three from the end; no hyphenation dictionary is needed, so it works offline.
const VOWEL = /[aeiouy]/i;
const ONSET = new Set(["bl", "br", "ch", "cl", "cr", "dr", "fl", "fr", "gh", "gl", "gr", "ph", "pl", "pr",
  "qu", "sh", "th", "tr", "wh"]);
function syllableBreaks(name) {
  const v = (i) => i >= 0 && i < name.length && VOWEL.test(name[i]);
  const onset = (i) => ONSET.has(name.slice(i, i + 2).toLowerCase());
  const out = [];
  for (let i = 2; i <= name.length - 3; i++) {
    if (v(i - 1) && !v(i) && v(i + 1)) out.push(i);  // V | CV
    else if (v(i - 1) && !v(i) && !v(i + 1) && onset(i) && v(i + 2)) out.push(i);  // V | CrV
    else if (v(i - 2) && !v(i - 1) && !v(i) && v(i + 1) && !onset(i - 1)) out.push(i);  // VC | CV
  }
  return out;
}
function nameLabel(name) {
  const breaks = name.length > 7 ? syllableBreaks(name) : [];
  let text = "", last = 0;
  for (const i of breaks) { text += name.slice(last, i) + "\u00ad"; last = i; }
  text += name.slice(last);
  // Longer names get a slightly smaller font so that two lines always hold them.
  const size = name.length > 10 ? " long" : name.length > 8 ? " longish" : "";
  return h("span", { class: "name" + size, lang: "en", "data-name": name }, text);
}

function cardFace(id, opts) {
  opts = opts || {};
  if (id === "?") return h("div", { class: "card back" + (opts.small ? " small" : ""), "data-card": "?", title: "R9.2" }, "?");
  if (id === "BASTION" || id === "FORT") {
    return h("div", { class: "card fortress" + (opts.small ? " small" : ""), "data-card": id, title: t("fortress") }, nameLabel(cardName(id)));
  }
  const c = card(id);
  const abilities = opts.abilities || c.abilities;
  const granted = opts.granted || [];
  const tips = [`${c.name} (${t(c.kind)}) · ${t("cost")} ${c.cost}`];
  for (const a of abilities) tips.push(`${abilityName(a)}${granted.includes(a) ? " (" + t("granted") + ")" : ""}: ${abilityHelp(a)}`);
  if (c.aura.length) tips.push(`${abilityName("aura")}: ${c.aura.map(abilityName).join(", ")} — ${abilityHelp("aura")}`);
  const cr = opts.creature;
  const health = cr ? c.health - cr.damage : c.health;
  const stats = c.kind === "creature"
    ? h("span", { class: "stats" }, h("span", { class: "atk", title: t("attack") }, c.attack + (cr && cr.sprint_bonus ? "+" + cr.sprint_bonus : "")), "/",
      h("span", { class: "hp" + (cr && cr.damage ? " hurt" : ""), title: t("health") }, health), cr && cr.damage ? h("span", { class: "dmg", title: t("damage") }, " (−" + cr.damage + ")") : null)
    : h("span", { class: "stats" }, h("span", { class: "atk", title: t("damage") }, "✦" + c.attack));
  const icons = h("span", { class: "icons" },
    abilities.map((a) => { const i = icon(a); if (granted.includes(a)) i.classList.add("granted"); return i; }),
    c.aura.length ? icon("aura") : null);
  const cls = ["card", c.kind];
  if (opts.small) cls.push("small");
  if (cr && cr.new) cls.push("new");
  if (cr && cr.activated) cls.push("activated");
  if (cr && cr.protected) cls.push("protection-used");
  if (opts.playable) cls.push("playable");
  return h("div", { class: cls.join(" "), "data-card": id, title: tips.join("\n") },
    h("span", { class: "cost", title: t("cost") }, c.cost), nameLabel(c.name), icons, stats);
}

function handRow(hand, opts) {
  const playable = new Set(opts.playable || []);
  let seenPlayable = 0;
  return h("div", { class: "hand", "data-testid": opts.testid }, hand.map((id, i) => {
    const isPlayable = playable.has(id) && seenPlayable < 4;
    if (isPlayable) seenPlayable++;
    const el = cardFace(id, { playable: isPlayable && opts.mine });
    if (opts.mine && opts.actions && opts.actions.has(id)) {
      el.classList.add("choosable");
      el.tabIndex = 0;
      el.setAttribute("data-select", id);
      if (state.selected === id) el.classList.add("selected");
      const choose = () => { state.selected = state.selected === id ? null : id; render(); };
      el.addEventListener("click", choose);
      el.addEventListener("keydown", (e) => { if (e.key === "Enter" || e.key === " ") { e.preventDefault(); choose(); } });
    }
    return el;
  }));
}

function fortressTrack(hand, label, p) {
  // The hand is the life track: the fortress moves right as damage comes in; rightmost = lost (R4.3).
  const fi = hand.findIndex((c) => c === "BASTION" || c === "FORT");
  const left = hand.length - 1 - fi;
  return h("div", { class: "track", "data-track": p, title: label + ": " + t("places_left", { n: left }) },
    hand.map((c, i) => h("span", { class: "pip" + (i === fi ? " fort" : i > fi ? " after" : "") })),
    h("span", { class: "track-label" }, `${cardName(hand[fi])} · ${t("places_left", { n: left })}`));
}

function realm(view, p, f, me) {
  const pl = view.players[p];
  const name = playerName(f, p);
  if (pl.automaton) {
    const deck = pl.deck;
    return h("div", { class: "realm automaton", "data-realm": p }, h("h3", {}, name),
      h("div", { class: "row" },
        h("div", { class: "pile", "data-testid": "automaton-deck", "data-track": p }, t("automaton_deck", { n: deck.length - 1 }), " · ", cardName(deck[deck.length - 1])),
        h("div", { class: "pile" }, t("discard") + ": ", pl.discard.length ? pl.discard.map((id) => cardFace(id, { small: true })) : t("none"))));
  }
  const mine = f.seats && f.seats.includes(p) && f.seat === p;
  const actions = new Set();
  if (mine) for (const a of f.legal) { const m = a.match(/^(play|cast) (\S+)/); if (m) actions.add(m[2]); }
  return h("div", { class: "realm" + (mine ? " mine" : ""), "data-realm": p },
    h("h3", {}, name, " · ", t("hand")),
    fortressTrack(pl.hand, t("fortress"), p),
    handRow(pl.hand, { mine, playable: mine ? f.playable : [], actions, testid: mine ? "my-hand" : "opponent-hand" }));
}

function boardView(view, me, f) {
  const opp = 1 - me;
  const sel = state.selected;
  const targets = new Map();  // "p.lane.n" or "lane" -> action
  if (sel) for (const a of f.legal || []) {
    let m = a.match(/^play (\S+) (top|bottom)$/);
    if (m && m[1] === sel) targets.set(m[2], a);
    m = a.match(/^cast (\S+) ([01]\.(?:top|bottom)\.\d+)$/);
    if (m && m[1] === sel) targets.set(m[2], a);
  }
  const lane = (ln) => {
    const name = ln === 0 ? "top" : "bottom";
    const side = (p, reverse) => {
      const list = view.players[p].lanes[name].map(creatureOf);
      const items = list.map((cr, i) => {
        const have = f.abilities ? f.abilities.have[p * 2 + ln][i] : undefined;
        const granted = f.abilities ? f.abilities.granted[p * 2 + ln][i] : [];
        const el = cardFace(cr.card, { creature: cr, abilities: have, granted });
        const key = `${p}.${name}.${i}`;
        el.setAttribute("data-target", key);
        el.setAttribute("data-owner", String(p));
        if (targets.has(key)) {
          el.classList.add("target"); el.tabIndex = 0;
          const go = () => act(targets.get(key));
          el.addEventListener("click", go);
          el.addEventListener("keydown", (e) => { if (e.key === "Enter") go(); });
        }
        return el;
      });
      if (reverse) items.reverse();
      return h("div", { class: "side-of-lane " + (p === me ? "mine" : "theirs") }, items);
    };
    const bridgeAttrs = { class: "bridge", "data-lane": name };
    const col = h("div", { class: "lane" + (targets.has(name) ? " target" : ""), "data-lane-column": name },
      h("div", { class: "lane-name" }, t(name)), side(opp, true), h("div", bridgeAttrs, t("bridge")), side(me, false));
    if (targets.has(name)) {
      col.tabIndex = 0;
      col.addEventListener("click", () => act(targets.get(name)));
      col.addEventListener("keydown", (e) => { if (e.key === "Enter") act(targets.get(name)); });
    }
    return col;
  };
  const pending = view.pending ? h("p", { class: "notice" }, t("order_hint") + ": " + view.pending.cards.join(", ")) : null;
  return h("div", { class: "board", "data-testid": "board" },
    realm(view, opp, f, me),
    // Both lanes reserve the same height for the opponent's side, so the two bridges line up.
    h("div", { class: "lanes rows-" + Math.max(1, ...["top", "bottom"].map((ln) => view.players[opp].lanes[ln].length)) }, lane(0), lane(1)),
    sel ? h("p", { class: "choose" }, t("choose_target", { card: cardName(sel) }), " ",
      h("button", { onclick: () => { state.selected = null; render(); } }, t("cancel"))) : null,
    pending,
    realm(view, me, f, me));
}

// ------------------------------------------------------------------ keyboard

document.addEventListener("keydown", (e) => {
  if (e.target instanceof HTMLInputElement || e.target instanceof HTMLSelectElement || e.ctrlKey || e.metaKey || e.altKey) return;
  const f = state.frame;
  if (location.pathname.startsWith("/r/")) {
    if (e.key === "ArrowRight") document.querySelector('[data-testid="replay-next"]')?.click();
    if (e.key === "ArrowLeft") document.querySelector('[data-testid="replay-prev"]')?.click();
    return;
  }
  if (!f || !location.pathname.startsWith("/g/")) return;
  if (/^[1-9]$/.test(e.key) && f.legal[Number(e.key) - 1]) act(f.legal[Number(e.key) - 1]);
  else if (e.key === "e" && f.legal.includes("end")) act("end");
  else if (e.key === "n" && f.legal.includes("next")) act("next");
  else if (e.key === "u" && f.can_undo) send({ type: "undo", index: f.index });
  else if (e.key === "h") send({ type: "hint" });
  else if (e.key === "Escape") { state.selected = null; render(); }
});

// ------------------------------------------------------------------ replays

async function replayPage(id) {
  closeSocket();
  let data;
  try { data = await api("/api/games/" + id + "/replay"); }
  catch (e) { mount(h("main", {}, h("p", { class: "error" }, t("error") + ": " + e.message))); return; }
  const n = data.frames.length - 1;
  let i = Math.max(0, Math.min(n, Number(new URLSearchParams(location.hash.slice(1)).get("s") || n)));
  const players = data.players.map((name, seat) => ({ name: data.mode === "solo" && seat === 1 ? t("automaton") : name,
    kind: data.mode === "solo" && seat === 1 ? "automaton" : "human" }));
  const show = () => {
    history.replaceState(null, "", "#s=" + i);
    const fr = data.frames[i];
    const f = { players, seats: [], seat: null, legal: [], abilities: null, playable: [], index: i, to_move: -2 };
    state.log = [];
    for (let k = 0; k <= i; k++) state.log.push(...data.frames[k].events);
    const board = fr.setup ? setupBoard(Object.assign(f, { setup: fr.setup }), 0) : boardView(fr.view, 0, f);
    const result = i === n && data.result
      ? h("p", { class: "big", "data-testid": "replay-result" }, data.result.termination === "imported" ? "" : reasonText({ result: Object.assign({}, data.result, { winner: data.result.winner === "draw" ? null : data.result.winner }), players }))
      : null;
    mount(h("main", { class: "replay" },
      h("h2", {}, t("replay_title"), " · ", players.map((p) => p.name).join(" – ")),
      h("div", { class: "controls" },
        h("button", { "data-testid": "replay-first", onclick: () => { i = 0; show(); } }, t("first")),
        h("button", { "data-testid": "replay-prev", disabled: i === 0, onclick: () => { i = Math.max(0, i - 1); show(); } }, t("prev")),
        h("span", { "data-testid": "replay-step" }, t("step", { i, n })),
        h("button", { "data-testid": "replay-next", disabled: i === n, onclick: () => { i = Math.min(n, i + 1); show(); } }, t("next")),
        h("button", { "data-testid": "replay-last", onclick: () => { i = n; show(); } }, t("last")),
        h("a", { class: "button", href: location.pathname + "#s=" + i, "data-testid": "share" }, t("share")),
        h("a", { class: "button", href: "/api/games/" + id + "/record", download: "clash-" + id + ".json" }, t("export"))),
      h("p", { class: "action", "data-testid": "replay-action" }, fr.action ? `${playerName(f, fr.seat)}: ${fr.action}` : "—"),
      result,
      h("div", { class: "layout" }, h("section", { class: "board-wrap" }, board),
        h("aside", { class: "side" }, logPanel()))));
    const log = document.getElementById("log");
    if (log) log.scrollTop = log.scrollHeight;
  };
  show();
}

// ------------------------------------------------------------------ rules

function rulesPage() {
  closeSocket();
  const r = state.rules;
  mount(h("main", { class: "rules", "data-testid": "rules" },
    h("h2", {}, t("rules_help")),
    h("ul", {}, r.summary.map((line) => h("li", {}, line))),
    h("h2", {}, t("abilities")),
    h("dl", {}, Object.keys(r.abilities).map((a) => [h("dt", {}, icon(a), " ", abilityName(a)), h("dd", {}, r.abilities[a])]))));
}

window.addEventListener("popstate", route);
document.addEventListener("click", (e) => {
  const a = e.target.closest && e.target.closest("a[href^='/']");
  if (!a || a.hasAttribute("download") || a.getAttribute("href").startsWith("/api/") || e.ctrlKey || e.metaKey) return;
  e.preventDefault();
  history.pushState(null, "", a.getAttribute("href"));
  route();
});

loadCatalogue().then(route).catch((e) => {
  document.getElementById("app").textContent = "Clash of Decks: " + e.message;
});
