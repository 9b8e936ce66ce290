// Replays of finished games, step by step.
"use strict";

// ------------------------------------------------------------------ replays

async function replayPage(id) {
  closeSocket();
  let data;
  try { data = await api("/api/games/" + id + "/replay"); }
  catch (e) { mount(h("main", {}, h("p", { class: "error" }, t("error") + ": " + e.message))); return; }
  const n = data.frames.length - 1;
  let i = Math.max(0, Math.min(n, Number(new URLSearchParams(location.hash.slice(1)).get("s") || n)));
  const players = data.players.map((name, seat) => ({ name: data.mode === "solo" && seat === 1 ? t("automaton") : name,
    kind: data.mode === "solo" && seat === 1 ? "automaton" : "human" }));
  const show = () => {
    history.replaceState(null, "", "#s=" + i);
    const fr = data.frames[i];
    const f = { players, seats: [], seat: null, legal: [], abilities: null, playable: [], index: i, to_move: -2 };
    state.log = [];
    for (let k = 0; k <= i; k++) state.log.push(...data.frames[k].events);
    const board = fr.setup ? setupBoard(Object.assign(f, { setup: fr.setup }), 0) : boardView(fr.view, 0, f);
    const result = i === n && data.result
      ? h("p", { class: "big", "data-testid": "replay-result" }, data.result.termination === "imported" ? "" : reasonText({ result: Object.assign({}, data.result, { winner: data.result.winner === "draw" ? null : data.result.winner }), players }))
      : null;
    mount(h("main", { class: "replay" },
      h("h2", {}, t("replay_title"), " · ", players.map((p) => p.name).join(" – ")),
      h("div", { class: "controls" },
        h("button", { "data-testid": "replay-first", onclick: () => { i = 0; show(); } }, t("first")),
        h("button", { "data-testid": "replay-prev", disabled: i === 0, onclick: () => { i = Math.max(0, i - 1); show(); } }, t("prev")),
        h("span", { "data-testid": "replay-step" }, t("step", { i, n })),
        h("button", { "data-testid": "replay-next", disabled: i === n, onclick: () => { i = Math.min(n, i + 1); show(); } }, t("next")),
        h("button", { "data-testid": "replay-last", onclick: () => { i = n; show(); } }, t("last")),
        h("a", { class: "button", href: location.pathname + "#s=" + i, "data-testid": "share" }, t("share")),
        h("a", { class: "button", href: "/api/games/" + id + "/record", download: "clash-" + id + ".json" }, t("export"))),
      h("p", { class: "action", "data-testid": "replay-action" }, fr.action ? `${playerName(f, fr.seat)}: ${fr.action}` : "—"),
      result,
      h("div", { class: "layout" }, h("section", { class: "board-wrap" }, board),
        h("aside", { class: "side" }, logPanel()))));
    focusableScrolling(document.getElementById("app"));
    const log = document.getElementById("log");
    if (log) log.scrollTop = log.scrollHeight;
  };
  show();
}
