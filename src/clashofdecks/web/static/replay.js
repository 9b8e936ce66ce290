// Replays of finished games, step by step, with the game's analysis (clash analyze, made once by the
// server): the win-chance curve and the biggest mistakes, each a link to its step.
import { lastStepOfTurns, pct, stepFromHash, stepOfDecision, turnAtStep } from "./analysis.js";
import { api } from "./api.js";
import { boardView } from "./board.js";
import { focusableScrolling } from "./direct.js";
import { h, svg } from "./dom.js";
import { playerName, reasonText } from "./frame.js";
import { currentView, mount, stillShowing } from "./page.js";
import { logPanel } from "./panels.js";
import { setupBoard } from "./setup.js";
import { closeSocket } from "./socket.js";
import { state } from "./store.js";
import { failText, t } from "./words.js";

// Bumped by each replay page: a retry timer of a page left behind does nothing.
let replayGeneration = 0;

function resultLine(data, players) {
  const result = Object.assign({}, data.result, { winner: data.result.winner === "draw" ? null : data.result.winner });
  return h("p", { class: "big", "data-testid": "replay-result" }, data.result.termination === "imported" ? "" : reasonText({ result, players }));
}

function replayControls(id, i, n, goTo) {
  return h("div", { class: "controls" },
    h("button", { "data-testid": "replay-first", onclick: () => goTo(0) }, t("first")),
    h("button", { "data-testid": "replay-prev", disabled: i === 0, onclick: () => goTo(i - 1) }, t("prev")),
    h("span", { "data-testid": "replay-step" }, t("step", { i, n })),
    h("button", { "data-testid": "replay-next", disabled: i === n, onclick: () => goTo(i + 1) }, t("next")),
    h("button", { "data-testid": "replay-last", onclick: () => goTo(n) }, t("last")),
    h("a", { class: "button", href: location.pathname + "#s=" + i, "data-testid": "share" }, t("share")),
    h("a", { class: "button", href: "/api/games/" + id + "/record", download: "clash-" + id + ".json" }, t("export")));
}

// Step i of the replay: its board, the action that led there, the log up to it, the analysis.  The
// frames come a page at a time (see loadPage): the log is the page's earlier events and its own.
function showStep(id, data, players, analysis, i, goTo) {
  const n = data.total - 1;
  history.replaceState(null, "", "#s=" + i);
  const page = data.pages.get(pageStart(data, i));
  const fr = page.frames[i - page.from];
  const f = { players, seats: [], seat: null, legal: [], abilities: null, playable: [], index: i, to_move: -2 };
  state.log = [...page.log];
  for (let k = page.from; k <= i; k++) state.log.push(...page.frames[k - page.from].events);
  const board = fr.setup ? setupBoard(Object.assign(f, { setup: fr.setup })) : boardView(fr.view, 0, f);
  mount(h("main", { class: "replay" },
    h("h2", {}, t("replay_title"), " · ", players.map((p) => p.name).join(" – ")),
    replayControls(id, i, n, goTo),
    h("p", { class: "action", "data-testid": "replay-action" }, fr.action ? `${playerName(f, fr.seat)}: ${fr.label || fr.action}` : "—"),
    i === n && data.result ? resultLine(data, players) : null,
    analysisPanel(analysis, f, i, goTo),
    h("div", { class: "layout" }, h("section", { class: "board-wrap" }, board),
      h("aside", { class: "side" }, logPanel()))));
  focusableScrolling(document.getElementById("app"));
  const log = document.getElementById("log");
  if (log) log.scrollTop = log.scrollHeight;
}

// The first step of the page that holds step i (the server sends pages of data.size frames).
function pageStart(data, i) {
  return Math.floor(i / data.size) * data.size;
}

// The replay's frames from step `from` on, a page of them (a long game is never built whole in one
// request); kept in data.pages.
async function loadPage(id, data, from) {
  const page = await api("/api/games/" + id + "/replay?lang=" + encodeURIComponent(state.lang) + "&from=" + from);
  if (!data.size) Object.assign(data, { size: Math.max(1, page.frames.length), total: page.total, pages: new Map() });
  data.pages.set(from, page);
  return page;
}

