// The lobby: new games, my games, games to watch, record import.
import { saveDisplayName } from "./account.js";
import { api, postJson } from "./api.js";
import { abilityName } from "./cards.js";
import { clockText } from "./clock.js";
import { h } from "./dom.js";
import { currentView, go, mount, stillShowing } from "./page.js";
import { playNowPanel } from "./ratings.js";
import { closeSocket } from "./socket.js";
import { state } from "./store.js";
import { tournamentsPanel } from "./tournament.js";
import { campaignWord, gameLabel, gameLink, threatOption } from "./summaries.js";
import { failText, t, timeControlName } from "./words.js";

// The lobby's choices (formats, level, deck, AI, clock, threat, name) by element, as the player left
// them: a lobby drawn over a lobby (choosing a language draws it again, after the server's answers)
// keeps what the player chose while it waited, instead of resetting it.
const CHOICE_ELEMENTS = "select, input:not([type=file]), details";
function choiceKey(el) {
  const d = el.dataset;
  return el.id ? "#" + el.id : d.threat ? "threat:" + d.threat : d.threatAbility ? "ability:" + d.threatAbility : d.testid ? "test:" + d.testid : "";
}
function readChoices() {
  const out = new Map();
  const shown = document.querySelector("#app > main.lobby:not(.account)");
  for (const el of shown ? shown.querySelectorAll(CHOICE_ELEMENTS) : []) {
    if (choiceKey(el)) out.set(choiceKey(el), el.tagName === "DETAILS" ? el.open : el.type === "checkbox" ? el.checked : el.value);
  }
  return out;
}
function restoreChoices(root, choices) {
  for (const el of root.querySelectorAll(CHOICE_ELEMENTS)) {
    const v = choices.get(choiceKey(el));
    if (v === undefined) continue;
    if (el.tagName === "DETAILS") el.open = v;
    else if (el.type === "checkbox") el.checked = v;
    else if (el.tagName !== "SELECT" || [...el.options].some((o) => o.value === v)) el.value = v;
  }
}

function showError(err, e) { err.textContent = failText(e); }

// A new game with the player's name in the page's language (unnamed seats get default names in it).
async function startGame(body, name, err) {
  body.name = name.value.trim();
  body.lang = state.lang;
  try {
    const res = await postJson("/api/games", body);
    // The creator's seats are its identity's: no token is kept.  The invite link is kept until the
    // friend has used it (it is single-use, and refused to this identity: game.js drops it then).
    if (res.invite) localStorage.setItem("clash.invite." + res.id, res.invite);
    go("/g/" + res.id);
  } catch (e) { showError(err, e); }
}

function formatSelect(id, formats) {
  return h("select", { id, "aria-label": t("format") }, (formats || ["draft", "precon", "custom"]).map((f) => h("option", { value: f }, t(f))));
}

// The name is the identity's display name: changing it here changes it for the next games too.
function nameSection(name) {
  return h("section", { class: "panel" }, h("label", { for: "name" }, t("your_name")), name,
    state.me && state.me.identity && !state.me.account ? h("p", { class: "muted", "data-testid": "guest-note" }, t("guest_note_short"), " ",
      h("a", { href: "/account" }, t("make_account"))) : null);
}

// Custom threat options (R8.2) instead of a level: open the box to use them.
function threatBox(lobby) {
  const box = h("details", { "data-testid": "custom-threat" }, h("summary", {}, t("custom_threat")));
  const inputs = {};
  for (const [name, choices] of Object.entries(lobby.threat_choices)) {
    inputs[name] = h("select", { "data-threat": name }, choices.map((c) => h("option", { value: String(c) }, String(c))));
    box.append(h("label", { class: "row" }, name.replace(/_/g, " ") + " ", inputs[name]));
  }
  const abilityBoxes = lobby.threat_abilities.map((a) => h("input", { type: "checkbox", value: a, "data-threat-ability": a }));
  box.append(h("div", { class: "row" }, t("abilities") + ":",
    lobby.threat_abilities.map((a, i) => h("label", {}, abilityBoxes[i], " ", abilityName(a)))));
  const value = () => {
    const out = {};
    for (const [name, el] of Object.entries(inputs)) out[name] = threatOption(el.value);
    out.abilities = abilityBoxes.filter((b) => b.checked).map((b) => b.value);
    return out;
  };
  return { box, value };
}

