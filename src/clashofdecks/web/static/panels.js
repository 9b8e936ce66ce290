// The game page's panels: the status bar with the clocks, the controls with the hint, the move list,
// the log and the game-over box.
import { clockLeft, clockText } from "./clock.js";
import { gamePhaseButtons } from "./direct.js";
import { h, showRules } from "./dom.js";
import { abortButton, abortedNote, handleMark, presenceLine, presenceMark, reportBox, resultLine } from "./fairplay.js";
import { chanceWords, eventText, playerName, promptText, reasonText, ruleWords } from "./frame.js";
import { botBadge, redraw } from "./page.js";
import { act, send } from "./socket.js";
import { state } from "./store.js";
import { t, timeControlName } from "./words.js";

function whoMoves(f) {
  if (f.to_move < 0) return t("over");
  if (f.seats.includes(f.to_move)) return t("your_turn");
  if (f.thinking) return t("thinking", { name: playerName(f, f.to_move) });
  return t("waiting", { name: playerName(f, f.to_move) });
}

export function statusBar(f, me) {
  const items = [];
  items.push(h("span", { "data-testid": "turn" }, t("turn") + " " + f.turn));
  items.push(h("span", { "data-testid": "phase" }, t("phase") + ": " + t(f.phase)));
  if (f.view) items.push(h("span", { "data-testid": "mana" }, t("mana") + ": " + f.view.mana));
  items.push(h("strong", { "data-testid": "to-move" }, whoMoves(f)));
  if (f.seat === null) items.push(h("em", {}, t("spectating")));
  else items.push(h("span", {}, t("you_are", { name: playerName(f, me) })));
  items.push(presenceLine(f));
  // The status stays on screen while the page scrolls (phones): whose turn, mana, the prompt and
  // the phase buttons.
  const prompt = ruleWords(promptText(f, state.selected), showRules());
  return h("div", { class: "status" },
    h("div", { class: "status-facts", role: "status" }, items),
    f.clock ? clockBar(f) : null,
    prompt || f.legal.length ? h("div", { class: "status-do" },
      h("span", { class: "prompt", "data-testid": "prompt" }, prompt), gamePhaseButtons(f)) : null,
    actionLine());
}

// The last event played, one line in the status bar: it stays on a phone's screen while the
// automaton or the AI acts (the log is further down).
function actionLine() {
  const e = state.lastEvent;
  const line = h("p", { class: "ticker" + (e ? " kind-" + e.kind : ""), id: "ticker", "data-testid": "action-line", "aria-live": "polite" });
  if (e) line.append(...eventLine(e));
  return line;
}

// Rule numbers are hidden unless the player turns them on (frame.js's showRules).
export { showRules };
export function ruleLabel(rule) { return rule && showRules() ? h("span", { class: "rule" }, rule + " ") : ""; }
export function eventLine(e) { return [ruleLabel(e.rule), ruleWords(eventText(e, state.frame), showRules())]; }
export function rulesToggle(redrawn = redraw) {
  return h("label", { class: "notation-toggle" },
    h("input", { type: "checkbox", "data-testid": "rules-toggle", checked: showRules(),
      onchange: (e) => { localStorage.setItem("clash.rules", e.target.checked ? "on" : "off"); redrawn(); } }),
    " ", t("show_rules"));
}

function clockBar(f) {
  const seats = [0, 1].map((seat) => {
    const running = f.clock.running === seat;
    return h("span", { class: "clock" + (running ? " running" : ""), "data-testid": "clock-" + seat, "data-running": running ? "true" : "false" },
      h("span", { class: "clock-name" }, (running ? "▶ " : "") + playerName(f, seat), handleMark(f, seat),
        botBadge(f.players[seat] && f.players[seat].bot), ":"), " ",
      h("span", { class: "clock-time", "data-clock-seat": String(seat) }, clockText(clockLeft(f, seat, performance.now()), f.clock.kind)),
      presenceMark(f, seat) ? [" ", presenceMark(f, seat)] : null);
  });
  if (!state.clockTimer) state.clockTimer = setInterval(tickClocks, 250);
  return h("div", { class: "clocks", "data-testid": "clocks", "data-control": f.clock.control },
    h("span", { class: "muted" }, timeControlName(f.clock.control)), ...seats);
}

function tickClocks() {
  const f = state.frame;
  const els = document.querySelectorAll("[data-clock-seat]");
  if (!f || !f.clock || !els.length) { clearInterval(state.clockTimer); state.clockTimer = null; return; }
  for (const el of els) {
    const seat = Number(el.dataset.clockSeat);
    const text = clockText(clockLeft(f, seat, performance.now()), f.clock.kind);
    if (el.textContent !== text) el.textContent = text;
  }
}

function hintResult(row) {
  row.append(h("p", { class: "hint", "data-testid": "hint-result" },
    t("hint_result", { action: state.hint.sentence || state.hint.action, chance: chanceWords(state.hint) })));
  // Only a calibrated chance ("win chance") is drawn as a bar; an estimate stays a labelled number.
  if (state.hint.label === "win chance") {
    row.append(h("meter", { min: "0", max: "1", value: String(state.hint.score), "data-testid": "win-chance",
      title: Math.round(state.hint.score * 100) + "%" }));
  }
}

