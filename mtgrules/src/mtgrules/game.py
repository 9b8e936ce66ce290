"""The game: state, turn structure, priority, the stack, combat and Rooms.

Use :class:`Game` to set a position up (:meth:`Game.add_card`, :meth:`Game.add_mana`, :meth:`Game.start`)
and then play it with :meth:`Game.apply`, one explicit decision at a time; :attr:`Game.pending` says which
decision the game waits for and from whom. Every action is verified completely before anything changes:
an illegal one raises a :class:`~mtgrules.errors.RulesError` subclass and the state is untouched
(:meth:`Game.snapshot` before and after is equal).

The rules live in one module per chapter; see docs/mtgrules.md (package layout).
"""

from __future__ import annotations

from mtgrules.abilities import Abilities
from mtgrules.casting import CastingAndStack
from mtgrules.combat_steps import CombatSteps
from mtgrules.effects import Effects
from mtgrules.layers import ContinuousEffects
from mtgrules.objects import Step, TriggerOrder, Zone
from mtgrules.rooms import Rooms
from mtgrules.sba import StateBasedActions
from mtgrules.setup import Setup
from mtgrules.turns import TurnStructure
from mtgrules.zones import Zones

__all__ = ["Game", "Step", "TriggerOrder", "Zone"]


class Game(
    Setup,
    TurnStructure,
    CastingAndStack,
    Effects,
    Abilities,
    CombatSteps,
    StateBasedActions,
    ContinuousEffects,
    Rooms,
    Zones,
):
    """A two-player game position and its rules engine."""
