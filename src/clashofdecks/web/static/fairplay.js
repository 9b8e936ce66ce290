// Fair play on the game page (docs/web.md, "Fair play in rated games"): each seat's presence
// (connected / away, from the server's `presence` messages), the abort button of a rated game not yet
// begun, the game-over box's words about an aborted game and "you", and the report of an opponent.
import { api, postJson } from "./api.js";
import { h } from "./dom.js";
import { playerName } from "./frame.js";
import { redraw } from "./page.js";
import { send } from "./socket.js";
import { state } from "./store.js";
import { t } from "./words.js";

// The invitee's answers before taking its seat (its name, hints), sent with the page's hello.
let inviteAnswers = {};
export function setInviteAnswers(answers) { inviteAnswers = answers; }
// The hello's fields of this module: presence messages asked for, and the invitee's answers.
export function helloExtras() {
  const out = { presence: true };
  if (inviteAnswers.name) out.name = inviteAnswers.name;
  if (inviteAnswers.hints) out.hints = true;
  return out;
}

// The last `presence` message of the game on screen: "connected" / "away" (null: no person) by seat.
let presence = { game: null, seats: [] };
// The game-over box's report form: closed, open, or sent (with the game it was for).
let report = { game: null, step: "closed", error: "" };

export function onPresence(f) {
  presence = { game: f.game, seats: Array.isArray(f.seats) ? f.seats : [] };
  redraw();
}

// A seat's presence as the server last said it, or null (not said yet, or no person plays it).
export function seatPresence(f, seat) {
  if (!f || presence.game !== f.game || f.kind !== "friend") return null;
  return presence.seats[seat] || null;
}

// "● connected" / "○ away" beside a player's name (the other seat's, and both for a spectator).
export function presenceMark(f, seat) {
  const p = seatPresence(f, seat);
  if (!p) return null;
  return h("span", { class: "presence presence-" + p, "data-testid": "presence-" + seat, "data-presence": p },
    (p === "connected" ? "● " : "○ ") + t("presence_" + p));
}

// The presence of both people's seats, for the status bar of an unclocked duel (a clocked game
// shows it beside each clock).
export function presenceLine(f) {
  if (f.clock || !f.players.some((_, seat) => seatPresence(f, seat))) return null;
  return h("span", { class: "presence-line" }, f.players.map((_, seat) => {
    const mark = presenceMark(f, seat);
    return mark ? h("span", {}, playerName(f, seat), handleMark(f, seat), " ", mark, " ") : null;
  }));
}

// The unique handle of each seat of a rated game (GET /api/games/<id>/handles), asked once per game.
let handles = { game: null, list: null, asked: null };

export function seatHandle(f, seat) {
  if (!f || !f.rated) return null;
  if (handles.asked !== f.game) {
    handles = { game: null, list: null, asked: f.game };
    api("/api/games/" + f.game + "/handles").then((b) => {
      if (handles.asked === f.game) { handles = { game: f.game, list: b.handles, asked: f.game }; redraw(); }
    }).catch(() => {});
  }
  return handles.game === f.game && handles.list ? handles.list[seat] || null : null;
}

// "@handle" beside a name in a rated game: the name is the player's own, the handle is unique.
export function handleMark(f, seat) {
  const handle = seatHandle(f, seat);
  return handle ? h("span", { class: "handle muted", "data-testid": "handle-" + seat }, " @" + handle) : null;
}

// A rated game can be aborted, not lost, until each player has finished a first turn.
export function abortButton(f) {
  if (!f.can_abort) return null;
  return h("button", { "data-testid": "abort", title: t("abort_title"),
    onclick: () => { if (confirm(t("confirm_abort"))) send({ type: "abort" }); } }, t("abort"));
}

// The big line of the game-over box: "You win" / "You lose" for a player, the winner's name for a
// spectator (or a hot-seat game, where both seats are this page's).
export function resultLine(f) {
  const w = f.result.winner;
  if (w === null) return t("draw");
  if (f.seats.length === 1) return t(f.seats[0] === w ? "you_win" : "you_lose");
  return t("winner_is", { name: playerName(f, w) });
}

