"""The terminal screen as text: what each part shows, hidden cards (R9), events, translations."""

from __future__ import annotations

import random
import re
import string
from typing import Any

import pytest
from rich.console import Console, RenderableType

from clashofdecks import CARDS, EventKind, Game, load_position
from clashofdecks.formats import new_game
from clashofdecks.ui import i18n
from clashofdecks.ui.render import (
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
    lines = [text_of(render_event(e, CTX)).strip() for e in events]
    hit = [line for line in lines if "Brute" in line and "directly" in line]
    assert hit, lines
    assert "Bob" in hit[0] and "for 5" in hit[0] and "[R3.7]" in hit[0]
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
        while not game.is_over():
            for event in game.apply(rng.choice(game.legal_actions())):
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
    for table in (i18n._UI, i18n._EVENTS, i18n._ABILITY_TEXT):
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
