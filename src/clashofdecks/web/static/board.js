// The board: card faces, hands, fortress tracks, realms; keyboard shortcuts.
"use strict";

// ------------------------------------------------------------------ the board

// Positions write a creature as its id, or as an object with only the fields that differ from these.
const CREATURE_DEFAULTS = { damage: 0, new: false, protected: false, activated: false, sprint_bonus: 0 };
function creatureOf(c) { return Object.assign({}, CREATURE_DEFAULTS, typeof c === "string" ? { card: c } : c); }

// Card names on the board: a long name may take two lines, broken at a syllable with a hyphen (soft
// hyphens, shown only where the line breaks) instead of being cut ("Abo-mination", "Mi-croctopus").
// The break points follow the common English rules (vowel | consonant vowel; between two consonants,
// but before a pair that starts a syllable: "cr", "bl"; never inside "ch", "th"), at least two letters
// from the start and three from the end; no hyphenation dictionary is needed, so it works offline.
const VOWEL = /[aeiouy]/i;
const ONSET = new Set(["bl", "br", "ch", "cl", "cr", "dr", "fl", "fr", "gh", "gl", "gr", "ph", "pl", "pr",
  "qu", "sh", "th", "tr", "wh"]);
function syllableBreaks(name) {
  const v = (i) => i >= 0 && i < name.length && VOWEL.test(name[i]);
  const onset = (i) => ONSET.has(name.slice(i, i + 2).toLowerCase());
  const out = [];
  for (let i = 2; i <= name.length - 3; i++) {
    if (v(i - 1) && !v(i) && v(i + 1)) out.push(i);  // V | CV
    else if (v(i - 1) && !v(i) && !v(i + 1) && onset(i) && v(i + 2)) out.push(i);  // V | CrV
    else if (v(i - 2) && !v(i - 1) && !v(i) && v(i + 1) && !onset(i - 1)) out.push(i);  // VC | CV
  }
  return out;
}
function nameLabel(name) {
  const breaks = name.length > 7 ? syllableBreaks(name) : [];
  let text = "", last = 0;
  for (const i of breaks) { text += name.slice(last, i) + "\u00ad"; last = i; }
  text += name.slice(last);
  // Longer names get a slightly smaller font so that two lines always hold them.
  const size = name.length > 10 ? " long" : name.length > 8 ? " longish" : "";
  return h("span", { class: "name" + size, lang: "en", "data-name": name }, text);
}

function cardFace(id, opts) {
  return explained(cardFaceOnly(id, opts), id, opts || {});
}

// Every face is a focusable button named like "Carapace, 3 Mana, 0/4, Protection" that opens its help.
function explained(el, id, opts) {
  el.setAttribute("role", "button");
  el.tabIndex = 0;
  el.setAttribute("aria-label", cardLabel(id, opts));
  el.cardHelp = { id, creature: opts.creature, abilities: opts.abilities, granted: opts.granted };
  el.addEventListener("keydown", (e) => {
    if ((e.key === "Enter" || e.key === " ") && !el.hasAttribute("data-select") && !el.hasAttribute("data-drop") && !el.hasAttribute("data-build-card")) {
      e.preventDefault(); showCardHelp(el.cardHelp);
    }
  });
  return el;
}

