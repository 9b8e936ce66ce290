// Rated play: the lobby's "play now" panel (the queue over the page's socket), the leaderboard
// (/leaderboard) and the player pages (/p/<handle>) with the rating history as inline SVG.
import { saveDisplayName } from "./account.js";
import { api } from "./api.js";
import { h, svg } from "./dom.js";
import { botBadge, currentView, go, mount, stillShowing } from "./page.js";
import { closeSocket, openSocket } from "./socket.js";
import { state } from "./store.js";
import { campaignWord } from "./summaries.js";
import { failText, t } from "./words.js";

// ------------------------------------------------------------------ play now (lobby)

// The queue lives on a socket of its own: closing it (leaving the page) leaves the queue.
export function playNowPanel(formats) {
  const fmt = h("select", { id: "play-now-format", "data-testid": "play-now-format", "aria-label": t("format") },
    formats.map((f) => h("option", { value: f }, t(f))));
  const status = h("p", { class: "muted", role: "status", "data-testid": "play-now-status" });
  const actions = h("div", { class: "row" });
  const button = h("button", { class: "primary", "data-testid": "play-now", onclick: () => join() }, t("play_now_start"));
  // People meet bot accounts only when they tick this (docs/web.md, "Bots").
  const bots = h("input", { type: "checkbox", id: "play-now-bots", "data-testid": "play-now-bots" });
  const botsChoice = h("label", { for: "play-now-bots" }, bots, " ", t("play_now_bots"));
  actions.append(fmt, button);

  async function join() {
    // A name typed just before the tap is this game's name: saved before the queue reads it.
    const typed = document.getElementById("name");
    const name = typed ? typed.value.trim() : "";
    if (name && state.me && state.me.identity && name !== state.me.display_name) {
      try { await saveDisplayName(name); } catch (e) { status.textContent = t("error") + ": " + e.message; return; }
    }
    closeSocket();
    const ws = openSocket();
    state.ws = ws;
    ws.onopen = () => ws.send(JSON.stringify({ type: "queue", format: fmt.value, lang: state.lang, bots: bots.checked }));
    ws.onclose = () => { if (state.ws === ws) { state.ws = null; idle(); } };
    ws.onmessage = (e) => {
      const f = JSON.parse(e.data);
      if (f.type === "queue" && f.status === "waiting") waiting(f);
      else if (f.type === "queue" && f.status === "ai_offer") offerAi(f.ai);
      else if (f.type === "queue" && f.status === "left") { closeSocket(); idle(); }
      else if (f.type === "matched") { closeSocket(); go("/g/" + f.game); }
      else if (f.type === "error") { status.textContent = t("error") + ": " + f.message; }
    };
  }
  function leave() {
    if (state.ws && state.ws.readyState === WebSocket.OPEN) state.ws.send(JSON.stringify({ type: "leave_queue" }));
    else { closeSocket(); idle(); }
  }
  function idle() {
    bots.disabled = false;
    status.textContent = t("play_now_blurb");
    actions.replaceChildren(fmt, button);
  }
  function waiting(f) {
    bots.disabled = true; // the choice is stored with the queue entry: leave to change it
    status.textContent = t("play_now_waiting", { format: t(f.format), rating: f.rating });
    actions.replaceChildren(h("button", { "data-testid": "play-now-leave", onclick: leave }, t("play_now_leave")));
  }
  function offerAi(ai) {
    status.textContent = t("play_now_ai_offer", { ai: t("ai_" + ai) });
    actions.replaceChildren(
      h("button", { class: "primary", "data-testid": "play-now-ai", onclick: () => state.ws && state.ws.send(JSON.stringify({ type: "queue_ai" })) }, t("play_now_ai_accept")),
      h("button", { "data-testid": "play-now-leave", onclick: leave }, t("play_now_leave")));
  }
  idle();
  return h("section", { class: "panel", "data-testid": "play-now-panel" }, h("h2", {}, t("play_now")), status, actions,
    state.me && state.me.bot ? null : h("p", {}, botsChoice),
    h("p", {}, h("a", { href: "/leaderboard", "data-testid": "leaderboard-link" }, t("leaderboard")),
      state.me && state.me.identity ? [" · ", h("a", { href: "/p/" + encodeURIComponent(state.me.identity), "data-testid": "my-page" }, t("my_page"))] : null));
}

// ------------------------------------------------------------------ leaderboard

