"""The glossary (words/glossary.py, issue 34): every sentence template names lanes, phases, buttons,
card types and the automaton with the glossary's word of its language; the German templates a careful
reader found wrong, each checked as a sentence; English and French keep their sentences."""

from __future__ import annotations

import json
import re
from importlib import resources
from typing import Any

import pytest

from clashofdecks.events import Event, EventKind
from clashofdecks.words import catalog
from clashofdecks.words.events import Context, event_sentence
from clashofdecks.words.glossary import AVOID, CATALOG_TERMS, GLOSSARY, TERMS, german_names, grammar, term
from clashofdecks.words.i18n import LANGUAGES, phrase, t

#: A quoted phrase in each language's quotation marks (how a template names a button).
QUOTED = {
    "en": re.compile(r"“([^”]+)”"),
    "de": re.compile(r"„([^“]+)“"),
    "fr": re.compile(r"« ([^»]+) »"),
    "ja": re.compile(r"「([^」]+)」"),
}
BUTTONS = ("button_combat", "button_end_turn", "button_next")


def tutorial_texts() -> list[tuple[str, str, str]]:
    """(step id, language, text) for every text of the shipped tutorial."""
    raw = resources.files("clashofdecks").joinpath("data/tutorial.json").read_text(encoding="utf-8")
    data: dict[str, Any] = json.loads(raw)
    return [
        (step["id"], lang, text)
        for step in data["steps"]
        for lang, words in step["text"].items()
        for text in words.values()
    ]


def test_every_language_has_every_glossary_term() -> None:
    assert set(GLOSSARY) == set(LANGUAGES)
    for lang, words in GLOSSARY.items():
        assert tuple(words) == TERMS, lang
        assert all(w.strip() for w in words.values()), lang


@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_catalog_says_each_thing_with_the_glossary_word(lang: str) -> None:
    messages = catalog.catalogs()[lang].messages
    for key, name in CATALOG_TERMS.items():
        # The entry is the word, perhaps with its article (French names the automaton "l'Automate").
        word = messages[key].lower()
        assert word == term(lang, name).lower() or word.endswith("'" + term(lang, name).lower()), (
            lang,
            key,
            word,
        )


@pytest.mark.parametrize("lang", LANGUAGES)
def test_no_template_uses_another_word_for_a_glossary_thing(lang: str) -> None:
    texts = [(key, text) for key, text in catalog.catalogs()[lang].messages.items() if key]
    texts += [(f"tutorial {step}", text) for step, text_lang, text in tutorial_texts() if text_lang == lang]
    for where, text in texts:
        for word in AVOID[lang]:
            assert word not in f" {text} ", f"{lang} {where}: {word!r} is not the glossary's word: {text}"


@pytest.mark.parametrize("lang", LANGUAGES)
def test_a_quoted_button_in_a_template_is_the_buttons_own_name(lang: str) -> None:
    """A template quotes a button only by the name the game's button carries (the tutorial through
    its placeholders), so "click “End”" can never again name a button the page does not show."""
    buttons = {term(lang, b) for b in BUTTONS} | {"{" + b + "}" for b in BUTTONS}
    ending = {"{button}", "{button_next}"}  # the tutorial's "not quite" fills these from the glossary
    for step, text_lang, text in tutorial_texts():
        if text_lang != lang:
            continue
        for quoted in QUOTED[lang].findall(text):
            assert quoted in buttons | ending, f"tutorial {step} ({lang}) quotes {quoted!r}"


# ---------------------------------------------------------------------------- German sentences

DE = Context(lang="de", names=("Spieler", "Gegner"))


def test_german_a_card_returns_to_the_opponents_hand() -> None:
    """Not "auf die Hand von Gegner": the common noun takes its article and case."""
    event = Event(EventKind.RETURNED, "R3.8", player=1, card="BRUTE")
    assert event_sentence(event, DE) == "Brute kommt ganz rechts auf die Hand des Gegners"
    automaton = Context(lang="de", names=("Spieler", "Automat"))
    assert event_sentence(event, automaton) == "Brute kommt ganz rechts auf die Hand des Automaten"
    # A player's own name is left as it is.
    named = Context(lang="de", names=("Spieler", "Anna"))
    assert event_sentence(event, named) == "Brute kommt ganz rechts auf die Hand von Anna"


def test_german_the_fort_reaches_the_place_furthest_right() -> None:
    """Not "den rechtesten Platz" (the page's game-over reason and the terminal's)."""
    text = phrase("de", "web.end_fort_rightmost", loser="Anna")
    assert text == "Das Fort von Anna erreichte den Platz ganz rechts in der Hand (R4.3)."
    assert "den Platz ganz rechts" in t("de", "reason_fort_rightmost", loser="Anna")


def test_german_the_automaton_is_to_move() -> None:
    """Not "ist Automat am Zug": the prompt names the automaton with its article."""
    for key in ("prompt.combat", "prompt.combat_done"):
        text = phrase("de", key, name="Automat", mana=3)
        assert "ist der Automat am Zug" in text and "ist Automat" not in text, text
    assert phrase("de", "prompt.combat", name="Anna").count("ist Anna am Zug") == 1


def test_german_nouns_take_their_case_from_the_word_before() -> None:
    values = {"name": "Automat"}
    assert german_names("Warte auf {name}…", values) == "Warte auf den Automaten…"
    assert german_names("{card} greift {name} direkt an", values) == "{card} greift den Automaten direkt an"
    assert german_names("{name} gewinnt", values) == "der Automat gewinnt"
    assert t("de", "winner_is", name="Automat") == "Der Automat gewinnt"  # a sentence starts with a capital
    assert grammar("de")["nouns"] == {
        "Automat": {"nom": "der Automat", "acc": "den Automaten", "gen": "des Automaten"},
        "Gegner": {"nom": "der Gegner", "acc": "den Gegner", "gen": "des Gegners"},
    }
    assert grammar("en") == grammar("fr") == grammar("ja") == {}


def test_english_and_french_sentences_are_unchanged_by_the_german_rules() -> None:
    event = Event(EventKind.RETURNED, "R3.8", player=1, card="BRUTE")
    assert event_sentence(event, Context(lang="en", names=("Player", "Opponent"))) == (
        "Brute returns to Opponent's hand, rightmost"
    )
    french = event_sentence(event, Context(lang="fr", names=("Joueur", "Automate")))
    assert "Automate" in french and "des Automaten" not in french


# ---------------------------------------------------------------------------- places and picks


@pytest.mark.parametrize(
    ("lang", "place"), [("en", "place 1"), ("de", "Platz 1"), ("fr", "place 1"), ("ja", "1番目")]
)
def test_an_event_counts_places_from_one(lang: str, place: str) -> None:
    event = Event(
        EventKind.CAST,
        "R5.2",
        player=0,
        card="BOOM",
        lane="top",
        position=0,
        target_player=1,
        target_card="ZOMBIE",
    )
    text = event_sentence(event, Context(lang=lang, names=("A", "B")))
    assert place in text, text
    assert " 0)" not in text and "0）" not in text


@pytest.mark.parametrize("lang", LANGUAGES)
def test_a_pick_never_reads_as_if_it_cost_mana(lang: str) -> None:
    label = phrase(lang, "action.pick", card="Brute", cost=4)
    assert "4" not in label and "Mana" not in label and "mana" not in label and "マナ" not in label, label
    prompt = phrase(lang, "prompt.pick")
    free = {"en": "free", "de": "kostenlos", "fr": "gratuit", "ja": "無料"}[lang]
    assert free in prompt, prompt
