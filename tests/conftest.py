"""Shared test helpers: random solo positions and random play (fixtures, so any test module can use them).

Kept small on purpose: every module that needs more builds it locally.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

import pytest

from clashofdecks import CARDS, Game

CARD_IDS = [c.id for c in CARDS]


def solo_position(rng: random.Random, **extra: Any) -> dict[str, Any]:
    """A solo quick-game start (R7.1) with a random split of the 32 cards: the player holds 8 cards
    behind the Bastion, the automaton deck holds the other 24 above its Bastion; turn 1, the player
    to act with 6 mana.  ``extra`` adds or overrides top-level keys (``threat``, ``ruleset``...)."""
    cards = CARD_IDS[:]
    rng.shuffle(cards)
    position: dict[str, Any] = {
        "mode": "solo",
        "turn": 1,
        "active": 0,
        "phase": "summon",
        "mana": 6,
        "players": [
            {"hand": ["BASTION", *cards[:8]], "lanes": {"top": [], "bottom": []}},
            {
                "automaton": True,
                "deck": [*cards[8:], "BASTION"],
                "discard": [],
                "lanes": {"top": [], "bottom": []},
            },
        ],
    }
    position.update(extra)
    return position


def play_randomly(game: Game, rng: random.Random, max_actions: int | None = None) -> Game:
    """Apply uniformly random legal actions until the game ends (or ``max_actions`` were applied)."""
    n = 0
    while not game.is_over() and (max_actions is None or n < max_actions):
        game.apply(rng.choice(game.legal_actions()))
        n += 1
    return game


@pytest.fixture(scope="session")
def make_solo_position() -> Callable[..., dict[str, Any]]:
    return solo_position


@pytest.fixture(scope="session")
def random_play() -> Callable[..., Game]:
    return play_randomly
