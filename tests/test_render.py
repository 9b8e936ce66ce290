"""The terminal screen as text: what each part shows, hidden cards (R9), events, translations."""

from __future__ import annotations

import random
import re
import string
from dataclasses import replace
from typing import Any

import pytest
from rich.console import Console, RenderableType

from clashofdecks import CARDS, EventKind, Game, load_position
from clashofdecks.formats import new_game
from clashofdecks.terminal.render import (
    Context,
    event_sentence,
    render_actions,
    render_board,
    render_event,
    render_game,
    render_hand,
    render_help,
    render_status,
)
from clashofdecks.words import i18n
from random_play import random_steps

POSITION: dict[str, Any] = {
    "mode": "duel",
    "turn": 3,
    "active": 0,
    "phase": "combat",
    "mana": 2,
    "players": [
        {
            "hand": ["ZOMBIE", "BASTION", "BARON", "BOOM"],
            "lanes": {"top": [{"card": "BRUTE", "damage": 2}, "MACHINE"], "bottom": []},
        },
        {
            "hand": ["FORT", "GNOME", "TROLL"],
            "lanes": {"top": [], "bottom": [{"card": "ALPHA", "new": True}]},
        },
    ],
}
CTX = Context(lang="en", names=("Ann", "Bob"), viewer=0)


def text_of(renderable: RenderableType, width: int = 140) -> str:
    console = Console(width=width, record=True, no_color=True, file=open("/dev/null", "w"))  # noqa: SIM115
    console.print(renderable)
    return console.export_text()


def test_board_shows_creatures_with_attack_health_damage_and_granted_abilities_r6_8() -> None:
    game = load_position(POSITION)
    out = text_of(render_board(game, CTX))
    assert "Ann's realm" in out and "Bob's realm" in out
    # Brute: attack 5 / health 5, 2 damage taken, Protection granted by Machine's Aura (marked *).
    assert "0.top.0" in out and "Brute" in out and "5/5 −2" in out
    assert "Protection*" in out
    # Machine's own Aura is listed, and it does not have Protection itself.
    assert "Aura: Protection" in out
    # The new Alpha on the other side, at address 1.bottom.0, with its printed abilities.
    assert "1.bottom.0" in out and "Alpha" in out and "new" in out and "Indestructible" in out


def test_board_orders_the_viewers_creatures_towards_the_bridge_r1_2() -> None:
    game = load_position(POSITION)
    lines = text_of(render_board(game, CTX)).splitlines()
    top = next(line for line in lines if "0.top.1" in line)
    # The viewer's realm is drawn far → bridge: position 1 (Machine) left of position 0 (Brute).
    assert top.index("0.top.1") < top.index("0.top.0")


def test_opponent_hand_hides_cards_but_not_the_fortress_r9_2() -> None:
    game = load_position(POSITION)
    out = text_of(render_hand(game, 1, CTX))
    assert "[Fort] ? ?" in out
    assert "Gnome" not in out and "Troll" not in out
    # A spectator (viewer None, as in replays) sees everything.
    spectator = text_of(render_hand(game, 1, Context(names=("Ann", "Bob"), viewer=None)))
    assert "Gnome" in spectator and "Troll" in spectator


def test_own_hand_in_order_with_the_playable_cards_and_fortress_marked_r3_2() -> None:
    game = Game.random_duel(seed=3)
    out = text_of(render_hand(game, 0, Context(names=("Ann", "Bob"), viewer=0)))
    rows = [line for line in out.splitlines() if re.match(r"\s*\d+\s", line)]
    assert len(rows) == 9  # Bastion + 8 cards
    marked = [r for r in rows if "▶" in r]
    playable = game.playable_cards(0)
    assert len(marked) == 4
    for row, cid in zip(marked, playable, strict=True):
        assert CARDS[[c.id for c in CARDS].index(cid)].name in row
    assert "■" in rows[0] and "Bastion" in rows[0] and "8 places left" in rows[0]


def test_status_line_shows_turn_player_phase_and_mana() -> None:
    game = load_position(POSITION)
    out = text_of(render_status(game, CTX))
    assert "Turn 3" in out and "Ann to play" in out and "Combat" in out and "mana 2" in out