export async function replayPage(id) {
  closeSocket();
  const generation = ++replayGeneration;
  const view = currentView();
  const data = { size: 0 };
  let first;
  try { first = await loadPage(id, data, 0); }
  catch (e) { if (stillShowing(view)) mount(h("main", {}, h("p", { class: "error" }, failText(e)))); return; }
  if (!stillShowing(view)) return;
  Object.assign(data, { result: first.result });
  const n = data.total - 1;
  let i = stepFromHash(location.hash, n);
  // The names the game showed (the server sends them in this page's language, the automaton's too).
  const players = first.players.map((name, seat) => ({ name: first.mode === "solo" && seat === 1 ? t("automaton") : name,
    kind: first.mode === "solo" && seat === 1 ? "automaton" : "human" }));
  const analysis = { status: "loading" };
  const goTo = async (step) => {
    const want = Math.max(0, Math.min(n, step));
    if (!data.pages.has(pageStart(data, want))) {
      try { await loadPage(id, data, pageStart(data, want)); }
      catch (e) { if (stillShowing(view)) mount(h("main", {}, h("p", { class: "error" }, t("error") + ": " + e.message))); return; }
      if (!stillShowing(view)) return;
    }
    i = want;
    showStep(id, data, players, analysis, i, goTo);
  };
  // Only the analysis panel is redrawn when the analysis arrives: the reader's place stays.
  const redrawAnalysis = () => {
    const old = document.getElementById("analysis");
    if (old) old.replaceWith(analysisPanel(analysis, { players, index: i }, i, goTo));
  };
  await goTo(i);
  loadAnalysis(id, analysis, generation, redrawAnalysis);
}

// Ask for the game's analysis; while it is being made ("pending") or the server is busy with others
// ("busy", HTTP 503), say so and ask again after the server's retry_after.  Never an error page.
async function loadAnalysis(id, analysis, generation, redraw) {
  if (generation !== replayGeneration) return;
  let body;
  try {
    const res = await fetch("/api/games/" + id + "/analysis?lang=" + encodeURIComponent(state.lang), { credentials: "same-origin" });
    body = await res.json();
  } catch {
    body = { status: "busy", retry_after: 10 };  // the network or the server stumbled: try again
  }
  if (generation !== replayGeneration) return;
  Object.keys(analysis).forEach((k) => delete analysis[k]);
  Object.assign(analysis, body.status ? body : { status: "failed", error: body.error });
  redraw();
  if (analysis.status === "pending" || analysis.status === "busy") {
    const wait = Math.max(1, Math.min(60, Number(analysis.retry_after) || 5));
    setTimeout(() => loadAnalysis(id, analysis, generation, redraw), wait * 1000);
  }
}

function analysisPanel(analysis, f, i, goTo) {
  const box = (...children) => h("section", { id: "analysis", class: "analysis panel", "data-testid": "analysis",
    "data-status": analysis.status, "aria-labelledby": "analysis-title" },
  h("h3", { id: "analysis-title" }, t("an_title")), ...children);
  if (analysis.status === "loading") return box(h("p", { class: "muted" }, "…"));
  if (analysis.status === "pending") return box(h("p", { class: "notice", role: "status" }, t("an_pending")));
  if (analysis.status === "busy") return box(h("p", { class: "notice", role: "status" }, t("an_busy")));
  if (analysis.status !== "done") return box(h("p", { class: "muted" }, t("an_failed", { error: analysis.error || "" })));
  const a = analysis.analysis;
  // A game that ended before any decision (a resignation at once) has no curve to draw.
  if (!a.turns || !a.turns.length) return box(h("p", { class: "muted" }, t("an_no_mistakes")));
  const calibrated = a.label === "win chance";
  const title = t(calibrated ? "an_curve_calibrated" : "an_curve_estimated", { name: playerName(f, 0) });
  const turnNow = turnAtStep(a.decisions, i);
  return box(
    h("div", { class: "analysis-body" },
      h("figure", { class: "curve" },
        curveSvg(a, turnNow, f),
        h("figcaption", {}, title, h("br"), h("span", { class: "muted" }, t("an_method", { iterations: analysis.iterations })))),
      mistakesList(a, calibrated, f, i, goTo)),
    curveTable(a, title, turnNow, f, goTo));
}

// The plot's scale: a turn to x, a chance to y.
function curveScale(last) {
  // A narrower drawing on a phone keeps its words readable (the SVG scales to the panel's width).
  // The players' names sit outside the plot (above 100 %, below the turns): the line never hides them.
  const W = window.innerWidth < 600 ? 360 : 600, H = 220, L = 40, R = 10, T = 22, B = 40;
  return { W, H, L, R, T, B, x: (turn) => L + (W - L - R) * (turn / last), y: (p) => T + (H - T - B) * (1 - p) };
}