export async function leaderboardPage() {
  closeSocket();
  const params = new URLSearchParams(location.search);
  const fmt = params.get("format") === "precon" ? "precon" : "draft";
  // People by default; bots have a list of their own (docs/web.md, "Bots").
  const list = params.get("list") === "bots" ? "bots" : "people";
  const view = currentView();
  const data = await api("/api/leaderboard?format=" + fmt + "&list=" + list);
  if (!stillShowing(view)) return;
  const tabs = h("nav", { class: "tabs", "aria-label": t("format") }, ["draft", "precon"].map((f) =>
    h("a", { href: "/leaderboard?format=" + f + (list === "bots" ? "&list=bots" : ""), class: "button" + (f === fmt ? " primary" : ""), "aria-current": f === fmt ? "page" : null,
      "data-testid": "leaderboard-" + f }, t(f))));
  const lists = h("nav", { class: "tabs", "aria-label": t("leaderboard_lists") }, ["people", "bots"].map((l) =>
    h("a", { href: "/leaderboard?format=" + fmt + (l === "bots" ? "&list=bots" : ""), class: "button" + (l === list ? " primary" : ""),
      "aria-current": l === list ? "page" : null, "data-testid": "leaderboard-list-" + l }, t("leaderboard_" + l))));
  const rows = data.players.map((p, i) => h("tr", { "data-testid": "leaderboard-row", "data-handle": p.handle },
    h("td", {}, String(i + 1)),
    h("th", { scope: "row" }, h("a", { href: "/p/" + encodeURIComponent(p.handle) }, p.name), botBadge(p.bot)),
    h("td", { class: "num", "data-testid": "leaderboard-rating" }, String(p.rating)),
    h("td", { class: "num" }, String(p.games)),
    h("td", { class: "num" }, `${p.wins}–${p.losses}`)));
  mount(h("main", { class: "ratings-page" },
    h("h2", {}, t("leaderboard")), lists, tabs,
    h("p", { class: "muted" }, t("leaderboard_blurb", { n: data.min_games })),
    list === "bots" ? h("p", { class: "muted", "data-testid": "bots-blurb" }, t("leaderboard_bots_blurb")) : myStanding(data),
    rows.length ? h("div", { class: "table-scroll" }, h("table", { class: "board-table", "data-testid": "leaderboard" },
      h("thead", {}, h("tr", {}, h("th", { scope: "col" }, "#"), h("th", { scope: "col" }, t("player")),
        h("th", { scope: "col", class: "num" }, t("rating")), h("th", { scope: "col", class: "num" }, t("rated_games")),
        h("th", { scope: "col", class: "num" }, t("wins_losses")))),
      h("tbody", {}, rows))) : h("p", { "data-testid": "leaderboard-empty" }, t("none"))));
}

// The reader's own standing, listed or not: its rating ("provisional" explained), its place on the
// list, or what it still takes to appear (an account, games, distinct opponents).
function myStanding(data) {
  const me = data.me;
  if (!me) return null;
  const rank = data.players.findIndex((p) => p.handle === me.handle);
  const lines = [];
  if (me.rating === null) lines.push(h("p", {}, t("leaderboard_none_yet")));
  else {
    lines.push(h("p", { class: "big", "data-testid": "my-rating" }, String(me.rating),
      me.provisional ? h("span", { class: "muted" }, " (" + t("provisional") + ")") : null));
    lines.push(h("p", {}, t("rated_record", { games: me.games, wins: me.wins, losses: me.losses })));
    if (me.provisional) lines.push(h("p", { class: "muted", "data-testid": "provisional-help" }, t("provisional_help", { n: me.min_games })));
  }
  if (rank >= 0) lines.push(h("p", { "data-testid": "my-rank" }, t("leaderboard_you_listed", { rank: rank + 1 })));
  else {
    if (me.guest) lines.push(h("p", { "data-testid": "guest-standing" }, t("leaderboard_guest"), " ", h("a", { href: "/account" }, t("make_account"))));
    lines.push(h("p", { class: "muted", "data-testid": "how-to-appear" }, t("leaderboard_how", { n: me.min_games, m: Math.max(1, me.min_opponents) })));
  }
  return h("section", { class: "panel", "data-testid": "my-standing" }, h("h3", {}, t("leaderboard_you")), lines);
}

// ------------------------------------------------------------------ player page

function resultRow(label, r) {
  return h("tr", {},
    h("th", { scope: "row" }, label), h("td", { class: "num" }, String(r.wins)), h("td", { class: "num" }, String(r.losses)),
    h("td", { class: "num" }, String(r.draws)), h("td", { class: "num" }, String(r.played)));
}

function resultsTable(p) {
  const results = Object.entries(p.results).map(([fmt, r]) => resultRow(t(fmt), r));
  const deckRows = Object.entries(p.results_by_deck || {}).sort().map(([deck, r]) => resultRow(t("deck") + " " + deck, r));
  if (!results.length) return h("p", { class: "muted" }, t("none"));
  return h("div", { class: "table-scroll" }, h("table", { class: "board-table", "data-testid": "player-results" },
    h("thead", {}, h("tr", {}, h("th", { scope: "col" }, t("format")), h("th", { scope: "col", class: "num" }, t("wins")),
      h("th", { scope: "col", class: "num" }, t("losses")), h("th", { scope: "col", class: "num" }, t("draws")),
      h("th", { scope: "col", class: "num" }, t("played_hotseat")))),
    h("tbody", {}, results, deckRows)));
}

