"""The one game loop: who decides, what they chose, what happened, until the game ends or a seat
that nobody here decides for is to move.

Every place that plays a game forward steps it through :func:`game_steps`: the session (its agent
seats), the simulation runner (``clash simulate``, ``clash arena``), the environments (the decisions
they take for nobody, custom builds) and the web's AI moves (:func:`next_decision` on a game replayed
from its record).  A *decider* is a function from the game to the action its seat chooses (an agent's
``act``); a seat without one (``None``: a person, a remote player) stops the loop when it is to move.
Replays of a record are not decided, so they go through :class:`clashofdecks.record.Replay` instead.

>>> from clashofdecks.rules import Game
>>> game = Game.random_duel(seed=2)
>>> first = lambda g: g.legal_actions()[0]
>>> played = list(game_steps(game, [first, None]))
>>> [step.seat for step in played], game.current_player
([0, 0], 1)
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import TypeVar

from .engine import GameEngine
from .events import Event

G = TypeVar("G", bound=GameEngine)

#: A seat's decider: the action it chooses in the game as it stands.
Decider = Callable[[G], int]


@dataclass(frozen=True, slots=True)
class LoopStep:
    """One decision the loop applied: the seat that made it, the action, the events it caused."""

    seat: int
    action: int
    events: Sequence[Event]


def next_decision(game: G, deciders: Sequence[Decider[G] | None]) -> tuple[int, int] | None:
    """The seat to move and the action its decider chooses (nothing applied), or ``None`` when the
    game is over or the seat to move has no decider."""
    seat = game.current_player
    if seat < 0:
        return None
    decide = deciders[seat]
    return None if decide is None else (seat, decide(game))


def game_steps(
    game: G,
    deciders: Sequence[Decider[G] | None],
    *,
    stop: Callable[[G], bool] | None = None,
    apply: Callable[[int, int], Sequence[Event]] | None = None,
    max_steps: int | None = None,
) -> Iterator[LoopStep]:
    """Step ``game`` forward, one :class:`LoopStep` per decision, each yielded once applied.

    It ends when the game is over, when the seat to move has no decider (``deciders[seat]`` is
    ``None``), when ``stop(game)`` is true before a decision, or after ``max_steps`` decisions.
    ``apply(seat, action)``, when given, applies each action instead of ``game.apply`` and returns its
    events (a session applies them as its own steps).
    """
    apply_action = game.apply
    taken = 0
    # The hot loop of a long simulation: plain locals, no helper call per step.
    while max_steps is None or taken < max_steps:
        seat = game.current_player
        if seat < 0 or (stop is not None and stop(game)):
            return
        decide = deciders[seat]
        if decide is None:
            return
        action = decide(game)
        events = apply_action(action) if apply is None else apply(seat, action)
        taken += 1
        yield LoopStep(seat, action, events)


def play_out(game: G, deciders: Sequence[Decider[G] | None]) -> int:
    """:func:`game_steps` to its end without its steps (no step object, no generator: the hot loop of
    a long simulation on the compiled core); returns how many decisions were applied.  It stops
    where :func:`game_steps` would: game over, or a seat without a decider to move."""
    apply_action = game.apply
    count = 0
    while (seat := game.current_player) >= 0:  # -1 once the game is over
        decide = deciders[seat]
        if decide is None:
            break
        apply_action(decide(game))
        count += 1
    return count


__all__ = ["Decider", "LoopStep", "game_steps", "next_decision", "play_out"]