// An aborted game: not rated, and why, in the page's language (the server's code; a code this page
// does not know: the server's English words).
export function abortedNote(f) {
  if (!f.result || !f.result.aborted) return null;
  const key = "aborted_" + (f.result.abort_code || "");
  const why = f.result.abort_code && t(key) !== key ? t(key) : f.result.abort_reason;
  return h("div", { class: "aborted", "data-testid": "aborted-note", "data-code": f.result.abort_code || "" },
    h("strong", {}, t("aborted_title")), " ", why);
}

const REPORT_REASONS = ["engine", "stalling", "abuse", "other"];

// A player of a duel between two people may report the other once the game is over; the server keeps
// it for the operator.  A reason is chosen, a note may be added, and the player confirms.
export function reportBox(f) {
  if (!(f.kind === "friend" && f.mode === "duel" && f.seats.length === 1 && f.result)) return null;
  if (report.game !== f.game) report = { game: f.game, step: "closed", error: "" };
  if (report.step === "sent") return h("p", { class: "muted", role: "status", "data-testid": "report-sent" }, t("report_sent"));
  if (report.step === "closed") {
    return h("button", { class: "link", "data-testid": "report", onclick: () => { report.step = "open"; redraw(); } },
      t("report", { name: playerName(f, 1 - f.seats[0]) }));
  }
  const reason = h("select", { id: "report-reason", "data-testid": "report-reason" },
    REPORT_REASONS.map((r) => h("option", { value: r }, t("report_" + r))));
  const note = h("input", { id: "report-note", "data-testid": "report-note", maxlength: "300" });
  const submit = async (e) => {
    e.preventDefault();
    if (!confirm(t("confirm_report"))) return;
    const text = reason.value + (note.value.trim() ? ": " + note.value.trim() : "");
    try {
      await postJson("/api/games/" + f.game + "/report", { reason: text });
      report.step = "sent"; report.error = "";
    } catch (x) { report.error = t("error") + ": " + x.message; }
    redraw();
  };
  return h("form", { class: "report", "data-testid": "report-form", onsubmit: submit },
    h("label", { for: "report-reason" }, t("report_reason")), reason,
    h("label", { for: "report-note" }, t("report_note")), note,
    h("div", { class: "row" },
      h("button", { type: "submit", class: "danger", "data-testid": "report-send" }, t("report_send")),
      h("button", { type: "button", onclick: () => { report.step = "closed"; redraw(); } }, t("cancel"))),
    report.error ? h("p", { class: "error", role: "alert" }, report.error) : null);
}

// The invitee's page before it takes its seat: its name in this game, the rated choice of a duel
// offered as rated, and its answer to hints if the creator offered them (the server ignores the
// answer otherwise).  `start(answers)` opens the game.
export function invitePanel(offer, start) {
  const name = h("input", { id: "invite-name", "data-testid": "invite-name", maxlength: "40",
    value: (state.me && state.me.display_name) || "", autocomplete: "nickname" });
  const hints = h("input", { type: "checkbox", id: "invite-hints", "data-testid": "invite-hints" });
  const go = (rated) => start({ name: name.value.trim(), rated, hints: hints.checked });
  const buttons = offer.rated
    ? [h("button", { class: "primary", "data-testid": "accept-rated", onclick: () => go(true) }, t("play_rated")),
      h("button", { "data-testid": "decline-rated", onclick: () => go(false) }, t("play_unrated"))]
    : [h("button", { class: "primary", "data-testid": "join-game", onclick: () => go(false) }, t("join_game"))];
  return h("section", { class: "panel", "data-testid": offer.rated ? "rated-offer" : "invite-panel" },
    h("h2", {}, t(offer.rated ? "rated_offer" : "invite_title")), offer.rated ? h("p", {}, t("rated_offer_blurb")) : null,
    h("label", { for: "invite-name" }, t("your_name_here")), name,
    offer.rated ? null : h("label", { for: "invite-hints", class: "row" }, hints, " ", t("hints_accept")),
    h("div", { class: "row" }, buttons));
}
