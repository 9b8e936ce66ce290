// The cards as the page names and explains them (static/cards.js).
import assert from "node:assert/strict";
import { beforeEach, test } from "node:test";

import {
  cardHelpLines, cardLabel, cardName, creatureOf, hyphenated, syllableBreaks,
} from "../../src/clashofdecks/web/static/cards.js";
import { state } from "../../src/clashofdecks/web/static/store.js";

beforeEach(() => {
  state.lang = "de";
  state.cards = {
    cards: {
      CARAPACE: { name: "Carapace", kind: "creature", cost: 3, attack: 0, health: 4, abilities: ["protection"], aura: [] },
      BOLT: { name: "Bolt", kind: "incantation", cost: 2, attack: 3, health: 0, abilities: [], aura: [] },
      BANNER: { name: "Banner", kind: "creature", cost: 4, attack: 1, health: 3, abilities: [], aura: ["rage"] },
    },
    ability_names: { protection: { en: "Protection", de: "Schutz" }, rage: { en: "Rage" }, aura: { en: "Aura" } },
  };
  state.rules = { abilities: { protection: "R6.3 Blocks the first damage.", rage: "R6.4 +1 attack.", aura: "R6.9 Gives." } };
  state.words = { mana: "Mana", fortress: "Festung", hidden_card: "verdeckte Karte", playable: "spielbar",
    incantation: "Zauber", help_cost: "Kosten {n}", help_stats: "{a}/{h}", help_damaged: "{d} Schaden, {h} übrig",
    help_incantation: "{n} Schaden", help_new: "neu", granted: "verliehen" };
  state.fallback = {};
});

test("names: a card's, a hidden card's, the fortresses'", () => {
  assert.equal(cardName("CARAPACE"), "Carapace");
  assert.equal(cardName("?"), "?");
  assert.equal(cardName("FORT"), "Fort");
  assert.equal(cardName("BASTION"), "Bastion");
});

test("a face's accessible name: cost, attack/health as damaged, abilities in the page's language", () => {
  assert.equal(cardLabel("CARAPACE"), "Carapace, 3 Mana, 0/4, Schutz");
  const hurt = creatureOf({ card: "CARAPACE", damage: 1, sprint_bonus: 2 });
  assert.equal(cardLabel("CARAPACE", { creature: hurt, playable: true }), "Carapace, 3 Mana, 2/3, Schutz, spielbar");
  assert.equal(cardLabel("BOLT"), "Bolt, 2 Mana, Zauber 3");
  assert.equal(cardLabel("BANNER"), "Banner, 4 Mana, 1/3, Aura Rage");
  assert.equal(cardLabel("?"), "verdeckte Karte");
  assert.equal(cardLabel("FORT"), "Fort, Festung");
});

test("a creature written as its id gets the defaults", () => {
  assert.deepEqual(creatureOf("BANNER"), { card: "BANNER", damage: 0, new: false, protected: false, activated: false, sprint_bonus: 0 });
  assert.equal(creatureOf({ card: "BANNER", new: true }).new, true);
});

test("the card help's lines: cost, stats, damage, each ability with its rule", () => {
  const cr = creatureOf({ card: "CARAPACE", damage: 3, new: true });
  assert.deepEqual(cardHelpLines({ id: "CARAPACE", creature: cr, granted: ["protection"] }),
    ["Kosten 3", "0/4", "3 Schaden, 1 übrig", "neu", "Schutz (verliehen): R6.3 Blocks the first damage."]);
  assert.deepEqual(cardHelpLines({ id: "BOLT" }), ["Kosten 2", "3 Schaden"]);
  assert.deepEqual(cardHelpLines({ id: "BANNER" }).slice(-1), ["Aura (Rage): R6.9 Gives."]);
});

test("long names break at syllables, never too near either end", () => {
  assert.deepEqual(syllableBreaks("Abomination").map((i) => "Abomination".slice(0, i)), ["Abo", "Abomi", "Abomina"]);
  assert.equal(hyphenated("Microctopus").text, "Mi\u00adcroc\u00adto\u00adpus");
  assert.equal(hyphenated("Brute").text, "Brute");  // seven letters or fewer: never broken
  assert.equal(hyphenated("Chthonian").text, "Chtho\u00adnian");  // never inside "ch" or "th"
  assert.equal(hyphenated("Annihilation").size, " long");
  assert.equal(hyphenated("Carapaces").size, " longish");
  assert.equal(hyphenated("Carapace").size, "");
});
