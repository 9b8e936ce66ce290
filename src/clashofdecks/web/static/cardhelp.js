// Cards that explain themselves: tap, long press (touch screens) or keyboard focus on a card opens its
// help, the card's full text in the page's language.
import { cardHelpLines, cardName, card, isFortress } from "./cards.js";
import { h, showRules } from "./dom.js";
import { ruleWords } from "./frame.js";
import { state } from "./store.js";
import { t } from "./words.js";

function cardHelpPanel() {
  let panel = document.getElementById("card-help");
  if (!panel) {
    panel = h("section", { id: "card-help", class: "card-help", "data-testid": "card-help", "aria-live": "polite", hidden: true });
    document.body.append(panel);
  }
  return panel;
}

export function showCardHelp(info) {
  if (!info || !state.cards) return;
  state.help = info;
  const panel = cardHelpPanel();
  const title = info.id === "?" ? t("hidden_card") : cardName(info.id);
  const kind = info.id === "?" ? "" : isFortress(info.id) ? t("fortress") : t(card(info.id).kind);
  panel.setAttribute("aria-label", t("card_help") + ": " + title);
  panel.replaceChildren(
    h("button", { class: "close", "data-testid": "card-help-close", "aria-label": t("close"), title: t("close"), onclick: hideCardHelp }, "×"),
    h("h2", {}, h("span", { lang: "en" }, title), kind ? " · " + kind : ""),
    h("ul", {}, cardHelpLines(info).map((line) => h("li", {}, ruleWords(line, showRules())))));
  panel.hidden = false;
  document.body.classList.add("help-open");
}

export function hideCardHelp() {
  state.help = null;
  const panel = document.getElementById("card-help");
  if (panel) panel.hidden = true;
  document.body.classList.remove("help-open");
}

// A tap on a card that acts at once (a pick, a target) acts; its help is then a long press or the
// keyboard focus away.
const LONG_PRESS_MS = 450;
let pressTimer = null, pressStart = null, pressedCard = null, swallowClick = false;
function cardAt(target) { return target && target.closest ? target.closest("[data-card]") : null; }
function cancelPress() { clearTimeout(pressTimer); pressTimer = null; }

function startPress(e) {
  state.keyboardUser = false;
  const el = cardAt(e.target);
  if (!el || !el.cardHelp) return;
  pressStart = [e.clientX, e.clientY]; pressedCard = el;
  clearTimeout(pressTimer);
  pressTimer = setTimeout(() => { showCardHelp(el.cardHelp); swallowClick = true; pressTimer = null; }, LONG_PRESS_MS);
}

// The click that ends a long press only opens the help: it does not also play the card.
function clickCard(e) {
  if (swallowClick) { swallowClick = false; if (cardAt(e.target) === pressedCard) { e.stopPropagation(); e.preventDefault(); } return; }
  const el = cardAt(e.target);
  // A card that cannot be played now says why on a tap (board.js): its help is a long press away.
  if (el && el.cardHelp && !el.closest("[data-select], [data-drop], [data-build-card], [data-why]")) showCardHelp(el.cardHelp);
}

export function listenForCardHelp() {
  document.addEventListener("keydown", (e) => { if (e.key === "Tab" || e.key === "Enter" || e.key === " ") state.keyboardUser = true; }, true);
  document.addEventListener("pointerdown", startPress);
  document.addEventListener("pointerup", cancelPress);
  document.addEventListener("pointercancel", cancelPress);
  document.addEventListener("pointermove", (e) => {
    if (pressTimer && pressStart && Math.hypot(e.clientX - pressStart[0], e.clientY - pressStart[1]) > 10) cancelPress();
  });
  document.addEventListener("click", clickCard, true);
  document.addEventListener("contextmenu", (e) => { if (cardAt(e.target)) e.preventDefault(); });
  document.addEventListener("focusin", (e) => {
    const el = cardAt(e.target);
    if (el && el.cardHelp && el.matches(":focus-visible")) showCardHelp(el.cardHelp);
  });
}
