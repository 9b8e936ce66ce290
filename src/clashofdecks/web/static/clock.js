// The clocks as the page shows them.  The server keeps the clocks and decides a loss on time; the page
// only shows each player's time as the last frame gave it, counting the running one down from when
// that frame arrived.  No DOM (tests/js/clock.test.js).
import { t } from "./words.js";

// Seconds left for `seat` at `now` (ms, the clock of f.receivedAt).
export function clockLeft(f, seat, now) {
  const left = f.clock.left[seat];
  if (f.clock.running !== seat || f.phase === "over") return left;
  return Math.max(0, left - (now - f.receivedAt) / 1000);
}

// "2:05"; a correspondence clock with an hour or more: days and hours, or hours and minutes.
export function clockText(seconds, kind) {
  const s = Math.ceil(seconds);
  if (kind === "correspondence" && s >= 3600) {
    const d = Math.floor(s / 86400), hr = Math.floor((s % 86400) / 3600), min = Math.floor((s % 3600) / 60);
    return d > 0 ? t("dur_days", { d, h: hr }) : t("dur_hours", { h: hr, m: min });
  }
  const min = Math.floor(s / 60), sec = s % 60;
  return `${min}:${String(sec).padStart(2, "0")}`;
}