// The curve as inline SVG: player 0's chance (top: 100 %) after each turn, the 50 % line, the turn
// the replay shows, and the turns with a mistake ringed.  Hidden from screen readers: the table
// below says the same in text.
function curveSvg(a, turnNow, f) {
  const turns = a.turns;
  const last = Math.max(1, turns[turns.length - 1].turn);
  const { W, H, L, R, T, B, x, y } = curveScale(last);
  const out = svg("svg", { viewBox: `0 0 ${W} ${H}`, class: "curve-svg", "data-testid": "analysis-curve",
    "aria-hidden": "true", focusable: "false" });
  for (const p of [0, 0.5, 1]) {
    out.append(svg("line", { x1: L, x2: W - R, y1: y(p), y2: y(p), stroke: p === 0.5 ? "#9b8f78" : "#d8cfbd",
      "stroke-dasharray": p === 0.5 ? "4 4" : "none", "stroke-width": 1, "vector-effect": "non-scaling-stroke" }));
    out.append(svg("text", { x: L - 6, y: y(p) + 4, "text-anchor": "end", "font-size": 11, fill: "#6b6b6b" }, pct(p) + "%"));
  }
  out.append(svg("text", { x: L, y: T - 8, "font-size": 11, fill: "#1f6f43" }, "▲ " + t("an_wins", { name: playerName(f, 0) })));
  out.append(svg("text", { x: L, y: H - 4, "font-size": 11, fill: "#9b2d20" }, "▼ " + t("an_wins", { name: playerName(f, 1) })));
  out.append(svg("line", { x1: x(turnNow), x2: x(turnNow), y1: T, y2: H - B, stroke: "#f5a623", "stroke-width": 3,
    "vector-effect": "non-scaling-stroke", "data-testid": "curve-now" }));
  const points = turns.map((tn) => `${x(tn.turn).toFixed(1)},${y(tn.p0_win_chance).toFixed(1)}`).join(" ");
  out.append(svg("polyline", { points, fill: "none", stroke: "#8a2be2", "stroke-width": 2.5,
    "vector-effect": "non-scaling-stroke", "stroke-linejoin": "round" }));
  const mistakeTurns = new Set(a.mistakes.map((m) => m.turn));
  for (const tn of turns) {
    const ringed = mistakeTurns.has(tn.turn);
    out.append(svg("circle", { cx: x(tn.turn), cy: y(tn.p0_win_chance), r: ringed ? 6 : 3,
      fill: ringed ? "#fff" : "#8a2be2", stroke: ringed ? "#c0392b" : "none", "stroke-width": 2.5,
      "vector-effect": "non-scaling-stroke", class: ringed ? "mistake-dot" : null }));
  }
  const step = Math.max(1, Math.ceil(last / 10));
  for (let turn = 0; turn <= last; turn += step) {
    out.append(svg("text", { x: x(turn), y: H - B + 14, "text-anchor": "middle", "font-size": 11, fill: "#6b6b6b" },
      turn === 0 ? t("an_setup_short") : String(turn)));
  }
  return out;
}

function mistakesList(a, calibrated, f, i, goTo) {
  const label = t(calibrated ? "an_label_calibrated" : "an_label_estimated");
  const items = a.mistakes.map((m) => {
    const step = stepOfDecision(m);
    return h("li", {},
      h("button", { class: "mistake" + (step === i ? " current" : ""), "data-testid": "mistake", "data-step": step,
        "aria-current": step === i ? "step" : null, onclick: () => goTo(step) },
      h("span", { class: "where" }, t("an_mistake_where", { step, turn: m.turn })), " ",
      t("an_mistake", { name: playerName(f, m.player), action: m.label || m.action }),
      h("span", { class: "chance" }, t("an_change", { label, name: playerName(f, m.player), before: pct(m.best), after: pct(m.after) })),
      h("span", { class: "muted" }, t("an_better", { action: m.best_label || m.best_action }))));
  });
  return h("div", { class: "mistakes" }, h("h4", {}, t("an_mistakes")),
    items.length ? h("ol", { "data-testid": "mistakes" }, items) : h("p", { class: "muted" }, t("an_no_mistakes")));
}

// The text alternative of the curve: every turn's chance, a table (each row jumps to the turn's end).
function curveTable(a, title, turnNow, f, goTo) {
  const lastStep = lastStepOfTurns(a.decisions);
  return h("details", { class: "curve-table" },
    h("summary", {}, t("an_table")),
    h("table", { "data-testid": "analysis-table" },
      h("caption", {}, title),
      h("thead", {}, h("tr", {}, h("th", { scope: "col" }, t("an_turn")), h("th", { scope: "col" }, t("an_player")),
        h("th", { scope: "col" }, t("an_chance_of", { name: playerName(f, 0) })))),
      h("tbody", {}, a.turns.map((tn) => h("tr", { class: tn.turn === turnNow ? "current" : null },
        h("th", { scope: "row" }, h("button", { class: "link", onclick: () => goTo(lastStep.get(tn.turn) || 0) },
          tn.turn === 0 ? t("an_setup") : String(tn.turn))),
        h("td", {}, tn.turn === 0 || tn.active < 0 ? "—" : playerName(f, tn.active)),
        h("td", {}, pct(tn.p0_win_chance) + "%"))))));
}
