"""Helpers shared by the mtgrules tests (imported by module name; pytest puts this folder on sys.path)."""

from __future__ import annotations

from pathlib import Path

from mtgrules.game import Game

SCENARIO_DIR = Path(__file__).parent / "scenarios"


def combat_game(attackers: dict[str, str], blockers: dict[str, str]) -> Game:
    """A game at the start of A's declare attackers step with the given creatures (id -> card name)."""
    g = Game()
    for cid, name in attackers.items():
        g.add_card(cid, name, "A", "battlefield")
    for cid, name in blockers.items():
        g.add_card(cid, name, "B", "battlefield")
    g.start(active="A", step="declare_attackers", turn=3)
    return g