export function controls(f) {
  const mine = f.seat !== null && f.phase !== "over";
  const row = h("div", { class: "controls" });
  if (mine) {
    row.append(h("button", { "data-testid": "undo", disabled: !f.can_undo, title: "u", onclick: () => send({ type: "undo", index: f.index }) }, t("undo")));
    // No engine help in a rated game while it runs (the server refuses it too): the button says why.
    row.append(h("button", { "data-testid": "hint", disabled: !f.seats.includes(f.to_move) || !!f.setup || f.rated,
      title: f.rated ? t("hints_off_rated") : "h",
      onclick: () => { state.notice = t("hint_wait"); redraw(); send({ type: "hint" }); } }, t("hint")));
    row.append(h("button", { "data-testid": "resign", onclick: () => { if (confirm(t("confirm_resign"))) send({ type: "resign" }); } }, t("resign")));
    const abort = abortButton(f);
    if (abort) row.append(abort);
  }
  if (state.hint) hintResult(row);
  return row;
}

// The notation (play BRUTE top) is shown next to each choice only when the player asks for it.
function showNotation() { return localStorage.getItem("clash.notation") === "on"; }

// Each choice reads as the server's sentence in the page's language (f.labels, parallel to f.legal);
// the notation stays in data-action, the text sent back.
export function moveList(f) {
  if (!f.legal.length) return h("div", { class: "empty" });
  const labels = f.labels || [];
  const notation = showNotation();
  const toggle = h("label", { class: "notation-toggle" },
    h("input", { type: "checkbox", "data-testid": "notation-toggle", checked: notation,
      onchange: (e) => { localStorage.setItem("clash.notation", e.target.checked ? "on" : "off"); redraw(); } }),
    " ", t("notation"));
  return h("div", { class: "moves", "data-testid": "moves" }, h("h3", {}, t("moves")), toggle, rulesToggle(),
    h("ol", {}, f.legal.map((a, i) => h("li", {}, h("button", { "data-action": a, title: i < 9 ? String(i + 1) : null,
      class: state.hint && state.hint.action === a ? "hinted" : null, onclick: () => act(a) },
    labels[i] || a, notation ? h("code", { class: "notation", "data-testid": "notation" }, a) : null)))));
}

export function renderLog() {
  const el = document.getElementById("log");
  if (!el) return;
  el.replaceChildren(...logItems());
  el.scrollTop = el.scrollHeight;
}
function logItems() {
  return state.log.slice(-200).map((e) => h("li", { class: "log-" + e.kind }, ...eventLine(e)));
}
export function logPanel() {
  if (state.logOpen === undefined) state.logOpen = window.innerWidth > 760;
  return h("details", { class: "log", open: state.logOpen, ontoggle: (e) => { state.logOpen = e.target.open; } },
    h("summary", {}, t("log")),
    h("ol", { id: "log", "data-testid": "log", "aria-live": "polite" }, logItems()));
}

function rematchButton(f) {
  if (!(f.mode === "duel" && f.seat !== null && ["friend", "ai", "hotseat"].includes(f.kind))) return null;
  return h("button", { class: state.rematchOffer === "offered" ? "primary" : null, "data-testid": "rematch",
    disabled: state.rematchOffer === "sent", onclick: () => send({ type: "rematch" }) }, t(state.rematchOffer === "offered" ? "rematch_accept" : "rematch"));
}

export function gameOver(f) {
  const w = f.result.winner;
  const text = resultLine(f);
  return h("div", { class: "game-over" + (state.overFolded ? " folded" : ""), "data-testid": "game-over", "data-winner": w === null ? "draw" : String(w), role: "dialog", "aria-label": t("game_over") },
    h("button", { class: "fold", "aria-label": t("fold"), title: t("fold"), onclick: () => { state.overFolded = !state.overFolded; redraw(); } }, state.overFolded ? "▴" : "▾"),
    h("h2", {}, t("game_over")), h("p", { class: "big" }, text), h("p", { "data-testid": "reason" }, ruleWords(reasonText(f), showRules())),
    h("div", { class: "row" },
      h("a", { class: "button", href: "/r/" + f.game, "data-testid": "open-replay" }, t("replay")),
      h("a", { class: "button", href: "/api/games/" + f.game + "/record", download: "clash-" + f.game + ".json", "data-testid": "export" }, t("export")),
      rematchButton(f),
      h("a", { class: "button", href: "/" }, t("back_lobby"))),
    f.rated ? h("p", { class: "muted", "data-testid": "rated-note" }, t("rated_game"), " ",
      h("a", { href: "/leaderboard" }, t("leaderboard"))) : null,
    // The abort rule (docs/web.md, "Fair play in rated games"), and the report of an opponent.
    abortedNote(f), reportBox(f));
}
