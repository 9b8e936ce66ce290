// The game page: the socket, frames and their events, status, controls, move list, log, game over, setup.
"use strict";

// ------------------------------------------------------------------ game page

function closeSocket() {
  if (state.ws) { state.ws.onclose = null; state.ws.close(); state.ws = null; }
}

function gamePage(id) {
  closeSocket();
  // Seats belong to identities: the page opens the game with its session cookie, and a token from
  // an invite link is presented once, from memory, to take its seat (never stored).
  const frag = new URLSearchParams(location.hash.slice(1));
  state.tokens = (frag.get("t") || "").split(",").filter(Boolean);
  const ratedOffer = frag.get("rated") === "1" && state.tokens.length > 0;
  state.acceptRated = false;
  if (frag.get("t")) history.replaceState(null, "", location.pathname);  // a token never stays in the address bar
  // Tokens the former release kept in localStorage: presented once (a seat no one holds yet), then gone.
  const legacy = localStorage.getItem("clash.tokens." + id);
  if (legacy) { state.tokens = state.tokens.concat(legacy.split(",").filter(Boolean)); localStorage.removeItem("clash.tokens." + id); }
  state.gameId = id; state.watchReason = null;
  state.frame = null; state.log = []; state.selected = null; state.hint = null; state.notice = null;
  state.frames = []; state.animating = false; state.playing = false; state.overFolded = false;
  state.shownSeat = undefined; state.build = null; state.order = null; state.rematchOffer = null;
  if (ratedOffer) {
    // A duel offered as rated: it is rated only if the invitee chooses so too, before taking the seat.
    const choose = (yes) => { state.acceptRated = yes; mount(h("main", { class: "game", id: "game" }, h("p", {}, "…"))); connect(); };
    mount(h("main", { class: "game" }, h("section", { class: "panel", "data-testid": "rated-offer" },
      h("h2", {}, t("rated_offer")), h("p", {}, t("rated_offer_blurb")),
      h("div", { class: "row" },
        h("button", { class: "primary", "data-testid": "accept-rated", onclick: () => choose(true) }, t("play_rated")),
        h("button", { "data-testid": "decline-rated", onclick: () => choose(false) }, t("play_unrated"))))));
    return;
  }
  mount(h("main", { class: "game", id: "game" }, h("p", {}, "…")));
  connect();
}

function connect() {
  const proto = location.protocol === "https:" ? "wss:" : "ws:";
  const ws = new WebSocket(`${proto}//${location.host}/ws`);
  state.ws = ws;
  ws.onopen = () => { state.retry = 0; ws.send(JSON.stringify({ type: "hello", game: state.gameId, tokens: state.tokens, lang: state.lang, rated: state.acceptRated === true })); };
  ws.onmessage = (e) => onFrame(JSON.parse(e.data));
  ws.onclose = () => {
    state.notice = t("connection_lost"); render();
    state.retry = Math.min(state.retry + 1, 5);
    setTimeout(() => { if (state.ws === ws) connect(); }, 500 * state.retry);
  };
}

function send(msg) {
  if (state.ws && state.ws.readyState === WebSocket.OPEN) state.ws.send(JSON.stringify(msg));
}

function act(action) {
  if (state.playing) return;  // the board on screen is older than the game: no choices from it
  state.selected = null; state.order = null;
  send({ type: "act", action, index: state.frame.index });
}

// A seat token that was refused (the invite was used by someone else, or it is this identity's
// own invite): the page opens the game as a spectator and says why.
const REFUSED_SEAT = { seat_taken: "invite_used", own_game: "own_invite", bad_token: "invite_used", no_identity: "invite_used" };

