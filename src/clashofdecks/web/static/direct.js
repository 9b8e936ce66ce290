// Direct play: what the player can act on now, from the frame's legal action texts only (the page
// never invents an action): choosable cards and the phase buttons.
import { h, onEnter } from "./dom.js";
import { act } from "./socket.js";
import { state } from "./store.js";
import { t } from "./words.js";

// The phase buttons: present only when their action is legal; they carry no data-action (the move
// list's buttons keep that hook, so its locators stay unique).
export function gamePhaseButtons(f) {
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

// Makes a card face one click on it applies `action` (a pick, a ban): data-select is the card id.
export function choosable(el, value, onChoose, pressed) {
  el.classList.add("choosable");
  el.setAttribute("data-select", value);
  if (pressed !== undefined) el.setAttribute("aria-pressed", pressed ? "true" : "false");
  el.addEventListener("click", onChoose);
  onEnter(el, () => onChoose());
  return el;
}

// A scrolling list (the log) must be reachable with the keyboard to be read (axe: scrollable-region-focusable).
export function focusableScrolling(root) {
  if (!root) return;
  for (const el of root.querySelectorAll("#log")) {
    el.tabIndex = 0;
    el.setAttribute("aria-label", t("log"));
  }
}