def test_solo_screen_shows_the_automaton_deck_and_discard_counts_r7() -> None:
    game = new_game(mode="solo", format="draft", seed=11)
    while game.phase == "setup":
        game.apply(game.legal_actions()[0])
    game.apply_text("end")
    game.apply_text("end")  # the automaton's turn resolves inside this action
    out = text_of(render_game(game, Context(names=("Player", "Automaton"), viewer=0)))
    assert f"deck: {game.automaton_deck_size} cards above its fortress" in out
    assert f"discard pile: {len(game.automaton_discard)}" in out
    assert "Bastion · 24 places left" in out or "places left" in out


def test_setup_screen_shows_the_four_revealed_draft_cards_r7_1() -> None:
    game = new_game(mode="solo", format="draft", seed=2)
    out = text_of(render_game(game, Context(names=("Player", "Automaton"), viewer=0)))
    revealed = [game.action_text(a).split()[1] for a in game.legal_actions()]
    assert len(revealed) == 4
    for cid in revealed:
        assert cid in out
    assert "Draft" in out


def test_actions_are_numbered_from_one_in_the_engine_order() -> None:
    game = Game.random_duel(seed=5)
    texts = game.legal_action_texts()
    out = text_of(render_actions(game, texts, Context(names=("Ann", "Bob"), viewer=0)), width=300)
    for i, text in enumerate(texts, start=1):
        assert f"{i}. {text}" in out


def test_attack_event_is_rendered_with_names_amount_and_rule_r3_7() -> None:
    game = load_position(POSITION)
    events = game.apply_text("end")
    lines = [text_of(render_event(e, replace(CTX, rule_numbers=True))).strip() for e in events]
    hit = [line for line in lines if "Brute" in line and "directly" in line]
    assert hit, lines
    assert "Bob" in hit[0] and "for 5" in hit[0] and "[R3.7]" in hit[0]
    # A player sees no rule numbers unless asked (clash play --rule-numbers).
    assert all("[R" not in text_of(render_event(e, CTX)) for e in events)
    moved = [line for line in lines if "fortress moves" in line]
    assert moved and "[R4.1]" in moved[0]
    # Bob's Fort had 2 places left: 5 damage ends the game (R4.3).
    assert any("Ann wins" in line for line in lines)


def test_destruction_and_return_are_rendered_r3_8() -> None:
    position = {
        "mode": "duel",
        "active": 0,
        "phase": "combat",
        "mana": 0,
        "players": [
            {"hand": ["BASTION", "ZOMBIE", "BARON"], "lanes": {"top": ["BRUTE"], "bottom": []}},
            {"hand": ["BASTION", "GNOME", "TROLL"], "lanes": {"top": ["GRRR"], "bottom": []}},
        ],
    }
    game = load_position(position)
    events = game.apply_text("end")
    text = "\n".join(text_of(render_event(e, CTX)) for e in events)
    assert "Brute attacks Grrr for 5" in text
    assert "Grrr takes 5 (target), damage 5/3" in text
    assert "Bob's Grrr is destroyed" in text
    assert "Grrr returns to Bob's hand, rightmost" in text


@pytest.mark.parametrize("lang", i18n.LANGUAGES)
def test_every_event_of_random_games_renders_in_every_language(lang: str) -> None:
    ctx = Context(lang=lang, names=("A", "B"), viewer=0)
    seen: set[EventKind] = set()
    for seed in range(6):
        rng = random.Random(seed)
        mode = "solo" if seed % 2 else "duel"
        game = new_game(mode=mode, format="draft", seed=seed)
        for _, events in random_steps(game, rng):
            for event in events:
                seen.add(event.kind)
                sentence = event_sentence(event, ctx)
                assert sentence and "{" not in sentence and "}" not in sentence, (event, sentence)
                render_event(event, ctx)
    assert {EventKind.ATTACKED, EventKind.DESTROYED, EventKind.FORTRESS_MOVED, EventKind.GAME_OVER} <= seen


def test_german_screen_uses_german_words_and_ability_names() -> None:
    game = load_position(POSITION)
    ctx = Context(lang="de", names=("Ann", "Bob"), viewer=0)
    out = text_of(render_game(game, ctx))
    assert "Zug 3" in out and "Kampf" in out and "Schutz*" in out and "Unzerstörbar" in out
    assert "Brute" in out  # card names stay as printed
    events = game.apply_text("end")
    assert any("greift" in event_sentence(e, ctx) or "trifft" in event_sentence(e, ctx) for e in events)


