"""Actions as sentences and the prompt line (words/actions.py): every kind of action of the
notation, in every language, never shown as notation; and the catalogs behind them."""

from __future__ import annotations

import random
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from clashofdecks.cards import CARDS
from clashofdecks.formats import new_game
from clashofdecks.rules import Game
from clashofdecks.words import catalog, i18n
from clashofdecks.words.actions import describe_action, describe_sequence, prompt_line
from notation_grammar import is_notation

NAMES = ("Anna", "Ben")
LANGS = i18n.LANGUAGES


def test_the_notation_regex_recognises_notation_and_not_sentences() -> None:
    for text in (
        "play BRUTE top",
        "cast BOOM 1.top.0",
        "next",
        "end",
        "deck 2",
        "order OGRE TROLL",
        "pick ZOMBIE",
        "ban GNOME",
        "build ALPHA BRUTE",
        "chance coin 1",
        "chance ZOMBIE",
        "Play BRUTE",
    ):
        assert is_notation(text), text
    for text in (
        "Play Brute on the top lane (3 mana)",
        "Carapace auf die obere Bahn spielen (3 Mana)",
        "End the turn",
        "Take preconstructed deck 2",
        "Next attack: Ogre attacks Troll",
    ):
        assert not is_notation(text), text


def _build_action(game: Game, rng: random.Random) -> str:
    """A legal custom build (R2.5): ten cards, tried until the rules accept one."""
    for _ in range(200):
        ids = sorted(rng.sample([c.id for c in CARDS], 10))
        text = "build " + " ".join(ids)
        if game.is_legal(game.parse_action(text)):
            return text
    raise AssertionError("no legal build found")


def _check(game: Game, action: str, lang: str, seen: set[str]) -> None:
    sentence = describe_action(game, action, lang, names=NAMES)
    assert sentence and sentence != action, (lang, action)
    assert not is_notation(sentence), (lang, action, sentence)
    assert "{" not in sentence, sentence
    seen.add(action.split()[0])


@pytest.mark.parametrize("lang", LANGS)
def test_every_legal_action_of_random_games_reads_as_a_sentence(lang: str) -> None:
    seen: set[str] = set()
    rng = random.Random(lang)
    games = [("duel", f, False) for f in ("draft", "precon", "custom")] + [("solo", "draft", False)]
    games += [("duel", "draft", True)]  # chance as a player's decisions (OpenSpiel style)
    for n in range(24):
        mode, fmt, chance = games[n % len(games)]
        game = new_game(mode=mode, format=fmt, seed=n, external_chance=chance)
        for _ in range(120 if n < 5 else 60):
            if game.is_over():
                break
            try:
                legal = game.legal_action_texts()
            except Exception:  # the custom build stage lists no actions (C(32, 10) decks)
                legal = [_build_action(game, rng)]
            for action in legal:
                _check(game, action, lang, seen)
            game.apply_text(rng.choice(legal))
    assert seen >= {"play", "cast", "next", "end", "order", "deck", "pick", "build", "ban", "chance"}, seen


def test_sentences_name_cards_as_printed_with_their_cost() -> None:
    game = Game.from_hands([["CARAPACE", "OGRE", "BOOM"], ["GNOME", "TROLL"]])
    text = describe_action(game, "play CARAPACE top", "de")
    assert text == "Carapace auf die obere Bahn spielen (3 Mana)"
    assert describe_action(game, "play CARAPACE bottom", "en") == "Play Carapace on the bottom lane (3 mana)"
    assert describe_action(game, "play CARAPACE top", "ja").startswith("Carapaceを上のレーン")


def _duel_in_combat() -> Game:
    position = {
        "mode": "duel",
        "active": 0,
        "phase": "summon",
        "mana": 5,
        "players": [
            {"hand": ["BASTION", "BOOM", "ZOMBIE", "GNOME"], "lanes": {"top": ["OGRE"], "bottom": []}},
            {"hand": ["BASTION", "CYCLONE", "MUTANT"], "lanes": {"top": ["TROLL"], "bottom": []}},
        ],
    }
    from clashofdecks.position import load_position

    return load_position(position)


