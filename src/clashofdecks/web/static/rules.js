// The rules page, and the start of the page (loaded last: every other script is defined by then).
"use strict";

// ------------------------------------------------------------------ rules

function rulesPage() {
  closeSocket();
  const r = state.rules;
  mount(h("main", { class: "rules", "data-testid": "rules" },
    h("h2", {}, t("rules_help")),
    h("ul", {}, r.summary.map((line) => h("li", {}, line))),
    h("h2", {}, t("abilities")),
    h("dl", {}, Object.keys(r.abilities).map((a) => [h("dt", {}, icon(a), " ", abilityName(a)), h("dd", {}, r.abilities[a])]))));
}

window.addEventListener("popstate", route);
document.addEventListener("click", (e) => {
  const a = e.target.closest && e.target.closest("a[href^='/']");
  if (!a || a.hasAttribute("download") || a.getAttribute("href").startsWith("/api/") || e.ctrlKey || e.metaKey) return;
  e.preventDefault();
  history.pushState(null, "", a.getAttribute("href"));
  route();
});

loadCatalogue().then(ensureIdentity).then(route).catch((e) => {
  document.getElementById("app").textContent = "Clash of Decks: " + e.message;
});