def _placeholders(template: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(template) if name}


def test_every_translation_is_complete_and_uses_the_same_placeholders() -> None:
    for table in i18n.translation_tables().values():
        for key, row in table.items():
            assert len(row) == len(i18n.LANGUAGES), key
            assert all(row), key
            names = {frozenset(_placeholders(text)) for text in row}
            assert len(names) == 1, (key, row)
    for lang in i18n.LANGUAGES:
        assert len(i18n.rules_summary(lang)) == len(i18n.rules_summary("en"))
        for line in i18n.rules_summary(lang):
            assert re.match(r"R\d", line), line


def test_help_lists_commands_rules_and_every_ability_with_its_rule() -> None:
    out = text_of(render_help("en"))
    for word in ("undo", "save FILE", "hint", "quit", "R3.2", "R4.2", "R7.8"):
        assert word in out
    for rule, name in (("R6.1", "Splash"), ("R6.5", "Indestructible"), ("R6.8", "Aura")):
        assert rule in out and name in out
    assert "Flächenschaden" in text_of(render_help("de"))
    assert "スプラッシュ" in text_of(render_help("ja"))


def test_a_crowded_lane_on_a_narrow_screen_is_drawn_one_creature_per_line() -> None:
    crowd = ["OGRE", "BRUTE", "BARON", "TROLL", "ALPHA", "GNOME", "GRRR"]
    position = {
        "mode": "duel",
        "active": 0,
        "phase": "summon",
        "mana": 3,
        "players": [
            {"hand": ["BASTION", "ZOMBIE"], "lanes": {"top": [], "bottom": []}},
            {"hand": ["BASTION", "BOOM"], "lanes": {"top": crowd, "bottom": []}},
        ],
    }
    game = load_position(position)
    narrow = text_of(render_board(game, Context(names=("Ann", "Bob"), viewer=0, width=80)), width=80)
    for i, cid in enumerate(crowd):
        line = next(line for line in narrow.splitlines() if f"1.top.{i} " in line)
        assert CARDS[[c.id for c in CARDS].index(cid)].name in line
    wide = text_of(render_board(game, Context(names=("Ann", "Bob"), viewer=0, width=300)), width=300)
    assert "╭─ 1.top.6" in wide  # boxes when they fit


# ---------------------------------------------------------------------------- translations: nothing missing

#: Rows whose translation is the same text as the English (the same word in that language, or notation).
SAME_AS_ENGLISH = {
    ("phase", "fr"),
    ("phase_combat", "fr"),
    ("mana", "fr"),
    ("incantation", "fr"),
    ("col_id", "fr"),
    ("mode_solo", "fr"),
    ("mode_duel", "fr"),
    ("format_draft", "fr"),
    ("bastion", "de"),
    ("bastion", "fr"),
    ("fort", "de"),
    ("fort", "fr"),
    ("aura_grants", "de"),
    ("plays", "de"),
    ("handover_prompt", "de"),
    ("handover_prompt", "ja"),
    *((key, lang) for key in ("prompt", "choices_hint", "setup") for lang in ("de", "fr", "ja")),
    ("list_separator", "de"),
    ("list_separator", "fr"),
}

#: The same for the web page's words (the ``web`` section of the catalogs).
SAME_AS_ENGLISH_WEB = {
    ("combat", "fr"),
    ("incantation", "fr"),
    *((key, lang) for key in ("deck", "draft", "format", "mana", "phase", "title") for lang in ("de", "fr")),
    ("hand", "de"),
    ("lobby", "de"),
    ("tutorial", "de"),
    ("an_mistake", "de"),  # "{name}: {action}"
    ("an_change", "de"),  # "{label} ({name}): {before}% → {after}%"
    ("dur_hours", "fr"),  # "{h} h {m} min"
    ("mode_duel", "fr"),
    ("mode_solo", "de"),
    ("mode_solo", "fr"),
    ("bot_badge", "fr"),  # "bot"
    *(
        (key, lang) for key in ("leaderboard_bots", "t_buchholz") for lang in ("de", "fr")
    ),  # "Bots", "Buchholz"
    ("t_score", "fr"),  # "Points"
    ("tournament_arena", "de"),  # "Arena"
}


