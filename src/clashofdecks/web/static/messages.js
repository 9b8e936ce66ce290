// The game's socket messages: state frames (or, protocol version 2, deltas rebuilt into them) shown in
// order, each frame's events played on the board first; errors, hints, notices and rematches.
import { applyDelta, baseOf, DeltaError } from "./deltas.js";
import { h } from "./dom.js";
import { helloExtras, onPresence } from "./fairplay.js";
import { eventDelay, playerName, REFUSED_SEAT } from "./frame.js";
import { go, redraw } from "./page.js";
import { eventLine, renderLog } from "./panels.js";
import { openSocket, send } from "./socket.js";
import { state } from "./store.js";
import { errorText, hasWord, t } from "./words.js";

// The page speaks protocol version 2: after the answer to hello, what changed after a move (docs/web.md).
export const PROTOCOL = 2;

// Opens the game's socket and says hello (again after a lost connection, waiting longer each time).
export function connect() {
  const ws = openSocket();
  state.ws = ws;
  state.base = null; state.resyncing = false;  // a new socket starts from the whole state again
  ws.onopen = () => { state.retry = 0; ws.send(JSON.stringify({ type: "hello", game: state.gameId, tokens: state.tokens, lang: state.lang, rated: state.acceptRated === true, protocol: PROTOCOL, ...helloExtras() })); };
  ws.onmessage = (e) => onFrame(JSON.parse(e.data));
  ws.onclose = () => {
    state.notice = t("connection_lost"); redraw();
    state.retry = Math.min(state.retry + 1, 5);
    setTimeout(() => { if (state.ws === ws) connect(); }, 500 * state.retry);
  };
}

function forgetInvite(game) { localStorage.removeItem("clash.invite." + game); }

// The invite link has done its job once the friend holds a seat: the invite bar goes (for good).
function spendInvite(f) {
  if (f.type === "state" && f.log) {
    state.tokens = [];  // taken (or held already): from now on the identity opens the seat
    const mine = f.seats || [];
    if (f.kind === "friend" && Array.isArray(f.open_seats) && !f.open_seats.some((s) => !mine.includes(s))) forgetInvite(f.game);
  }
  if (f.type === "notice" && f.code === "joined" && state.frame && !f.seats.some((s) => state.frame.seats.includes(s))) {
    forgetInvite(state.frame.game);
  }
}

function onNotice(f) {
  const names = state.frame ? state.frame.players.map((p) => p.name) : [];
  const mine = state.frame ? state.frame.seats : [];
  if (f.code === "rematch_offered") {
    const them = f.seats.filter((s) => !mine.includes(s));
    state.rematchOffer = them.length ? "offered" : "sent";
    state.notice = them.length ? t("rematch_offered", { name: names[them[0]] || "?" }) : t("rematch_sent");
  }
  if (f.code === "opponent_away") state.notice = t("opponent_away", { name: names[f.seat] || "?", s: Math.round(f.seconds) });
  if (f.code === "abandoned") state.notice = t("abandoned", { name: names[f.seat] || "?" });
  // The friend opened the invite: the link has done its job, so the invite bar goes (for good).
  if (f.code === "joined" && state.gameId && f.seats.some((s) => !mine.includes(s))) forgetInvite(state.gameId);
  if (f.code === "time_out") state.notice = t("time_out", { name: names[f.seat] || "?" });
  redraw();
}

// A delta applied to the last state of this socket: the full state frame, as version 1 sends it.  A
// delta that does not fit (no state yet, a path that is not there) shows nothing: the page asks for
// the whole state again (`resync`) and drops the deltas that come before it.
function rebuilt(delta) {
  if (state.resyncing) return null;
  try {
    return applyDelta(state.base, delta);
  } catch (e) {
    if (!(e instanceof DeltaError)) throw e;
    state.base = null; state.resyncing = true;
    send({ type: "resync" });
    return null;
  }
}

function onFrame(f) {
  if (f.type === "error" && state.tokens.length && !state.frame && REFUSED_SEAT[f.code]) {
    state.tokens = []; state.watchReason = t(REFUSED_SEAT[f.code]);
    send({ type: "hello", game: state.gameId, tokens: [], lang: state.lang, protocol: PROTOCOL, presence: true });
    return;
  }
  // The resync refused (too many messages, say): a new socket, whose hello brings the whole state.
  if (f.type === "error" && state.resyncing && state.ws) { state.ws.close(); return; }
  if (f.type === "delta") f = rebuilt(f);
  if (!f) return;
  if (f.type === "state") { state.base = baseOf(f); state.resyncing = false; }
  spendInvite(f);
  if (f.type === "state") {
    f.receivedAt = performance.now();  // the clock's seconds are counted down from here
    state.frames.push(f);
    if (!state.animating) nextFrame();
  } else if (f.type === "error") {
    state.notice = errorText(f.code, f.message); redraw();
  } else if (f.type === "hint") {
    state.hint = f;
    if (state.notice === t("hint_wait")) state.notice = null;  // answered: the waiting line goes
    redraw();
  } else if (f.type === "rematch") {
    go("/g/" + f.game);
  } else if (f.type === "presence") {
    onPresence(f);
  } else if (f.type === "notice") {
    onNotice(f);
  }
}

