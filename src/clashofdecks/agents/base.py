"""The one small interface every player implements: baseline agents, search, the CLI's human.

An agent sees the game through :meth:`Agent.act`, which must return one of
``game.legal_actions()`` for ``game.current_player`` (or, in the custom format's build stage,
where that list is empty, an action for which ``game.is_legal`` holds).  Fair agents read only
what R9 allows: :func:`clashofdecks.position.view` /
:func:`clashofdecks.position.sample_determinization`.

The life cycle is: construct (``make_agent(name, seed)``), :meth:`Agent.reset` before each game
with that game's seed, then :meth:`Agent.act` whenever it is the agent's decision.

An agent whose :attr:`Agent.plays_native` is True also acts on a
:class:`~clashofdecks.native.NativeGame` (the compiled core, play phase only) and chooses exactly
what it chooses on the same position in the Python engine, drawing the same numbers from its
generator: ``clash simulate`` and ``clash arena`` then play their games on the core
(:func:`clashofdecks.simulation.game.play_game`, docs/native.md).  :func:`act_on` is how a caller
hands such a game over.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable
from typing import ClassVar, Protocol, cast

from ..engine import GameEngine
from ..errors import ClashError
from ..native import core_of, python_game_of
from ..rules import DecisionKind, Game


class Agent(ABC):
    """A player.  ``name`` is the word used on the command line and in records."""

    name: str = "agent"
    #: Whether :meth:`act` also takes a :class:`~clashofdecks.native.NativeGame` (play phase), with
    #: the same choice as on the Python engine's game: a declared capability, see the module.
    plays_native: ClassVar[bool] = False

    @abstractmethod
    def act(self, game: Game) -> int:
        """Choose a legal action for ``game.current_player`` (the game must not be changed)."""

    def reset(self, seed: int | None = None) -> None:  # noqa: B027 - optional hook
        """Called before each game; seeded agents reseed here."""

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name!r}>"


class _NativePlayer(Protocol):
    def act(self, game: GameEngine) -> int: ...


def native_act(agent: Agent) -> Callable[[GameEngine], int]:
    """``agent.act`` as a function that takes a game of either engine; only for an agent that
    declares :attr:`Agent.plays_native` (anything else is a caller's mistake: ``TypeError``)."""
    if not agent.plays_native:
        raise TypeError(f"agent {agent.name!r} does not play on the compiled core (plays_native is False)")
    # Declared by the agent's class: its act() takes both engines' games.
    return cast(_NativePlayer, agent).act


def act_on(agent: Agent, game: GameEngine) -> int:
    """``agent.act(game)`` for a game of either engine (see :func:`native_act`); an agent that does
    not play on the compiled core is refused a core's game (``TypeError``)."""
    if agent.plays_native or core_of(game) is not None:
        return native_act(agent)(game)
    return agent.act(python_game_of(game))


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
