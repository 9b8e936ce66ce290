"""The rules engine: game state, legal actions, resolution, undo.

One :class:`Game` holds a duel or a solo game.  Every decision is an integer action of the player
whose decision it is (:attr:`Game.current_player`); :meth:`Game.apply` resolves it (verifying
first, so a refused action changes nothing), :meth:`Game.undo` takes it back exactly, and
:meth:`Game.clone` copies the game.

>>> game = Game.random_duel(seed=1)
>>> game.phase, game.current_player, game.action_text(game.legal_actions()[0])
('summon', 0, 'end')
>>> events = game.apply_text("end")
>>> game.phase
'combat'
>>> game.undo() == game.parse_action("end"), game.phase
(True, 'summon')

The package is split by responsibility (docs/architecture.md, "The engine's rooms"): :mod:`.state`
(the values), :mod:`.tables`, :mod:`.core` (the fields every room shares), :mod:`.chance`,
:mod:`.views`, :mod:`.legality`, :mod:`.notation`, :mod:`.start` (setup), :mod:`.resolution`,
:mod:`.combat`, :mod:`.automaton` (R7), :mod:`.heuristic` and :mod:`.playout` (the search primitives
both engines offer) and :mod:`.game`, where :class:`Game` is composed of them.
This facade re-exports the public names every other module imports from ``clashofdecks.rules``.
"""

from .chance import rng_block, rng_next, seed_rng
from .game import Game, register_board_drawer
from .state import (
    C_ACTIVATED,
    C_CARD,
    C_DAMAGE,
    C_NEW,
    C_PROTECTED,
    C_SPRINT,
    CHANCE,
    COMBAT,
    DRAW,
    ORIGIN_FORMATS,
    OVER,
    SETUP,
    SUMMON,
    UNDO_LIMIT,
    Creature,
    DecisionKind,
    GameFields,
    GameOrigin,
    GameState,
    Outcome,
    Termination,
    termination_reason,
)

__all__ = [
    "CHANCE",
    "COMBAT",
    "C_ACTIVATED",
    "C_CARD",
    "C_DAMAGE",
    "C_NEW",
    "C_PROTECTED",
    "C_SPRINT",
    "DRAW",
    "ORIGIN_FORMATS",
    "OVER",
    "SETUP",
    "SUMMON",
    "UNDO_LIMIT",
    "Creature",
    "DecisionKind",
    "Game",
    "GameFields",
    "GameOrigin",
    "GameState",
    "Outcome",
    "Termination",
    "register_board_drawer",
    "rng_block",
    "rng_next",
    "seed_rng",
    "termination_reason",
]
