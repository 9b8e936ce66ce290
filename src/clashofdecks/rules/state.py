"""The engine's values: stages, the creature tuple, how a game ends, what it waits for, its state.

Everything here is an immutable value or a constant: :class:`GameState` (what a game is),
:class:`GameFields` (its fields read in place), :class:`GameOrigin` (how it started),
:class:`Outcome` and :class:`Termination` (how it ended), :class:`DecisionKind` (what it waits for).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import Enum
from typing import Final, NamedTuple

from .. import setup as setup_stage
from ..errors import FormatError
from ..options import Ruleset, Threat

# Stages of a game.
SETUP: Final = 0
SUMMON: Final = 1
COMBAT: Final = 2
OVER: Final = 3

DRAW: Final = 2  # value of the winner field for a capped game
#: :attr:`Game.current_player` while chance is to act (games with external chance only).
CHANCE: Final = setup_stage.CHANCE_PLAYER
#: Undo records kept per game (beyond it the oldest half is dropped, checked once per turn or so), so
#: an endless game stays small in memory; far more than any front end lets a player take back.
UNDO_LIMIT: Final = 4096

# Creature tuple fields.
C_CARD: Final = 0
C_DAMAGE: Final = 1
C_NEW: Final = 2
C_PROTECTED: Final = 3
C_ACTIVATED: Final = 4
C_SPRINT: Final = 5

Creature = tuple[int, int, bool, bool, bool, int]

_DEFAULT_RULESET: Final = Ruleset()
_DEFAULT_THREAT: Final = Threat()


class Termination(Enum):
    """Why a game ended, machine-readable (the :attr:`Outcome.reason` text says it in English).

    >>> Termination("fort_rightmost") is Termination.FORT_FALLEN
    True
    """

    #: R4.3: the loser's Fort reached the rightmost place of their hand.
    FORT_FALLEN = "fort_rightmost"
    #: R7.8: the solo player survived the automaton's last turn.
    SURVIVED_LAST_TURN = "survived_last_turn"
    #: The ruleset's ``max_turns`` cap was reached: a draw (simulations only; the rules have no draw).
    TURN_CAP = "turn_cap"
    #: A player resigned (decided by a game session, not by the rules).
    RESIGNED = "resigned"
    #: A player's clock ran out (decided by the game's host, e.g. the web server, never by the
    #: rules: the core knows no wall clock).
    TIME = "time"


def termination_reason(termination: Termination, winner: int | None, max_turns: int | None) -> str:
    """The words of :attr:`Outcome.reason` for a game that ended this way (one phrasing for play,
    loaded positions and resignations).

    >>> termination_reason(Termination.FORT_FALLEN, 0, None)
    "player 1's Fort reached the rightmost place"
    """
    loser = None if winner is None else 1 - winner
    if termination is Termination.FORT_FALLEN:
        return f"player {loser}'s Fort reached the rightmost place"
    if termination is Termination.SURVIVED_LAST_TURN:
        return "the player survived the automaton's last turn"
    if termination is Termination.TURN_CAP:
        return f"turn cap {max_turns} reached: draw"
    if termination is Termination.TIME:
        return f"player {loser} ran out of time"
    return f"player {loser} resigned"


class DecisionKind(Enum):
    """What kind of decision a game waits for (:attr:`Game.decision_kind`): an explicit value, so no
    caller tells the stage by the type of :meth:`Game.legal_actions`."""

    #: The game is over: nobody decides.
    OVER = "over"
    #: :attr:`Game.current_player` chooses one of :meth:`Game.legal_actions` (a play, a setup choice,
    #: a return order).
    CHOOSE = "choose"
    #: The custom format's deck build (R2.5): every one of the C(32, 10) decks is legal, too many to
    #: list; choose ten cards and check the action with :meth:`Game.is_legal`.
    BUILD = "build"
    #: Chance acts (external chance only): :meth:`Game.chance_outcomes`.
    CHANCE = "chance"


# The members as plain names: an Enum member read through its class costs far more than a global
# (``decision_kind`` runs at every step of a search's rollout).
_OVER: Final = DecisionKind.OVER
_CHOOSE: Final = DecisionKind.CHOOSE
_BUILD: Final = DecisionKind.BUILD
_CHANCE: Final = DecisionKind.CHANCE


@dataclass(frozen=True, slots=True)
class Outcome:
    """How a game ended: ``winner`` is 0, 1 or ``None`` for a draw (turn cap); ``termination`` says
    why as a :class:`Termination`, ``reason`` in words."""

    winner: int | None
    reason: str
    termination: Termination = Termination.FORT_FALLEN

    @property
    def is_draw(self) -> bool:
        """True for a game ended by the turn cap (the rules themselves have no draw)."""
        return self.winner is None


@dataclass(frozen=True, slots=True)
class GameState:
    """Everything a game is, as plain immutable values: what :meth:`Game.state` returns and
    :class:`Game` is built from.  Cards are the integers of :mod:`clashofdecks.cards`.

    Positions (:mod:`clashofdecks.position`) translate it to and from JSON and check it; ``Game(state)``
    trusts it.  Fields: ``stage`` is :data:`SETUP`, :data:`SUMMON`, :data:`COMBAT` or :data:`OVER`;
    ``winner`` 0, 1, :data:`DRAW` or ``None``; ``over_phase`` the phase a finished game ended in;
    ``hands`` left to right with the fortress card (``BASTION``/``FORT``); ``lanes`` indexed
    ``player*2 + lane``, creatures from the bridge outward; ``known`` per player a bit per card whose
    hand place is public (R9.2); ``deck``/``discard`` the automaton's (solo); ``pending`` a return
    order being chosen (R3.9) as ``(player, cards in hit order)``, with what resolution resumes after
    it: ``resolving`` (an incantation's caster and card), ``attacker`` (a Berserk chain's player and
    card), ``ending`` (the rest of Combat resolves, then the turn ends), ``automaton`` (its summoning
    progress this turn: cost spent, lane slot, cards revealed); ``last_turn`` the automaton's last
    turn (R7.8); ``rng`` the chance state (``seed << 32 | draws``); ``setup`` the setup stage;
    ``hidden_identities`` whether the opponent's hidden cards are unknown even as a set (the
    benchmark's random deal; in the rulebook's formats they are public, R9.1).
    """

    solo: bool = False
    ruleset: Ruleset = _DEFAULT_RULESET
    threat: Threat = _DEFAULT_THREAT
    stage: int = 1
    turn: int = 1
    active: int = 0
    mana: int = 0
    winner: int | None = None
    reason: str = ""
    termination: Termination = Termination.FORT_FALLEN
    over_phase: int = 2
    hands: tuple[tuple[int, ...], tuple[int, ...]] = ((), ())
    lanes: tuple[tuple[Creature, ...], ...] = ((), (), (), ())
    known: tuple[int, int] = (0, 0)
    deck: tuple[int, ...] = ()
    discard: tuple[int, ...] = ()
    pending: tuple[int, tuple[int, ...]] | None = None
    resolving: tuple[int, int] | None = None
    attacker: tuple[int, int] | None = None
    ending: bool = False
    automaton: tuple[int, int, int] | None = None
    last_turn: bool = False
    rng: int = 0
    setup: setup_stage.SetupState | None = None
    hidden_identities: bool = False


_EMPTY_DUEL: Final = GameState()

#: The ways a game can start (:class:`GameOrigin`): the rulebook's formats, the benchmark deal, a position.
ORIGIN_FORMATS: Final = (*setup_stage.FORMATS, "random", "position")


@dataclass(frozen=True, slots=True)
class GameOrigin:
    """How a game started: what a game record needs to start it again (:attr:`Game.origin`).

    ``format`` is ``precon``, ``draft`` or ``custom`` (:meth:`Game.new` from ``seed``), ``random``
    (:meth:`Game.random_duel` from ``seed``) or ``position``: a game built from a state, kept as the
    JSON position it was loaded from (``start_position``, :func:`clashofdecks.position.load_position`)
    or as the state itself (``start_state``: :meth:`Game.from_hands`, ``Game(state)``).  It is not part
    of the position: two games in the same state may have started differently.
    """

    mode: str = "duel"
    format: str = "position"
    seed: int | None = None
    #: The setup's chance comes from outside as actions (:meth:`Game.new` with ``external_chance``).
    external_chance: bool = False
    start_position: Mapping[str, object] | None = None
    start_state: GameState | None = None

    def __post_init__(self) -> None:
        if self.format not in ORIGIN_FORMATS:
            raise FormatError(f"unknown game origin format {self.format!r}")
        if self.format == "position":
            if self.start_position is None and self.start_state is None:
                raise FormatError("a game started from a position needs its start_position or start_state")
        elif self.seed is None:
            raise FormatError(f"a game of format {self.format!r} needs its seed")

    @classmethod
    def of_state(cls, state: GameState) -> GameOrigin:
        """The origin of a game built directly from ``state``."""
        return cls(mode="solo" if state.solo else "duel", format="position", start_state=state)


_BLANK_ORIGIN: Final = GameOrigin(start_state=_EMPTY_DUEL)


class GameFields(NamedTuple):
    """A game's fields as read-only references, without copies (:meth:`Game.fields`): for code that
    reads a game at every step, such as the environments' observation encoder, where
    :meth:`Game.state`'s copies cost more than the reading.  Valid until the game next changes; never
    change what it holds (the ``Sequence`` types say so to mypy).  Cards are the integers of
    :mod:`clashofdecks.cards`; the fields mean what :class:`GameState`'s fields of the same name mean.
    It is the whole truth: what a seat may see is :func:`clashofdecks.position.view`'s business."""

    solo: bool
    stage: int
    turn: int
    max_turns: int | None
    active: int
    mana: int
    hands: Sequence[Sequence[int]]
    known: Sequence[int]
    #: Per player: the fortress card is the Fort (else the Bastion).
    fort: Sequence[bool]
    lanes: Sequence[Sequence[Creature]]
    #: The ability bits the solo threat grants the automaton's creatures (0 in a duel).
    threat_bits: int
    pending: tuple[int, tuple[int, ...]] | None
    deck: Sequence[int]
    discard: Sequence[int]
    last_turn: bool
    hidden_identities: bool