def test_every_string_is_translated_in_every_language() -> None:
    """No row of any table falls back to English: each language has its own text, except the rows
    listed above (checked to be still needed, so the list cannot rot)."""
    same = set()
    same_web = set()
    for section, table in i18n.translation_tables().items():
        for key, row in table.items():
            for lang, text in zip(i18n.LANGUAGES[1:], row[1:], strict=True):
                assert text, (section, key, lang)
                if text == row[0]:
                    (same_web if section == "web" else same).add((key, lang))
    assert same == SAME_AS_ENGLISH
    assert same_web == SAME_AS_ENGLISH_WEB


def test_every_key_the_front_end_uses_exists() -> None:
    """Every literal key passed to ``t``/``say`` in the terminal front end is in the table."""
    from pathlib import Path

    import clashofdecks

    root = Path(clashofdecks.__file__).parent
    used: set[str] = set()
    for path in [*root.joinpath("words").glob("*.py"), *root.joinpath("terminal").glob("*.py")]:
        text = path.read_text(encoding="utf-8")
        used |= set(re.findall(r"\bt\([^,()]+, \"([a-z_0-9]+)\"", text))
        used |= set(re.findall(r"\bsay\(\s*\"([a-z_0-9]+)\"", text))
    assert len(used) > 60
    missing = sorted(key for key in used if not i18n.has_key(key))
    assert not missing


#: English UI words that must not appear on a German, French or Japanese screen.
ENGLISH = (
    "'s realm",
    "'s hand",
    "'s cards",
    "Your choices",
    "Choices of",
    "playable",
    "places left",
    "place left",
    "Turn ",
    "Summoning",
    " to play",
    " decides",
    "fortress",
    "deck:",
    "discard pile",
    "(empty)",
    "bridge",
    "far →",
    "revealed",
    "face down",
    "Commands",
    "Rules",
    "choose the numbered",
    "take back",
    "draw the screen",
    "leave the game",
    "hidden card",
    "granted by",
    "cost ",
    "damage ",
    " wins",
    "attacks",
    "directly",
    "to Combat",
    "end the turn",
    "the 32 cards",
    "chooses",
    "picks",
    "Protection used",
    "abilities",
    "cards",
    "Automaton",
    "automaton",
    "Player",
    "setup",
    "preconstructed",
    "CARD",
    "seed",
    "threat",
    "reached",
    "rightmost",
    "Hint",
    "rollout",
)


def _screens(lang: str) -> list[str]:
    """Text of every kind of screen in ``lang``: setup (draft, decks, card pool), solo and duel
    games (full and compact, own and hidden hands), choices with glosses, help, game over, events."""
    from clashofdecks.terminal.game import score_words
    from clashofdecks.terminal.line_reader import localised_names
    from clashofdecks.terminal.render import render_screen

    out: list[str] = []
    solo_names = localised_names(("@player", "@automaton"), lang)
    duel_names = localised_names(("@player 1", "@player 2"), lang)
    solo = new_game(mode="solo", format="draft", seed=4)
    out.append(text_of(render_game(solo, Context(lang=lang, names=solo_names))))
    rng = random.Random(1)
    while solo.phase == "setup":
        solo.apply(rng.choice(solo.legal_actions()))
    for _ in range(40):
        if solo.is_over():
            break
        ctx = Context(lang=lang, names=solo_names, width=80)
        texts = solo.legal_action_texts()
        out.append(text_of(render_screen(solo, texts, ctx, height=None), width=120))
        out.append(text_of(render_screen(solo, texts, ctx, height=24, layout="compact"), width=80))
        for event in solo.apply(rng.choice(solo.legal_actions())):
            out.append(event_sentence(event, ctx))
    duel = new_game(mode="duel", format="precon", seed=2)
    out.append(text_of(render_game(duel, Context(lang=lang, names=duel_names))))
    custom = new_game(mode="duel", format="custom", seed=2)
    out.append(text_of(render_game(custom, Context(lang=lang, names=duel_names))))
    game = load_position(POSITION)
    ctx = Context(lang=lang, names=duel_names, viewer=0)
    out.append(text_of(render_screen(game, game.legal_action_texts(), ctx, height=24, layout="compact")))
    out.append(text_of(render_screen(game, game.legal_action_texts(), ctx)))
    for event in game.apply_text("end"):
        out.append(event_sentence(event, ctx))
    out.append(text_of(render_status(game, ctx)))
    out.append(text_of(render_help(lang)))
    out.append(score_words("rollout score", 0.5, lang))
    return out


