// The board: card faces, hands, fortress tracks, realms, the lanes and their targets, the return order.
import { card, cardLabel, cardName, cardTips, creatureOf, hyphenated, isFortress } from "./cards.js";
import { showCardHelp } from "./cardhelp.js";
import { choosable } from "./direct.js";
import { h, icon, onEnter } from "./dom.js";
import { actionLabel, handActions, ordersFitting, playerName, targetsOf } from "./frame.js";
import { botBadge, redraw } from "./page.js";
import { act } from "./socket.js";
import { state } from "./store.js";
import { t } from "./words.js";

// A card's name, broken at its syllables (cards.js's hyphenated) when long.
function nameLabel(name) {
  const { text, size } = hyphenated(name);
  return h("span", { class: "name" + size, lang: "en", "data-name": name }, text);
}

export function cardFace(id, opts) {
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

function cardStats(c, cr) {
  if (c.kind !== "creature") return h("span", { class: "stats" }, h("span", { class: "atk", title: t("damage") }, "✦" + c.attack));
  const health = cr ? c.health - cr.damage : c.health;
  return h("span", { class: "stats" }, h("span", { class: "atk", title: t("attack") }, c.attack + (cr && cr.sprint_bonus ? "+" + cr.sprint_bonus : "")), "/",
    h("span", { class: "hp" + (cr && cr.damage ? " hurt" : ""), title: t("health") }, health), cr && cr.damage ? h("span", { class: "dmg", title: t("damage") }, " (−" + cr.damage + ")") : null);
}

function cardFaceOnly(id, opts) {
  opts = opts || {};
  if (id === "?") return h("div", { class: "card back" + (opts.small ? " small" : ""), "data-card": "?", title: "R9.2" }, "?");
  if (isFortress(id)) {
    return h("div", { class: "card fortress" + (opts.small ? " small" : ""), "data-card": id, title: t("fortress") }, nameLabel(cardName(id)));
  }
  const c = card(id);
  const abilities = opts.abilities || c.abilities;
  const granted = opts.granted || [];
  const cr = opts.creature;
  const icons = h("span", { class: "icons" },
    abilities.map((a) => { const i = icon(a); if (granted.includes(a)) i.classList.add("granted"); return i; }),
    c.aura.length ? icon("aura") : null);
  const cls = ["card", c.kind];
  if (opts.small) cls.push("small");
  if (cr && cr.new) cls.push("new");
  if (cr && cr.activated) cls.push("activated");
  if (cr && cr.protected) cls.push("protection-used");
  if (opts.playable) cls.push("playable");
  return h("div", { class: cls.join(" "), "data-card": id, title: cardTips(c, abilities, granted).join("\n") },
    h("span", { class: "cost", title: t("cost") }, c.cost), nameLabel(c.name), icons, cardStats(c, cr));
}

function handRow(hand, opts) {
  const playable = new Set(opts.playable || []);
  let seenPlayable = 0;
  return h("div", { class: "hand", "data-testid": opts.testid }, hand.map((id) => {
    const isPlayable = playable.has(id) && seenPlayable < 4;
    if (isPlayable) seenPlayable++;
    const targetless = isPlayable && opts.mine && opts.targetless && opts.targetless(id);
    const el = cardFace(id, { playable: isPlayable && opts.mine && !targetless });
    if (targetless) whyNot(el, id, opts.targetless(id));
    if (opts.mine && opts.actions && opts.actions.has(id)) {
      el.classList.add("choosable");
      el.tabIndex = 0;
      el.setAttribute("data-select", id);
      el.setAttribute("aria-pressed", state.selected === id ? "true" : "false");
      if (state.selected === id) el.classList.add("selected");
      const choose = () => { state.selected = state.selected === id ? null : id; redraw(); };
      el.addEventListener("click", choose);
      onEnter(el, () => choose());
    }
    return el;
  }));
}

function fortressTrack(hand, label, p) {
  // The hand is the life track: the fortress moves right as damage comes in; rightmost = lost (R4.3).
  const fi = hand.findIndex((c) => isFortress(c));
  const left = hand.length - 1 - fi;
  return h("div", { class: "track", "data-track": p, title: label + ": " + t("places_left", { n: left }) },
    hand.map((c, i) => h("span", { class: "pip" + (i === fi ? " fort" : i > fi ? " after" : "") })),
    h("span", { class: "track-label" }, `${cardName(hand[fi])} · ${t("places_left", { n: left })}`));
}

function automatonRealm(pl, p, name) {
  const deck = pl.deck;
  return h("div", { class: "realm automaton", "data-realm": p }, h("h3", {}, name),
    h("div", { class: "row" },
      h("div", { class: "pile", "data-testid": "automaton-deck", "data-track": p }, t("automaton_deck", { n: deck.length - 1 }), " · ", cardName(deck[deck.length - 1])),
      discardPile(pl.discard)));
}

// The automaton's discard pile in one row that scrolls sideways: however long it
// grows, it never pushes the lanes off a phone's screen.
function discardPile(ids) {
  if (!ids.length) return h("div", { class: "pile", "data-testid": "automaton-discard" }, t("discard") + ": ", t("none"));
  return h("div", { class: "pile discard", "data-testid": "automaton-discard" }, t("discard") + " (" + ids.length + "): ",
    h("div", { class: "discard-cards", tabindex: "0", role: "group", "aria-label": t("discard") },
      ids.map((id) => cardFace(id, { small: true }))));
}

function realm(view, p, f) {
  const pl = view.players[p];
  const name = playerName(f, p);
  if (pl.automaton) return automatonRealm(pl, p, name);
  const mine = f.seats && f.seats.includes(p) && f.seat === p;
  const actions = mine ? handActions(f) : new Set();
  return h("div", { class: "realm" + (mine ? " mine" : ""), "data-realm": p },
    h("h3", {}, name, botBadge(f.players[p] && f.players[p].bot), " · ", t("hand")),
    fortressTrack(pl.hand, t("fortress"), p),
    handRow(pl.hand, { mine, playable: mine && f.phase !== "over" ? f.playable : [], actions, testid: mine ? "my-hand" : "opponent-hand",
      targetless: (id) => targetlessReason(view, f, pl, id, actions) }));
}

// Why an incantation among the playable cards cannot be cast (R5: it needs a creature to hit), or
// null: no creature in play at all, or none it may hit now (it is this player's decision, the mana
// is there, and still no cast is legal: every creature is out of its reach, as Protection is).
function targetlessReason(view, f, pl, id, actions) {
  const c = card(id);
  if (!c || c.kind !== "incantation" || actions.has(id)) return null;
  const anyCreature = view.players.some((p) => p.lanes && (p.lanes.top.length || p.lanes.bottom.length));
  if (!anyCreature) return "no_creature";
  const deciding = f.seats && f.seats.includes(f.to_move) && ["summon", "combat"].includes(f.phase);
  return deciding && view.mana >= c.cost ? "no_target" : null;
}

// A playable card that cannot be played now: a tap says why, right under the hand (on a phone the
// top of the page is out of sight).
function whyNot(el, id, reason) {
  el.setAttribute("data-why", reason);
  el.tabIndex = 0;
  el.setAttribute("role", "button");
  const say = () => {
    document.querySelectorAll("[data-testid=why-not]").forEach((e) => e.remove());
    const line = h("p", { class: "notice", role: "status", "data-testid": "why-not" }, t("why_" + reason, { card: cardName(id) }));
    el.closest(".hand").after(line);
  };
  el.addEventListener("click", say);
  onEnter(el, () => say());
}

// One player's side of a lane: their creatures, each a target when the selected card may go there.
function laneSide(view, f, targets, p, ln, me) {
  const name = ln === 0 ? "top" : "bottom";
  const items = view.players[p].lanes[name].map(creatureOf).map((cr, i) => {
    const have = f.abilities ? f.abilities.have[p * 2 + ln][i] : undefined;
    const granted = f.abilities ? f.abilities.granted[p * 2 + ln][i] : [];
    const el = cardFace(cr.card, { creature: cr, abilities: have, granted });
    const key = `${p}.${name}.${i}`;
    el.setAttribute("data-target", key);
    el.setAttribute("data-owner", String(p));
    if (targets.has(key)) {
      el.classList.add("target");
      el.setAttribute("data-drop", key);
      el.setAttribute("aria-label", actionLabel(f, targets.get(key)) || t("cast_at", { card: cardName(state.selected), target: el.getAttribute("aria-label") }));
      const go = (e) => { e.stopPropagation(); act(targets.get(key)); };
      el.addEventListener("click", go);
      onEnter(el, go);
    }
    return el;
  });
  if (p !== me) items.reverse();
  return h("div", { class: "side-of-lane " + (p === me ? "mine" : "theirs") }, items);
}

function lane(view, f, targets, ln, me) {
  const name = ln === 0 ? "top" : "bottom";
  const col = h("div", { class: "lane" + (targets.has(name) ? " target" : ""), "data-lane-column": name },
    h("div", { class: "lane-name" }, t(name)), laneSide(view, f, targets, 1 - me, ln, me),
    h("div", { class: "bridge", "data-lane": name }, t("bridge")), laneSide(view, f, targets, me, ln, me));
  if (targets.has(name)) {
    // The lane is where the card goes: a click anywhere on it, or Enter when it has the focus.
    col.tabIndex = 0;
    col.setAttribute("data-drop", name);
    col.setAttribute("role", "group");
    col.setAttribute("aria-label", actionLabel(f, targets.get(name)) || t("play_into", { card: cardName(state.selected), lane: t(name) }));
    col.addEventListener("click", () => act(targets.get(name)));
    col.addEventListener("keydown", (e) => { if (e.target === col && (e.key === "Enter" || e.key === " ")) { e.preventDefault(); act(targets.get(name)); } });
  }
  return col;
}

export function boardView(view, me, f) {
  const opp = 1 - me;
  const sel = state.selected;
  const targets = targetsOf(f, sel);
  return h("div", { class: "board", "data-testid": "board" },
    realm(view, opp, f),
    // Both lanes reserve the same height for the opponent's side, so the two bridges line up.
    h("div", { class: "lanes rows-" + Math.max(1, ...["top", "bottom"].map((ln) => view.players[opp].lanes[ln].length)) },
      lane(view, f, targets, 0, me), lane(view, f, targets, 1, me)),
    sel ? h("p", { class: "choose" }, t("choose_target", { card: cardName(sel) }), " ", h("span", { class: "muted" }, cardLabel(sel)), " ",
      h("button", { onclick: () => { state.selected = null; redraw(); } }, t("cancel"))) : null,
    view.pending ? orderChoices(f, view.pending) : null,
    realm(view, me, f));
}

// The return order of creatures destroyed together (R3.9): click them in order, leftmost first;
// once the clicks so far fit one legal order only, it is sent.
function orderChoices(f, pending) {
  const orders = (f.legal || []).filter((a) => a.startsWith("order "));
  const chosen = state.order || [];
  const cards = pending.cards.map((id, i) => {
    const el = cardFace(id, {});
    const pos = chosen.indexOf(i);
    if (!orders.length) return el;
    if (pos >= 0) { el.classList.add("selected"); el.append(h("span", { class: "order-no", "aria-hidden": "true" }, String(pos + 1))); return el; }
    return choosable(el, id, () => {
      const next = chosen.concat([i]);
      const fits = ordersFitting(orders, next.map((k) => pending.cards[k]));
      if (fits.length === 1) { state.order = null; act(fits[0]); } else { state.order = next; redraw(); }
    });
  });
  return h("div", { class: "pending", "data-testid": "order" }, h("p", { class: "notice" }, t("order_hint")), h("div", { class: "hand" }, cards));
}