function onFrame(f) {
  if (f.type === "error" && state.tokens.length && !state.frame && REFUSED_SEAT[f.code]) {
    state.tokens = []; state.watchReason = t(REFUSED_SEAT[f.code]);
    send({ type: "hello", game: state.gameId, tokens: [], lang: state.lang });
    return;
  }
  if (f.type === "state" && f.log) {
    state.tokens = [];  // taken (or held already): from now on the identity opens the seat
    const mine = f.seats || [];
    if (f.kind === "friend" && Array.isArray(f.open_seats) && !f.open_seats.some((s) => !mine.includes(s))) {
      localStorage.removeItem("clash.invite." + f.game);  // the friend has taken the seat: the link is spent
    }
  }
  if (f.type === "notice" && f.code === "joined" && state.frame && !f.seats.some((s) => state.frame.seats.includes(s))) {
    localStorage.removeItem("clash.invite." + state.frame.game);
  }
  if (f.type === "state") {
    f.receivedAt = performance.now();  // the clock's seconds are counted down from here
    state.frames.push(f);
    if (!state.animating) nextFrame();
  } else if (f.type === "error") {
    state.notice = t("error") + ": " + f.message; render();
  } else if (f.type === "hint") {
    state.hint = f;
    if (state.notice === t("hint_wait")) state.notice = null;  // answered: the waiting line goes
    render();
  } else if (f.type === "rematch") {
    history.pushState(null, "", "/g/" + f.game); route();
  } else if (f.type === "notice") {
    const names = state.frame ? state.frame.players.map((p) => p.name) : [];
    if (f.code === "rematch_offered") {
      const mine = state.frame ? state.frame.seats : [];
      const them = f.seats.filter((s) => !mine.includes(s));
      state.rematchOffer = them.length ? "offered" : "sent";
      state.notice = them.length ? t("rematch_offered", { name: names[them[0]] || "?" }) : t("rematch_sent");
    }
    if (f.code === "opponent_away") state.notice = t("opponent_away", { name: names[f.seat] || "?", s: Math.round(f.seconds) });
    if (f.code === "abandoned") state.notice = t("abandoned", { name: names[f.seat] || "?" });
    // The friend opened the invite: the link has done its job, so the invite bar goes (for good).
    const mine = state.frame ? state.frame.seats : [];
    if (f.code === "joined" && state.gameId && f.seats.some((s) => !mine.includes(s))) localStorage.removeItem("clash.invite." + state.gameId);
    if (f.code === "time_out") state.notice = t("time_out", { name: names[f.seat] || "?" });
    render();
  }
}

// Animation speed: "normal", "fast" (scripts and tests) or "off"; kept in localStorage.
function eventDelay(pending) {
  const speed = localStorage.getItem("clash.speed") || "normal";
  if (speed === "off") return 0;
  const base = speed === "fast" ? 40 : 420;
  return pending > 10 ? base / 3 : base;
}

// State frames are shown in order.  A frame's events play first on the board as it was (who hits
// whom, damage, destroyed, returned, fortress moved), then the new board is drawn.
function nextFrame() {
  const f = state.frames.shift();
  if (!f) { state.animating = false; return; }
  state.animating = true;
  const show = () => {
    state.playing = false;
    if (f.log) state.log = f.log.slice(-400);
    state.frame = f;
    state.notice = null;
    // A selection stays only while the selected card still has a legal play.
    if (state.selected && !(f.legal || []).some((a) => a.split(" ")[1] === state.selected)) state.selected = null;
    if (f.index !== (state.hint && state.hint.index)) state.hint = null;
    render();
    nextFrame();
  };
  const events = f.log ? [] : (f.events || []);
  const board = document.querySelector("#game [data-testid=board]");
  if (!events.length || !board || eventDelay(0) === 0) {
    state.log.push(...events);
    show();
    return;
  }
  // No stale choices while the events play: the move list and clickable cards go away.
  state.playing = true;
  document.querySelectorAll("#game [data-select], #game .target").forEach((el) => el.classList.remove("choosable", "target"));
  document.querySelectorAll("#game [data-select]").forEach((el) => el.removeAttribute("data-select"));
  const moves = document.querySelector("#game [data-testid=moves]");
  if (moves) moves.replaceChildren(h("p", { class: "muted" }, "…"));
  document.querySelectorAll("#game [data-action], #game .phase").forEach((el) => el.remove());
  document.querySelectorAll("#game [data-drop]").forEach((el) => el.removeAttribute("data-drop"));
  const queue = events.slice();
  const step = () => {
    const e = queue.shift();
    if (!e) { show(); return; }
    state.log.push(e);
    playEvent(e);
    setTimeout(step, eventDelay(queue.length));
  };
  step();
}

function boardCard(owner, id) {
  if (owner === undefined || !id) return null;
  return document.querySelector(`#game .lanes [data-owner="${owner}"][data-card="${id}"]`)
    || document.querySelector(`#game [data-realm="${owner}"] [data-card="${id}"]`);
}

function mark(el, cls, badge) {
  if (!el) return;
  el.classList.remove(cls); void el.offsetWidth; el.classList.add(cls);
  if (badge) el.append(h("span", { class: "badge" }, badge));
}