def test_ending_the_phase_or_the_turn_says_what_it_means_now_r3() -> None:
    game = _duel_in_combat()
    for lang in LANGS:
        assert describe_action(game, "end", lang) == i18n.phrase(lang, "action.end_summon")
    summon_prompt = prompt_line(game, "en", 0, names=NAMES)
    assert "Summoning" in summon_prompt and "Combat" in summon_prompt and "5 mana" in summon_prompt
    game.apply_text("end")  # to Combat: Ogre still to attack
    assert describe_action(game, "end", "en") == "End the turn: every remaining attack is made first"
    assert describe_action(game, "next", "en", names=NAMES) == "Next attack: Ogre attacks Troll"
    combat_prompt = prompt_line(game, "en", 0, names=NAMES)
    assert "next attack" in combat_prompt and "Ben's turn" in combat_prompt
    cast = next(a for a in game.legal_action_texts() if a.startswith("cast BOOM 1."))
    assert describe_action(game, cast, "en", names=NAMES) == "Cast Boom! on Troll in Ben's top lane (1 mana)"
    assert describe_action(game, cast, "fr", names=NAMES) == (
        "Lancer Boom! sur Troll dans la voie du haut de Ben (1 mana)"
    )
    game.apply_text("next")
    assert describe_action(game, "end", "en") == "End the turn"
    assert "unspent mana is lost" in prompt_line(game, "en", 0, names=NAMES)
    # The other player, a spectator: whom they wait for.
    assert prompt_line(game, "en", 1, names=NAMES) == "Waiting for Anna…"
    assert prompt_line(game, "de", None, names=NAMES, thinking=True) == "Anna denkt nach…"


def test_an_undo_says_what_it_took_back_as_sentences() -> None:
    game = _duel_in_combat()
    taken = ["play ZOMBIE top", "end"]
    assert describe_sequence(game, taken, "en", names=NAMES) == [
        "Play Zombie on the top lane (1 mana)",
        "End Summoning: on to Combat, your creatures attack",
    ]
    assert game.phase == "summon"  # not changed


def test_setup_prompts_say_the_decision() -> None:
    draft = new_game(mode="duel", format="draft", seed=1)
    assert prompt_line(draft, "en", draft.current_player, names=NAMES).startswith("Draft: take one")
    precon = new_game(mode="duel", format="precon", seed=1)
    assert "preconstructed" in prompt_line(precon, "en", precon.current_player, names=NAMES)
    custom = new_game(mode="duel", format="custom", seed=1)
    assert "10 cards" in prompt_line(custom, "en", custom.current_player, names=NAMES)


# ---------------------------------------------------------------------------- the catalogs


def test_every_catalog_has_every_key_with_the_same_placeholders() -> None:
    cats = catalog.catalogs()
    assert tuple(cats) == ("en", "de", "fr", "ja")
    english = cats["en"].messages
    for lang, cat in cats.items():
        assert set(cat.messages) == set(english), (lang, set(cat.messages) ^ set(english))
        for key, text in cat.messages.items():
            assert text, (lang, key)
            fields = {f for f in re.findall(r"\{(\w+)", text)}
            assert fields == set(re.findall(r"\{(\w+)", english[key])), (lang, key)


def test_every_phrase_key_the_code_uses_exists() -> None:
    import clashofdecks

    root = Path(clashofdecks.__file__).parent
    used: set[str] = set()
    for path in root.rglob("*.py"):
        text = path.read_text(encoding="utf-8")
        used |= set(re.findall(r"\bphrase\([^,()]+, \"([a-z_]+\.[a-z_0-9]+)\"", text))
        used |= {f"action.play_{lane}" for lane in ("top", "bottom")} if "action.play_" in text else set()
        if "action.cast_" in text:
            used |= {f"action.cast_{o}_{ln}" for o in ("own", "other") for ln in ("top", "bottom")}
        if "prompt.{verb}" in text:
            used |= {"prompt.pick", "prompt.deck", "prompt.ban"}
    assert len(used) > 20
    for lang in LANGS:
        missing = sorted(k for k in used if k not in catalog.catalogs()[lang].messages)
        assert not missing, (lang, missing)