@pytest.mark.slow
@pytest.mark.parametrize("lang", ["de", "fr", "ja"])
def test_no_english_ui_word_on_any_screen(lang: str) -> None:
    text = "\n".join(_screens(lang))
    for card in CARDS:  # card names stay as printed
        text = text.replace(card.name, "")
    leaks = [word for word in ENGLISH if word in text]
    assert not leaks, leaks
    assert "royaume de Automate" not in text and "de l'Automate" in _screens("fr")[2] + text


def test_singular_and_plural_forms() -> None:
    assert i18n.t("en", "places_left", n=1) == "1 place left"
    assert i18n.t("en", "places_left", n=2) == "2 places left"
    assert i18n.t("de", "places_left", n=1) == "noch 1 Platz"
    assert i18n.t("fr", "places_left", n=0) == "encore 0 place"
    assert i18n.t("en", "saved", path="g.json", n=1) == "Game saved to g.json (1 action)."
    assert i18n.event_text("en", "fortress_moved", who="Ann", n=1) == "Ann's fortress moves 1 place right"


def test_french_elides_de_before_a_vowel_and_names_the_automaton_with_its_article() -> None:
    assert i18n.t("fr", "realm_of", name="Ismcts") == "royaume d'Ismcts"
    assert i18n.t("fr", "realm_of", name="l'Automate") == "royaume de l'Automate"
    assert i18n.t("fr", "winner_is", name="l'Automate") == "L'Automate gagne"
    assert i18n.t("fr", "realm_of", name="Joueur 2") == "royaume de Joueur 2"


# ---------------------------------------------------------------------------- choices, glosses, game over


def test_precon_decks_are_chosen_by_their_own_numbers_r2_3() -> None:
    from clashofdecks.terminal.render import numbered_choices

    game = new_game(mode="duel", format="precon", seed=1)
    game.apply_text("deck 2")
    texts = game.legal_action_texts()
    assert numbered_choices(game, texts) == [(1, "deck 1"), (3, "deck 3"), (4, "deck 4")]
    out = text_of(render_actions(game, texts, Context(names=("A", "B"), viewer=game.current_player)))
    assert " 3. deck 3" in out and " 2. deck 3" not in out


def test_draft_choices_are_numbered_in_the_order_of_the_revealed_table_r2_4() -> None:
    from clashofdecks.formats import setup_summary
    from clashofdecks.terminal.render import numbered_choices

    for seed in range(5):
        game = new_game(mode="solo", format="draft", seed=seed)
        revealed = list(setup_summary(game)["revealed"])  # type: ignore[call-overload]
        numbered = numbered_choices(game, game.legal_action_texts())
        assert [text.split()[1] for _, text in numbered] == revealed
        table = text_of(render_game(game, Context(names=("A", "B"), viewer=0)))
        for n, text in numbered:
            assert re.search(rf"│ {n} │ {text.split()[1]} ", table), table


def test_next_says_which_creature_attacks_what_r3_5() -> None:
    """One ``describe_action`` (clashofdecks.words) says it for every screen; the compact screen
    keeps only the attack."""
    from clashofdecks.words import describe_action

    game = load_position(POSITION)  # Ann's Machine (far) attacks first; Bob's top lane is empty
    ctx = Context(names=("Ann", "Bob"), viewer=0)
    names = ("Ann", "Bob")
    assert describe_action(game, "next", "en", names=names) == "Next attack: Machine attacks Bob directly"
    assert (
        describe_action(game, "end", "en", names=names)
        == "End the turn: every remaining attack is made first"
    )
    compact = text_of(render_actions(game, ["next", "end"], ctx, compact=2))
    assert "(Machine attacks Bob directly)" in compact
    position = dict(
        POSITION,
        players=[
            POSITION["players"][0],
            {"hand": ["FORT", "GNOME"], "lanes": {"top": ["TROLL"], "bottom": []}},
        ],
    )
    game = load_position(position)
    assert describe_action(game, "next", "de", names=names).endswith("Machine greift Troll an")
    german = Context(lang="de", names=("Ann", "Bob"))
    assert "(Machine greift Troll an)" in text_of(render_actions(game, ["next"], german, compact=1))


