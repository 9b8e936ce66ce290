// The cards as the page names and explains them: the catalogue's names, a face's accessible name and
// tooltip, the card help's lines, creatures as positions write them, names broken into syllables.
// No DOM (tests/js/cards.test.js).
import { state } from "./store.js";
import { t } from "./words.js";

export function card(id) { return state.cards.cards[id]; }
export function isFortress(id) { return id === "BASTION" || id === "FORT"; }
export function cardName(id) { return id === "?" ? "?" : (card(id) ? card(id).name : id === "FORT" ? "Fort" : "Bastion"); }

export function abilityName(a) {
  const names = state.cards.ability_names[a];
  return (names && (names[state.lang] || names.en)) || a;
}
function abilityHelp(a) { return (state.rules && state.rules.abilities[a]) || ""; }

// Positions write a creature as its id, or as an object with only the fields that differ from these.
const CREATURE_DEFAULTS = { damage: 0, new: false, protected: false, activated: false, sprint_bonus: 0 };
export function creatureOf(c) { return Object.assign({}, CREATURE_DEFAULTS, typeof c === "string" ? { card: c } : c); }

// "Carapace, 3 Mana, 0/4, Protection": what a screen reader says for a card face.
export function cardLabel(id, opts) {
  opts = opts || {};
  if (id === "?") return t("hidden_card");
  if (isFortress(id)) return cardName(id) + ", " + t("fortress");
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

// A face's tooltip: the card, then each ability (granted ones marked) and its aura with their help.
export function cardTips(c, abilities, granted) {
  const tips = [`${c.name} (${t(c.kind)}) · ${t("cost")} ${c.cost}`];
  for (const a of abilities) tips.push(`${abilityName(a)}${granted.includes(a) ? " (" + t("granted") + ")" : ""}: ${abilityHelp(a)}`);
  if (c.aura.length) tips.push(`${abilityName("aura")}: ${c.aura.map(abilityName).join(", ")} — ${abilityHelp("aura")}`);
  return tips;
}

// The card's full text in the page's language: cost, attack and health, each ability as a sentence
// with its rule number (the server's ability texts start with it).
export function cardHelpLines(info) {
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

// Card names on the board: a long name may take two lines, broken at a syllable with a hyphen (soft
// hyphens, shown only where the line breaks) instead of being cut ("Abo-mination", "Mi-croctopus").
// The break points follow the common English rules (vowel | consonant vowel; between two consonants,
// but before a pair that starts a syllable: "cr", "bl"; never inside "ch", "th"), at least two letters
// from the start and three from the end; no hyphenation dictionary is needed, so it works offline.
const VOWEL = /[aeiouy]/i;
const ONSET = new Set(["bl", "br", "ch", "cl", "cr", "dr", "fl", "fr", "gh", "gl", "gr", "ph", "pl", "pr",
  "qu", "sh", "th", "tr", "wh"]);
export function syllableBreaks(name) {
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

// The name with soft hyphens at its breaks (names over 7 letters), and its size class: longer names
// get a slightly smaller font so that two lines always hold them.
export function hyphenated(name) {
  const breaks = name.length > 7 ? syllableBreaks(name) : [];
  let text = "", last = 0;
  for (const i of breaks) { text += name.slice(last, i) + "\u00ad"; last = i; }
  text += name.slice(last);
  const size = name.length > 10 ? " long" : name.length > 8 ? " longish" : "";
  return { text, size };
}
