"""The one small interface every player implements: baseline agents, search, the CLI's human.

An agent sees the game through :meth:`Agent.act`, which must return one of
``game.legal_actions()`` for ``game.current_player`` (or, in the custom format's build stage,
where that list is empty, an action for which ``game.is_legal`` holds).  Fair agents read only
what R9 allows: :func:`clashofdecks.position.view` /
:func:`clashofdecks.position.sample_determinization`.

The life cycle is: construct (``make_agent(name, seed)``), :meth:`Agent.reset` before each game
with that game's seed, then :meth:`Agent.act` whenever it is the agent's decision.

An agent acts on a game of either engine (:class:`~clashofdecks.engine.GameEngine`) and chooses
exactly what it chooses on the same position in the other, drawing the same numbers from its
generator: ``clash simulate`` and ``clash arena`` play their games on the compiled core
(:func:`clashofdecks.simulation.game.play_game`, docs/native.md).  It never asks which engine it holds:
what it computes fast it asks of the engine (the search primitives of :mod:`clashofdecks.engine`).
"""

from __future__ import annotations

from abc import ABC, abstractmethod

from ..engine import GameEngine
from ..errors import ClashError
from ..rules import DecisionKind


class Agent(ABC):
    """A player.  ``name`` is the word used on the command line and in records."""

    name: str = "agent"

    @abstractmethod
    def act(self, game: GameEngine) -> int:
        """Choose a legal action for ``game.current_player`` (the game must not be changed)."""

    def reset(self, seed: int | None = None) -> None:  # noqa: B027 - optional hook
        """Called before each game; seeded agents reseed here."""

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name!r}>"


class NoDecisionError(ClashError):
    """An agent was asked to act where there is no decision (the game is over)."""


def no_decision_error(game: GameEngine, who: str) -> NoDecisionError:
    """The error an agent raises when asked to act in a game that has no decision to make."""
    state = "the game is over" if game.is_over() else f"no legal action in phase {game.phase}"
    return NoDecisionError(f"agent {who!r} was asked to act, but {state}")


def is_build_stage(game: GameEngine) -> bool:
    """True while ``game.current_player`` must build a custom 10-card deck (R2.5).

    The build choices are too many to list (C(32, 10)); agents choose a set and check it with
    ``game.is_legal`` rather than scanning ``legal_actions()``.  Never on the compiled core (it
    plays from the first turn on).
    """
    return game.decision_kind is DecisionKind.BUILD
