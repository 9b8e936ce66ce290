// Tournaments: the lobby's list, the form that creates one (/t/new) and a tournament's page
// (/t/<id>): standings, games in progress, the reader's next pairing, a countdown, join and withdraw.  Live by asking the API again every few
// seconds while the page is open; the server's director does the pairing (docs/tournaments.md).
import { api, postJson } from "./api.js";
import { clockText } from "./clock.js";
import { h } from "./dom.js";
import { inputOfRefusal, localTimeText, tournamentBody } from "./newtournament.js";
import { currentView, go, mount, stillShowing } from "./page.js";
import { closeSocket } from "./socket.js";
import { state } from "./store.js";
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

// Why a guest cannot create a tournament, and the way to an account.
function guestHint() {
  return h("p", { class: "muted", "data-testid": "t-create-guest" }, t("t_create_guest"), " ",
    h("a", { href: "/account", "data-testid": "t-sign-up" }, t("make_account")));
}

// The lobby's panel: every tournament listed, each a link to its page; the way to create one.
export function tournamentsPanel(list) {
  const items = list.map((x) => h("li", { "data-testid": "tournament-item" },
    h("a", { href: "/t/" + encodeURIComponent(x.id) }, x.name), " · ", kindWord(x.kind), " · ",
    timeControlName(x.time_control), " · ", t("t_players", { n: x.players }), " · ", timing(x, Date.now())));
  const create = state.me && state.me.account
    ? h("a", { class: "button", href: "/t/new", "data-testid": "t-create" }, t("t_create")) : guestHint();
  return h("section", { class: "panel wide", "data-testid": "tournaments-panel" }, h("h2", {}, t("tournaments")),
    items.length ? h("ul", {}, items) : h("p", { class: "muted" }, t("tournament_none")), create);
}

// One labelled input of the form, in a box of its own (hidden when it does not apply).
function formField(id, label, input) {
  input.id = "tf-" + id;
  input.dataset.testid = "tf-" + id;
  const box = h("div", { class: "tf-field", "data-field": id }, h("label", { for: input.id }, label), input);
  return { input, box };
}

function choiceSelect(values, word, selected) {
  return h("select", {}, values.map((v) => h("option", { value: v, selected: v === selected }, word(v))));
}

// The form's inputs, by the request field each gives (docs/web.md, "Tournaments"), from the server's
// own choices (GET /api/tournaments/new).
function formFields(c) {
  const num = (low, high, value) => h("input", { type: "number", inputmode: "numeric", min: String(low), max: String(high), step: "1", value: String(value) });
  const soon = localTimeText(Date.now() + 3600 * 1000);
  return {
    name: formField("name", t("tf_name"), h("input", { type: "text", maxlength: "40", autocomplete: "off", required: true })),
    kind: formField("kind", t("tf_kind"), choiceSelect(c.kinds, kindWord, "arena")),
    format: formField("format", t("format"), choiceSelect(c.formats, (f) => t(f), c.formats[0])),
    time_control: formField("time_control", t("time_control"), choiceSelect(c.time_controls, timeControlName, c.time_controls[0])),
    start_mode: formField("start_mode", t("tf_start"), choiceSelect(["in", "at"], (m) => t("tf_start_" + m), "in")),
    starts_in: formField("starts_in", t("tf_starts_in"), num(0, c.max_days * 1440, 10)),
    starts_at: formField("starts_at", t("tf_starts_at"), h("input", { type: "datetime-local", value: soon })),
    minutes: formField("minutes", t("tf_minutes"), num(c.minutes[0], c.minutes[1], 45)),
    rounds: formField("rounds", t("tf_rounds"), num(c.rounds[0], c.rounds[1], 5)),
    bots_allowed: formField("bots_allowed", t("tf_bots"), h("input", { type: "checkbox" })),
  };
}

// A refusal beside the input it concerns (that input focused, so a phone scrolls to it), or under
// the button; in the reader's language (api.js).
function showRefusal(form, fields, e) {
  form.querySelectorAll("[data-testid=tf-error]").forEach((el) => el.remove());
  form.querySelectorAll("[aria-invalid]").forEach((el) => { el.removeAttribute("aria-invalid"); el.removeAttribute("aria-describedby"); });
  if (!e) return;
  const line = h("p", { class: "error", role: "alert", id: "tf-error", "data-testid": "tf-error" }, failText(e));
  const key = inputOfRefusal(e.field, fields.start_mode.input.value);
  if (key && fields[key]) {
    const input = fields[key].input;
    fields[key].box.append(line);
    input.setAttribute("aria-invalid", "true");
    input.setAttribute("aria-describedby", "tf-error");
    input.focus();
  } else form.querySelector("button[type=submit]").before(line);
}

function tournamentForm(c) {
  const f = formFields(c);
  const shown = () => {
    f.minutes.box.hidden = f.kind.input.value === "swiss";
    f.rounds.box.hidden = f.kind.input.value !== "swiss";
    f.starts_in.box.hidden = f.start_mode.input.value === "at";
    f.starts_at.box.hidden = f.start_mode.input.value !== "at";
  };
  f.kind.input.onchange = shown;
  f.start_mode.input.onchange = shown;
  f.bots_allowed.box.classList.add("tf-check");
  f.bots_allowed.box.prepend(f.bots_allowed.input);
  const view = currentView();
  const form = h("form", { class: "tform", novalidate: true, "data-testid": "tform", onsubmit: async (ev) => {
    ev.preventDefault();
    showRefusal(form, f, null);
    const body = tournamentBody({ name: f.name.input.value, kind: f.kind.input.value, format: f.format.input.value,
      timeControl: f.time_control.input.value, startMode: f.start_mode.input.value, startsIn: f.starts_in.input.value,
      startsAt: f.starts_at.input.value, minutes: f.minutes.input.value, rounds: f.rounds.input.value, bots: f.bots_allowed.input.checked });
    try {
      const made = await postJson("/api/tournaments", body);
      if (stillShowing(view)) go("/t/" + encodeURIComponent(made.id));
    } catch (e) { if (stillShowing(view)) showRefusal(form, f, e); }
  } }, Object.values(f).map((x) => x.box),
  h("button", { type: "submit", class: "primary", "data-testid": "tf-submit" }, t("tf_submit")));
  shown();
  return form;
}

// /t/new: the form for an account; a guest is told why not, with the way to an account.
export async function newTournamentPage() {
  closeSocket();
  const view = currentView();
  const page = (...content) => h("main", { class: "ratings-page tform-page", "data-testid": "new-tournament" },
    h("section", { class: "panel" }, h("h2", {}, t("t_create")), ...content));
  if (!(state.me && state.me.account)) { mount(page(guestHint())); return; }
  let choices;
  try { choices = await api("/api/tournaments/new"); } catch (e) {
    if (stillShowing(view)) mount(page(h("p", { class: "error", role: "alert", "data-testid": "tf-error" }, failText(e))));
    return;
  }
  if (stillShowing(view)) mount(page(tournamentForm(choices)));
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
  return h("div", { class: "table-scroll" }, h("table", { class: "board-table", "data-testid": "standings" },
    h("thead", {}, h("tr", {}, h("th", { scope: "col" }, "#"), h("th", { scope: "col" }, t("player")),
      h("th", { scope: "col", class: "num" }, t("t_score")), h("th", { scope: "col", class: "num" }, t("t_games")),
      swiss ? h("th", { scope: "col", class: "num" }, t("t_buchholz")) : null)),
    h("tbody", {}, rows)));
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
