// Reading a state frame (docs/web.md, "Protocol"): its legal action texts, the prompt, the names of
// its players, its events and result in the page's language.  The page never invents an action: every
// choice it offers is one of the frame's legal texts.  No DOM (tests/js/frame.test.js).
import { cardName } from "./cards.js";
import { hasWord, t } from "./words.js";

// The legal actions of the frame that start with `verb `, as a map from their first word after the
// verb (a card id, a deck number) to the action texts.
export function legalByVerb(f, verb) {
  const out = new Map();
  for (const a of (f && f.legal) || []) {
    const parts = a.split(" ");
    if (parts[0] !== verb) continue;
    if (!out.has(parts[1])) out.set(parts[1], []);
    out.get(parts[1]).push(a);
  }
  return out;
}

// The server's sentence for a legal action when the frame has them (`labels`, parallel to `legal`).
export function actionLabel(f, action) {
  const i = f.legal ? f.legal.indexOf(action) : -1;
  return f.labels && i >= 0 && f.labels[i] ? f.labels[i] : null;
}

// Rule numbers are for those who ask for them (the "rule numbers" setting): without it, a sentence's
// citations "(R2.4)" / "（R3.1、R3.2）" are left out.
const RULE_REF = /\s*[(（]R\d+(?:\.\d+[a-z]?)?(?:\s*[,、/]\s*R\d+(?:\.\d+[a-z]?)?)*[)）]/g;
const RULE_BARE = /(^|[\s。：:])R\d+(?:\.\d+[a-z]?)?\s+/g;
export function ruleWords(text, show) {
  return show || !text ? text : text.replace(RULE_REF, "").replace(RULE_BARE, "$1");
}

// What the player is asked now, in one line: the server's prompt when it sends one, else one of ours.
export function promptText(f, selected) {
  if (selected && f.seats && f.seats.includes(f.to_move)) return t("choose_target", { card: cardName(selected) });
  if (f.prompt) return f.prompt;
  if (!f.seats || !f.seats.includes(f.to_move) || f.phase === "over") return "";
  if (f.build) return t("prompt_build");
  const verbs = new Set((f.legal || []).map((a) => a.split(" ")[0]));
  if (verbs.has("deck")) return t("prompt_deck");
  if (verbs.has("pick")) return t("prompt_pick");
  if (verbs.has("ban")) return t("prompt_ban");
  if (verbs.has("order")) return t("prompt_order");
  if (verbs.has("play") || verbs.has("cast")) return t("prompt_summon");
  if (verbs.has("next")) return t("prompt_combat");
  if (verbs.has("end")) return t("prompt_end");
  return "";
}

// The hand cards with a legal play or cast.
export function handActions(f) {
  const out = new Set();
  for (const a of f.legal) { const m = a.match(/^(play|cast) (\S+)/); if (m) out.add(m[2]); }
  return out;
}

// Where the selected card may go: "top"/"bottom" (a lane) or "p.lane.n" (a creature) -> action.
export function targetsOf(f, selected) {
  const targets = new Map();
  if (!selected) return targets;
  for (const a of f.legal || []) {
    let m = a.match(/^play (\S+) (top|bottom)$/);
    if (m && m[1] === selected) targets.set(m[2], a);
    m = a.match(/^cast (\S+) ([01]\.(?:top|bottom)\.\d+)$/);
    if (m && m[1] === selected) targets.set(m[2], a);
  }
  return targets;
}

// The return orders (R3.9) that begin with the cards clicked so far.
export function ordersFitting(orders, prefix) {
  return orders.filter((a) => a.split(" ").slice(1, 1 + prefix.length).join(" ") === prefix.join(" "));
}

export function playerName(f, seat) {
  const p = f.players[seat];
  if (!p) return "?";
  if (p.kind === "automaton") return t("automaton");
  return p.name || t("default_player", { n: seat + 1 });
}

// Why the game ended, in the page's language, with names instead of seat numbers.
export function reasonText(f) {
  const r = f.result;
  const loser = r.winner === null ? null : 1 - r.winner;
  const key = "end_" + r.termination;
  if (!hasWord(key)) return r.reason;
  return t(key, { winner: r.winner === null ? "" : playerName(f, r.winner), loser: loser === null ? "" : playerName(f, loser) });
}

// The server writes event sentences in the page's language; undo and resignation are said here.
export function eventText(e, frame) {
  if (e.kind === "undo") return t("undone", { actions: (e.labels || e.actions || []).join("; ") });
  if (e.kind === "resigned") return t("end_resigned", { loser: frame ? playerName(frame, e.player) : "?" });
  if (e.kind === "time") return t("end_time", { loser: frame ? playerName(frame, e.player) : "?" });
  return e.text;
}

// The hint's number in the player's language: a chance as a percentage, calibrated or not (the
// server's label says which); any other label is shown as the server sent it.
export function chanceWords(hint) {
  const key = { "win chance": "chance_calibrated", "estimated win chance": "chance_estimated" }[hint.label];
  return key ? t(key, { p: Math.round(hint.score * 100) }) : hint.label + " " + hint.score.toFixed(2);
}

// A seat token that was refused (the invite was used by someone else, or it is this identity's
// own invite): the page opens the game as a spectator and says why (the word's key).
export const REFUSED_SEAT = { seat_taken: "invite_used", own_game: "own_invite", bad_token: "invite_used", no_identity: "invite_used" };

// The pause after each event played on the board, in ms, for the animation speed "normal", "fast"
// (scripts and tests) or "off"; a long queue plays faster.
export function eventDelay(pending, speed) {
  if (speed === "off") return 0;
  const base = speed === "fast" ? 40 : 420;
  return pending > 10 ? base / 3 : base;
}

// A tutorial step's action split into what to click: a hand card and a place, or a phase button.
export function stepParts(action) {
  let m = action.match(/^play (\S+) (top|bottom)$/);
  if (m) return { card: m[1], drop: m[2] };
  m = action.match(/^cast (\S+) (\S+)$/);
  if (m) return { card: m[1], drop: m[2] };
  return { button: action };
}

// The legal plays and casts of a tutorial step by card: card -> Map(place -> action).
export function placesByCard(legal) {
  const byCard = new Map();
  for (const a of legal) {
    const m = a.match(/^(?:play|cast) (\S+) (\S+)$/);
    if (!m) continue;
    if (!byCard.has(m[1])) byCard.set(m[1], new Map());
    byCard.get(m[1]).set(m[2], a);
  }
  return byCard;
}
