"""Formats (R2) and starting a game: preconstructed decks, draft and custom decks, duel and solo.

:func:`new_game` returns a game in its setup stage (:meth:`Game.new`).  Every choice of the setup is
an ordinary action of the player whose choice it is (``deck N``, ``pick CARD``, ``build CARD×10``,
``ban CARD``); chance (the draft pile, the hand shuffles, the coin toss, the automaton deck) comes
from the game's seeded RNG.  When the setup is complete the hands are dealt (R2.6, R7.1) and turn 1
starts.  The setup's state machine itself is :mod:`clashofdecks.setup`, in the rules layer.

Seats: positions put the starting player at index 0 (engine.md), so the coin toss (R2.3a) decides
which *participant* sits in seat 0; :func:`seat_of` answers for a participant (the order in which a
caller lists its players).  In solo the player is seat 0 and the automaton seat 1, whoever starts.
"""

from __future__ import annotations

from typing import Final

from .errors import FormatError
from .options import Ruleset, Threat
from .rules import Game
from .setup import FORMATS, MODES, SetupState, summary

#: Every way :func:`start_game` can start a game: the rulebook's formats and the benchmark deal.
START_FORMATS: Final = (*FORMATS, "random")


def seat_of(game: Game, participant: int) -> int:
    """The seat (player index) of ``participant`` (0 or 1 in the caller's order) after the coin toss."""
    return 0 if participant == game.first_participant else 1


def new_game(
    *,
    mode: str = "duel",
    format: str = "draft",
    seed: int,
    ruleset: Ruleset | None = None,
    threat: Threat | None = None,
    record_events: bool = True,
    external_chance: bool = False,
) -> Game:
    """A new game at the start of its setup (R2): the first decision is ``game.current_player``'s
    (with ``external_chance``, chance's first: see :meth:`Game.new`).

    >>> game = new_game(mode="duel", format="draft", seed=7)
    >>> game.phase, setup_summary(game)["decision"]
    ('setup', 'pick')
    """
    return Game.new(
        mode=mode,
        format=format,
        seed=seed,
        ruleset=ruleset,
        threat=threat,
        record_events=record_events,
        external_chance=external_chance,
    )


def start_game(
    *,
    mode: str,
    format: str,
    seed: int,
    ruleset: Ruleset | None = None,
    threat: Threat | None = None,
    record_events: bool = True,
    external_chance: bool = False,
) -> Game:
    """:func:`new_game`, or for ``format="random"`` the benchmark deal :meth:`Game.random_duel`
    (duel only): how records, sessions and simulations start a game from its format and seed."""
    if format == "random":
        if mode != "duel":
            raise FormatError("the random deal is a duel format")
        return Game.random_duel(seed, ruleset=ruleset, record_events=record_events)
    return new_game(
        mode=mode,
        format=format,
        seed=seed,
        ruleset=ruleset,
        threat=threat,
        record_events=record_events,
        external_chance=external_chance,
    )


def setup_summary(game: Game) -> dict[str, object]:
    """What the setup stage shows (for front ends): the current step, face-up cards, cards so far.

    Custom decks are shown only once both are built (R2.5: A reveals after building).
    """
    st = game.setup_state
    if st is None:
        raise FormatError("the game is past its setup stage")
    return summary(st)


__all__ = [
    "FORMATS",
    "MODES",
    "START_FORMATS",
    "FormatError",
    "SetupState",
    "new_game",
    "seat_of",
    "setup_summary",
    "start_game",
]