function cardFaceOnly(id, opts) {
  opts = opts || {};
  if (id === "?") return h("div", { class: "card back" + (opts.small ? " small" : ""), "data-card": "?", title: "R9.2" }, "?");
  if (id === "BASTION" || id === "FORT") {
    return h("div", { class: "card fortress" + (opts.small ? " small" : ""), "data-card": id, title: t("fortress") }, nameLabel(cardName(id)));
  }
  const c = card(id);
  const abilities = opts.abilities || c.abilities;
  const granted = opts.granted || [];
  const tips = [`${c.name} (${t(c.kind)}) · ${t("cost")} ${c.cost}`];
  for (const a of abilities) tips.push(`${abilityName(a)}${granted.includes(a) ? " (" + t("granted") + ")" : ""}: ${abilityHelp(a)}`);
  if (c.aura.length) tips.push(`${abilityName("aura")}: ${c.aura.map(abilityName).join(", ")} — ${abilityHelp("aura")}`);
  const cr = opts.creature;
  const health = cr ? c.health - cr.damage : c.health;
  const stats = c.kind === "creature"
    ? h("span", { class: "stats" }, h("span", { class: "atk", title: t("attack") }, c.attack + (cr && cr.sprint_bonus ? "+" + cr.sprint_bonus : "")), "/",
      h("span", { class: "hp" + (cr && cr.damage ? " hurt" : ""), title: t("health") }, health), cr && cr.damage ? h("span", { class: "dmg", title: t("damage") }, " (−" + cr.damage + ")") : null)
    : h("span", { class: "stats" }, h("span", { class: "atk", title: t("damage") }, "✦" + c.attack));
  const icons = h("span", { class: "icons" },
    abilities.map((a) => { const i = icon(a); if (granted.includes(a)) i.classList.add("granted"); return i; }),
    c.aura.length ? icon("aura") : null);
  const cls = ["card", c.kind];
  if (opts.small) cls.push("small");
  if (cr && cr.new) cls.push("new");
  if (cr && cr.activated) cls.push("activated");
  if (cr && cr.protected) cls.push("protection-used");
  if (opts.playable) cls.push("playable");
  return h("div", { class: cls.join(" "), "data-card": id, title: tips.join("\n") },
    h("span", { class: "cost", title: t("cost") }, c.cost), nameLabel(c.name), icons, stats);
}

function handRow(hand, opts) {
  const playable = new Set(opts.playable || []);
  let seenPlayable = 0;
  return h("div", { class: "hand", "data-testid": opts.testid }, hand.map((id, i) => {
    const isPlayable = playable.has(id) && seenPlayable < 4;
    if (isPlayable) seenPlayable++;
    const el = cardFace(id, { playable: isPlayable && opts.mine });
    if (opts.mine && opts.actions && opts.actions.has(id)) {
      el.classList.add("choosable");
      el.tabIndex = 0;
      el.setAttribute("data-select", id);
      el.setAttribute("aria-pressed", state.selected === id ? "true" : "false");
      if (state.selected === id) el.classList.add("selected");
      const choose = () => { state.selected = state.selected === id ? null : id; render(); };
      el.addEventListener("click", choose);
      el.addEventListener("keydown", (e) => { if (e.key === "Enter" || e.key === " ") { e.preventDefault(); choose(); } });
    }
    return el;
  }));
}

function fortressTrack(hand, label, p) {
  // The hand is the life track: the fortress moves right as damage comes in; rightmost = lost (R4.3).
  const fi = hand.findIndex((c) => c === "BASTION" || c === "FORT");
  const left = hand.length - 1 - fi;
  return h("div", { class: "track", "data-track": p, title: label + ": " + t("places_left", { n: left }) },
    hand.map((c, i) => h("span", { class: "pip" + (i === fi ? " fort" : i > fi ? " after" : "") })),
    h("span", { class: "track-label" }, `${cardName(hand[fi])} · ${t("places_left", { n: left })}`));
}

function realm(view, p, f, me) {
  const pl = view.players[p];
  const name = playerName(f, p);
  if (pl.automaton) {
    const deck = pl.deck;
    return h("div", { class: "realm automaton", "data-realm": p }, h("h3", {}, name),
      h("div", { class: "row" },
        h("div", { class: "pile", "data-testid": "automaton-deck", "data-track": p }, t("automaton_deck", { n: deck.length - 1 }), " · ", cardName(deck[deck.length - 1])),
        h("div", { class: "pile" }, t("discard") + ": ", pl.discard.length ? pl.discard.map((id) => cardFace(id, { small: true })) : t("none"))));
  }
  const mine = f.seats && f.seats.includes(p) && f.seat === p;
  const actions = new Set();
  if (mine) for (const a of f.legal) { const m = a.match(/^(play|cast) (\S+)/); if (m) actions.add(m[2]); }
  return h("div", { class: "realm" + (mine ? " mine" : ""), "data-realm": p },
    h("h3", {}, name, " · ", t("hand")),
    fortressTrack(pl.hand, t("fortress"), p),
    handRow(pl.hand, { mine, playable: mine && f.phase !== "over" ? f.playable : [], actions, testid: mine ? "my-hand" : "opponent-hand" }));
}

