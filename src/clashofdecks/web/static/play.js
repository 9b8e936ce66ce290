// Direct play and cards that explain themselves: what the player can act on now (from the frame's
// legal action texts only: the page never invents an action), the phase buttons, the one-line
// prompt, the cards' accessible names and the card help (tap, long press or keyboard focus).
"use strict";

// ------------------------------------------------------------------ direct play

// The legal actions of the frame that start with `verb `, as a map from their first word after the
// verb (a card id, a deck number) to the action texts.
function legalByVerb(f, verb) {
  const out = new Map();
  for (const a of (f && f.legal) || []) {
    const parts = a.split(" ");
    if (parts[0] !== verb) continue;
    if (!out.has(parts[1])) out.set(parts[1], []);
    out.get(parts[1]).push(a);
  }
  return out;
}

// What the player is asked now, in one line: the server's prompt when it sends one, else one of ours.
function promptText(f) {
  if (state.selected && f.seats && f.seats.includes(f.to_move)) return t("choose_target", { card: cardName(state.selected) });
  if (f.prompt) return f.prompt;
  if (!f.seats || !f.seats.includes(f.to_move) || f.phase === "over") return "";
  if (f.build) return t("prompt_build");
  const verbs = new Set((f.legal || []).map((a) => a.split(" ")[0]));
  if (verbs.has("deck")) return t("prompt_deck");
  if (verbs.has("pick")) return t("prompt_pick");
  if (verbs.has("ban")) return t("prompt_ban");
  if (verbs.has("order")) return t("prompt_order");
  if (verbs.has("play") || verbs.has("cast")) return t("prompt_summon");
  if (verbs.has("next")) return t("prompt_combat");
  if (verbs.has("end")) return t("prompt_end");
  return "";
}

// The phase buttons: present only when their action is legal; they carry no data-action (the move
// list's buttons keep that hook, so its locators stay unique).
function gamePhaseButtons(f) {
  if (state.playing || !f.legal) return [];
  const out = [];
  if (f.legal.includes("next")) {
    out.push(h("button", { class: "phase", "data-testid": "next", title: "n", onclick: () => act("next") }, t("next_action")));
  }
  if (f.legal.includes("end")) {
    out.push(h("button", { class: "phase primary", "data-testid": "end", title: "e", onclick: () => act("end") },
      t(f.phase === "combat" ? "end_turn" : "go_combat")));
  }
  return out;
}

// The server's sentence for a legal action when the frame has them (`labels`, parallel to `legal`).
function actionLabel(f, action) {
  const i = f.legal ? f.legal.indexOf(action) : -1;
  return f.labels && i >= 0 && f.labels[i] ? f.labels[i] : null;
}

// Makes a card face one click on it applies `action` (a pick, a ban): data-select is the card id.
function choosable(el, value, onChoose, pressed) {
  el.classList.add("choosable");
  el.setAttribute("data-select", value);
  if (pressed !== undefined) el.setAttribute("aria-pressed", pressed ? "true" : "false");
  el.addEventListener("click", onChoose);
  el.addEventListener("keydown", (e) => { if (e.key === "Enter" || e.key === " ") { e.preventDefault(); onChoose(); } });
  return el;
}

// Preconstructed decks (R2.3): one tile per deck still free, its cards shown; a click chooses it.
function deckChoices(f) {
  const decks = legalByVerb(f, "deck");
  if (!decks.size) return null;
  return h("div", { class: "decks", "data-testid": "deck-choices" }, [...decks.keys()].map((n) => {
    const ids = Object.keys(state.cards.cards).filter((id) => String(card(id).deck) === n);
    const choose = () => act(decks.get(n)[0]);
    return h("div", { class: "deck-choice", role: "group", "aria-label": t("deck") + " " + n },
      h("button", { class: "primary", "data-select": n, "data-deck": n, onclick: choose }, t("choose_deck", { n })),
      h("div", { class: "hand small" }, ids.map((id) => cardFace(id, { small: true }))));
  }));
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
      const prefix = next.map((k) => pending.cards[k]);
      const fits = orders.filter((a) => a.split(" ").slice(1, 1 + prefix.length).join(" ") === prefix.join(" "));
      if (fits.length === 1) { state.order = null; act(fits[0]); } else { state.order = next; render(); }
    });
  });
  return h("div", { class: "pending", "data-testid": "order" }, h("p", { class: "notice" }, t("order_hint")), h("div", { class: "hand" }, cards));
}

// A scrolling list (the log) must be reachable with the keyboard to be read (axe: scrollable-region-focusable).
function focusableScrolling(root) {
  if (!root) return;
  for (const el of root.querySelectorAll("#log")) {
    el.tabIndex = 0;
    el.setAttribute("aria-label", t("log"));
  }
}

// ------------------------------------------------------------------ accessible names

// "Carapace, 3 Mana, 0/4, Protection": what a screen reader says for a card face.
function cardLabel(id, opts) {
  opts = opts || {};
  if (id === "?") return t("hidden_card");
  if (id === "BASTION" || id === "FORT") return cardName(id) + ", " + t("fortress");
  const c = card(id);
  const cr = opts.creature;
  const parts = [c.name, c.cost + " " + t("mana")];
  if (c.kind === "creature") parts.push((c.attack + (cr ? cr.sprint_bonus : 0)) + "/" + (cr ? c.health - cr.damage : c.health));
  else parts.push(t("incantation") + " " + c.attack);
  for (const a of opts.abilities || c.abilities) parts.push(abilityName(a));
  if (c.aura.length) parts.push(abilityName("aura") + " " + c.aura.map(abilityName).join(" "));
  if (opts.playable) parts.push(t("playable"));
  return parts.join(", ");
}