function soloPanel(lobby, soloFormat, start) {
  const soloDeck = h("select", { id: "solo-deck", "aria-label": t("deck") }, h("option", { value: "" }, t("choose_in_game")),
    [1, 2, 3, 4].map((n) => h("option", { value: n }, t("deck") + " " + n)));
  const level = h("select", { id: "solo-level", "data-testid": "level", "aria-label": t("level") }, lobby.levels.map((n) => h("option", { value: n }, t("level") + " " + n)));
  const threat = threatBox(lobby);
  return h("section", { class: "panel" }, h("h2", {}, t("new_solo")),
    h("div", { class: "row" }, soloFormat, soloDeck, level), threat.box,
    h("button", { class: "primary", "data-testid": "new-solo", onclick: () => start(Object.assign({ kind: "solo", format: soloFormat.value,
      deck: soloFormat.value === "precon" && soloDeck.value ? Number(soloDeck.value) : null },
    threat.box.open ? { threat: threat.value() } : { level: Number(level.value) })) }, t("start")));
}

function aiPanel(lobby, start) {
  const aiFormat = formatSelect("ai-format");
  const ai = h("select", { id: "ai-level", "data-testid": "ai-level", "aria-label": t("ai") }, lobby.ai_levels.map((a) => h("option", { value: a, selected: a === lobby.ai_default }, t("ai_" + a))));
  return h("section", { class: "panel" }, h("h2", {}, t("new_ai")), h("div", { class: "row" }, aiFormat, ai),
    h("button", { class: "primary", "data-testid": "new-duel-ai", onclick: () => start({ kind: "ai", format: aiFormat.value, ai: ai.value }) }, t("start")));
}

function friendPanel(lobby, start) {
  const friendFormat = formatSelect("friend-format");
  // Rated only in the rated formats, and only if the friend chooses it too when opening the link.
  // Hints in an unrated duel: given only if the friend agrees too when opening the link (fair play).
  const friendHints = h("input", { type: "checkbox", id: "friend-hints", "data-testid": "friend-hints" });
  const friendRated = h("input", { type: "checkbox", id: "friend-rated", "data-testid": "friend-rated",
    onchange: () => { friendHints.disabled = friendRated.checked; if (friendRated.checked) friendHints.checked = false; } });
  // The friend duel's clock: none keeps the abandonment rule; a clock replaces it (docs/web.md, "Clocks").
  const timeControl = h("select", { id: "time-control", "data-testid": "time-control", "aria-label": t("time_control") },
    lobby.time_controls.map((c) => h("option", { value: c }, timeControlName(c))));
  return h("section", { class: "panel" }, h("h2", {}, t("new_friend")), h("div", { class: "row" }, friendFormat, timeControl,
    h("label", { for: "friend-rated" }, friendRated, " ", t("rated_choice")),
    h("label", { for: "friend-hints" }, friendHints, " ", t("hints_choice"))),
  h("button", { class: "primary", "data-testid": "new-duel-friend", onclick: () => start(Object.assign({ kind: "friend", format: friendFormat.value, time_control: timeControl.value },
    friendRated.checked && friendFormat.value !== "custom" ? { rated: true } : friendHints.checked ? { hints: true } : {})) }, t("start")));
}

function hotseatPanel(start) {
  const hotFormat = formatSelect("hot-format");
  return h("section", { class: "panel" }, h("h2", {}, t("new_hotseat")), h("div", { class: "row" }, hotFormat),
    h("button", { class: "primary", "data-testid": "new-hotseat", onclick: () => start({ kind: "hotseat", format: hotFormat.value }) }, t("start")));
}

