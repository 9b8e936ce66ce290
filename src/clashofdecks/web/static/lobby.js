// The lobby: new games, my games, games to watch, record import.
"use strict";

// ------------------------------------------------------------------ lobby

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

async function lobbyPage() {
  closeSocket();
  const view = pageView;
  const lobby = await api("/api/lobby");
  const campaign = state.me && state.me.identity ? await api("/api/campaign").catch(() => null) : null;
  if (!stillShowing(view)) return;  // another page was opened meanwhile (a game started from the old lobby)
  // The name is the identity's display name: changing it here changes it for the next games too.
  const name = h("input", { id: "name", "data-testid": "name", maxlength: "40", value: (state.me && state.me.display_name) || "", placeholder: t("your_name"),
    onchange: () => saveDisplayName(name.value).catch((e) => { err.textContent = t("error") + ": " + e.message; }) });
  const fmt = (id, formats) => h("select", { id, "aria-label": t("format") }, (formats || ["draft", "precon", "custom"]).map((f) => h("option", { value: f }, t(f))));
  const soloFormat = fmt("solo-format", ["draft", "precon"]);  // no custom decks in solo (R2.2)
  const soloDeck = h("select", { id: "solo-deck", "aria-label": t("deck") }, h("option", { value: "" }, t("choose_in_game")),
    [1, 2, 3, 4].map((n) => h("option", { value: n }, t("deck") + " " + n)));
  const level = h("select", { id: "solo-level", "data-testid": "level", "aria-label": t("level") }, lobby.levels.map((n) => h("option", { value: n }, t("level") + " " + n)));
  // Custom threat options (R8.2) instead of a level: open the box to use them.
  const threatBox = h("details", { "data-testid": "custom-threat" }, h("summary", {}, t("custom_threat")));
  const threatInputs = {};
  for (const [name, choices] of Object.entries(lobby.threat_choices)) {
    threatInputs[name] = h("select", { "data-threat": name }, choices.map((c) => h("option", { value: String(c) }, String(c))));
    threatBox.append(h("label", { class: "row" }, name.replace(/_/g, " ") + " ", threatInputs[name]));
  }
  const abilityBoxes = lobby.threat_abilities.map((a) => h("input", { type: "checkbox", value: a, "data-threat-ability": a }));
  threatBox.append(h("div", { class: "row" }, t("abilities") + ":",
    lobby.threat_abilities.map((a, i) => h("label", {}, abilityBoxes[i], " ", abilityName(a)))));
  const threatValue = () => {
    const out = {};
    for (const [name, el] of Object.entries(threatInputs)) out[name] = /^\d+$/.test(el.value) ? Number(el.value) : el.value;
    out.abilities = abilityBoxes.filter((b) => b.checked).map((b) => b.value);
    return out;
  };
  const aiFormat = fmt("ai-format");
  const ai = h("select", { id: "ai-level", "data-testid": "ai-level", "aria-label": t("ai") }, lobby.ai_levels.map((a) => h("option", { value: a, selected: a === lobby.ai_default }, t("ai_" + a))));
  const friendFormat = fmt("friend-format");
  // Rated only in the rated formats, and only if the friend chooses it too when opening the link.
  const friendRated = h("input", { type: "checkbox", id: "friend-rated", "data-testid": "friend-rated" });
  // The friend duel's clock: none keeps the abandonment rule; a clock replaces it (docs/web.md, "Clocks").
  const timeControl = h("select", { id: "time-control", "data-testid": "time-control", "aria-label": t("time_control") },
    lobby.time_controls.map((c) => h("option", { value: c }, t("tc_" + c.replace("+", "_")))));
  const hotFormat = fmt("hot-format");
  const err = h("p", { class: "error", role: "alert", "data-testid": "lobby-error" });

  async function start(body) {
    body.name = name.value.trim();
    body.lang = state.lang;  // unnamed seats get default names in this language
    try {
      const res = await api("/api/games", { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) });
      // The creator's seats are its identity's: no token is kept.  The invite link is kept until the
      // friend has used it (it is single-use, and refused to this identity: game.js drops it then).
      if (res.invite) localStorage.setItem("clash.invite." + res.id, res.invite);
      history.pushState(null, "", "/g/" + res.id);
      route();
    } catch (e) { err.textContent = t("error") + ": " + e.message; }
  }
  const importInput = h("input", { type: "file", accept: ".json,application/json", "data-testid": "import-file",
    onchange: async (e) => {
      const file = e.target.files[0];
      if (!file) return;
      try {
        const res = await api("/api/import", { method: "POST", headers: { "Content-Type": "application/json" }, body: await file.text() });
        history.pushState(null, "", res.replay); route();
      } catch (x) { err.textContent = t("error") + ": " + x.message; }
    } });

  const gameItem = (g) => {
    // Mode and format in the page's language (a format without a word, e.g. "position", as it is).
    const format = ["draft", "precon", "custom"].includes(g.format) ? t(g.format) : g.format;
    const label = `${g.players.join(" – ")} · ${t("mode_" + g.mode)} · ${format}`;
    const links = [];
    if (g.status === "over") links.push(h("a", { href: "/r/" + g.id, "data-testid": "replay-link" }, t("replay")));
    else if (g.mine) links.push(h("a", { href: "/g/" + g.id, "data-testid": "resume-link" }, t("resume")));
    else links.push(h("a", { href: "/g/" + g.id }, t("watch")));
    // (The stored reason is the engine's English sentence: the list says only that the game is over.)
    const result = g.status === "over" ? " · " + t("over") : "";
    const clock = g.clock && g.status !== "over" ? h("span", { class: "muted" }, " · " + t("tc_" + g.clock.control.replace("+", "_"))) : null;
    // A clocked game where this player is to move: marked, with the time left (correspondence above all).
    const turn = g.your_turn ? h("strong", { class: "your-turn", "data-testid": "your-turn" },
      t("your_turn_mark") + " · " + t("time_left", { time: clockText(g.clock.left[g.clock.running], g.clock.kind) })) : null;
    return h("li", { "data-game": g.id }, label + result, clock, " ", turn, turn ? " " : null, ...links);
  };
  // The solo campaign: the rulebook's levels, each with the best result; a win opens the next.
  const campaignPanel = () => {
    if (!campaign) return null;
    const word = (c) => c.best === "won" ? t("campaign_won") : c.best === "lost" ? t("campaign_lost") : c.open ? t("campaign_not_played") : t("campaign_locked");
    const mark = (c) => c.best === "won" ? "✓ " : "";
    return h("section", { class: "panel", "data-testid": "campaign" }, h("h2", {}, t("campaign")),
      h("p", { class: "muted" }, t("campaign_blurb")),
      h("ol", { class: "campaign", start: "0" }, campaign.levels.map((c) =>
        h("li", { "data-testid": "campaign-level", "data-level": String(c.level), "data-best": c.best || "none", "data-open": String(c.open) },
          mark(c) + t("level") + " " + c.level + ": " + word(c)))),
      h("button", { class: "primary", "data-testid": "campaign-next", "data-level": String(campaign.next),
        onclick: () => start({ kind: "solo", format: soloFormat.value, level: campaign.next }) }, t("campaign_play", { n: campaign.next })));
  };
  const list = (items) => items.length ? h("ul", {}, items.map(gameItem)) : h("p", { class: "muted" }, t("none"));

  const choices = readChoices();  // the lobby on screen, if any, before this one replaces it
  const page = h("main", { class: "lobby" },
    h("section", { class: "panel" }, h("label", { for: "name" }, t("your_name")), name,
      state.me && state.me.identity && !state.me.account ? h("p", { class: "muted", "data-testid": "guest-note" }, t("guest_note_short"), " ",
        h("a", { href: "/account" }, t("make_account"))) : null),
    playNowPanel(["draft", "precon"]),
    h("section", { class: "panel" }, h("h2", {}, t("tutorial")), h("p", {}, t("tutorial_blurb")),
      h("a", { class: "button primary", href: "/tutorial", "data-testid": "tutorial" }, t("tutorial_open"))),
    campaignPanel(),
    h("section", { class: "panel" }, h("h2", {}, t("new_solo")),
      h("div", { class: "row" }, soloFormat, soloDeck, level), threatBox,
      h("button", { class: "primary", "data-testid": "new-solo", onclick: () => start(Object.assign({ kind: "solo", format: soloFormat.value,
        deck: soloFormat.value === "precon" && soloDeck.value ? Number(soloDeck.value) : null },
        threatBox.open ? { threat: threatValue() } : { level: Number(level.value) })) }, t("start"))),
    h("section", { class: "panel" }, h("h2", {}, t("new_ai")), h("div", { class: "row" }, aiFormat, ai),
      h("button", { class: "primary", "data-testid": "new-duel-ai", onclick: () => start({ kind: "ai", format: aiFormat.value, ai: ai.value }) }, t("start"))),
    h("section", { class: "panel" }, h("h2", {}, t("new_friend")), h("div", { class: "row" }, friendFormat, timeControl,
        h("label", { for: "friend-rated" }, friendRated, " ", t("rated_choice"))),
      h("button", { class: "primary", "data-testid": "new-duel-friend", onclick: () => start(Object.assign({ kind: "friend", format: friendFormat.value, time_control: timeControl.value },
        friendRated.checked && friendFormat.value !== "custom" ? { rated: true } : {})) }, t("start"))),
    h("section", { class: "panel" }, h("h2", {}, t("new_hotseat")), h("div", { class: "row" }, hotFormat),
      h("button", { class: "primary", "data-testid": "new-hotseat", onclick: () => start({ kind: "hotseat", format: hotFormat.value }) }, t("start"))),
    err,
    h("section", { class: "panel wide", "data-testid": "my-games" }, h("h2", {}, t("my_games")), list(lobby.mine)),
    h("section", { class: "panel wide" }, h("h2", {}, t("open_games")), list(lobby.open)),
    h("section", { class: "panel wide" }, h("label", {}, t("import_record"), " ", importInput)),
  );
  restoreChoices(page, choices);
  mount(page);
}
