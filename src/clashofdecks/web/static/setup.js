// The setup (R2): preconstructed decks to choose, the draft's revealed cards to pick, bans, and the
// custom format's deck building.
import { cardFace } from "./board.js";
import { card } from "./cards.js";
import { choosable } from "./direct.js";
import { h, onEnter } from "./dom.js";
import { legalByVerb, playerName } from "./frame.js";
import { redraw } from "./page.js";
import { act } from "./socket.js";
import { state } from "./store.js";
import { t } from "./words.js";

export function setupBoard(f) {
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
      const toggle = () => { if (chosen.has(id)) chosen.delete(id); else if (chosen.size < 10) chosen.add(id); redraw(); };
      el.addEventListener("click", toggle);
      onEnter(el, () => toggle());
      return el;
    })),
    h("button", { class: "primary", "data-action": action, "data-drop": action ? "build" : null, disabled: !action,
      onclick: () => { if (action) { state.build = null; act(action); } } }, t("build_go")));
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
