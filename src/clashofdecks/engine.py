"""The one interface of both engines: :class:`GameEngine`, what :class:`~clashofdecks.rules.Game`
(the Python engine) and :class:`~clashofdecks.native.NativeGame` (the compiled core, play phase
only) both offer, checked by mypy (``native.py`` assigns both to it).

Code that works on either engine (agents, search, simulation) takes a :class:`GameEngine` and never
asks which engine it holds.  The search primitives (a rollout, a position's reward by an
:class:`Evaluator`, the greedy choice, the UCT search) are methods of both engines: the Python ones
in :mod:`clashofdecks.rules.playout`, the compiled ones in ``clashofdecks.native``, with the same
draws and doubles.  Which engine computes is chosen by :func:`clashofdecks.native.in_engine` from an
agent's setting, never by asking which one a game is in.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import Protocol, Self, runtime_checkable

from .events import Event
from .options import Ruleset, Threat
from .rules import DecisionKind, Game, GameState, Outcome
from .rules.playout import CompiledScore, Evaluator, PackedEvaluation


@runtime_checkable
class GameEngine(Protocol):
    """A game of Clash of Decks in either engine (see the module)."""

    @property
    def is_solo(self) -> bool:
        """True in solo (seat 1 is the automaton, R7)."""
        ...

    @property
    def ruleset(self) -> Ruleset:
        """The rule variants in force."""
        ...

    @property
    def threat(self) -> Threat:
        """The solo threat options."""
        ...

    @property
    def hidden_identities(self) -> bool:
        """Whether the opponent's hidden cards are unknown even as a set (the benchmark's deal)."""
        ...

    @property
    def current_player(self) -> int:
        """Whose decision it is now; -1 once the game is over."""
        ...

    @property
    def decision_kind(self) -> DecisionKind:
        """What kind of decision the game waits for."""
        ...

    @property
    def phase(self) -> str:
        """``setup``, ``summon``, ``combat`` or ``over``."""
        ...

    @property
    def turn(self) -> int:
        """The turn number."""
        ...

    @property
    def active(self) -> int:
        """Whose turn it is."""
        ...

    @property
    def mana(self) -> int:
        """The mana the active player has left this turn."""
        ...

    @property
    def outcome(self) -> Outcome | None:
        """How the game ended, or ``None`` while it goes on."""
        ...

    @property
    def winner(self) -> int | None:
        """0 or 1 once decided; ``None`` while playing or for a draw."""
        ...

    @property
    def undo_depth(self) -> int:
        """How many actions :meth:`undo` can take back now."""
        ...

    @property
    def keep_undo(self) -> bool:
        """Whether :meth:`apply` keeps undo records."""
        ...

    @keep_undo.setter
    def keep_undo(self, value: bool) -> None: ...

    def is_over(self) -> bool:
        """Whether the game has ended."""
        ...

    def legal_actions(self) -> Sequence[int]:
        """The legal actions of :attr:`current_player`, sorted (empty when over)."""
        ...

    def legal_action_mask(self) -> list[bool]:
        """:data:`clashofdecks.actions.ACTION_SPACE` booleans, True where legal."""
        ...

    def is_legal(self, action: int) -> bool:
        """Whether ``action`` is legal now."""
        ...

    def apply(self, action: int) -> Sequence[Event]:
        """Apply a legal action; an illegal one raises and changes nothing."""
        ...

    def undo(self) -> int:
        """Take back the last action; returns it."""
        ...

    def clone(self) -> Self:
        """An independent copy (chance included) with an empty undo history."""
        ...

    def resume(self) -> None:
        """Play the automaton's turn a built state leaves it."""
        ...

    def sample_determinization(self, player: int, rng: random.Random) -> Self:
        """A game ``player`` cannot tell from this one, hidden cards drawn from ``rng``."""
        ...

    def state(self) -> GameState:
        """The whole state as immutable values."""
        ...

    def to_game(self, *, record_events: bool = True) -> Game:
        """The Python engine's game in this state (a :class:`Game` gives a copy of itself)."""
        ...

    # ------------------------------------------------------------------ the search primitives

    def rollout(
        self,
        rnd: Callable[[], float],
        max_actions: int,
        turn_limit: int | None = None,
        *,
        greedy: Sequence[float] | None = None,
        until_play: bool = False,
    ) -> int:
        """Play on at random with ``rnd`` (or by the greedy heuristic with ``greedy`` weights) to the end,
        past turn ``turn_limit``, to the end of the setup (``until_play``) or ``max_actions``; returns
        the actions played (:meth:`clashofdecks.rules.playout.SearchPaths.rollout`)."""
        ...

    def reward(self, evaluator: Evaluator) -> float:
        """Player 0's reward: the result of a finished game, else ``evaluator``'s chance."""
        ...

    def greedy_action(self, rng: random.Random, weights: Sequence[float], *, finish_turn: bool = True) -> int:
        """The greedy agent's play-phase choice (at least two legal actions), drawing from ``rng``."""
        ...

    def search(
        self,
        rng: random.Random,
        *,
        iterations: int | None,
        deadline: float | None,
        clock: Callable[[], float],
        c: float,
        perfect_information: bool,
        cutoff_turns: int | None,
        max_rollout_actions: int,
        score: Evaluator,
        mix: float = 0.0,
    ) -> tuple[int, tuple[tuple[int, int, float], ...]]:
        """The UCT search with random rollouts for :attr:`current_player`; per root action
        ``(action, visits, wins)`` (:meth:`clashofdecks.rules.playout.SearchPaths.search`)."""
        ...


__all__ = ["CompiledScore", "Evaluator", "GameEngine", "PackedEvaluation"]
