"""The game's fields and what every room shares: building from a :class:`GameState` and reading it back,
undo snapshots, events, the abilities a creature has now."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from .. import setup as setup_stage
from ..cards import ABILITIES, ABILITY_BITS, AURA, FORT
from ..events import Event, EventKind
from ..options import Ruleset, Threat
from .state import (
    _DEFAULT_THREAT,
    C_CARD,
    Creature,
    DecisionKind,
    GameFields,
    GameOrigin,
    GameState,
    Termination,
)


class GameCore:
    """The fields of a :class:`~clashofdecks.rules.Game` and the helpers every room uses.

    The rooms (legality, resolution, combat, the automaton, ...) are mixins over this class; a
    method one room calls in another is declared below for the type checker only, so the class
    the interpreter builds holds each method once, on the room that defines it (no delegation on
    the hot path)."""

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

    _actions: list[int]
    _active: int
    _auto: tuple[int, int, int] | None
    _cast_cont: tuple[int, int] | None
    _chain: tuple[int, int] | None
    _deck: list[int]
    _discard: list[int]
    _ending: bool
    _events: list[Event]
    _first_participant: int
    _fort: list[bool]
    _hands: list[list[int]]
    _hidden_ids: bool
    _history: list[tuple[tuple[object, ...], int]]
    _keep_undo: bool
    _known: list[int]
    _lanes: list[list[Creature]]
    _last_turn: bool
    _legal: Sequence[int] | None
    _mana: int
    _max_turns: int | None
    _over_phase: int
    _pending: tuple[int, tuple[int, ...]] | None
    _per_card: bool
    _prot_any: bool
    _record: bool
    _rng: int
    _rotated: bool
    _ruleset: Ruleset
    _setup: setup_stage.SetupState | None
    _solo: bool
    _stage: int
    _termination: Termination
    _threat: Threat
    _threat_bits: int
    _timing_combat: bool
    _turn: int
    _winner: int | None
    _winner_reason: str
    origin: GameOrigin

    if TYPE_CHECKING:  # methods of the other rooms, for the type checker

        @property
        def decision_kind(self) -> DecisionKind: ...
        def legal_actions(self) -> Sequence[int]: ...
        def _compute_legal(self) -> Sequence[int]: ...
        def _playable(self, player: int) -> list[int]: ...
        def explain_illegal(self, action: int) -> str: ...
        def action_text(self, action: int) -> str: ...
        def apply(self, action: int) -> tuple[Event, ...]: ...
        def _apply_setup(self, action: int) -> None: ...
        def _shuffle(self, items: list[int]) -> None: ...
        def _bastion_falls(self, p: int, rule: str) -> None: ...
        def _finish_cast(self, p: int, c: int) -> None: ...
        def _return_destroyed(self, q: int, cards: list[int]) -> bool: ...
        def _activate_next(self) -> bool | None: ...
        def _run_activations(self) -> None: ...
        def _attack_chain(self, p: int, c: int, lane: int = -1, i: int = -1) -> bool: ...
        def _hit(self, q: int, lane: int, pos: int, amount: int, bits: int, from_inc: bool) -> list[int]: ...
        def _start_turn(self) -> None: ...
        def _automaton_turn(self) -> None: ...
        def _automaton_continue(self) -> None: ...
        def _mill(self, amount: int) -> None: ...

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
            self._first_participant,  # set by the coin toss, an action of the setup (R2.3a)
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
            self._first_participant,
        ) = s  # type: ignore[assignment]
        self._hands = [h0, h1]  # type: ignore[list-item]
        self._lanes = [l0, l1, l2, l3]  # type: ignore[list-item]

    @property
    def history(self) -> list[int]:
        """Every action applied since the game started (or was loaded), oldest first, whether or not
        it can still be undone (see :attr:`keep_undo`): what a game record lists."""
        return self._actions.copy()

    @property
    def undo_depth(self) -> int:
        """How many actions :meth:`undo` can take back now (at most :data:`UNDO_LIMIT`)."""
        return len(self._history)

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

    def _emit(self, kind: EventKind, rule: str, **kw: object) -> None:
        self._events.append(Event(kind, rule, **kw))  # type: ignore[arg-type]

    def _abilities(self, p: int, L: list[Creature], i: int) -> int:
        bits = ABILITIES[L[i][C_CARD]]
        if i:
            bits |= AURA[L[i - 1][C_CARD]]
        if i + 1 < len(L):
            bits |= AURA[L[i + 1][C_CARD]]
        if p == 1:
            bits |= self._threat_bits
        return bits