// ------------------------------------------------------------------ card help

// The card's full text in the page's language: cost, attack and health, each ability as a sentence
// with its rule number (the server's ability texts start with it).
function cardHelpLines(info) {
  const id = info.id;
  if (id === "?") return [t("help_hidden")];
  if (id === "BASTION") return [t("help_bastion")];
  if (id === "FORT") return [t("help_fort")];
  const c = card(id);
  const cr = info.creature;
  const lines = [t("help_cost", { n: c.cost })];
  if (c.kind === "creature") {
    lines.push(t("help_stats", { a: c.attack, h: c.health }));
    if (cr && cr.damage) lines.push(t("help_damaged", { d: cr.damage, h: c.health - cr.damage }));
    if (cr && cr.sprint_bonus) lines.push(t("help_sprint_bonus", { n: cr.sprint_bonus }));
    if (cr && cr.new) lines.push(t("help_new"));
  } else {
    lines.push(t("help_incantation", { n: c.attack }));
  }
  const granted = info.granted || [];
  for (const a of info.abilities || c.abilities) {
    lines.push(abilityName(a) + (granted.includes(a) ? " (" + t("granted") + ")" : "") + ": " + abilityHelp(a));
  }
  if (c.aura.length) lines.push(abilityName("aura") + " (" + c.aura.map(abilityName).join(", ") + "): " + abilityHelp("aura"));
  return lines;
}

function cardHelpPanel() {
  let panel = document.getElementById("card-help");
  if (!panel) {
    panel = h("section", { id: "card-help", class: "card-help", "data-testid": "card-help", "aria-live": "polite", hidden: true });
    document.body.append(panel);
  }
  return panel;
}

function showCardHelp(info) {
  if (!info || !state.cards) return;
  state.help = info;
  const panel = cardHelpPanel();
  const title = info.id === "?" ? t("hidden_card") : cardName(info.id);
  const kind = info.id === "?" ? "" : (info.id === "BASTION" || info.id === "FORT") ? t("fortress") : t(card(info.id).kind);
  panel.setAttribute("aria-label", t("card_help") + ": " + title);
  panel.replaceChildren(
    h("button", { class: "close", "data-testid": "card-help-close", "aria-label": t("close"), title: t("close"), onclick: hideCardHelp }, "×"),
    h("h2", {}, h("span", { lang: "en" }, title), kind ? " · " + kind : ""),
    h("ul", {}, cardHelpLines(info).map((line) => h("li", {}, line))));
  panel.hidden = false;
  document.body.classList.add("help-open");
}

function hideCardHelp() {
  state.help = null;
  const panel = document.getElementById("card-help");
  if (panel) panel.hidden = true;
  document.body.classList.remove("help-open");
}

// Tap, long press (touch screens) or keyboard focus on a card opens its help.  A tap on a card that
// acts at once (a pick, a target) acts; its help is then a long press or the keyboard focus away.
const LONG_PRESS_MS = 450;
let pressTimer = null, pressStart = null, pressedCard = null, swallowClick = false;
function cardAt(target) { return target && target.closest ? target.closest("[data-card]") : null; }

document.addEventListener("keydown", (e) => { if (e.key === "Tab" || e.key === "Enter" || e.key === " ") state.keyboardUser = true; }, true);
document.addEventListener("pointerdown", (e) => {
  state.keyboardUser = false;
  const el = cardAt(e.target);
  if (!el || !el.cardHelp) return;
  pressStart = [e.clientX, e.clientY]; pressedCard = el;
  clearTimeout(pressTimer);
  pressTimer = setTimeout(() => { showCardHelp(el.cardHelp); swallowClick = true; pressTimer = null; }, LONG_PRESS_MS);
});
const cancelPress = () => { clearTimeout(pressTimer); pressTimer = null; };
document.addEventListener("pointerup", cancelPress);
document.addEventListener("pointercancel", cancelPress);
document.addEventListener("pointermove", (e) => {
  if (pressTimer && pressStart && Math.hypot(e.clientX - pressStart[0], e.clientY - pressStart[1]) > 10) cancelPress();
});
// The click that ends a long press only opens the help: it does not also play the card.
document.addEventListener("click", (e) => {
  if (swallowClick) { swallowClick = false; if (cardAt(e.target) === pressedCard) { e.stopPropagation(); e.preventDefault(); } return; }
  const el = cardAt(e.target);
  if (el && el.cardHelp && !el.closest("[data-select], [data-drop], [data-build-card]")) showCardHelp(el.cardHelp);
}, true);
document.addEventListener("contextmenu", (e) => { if (cardAt(e.target)) e.preventDefault(); });
document.addEventListener("focusin", (e) => {
  const el = cardAt(e.target);
  if (el && el.cardHelp && el.matches(":focus-visible")) showCardHelp(el.cardHelp);
});