function playEvent(e) {
  renderLog();
  const ticker = document.getElementById("ticker");
  if (ticker) {
    ticker.replaceChildren(e.rule ? h("span", { class: "rule" }, e.rule) : "", " ", eventText(e));
    ticker.className = "ticker kind-" + e.kind;
  }
  const me = boardCard(e.player, e.card);
  switch (e.kind) {
    case "attacked":
      mark(me, "ev-attacking");
      if (e.target_card) mark(boardCard(e.target_player, e.target_card), "ev-attacked");
      else mark(document.querySelector(`#game [data-realm="${e.target_player}"]`), "ev-attacked");
      break;
    case "cast":
      mark(me, "ev-attacking");
      mark(boardCard(e.target_player, e.target_card), "ev-attacked");
      break;
    case "damaged": mark(me, "ev-damaged", "−" + e.amount); break;
    case "absorbed": mark(me, "ev-absorbed"); break;
    case "destroyed": case "returned": case "discarded": mark(me, "ev-destroyed"); break;
    case "fortress_moved": mark(document.querySelector(`#game [data-track="${e.player}"]`), "ev-fort", "+" + e.amount); break;
    case "bastion_fell": mark(document.querySelector(`#game [data-track="${e.player}"]`), "ev-fort"); break;
    default: mark(me, "flash");
  }
}

function playerName(f, seat) {
  const p = f.players[seat];
  if (!p) return "?";
  if (p.kind === "automaton") return t("automaton");
  return p.name || t("default_player", { n: seat + 1 });
}

function render() {
  const root = document.getElementById("game");
  if (!root || state.playing) return;
  const f = state.frame;
  if (!f) { root.replaceChildren(h("p", { class: "notice" }, state.notice || "…")); return; }
  const me = f.seat === null ? 0 : f.seat;
  root.dataset.index = String(f.index);
  root.dataset.toMove = String(f.to_move);
  root.dataset.seat = f.seat === null ? "" : String(f.seat);
  const children = [statusBar(f, me)];
  const invite = localStorage.getItem("clash.invite." + f.game);
  if (invite && f.kind === "friend" && f.phase !== "over") {
    children.push(h("div", { class: "invite" }, t("invite"), " ",
      h("input", { readonly: true, value: invite, "data-testid": "invite-link", "aria-label": t("invite"), size: "50", onclick: (e) => e.target.select() }),
      h("button", { onclick: () => navigator.clipboard && navigator.clipboard.writeText(invite) }, t("copy"))));
  }
  if (f.seat === null) children.push(h("p", { class: "notice", "data-testid": "spectator" }, state.watchReason || t("spectating")));
  if (state.notice) children.push(h("p", { class: "notice", role: "status", "data-testid": "notice" }, state.notice));
  // Hot-seat: the next player's hand stays covered until the device has changed hands.
  if (f.kind === "hotseat" && f.phase !== "over" && f.seats.length === 2 && f.seat !== state.shownSeat) {
    const name = playerName(f, f.seat);
    children.push(h("div", { class: "panel handover" }, h("p", { class: "big" }, t("pass_device", { name })),
      h("button", { class: "primary", "data-testid": "handover", onclick: () => { state.shownSeat = f.seat; render(); } }, t("i_am", { name }))));
    root.replaceChildren(...children);
    return;
  }
  const board = f.setup ? setupBoard(f, me) : boardView(f.view, me, f);
  const side = h("aside", { class: "side" }, controls(f), moveList(f), h("div", { class: "ticker", id: "ticker" }), logPanel());
  // The game-over box comes before the board: on a phone it sits in the page's flow (it never
  // covers the board), on a desktop it floats in a corner and folds.
  if (f.result) children.push(gameOver(f, me));
  children.push(h("div", { class: "layout" }, h("section", { class: "board-wrap" }, board), side));
  const focusKey = focusKeyOf(document.activeElement, root);
  root.replaceChildren(...children);
  restoreFocus(root, focusKey);
  focusableScrolling(root);
  const log = document.getElementById("log");
  if (log) log.scrollTop = log.scrollHeight;
}

