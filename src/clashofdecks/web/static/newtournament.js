// The "Create a tournament" form's arithmetic (tournament.js draws the form): the request body from
// what the inputs hold, and which input a refusal of the server concerns.  No DOM
// (tests/js/newtournament.test.js).  The server is the judge of every value: a value it will refuse
// is sent as typed, so the player reads the server's reason beside the field.

// A number typed in an input: a number, null when empty, else the text itself.
export function typedNumber(text) {
  const s = String(text === null || text === undefined ? "" : text).trim();
  if (s === "") return null;
  const n = Number(s);
  return Number.isFinite(n) ? n : s;
}

// Seconds since the epoch of a datetime-local input's value ("2026-12-06T10:30"), read in the
// browser's own time zone; null when empty or not a time.
export function localTimeSeconds(text) {
  const m = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})$/.exec(String(text || ""));
  if (!m) return null;
  const [year, month, day, hour, minute] = m.slice(1).map(Number);
  return new Date(year, month - 1, day, hour, minute).getTime() / 1000;
}

// A datetime-local input's value for a moment (milliseconds since the epoch), in the browser's zone.
export function localTimeText(ms) {
  const d = new Date(ms);
  const two = (n) => String(n).padStart(2, "0");
  return `${d.getFullYear()}-${two(d.getMonth() + 1)}-${two(d.getDate())}T${two(d.getHours())}:${two(d.getMinutes())}`;
}

// The body of POST /api/tournaments from the form: name, kind ("arena" | "swiss"), format,
// timeControl, startMode ("in" | "at"), startsIn (minutes from now, as typed), startsAt (a
// datetime-local value), minutes and rounds (as typed), bots (a boolean).  An arena sends its
// minutes, a Swiss its rounds; a start "in" minutes is sent in seconds.
export function tournamentBody(v) {
  const body = { name: String(v.name || "").trim(), kind: v.kind, format: v.format, time_control: v.timeControl, bots_allowed: !!v.bots };
  if (v.kind === "swiss") body.rounds = typedNumber(v.rounds);
  else body.minutes = typedNumber(v.minutes);
  if (v.startMode === "at") body.starts_at = localTimeSeconds(v.startsAt);
  else {
    const minutes = typedNumber(v.startsIn);
    body.starts_in = typeof minutes === "number" ? minutes * 60 : minutes;
  }
  return body;
}

// The form's input a refusal concerns (the server's "field"; both ways of giving the start are the
// start's input shown), or null: the refusal is said under the form's button.
export function inputOfRefusal(field, startMode) {
  if (field === "starts_in" || field === "starts_at") return startMode === "at" ? "starts_at" : "starts_in";
  return ["name", "kind", "format", "time_control", "minutes", "rounds", "bots_allowed"].includes(field) ? field : null;
}
