"""The SVG board drawer (``clashofdecks.ui.svg``): well-formed pictures that show what the position holds."""

from __future__ import annotations

import random
import xml.etree.ElementTree as ET

from clashofdecks.formats import new_game
from clashofdecks.position import load_position
from clashofdecks.ui.svg import game_svg, position_svg


def _texts(svg: str) -> list[str]:
    root = ET.fromstring(svg)
    return [t.text or "" for t in root.iter("{http://www.w3.org/2000/svg}text")]


def test_setup_and_play_phases_draw() -> None:
    game = new_game(mode="duel", format="draft", seed=4)
    svg = game_svg(game)
    assert any(t.startswith("revealed:") for t in _texts(svg))
    rng = random.Random(4)
    while game.phase == "setup":
        game.apply(rng.choice(list(game.legal_actions())))
    for _ in range(30):
        if game.is_over():
            break
        game.apply(rng.choice(list(game.legal_actions())))
    texts = _texts(game_svg(game))
    for p in (0, 1):
        for cr in game.lane(p, "top") + game.lane(p, "bottom"):
            card = str(cr["card"])
            assert any(t.upper().startswith(card[:9].upper()) for t in texts), card


def test_a_view_hides_what_r9_hides() -> None:
    game = new_game(mode="duel", format="precon", seed=2)
    game.apply_text("deck 1")
    game.apply_text("deck 2")
    svg = game_svg(game, player=0)
    assert _texts(svg).count("?") == 8  # the opponent's hand: 8 cards behind the Bastion
    assert _texts(game_svg(game)).count("?") == 0


def test_granted_abilities_are_marked() -> None:
    # ALPHA's Aura grants abilities to its neighbours (card data); the neighbour shows them.
    from clashofdecks.cards import CARDS

    aura = next(c for c in CARDS if c.aura)
    plain = next(c for c in CARDS if c.is_creature and not c.aura and not set(aura.aura) & set(c.abilities))
    position = {
        "mode": "duel",
        "turn": 1,
        "active": 0,
        "phase": "summon",
        "mana": 6,
        "players": [
            {"hand": ["BASTION", "BOOM"], "lanes": {"top": [plain.id, aura.id], "bottom": []}},
            {"hand": ["BASTION", "OGRE"], "lanes": {"top": [], "bottom": []}},
        ],
    }
    svg = game_svg(load_position(position))
    root = ET.fromstring(svg)
    marked = [
        t for t in root.iter("{http://www.w3.org/2000/svg}text") if t.get("text-decoration") == "underline"
    ]
    assert marked, "no granted ability drawn"
    assert position_svg(position).startswith("<svg")