// A redraw replaces the board; a keyboard player keeps their place: the same element again, or the
// first thing to act on when that one is gone.
const FOCUS_ATTRS = ["data-drop", "data-select", "data-testid", "data-target", "data-action"];
function focusKeyOf(el, root) {
  if (!el || el === document.body || !root.contains(el)) return null;
  for (const a of FOCUS_ATTRS) if (el.hasAttribute(a)) return [a, el.getAttribute(a)];
  return ["", ""];
}
function restoreFocus(root, key) {
  if (!key) return;
  let el = key[0] ? [...root.querySelectorAll(`[${key[0]}]`)].find((e) => e.getAttribute(key[0]) === key[1]) : null;
  // Moving the focus elsewhere (and scrolling to it) helps a keyboard player, not a mouse or a finger.
  if (!el && state.keyboardUser) el = root.querySelector("[data-drop], [data-select], [data-testid=next], [data-testid=end]");
  if (el) el.focus({ preventScroll: !state.keyboardUser });
}

function statusBar(f, me) {
  const items = [];
  items.push(h("span", {}, t("turn") + " " + f.turn));
  items.push(h("span", {}, t("phase") + ": " + t(f.phase)));
  if (f.view) items.push(h("span", { "data-testid": "mana" }, t("mana") + ": " + f.view.mana));
  let who;
  if (f.to_move < 0) who = t("over");
  else if (f.seats.includes(f.to_move)) who = t("your_turn");
  else if (f.thinking) who = t("thinking", { name: playerName(f, f.to_move) });
  else who = t("waiting", { name: playerName(f, f.to_move) });
  items.push(h("strong", { "data-testid": "to-move" }, who));
  if (f.seat === null) items.push(h("em", {}, t("spectating")));
  else items.push(h("span", {}, t("you_are", { name: playerName(f, me) })));
  // The status stays on screen while the page scrolls (phones): whose turn, mana, the prompt and
  // the phase buttons.
  const prompt = promptText(f);
  return h("div", { class: "status" },
    h("div", { class: "status-facts", role: "status" }, items),
    f.clock ? clockBar(f) : null,
    prompt || f.legal.length ? h("div", { class: "status-do" },
      h("span", { class: "prompt", "data-testid": "prompt" }, prompt), gamePhaseButtons(f)) : null);
}

// ------------------------------------------------------------------ clocks

// The server keeps the clocks and decides a loss on time; the page only shows each player's time as
// the last frame gave it, counting the running one down from when that frame arrived.
function clockLeft(f, seat) {
  const left = f.clock.left[seat];
  if (f.clock.running !== seat || f.phase === "over") return left;
  return Math.max(0, left - (performance.now() - f.receivedAt) / 1000);
}

function clockText(seconds, kind) {
  const s = Math.ceil(seconds);
  if (kind === "correspondence" && s >= 3600) {
    const d = Math.floor(s / 86400), hr = Math.floor((s % 86400) / 3600), min = Math.floor((s % 3600) / 60);
    return d > 0 ? t("dur_days", { d, h: hr }) : t("dur_hours", { h: hr, m: min });
  }
  const min = Math.floor(s / 60), sec = s % 60;
  return `${min}:${String(sec).padStart(2, "0")}`;
}

function clockBar(f) {
  const seats = [0, 1].map((seat) => {
    const running = f.clock.running === seat;
    return h("span", { class: "clock" + (running ? " running" : ""), "data-testid": "clock-" + seat, "data-running": running ? "true" : "false" },
      h("span", { class: "clock-name" }, (running ? "▶ " : "") + playerName(f, seat) + ":"), " ",
      h("span", { class: "clock-time", "data-clock-seat": String(seat) }, clockText(clockLeft(f, seat), f.clock.kind)));
  });
  if (!state.clockTimer) state.clockTimer = setInterval(tickClocks, 250);
  return h("div", { class: "clocks", "data-testid": "clocks", "data-control": f.clock.control },
    h("span", { class: "muted" }, t("tc_" + f.clock.control.replace("+", "_"))), ...seats);
}

function tickClocks() {
  const f = state.frame;
  const els = document.querySelectorAll("[data-clock-seat]");
  if (!f || !f.clock || !els.length) { clearInterval(state.clockTimer); state.clockTimer = null; return; }
  for (const el of els) {
    const seat = Number(el.dataset.clockSeat);
    const text = clockText(clockLeft(f, seat), f.clock.kind);
    if (el.textContent !== text) el.textContent = text;
  }
}

// The hint's number in the player's language: a chance as a percentage, calibrated or not (the
// server's label says which); any other label is shown as the server sent it.
function chanceWords(hint) {
  const key = { "win chance": "chance_calibrated", "estimated win chance": "chance_estimated" }[hint.label];
  return key ? t(key, { p: Math.round(hint.score * 100) }) : hint.label + " " + hint.score.toFixed(2);
}

