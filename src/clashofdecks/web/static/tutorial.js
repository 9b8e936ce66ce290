// The tutorial (/tutorial): a guided first game from prepared positions (the server's
// data/tutorial.json).  Each step shows its lesson and a board drawn by board.js's boardView; the
// element to click is highlighted, the click is sent to POST /api/tutorial/step, and the server
// answers with what happened (or "not quite", with nothing changed).  Nothing is stored: no game, no id.
// The board is drawn without legal actions (so board.js adds no game clicks) and this file adds the
// tutorial's own hooks: data-select on the card to choose, data-drop on where it goes, and the phase
// buttons data-testid="next" / "end".
import { api, postJson } from "./api.js";
import { boardView } from "./board.js";
import { cardName } from "./cards.js";
import { h } from "./dom.js";
import { placesByCard, ruleWords, stepParts } from "./frame.js";
import { currentView, go, mount, stillShowing } from "./page.js";
import { rulesToggle, showRules } from "./panels.js";
import { setupBoard } from "./setup.js";
import { closeSocket } from "./socket.js";
import { state } from "./store.js";
import { failText, t } from "./words.js";

// The tutorial's own state (no other module reads it): the steps in their language, the step shown,
// the card chosen, the server's answer or its "not quite", a step being sent.
const tutorial = { steps: null, lang: null, clicks: {}, index: 0, selected: null, answer: null, wrong: null, busy: false };

// A lesson's words as the reader needs them: "tap" on a touch screen, "click" with a mouse (the
// server's glossary words for {click}/{Click}), rule numbers only for those who asked for them.
function lessonWords(text) {
  const touch = window.matchMedia("(pointer: coarse)").matches;
  const c = tutorial.clicks;
  const filled = text.split("{Click}").join(touch ? c.Tap : c.Click).split("{click}").join(touch ? c.tap : c.click);
  return ruleWords(filled, showRules());
}

export async function tutorialPage() {
  closeSocket();
  state.frame = null; state.selected = null;
  const view = currentView();
  if (tutorial.lang !== state.lang) {
    const data = await api("/api/tutorial?lang=" + state.lang);
    if (!stillShowing(view)) return;
    // A new language shows the same step again, in its words (the answer is redone).
    tutorial.steps = data.steps; tutorial.clicks = data.clicks || {}; tutorial.lang = state.lang; tutorial.answer = null;
    tutorial.index = Math.min(tutorial.index, data.steps.length - 1);
  }
  tutorial.selected = null; tutorial.wrong = null;
  mount(h("main", { class: "tutorial", id: "tutorial" }));
  renderTutorial();
}

// The step's board as a game frame would carry it, for boardView: the learner is seat 0.
function tutorialFrame(b) {
  return { seat: 0, seats: [0], legal: [], playable: b.playable, abilities: b.abilities, players: b.players };
}

function lessonPanel(step, answer, last) {
  const lesson = h("section", { class: "panel lesson", "data-testid": "tutorial-step", "data-step": step.id, "data-index": String(tutorial.index) },
    h("p", { class: "muted" }, t("tutorial_step", { i: tutorial.index + 1, n: tutorial.steps.length }),
      showRules() ? [" · ", h("span", { class: "rule" }, step.rules.join(", "))] : null),
    h("h1", {}, step.title),
    h("p", { "data-testid": "tutorial-before" }, lessonWords(step.before)));
  if (tutorial.wrong) lesson.append(h("p", { class: "notice", role: "alert", "data-testid": "tutorial-wrong" }, tutorial.wrong));
  if (!answer) {
    lesson.append(phaseButtons(step));
    return lesson;
  }
  lesson.append(
    h("h3", {}, t("tutorial_events")),
    h("ol", { class: "tutorial-events", "data-testid": "tutorial-events" },
      answer.events.map((e) => h("li", {}, showRules() && e.rule ? h("span", { class: "rule" }, e.rule + " ") : null, lessonWords(e.text)))),
    h("p", { class: "after", "data-testid": "tutorial-after", role: "status" }, lessonWords(answer.after)));
  if (!last) {
    lesson.append(h("button", { class: "primary", "data-testid": "tutorial-continue",
      onclick: () => { tutorial.index++; tutorial.answer = null; tutorial.wrong = null; tutorial.selected = null; toLesson(); } },
    t("tutorial_continue")));
  }
  return lesson;
}

