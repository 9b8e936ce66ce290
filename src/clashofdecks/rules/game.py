"""The rules engine: game state, legal actions, resolution, undo.

One :class:`Game` holds a duel or a solo game.  Every decision is an integer action of the player
whose decision it is (:attr:`Game.current_player`); :meth:`Game.apply` resolves it (verifying
first, so a refused action changes nothing), :meth:`Game.undo` takes it back exactly, and
:meth:`Game.clone` copies the game.  The solo automaton's turn (R7) is a rule, not a player: it
resolves by itself inside the action that ends the player's turn.

Hot state is kept small for search: hands are lists of card integers, a creature is a tuple
``(card, damage, new, protected, activated, sprint_bonus)``, and lanes are four lists indexed
``player*2 + lane`` (lane 0 = top, 1 = bottom).  Undo restores a snapshot of those lists.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from enum import Enum
from hashlib import blake2b
from typing import Final, NamedTuple

from .. import actions as A
from .. import setup as setup_stage
from ..cards import (
    ABILITIES,
    ABILITY_BITS,
    ATTACK,
    AURA,
    BASTION,
    BERSERK,
    CARD_IDS,
    COST,
    FORT,
    HEALTH,
    INCANTATIONS,
    INDESTRUCTIBLE,
    IS_INCANTATION,
    N_CARDS,
    PERFORATION,
    PROTECTION,
    RAGE,
    SPLASH,
    SPRINT,
    ability_names,
    card_index,
)
from ..errors import ClashError, FormatError, IllegalActionError
from ..events import Event, EventKind
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

_MASK64: Final = (1 << 64) - 1
_MASK32: Final = (1 << 32) - 1
#: A creature as it is at the start of a turn, one shared tuple per card.
_FRESH: Final[tuple[Creature, ...]] = tuple((c, 0, False, False, False, 0) for c in range(N_CARDS))
_END: Final = A.END
_LANES: Final = A.LANES
_DEFAULT_RULESET: Final = Ruleset()
_DEFAULT_THREAT: Final = Threat()
_CAST_BASE: Final = A.CAST_BASE
_ORDER_BASE: Final = A.ORDER_BASE
_NEXT: Final = A.NEXT
_PLAY_BASE: Final = A.PLAY_BASE
_MAX_POSITION: Final = A.MAX_POSITION
#: Action integer -> (card, lane) for play actions; cast index -> (card, player, lane, position).
_PLAY_DECODE: Final = {A.PLAY_BASE + c * 2 + ln: (c, ln) for c in range(N_CARDS) for ln in (0, 1)}
_CAST_DECODE: Final = tuple(
    (
        INCANTATIONS[i // (4 * A.MAX_POSITION)],
        i // (2 * A.MAX_POSITION) % 2,
        i // A.MAX_POSITION % 2,
        i % A.MAX_POSITION,
    )
    for i in range(A.CAST_COUNT)
)
#: Per creature card, its two play actions (top, bottom).
_PLAY_PAIR: Final = tuple((A.PLAY_BASE + c * 2, A.PLAY_BASE + c * 2 + 1) for c in range(N_CARDS))
#: Per incantation card, per lane key (player*2 + lane), per lane size: its cast actions, precomputed.
_CAST_TARGETS: Final[dict[int, tuple[tuple[tuple[int, ...], ...], ...]]] = {
    c: tuple(
        tuple(
            tuple(A.CAST_BASE + (slot * 4 + k) * A.MAX_POSITION + pos for pos in range(size))
            for size in range(A.MAX_POSITION + 1)
        )
        for k in range(4)
    )
    for c, slot in A.INC_SLOT.items()
}


def rng_block(state: int) -> bytes:
    """64 random bytes for RNG ``state`` (BLAKE2b in counter mode: portable, exact, fast in CPython).

    The state is one int, ``seed << 32 | counter``, so ``clone()`` copies it for free and two seeds
    never share a stream."""
    return blake2b(state.to_bytes(12, "little"), digest_size=64).digest()


def rng_next(state: int) -> tuple[int, int]:
    """One SplitMix64 step: ``(new state, 64-bit output)``; a small helper for deriving seeds."""
    state = (state + 0x9E3779B97F4A7C15) & _MASK64
    z = state
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK64
    return state, z ^ (z >> 31)


def seed_rng(seed: int) -> int:
    """The RNG state for a game seed (any int; reduced to 64 bits)."""
    return (seed & _MASK64) << 32


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


#: Draws a game as SVG for notebooks (``Game._repr_svg_``); registered by the package facade with
#: :func:`clashofdecks.board_svg.game_svg`, so this layer imports no drawing code.
_board_drawer: list[Callable[[Game], str]] = []


def register_board_drawer(draw: Callable[[Game], str]) -> None:
    """Make ``draw`` the picture notebooks show for a game (``Game._repr_svg_``)."""
    _board_drawer[:] = [draw]


class Game:
    """A game of Clash of Decks (duel or solo).  Build one with :func:`clashofdecks.new_game`,
    :meth:`Game.random_duel`, :meth:`Game.from_hands` or :func:`clashofdecks.load_position`."""

    __slots__ = (
        "_actions",
        "_active",
        "_auto",
        "_cast_cont",
        "_chain",
        "_deck",
        "_discard",
        "_ending",
        "_events",
        "_first_participant",
        "_fort",
        "_hands",
        "_hidden_ids",
        "_history",
        "_keep_undo",
        "_known",
        "_lanes",
        "_last_turn",
        "_legal",
        "_mana",
        "_max_turns",
        "_over_phase",
        "_pending",
        "_per_card",
        "_prot_any",
        "_record",
        "_rng",
        "_rotated",
        "_ruleset",
        "_setup",
        "_solo",
        "_stage",
        "_termination",
        "_threat",
        "_threat_bits",
        "_timing_combat",
        "_turn",
        "_winner",
        "_winner_reason",
        "origin",
    )

    def __init__(self, state: GameState, *, record_events: bool = True) -> None:
        """The game in ``state`` (see :class:`GameState`; positions check a state before building one).

        >>> game = Game(Game.random_duel(seed=1).state())
        >>> game.turn, game.mana
        (1, 6)
        """
        self._configure(state.solo, state.ruleset, state.threat, record_events)
        self._set_state(state)
        self.origin = GameOrigin.of_state(state)

    @classmethod
    def _blank(cls, solo: bool, ruleset: Ruleset | None, threat: Threat | None, record_events: bool) -> Game:
        """An empty game for this module's own constructors, which fill it in."""
        game = cls.__new__(cls)
        game._configure(solo, ruleset or _DEFAULT_RULESET, threat or _DEFAULT_THREAT, record_events)
        game._set_state(_EMPTY_DUEL if not solo else GameState(solo=True))
        game.origin = _BLANK_ORIGIN  # each constructor sets the game's own
        return game

    def _configure(self, solo: bool, ruleset: Ruleset, threat: Threat, record_events: bool) -> None:
        self._ruleset = ruleset
        self._threat = threat if solo else _DEFAULT_THREAT
        self._solo = solo
        self._rotated = ruleset.lanes == "rotated"
        self._timing_combat = ruleset.incantation_timing == "summon_and_combat"
        self._prot_any = ruleset.protection == "any_damage"
        self._per_card = ruleset.automaton_lanes == "per_card"
        self._max_turns = ruleset.max_turns
        self._threat_bits = sum(ABILITY_BITS[a] for a in self._threat.abilities) if solo else 0
        self._record = record_events
        self._events: list[Event] = []
        self._history: list[tuple[tuple[object, ...], int]] = []
        #: Every action applied since the game's start, independent of undo records (what records list).
        self._actions: list[int] = []
        self._keep_undo = True
        self._legal: Sequence[int] | None = None
        self._first_participant = 0

    def _set_state(self, st: GameState) -> None:
        self._stage = st.stage
        self._turn = st.turn
        self._active = st.active
        self._mana = st.mana
        self._winner = st.winner
        self._winner_reason = st.reason
        self._termination = st.termination
        self._over_phase = st.over_phase
        self._hands = [list(st.hands[0]), list(st.hands[1])]
        self._lanes = [list(L) for L in st.lanes]
        self._known = list(st.known)
        self._deck = list(st.deck)
        self._discard = list(st.discard)
        self._fort = [
            FORT in self._hands[0],
            self._deck[-1] == FORT if st.solo and self._deck else FORT in self._hands[1],
        ]
        self._pending = st.pending
        self._cast_cont = st.resolving
        self._chain = st.attacker
        self._ending = st.ending
        self._auto = st.automaton
        self._last_turn = st.last_turn
        self._rng = st.rng
        self._setup = st.setup
        self._hidden_ids = st.hidden_identities
        self._legal = None

    def state(self) -> GameState:
        """The game's whole state as immutable values (what :class:`Game` is built from)."""
        return GameState(
            solo=self._solo,
            ruleset=self._ruleset,
            threat=self._threat,
            stage=self._stage,
            turn=self._turn,
            active=self._active,
            mana=self._mana,
            winner=self._winner,
            reason=self._winner_reason,
            termination=self._termination,
            over_phase=self._over_phase,
            hands=(tuple(self._hands[0]), tuple(self._hands[1])),
            lanes=tuple(tuple(L) for L in self._lanes),
            known=(self._known[0], self._known[1]),
            deck=tuple(self._deck),
            discard=tuple(self._discard),
            pending=self._pending,
            resolving=self._cast_cont,
            attacker=self._chain,
            ending=self._ending,
            automaton=self._auto,
            last_turn=self._last_turn,
            rng=self._rng,
            setup=self._setup if isinstance(self._setup, setup_stage.SetupState) else None,
            hidden_identities=self._hidden_ids,
        )

    def fields(self) -> GameFields:
        """The game's fields as read-only references, without copies (see :class:`GameFields`).

        >>> f = Game.random_duel(seed=1).fields()
        >>> f.stage == SUMMON, f.turn, f.mana, len(f.hands[0])
        (True, 1, 6, 9)
        """
        return GameFields(
            self._solo,
            self._stage,
            self._turn,
            self._max_turns,
            self._active,
            self._mana,
            self._hands,
            self._known,
            self._fort,
            self._lanes,
            self._threat_bits,
            self._pending,
            self._deck,
            self._discard,
            self._last_turn,
            self._hidden_ids,
        )

    def resume(self) -> None:
        """Continue resolution that a built state leaves in motion: the automaton's turn when it is
        the automaton's to play (its turn is a rule, R7, and resolves at once).  Positions call it
        after building a game; the events it emits are not kept."""
        if self._stage in (SUMMON, COMBAT) and self._pending is None and self._solo and self._active == 1:
            if self._stage == SUMMON and self._auto is None:
                self._auto = (0, 0, 0)
            self._automaton_continue()
            self._events.clear()
            self._legal = None

    # ------------------------------------------------------------------ construction

    @classmethod
    def from_hands(
        cls,
        hands: Sequence[Sequence[str]],
        *,
        ruleset: Ruleset | None = None,
        record_events: bool = True,
        first_turn_mana: int = 6,
    ) -> Game:
        """A duel from two given hands (left to right, card ids; the Bastion is added leftmost)."""
        game = cls._blank(False, ruleset, None, record_events)
        for p in (0, 1):
            game._hands[p] = [BASTION, *(card_index(c) for c in hands[p])]
        game._mana = first_turn_mana
        game.origin = GameOrigin.of_state(game.state())
        return game

    @classmethod
    def random_duel(cls, seed: int, *, ruleset: Ruleset | None = None, record_events: bool = True) -> Game:
        """The benchmark's random duel deal: shuffle the 32 cards with the seeded RNG, 8 to each player,
        Bastion leftmost, player 0 starts with 6 mana (R2.6)."""
        game = cls._blank(False, ruleset, None, record_events)
        game._rng = seed_rng(seed)
        game._hidden_ids = True  # nobody knows the other's 8 of the 32 cards (no draft, no deck choice)
        cards = list(range(N_CARDS))
        game._shuffle(cards)
        game._hands = [[BASTION, *cards[:8]], [BASTION, *cards[8:16]]]
        game._mana = 6
        game.origin = GameOrigin(mode="duel", format="random", seed=seed)
        return game

    @classmethod
    def new(
        cls,
        *,
        mode: str = "duel",
        format: str = "draft",
        seed: int,
        ruleset: Ruleset | None = None,
        threat: Threat | None = None,
        record_events: bool = True,
        external_chance: bool = False,
    ) -> Game:
        """A rulebook game at the start of its setup (R2): the first decision is :attr:`current_player`'s.

        With ``external_chance`` (duel only) the game does not draw its own chance in the setup: the
        coin toss, every draft card and every hand place of the deal are chance nodes
        (:attr:`current_player` is :data:`CHANCE`; :meth:`chance_outcomes` lists the outcomes, applied
        with :meth:`apply`), as OpenSpiel's games model them.

        Every setup choice is an ordinary action (``deck N``, ``pick CARD``, ``build CARD×10``,
        ``ban CARD``); chance (the coin toss, the draft pile, the shuffles) comes from the seeded RNG.
        Seats: seat 0 is the starting player; :attr:`first_participant` says which participant
        (0 or 1 in the caller's order) the coin toss (R2.3a) put there.

        >>> game = Game.new(mode="solo", format="precon", seed=1)
        >>> game.phase, game.current_player, game.legal_action_texts()
        ('setup', 0, ['deck 1', 'deck 2', 'deck 3', 'deck 4'])
        """
        if mode not in setup_stage.MODES:
            raise FormatError(f"unknown mode {mode!r} (choose duel or solo)")
        if format not in setup_stage.FORMATS:
            raise FormatError(f"unknown format {format!r} (choose precon, draft or custom)")
        if mode == "solo" and format == "custom":
            raise FormatError("the custom format is not played in solo (R2.2)")
        solo = mode == "solo"
        if external_chance and solo:
            raise FormatError("external chance is for duels (the automaton's reshuffle, R7.7, is internal)")
        ruleset = ruleset or _DEFAULT_RULESET
        game = cls._blank(solo, ruleset, threat if solo else None, record_events)
        game._rng = seed_rng(seed)
        game._stage = SETUP
        game.origin = GameOrigin(mode=mode, format=format, seed=seed, external_chance=external_chance)
        # Seat of the rulebook's player A.  The coin toss (R2.3a) happens first; its winner is player A
        # and starts, unless the last draft pick decides (R2.6a): then B (who gets the last card) starts.
        a_seat = 0
        if not solo:
            b_starts = ruleset.first_player == "last_draft_pick" and format == "draft"
            a_seat = 1 if b_starts else 0
            if not external_chance:
                game._coin_toss(game._below(2), a_seat)
        pool: list[int] = []
        if format == "draft":
            pool = list(range(N_CARDS))
            if not external_chance:
                game._shuffle(pool)
        game._setup = setup_stage.plan(format, solo, a_seat, pool, external=external_chance)
        game._advance_setup()
        return game

    def _coin_toss(self, toss: int, a_seat: int) -> None:
        # Participant `toss` is player A (R2.3a), so the participant in seat 0 is:
        self._first_participant = toss if a_seat == 0 else 1 - toss

    @property
    def first_participant(self) -> int:
        """Which participant (0 or 1 in the caller's order) the coin toss (R2.3a) put in seat 0; 0
        before the toss and in games without one (solo, the benchmark deal, positions)."""
        return self._first_participant

    def is_chance_node(self) -> bool:
        """Whether chance is to act (external chance only): see :meth:`chance_outcomes`."""
        st = self._setup
        return self._stage == SETUP and isinstance(st, setup_stage.SetupState) and st.is_chance

    def chance_outcomes(self) -> list[tuple[int, float]]:
        """The outcomes of the chance node as ``(action, probability)`` (uniform); empty elsewhere.

        >>> game = Game.new(mode="duel", format="draft", seed=0, external_chance=True)
        >>> game.current_player == CHANCE, [game.action_text(a) for a, _ in game.chance_outcomes()]
        (True, ['chance coin 0', 'chance coin 1'])
        """
        if not self.is_chance_node():
            return []
        legal = self.legal_actions()
        p = 1.0 / len(legal)
        return [(a, p) for a in legal]

    @property
    def setup_state(self) -> setup_stage.SetupState | None:
        """The setup stage in progress (immutable), or ``None`` once play has begun."""
        st = self._setup
        return st if isinstance(st, setup_stage.SetupState) else None

    # ------------------------------------------------------------------ hidden information (R9)

    def is_hidden(self, player: int, viewer: int | None) -> list[bool]:
        """Per place of ``player``'s hand, whether ``viewer`` (``None``: a spectator) cannot see it
        (R9.2: the fortress card and returned cards are public; a player sees their own hand)."""
        if player == viewer:
            return [False] * len(self._hands[player])
        known = self._known[player]
        return [c < N_CARDS and not known >> c & 1 for c in self._hands[player]]

    @property
    def hidden_identities(self) -> bool:
        """Whether the cards behind the opponent's hidden places are unknown even as a set (the
        benchmark's random deal); in the rulebook's formats they are public (R9.1)."""
        return self._hidden_ids

    def to_game(self, *, record_events: bool = True) -> Game:
        """A copy in the Python engine (as :meth:`clashofdecks.native.NativeGame.to_game`: the same
        state and origin, no undo history)."""
        game = Game(self.state(), record_events=record_events)
        game.origin = self.origin
        game._first_participant = self._first_participant
        game._actions = self._actions.copy()
        return game

    def sample_determinization(self, player: int, rng: random.Random) -> Game:
        """A full game consistent with what ``player`` may know, hidden things refilled at random.

        Hidden: the opponent's hand places that are not public (R9.2), the automaton deck's order, the
        face-down draft pile, an opponent's custom deck built but not yet revealed (R2.5), and future
        chance (the copy's RNG is reseeded from ``rng``).  Hidden cards are sorted before they are
        shuffled, so the sample depends only on the view and ``rng``.  Under the random deal the
        opponent's hidden cards are drawn from every card ``player`` has not seen.
        """
        g = self.clone()
        g._rng = seed_rng(rng.getrandbits(64))
        g._legal = None
        opp = 1 - player
        st = g._setup
        if isinstance(st, setup_stage.SetupState):
            pool = sorted(st.pool)
            rng.shuffle(pool)
            decks = list(st.cards)
            if st.kind == "custom" and st.built[opp] and not all(st.built):
                decks[opp] = tuple(sorted(rng.sample(range(N_CARDS), len(decks[opp]))))
            placed = st.placed
            if placed is not None:
                mine = list(placed[opp])
                rng.shuffle(mine)
                placed = (tuple(mine), placed[1]) if opp == 0 else (placed[0], tuple(mine))
            g._setup = replace(st, pool=tuple(pool), cards=(decks[0], decks[1]), placed=placed)
            return g
        if g._solo:
            if player == 0 and len(g._deck) > 1:
                body = sorted(g._deck[:-1])
                rng.shuffle(body)
                g._deck = [*body, g._deck[-1]]
            return g
        hand = g._hands[opp]
        known = g._known[opp]
        slots = [i for i, c in enumerate(hand) if c < N_CARDS and not known >> c & 1]
        if g._hidden_ids:
            seen = {c for c in g._hands[player]} | {cr[0] for L in g._lanes for cr in L}
            if g._pending is not None:  # destroyed cards waiting for their return order are public
                seen |= set(g._pending[1])
            if g._cast_cont is not None:  # so is an incantation being resolved (R5.4a)
                seen.add(g._cast_cont[1])
            seen |= {hand[i] for i in range(len(hand)) if i not in slots}
            unseen = [c for c in range(N_CARDS) if c not in seen]
            cards = rng.sample(unseen, len(slots))
        else:
            cards = sorted(hand[i] for i in slots)
            rng.shuffle(cards)
        for i, c in zip(slots, cards, strict=True):
            hand[i] = c
        return g

    # ------------------------------------------------------------------ RNG

    def _next_block(self) -> bytes:
        block = rng_block(self._rng)
        self._rng = (self._rng & ~_MASK32) | ((self._rng + 1) & _MASK32)
        return block

    def _below(self, n: int) -> int:
        """Uniform integer in [0, n), n < 2**64, by rejection (no modulo bias)."""
        limit = (1 << 64) - ((1 << 64) % n)
        while True:
            block = self._next_block()
            for k in range(0, 64, 8):
                z = int.from_bytes(block[k : k + 8], "little")
                if z < limit:
                    return z % n

    def _shuffle(self, items: list[int]) -> None:
        """Fisher-Yates with one random byte per step (rejection keeps it exactly uniform; n <= 256)."""
        block = b""
        k = 64
        for i in range(len(items) - 1, 0, -1):
            n = i + 1
            limit = 256 - 256 % n
            while True:
                if k == 64:
                    block = self._next_block()
                    k = 0
                byte = block[k]
                k += 1
                if byte < limit:
                    break
            j = byte % n
            items[i], items[j] = items[j], items[i]

    # ------------------------------------------------------------------ public queries

    @property
    def ruleset(self) -> Ruleset:
        """The rule variants in force (:class:`~clashofdecks.options.Ruleset`)."""
        return self._ruleset

    @property
    def threat(self) -> Threat:
        """The solo threat options (R8.2); the quick game's in a duel, where they do not apply."""
        return self._threat

    @property
    def is_solo(self) -> bool:
        """True in solo (seat 1 is the automaton, R7)."""
        return self._solo

    @property
    def turn(self) -> int:
        """The turn number: 1 on the first player's first turn, +1 with every turn of either player."""
        return self._turn

    @property
    def active(self) -> int:
        """Whose turn it is."""
        return self._active

    @property
    def mana(self) -> int:
        """The mana the active player has left this turn."""
        return self._mana

    @property
    def phase(self) -> str:
        """``setup``, ``summon``, ``combat`` or ``over``.

        >>> Game.random_duel(seed=1).phase
        'summon'
        """
        return ("setup", "summon", "combat", "over")[self._stage]

    @property
    def decision_kind(self) -> DecisionKind:
        """What kind of decision the game waits for (see :class:`DecisionKind`).

        >>> Game.random_duel(seed=1).decision_kind
        <DecisionKind.CHOOSE: 'choose'>
        """
        stage = self._stage
        if stage != SETUP:  # play (a return order too) or over
            return _OVER if stage == OVER else _CHOOSE
        if self._pending is not None:
            return _CHOOSE
        verb = self._setup.steps[0][0]  # type: ignore[union-attr]
        if verb == "build":
            return _BUILD
        return _CHANCE if verb in setup_stage.CHANCE_STEPS else _CHOOSE

    @property
    def current_player(self) -> int:
        """Whose decision it is now (the active player, or the owner choosing a return order);
        -1 once the game is over."""
        if self._stage == OVER:
            return -1
        if self._pending is not None:
            return self._pending[0]
        if self._stage == SETUP:
            return setup_stage.current_player(self._setup)  # type: ignore[arg-type]
        return self._active

    @property
    def pending(self) -> tuple[int, tuple[str, ...]] | None:
        """The pending return-order decision (R3.9), as ``(player, card ids in hit order)``."""
        if self._pending is None:
            return None
        return self._pending[0], tuple(CARD_IDS[c] for c in self._pending[1])

    def is_over(self) -> bool:
        """Whether the game has ended (see :attr:`outcome`)."""
        return self._stage == OVER

    @property
    def outcome(self) -> Outcome | None:
        """How the game ended (winner, reason, :class:`Termination`), or ``None`` while it goes on."""
        if self._stage != OVER:
            return None
        return Outcome(None if self._winner == DRAW else self._winner, self._winner_reason, self._termination)

    @property
    def winner(self) -> int | None:
        """0 or 1 once decided; ``None`` while playing or for a draw (see :attr:`outcome`)."""
        return None if self._winner == DRAW else self._winner

    def hand(self, player: int) -> list[str]:
        """``player``'s hand left to right as card ids, fortress card included (the whole truth: for what
        a player may see, use :func:`clashofdecks.position.view`).

        >>> Game.from_hands([["OGRE"], ["GNOME"]]).hand(0)
        ['BASTION', 'OGRE']
        """
        return [CARD_IDS[c] for c in self._hands[player]]

    def lane(self, player: int, lane: int | str) -> list[dict[str, object]]:
        """The creatures of ``player`` in ``lane`` (0/"top" or 1/"bottom"), from the bridge outward."""
        ln = lane if isinstance(lane, int) else A.LANE_INDEX[lane]
        out: list[dict[str, object]] = []
        for i, cr in enumerate(self._lanes[player * 2 + ln]):
            out.append(
                {
                    "card": CARD_IDS[cr[C_CARD]],
                    "damage": cr[C_DAMAGE],
                    "new": cr[C_NEW],
                    "protected": cr[C_PROTECTED],
                    "activated": cr[C_ACTIVATED],
                    "sprint_bonus": cr[C_SPRINT],
                    "abilities": self.creature_abilities(player, ln, i),
                    "granted": self._granted_names(player, ln, i),
                }
            )
        return out

    def creature_abilities(self, player: int, lane: int, position: int) -> list[str]:
        """The abilities the creature has now (printed, Aura from neighbours, solo threat)."""
        return ability_names(self._abilities(player, self._lanes[player * 2 + lane], position))

    def _granted_names(self, player: int, lane: int, position: int) -> list[str]:
        L = self._lanes[player * 2 + lane]
        bits = self._abilities(player, L, position) & ~ABILITIES[L[position][C_CARD]]
        return ability_names(bits)

    def fortress(self, player: int) -> tuple[str, int, int]:
        """``(side, places left, hand size)``: side is "BASTION"/"FORT"; places left is how many steps
        of damage move it to the rightmost place (for the automaton: cards above it in its deck)."""
        side = "FORT" if self._fort[player] else "BASTION"
        if self._solo and player == 1:
            return side, len(self._deck) - 1, len(self._deck)
        hand = self._hands[player]
        idx = hand.index(FORT if self._fort[player] else BASTION)
        return side, len(hand) - 1 - idx, len(hand)

    @property
    def automaton_deck_size(self) -> int:
        """Cards above the automaton's fortress card (solo)."""
        return max(0, len(self._deck) - 1)

    @property
    def automaton_discard(self) -> list[str]:
        """The automaton's discard pile, oldest first (public, R9.1)."""
        return [CARD_IDS[c] for c in self._discard]

    def playable_cards(self, player: int) -> list[str]:
        """The (up to) 4 leftmost cards of the hand, fortress not counted (R3.2)."""
        return [CARD_IDS[c] for c in self._playable(player)]

    def _playable(self, player: int) -> list[int]:
        out: list[int] = []
        for c in self._hands[player]:
            if c < N_CARDS:
                out.append(c)
                if len(out) == 4:
                    break
        return out

    # ------------------------------------------------------------------ abilities

    def _abilities(self, p: int, L: list[Creature], i: int) -> int:
        bits = ABILITIES[L[i][C_CARD]]
        if i:
            bits |= AURA[L[i - 1][C_CARD]]
        if i + 1 < len(L):
            bits |= AURA[L[i + 1][C_CARD]]
        if p == 1:
            bits |= self._threat_bits
        return bits

    # ------------------------------------------------------------------ legal actions

    def legal_actions(self) -> Sequence[int]:
        """The legal actions of :attr:`current_player`, as sorted integers (empty when over).

        Immutable (a tuple; in the custom format's build stage, :attr:`decision_kind`
        :attr:`DecisionKind.BUILD`, a lazy sequence over every 10-card deck, R2.5: C(32, 10) integers,
        never materialised), so a caller cannot disturb the game by changing it.

        >>> game = Game.random_duel(seed=1)
        >>> legal = game.legal_actions()
        >>> type(legal).__name__, game.action_text(legal[0])
        ('tuple', 'end')
        """
        legal = self._legal
        if legal is None:
            legal = self._legal = self._compute_legal()
        return legal

    def _compute_legal(self) -> Sequence[int]:
        stage = self._stage
        if stage == OVER:
            return ()
        if self._pending is not None:
            n = len(A.order_permutations(self._pending[1]))
            return tuple(range(A.ORDER_BASE, A.ORDER_BASE + n))
        if stage == SETUP:
            return setup_stage.legal_actions(self._setup)  # type: ignore[arg-type]
        p = self._active
        hand = self._hands[p]
        mana = self._mana
        summon = stage == SUMMON
        casting = summon or self._timing_combat
        n = len(hand)
        fort = self._fort[p]
        fi = hand.index(FORT if fort else BASTION)
        window = hand[:5]  # the 4 leftmost cards besides the fortress (R3.2)
        del window[fi if fi < 5 else 4]
        # R3.4: keep a card besides the fortress; R3.4a: never the last card right of a Fort.
        can_play = summon and n > 2
        blocked = hand[-1] if fort and fi == n - 2 else -1
        plays: list[int] = []
        casts: list[int] = []
        for c in window:
            if COST[c] <= mana:
                if IS_INCANTATION[c]:
                    if casting:
                        casts.append(c)
                elif can_play and c != blocked:
                    plays.append(c)
        if summon:
            acts = [_END]
        else:
            acts = [_END, _NEXT] if self._can_next() else [_END]
        if plays:
            if len(plays) > 1:
                plays.sort()
            for c in plays:
                acts += _PLAY_PAIR[c]
        if casts:
            l0, l1, l2, l3 = self._lanes
            s0, s1, s2, s3 = len(l0), len(l1), len(l2), len(l3)
            if s0 or s1 or s2 or s3:
                if len(casts) > 1:
                    casts.sort()
                for c in casts:
                    t = _CAST_TARGETS[c]
                    acts += t[0][s0]
                    acts += t[1][s1]
                    acts += t[2][s2]
                    acts += t[3][s3]
        return tuple(acts)

    def legal_action_mask(self) -> list[bool]:
        """A list of :data:`clashofdecks.actions.ACTION_SPACE` booleans, True where legal."""
        if self.decision_kind is _BUILD:
            raise ClashError("the custom build stage's decisions are outside the fixed action space")
        legal = self.legal_actions()
        mask = [False] * A.ACTION_SPACE
        for a in legal:
            if a < A.ACTION_SPACE:
                mask[a] = True
        return mask

    def is_legal(self, action: int) -> bool:
        """Whether ``action`` is legal now (fast even in the custom build stage).

        >>> game = Game.random_duel(seed=1)
        >>> game.is_legal(game.parse_action("end"))
        True
        """
        return action in self.legal_actions()

    # ------------------------------------------------------------------ text notation

    def parse_action(self, text: str) -> int:
        """Action text → integer (syntax only; legality is checked by :meth:`apply`)."""
        return A.parse_action(text, self._pending[1] if self._pending else None)

    def action_text(self, action: int) -> str:
        """The text notation of ``action`` (the inverse of :meth:`parse_action`)."""
        return A.format_action(action, self._pending[1] if self._pending else None)

    def legal_action_texts(self) -> list[str]:
        """The legal actions as text.  Refused in the custom build stage, where every one of the
        C(32, 10) decks is legal (write ``build`` with ten card ids instead)."""
        legal = self.legal_actions()
        if self.decision_kind is _BUILD:
            raise ClashError(f"{len(legal):,} builds are legal now: write 'build' and ten card ids")
        return [self.action_text(a) for a in legal]

    def apply_text(self, text: str) -> tuple[Event, ...]:
        """Parse and apply action text."""
        return self.apply(self.parse_action(text))

    # ------------------------------------------------------------------ why an action is illegal

    def explain_illegal(self, action: int) -> str:
        """A sentence saying why ``action`` is not legal now."""
        if self._stage == OVER:
            return "the game is over"
        try:
            text = self.action_text(action)
        except ValueError as exc:
            return str(exc)
        if self._pending is not None:
            who, cards = self._pending
            names = " ".join(CARD_IDS[c] for c in cards)
            return f"player {who} must first choose the return order of {names} ('order ...') (R3.9)"
        if self._stage == SETUP:
            return setup_stage.explain(self._setup, action)  # type: ignore[arg-type]
        p = self._active
        hand = self._hands[p]
        if action == A.NEXT:
            if self._stage != COMBAT:
                return "'next' is only legal in the Combat phase (R3.5); 'end' ends Summoning"
            return "no creature left that can attack now (R3.5, R3.6)"
        if A.PLAY_BASE <= action < A.ORDER_BASE:
            is_cast = action >= A.CAST_BASE
            cid = text.split()[1]
            c = card_index(cid)
            if c not in hand:
                return f"{cid} is not in player {p}'s hand (R3.2)"
            if c not in self._playable(p):
                return f"{cid} is not among the 4 leftmost cards of the hand (R3.2)"
            if not is_cast and self._stage != SUMMON:
                return "creatures are played only in the Summoning phase (R3.3)"
            if is_cast and self._stage == COMBAT and not self._timing_combat:
                return "incantations are cast only in the Summoning phase under this ruleset (R5.1a)"
            if COST[c] > self._mana:
                return f"not enough mana: {cid} costs {COST[c]}, {self._mana} left (R3.1)"
            if is_cast:
                rest, pos = divmod(action - A.CAST_BASE, A.MAX_POSITION)
                rest, ln = divmod(rest, 2)
                q = rest % 2
                if not any(self._lanes):
                    return "an incantation needs a creature in play as its target (R5.2a)"
                if pos >= len(self._lanes[q * 2 + ln]):
                    return f"no creature at {q}.{_LANES[ln]}.{pos} (R5.2)"
            else:
                if len(hand) <= 2:
                    return "you must keep at least one card besides the fortress card (R3.4)"
                return "playing the last card to the right of your Fort would lose the game (R3.4a)"
        return f"{text!r} is not a decision of this phase (R3)"

    # ------------------------------------------------------------------ apply / undo / clone

    def _snapshot(self) -> tuple[object, ...]:
        h = self._hands
        la = self._lanes
        return (
            self._stage,
            self._turn,
            self._active,
            self._mana,
            self._winner,
            self._winner_reason,
            self._termination,
            self._over_phase,
            h[0].copy(),
            h[1].copy(),
            la[0].copy(),
            la[1].copy(),
            la[2].copy(),
            la[3].copy(),
            self._fort.copy(),
            self._known.copy(),
            self._deck.copy() if self._solo else self._deck,  # duel: always empty, never mutated
            self._discard.copy() if self._solo else self._discard,
            self._pending,
            self._cast_cont,
            self._chain,
            self._ending,
            self._auto,
            self._last_turn,
            self._rng,
            self._setup,
            self._legal,
        )

    def _restore(self, s: tuple[object, ...]) -> None:
        (
            self._stage,
            self._turn,
            self._active,
            self._mana,
            self._winner,
            self._winner_reason,
            self._termination,
            self._over_phase,
            h0,
            h1,
            l0,
            l1,
            l2,
            l3,
            self._fort,
            self._known,
            self._deck,
            self._discard,
            self._pending,
            self._cast_cont,
            self._chain,
            self._ending,
            self._auto,
            self._last_turn,
            self._rng,
            self._setup,
            self._legal,
        ) = s  # type: ignore[assignment]
        self._hands = [h0, h1]  # type: ignore[list-item]
        self._lanes = [l0, l1, l2, l3]  # type: ignore[list-item]

    def apply(self, action: int) -> tuple[Event, ...]:
        """Apply a legal action of :attr:`current_player` and return the events it caused.

        Raises :class:`IllegalActionError` (with the reason) for an action that is not legal now;
        the game is then exactly as before.
        """
        legal = self._legal
        if legal is None:
            legal = self._legal = self._compute_legal()
        if action not in legal:
            raise IllegalActionError(self.explain_illegal(action))
        rec = self._record
        if rec:
            self._events = []
        self._actions.append(action)
        if not self._keep_undo:
            self._legal = None
            self._dispatch(action)
            return tuple(self._events) if rec else ()
        if self._stage == SUMMON and action < _CAST_BASE and self._pending is None:
            # Light undo records for the two commonest actions (see undo()).
            if action == _END:
                self._history.append(((legal,), action))
                self._legal = None
                self._stage = COMBAT
                if rec:
                    self._emit(EventKind.PHASE_CHANGED, "R3", player=self._active, detail="combat")
            else:
                p = self._active
                self._history.append(((legal, self._hands[p].copy(), self._mana, self._fort[p]), action))
                self._legal = None
                self._play(*_PLAY_DECODE[action])
            return tuple(self._events) if rec else ()
        history = self._history
        if len(history) >= UNDO_LIMIT:
            del history[: UNDO_LIMIT // 2]  # keep memory bounded in endless games; the oldest go first
        history.append((self._snapshot(), action))
        self._legal = None
        self._dispatch(action)
        return tuple(self._events) if rec else ()

    def _dispatch(self, action: int) -> None:
        """Resolve a verified action (the undo record, if any, is already taken)."""
        rec = self._record
        if action == _END and self._pending is None:
            if self._stage == SUMMON:
                self._stage = COMBAT
                if rec:
                    self._emit(EventKind.PHASE_CHANGED, "R3", player=self._active, detail="combat")
            elif self._stage == COMBAT:
                self._ending = True
                self._run_activations()
            else:
                self._apply_setup(action)
        elif action < _CAST_BASE and self._stage != SETUP:
            if action == _NEXT:
                self._activate_next()
            else:
                self._play(*_PLAY_DECODE[action])
        elif action < _ORDER_BASE and self._stage != SETUP:
            self._cast(*_CAST_DECODE[action - _CAST_BASE])
        elif self._pending is not None:
            self._do_order(action)
        else:
            self._apply_setup(action)

    def _apply_setup(self, action: int) -> None:
        st = self._setup
        assert isinstance(st, setup_stage.SetupState)
        emit = self._emit if self._record else None
        if st.decision == "coin":
            b_starts = self._ruleset.first_player == "last_draft_pick" and st.kind == "draft"
            self._coin_toss(action - A.CHANCE_COIN, 1 if b_starts else 0)
            if emit is not None:
                emit(EventKind.SETUP, "R2.3a", detail="coin toss", role="coin", amount=action - A.CHANCE_COIN)
        self._setup = setup_stage.decide(st, action, emit)
        self._advance_setup()

    def _advance_setup(self) -> None:
        """Run the setup's automatic steps; deal and start turn 1 when the setup is complete."""
        st = self._setup
        assert isinstance(st, setup_stage.SetupState)
        st = setup_stage.advance(st, self._solo, self._emit if self._record else None)
        self._setup = st
        if st.steps:
            return
        if not st.external:
            self._deal(setup_stage.final_cards(st, self._solo))
        elif st.placed is None:
            self._setup = setup_stage.deal_steps(st, setup_stage.final_cards(st, self._solo))
        else:
            self._deal(st.placed, shuffle=False)

    def _deal(self, cards: tuple[tuple[int, ...], tuple[int, ...]], *, shuffle: bool = True) -> None:
        """R2.6 / R7.1: shuffle, Bastion leftmost (automaton: deck with its fortress at the bottom); start.

        ``shuffle`` is off when chance already placed every card (external chance)."""
        rec = self._record
        for seat in (0, 1):
            mine = list(cards[seat])
            if shuffle:
                self._shuffle(mine)
            if self._solo and seat == 1:
                fort = self._threat.resilience == "fort"
                self._deck = [*mine, FORT if fort else BASTION]
                self._fort[1] = fort
            else:
                self._hands[seat] = [BASTION, *mine]
        self._setup = None
        if rec:
            self._emit(EventKind.SETUP, "R2.6", detail="hands shuffled, Bastion leftmost", role="dealt")
        self._turn = 1
        if self._solo and self._threat.starts == "automaton":
            self._active = 1  # R7.1a: the automaton uses its own mana; the player's first turn is normal
            self._start_turn()
            return
        self._active = 0
        self._stage = SUMMON
        self._mana = 6  # R2.6: the starting player's very first turn
        if rec:
            self._emit(
                EventKind.TURN_STARTED, "R2.6", player=0, amount=1, detail="6 mana (first turn)", value=6
            )

    def undo(self) -> int:
        """Take back the last action; returns it.  Raises :class:`IndexError` when there is none."""
        if not self._history:
            raise IndexError("nothing to undo")
        snap, action = self._history.pop()
        self._actions.pop()
        size = len(snap)
        if size == 1:  # `end` of Summoning
            self._stage = SUMMON
            self._legal = snap[0]  # type: ignore[assignment]
        elif size == 4:  # `play`: the hand, mana and fortress side before; the creature was appended
            p = self._active
            legal, hand, mana, fort = snap
            self._legal = legal  # type: ignore[assignment]
            self._hands[p] = hand  # type: ignore[call-overload]
            self._mana = mana  # type: ignore[assignment]
            self._fort[p] = fort  # type: ignore[call-overload]
            self._lanes[p * 2 + ((action - _PLAY_BASE) & 1)].pop()
        else:
            self._restore(snap)
        return action

    @property
    def history(self) -> list[int]:
        """Every action applied since the game started (or was loaded), oldest first, whether or not
        it can still be undone (see :attr:`keep_undo`): what a game record lists."""
        return self._actions.copy()

    @property
    def undo_depth(self) -> int:
        """How many actions :meth:`undo` can take back now (at most :data:`UNDO_LIMIT`)."""
        return len(self._history)

    def clone(self) -> Game:
        """An independent copy (RNG state included); the copy starts with an empty undo history."""
        g = Game.__new__(Game)
        g._ruleset = self._ruleset
        g._threat = self._threat
        g._solo = self._solo
        g._rotated = self._rotated
        g._timing_combat = self._timing_combat
        g._prot_any = self._prot_any
        g._per_card = self._per_card
        g._max_turns = self._max_turns
        g._threat_bits = self._threat_bits
        g._hidden_ids = self._hidden_ids
        g._record = self._record
        g._events = []
        g._history = []
        g._actions = self._actions.copy()
        g._keep_undo = self._keep_undo
        g._legal = self._legal
        g.origin = self.origin
        g._first_participant = self._first_participant
        g._restore(self._snapshot())
        g._legal = self._legal
        return g

    def take_events(self) -> tuple[Event, ...]:
        """Events emitted outside :meth:`apply` (when the game was created: the first draft reveal,
        the deal, an automaton's first turn), once; ``apply`` returns its own events."""
        out = tuple(self._events)
        self._events = []
        return out

    @property
    def keep_undo(self) -> bool:
        """Whether :meth:`apply` keeps undo records (default True).  Rollouts and simulations that
        never undo may turn it off to save the snapshot; :meth:`undo` then has nothing to take back."""
        return self._keep_undo

    @keep_undo.setter
    def keep_undo(self, value: bool) -> None:
        self._keep_undo = value
        if not value:
            self._history.clear()

    @property
    def record_events(self) -> bool:
        """Whether :meth:`apply` returns events (off: faster, for rollouts and simulations)."""
        return self._record

    @record_events.setter
    def record_events(self, value: bool) -> None:
        self._record = value

    # ------------------------------------------------------------------ events

    def _emit(self, kind: EventKind, rule: str, **kw: object) -> None:
        self._events.append(Event(kind, rule, **kw))  # type: ignore[arg-type]

    # ------------------------------------------------------------------ summoning

    def _play(self, c: int, lane: int) -> None:
        p = self._active
        hand = self._hands[p]
        hand.remove(c)
        self._mana -= COST[c]
        self._lanes[p * 2 + lane].append((c, 0, True, False, False, 0))
        if self._record:
            self._emit(EventKind.PLAYED, "R3.3", player=p, card=CARD_IDS[c], lane=_LANES[lane])
        if hand[-1] == BASTION:
            self._bastion_falls(p, "R3.4b")

    def _bastion_falls(self, p: int, rule: str) -> None:
        hand = self._hands[p]
        hand.pop()
        hand.insert(0, FORT)
        self._fort[p] = True
        if self._record:
            self._emit(EventKind.BASTION_FELL, rule, player=p, detail="flipped to Fort, leftmost")

    def _cast(self, c: int, q: int, lane: int, pos: int) -> None:
        p = self._active
        self._mana -= COST[c]
        self._hands[p].remove(c)  # R3.4c: out of the hand only while it resolves
        if self._record:
            target = CARD_IDS[self._lanes[q * 2 + lane][pos][C_CARD]]
            self._emit(
                EventKind.CAST,
                "R5.1",
                player=p,
                card=CARD_IDS[c],
                target_player=q,
                target_card=target,
                lane=_LANES[lane],
                position=pos,
            )
        bits = ABILITIES[c] | (self._threat_bits if p == 1 else 0)
        destroyed = self._hit(q, lane, pos, ATTACK[c], bits, True)
        if self._return_destroyed(q, destroyed):
            self._cast_cont = (p, c)
            return
        self._finish_cast(p, c)

    def _finish_cast(self, p: int, c: int) -> None:
        if self._solo and p == 1:
            self._discard.append(c)
            if self._record:
                self._emit(EventKind.DISCARDED, "R7.5", player=1, card=CARD_IDS[c], detail="resolved")
        else:
            self._hands[p].append(c)
            self._known[p] |= 1 << c
            if self._record:
                self._emit(EventKind.RETURNED, "R5.4", player=p, card=CARD_IDS[c])

    # ------------------------------------------------------------------ combat

    def _can_next(self) -> bool:
        """Whether a not-yet-activated creature of the active player can attack now (R3.5, R3.6)."""
        p = self._active
        lanes = self._lanes
        for lane in (0, 1):
            L = lanes[p * 2 + lane]
            for cr in L:
                if not cr[C_ACTIVATED]:
                    if not cr[C_NEW]:
                        return True
                    # A new creature attacks only with Rage and an enemy creature in its lane (R6.3).
                    if lanes[(1 - p) * 2 + lane] and self._abilities(p, L, L.index(cr)) & RAGE:
                        return True
        return False

    def _activate_next(self) -> bool | None:
        """Activate creatures in order (R3.5) until one attacks.  Returns None when no creature is
        left to activate, False when resolution paused for a decision, True otherwise."""
        p = self._active
        lanes = self._lanes
        for lane in (1, 0) if self._rotated and p == 1 else (0, 1):
            L = lanes[p * 2 + lane]
            i = len(L) - 1
            while i >= 0:
                cr = L[i]
                if cr[C_ACTIVATED]:
                    i -= 1
                    continue
                L[i] = (cr[0], cr[1], cr[2], cr[3], True, cr[5])
                if not cr[C_NEW] or (self._abilities(p, L, i) & RAGE and lanes[(1 - p) * 2 + lane]):
                    return self._attack_chain(p, cr[C_CARD], lane, i)
                if self._record:
                    self._emit(EventKind.ACTIVATION_PASSED, "R3.5b", player=p, card=CARD_IDS[cr[0]])
                i -= 1
        return None

    def _run_activations(self) -> None:
        """Resolve every remaining activation, then end the turn (the `end` of Combat)."""
        while self._stage != OVER:
            r = self._activate_next()
            if r is False:
                return  # paused for a return order; resumed by _resume()
            if r is None:
                break
        if self._stage != OVER:
            self._end_turn()

    def _find(self, p: int, c: int) -> tuple[int, int]:
        for lane in (0, 1):
            L = self._lanes[p * 2 + lane]
            for i in range(len(L)):
                if L[i][C_CARD] == c:
                    return lane, i
        raise AssertionError("attacker not in play")  # pragma: no cover

    def _attack_chain(self, p: int, c: int, lane: int = -1, i: int = -1) -> bool:
        """One activation: an attack and its Berserk re-attacks (R3.7, R6.6).  False if paused.

        ``lane``/``i`` locate the attacker when known (else it is looked up)."""
        q = 1 - p
        rec = self._record
        lanes = self._lanes
        while True:
            if lane < 0:
                lane, i = self._find(p, c)
            L = lanes[p * 2 + lane]
            E = lanes[q * 2 + lane]
            bits = self._abilities(p, L, i)
            cr = L[i]
            if cr[C_NEW] and (not bits & RAGE or not E):
                return True  # R6.3: in its entry turn it attacks creatures only
            if bits & SPRINT and i:
                cr = (cr[0], cr[1], cr[2], cr[3], cr[4], cr[5] + i)
                del L[i]
                L.insert(0, cr)
                if rec:
                    self._emit(EventKind.SPRINTED, "R6.7", player=p, card=CARD_IDS[c], amount=i)
                i = 0
                bits = self._abilities(p, L, 0)
            amount = ATTACK[c] + cr[C_SPRINT]
            if not E:
                if rec:
                    self._emit(
                        EventKind.ATTACKED, "R3.7", player=p, card=CARD_IDS[c], target_player=q, amount=amount
                    )
                self._damage_player(q, amount, True)
                return True
            if rec:
                self._emit(
                    EventKind.ATTACKED,
                    "R3.7",
                    player=p,
                    card=CARD_IDS[c],
                    target_player=q,
                    target_card=CARD_IDS[E[0][C_CARD]],
                    lane=_LANES[lane],
                    amount=amount,
                )
            destroyed = self._hit(q, lane, 0, amount, bits, False)
            if not destroyed:
                return True
            paused = self._return_destroyed(q, destroyed)
            if not bits & BERSERK:
                return not paused
            if rec:
                self._emit(
                    EventKind.ATTACKED,
                    "R6.6",
                    player=p,
                    card=CARD_IDS[c],
                    detail="berserk: attacks again",
                    role="berserk",
                )
            if paused:
                self._chain = (p, c)
                return False
            # The attacker's own lane did not change (only the defender's creatures were hit).

    def _hit(self, q: int, lane: int, pos: int, amount: int, bits: int, from_inc: bool) -> list[int]:
        """Deal one attack's damage to ``q``'s creature at (lane, pos) and its Splash/Perforation
        victims, all worked out on the board as it stands (R6.9); remove the destroyed (R3.8) and
        return their cards in hit order (target, Splash victim, Perforation victim)."""
        lanes = self._lanes
        base = q * 2
        L = lanes[base + lane]
        splash = bits & SPLASH and pos < len(lanes[base + 1 - lane])
        perforation = bits & PERFORATION and pos + 1 < len(L)
        if not splash and not perforation:
            # The common case: one victim.
            vc = self._damage(q, L, pos, self._abilities(q, L, pos), amount, from_inc, 0)
            if vc < 0:
                return []
            del L[pos]
            if self._record:
                self._emit(EventKind.DESTROYED, "R3.8", player=q, card=CARD_IDS[vc])
            return [vc]
        hits = [(lane, pos, 0)]
        if splash:
            hits.append((1 - lane, pos, 1))
        if perforation:
            hits.append((lane, pos + 1, 2))
        # Abilities of every victim first: Aura adjacency as it stands before any change (R6.9).
        victims = [(ln, ps, role, self._abilities(q, lanes[base + ln], ps)) for ln, ps, role in hits]
        destroyed: list[tuple[int, int, int]] = []
        for ln, ps, role, vb in victims:
            vc = self._damage(q, lanes[base + ln], ps, vb, amount, from_inc, role)
            if vc >= 0:
                destroyed.append((ln, ps, vc))
        if not destroyed:
            return []
        for ln, ps, _ in sorted(destroyed, key=lambda t: -t[1]):
            del lanes[base + ln][ps]
        cards = [vc for _, _, vc in destroyed]
        if self._record:
            for vc in cards:
                self._emit(EventKind.DESTROYED, "R3.8", player=q, card=CARD_IDS[vc])
        return cards

    def _damage(
        self, q: int, VL: list[Creature], ps: int, vb: int, amount: int, from_inc: bool, role: int
    ) -> int:
        """Damage one victim (role 0 target, 1 Splash, 2 Perforation): its card if destroyed, else -1."""
        cr = VL[ps]
        vc = cr[C_CARD]
        if from_inc and vb & INDESTRUCTIBLE:
            if self._record:
                self._emit(
                    EventKind.ABSORBED,
                    "R6.5",
                    player=q,
                    card=CARD_IDS[vc],
                    detail="Indestructible",
                    role="indestructible",
                )
            return -1
        if amount <= 0:
            return -1
        if vb & PROTECTION and not cr[C_PROTECTED] and (role == 0 or self._prot_any):
            VL[ps] = (vc, cr[1], cr[2], True, cr[4], cr[5])
            if self._record:
                rule = "R6.4" if role == 0 else "R6.4b"
                self._emit(
                    EventKind.ABSORBED,
                    rule,
                    player=q,
                    card=CARD_IDS[vc],
                    detail="Protection",
                    role="protection",
                )
            return -1
        dmg = cr[C_DAMAGE] + amount
        VL[ps] = (vc, dmg, cr[2], cr[3], cr[4], cr[5])
        if self._record:
            what = ("target", "Splash", "Perforation")[role]
            self._emit(
                EventKind.DAMAGED,
                ("R3.8", "R6.1", "R6.2")[role],
                player=q,
                card=CARD_IDS[vc],
                amount=amount,
                detail=f"{what}, {dmg}/{HEALTH[vc]}",
                role=what.lower(),
                value=dmg,
            )
        return vc if dmg >= HEALTH[vc] else -1

    def _return_destroyed(self, q: int, cards: list[int]) -> bool:
        """Return destroyed creatures (R3.8); True if their owner must first choose the order (R3.9)."""
        if not cards:
            return False
        if self._solo and q == 1:
            self._discard.extend(cards)  # R7.5a: hit order
            if self._record:
                for vc in cards:
                    self._emit(EventKind.DISCARDED, "R7.5a", player=1, card=CARD_IDS[vc], detail="destroyed")
            return False
        if len(cards) == 1:
            self._hands[q].append(cards[0])
            self._known[q] |= 1 << cards[0]
            if self._record:
                self._emit(EventKind.RETURNED, "R3.8", player=q, card=CARD_IDS[cards[0]])
            return False
        self._pending = (q, tuple(cards))
        if self._record:
            names = " ".join(CARD_IDS[c] for c in cards)
            ids = tuple(CARD_IDS[c] for c in cards)
            self._emit(EventKind.DECISION_PENDING, "R3.9", player=q, detail=names, cards=ids)
        return True

    def _do_order(self, action: int) -> None:
        assert self._pending is not None
        q, cards = self._pending
        chosen = A.order_permutations(cards)[action - A.ORDER_BASE]
        self._pending = None
        self._hands[q].extend(chosen)
        for c in chosen:
            self._known[q] |= 1 << c
        if self._record:
            self._emit(
                EventKind.ORDER_CHOSEN,
                "R3.9",
                player=q,
                detail=" then ".join(CARD_IDS[c] for c in chosen),
                cards=tuple(CARD_IDS[c] for c in chosen),
            )
        self._resume()

    def _resume(self) -> None:
        """Continue resolution after a return-order decision, where it paused."""
        if self._cast_cont is not None:
            p, c = self._cast_cont
            self._cast_cont = None
            self._finish_cast(p, c)
        if self._chain is not None:
            p, c = self._chain
            self._chain = None
            if not self._attack_chain(p, c) or self._stage == OVER:
                return
        if self._solo and self._active == 1:
            self._automaton_continue()
        elif self._ending:
            self._run_activations()

    # ------------------------------------------------------------------ damage to a player

    def _damage_player(self, q: int, amount: int, by_attack: bool) -> None:
        if self._solo and q == 1:
            if by_attack and self._threat.defence == "minus_one":
                amount = max(0, amount - 1)  # R8.2b
            self._mill(amount)
            return
        if amount <= 0:
            return
        hand = self._hands[q]
        fid = FORT if self._fort[q] else BASTION
        i = hand.index(fid)
        last = len(hand) - 1
        j = min(i + amount, last)
        del hand[i]
        hand.insert(j, fid)
        if self._record:
            self._emit(EventKind.FORTRESS_MOVED, "R4.1", player=q, amount=j - i, detail=f"{amount} damage")
        if j == last:
            if fid == BASTION:
                self._bastion_falls(q, "R4.2")
            else:
                self._game_over(1 - q, "R4.3", Termination.FORT_FALLEN)

    def _game_over(self, winner: int, rule: str, termination: Termination) -> None:
        reason = termination_reason(termination, None if winner == DRAW else winner, self._max_turns)
        self._winner = winner
        self._winner_reason = reason
        self._termination = termination
        if self._stage != OVER:
            self._over_phase = self._stage
        self._stage = OVER
        self._ending = False
        if self._record:
            self._emit(
                EventKind.GAME_OVER,
                rule,
                player=winner if winner != DRAW else None,
                detail=reason,
                role=termination.value,
            )

    # ------------------------------------------------------------------ end of turn

    def _end_turn(self) -> None:
        lanes = self._lanes
        for k in range(4):
            if lanes[k]:
                lanes[k] = [_FRESH[cr[0]] for cr in lanes[k]]
        self._ending = False
        if self._record:
            self._emit(EventKind.TURN_ENDED, "R3.10", player=self._active, amount=self._turn)
        if self._solo and self._active == 1 and self._last_turn:
            self._game_over(0, "R7.8", Termination.SURVIVED_LAST_TURN)
            return
        if self._max_turns is not None and self._turn >= self._max_turns:
            self._game_over(DRAW, "ruleset.max_turns", Termination.TURN_CAP)
            return
        self._turn += 1
        self._active = 1 - self._active
        self._start_turn()

    def _start_turn(self) -> None:
        p = self._active
        if self._solo and p == 1:
            self._automaton_turn()
            return
        self._stage = SUMMON
        self._mana = len(self._hands[p])
        if self._record:
            self._emit(
                EventKind.TURN_STARTED,
                "R3.1",
                player=p,
                amount=self._turn,
                detail=f"{self._mana} mana",
                value=self._mana,
            )

    # ------------------------------------------------------------------ the automaton (R7)

    def _automaton_turn(self) -> None:
        player_creatures = len(self._lanes[0]) + len(self._lanes[1])
        self._mana = self._threat.base_mana + self._threat.extra_mana_per_creature * player_creatures
        self._stage = SUMMON
        self._last_turn = self._fort[1] and len(self._deck) <= 1
        if self._record:
            detail = f"{self._mana} mana" + (
                ", last turn: deck empty above its Fort" if self._last_turn else ""
            )
            self._emit(
                EventKind.TURN_STARTED,
                "R7.2",
                player=1,
                amount=self._turn,
                detail=detail,
                value=self._mana,
                role="last_turn" if self._last_turn else None,
            )
        self._auto = (0, 0, 0)
        self._automaton_continue()

    def _automaton_continue(self) -> None:
        """The automaton's summoning loop (R7.3) and combat; resumable after a player's decision."""
        rec = self._record
        while self._auto is not None:
            spent, slot, shown = self._auto
            # R7.3: the first card is revealed whatever the mana; the next while the cost is below it.
            if (shown and spent >= self._mana) or len(self._deck) <= 1:
                self._auto = None
                break
            shown += 1
            c = self._deck.pop(0)
            if rec:
                self._emit(EventKind.REVEALED, "R7.3", player=1, card=CARD_IDS[c])
            if len(self._deck) == 1 and not self._fort[1]:
                self._rebuild_deck()  # R7.8a: before the revealed card resolves
            if not IS_INCANTATION[c]:
                lane = (slot & 1) ^ (1 if self._rotated else 0)
                self._lanes[2 + lane].append((c, 0, True, False, False, 0))
                self._auto = (spent + COST[c], slot + 1, shown)
                if rec:
                    self._emit(EventKind.PLAYED, "R7.3", player=1, card=CARD_IDS[c], lane=_LANES[lane])
                continue
            slot += 1 if self._per_card else 0
            if self._lanes[0]:
                lane = 0
            elif self._lanes[1]:
                lane = 1
            else:
                self._discard.append(c)  # R7.4a: no target, no effect, no cost
                self._auto = (spent, slot, shown)
                if rec:
                    self._emit(EventKind.FIZZLED, "R7.4a", player=1, card=CARD_IDS[c])
                continue
            self._auto = (spent + COST[c], slot, shown)
            if rec:
                self._emit(
                    EventKind.CAST,
                    "R7.4a",
                    player=1,
                    card=CARD_IDS[c],
                    target_player=0,
                    target_card=CARD_IDS[self._lanes[lane][0][C_CARD]],
                    lane=_LANES[lane],
                    position=0,
                )
            destroyed = self._hit(0, lane, 0, ATTACK[c], ABILITIES[c] | self._threat_bits, True)
            if self._return_destroyed(0, destroyed):
                self._cast_cont = (1, c)
                return
            self._finish_cast(1, c)
        if self._stage == SUMMON:
            self._stage = COMBAT
        self._ending = True
        self._run_activations()

    def _mill(self, amount: int) -> None:
        """Damage to the automaton: discard that many cards from its deck (R7.6)."""
        if amount <= 0:
            return
        deck = self._deck
        n = 0
        while n < amount and len(deck) > 1:
            c = deck.pop(0)
            self._discard.append(c)
            n += 1
            if self._record:
                self._emit(EventKind.DISCARDED, "R7.6", player=1, card=CARD_IDS[c], detail="damage")
            if len(deck) == 1 and not self._fort[1]:
                self._rebuild_deck()  # R7.7; the rest of the damage is lost (R7.6a)
                break

    def _rebuild_deck(self) -> None:
        pile = self._discard[:]
        self._shuffle(pile)
        self._deck = [*pile, FORT]
        self._discard = []
        self._fort[1] = True
        if self._record:
            self._emit(EventKind.BASTION_FELL, "R7.7", player=1, detail="its deck is empty above it")
            self._emit(EventKind.DECK_REBUILT, "R7.7", player=1, amount=len(pile))

    # ------------------------------------------------------------------ iteration helpers

    def creatures(self) -> Iterator[tuple[int, int, int, Creature]]:
        """Every creature in play as ``(player, lane, position, creature tuple)``."""
        for idx, L in enumerate(self._lanes):
            for i, cr in enumerate(L):
                yield idx >> 1, idx & 1, i, cr

    def _repr_svg_(self) -> str | None:
        """The board as SVG, as Jupyter shows it (``None`` when no drawer is registered)."""
        return _board_drawer[0](self) if _board_drawer else None

    def __repr__(self) -> str:
        mode = "solo" if self._solo else "duel"
        if self._stage == OVER:
            return f"<Game {mode} over after turn {self._turn}: {self._winner_reason}>"
        if self._stage == SETUP:
            st = self._setup
            verb = st.decision if isinstance(st, setup_stage.SetupState) and st.steps else "?"
            return f"<Game {mode} setup: {verb} by P{self.current_player}>"
        return f"<Game {mode} turn {self._turn} P{self._active} {self.phase} mana {self._mana}>"
