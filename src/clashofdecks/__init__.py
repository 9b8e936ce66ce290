"""Clash of Decks: an exact, fast rules engine for the two-lane card game by Grammes Edition.

>>> from clashofdecks import Game
>>> game = Game.random_duel(seed=1)
>>> game.current_player, game.mana
(0, 6)
>>> "end" in game.legal_action_texts()
True
"""

from __future__ import annotations

__version__ = "0.1.0"

from .actions import ACTION_SPACE, format_action, parse_action
from .board_svg import game_svg
from .cards import CARDS, Card, UnknownCardError, card
from .errors import (
    ActionSyntaxError,
    ClashError,
    IllegalActionError,
    InvalidPositionError,
    RecordError,
    ScenarioError,
)
from .events import Event, EventKind
from .options import LEVELS, Ruleset, Threat, ThreatError
from .position import dump_position, load_position, sample_determinization, view
from .rules import Game, GameState, Outcome, Termination, register_board_drawer

register_board_drawer(game_svg)

__all__ = [
    "ACTION_SPACE",
    "CARDS",
    "LEVELS",
    "ActionSyntaxError",
    "Card",
    "ClashError",
    "Event",
    "EventKind",
    "Game",
    "GameState",
    "IllegalActionError",
    "InvalidPositionError",
    "Outcome",
    "RecordError",
    "Ruleset",
    "ScenarioError",
    "Termination",
    "Threat",
    "ThreatError",
    "UnknownCardError",
    "__version__",
    "card",
    "dump_position",
    "format_action",
    "load_position",
    "parse_action",
    "sample_determinization",
    "view",
]
