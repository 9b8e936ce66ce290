// The puzzle page (/puzzle/daily, /puzzle/{id}): a position the engine has proven, played by tapping
// as in a game (board.js's boardView and direct.js's phase buttons, their clicks brought here through
// the frame's onAct).  The server holds the true position and judges every move (POST
// /api/puzzles/{id}/move with the attempt's moves so far): a right move goes on, the winning one
// solves it, a wrong one ends the attempt and the page shows what followed and one winning line.
// The page sees the solver's view only (the opponent's hidden cards are "?").
import { api, postJson } from "./api.js";
import { boardView } from "./board.js";
import { gamePhaseButtons } from "./direct.js";
import { h } from "./dom.js";
import { currentView, go, mount, setRedraw, stillShowing } from "./page.js";
import { closeSocket } from "./socket.js";
import { state } from "./store.js";
import { failText, hasWord, t } from "./words.js";

// The page's own state (no other module reads it): the puzzle as first shown, the moves of this
// attempt, the last answer, the theme chosen for "next", the report's fate, a move being judged.
const puzzle = { which: null, data: null, actions: [], answer: null, error: null, theme: "", reported: null, busy: false };

export async function puzzlePage(which) {
  closeSocket();
  state.selected = null; state.order = null;
  setRedraw(renderPuzzle);
  const view = currentView();
  let data;
  try {
    data = await api(`/api/puzzles/${encodeURIComponent(which)}?lang=${state.lang}`);
  } catch (e) {
    if (!stillShowing(view)) return;
    mount(h("main", { class: "puzzle", id: "puzzle" }, h("section", { class: "panel" },
      h("h1", {}, t("puzzle")), h("p", { class: "error", role: "alert" }, failText(e)))));
    return;
  }
  if (!stillShowing(view)) return;
  Object.assign(puzzle, { which, data, actions: [], answer: null, error: null, reported: null, busy: false });
  mount(h("main", { class: "puzzle", id: "puzzle" }));
  renderPuzzle();
}

function themeName(key) {
  return hasWord("puzzle_theme_" + key) ? t("puzzle_theme_" + key) : key;
}

// The board on screen as a game frame would carry it, for boardView; its onAct takes the clicks.
function frameOf(b) {
  const over = puzzle.answer && puzzle.answer.status !== "playing";
  return {
    seat: b.seat, seats: [b.seat], to_move: b.to_move, phase: b.phase, playable: b.playable, abilities: b.abilities,
    players: b.players, legal: over || puzzle.busy ? [] : b.legal, onAct: puzzleAct,
  };
}

function renderPuzzle() {
  const root = document.getElementById("puzzle");
  if (!root || !puzzle.data) return;
  const b = puzzle.answer || puzzle.data;
  const f = frameOf(b);
  state.frame = f;
  const status = h("div", { class: "status" },
    h("span", {}, t("turn") + " " + b.turn),
    h("span", {}, t("phase") + ": " + t(b.phase)),
    b.phase !== "over" ? h("span", { "data-testid": "mana" }, t("mana") + ": " + b.position.mana) : null);
  const board = h("section", { class: "board-wrap" }, status, boardView(b.position, b.seat, f),
    h("div", { class: "row" }, gamePhaseButtons(f)));
  root.replaceChildren(...[taskPanel(), answerPanel(), board, reportPanel()].filter(Boolean));
}

function taskPanel() {
  const d = puzzle.data;
  return h("section", { class: "panel lesson", "data-testid": "puzzle", "data-puzzle": d.id },
    h("h1", {}, puzzle.which === "daily" ? t("puzzle_daily") : t("puzzle")),
    h("p", {}, t(d.kind === "solo" ? "puzzle_task_solo" : "puzzle_task")),
    h("p", { class: "muted", "data-testid": "puzzle-themes" }, t("puzzle_themes") + ": ", d.themes.map(themeName).join(", "),
      " · ", t("puzzle_rating", { r: d.rating })),
    puzzle.error ? h("p", { class: "error", role: "alert", "data-testid": "puzzle-error" }, puzzle.error) : null);
}

function movesList(moves, testid) {
  return h("ol", { class: "tutorial-events", "data-testid": testid }, moves.map((m) => h("li", {}, m.label)));
}

