// Tournaments: the lobby's list and a tournament's page (/t/<id>): standings, games in progress,
// the reader's next pairing, a countdown, join and withdraw.  Live by asking the API again every few
// seconds while the page is open; the server's director does the pairing (docs/tournaments.md).
import { api, postJson } from "./api.js";
import { clockText } from "./clock.js";
import { h } from "./dom.js";
import { currentView, mount, stillShowing } from "./page.js";
import { closeSocket } from "./socket.js";
import { failText, t, timeControlName } from "./words.js";

// Seconds between two reads of a tournament while its page is open.
const POLL_SECONDS = 4;

function kindWord(kind) { return t(kind === "swiss" ? "tournament_swiss" : "tournament_arena"); }

// "Starts in 4:05", "Ends in 12:00", "Round 2 of 5" or "Finished", from the API's seconds and the
// moment they were read.
function timing(d, readAt) {
  const gone = (Date.now() - readAt) / 1000;
  if (d.status === "created") return t("t_starts_in", { time: clockText(Math.max(0, d.seconds_to_start - gone)) });
  if (d.status === "finished") return t("t_status_finished");
  if (d.kind === "swiss") return t("t_round", { n: d.round, m: d.rounds });
  return t("t_ends_in", { time: clockText(Math.max(0, d.seconds_to_end - gone)) });
}

// The lobby's panel: every tournament listed, each a link to its page.
export function tournamentsPanel(list) {
  const items = list.map((x) => h("li", { "data-testid": "tournament-item" },
    h("a", { href: "/t/" + encodeURIComponent(x.id) }, x.name), " · ", kindWord(x.kind), " · ",
    timeControlName(x.time_control), " · ", t("t_players", { n: x.players }), " · ", timing(x, Date.now())));
  return h("section", { class: "panel wide", "data-testid": "tournaments-panel" }, h("h2", {}, t("tournaments")),
    items.length ? h("ul", {}, items) : h("p", { class: "muted" }, t("tournament_none")));
}

function resultText(results) {
  const [a] = results;
  if (a === "win") return "1–0";
  if (a === "loss") return "0–1";
  if (a === "draw") return "½–½";
  return t("t_aborted");
}

function standingsTable(d) {
  const swiss = d.kind === "swiss";
  const rows = d.standings.map((s) => h("tr", { "data-testid": "standing-row", "data-handle": s.handle },
    h("td", {}, String(s.rank)),
    h("th", { scope: "row" }, h("a", { href: "/p/" + encodeURIComponent(s.handle) }, s.name),
      s.withdrawn ? h("span", { class: "muted" }, " (", t("t_withdrawn"), ")") : null),
    h("td", { class: "num", "data-testid": "standing-score" }, String(s.score)),
    h("td", { class: "num" }, String(s.games)),
    swiss ? h("td", { class: "num" }, String(s.buchholz)) : null));
  if (!rows.length) return h("p", { class: "muted", "data-testid": "standings-empty" }, t("t_no_players"));
  return h("table", { class: "board-table", "data-testid": "standings" },
    h("thead", {}, h("tr", {}, h("th", { scope: "col" }, "#"), h("th", { scope: "col" }, t("player")),
      h("th", { scope: "col", class: "num" }, t("t_score")), h("th", { scope: "col", class: "num" }, t("t_games")),
      swiss ? h("th", { scope: "col", class: "num" }, t("t_buchholz")) : null)),
    h("tbody", {}, rows));
}

function gameLine(g) {
  const link = g.url ? h("a", { href: g.url, "data-testid": g.running ? "t-game-live" : "t-game-replay" },
    t(g.running ? "t_watch" : "t_replay")) : null;
  return h("li", {}, t("t_round_short"), " ", String(g.round), ": ", g.players[0], " – ", g.players[1], " ",
    g.running ? null : resultText(g.results), " ", link);
}