function boardView(view, me, f) {
  const opp = 1 - me;
  const sel = state.selected;
  const targets = new Map();  // "p.lane.n" or "lane" -> action
  if (sel) for (const a of f.legal || []) {
    let m = a.match(/^play (\S+) (top|bottom)$/);
    if (m && m[1] === sel) targets.set(m[2], a);
    m = a.match(/^cast (\S+) ([01]\.(?:top|bottom)\.\d+)$/);
    if (m && m[1] === sel) targets.set(m[2], a);
  }
  const lane = (ln) => {
    const name = ln === 0 ? "top" : "bottom";
    const side = (p, reverse) => {
      const list = view.players[p].lanes[name].map(creatureOf);
      const items = list.map((cr, i) => {
        const have = f.abilities ? f.abilities.have[p * 2 + ln][i] : undefined;
        const granted = f.abilities ? f.abilities.granted[p * 2 + ln][i] : [];
        const el = cardFace(cr.card, { creature: cr, abilities: have, granted });
        const key = `${p}.${name}.${i}`;
        el.setAttribute("data-target", key);
        el.setAttribute("data-owner", String(p));
        if (targets.has(key)) {
          el.classList.add("target");
          el.setAttribute("data-drop", key);
          el.setAttribute("aria-label", actionLabel(f, targets.get(key)) || t("cast_at", { card: cardName(sel), target: el.getAttribute("aria-label") }));
          const go = (e) => { e.stopPropagation(); act(targets.get(key)); };
          el.addEventListener("click", go);
          el.addEventListener("keydown", (e) => { if (e.key === "Enter" || e.key === " ") { e.preventDefault(); go(e); } });
        }
        return el;
      });
      if (reverse) items.reverse();
      return h("div", { class: "side-of-lane " + (p === me ? "mine" : "theirs") }, items);
    };
    const bridgeAttrs = { class: "bridge", "data-lane": name };
    const col = h("div", { class: "lane" + (targets.has(name) ? " target" : ""), "data-lane-column": name },
      h("div", { class: "lane-name" }, t(name)), side(opp, true), h("div", bridgeAttrs, t("bridge")), side(me, false));
    if (targets.has(name)) {
      // The lane is where the card goes: a click anywhere on it, or Enter when it has the focus.
      col.tabIndex = 0;
      col.setAttribute("data-drop", name);
      col.setAttribute("role", "group");
      col.setAttribute("aria-label", actionLabel(f, targets.get(name)) || t("play_into", { card: cardName(sel), lane: t(name) }));
      col.addEventListener("click", () => act(targets.get(name)));
      col.addEventListener("keydown", (e) => { if (e.target === col && (e.key === "Enter" || e.key === " ")) { e.preventDefault(); act(targets.get(name)); } });
    }
    return col;
  };
  const pending = view.pending ? orderChoices(f, view.pending) : null;
  return h("div", { class: "board", "data-testid": "board" },
    realm(view, opp, f, me),
    // Both lanes reserve the same height for the opponent's side, so the two bridges line up.
    h("div", { class: "lanes rows-" + Math.max(1, ...["top", "bottom"].map((ln) => view.players[opp].lanes[ln].length)) }, lane(0), lane(1)),
    sel ? h("p", { class: "choose" }, t("choose_target", { card: cardName(sel) }), " ", h("span", { class: "muted" }, cardLabel(sel)), " ",
      h("button", { onclick: () => { state.selected = null; render(); } }, t("cancel"))) : null,
    pending,
    realm(view, me, f, me));
}

// ------------------------------------------------------------------ keyboard

document.addEventListener("keydown", (e) => {
  if (e.target instanceof HTMLInputElement || e.target instanceof HTMLSelectElement || e.ctrlKey || e.metaKey || e.altKey) return;
  const f = state.frame;
  if (location.pathname.startsWith("/r/")) {
    if (e.key === "ArrowRight") document.querySelector('[data-testid="replay-next"]')?.click();
    if (e.key === "ArrowLeft") document.querySelector('[data-testid="replay-prev"]')?.click();
    return;
  }
  if (!f || !location.pathname.startsWith("/g/")) return;
  if (/^[1-9]$/.test(e.key) && f.legal[Number(e.key) - 1]) act(f.legal[Number(e.key) - 1]);
  else if (e.key === "e" && f.legal.includes("end")) act("end");
  else if (e.key === "n" && f.legal.includes("next")) act("next");
  else if (e.key === "u" && f.can_undo) send({ type: "undo", index: f.index });
  else if (e.key === "h") send({ type: "hint" });
  else if (e.key === "Escape") { hideCardHelp(); state.selected = null; state.order = null; render(); }
});