export async function playerPage(handle) {
  closeSocket();
  const view = currentView();
  let p;
  try { p = await api("/api/players/" + encodeURIComponent(handle)); }
  catch (e) { if (stillShowing(view)) mount(h("main", { class: "ratings-page" }, h("p", { class: "error", role: "alert" }, failText(e)))); return; }
  if (!stillShowing(view)) return;
  // A handle given up for a chosen one: the server answered with the player's page under the new one.
  if (p.handle !== handle) history.replaceState(null, "", "/p/" + encodeURIComponent(p.handle));
  const ratingBlocks = Object.entries(p.ratings).map(([fmt, r]) => h("section", { class: "panel", "data-testid": "player-rating", "data-format": fmt },
    h("h3", {}, t(fmt)),
    h("p", { class: "big" }, String(r.rating), r.provisional ? h("span", { class: "muted", title: t("provisional_help", { n: r.min_games || 10 }) }, " (" + t("provisional") + ")") : null),
    r.provisional ? h("p", { class: "muted", "data-testid": "provisional-help" }, t("provisional_help", { n: r.min_games || 10 })) : null,
    h("p", {}, t("rated_record", { games: r.games, wins: r.wins, losses: r.losses })),
    (p.history[fmt] || []).length ? historySvg(p.history[fmt], t(fmt)) : null));
  const games = p.games.map((g) => h("li", {}, `${g.players.map((n, i) => (n || t("default_player", { n: i + 1 })) + (g.bots && g.bots[i] ? ` (${t("bot_badge")})` : "")).join(" – ")} · ${t(g.format) || g.format} · `,
    g.status === "over" ? h("a", { href: "/r/" + g.id }, t("replay")) : h("a", { href: "/g/" + g.id }, t("watch"))));
  mount(h("main", { class: "ratings-page", "data-testid": "player-page", "data-handle": p.handle },
    h("h2", {}, p.name, p.name !== p.handle ? h("span", { class: "muted" }, " @" + p.handle) : null, botBadge(p.bot)),
    p.bot && p.owner ? h("p", { "data-testid": "bot-owner" }, t("bot_owner"), " ",
      h("a", { href: "/p/" + encodeURIComponent(p.owner) }, "@" + p.owner)) : null,
    h("h3", {}, t("ratings")),
    ratingBlocks.length ? h("div", { class: "lobby" }, ratingBlocks) : h("p", { class: "muted" }, t("no_rated_games")),
    h("h3", {}, t("results_by_format")),
    resultsTable(p),
    // The solo campaign: shown when the player payload has a "campaign" field.
    p.campaign ? campaignSection(p.campaign) : null,
    h("h3", {}, t("player_games")),
    games.length ? h("ul", { "data-testid": "player-games" }, games) : h("p", { class: "muted" }, t("none"))));
}

// The solo campaign (the player payload's "campaign"): each rulebook level with its best result.
function campaignSection(campaign) {
  const levels = (campaign && campaign.levels) || [];
  return h("section", { class: "panel wide", "data-testid": "player-campaign" }, h("h3", {}, t("campaign")),
    h("ol", { class: "campaign", start: "0" }, levels.map((c) =>
      h("li", { "data-level": String(c.level), "data-best": c.best || "none" },
        t("level") + " " + c.level + ": " + campaignWord(c) + (c.played ? " (" + c.won + "/" + c.played + ")" : "")))));
}

// The rating after each rated game, as a line (inline SVG; the numbers are in its title and the list).
function historySvg(history, label) {
  // A new player starts at 1000: the line starts there, so one game already shows a change.
  const points = [{ rating: 1000 }, ...history];
  const W = window.innerWidth < 600 ? 320 : 520, H = 160, L = 44, R = 10, T = 12, B = 24;
  const vals = points.map((p) => p.rating);
  const lo = Math.min(...vals, 1000) - 20, hi = Math.max(...vals, 1000) + 20;
  const x = (i) => L + (W - L - R) * (points.length === 1 ? 1 : i / (points.length - 1));
  const y = (v) => T + (H - T - B) * (1 - (v - lo) / (hi - lo));
  const out = svg("svg", { viewBox: `0 0 ${W} ${H}`, class: "curve-svg", role: "img", "data-testid": "rating-history",
    "aria-label": t("rating_history", { format: label }) + ": " + vals.join(", ") });
  for (const v of [lo + 20, hi - 20]) {
    out.append(svg("line", { x1: L, x2: W - R, y1: y(v), y2: y(v), stroke: "#d8cfbd", "stroke-width": 1 }));
    out.append(svg("text", { x: L - 6, y: y(v) + 4, "text-anchor": "end", "font-size": 11, fill: "#6b6b6b" }, Math.round(v)));
  }
  out.append(svg("polyline", { points: points.map((p, i) => `${x(i).toFixed(1)},${y(p.rating).toFixed(1)}`).join(" "),
    fill: "none", stroke: "#8a2be2", "stroke-width": 2.5, "stroke-linejoin": "round" }));
  points.forEach((p, i) => out.append(svg("circle", { cx: x(i), cy: y(p.rating), r: 3, fill: "#8a2be2" })));
  out.append(svg("text", { x: L, y: H - 6, "font-size": 11, fill: "#6b6b6b" }, t("rated_games") + ": " + history.length));
  return h("figure", { class: "curve" }, out);
}