function ratingLine(r) {
  if (!r) return null;
  if (!r.rated) return h("p", { "data-testid": "puzzle-rating-change" }, t("puzzle_unrated", { r: r.after }));
  const sign = r.change > 0 ? "+" : r.change < 0 ? "−" : "±";
  return h("p", { "data-testid": "puzzle-rating-change" },
    t("puzzle_rating_change", { before: r.before, after: r.after, change: sign + Math.abs(r.change) }));
}

function answerPanel() {
  const a = puzzle.answer;
  if (!a) return null;
  const solo = puzzle.data.kind === "solo";
  const panel = h("section", { class: "panel", "data-testid": "puzzle-answer", "data-moves": String(puzzle.actions.length) });
  if (a.status === "playing") {
    panel.append(h("p", { class: "after", role: "status", "data-testid": "puzzle-right" }, t("puzzle_right")), movesList(a.played, "puzzle-played"));
    return panel;
  }
  if (a.status === "solved") {
    panel.append(h("p", { class: "after", role: "status", "data-testid": "puzzle-solved" }, t(solo ? "puzzle_solved_solo" : "puzzle_solved")), ratingLine(a.rating));
  } else {
    panel.append(h("p", { class: "notice", role: "status", "data-testid": "puzzle-failed" }, t(solo ? "puzzle_failed_solo" : "puzzle_failed")), ratingLine(a.rating),
      h("h3", {}, t("puzzle_followed")), movesList(a.played, "puzzle-followed"),
      h("ol", { class: "tutorial-events" }, a.events.map((e) => h("li", {}, e.text))),
      h("h3", {}, t("puzzle_solution")), movesList(a.solution, "puzzle-solution"));
  }
  panel.append(nextRow());
  return panel;
}

// After an attempt: the next puzzle near the player's rating (of the theme chosen), or this one again.
function nextRow() {
  const themes = ["lethal", "survive", "order"];
  const select = h("select", { "data-testid": "puzzle-theme", "aria-label": t("puzzle_theme_filter"),
    onchange: (e) => { puzzle.theme = e.target.value; } },
  h("option", { value: "" }, t("puzzle_all_themes")),
  themes.map((k) => h("option", { value: k, selected: puzzle.theme === k }, themeName(k))));
  const next = async () => {
    try {
      const q = puzzle.theme ? "?theme=" + encodeURIComponent(puzzle.theme) : "";
      const res = await api("/api/puzzles/next" + q);
      go("/puzzle/" + res.id);
    } catch (e) { puzzle.error = failText(e); renderPuzzle(); }
  };
  const again = () => { puzzle.actions = []; puzzle.answer = null; puzzle.error = null; renderPuzzle(); };
  return h("div", { class: "row" },
    h("label", {}, t("puzzle_theme_filter"), " ", select),
    h("button", { class: "primary", "data-testid": "puzzle-next", onclick: next }, t("puzzle_next")),
    h("button", { "data-testid": "puzzle-again", onclick: again }, t("puzzle_again")));
}

function reportPanel() {
  if (puzzle.reported) return h("section", { class: "panel" }, h("p", { role: "status", "data-testid": "puzzle-reported" }, t("puzzle_reported")));
  const reason = h("textarea", { id: "puzzle-report-reason", "data-testid": "puzzle-report-reason", maxlength: "500", rows: "2" });
  const send = async () => {
    try {
      await postJson(`/api/puzzles/${puzzle.data.id}/report`, { reason: reason.value || "-" });
      puzzle.reported = true; puzzle.error = null;
    } catch (e) { puzzle.error = failText(e); }
    renderPuzzle();
  };
  return h("section", { class: "panel" }, h("details", {},
    h("summary", { "data-testid": "puzzle-report" }, t("puzzle_report")),
    h("label", { for: "puzzle-report-reason" }, t("puzzle_report_reason")), reason,
    h("div", { class: "row" }, h("button", { "data-testid": "puzzle-report-send", onclick: send }, t("puzzle_report_send")))));
}

// A move tapped on the board: sent with the attempt's moves so far; the answer is drawn.
async function puzzleAct(action) {
  if (puzzle.busy || (puzzle.answer && puzzle.answer.status !== "playing")) return;
  puzzle.busy = true;
  const actions = puzzle.actions.concat([action]);
  try {
    const res = await postJson(`/api/puzzles/${puzzle.data.id}/move`, { actions, lang: state.lang });
    puzzle.actions = actions; puzzle.answer = res; puzzle.error = null;
  } catch (e) {
    puzzle.error = failText(e);
  } finally {
    puzzle.busy = false;
  }
  renderPuzzle();
}