function renderTutorial() {
  const root = document.getElementById("tutorial");
  if (!root) return;
  const step = tutorial.steps[tutorial.index];
  const answer = tutorial.answer;
  const last = tutorial.index === tutorial.steps.length - 1;
  const board = answer || step;
  const children = [lessonPanel(step, answer, last)];
  if (answer && last) children.push(tutorialDone());
  const status = h("div", { class: "status" },
    h("span", {}, t("turn") + " " + board.turn),
    h("span", {}, t("phase") + ": " + t(board.phase)),
    // No mana in the draft: a pick is free (the mana on a card is paid when it is played).
    !["over", "setup"].includes(board.phase) ? h("span", { "data-testid": "mana" }, t("mana") + ": " + board.view.mana) : null);
  // The draft is a setup stage (setup.js draws it, without its game clicks); the rest is a board.
  const drawn = board.setup
    ? setupBoard({ setup: board.setup, to_move: 0, legal: [], players: board.players, build: null })
    : boardView(board.view, 0, tutorialFrame(board));
  if (!answer) decorate(drawn, step);
  children.push(h("section", { class: "board-wrap" }, status, drawn, rulesToggle(renderTutorial)));
  root.replaceChildren(...children);
  showSpot();
}

// The highlighted card, place or button stays on screen (a phone shows the lesson above the board
// and the hand below it): the page scrolls as little as needed to show it whole.
function showSpot() {
  const spot = document.querySelector("#tutorial [data-drop].tutorial-spot") || document.querySelector("#tutorial .tutorial-spot");
  if (spot) spot.scrollIntoView({ block: "nearest", inline: "nearest" });
}

// A new lesson is read from its top: the page starts there, then scrolls only as far as the spot needs.
function toLesson() {
  window.scrollTo(0, 0);
  focusLesson();
  renderTutorial();
}

// The next lesson is read from its title: focus goes there (after the redraw, which shows the spot).
function focusLesson() {
  requestAnimationFrame(() => {
    const title = document.querySelector("#tutorial .lesson h1");
    if (title) { title.tabIndex = -1; title.focus({ preventScroll: true }); }
  });
}

function phaseButtons(step) {
  const want = stepParts(step.action).button;
  const row = h("div", { class: "row" });
  // The same words as the game's own buttons (direct.js): "To combat" ends Summoning, "End turn" Combat.
  const end = t(step.phase === "combat" ? "end_turn" : "go_combat");
  for (const [verb, label] of [["next", t("next_action")], ["end", end]]) {
    if (!step.legal.includes(verb)) continue;
    row.append(h("button", { "data-testid": verb, class: verb === want ? "primary tutorial-spot" : null,
      onclick: () => tutorialAct(verb) }, label));
  }
  return row;
}

function clickable(el, fn) {
  el.tabIndex = 0;
  el.addEventListener("click", (e) => { e.stopPropagation(); fn(); });
  el.addEventListener("keydown", (e) => { if (e.key === "Enter" || e.key === " ") { e.preventDefault(); e.stopPropagation(); fn(); } });
}

// A hand card with a legal play or cast: a click chooses it (or drops it again).
function decorateCard(el, id, want) {
  el.setAttribute("data-select", id);
  el.classList.add("choosable");
  el.setAttribute("role", "button");
  el.setAttribute("aria-pressed", String(tutorial.selected === id));
  if (tutorial.selected === id) el.classList.add("selected");
  else if (!tutorial.selected && id === want.card) el.classList.add("tutorial-spot");
  clickable(el, () => {
    tutorial.selected = tutorial.selected === id ? null : id; tutorial.wrong = null; renderTutorial();
    // Keyboard users go on from where the card goes (the step's place first), or back to the card.
    const next = tutorial.selected
      ? document.querySelector("#tutorial [data-drop].tutorial-spot") || document.querySelector("#tutorial [data-drop]")
      : document.querySelector(`#tutorial [data-select="${id}"]`);
    if (next) next.focus();
  });
}

