// One line about a game or a campaign level, for the lobby and the player pages.
// No DOM (tests/js/summaries.test.js).
import { t } from "./words.js";

const FORMATS = ["draft", "precon", "custom"];

// "Ann – Bob · Duel · Draft" (a format without a word, e.g. "position", as it is), " · Over" once over.
// (The stored reason is the engine's English sentence: the list says only that the game is over.)
export function gameLabel(g) {
  const format = FORMATS.includes(g.format) ? t(g.format) : g.format;
  const result = g.status === "over" ? " · " + t("over") : "";
  // A seat nobody named (a friend duel) has the default name in this page's language.
  // A bot account's seat (docs/web.md, "Bots") says so: "Robo (bot)".
  const names = g.players.map((name, i) => (name || t("default_player", { n: i + 1 })) +
    (g.bots && g.bots[i] ? ` (${t("bot_badge")})` : ""));
  return `${names.join(" – ")} · ${t("mode_" + g.mode)} · ${format}` + result;
}

// Where a game of a list leads: its replay once over, else the game, to resume (mine) or watch.
export function gameLink(g) {
  if (g.status === "over") return { href: "/r/" + g.id, word: "replay", testid: "replay-link" };
  if (g.mine) return { href: "/g/" + g.id, word: "resume", testid: "resume-link" };
  return { href: "/g/" + g.id, word: "watch", testid: null };
}

// A campaign level's best result: won, lost, open and not played, or locked.
export function campaignWord(c) {
  if (c.best === "won") return t("campaign_won");
  if (c.best === "lost") return t("campaign_lost");
  return c.open ? t("campaign_not_played") : t("campaign_locked");
}

// A custom threat's option as the server wants it: a number when it is one, else the text.
export function threatOption(value) { return /^\d+$/.test(value) ? Number(value) : value; }