// The reader's line: their game to play, their wait, or that they are not in it.
function yours(d) {
  const you = d.you;
  if (!you || you.withdrawn) return h("p", { "data-testid": "t-you" }, t("t_not_in"));
  if (you.next && you.next.url) {
    return h("p", { "data-testid": "t-you" }, t("t_your_game", { name: you.next.opponent }), " ",
      h("a", { class: "button primary", href: you.next.url, "data-testid": "t-your-game" }, t("t_play")));
  }
  const said = { created: "t_joined", finished: "t_status_finished" }[d.status] || "t_waiting";
  return h("p", { "data-testid": "t-you" }, t(said));
}

function entryButton(d, err, reload) {
  if (d.status === "finished") return null;
  const inIt = d.you && !d.you.withdrawn;
  return h("button", { class: inIt ? "" : "primary", "data-testid": inIt ? "t-withdraw" : "t-join",
    onclick: async () => {
      try { await postJson(`/api/tournaments/${encodeURIComponent(d.id)}/${inIt ? "withdraw" : "join"}`); reload(); } catch (e) { err.textContent = failText(e); }
    } }, t(inIt ? "t_withdraw" : "t_join"));
}

function tournamentView(d, readAt, reload) {
  const err = h("p", { class: "error", role: "alert", "data-testid": "t-error" });
  const countdown = h("p", { class: "big", "data-testid": "t-countdown", "aria-live": "off" }, timing(d, readAt));
  const live = d.games.filter((g) => g.running);
  const over = d.games.filter((g) => !g.running).map(gameLine).concat((d.byes || []).map((b) =>
    h("li", {}, t("t_round_short"), " ", String(b.round), ": ", b.player, " ", t("t_bye"))));
  const main = h("main", { class: "ratings-page tournament-page", "data-testid": "tournament" },
    h("h2", {}, d.name),
    h("p", { class: "muted" }, kindWord(d.kind), " · ", t(d.format), " · ", timeControlName(d.time_control), " · ",
      t("t_players", { n: d.players })),
    countdown, yours(d), entryButton(d, err, reload), err,
    h("h3", {}, t("t_standings")), standingsTable(d),
    h("h3", {}, t("t_in_progress")), live.length ? h("ul", { "data-testid": "t-live" }, live.map(gameLine)) : h("p", { class: "muted" }, t("none")),
    h("h3", {}, t("t_all_games")), over.length ? h("ul", { "data-testid": "t-over" }, over) : h("p", { class: "muted" }, t("none")));
  return [main, () => { countdown.textContent = timing(d, readAt); }];
}

// /t/<id>: drawn, then read again every POLL_SECONDS while it is the page shown; the countdown ticks
// each second between reads.
export async function tournamentPage(id) {
  closeSocket();
  const view = currentView();
  let tick = null;
  let shown = null;  // what is drawn (the countdown aside)
  let next = null;  // the pending read: one chain of reads, however often the page reloads itself
  const load = async () => {
    clearTimeout(next);
    let d;
    try { d = await api("/api/tournaments/" + encodeURIComponent(id)); } catch (e) {
      if (!stillShowing(view)) return;
      mount(h("main", { class: "ratings-page" }, h("p", { class: "error", role: "alert", "data-testid": "t-error" }, failText(e))));
      return;
    }
    if (!stillShowing(view)) return;
    // Drawn again only when something besides the countdown changed: the focus (a keyboard on the
    // join button, a screen reader in the table) stays where the reader left it.
    const same = JSON.stringify(Object.assign({}, d, { seconds_to_start: 0, seconds_to_end: 0 }));
    if (same !== shown) {
      shown = same;
      const [main, update] = tournamentView(d, Date.now(), load);
      tick = update;
      mount(main);
    }
    if (d.status !== "finished") next = setTimeout(() => { if (stillShowing(view)) load(); }, POLL_SECONDS * 1000);
  };
  const timer = setInterval(() => { if (!stillShowing(view)) clearInterval(timer); else if (tick) tick(); }, 1000);
  await load();
}