def test_compiled_catalogs_are_current() -> None:
    pytest.importorskip("babel", reason="Babel (the dev extra) compiles the catalogs")
    from clashofdecks.words.compile_catalogs import stale

    assert not stale(), "run: python -m clashofdecks.words.compile_catalogs"


def test_plural_rules_come_from_each_catalog() -> None:
    assert catalog.singular("en", 1) and not catalog.singular("en", 0)
    assert catalog.singular("fr", 0) and catalog.singular("fr", 1) and not catalog.singular("fr", 2)
    assert catalog.singular("ja", 7)
    assert not catalog.singular("de", 2) and catalog.singular("de", 1)


# ---------------------------------------------------------------------------- a new language is new files


@pytest.fixture
def dummy_locale(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    from dummy_language import make_dummy_locale

    root = make_dummy_locale(tmp_path)
    monkeypatch.setenv(catalog.ENV_VAR, str(root))
    yield root
    monkeypatch.delenv(catalog.ENV_VAR)
    catalog.clear_cache()


def test_a_dummy_language_reaches_the_terminal_and_the_env_board_text(dummy_locale: Path) -> None:
    from clashofdecks.terminal.render import Context, render_game
    from dummy_language import MARK
    from test_render import text_of

    assert i18n.languages() == ("en", "de", "fr", "ja", "xx")
    assert i18n.check_language("xx") == "xx"
    assert i18n.language_name("xx") == "Dummy"
    assert i18n.t("xx", "places_left", n=1) == MARK + "1 place left"  # English plural rule
    game = _duel_in_combat()
    screen = text_of(render_game(game, Context(lang="xx", names=NAMES, viewer=0)))
    assert MARK + "Bastion" in screen and MARK + "Summoning" in screen and "Ben's hand" in screen
    assert describe_action(game, "play ZOMBIE top", "xx") == MARK + "Play Zombie on the top lane (1 mana)"
    assert prompt_line(game, "xx", 0, names=NAMES).startswith(MARK + "Summoning")
    assert i18n.web_words("xx")["undo"] == MARK + "Undo"
    pytest.importorskip("gymnasium", reason="the rl extra is not installed")
    from clashofdecks.envs.gym_env import board_text
    from clashofdecks.envs.match import Match
    from clashofdecks.options import Ruleset

    match = Match(mode="duel", format="random", seed=3, ruleset=Ruleset())
    board = board_text(match, 0, "xx")
    assert MARK.strip() in board
    assert MARK.strip() not in board_text(match, 0, "en")


def test_no_catalog_names_a_message_twice() -> None:
    """A key added twice (two changes merged) would let the compiled catalog keep either text."""
    for po in sorted(catalog.locale_dir().glob("*/LC_MESSAGES/*.po")):
        ids = re.findall(r'^msgid "(.+)"$', po.read_text(encoding="utf-8"), re.MULTILINE)
        twice = sorted({i for i in ids if ids.count(i) > 1})
        assert not twice, (po, twice)


def test_a_pinned_catalog_folder_is_read_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``clash serve`` pins the catalogs' folder at its start (words/catalog.py): a change of
    ``CLASH_LOCALE_DIR`` afterwards changes nothing in that process; unpinned, it does."""
    monkeypatch.setattr(catalog, "_PINNED", None)
    monkeypatch.delenv("CLASH_LOCALE_DIR", raising=False)
    folder = catalog.pin_locale_dir()
    hand = catalog.lookup("en", "ui.hand")
    monkeypatch.setenv("CLASH_LOCALE_DIR", str(tmp_path))  # no catalogs there
    assert catalog.locale_dir() == folder and catalog.lookup("en", "ui.hand") == hand
    monkeypatch.setattr(catalog, "_PINNED", None)
    assert catalog.locale_dir() == tmp_path