function controls(f) {
  const mine = f.seat !== null && f.phase !== "over";
  const row = h("div", { class: "controls" });
  if (mine) {
    row.append(h("button", { "data-testid": "undo", disabled: !f.can_undo, title: "u", onclick: () => send({ type: "undo", index: f.index }) }, t("undo")));
    row.append(h("button", { "data-testid": "hint", disabled: !f.seats.includes(f.to_move) || !!f.setup, title: "h",
      onclick: () => { state.notice = t("hint_wait"); render(); send({ type: "hint" }); } }, t("hint")));
    row.append(h("button", { "data-testid": "resign", onclick: () => { if (confirm(t("confirm_resign"))) send({ type: "resign" }); } }, t("resign")));
  }
  if (state.hint) {
    row.append(h("p", { class: "hint", "data-testid": "hint-result" },
      t("hint_result", { action: state.hint.sentence || state.hint.action, chance: chanceWords(state.hint) })));
    // Only a calibrated chance ("win chance") is drawn as a bar; an estimate stays a labelled number.
    if (state.hint.label === "win chance") {
      row.append(h("meter", { min: "0", max: "1", value: String(state.hint.score), "data-testid": "win-chance",
        title: Math.round(state.hint.score * 100) + "%" }));
    }
  }
  return row;
}

// The notation (play BRUTE top) is shown next to each choice only when the player asks for it.
function showNotation() { return localStorage.getItem("clash.notation") === "on"; }

// Each choice reads as the server's sentence in the page's language (f.labels, parallel to f.legal);
// the notation stays in data-action, the text sent back.
function moveList(f) {
  if (!f.legal.length) return h("div", { class: "empty" });
  const labels = f.labels || [];
  const notation = showNotation();
  const toggle = h("label", { class: "notation-toggle" },
    h("input", { type: "checkbox", "data-testid": "notation-toggle", checked: notation,
      onchange: (e) => { localStorage.setItem("clash.notation", e.target.checked ? "on" : "off"); render(); } }),
    " ", t("notation"));
  return h("div", { class: "moves", "data-testid": "moves" }, h("h3", {}, t("moves")), toggle,
    h("ol", {}, f.legal.map((a, i) => h("li", {}, h("button", { "data-action": a, title: i < 9 ? String(i + 1) : null,
      class: state.hint && state.hint.action === a ? "hinted" : null, onclick: () => act(a) },
      labels[i] || a, notation ? h("code", { class: "notation", "data-testid": "notation" }, a) : null)))));
}

// The server writes event sentences in the page's language; undo and resignation are said here.
function eventText(e) {
  if (e.kind === "undo") return t("undone", { actions: (e.labels || e.actions || []).join("; ") });
  if (e.kind === "resigned") return t("end_resigned", { loser: state.frame ? playerName(state.frame, e.player) : "?" });
  if (e.kind === "time") return t("end_time", { loser: state.frame ? playerName(state.frame, e.player) : "?" });
  return e.text;
}

function renderLog() {
  const el = document.getElementById("log");
  if (!el) return;
  el.replaceChildren(...logItems());
  el.scrollTop = el.scrollHeight;
}
function logItems() {
  return state.log.slice(-200).map((e) => h("li", { class: "log-" + e.kind }, e.rule ? h("span", { class: "rule" }, e.rule) : null, " ", eventText(e)));
}
function logPanel() {
  if (state.logOpen === undefined) state.logOpen = window.innerWidth > 760;
  return h("details", { class: "log", open: state.logOpen, ontoggle: (e) => { state.logOpen = e.target.open; } },
    h("summary", {}, t("log")),
    h("ol", { id: "log", "data-testid": "log", "aria-live": "polite" }, logItems()));
}

