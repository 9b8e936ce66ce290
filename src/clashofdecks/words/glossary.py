"""The glossary: one word per language for each thing of the game a sentence names.

Every sentence template (the catalogs' messages, the tutorial's texts) names lanes, phases,
buttons, card types and the automaton with these words and no others (``tests/test_glossary.py``
checks the catalogs' own entries for these things against :data:`GLOSSARY`, and that no template
uses a word of :data:`AVOID`).  The tutorial's texts name buttons and the click through placeholders
(``{button_end_turn}``, ``{click}``) filled from here, so they cannot drift from the page.

German names two players by a common noun ("Automat", "Gegner"): such a name takes its article and
case from the word before it in a template (:func:`german_names`), so "von {who}" reads "des
Automaten" and "ist {name} am Zug" reads "ist der Automat am Zug".
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Final

#: The things the glossary names.
TERMS: Final = (
    "lane",
    "top_lane",
    "bottom_lane",
    "phase_setup",
    "phase_summon",
    "phase_combat",
    "button_combat",
    "button_end_turn",
    "button_next",
    "creature",
    "incantation",
    "automaton",
    "opponent",
    "click",
    "Click",
    "tap",
    "Tap",
)

GLOSSARY: Final[dict[str, dict[str, str]]] = {
    "en": {
        "lane": "lane",
        "top_lane": "top lane",
        "bottom_lane": "bottom lane",
        "phase_setup": "Setup",
        "phase_summon": "Summoning",
        "phase_combat": "Combat",
        "button_combat": "To combat",
        "button_end_turn": "End turn",
        "button_next": "Next attack",
        "creature": "Creature",
        "incantation": "Incantation",
        "automaton": "Automaton",
        "opponent": "Opponent",
        "click": "click",
        "Click": "Click",
        "tap": "tap",
        "Tap": "Tap",
    },
    "de": {
        "lane": "Bahn",
        "top_lane": "obere Bahn",
        "bottom_lane": "untere Bahn",
        "phase_setup": "Vorbereitung",
        "phase_summon": "Beschwörung",
        "phase_combat": "Kampf",
        "button_combat": "Zum Kampf",
        "button_end_turn": "Zug beenden",
        "button_next": "Nächster Angriff",
        "creature": "Kreatur",
        "incantation": "Zauber",
        "automaton": "Automat",
        "opponent": "Gegner",
        "click": "klicke",
        "Click": "Klicke",
        "tap": "tippe",
        "Tap": "Tippe",
    },
    "fr": {
        "lane": "voie",
        "top_lane": "voie du haut",
        "bottom_lane": "voie du bas",
        "phase_setup": "Préparation",
        "phase_summon": "Invocation",
        "phase_combat": "Combat",
        "button_combat": "Au combat",
        "button_end_turn": "Finir le tour",
        "button_next": "Attaque suivante",
        "creature": "Créature",
        "incantation": "Incantation",
        "automaton": "Automate",
        "opponent": "Adversaire",
        "click": "cliquez sur",
        "Click": "Cliquez sur",
        "tap": "touchez",
        "Tap": "Touchez",
    },
    "ja": {
        "lane": "レーン",
        "top_lane": "上レーン",
        "bottom_lane": "下レーン",
        "phase_setup": "準備",
        "phase_summon": "召喚",
        "phase_combat": "戦闘",
        "button_combat": "戦闘へ",
        "button_end_turn": "手番終了",
        "button_next": "次の攻撃",
        "creature": "クリーチャー",
        "incantation": "呪文",
        "automaton": "オートマ",
        "opponent": "相手",
        "click": "クリック",
        "Click": "クリック",
        "tap": "タップ",
        "Tap": "タップ",
    },
}

#: Catalog entries that *are* a glossary word (key -> term): they must say exactly the glossary's word.
CATALOG_TERMS: Final[dict[str, str]] = {
    "ui.lane": "lane",
    "web.top": "top_lane",
    "web.bottom": "bottom_lane",
    "web.summon": "phase_summon",
    "web.combat": "phase_combat",
    "ui.phase_summon": "phase_summon",
    "ui.phase_combat": "phase_combat",
    "web.go_combat": "button_combat",
    "web.end_turn": "button_end_turn",
    "web.next_action": "button_next",
    "ui.creature": "creature",
    "ui.incantation": "incantation",
    "ui.automaton_name": "automaton",
    "web.automaton": "automaton",
}

#: Other words for a glossary thing, which no template of the language may use (a button quoted
#: by a name it does not carry, a lane called a row).
AVOID: Final[dict[str, tuple[str, ...]]] = {
    "en": ("“End”", '"End"', " row ", " rows ", "spell"),
    "de": ("„Ende“", "Spur", "Zeile ", "Zauberspruch", "rechtesten"),
    "fr": ("« Fin »", "rangée", "ligne ", " sort "),
    "ja": ("「終了」", "インカンテーション"),
}

#: German common-noun names: nominative, accusative, genitive (the name after "von").
_GERMAN_NOUNS: Final[dict[str, tuple[str, str, str]]] = {
    "Automat": ("der Automat", "den Automaten", "des Automaten"),
    "Gegner": ("der Gegner", "den Gegner", "des Gegners"),
}
#: Words after which a German name is in the accusative.
_ACCUSATIVE_AFTER: Final = frozenset({"an", "auf", "greift", "trifft", "gegen", "für"})
_PLACEHOLDER: Final = re.compile(r"(?:(\S+) )?\{(\w+)\}")


def term(lang: str, name: str) -> str:
    """The glossary's word for ``name`` in ``lang`` (English for a language without a glossary)."""
    return GLOSSARY.get(lang, GLOSSARY["en"])[name]


def grammar(lang: str) -> dict[str, object]:
    """What the page needs to say names as :func:`german_names` does (``/api/i18n``): the common-noun
    names with their forms and the words that ask for the accusative; empty for other languages."""
    if lang != "de":
        return {}
    nouns = {name: {"nom": f[0], "acc": f[1], "gen": f[2]} for name, f in _GERMAN_NOUNS.items()}
    return {"nouns": nouns, "accusative_after": sorted(_ACCUSATIVE_AFTER)}


def german_names(template: str, values: Mapping[str, object]) -> str:
    """``template`` with each placeholder whose value is a German common-noun name replaced by the
    name's form for the word before it ("von {who}" -> "des Automaten"); other placeholders stay."""

    def form(match: re.Match[str]) -> str:
        before, key = match.group(1), match.group(2)
        forms = _GERMAN_NOUNS.get(str(values.get(key, "")))
        if forms is None:
            return match.group(0)
        if before == "von":
            return forms[2]
        word = forms[1] if before in _ACCUSATIVE_AFTER else forms[0]
        return f"{before} {word}" if before else word

    return _PLACEHOLDER.sub(form, template)


__all__ = ["AVOID", "CATALOG_TERMS", "GLOSSARY", "TERMS", "german_names", "grammar", "term"]