// Hooks on the drawn board: every hand card with a legal play or cast is selectable, every place a
// selected card may go is a drop target; the step's own card and place are highlighted.  Any legal
// choice is sent, so a wrong one gets the server's "not quite".
function decorate(board, step) {
  if (decorateChoice(board, step)) return;
  const want = stepParts(step.action);
  const byCard = placesByCard(step.legal);
  for (const el of board.querySelectorAll('[data-testid="my-hand"] [data-card]')) {
    const id = el.getAttribute("data-card");
    if (byCard.has(id)) decorateCard(el, id, want);
  }
  if (!tutorial.selected) return;
  const places = byCard.get(tutorial.selected) || new Map();
  for (const [place, action] of places) {
    const lane = /^(top|bottom)$/.test(place);
    const el = lane ? board.querySelector(`[data-lane-column="${place}"]`) : board.querySelector(`[data-target="${place}"]`);
    if (!el) continue;
    el.setAttribute("data-drop", place);
    el.setAttribute("role", lane ? "group" : "button");
    el.setAttribute("aria-label", action);
    el.classList.add("target");
    if (tutorial.selected === want.card && place === want.drop) el.classList.add("tutorial-spot");
    clickable(el, () => tutorialAct(action));
  }
  board.prepend(h("p", { class: "choose" }, t("choose_target", { card: cardName(tutorial.selected) })));
}

// A draft pick (R2.4) or a return order (R3.9): one click on a card is the whole action (with two
// creatures destroyed together, the one clicked returns first).  False when the step is neither.
function decorateChoice(board, step) {
  const verb = step.action.split(" ")[0];
  if (verb !== "pick" && verb !== "order") return false;
  const where = verb === "pick" ? ".revealed [data-card]" : "[data-testid=order] [data-card]";
  const want = step.action.split(" ")[1];
  for (const el of board.querySelectorAll(where)) {
    const id = el.getAttribute("data-card");
    const action = verb === "pick" ? "pick " + id : step.legal.find((a) => a.split(" ")[1] === id);
    if (!action || !step.legal.includes(action)) continue;
    el.setAttribute("data-select", id);
    el.setAttribute("role", "button");
    el.setAttribute("aria-label", cardName(id));
    el.classList.add("choosable");
    if (id === want) el.classList.add("tutorial-spot");
    clickable(el, () => tutorialAct(action));
  }
  return true;
}

async function tutorialAct(action) {
  if (tutorial.busy) return;
  tutorial.busy = true;
  try {
    const res = await postJson("/api/tutorial/step", { step: tutorial.index, action, lang: state.lang });
    tutorial.selected = null;
    if (res.ok) { tutorial.answer = res; tutorial.wrong = null; } else tutorial.wrong = res.message;
  } catch (e) {
    tutorial.wrong = failText(e);
  } finally {
    tutorial.busy = false;
  }
  renderTutorial();
}

// The end: what was learnt, and a real game one click away (a solo game with the lobby's defaults).
function tutorialDone() {
  const err = h("p", { class: "error", role: "alert" });
  const start = async () => {
    try {
      const res = await postJson("/api/games", { kind: "solo" });
      localStorage.setItem("clash.tokens." + res.id, res.tokens.join(","));
      go("/g/" + res.id);
    } catch (e) { err.textContent = failText(e); }
  };
  return h("section", { class: "panel tutorial-done", "data-testid": "tutorial-done" },
    h("h2", {}, t("tutorial_done")),
    h("p", {}, t("tutorial_done_text")),
    h("div", { class: "row" },
      h("button", { class: "primary", "data-testid": "tutorial-start-game", onclick: start }, t("tutorial_start_game")),
      h("a", { class: "button", href: "/" }, t("back_lobby")),
      h("button", { "data-testid": "tutorial-again", onclick: () => { tutorial.index = 0; tutorial.answer = null; toLesson(); } }, t("tutorial_again"))),
    err);
}

// Esc drops the chosen card (Tab to a card or place and Enter chooses, as in games).
export function listenForTutorialKeys() {
  document.addEventListener("keydown", (e) => {
    if (e.key !== "Escape" || location.pathname !== "/tutorial" || !tutorial.selected) return;
    const id = tutorial.selected;
    tutorial.selected = null;
    renderTutorial();
    document.querySelector(`#tutorial [data-select="${id}"]`)?.focus();
  });
}