function gameOver(f, me) {
  const w = f.result.winner;
  const text = w === null ? t("draw") : t("winner_is", { name: playerName(f, w) });
  return h("div", { class: "game-over" + (state.overFolded ? " folded" : ""), "data-testid": "game-over", "data-winner": w === null ? "draw" : String(w), role: "dialog", "aria-label": t("game_over") },
    h("button", { class: "fold", "aria-label": t("fold"), title: t("fold"), onclick: () => { state.overFolded = !state.overFolded; render(); } }, state.overFolded ? "▴" : "▾"),
    h("h2", {}, t("game_over")), h("p", { class: "big" }, text), h("p", { "data-testid": "reason" }, reasonText(f)),
    h("div", { class: "row" },
      h("a", { class: "button", href: "/r/" + f.game, "data-testid": "open-replay" }, t("replay")),
      h("a", { class: "button", href: "/api/games/" + f.game + "/record", download: "clash-" + f.game + ".json", "data-testid": "export" }, t("export")),
      f.mode === "duel" && f.seat !== null && ["friend", "ai", "hotseat"].includes(f.kind)
        ? h("button", { class: state.rematchOffer === "offered" ? "primary" : null, "data-testid": "rematch",
          disabled: state.rematchOffer === "sent", onclick: () => send({ type: "rematch" }) }, t(state.rematchOffer === "offered" ? "rematch_accept" : "rematch")) : null,
      h("a", { class: "button", href: "/" }, t("back_lobby"))),
    f.rated ? h("p", { class: "muted", "data-testid": "rated-note" }, t("rated_game"), " ",
      h("a", { href: "/leaderboard" }, t("leaderboard"))) : null,
    // The abort rule (docs/web.md, "Fair play in rated games"): the server's reason, as it says it.
    f.result && f.result.aborted ? h("p", { class: "muted", "data-testid": "aborted-note" }, f.result.abort_reason) : null);
}

// Why the game ended, in the page's language, with names instead of seat numbers.
function reasonText(f) {
  const r = f.result;
  const loser = r.winner === null ? null : 1 - r.winner;
  const key = "end_" + r.termination;
  if (!hasWord(key)) return r.reason;
  return t(key, { winner: r.winner === null ? "" : playerName(f, r.winner), loser: loser === null ? "" : playerName(f, loser) });
}

// ------------------------------------------------------------------ setup

function setupBoard(f, me) {
  const s = f.setup;
  const picks = legalByVerb(f, "pick");
  const bans = legalByVerb(f, "ban");
  const revealed = h("div", { class: "hand revealed" }, s.revealed.map((id) => {
    const el = cardFace(id, {});
    if (picks.has(id)) choosable(el, id, () => act(picks.get(id)[0]));
    return el;
  }));
  // A ban (R2.5) removes a card of the other player's deck: a click on it there.
  const banSeat = 1 - f.to_move;
  const cardsOf = s.cards.map((ids, seat) => h("div", { class: "setup-cards" },
    h("h3", {}, t("cards_of", { name: playerName(f, seat) })),
    h("div", { class: "hand small" }, ids.map((id) => {
      const el = cardFace(id, { small: true });
      if (seat === banSeat && bans.has(id)) { choosable(el, id, () => act(bans.get(id)[0])); el.classList.add("bannable"); }
      return el;
    }))));
  return h("div", { class: "board setup" },
    f.build ? buildPicker() : null,
    deckChoices(f),
    s.revealed.length ? h("h3", {}, t("revealed")) : null, revealed,
    s.face_down ? h("p", { class: "muted" }, t("face_down", { n: s.face_down })) : null,
    s.decks_taken.length ? h("p", {}, t("decks_taken") + ": " + s.decks_taken.join(", ")) : null,
    cardsOf);
}

// Custom format (R2.5): choose ten of the 32 cards; the button carries the build action's text.
function buildPicker() {
  const chosen = state.build || (state.build = new Set());
  const ids = Object.keys(state.cards.cards).sort();
  const action = chosen.size === 10 ? "build " + [...chosen].sort().join(" ") : null;
  return h("div", { class: "build", "data-testid": "build" },
    h("h3", {}, t("build_deck", { n: chosen.size })),
    h("div", { class: "hand" }, ids.map((id) => {
      const el = cardFace(id, { small: true });
      el.classList.add("choosable");
      if (chosen.has(id)) el.classList.add("selected");
      el.setAttribute("data-build-card", id);
      el.setAttribute("data-select", id);
      el.setAttribute("aria-pressed", chosen.has(id) ? "true" : "false");
      const toggle = () => { if (chosen.has(id)) chosen.delete(id); else if (chosen.size < 10) chosen.add(id); render(); };
      el.addEventListener("click", toggle);
      el.addEventListener("keydown", (e) => { if (e.key === "Enter" || e.key === " ") { e.preventDefault(); toggle(); } });
      return el;
    })),
    h("button", { class: "primary", "data-action": action, "data-drop": action ? "build" : null, disabled: !action,
      onclick: () => { if (action) { state.build = null; act(action); } } }, t("build_go")));
}
