// The game page (/g/<id>): opening the game (an invite's seat, a rated offer), drawing each frame,
// the keyboard's shortcuts.
import { boardView } from "./board.js";
import { hideCardHelp } from "./cardhelp.js";
import { focusableScrolling } from "./direct.js";
import { h } from "./dom.js";
import { invitePanel, setInviteAnswers } from "./fairplay.js";
import { playerName } from "./frame.js";
import { connect } from "./messages.js";
import { mount, setRedraw } from "./page.js";
import { controls, gameOver, logPanel, moveList, statusBar } from "./panels.js";
import { inviteOf } from "./paths.js";
import { setupBoard } from "./setup.js";
import { act, closeSocket, send } from "./socket.js";
import { state } from "./store.js";
import { t } from "./words.js";

// A new game page starts with nothing of the last one.
function resetGame(id) {
  state.gameId = id; state.watchReason = null;
  state.frame = null; state.log = []; state.selected = null; state.hint = null; state.notice = null;
  state.frames = []; state.animating = false; state.playing = false; state.overFolded = false;
  state.shownSeat = undefined; state.lastEvent = null; state.build = null; state.order = null; state.rematchOffer = null;
}

// An invite that asks something before the seat is taken (a duel offered as rated: rated only if the
// invitee chooses so too; hints offered: given only if the invitee agrees): its name, its answers.
function inviteQuestions(offer) {
  const start = (answers) => {
    state.acceptRated = answers.rated; setInviteAnswers(answers);
    mount(h("main", { class: "game", id: "game" }, h("p", {}, "…"))); connect();
  };
  mount(h("main", { class: "game" }, invitePanel(offer, start)));
}

export function gamePage(id) {
  closeSocket();
  // The redraw and the frame are this page's again (the puzzle page lends them to its own board).
  setRedraw(render);
  if (state.frame && state.frame.onAct) state.frame = null;
  // Seats belong to identities: the page opens the game with its session cookie, and a token from
  // an invite link is presented once, from memory, to take its seat (never stored).
  const invite = inviteOf(location.hash);
  state.tokens = invite.tokens;
  state.acceptRated = false;
  if (invite.hasTokens) history.replaceState(null, "", location.pathname);  // a token never stays in the address bar
  // Tokens the former release kept in localStorage: presented once (a seat no one holds yet), then gone.
  const legacy = localStorage.getItem("clash.tokens." + id);
  if (legacy) { state.tokens = state.tokens.concat(legacy.split(",").filter(Boolean)); localStorage.removeItem("clash.tokens." + id); }
  resetGame(id);
  setInviteAnswers({});
  if (invite.rated || invite.hints) { inviteQuestions(invite); return; }
  mount(h("main", { class: "game", id: "game" }, h("p", {}, "…")));
  connect();
}

function inviteBar(f) {
  const invite = localStorage.getItem("clash.invite." + f.game);
  if (!(invite && f.kind === "friend" && f.phase !== "over")) return null;
  return h("div", { class: "invite" }, t("invite"), " ",
    h("input", { readonly: true, value: invite, "data-testid": "invite-link", "aria-label": t("invite"), size: "50", onclick: (e) => e.target.select() }),
    h("button", { onclick: () => navigator.clipboard && navigator.clipboard.writeText(invite) }, t("copy")));
}

// Hot-seat: the next player's hand stays covered until the device has changed hands.
function handover(f) {
  const name = playerName(f, f.seat);
  return h("div", { class: "panel handover" }, h("p", { class: "big" }, t("pass_device", { name })),
    h("button", { class: "primary", "data-testid": "handover", onclick: () => { state.shownSeat = f.seat; render(); } }, t("i_am", { name })));
}

export function render() {
  const root = document.getElementById("game");
  if (!root || state.playing) return;
  const f = state.frame;
  if (!f) {
    // No game to show (no such game, a refusal): what happened, and the way back.
    root.replaceChildren(h("p", { class: "notice", role: "status", "data-testid": "notice" }, state.notice || "…"),
      state.notice ? h("p", {}, h("a", { class: "button", href: "/", "data-testid": "back-lobby" }, t("back_lobby"))) : "");
    return;
  }
  const me = f.seat === null ? 0 : f.seat;
  root.dataset.index = String(f.index);
  root.dataset.toMove = String(f.to_move);
  root.dataset.seat = f.seat === null ? "" : String(f.seat);
  const status = statusBar(f, me);
  // A notice (a refusal, the opponent away) sits in the status bar, which stays on a phone's screen.
  if (state.notice) status.append(h("p", { class: "notice", role: "status", "data-testid": "notice" }, state.notice));
  const children = [status, inviteBar(f)].filter(Boolean);
  if (f.seat === null) children.push(h("p", { class: "notice", "data-testid": "spectator" }, state.watchReason || t("spectating")));
  if (f.kind === "hotseat" && f.phase !== "over" && f.seats.length === 2 && f.seat !== state.shownSeat) {
    root.replaceChildren(...children, handover(f));
    return;
  }
  const board = f.setup ? setupBoard(f) : boardView(f.view, me, f);
  const side = h("aside", { class: "side" }, controls(f), moveList(f), logPanel());
  // The game-over box comes before the board: on a phone it sits in the page's flow (it never
  // covers the board), on a desktop it floats in a corner and folds.
  if (f.result) children.push(gameOver(f));
  children.push(h("div", { class: "layout" }, h("section", { class: "board-wrap" }, board), side));
  const focusKey = focusKeyOf(document.activeElement, root);
  root.replaceChildren(...children);
  restoreFocus(root, focusKey);
  focusableScrolling(root);
  const log = document.getElementById("log");
  if (log) log.scrollTop = log.scrollHeight;
}
setRedraw(render);

// A redraw replaces the board; a keyboard player keeps their place: the same element again, or the
// first thing to act on when that one is gone.
const FOCUS_ATTRS = ["data-drop", "data-select", "data-testid", "data-target", "data-action"];
function focusKeyOf(el, root) {
  if (!el || el === document.body || !root.contains(el)) return null;
  for (const a of FOCUS_ATTRS) if (el.hasAttribute(a)) return [a, el.getAttribute(a)];
  return ["", ""];
}
function restoreFocus(root, key) {
  if (!key) return;
  let el = key[0] ? [...root.querySelectorAll(`[${key[0]}]`)].find((e) => e.getAttribute(key[0]) === key[1]) : null;
  // Moving the focus elsewhere (and scrolling to it) helps a keyboard player, not a mouse or a finger.
  if (!el && state.keyboardUser) el = root.querySelector("[data-drop], [data-select], [data-testid=next], [data-testid=end]");
  if (el) el.focus({ preventScroll: !state.keyboardUser });
}

// The keys of a game (1–9: the move list's choices, e: end, n: next, u: undo, h: hint, Esc: drop the
// choice) and of a replay (the arrows step through it).
function onKey(e) {
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
  else if (e.key === "Escape") { hideCardHelp(); state.selected = null; state.order = null; render(); }
}
export function listenForGameKeys() { document.addEventListener("keydown", onKey); }