function speed() { return localStorage.getItem("clash.speed") || "normal"; }

// No stale choices while the events play: the move list and clickable cards go away.
function freezeBoard() {
  state.playing = true;
  document.querySelectorAll("#game [data-select], #game .target").forEach((el) => el.classList.remove("choosable", "target"));
  document.querySelectorAll("#game [data-select]").forEach((el) => el.removeAttribute("data-select"));
  const moves = document.querySelector("#game [data-testid=moves]");
  if (moves) moves.replaceChildren(h("p", { class: "muted" }, "…"));
  document.querySelectorAll("#game [data-action], #game .phase").forEach((el) => el.remove());
  document.querySelectorAll("#game [data-drop]").forEach((el) => el.removeAttribute("data-drop"));
  // The player's prompt returns with the next frame only (when it is their decision again).
  const prompt = document.querySelector("#game [data-testid=prompt]");
  if (prompt) prompt.textContent = "";
}

// The events that say who acts; the others (damage, destruction, the fortress moving) happen to a
// player during someone else's action.
const ACTS = new Set(["turn_started", "phase_changed", "played", "cast", "fizzled", "revealed", "activation_passed",
  "sprinted", "attacked", "order_chosen", "decision_pending", "setup"]);

// While the events of another seat play, the status says who acts (the automaton, the AI, the
// opponent) instead of "your decision".
function sayWhoActs(e) {
  const f = state.frame;
  const who = document.querySelector("#game [data-testid=to-move]");
  if (!f || !who || e.player === undefined || e.player === null || !ACTS.has(e.kind)) return;
  // A new turn while the events play: the status counts it at once (and its phases as they come).
  const turn = document.querySelector("#game [data-testid=turn]");
  if (e.kind === "turn_started" && turn && e.amount) turn.textContent = t("turn") + " " + e.amount;
  const mana = document.querySelector("#game [data-testid=mana]");
  if (e.kind === "turn_started" && mana && typeof e.value === "number") mana.textContent = t("mana") + ": " + e.value;
  const phase = document.querySelector("#game [data-testid=phase]");
  const phaseNow = e.kind === "turn_started" ? "summon" : e.kind === "phase_changed" ? e.detail : null;
  if (phase && phaseNow && hasWord(phaseNow)) phase.textContent = t("phase") + ": " + t(phaseNow);
  const mine = (f.seats || []).includes(e.player);
  who.textContent = mine ? t("your_turn") : t("acting", { name: playerName(f, e.player) });
  who.dataset.acting = mine ? "" : String(e.player);
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
    // A selection stays only while the selected card still has a legal play.
    if (state.selected && !(f.legal || []).some((a) => a.split(" ")[1] === state.selected)) state.selected = null;
    if (f.index !== (state.hint && state.hint.index)) state.hint = null;
    redraw();
    nextFrame();
  };
  const events = f.log ? [] : (f.events || []);
  const board = document.querySelector("#game [data-testid=board]");
  if (!events.length || !board || eventDelay(0, speed()) === 0) {
    state.log.push(...events);
    show();
    return;
  }
  freezeBoard();
  const queue = events.slice();
  const step = () => {
    const e = queue.shift();
    if (!e) { show(); return; }
    state.log.push(e);
    playEvent(e);
    setTimeout(step, eventDelay(queue.length, speed()));
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
  sayWhoActs(e);
  // The line in the status bar (on a phone the status stays on screen, the side panel does not).
  state.lastEvent = e;
  const ticker = document.getElementById("ticker");
  if (ticker) {
    ticker.replaceChildren(...eventLine(e));
    ticker.className = "ticker kind-" + e.kind;
  }
  const me = boardCard(e.player, e.card);
  const track = document.querySelector(`#game [data-track="${e.player}"]`);
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
  case "fortress_moved": mark(track, "ev-fort", "+" + e.amount); break;
  case "bastion_fell": mark(track, "ev-fort"); break;
  default: mark(me, "flash");
  }
}