def test_there_is_one_describe_action() -> None:
    """Issue 37, item 1: the terminal's screens say an action with the words package's sentence;
    no second ``describe_action`` is written anywhere in the package."""
    import ast
    from pathlib import Path

    import clashofdecks

    root = Path(clashofdecks.__file__).parent
    defined = sorted(
        str(path.relative_to(root))
        for path in root.rglob("*.py")
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, ast.FunctionDef) and node.name == "describe_action"
    )
    assert defined == ["session.py", "words/actions.py"]  # the session's method hands on to words


def test_game_over_names_the_players_not_seat_numbers() -> None:
    game = load_position(POSITION)
    events = game.apply_text("end")
    over = [event_sentence(e, CTX) for e in events if e.kind is EventKind.GAME_OVER]
    assert over == ["Ann wins! (Bob's Fort reached the rightmost place (R4.3))"]
    status = text_of(render_status(game, CTX))
    assert "Ann wins" in status and "Bob's Fort reached" in status and "player 1" not in status
    assert "Bobs Fort" not in text_of(render_status(game, Context(lang="de", names=("Ann", "Bob"))))


# ---------------------------------------------------------------------------- the compact screen


@pytest.mark.slow
def test_compact_screen_fits_80x24_through_random_games() -> None:
    """At 80×24 (23 lines and the prompt) every decision of random solo and duel games shows the
    status, both fortresses, both lanes and the choices, unless a lane is crowded (> 3 creatures a
    side) or there are more than 15 choices; the screen always keeps the player's fortress line."""
    from clashofdecks.terminal.render import measure_lines, render_screen

    checked = 0
    for seed in range(8):
        rng = random.Random(seed)
        mode = "solo" if seed % 2 else "duel"
        game = new_game(mode=mode, format="draft", seed=seed)
        names = ("Player", "Automaton") if mode == "solo" else ("Player 1", "Player 2")
        while not game.is_over():
            if game.phase != "setup" and game.current_player in (0, 1):
                ctx = Context(names=names, viewer=game.current_player, width=80)
                texts = game.legal_action_texts()
                screen = render_screen(game, texts, ctx, height=24, commands="help · hint")
                lines = text_of(screen, width=80).splitlines()
                crowded = max(len(game.lane(s, ln)) for s in (0, 1) for ln in ("top", "bottom")) > 3
                if not crowded and len(texts) <= 15:
                    assert measure_lines(screen, 80) <= 23, "\n".join(lines)
                    text = "\n".join(lines)
                    assert text.count("places left") + text.count("place left") >= 2, text
                    assert re.search(r"^top", text, re.M) and re.search(r"^bottom", text, re.M)
                    assert " 1. " in text
                    checked += 1
            game.apply(rng.choice(game.legal_actions()))
    assert checked > 200


def test_a_large_screen_uses_the_full_layout_and_a_small_one_the_compact() -> None:
    from clashofdecks.terminal.render import render_screen

    game = load_position(POSITION)
    texts = game.legal_action_texts()
    big = text_of(render_screen(game, texts, Context(names=("Ann", "Bob"), width=160), height=50), width=160)
    assert "╭─ 0.top.0" in big and "Machine attacks Bob directly" in big  # boxes and glosses
    small = text_of(render_screen(game, texts, Context(names=("Ann", "Bob"), width=80), height=24), width=80)
    assert "╭─" not in small and "0.top.0 Brute" in small


def test_the_plain_board_hides_what_the_viewer_may_not_see_r9() -> None:
    """The environments' text board (clashofdecks.words.plain_board): no Rich, no colour codes; the
    opponent's hand as ``?`` (R9.2), each creature with its address, attack/health and damage."""
    from clashofdecks.words import Context as Reader
    from clashofdecks.words import plain_board

    game = load_position(POSITION)
    mine = plain_board(game, Reader(names=("Ann", "Bob"), viewer=0))
    assert "\x1b[" not in mine and "0.top.0 Brute" in mine and "−2" in mine
    assert "Gnome" not in mine and "?" in mine  # Bob's hand is hidden from Ann
    everyone = plain_board(game, Reader(names=("Ann", "Bob"), viewer=None))
    assert "Gnome" in everyone and "Troll" in everyone
