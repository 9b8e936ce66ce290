// The rules page (/rules): the rules summary and the abilities, in the page's language.
import { abilityName } from "./cards.js";
import { h, icon } from "./dom.js";
import { mount } from "./page.js";
import { closeSocket } from "./socket.js";
import { state } from "./store.js";
import { t } from "./words.js";

export function rulesPage() {
  closeSocket();
  const r = state.rules;
  mount(h("main", { class: "rules", "data-testid": "rules" },
    h("h2", {}, t("rules_help")),
    h("ul", {}, r.summary.map((line) => h("li", {}, line))),
    h("h2", {}, t("abilities")),
    h("dl", {}, Object.keys(r.abilities).map((a) => [h("dt", {}, icon(a), " ", abilityName(a)), h("dd", {}, r.abilities[a])]))));
}