// The solo campaign: the rulebook's levels, each with the best result; a win opens the next.
function campaignPanel(campaign, playNext) {
  if (!campaign) return null;
  const mark = (c) => c.best === "won" ? "✓ " : "";
  return h("section", { class: "panel", "data-testid": "campaign" }, h("h2", {}, t("campaign")),
    h("p", { class: "muted" }, t("campaign_blurb")),
    h("ol", { class: "campaign", start: "0" }, campaign.levels.map((c) =>
      h("li", { "data-testid": "campaign-level", "data-level": String(c.level), "data-best": c.best || "none", "data-open": String(c.open) },
        mark(c) + t("level") + " " + c.level + ": " + campaignWord(c)))),
    h("button", { class: "primary", "data-testid": "campaign-next", "data-level": String(campaign.next), onclick: playNext },
      t("campaign_play", { n: campaign.next })));
}

function gameItem(g) {
  const link = gameLink(g);
  const clock = g.clock && g.status !== "over" ? h("span", { class: "muted" }, " · " + timeControlName(g.clock.control)) : null;
  // A clocked game where this player is to move: marked, with the time left (correspondence above all).
  const turn = g.your_turn ? h("strong", { class: "your-turn", "data-testid": "your-turn" },
    t("your_turn_mark") + " · " + t("time_left", { time: clockText(g.clock.left[g.clock.running], g.clock.kind) })) : null;
  return h("li", { "data-game": g.id }, gameLabel(g), clock, " ", turn, turn ? " " : null,
    h("a", { href: link.href, "data-testid": link.testid }, t(link.word)));
}

function gameList(items) { return items.length ? h("ul", {}, items.map(gameItem)) : h("p", { class: "muted" }, t("none")); }

function importInput(err) {
  return h("input", { type: "file", accept: ".json,application/json", "data-testid": "import-file",
    onchange: async (e) => {
      const file = e.target.files[0];
      if (!file) return;
      try {
        const res = await api("/api/import", { method: "POST", headers: { "Content-Type": "application/json" }, body: await file.text() });
        go(res.replay);
      } catch (x) { showError(err, x); }
    } });
}

export async function lobbyPage() {
  closeSocket();
  const view = currentView();
  const lobby = await api("/api/lobby");
  const campaign = state.me && state.me.identity ? await api("/api/campaign").catch(() => null) : null;
  const tournaments = await api("/api/tournaments").catch(() => ({ tournaments: [] }));
  if (!stillShowing(view)) return;  // another page was opened meanwhile (a game started from the old lobby)
  const err = h("p", { class: "error", role: "alert", "data-testid": "lobby-error" });
  const name = h("input", { id: "name", "data-testid": "name", maxlength: "40", value: (state.me && state.me.display_name) || "", placeholder: t("your_name"),
    onchange: () => saveDisplayName(name.value).catch((e) => showError(err, e)) });
  const start = (body) => startGame(body, name, err);
  const soloFormat = formatSelect("solo-format", ["draft", "precon"]);  // no custom decks in solo (R2.2)
  const choices = readChoices();  // the lobby on screen, if any, before this one replaces it
  const page = h("main", { class: "lobby" },
    nameSection(name),
    playNowPanel(["draft", "precon"]),
    tournamentsPanel(tournaments.tournaments),
    h("section", { class: "panel" }, h("h2", {}, t("tutorial")), h("p", {}, t("tutorial_blurb")),
      h("a", { class: "button primary", href: "/tutorial", "data-testid": "tutorial" }, t("tutorial_open"))),
    h("section", { class: "panel", "data-testid": "daily-puzzle" }, h("h2", {}, t("puzzle_daily")), h("p", {}, t("puzzle_blurb")),
      h("a", { class: "button primary", href: "/puzzle/daily", "data-testid": "daily-puzzle-open" }, t("puzzle_open"))),
    campaignPanel(campaign, () => start({ kind: "solo", format: soloFormat.value, level: campaign.next })),
    soloPanel(lobby, soloFormat, start), aiPanel(lobby, start), friendPanel(lobby, start), hotseatPanel(start),
    err,
    h("section", { class: "panel wide", "data-testid": "my-games" }, h("h2", {}, t("my_games")), gameList(lobby.mine)),
    h("section", { class: "panel wide" }, h("h2", {}, t("open_games")), gameList(lobby.open)),
    h("section", { class: "panel wide" }, h("label", {}, t("import_record"), " ", importInput(err))),
  );
  restoreChoices(page, choices);
  mount(page);
}
