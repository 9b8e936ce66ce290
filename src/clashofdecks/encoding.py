"""The observation encoding: a fixed-size ``float32`` vector of what one seat may know (R9).

It lives below both :mod:`clashofdecks.agents` (the ``neural`` agent reads it) and
:mod:`clashofdecks.envs` (which re-exports it as :mod:`clashofdecks.envs.encoding`, its old home).  It
needs numpy (the ``rl`` or ``neural`` extra), so nothing in the standard-library core imports it; an
agent imports it only when it is built (docs/ai.md, "The neural agent").

The vector is a concatenation of named slices (the OpenSpiel observer style), listed in
:data:`OBSERVATION_LAYOUT` and documented in ``docs/envs.md``.  It is ego-centric: "me" is the seat
the observation is for, "opp" the other seat (the automaton in solo).  Actions stay absolute (the
engine's integers), so the ``seat`` slice says which seat "me" is.

Only what the seat's view (:func:`clashofdecks.position.view`) shows is read: the opponent's hidden
hand places are encoded as hidden (the cards behind them only as a set, and only where their identities
are public, R9.1), the automaton deck as its size and contents as a set, the draft pile as its size,
an unrevealed custom deck as its size.  The encoder reads the game through the engine's read-only
:meth:`Game.fields` (no copies) and public properties rather than the view's JSON, because building
the JSON costs more than a whole engine step; ``tests/test_envs.py`` checks that states the seat
cannot tell apart (determinizations) encode identically, and that the vector agrees with the view,
and ``tests/test_envs_encoding_pins.py`` pins the output on fixed positions.

Caps where the rules set none: a lane shows its first :data:`LANE_CAP` creatures from the bridge
(the ``lane_sizes`` slice keeps the true count); the game length is the ruleset's ``max_turns``
(the environments always set one, :data:`DEFAULT_MAX_TURNS` unless asked otherwise).  A hand has at
most 9 places under the rules (8 cards and the fortress card; cards only return to their owner).
The perfect-recall information-state variant (:data:`INFOSTATE_LAYOUT`) adds the seat's hand as dealt
and the public history of decisions, capped at :data:`HISTORY_CAP` entries.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Final

import numpy as np
import numpy.typing as npt

from . import actions as A
from .cards import ABILITIES, ABILITY_BITS, ATTACK, AURA, BASTION, FORT, HEALTH, N_CARDS
from .native import check_layout
from .rules import COMBAT, OVER, SETUP, SUMMON, Creature, DecisionKind, Game, GameFields

#: Hand places encoded (the rules' maximum: 8 cards and the fortress card).
HAND_CAP: Final = 9
#: Creatures encoded per player and lane, from the bridge outward (a duel player has at most 7
#: creatures; the automaton can have more: the rest are counted in ``lane_sizes`` only).
LANE_CAP: Final = 12
#: The turn cap the environments put on a game when the caller gives none (a draw, reported as a
#: truncation): games last about 12 turns, random games rarely more than 40.
DEFAULT_MAX_TURNS: Final = 100
#: Public decisions the information-state vector keeps (oldest first).
HISTORY_CAP: Final = 512
#: Card kinds in a one-hot: the 32 cards, the Bastion and the Fort.
CARD_KINDS: Final = N_CARDS + 2
#: Scale of counts (damage, attack, health, mana, sizes): value / scale, so most features lie in [0, 1].
STAT_SCALE: Final = 10.0
#: Every feature lies in [0, OBS_HIGH] (the Box bound; scaled counts stay far below it).
OBS_HIGH: Final = 64.0
#: Per creature: present, one-hot card, 5 stats, 4 state fields, the 7 abilities.
CREATURE_FEATURES: Final = 1 + N_CARDS + 5 + 4 + len(ABILITY_BITS)
SETUP_VERBS: Final = ("deck", "pick", "build", "ban")
#: Action integers in a history entry are scaled by this (one float per decision keeps it exact).
HISTORY_SCALE: Final = float(A.BUILD_BASE + 1)

# The compiled batch's encoder (envs/vector.py) has these constants compiled in: an ImportError
# names any that differs, never a silently different observation.
check_layout(
    {
        "E_HAND_CAP": HAND_CAP,
        "E_LANE_CAP": LANE_CAP,
        "E_FEATURES": CREATURE_FEATURES,
        "E_CARD_KINDS": CARD_KINDS,
        "E_DEFAULT_TURNS": DEFAULT_MAX_TURNS,
    },
    "encoding.py",
)


@dataclass(frozen=True, slots=True)
class Slice:
    """One named part of the vector: ``start`` offset, ``shape``, and what it holds."""

    name: str
    start: int
    shape: tuple[int, ...]
    doc: str

    @property
    def size(self) -> int:
        n = 1
        for d in self.shape:
            n *= d
        return n

    @property
    def stop(self) -> int:
        return self.start + self.size


class Layout:
    """An ordered set of :class:`Slice` s; ``size`` is the vector length."""

    def __init__(self, parts: Sequence[tuple[str, tuple[int, ...], str]]) -> None:
        self.slices: dict[str, Slice] = {}
        start = 0
        for name, shape, doc in parts:
            s = Slice(name, start, shape, doc)
            self.slices[name] = s
            start = s.stop
        self.size = start

    def split(self, vector: npt.NDArray[np.float32]) -> dict[str, npt.NDArray[np.float32]]:
        """The vector cut into its named slices, each reshaped (views, not copies)."""
        if vector.shape != (self.size,):
            raise ValueError(f"expected a vector of {self.size} floats, got shape {vector.shape}")
        return {n: vector[s.start : s.stop].reshape(s.shape) for n, s in self.slices.items()}


_OBSERVATION_PARTS: Final[list[tuple[str, tuple[int, ...], str]]] = [
    ("seat", (2,), "one-hot: the seat this observation is for (0 starts the game)"),
    ("phase", (4,), "one-hot: setup, summon, combat, over"),
    ("to_move", (3,), "one-hot: whose decision it is: me, opp, nobody (game over, or chance to act)"),
    ("active", (2,), "one-hot: whose turn it is: me, opp"),
    ("turn", (2,), "turn / max_turns; 1 on the last turn before the cap"),
    ("mana", (1,), f"mana the active player has left / {STAT_SCALE:g}"),
    (
        "hand_me",
        (HAND_CAP, CARD_KINDS),
        "my hand by place, left to right: one-hot card (32 cards, Bastion, Fort)",
    ),
    (
        "hand_me_flags",
        (HAND_CAP, 3),
        "per place of my hand: occupied, in the playable window (R3.2), public to the opponent (R9.2)",
    ),
    (
        "hand_opp",
        (HAND_CAP, CARD_KINDS + 1),
        "opponent's hand by place: one-hot card where public (R9.2), else the last column 'hidden'",
    ),
    ("hand_opp_flags", (HAND_CAP, 2), "per place of the opponent's hand: occupied, in the playable window"),
    (
        "opp_hidden_cards",
        (N_CARDS,),
        "the cards behind the opponent's hidden places, as a set, where their identities are public (R9.1)",
    ),
    (
        "fortress",
        (2, 3),
        f"me, opp: Fort side up; places left to the rightmost / {HAND_CAP}; hand size / {HAND_CAP} "
        "(the automaton: its Fort side only; see automaton_flags)",
    ),
    (
        "lanes",
        (2, 2, LANE_CAP, CREATURE_FEATURES),
        "me/opp x top/bottom x position from the bridge: present; one-hot card; damage, attack with its "
        "sprint bonus, health left, printed attack, printed health (each / 10); new, protected, activated, "
        "sprint bonus / 10; the 7 abilities it has now (printed, Aura from neighbours, solo threat)",
    ),
    (
        "lane_sizes",
        (2, 2),
        f"creatures per player and lane / {LANE_CAP} (the true count, beyond the cap too)",
    ),
    (
        "automaton_deck",
        (N_CARDS,),
        "solo: the cards in the automaton deck above its fortress, as a set (R9.1)",
    ),
    ("automaton_discard", (N_CARDS,), "solo: the automaton's discard pile, as a set (R9.1)"),
    (
        "automaton_flags",
        (3,),
        "solo: this game is solo; the automaton's last turn has come (R7.8); cards above its fortress / 24",
    ),
    (
        "threat",
        (10,),
        "solo options (R8.2): extra mana 2, base mana (6-10) / 10, automaton starts, Fort side first, "
        "defence minus one, then Splash, Perforation, Rage, Protection, Berserk granted",
    ),
    ("pending", (2,), "a return order (R3.9) is pending: for me, for opp"),
    ("pending_cards", (A.MAX_ORDER, N_CARDS), "the cards whose return order is pending, in hit order"),
    ("setup_decision", (len(SETUP_VERBS),), "setup: the next decision: deck, pick, build, ban"),
    ("setup_revealed", (N_CARDS,), "setup: the face-up draft cards (R2.4)"),
    (
        "setup_cards",
        (2, N_CARDS),
        "setup: my cards, the opponent's cards so far (a custom deck once revealed)",
    ),
    (
        "setup_counts",
        (4,),
        "setup: face-down pile / 32, setup steps left / 32, decks taken (precon) / 4, "
        "opponent's custom deck built but hidden",
    ),
]

#: The observation vector's slices (ego-centric; see the module docstring).
OBSERVATION_LAYOUT: Final = Layout(_OBSERVATION_PARTS)
#: The information-state vector: the observation, my hand as dealt, and the public history.
INFOSTATE_LAYOUT: Final = Layout(
    [
        *_OBSERVATION_PARTS,
        ("dealt_hand", (HAND_CAP, CARD_KINDS), "my hand as it was dealt (R2.6), by place: one-hot card"),
        (
            "history",
            (HISTORY_CAP, 3),
            f"public decisions, oldest first: (action + 1) / {HISTORY_SCALE:g} (a hidden custom build "
            "is written as the first build integer), by me, by opp",
        ),
        ("history_overflow", (1,), f"1 if more than {HISTORY_CAP} decisions were made (the oldest dropped)"),
    ]
)


def layout_id(layout: Layout) -> str:
    """A short fingerprint of ``layout``'s slices (names and shapes, in order): a model trained on
    one layout records it, and refuses to load against another (docs/ai.md)."""
    text = ";".join(f"{s.name}:{'x'.join(map(str, s.shape))}" for s in layout.slices.values())
    return f"obs-{layout.size}-{hashlib.sha256(text.encode()).hexdigest()[:12]}"


#: :func:`layout_id` of :data:`OBSERVATION_LAYOUT`.
OBSERVATION_LAYOUT_ID: Final = layout_id(OBSERVATION_LAYOUT)
#: The observation slices the compiled core's encoder writes, in ``_native.c``'s order (``O_*``), then
#: the size: what the core's batch (``envs.compiled_batch``) and its network search take.
COMPILED_LAYOUT: Final = (
    *(
        OBSERVATION_LAYOUT.slices[name].start
        for name in (
            "seat",
            "phase",
            "to_move",
            "active",
            "turn",
            "mana",
            "hand_me",
            "hand_me_flags",
            "hand_opp",
            "hand_opp_flags",
            "opp_hidden_cards",
            "fortress",
            "lanes",
            "lane_sizes",
            "pending",
            "pending_cards",
            "automaton_deck",
            "automaton_discard",
            "automaton_flags",
            "threat",
            "setup_decision",
            "setup_revealed",
            "setup_cards",
            "setup_counts",
        )
    ),
    OBSERVATION_LAYOUT.size,
)

_S: Final = {name: s.start for name, s in OBSERVATION_LAYOUT.slices.items()}
_I: Final = {name: s.start for name, s in INFOSTATE_LAYOUT.slices.items()}
_THREAT_ABILITY_BITS: Final = tuple(
    ABILITY_BITS[a] for a in ("splash", "perforation", "rage", "protection", "berserk")
)
#: For every ability bit set (0-127): the offsets of its abilities in a creature's ability columns.
_ABILITY_OFFSETS: Final = tuple(
    tuple(j for j, bit in enumerate(ABILITY_BITS.values()) if bits & bit) for bits in range(128)
)
# Offsets, precomputed: the encoder runs at every environment step.
_SEAT: Final = _S["seat"]
_PHASE: Final = _S["phase"]
_TO_MOVE: Final = _S["to_move"]
_ACTIVE: Final = _S["active"]
_TURN: Final = _S["turn"]
_MANA: Final = _S["mana"]
_HAND_ME: Final = _S["hand_me"]
_HAND_ME_FLAGS: Final = _S["hand_me_flags"]
_HAND_OPP: Final = _S["hand_opp"]
_HAND_OPP_FLAGS: Final = _S["hand_opp_flags"]
_OPP_HIDDEN: Final = _S["opp_hidden_cards"]
_FORTRESS: Final = _S["fortress"]
_LANES: Final = _S["lanes"]
_LANE_SIZES: Final = _S["lane_sizes"]
_STATS: Final = 1 + N_CARDS  # offset of the stats in a creature's features
_FLAGS: Final = _STATS + 5
_ABILITY_COLUMNS: Final = _FLAGS + 4
_OPP_STRIDE: Final = CARD_KINDS + 1
_PENDING: Final = _S["pending"]
_PENDING_CARDS: Final = _S["pending_cards"]


def _window_places(hand_size: int, fortress_place: int) -> tuple[int, ...]:
    """Places of the playable window: the 4 leftmost cards besides the fortress card (R3.2)."""
    places = [i for i in range(min(5, hand_size)) if i != fortress_place]
    return tuple(places[:4])


#: The window's places by hand size (up to HAND_CAP) and fortress place.
_WINDOW: Final = tuple(tuple(_window_places(n, fi) for fi in range(n)) for n in range(HAND_CAP + 1))
# Offsets of each hand place's one-hot and flags.
_MY_PLACES: Final = tuple(_HAND_ME + i * CARD_KINDS for i in range(HAND_CAP))
_MY_PLACE_FLAGS: Final = tuple(_HAND_ME_FLAGS + i * 3 for i in range(HAND_CAP))
_OPP_PLACES: Final = tuple(_HAND_OPP + i * _OPP_STRIDE for i in range(HAND_CAP))
_OPP_PLACE_FLAGS: Final = tuple(_HAND_OPP_FLAGS + i * 2 for i in range(HAND_CAP))


def _scaled(scale: float) -> tuple[float, ...]:
    """``k * scale`` for k = 0-255, each rounded to float32 (a feature's value for the count k)."""
    return tuple(float(v) for v in np.arange(256, dtype=np.float32) * np.float32(scale))


# The vector is written as float32 straight into a buffer (a ``memoryview`` cast to "f": one store per
# feature, no conversion afterwards); a scaled count is looked up here, already rounded to float32.
_TENTHS: Final = _scaled(1 / STAT_SCALE)
_NINTHS: Final = _scaled(1 / HAND_CAP)
_LANE_FRACTIONS: Final = _scaled(1 / LANE_CAP)
_DECK_FRACTIONS: Final = _scaled(1 / 24)
_CARD_FRACTIONS: Final = _scaled(1 / N_CARDS)
_STEP_FRACTIONS: Final = _scaled(1 / 32)
_QUARTERS: Final = _scaled(1 / 4)
_FLOAT: Final = 4  # bytes per feature


class _ChunkCache(dict[tuple[object, ...], bytes]):
    """Encoded parts (a hand, a lane) by what they are made of: the same hand or lane recurs over many
    steps, and a slice copy costs far less than encoding it again.  Cleared when it grows large."""

    LIMIT: Final = 16_384

    def remember(self, key: tuple[object, ...], chunk: bytes) -> bytes:
        if len(self) >= self.LIMIT:
            self.clear()
        self[key] = chunk
        return chunk


_LANE_CHUNKS: Final = _ChunkCache()
_LANE_SIZE: Final = LANE_CAP * CREATURE_FEATURES
# Byte offsets of the lanes, copied from the cache.
_LANE_BYTES: Final = tuple(
    ((_LANES + k * _LANE_SIZE) * _FLOAT, (_LANES + (k + 1) * _LANE_SIZE) * _FLOAT) for k in range(4)
)


def _floats(size: int) -> tuple[bytearray, memoryview[float]]:
    """A zeroed float32 buffer of ``size`` features and a view of it to store single features."""
    raw = bytearray(size * _FLOAT)
    return raw, memoryview(raw).cast("f")


def _write_my_hand(out: memoryview[float], hand: Sequence[int], known: int, fortress_place: int) -> None:
    """The ``hand_me`` and ``hand_me_flags`` slices: every card, and which places the opponent knows.
    (Written feature by feature: a hand changes at most steps, so a cache of encoded hands would
    mostly miss; and joining precomputed parts costs more here than a few stores.)"""
    # zip stops at the shorter: the first HAND_CAP places.
    for c, at, f in zip(hand, _MY_PLACES, _MY_PLACE_FLAGS, strict=False):
        out[at + c] = 1.0
        out[f] = 1.0
        if c >= N_CARDS or known >> c & 1:
            out[f + 2] = 1.0
    n = len(hand)
    for i in _WINDOW[n][fortress_place] if n <= HAND_CAP else _window_places(n, fortress_place):
        out[_HAND_ME_FLAGS + i * 3 + 1] = 1.0


def _write_opp_hand(
    out: memoryview[float], hand: Sequence[int], known: int, fortress_place: int, public_ids: bool
) -> None:
    """The ``hand_opp``, ``hand_opp_flags`` and ``opp_hidden_cards`` slices: public places only (R9.2),
    the hidden cards as a set where their identities are public (R9.1)."""
    for c, at, f in zip(hand, _OPP_PLACES, _OPP_PLACE_FLAGS, strict=False):
        if c < N_CARDS and not known >> c & 1:
            out[at + CARD_KINDS] = 1.0
            if public_ids:
                out[_OPP_HIDDEN + c] = 1.0
        else:
            out[at + c] = 1.0
        out[f] = 1.0
    n = len(hand)
    for i in _WINDOW[n][fortress_place] if n <= HAND_CAP else _window_places(n, fortress_place):
        out[_HAND_OPP_FLAGS + i * 2 + 1] = 1.0


def _lane_chunk(row: Sequence[Creature], extra: int) -> bytes:
    """One player's lane: per creature from the bridge, its card, stats, state and abilities now."""
    raw, out = _floats(_LANE_SIZE)
    tenths = _TENTHS
    last = len(row) - 1
    at = 0
    for i, cr in enumerate(row[:LANE_CAP]):
        c, damage, new, protected, activated, sprint = cr
        out[at] = 1.0
        out[at + 1 + c] = 1.0
        f = at + _STATS
        out[f] = tenths[min(damage, 255)]
        out[f + 1] = tenths[min(ATTACK[c] + sprint, 255)]
        out[f + 2] = tenths[max(HEALTH[c] - damage, 0)]
        out[f + 3] = tenths[ATTACK[c]]
        out[f + 4] = tenths[HEALTH[c]]
        f = at + _FLAGS
        if new:
            out[f] = 1.0
        if protected:
            out[f + 1] = 1.0
        if activated:
            out[f + 2] = 1.0
        if sprint:
            out[f + 3] = tenths[min(sprint, 255)]
        bits = ABILITIES[c] | extra  # as Game.creature_abilities: printed, Aura, threat
        if i:
            bits |= AURA[row[i - 1][0]]
        if i < last:
            bits |= AURA[row[i + 1][0]]
        f = at + _ABILITY_COLUMNS
        for j in _ABILITY_OFFSETS[bits]:
            out[f + j] = 1.0
        at += CREATURE_FEATURES
    return bytes(raw)


def _vector(raw: bytearray) -> npt.NDArray[np.float32]:
    """The buffer as the float32 vector (no copy: the buffer is the vector's own)."""
    return np.frombuffer(raw, dtype=np.float32)


def encode_observation(game: Game, seat: int) -> npt.NDArray[np.float32]:
    """The observation vector of ``seat`` (0 or 1) for ``game`` (a new array each call)."""
    if seat != 0 and seat != 1:
        raise ValueError(f"an observation is for seat 0 or 1, not {seat!r}")
    fields = game.fields()
    if not fields.solo and fields.pending is None and (fields.stage == SUMMON or fields.stage == COMBAT):
        return _encode_duel_play(game, seat, fields)
    raw, out = _floats(OBSERVATION_LAYOUT.size)
    _fill(game, seat, raw, out, fields)
    return _vector(raw)


def _write_header(
    out: memoryview[float],
    game: Game,
    seat: int,
    stage: int,
    turn: int,
    max_turns: int | None,
    active: int,
    mana: int,
) -> None:
    """The slices ``seat`` to ``mana``."""
    out[_SEAT + seat] = 1.0
    out[_PHASE + stage] = 1.0  # SETUP, SUMMON, COMBAT, OVER are 0-3, the slice's order
    if stage == OVER:
        out[_TO_MOVE + 2] = 1.0
    else:
        mover = game.current_player
        out[_TO_MOVE + (2 if mover != 0 and mover != 1 else (0 if mover == seat else 1))] = 1.0
    out[_ACTIVE + (0 if active == seat else 1)] = 1.0
    cap = max_turns or DEFAULT_MAX_TURNS
    out[_TURN] = (turn if turn < cap else cap) / cap
    if turn >= cap:
        out[_TURN + 1] = 1.0
    out[_MANA] = _TENTHS[mana if mana < 255 else 255]


def _write_hand(
    out: memoryview[float], k: int, hand: Sequence[int], fort: bool, known: int, hidden_ids: bool
) -> None:
    """A player's part of ``fortress`` (``k`` 0: me, 1: opp) and their hand's slices."""
    n = len(hand)
    fi = hand.index(FORT if fort else BASTION)
    at = _FORTRESS + k * 3
    out[at] = 1.0 if fort else 0.0
    out[at + 1] = _NINTHS[n - 1 - fi]
    out[at + 2] = _NINTHS[n]
    if k == 0:
        _write_my_hand(out, hand, known, fi)
    else:
        _write_opp_hand(out, hand, known, fi, not hidden_ids)


def _write_lane(
    raw: bytearray, out: memoryview[float], slot: int, row: Sequence[Creature], extra: int
) -> None:
    """One lane (``slot``: me/opp x top/bottom, the ``lanes`` slice's order) and its ``lane_sizes``
    feature; zeros for an empty lane."""
    start, stop = _LANE_BYTES[slot]
    n = len(row)
    if not n:
        out[_LANE_SIZES + slot] = 0.0
        raw[start:stop] = _EMPTY_LANE
        return
    out[_LANE_SIZES + slot] = _LANE_FRACTIONS[n if n < 255 else 255]
    lane_key = (tuple(row), extra)
    chunk = _LANE_CHUNKS.get(lane_key)
    if chunk is None:
        chunk = _LANE_CHUNKS.remember(lane_key, _lane_chunk(row, extra))
    raw[start:stop] = chunk


def _fill(game: Game, seat: int, raw: bytearray, out: memoryview[float], fields: GameFields) -> None:
    """Write the observation's non-zero features into the zeroed buffer ``raw`` (``out``: its float
    view).  Every field read below is something R9 makes public to ``seat``, or ``seat``'s own hand."""
    opp = 1 - seat
    solo, stage, turn, max_turns, active, mana, hands, known, fort, lanes, threat_bits, pending = fields[:12]
    _write_header(out, game, seat, stage, turn, max_turns, active, mana)
    for k, p in enumerate((seat, opp)):
        if solo and p == 1:  # the automaton: no hand; its fortress is at the bottom of its deck
            if fort[1]:
                out[_FORTRESS + k * 3] = 1.0
        elif hands[p]:  # (empty in the setup stage)
            _write_hand(out, k, hands[p], fort[p], known[p], fields.hidden_identities)
    for slot, (p, ln) in enumerate(((seat, 0), (seat, 1), (opp, 0), (opp, 1))):
        row = lanes[p * 2 + ln]
        if row:
            _write_lane(raw, out, slot, row, threat_bits if p == 1 else 0)
    if solo:
        _fill_solo(game, out)
    # A pending return order.
    if pending is not None:
        who, cards = pending
        out[_PENDING + (0 if who == seat else 1)] = 1.0
        for i, c in enumerate(cards[: A.MAX_ORDER]):
            out[_PENDING_CARDS + i * N_CARDS + c] = 1.0
    if stage == SETUP:
        _fill_setup(game, seat, out)


# Each seat's last duel-play observation, kept to update in place: from one decision to the next most
# parts (the other hand, three lanes of four) do not change, and comparing them costs less than writing
# them again.  Parts are compared by content, so any game may follow any other (another environment, a
# new game).  A duel in its summon or combat phase with no return order pending writes nothing outside
# the header, fortress, hands, lanes and lane sizes, so those are all that is rewritten.  An entry is
# (buffer, its float view, my hand, my known bits, the opponent's hand, their known bits, hidden
# identities, the four lanes in slot order), taken out while it is updated (``dict.pop`` is atomic,
# so two threads never update one buffer).
_LAST_PLAY: dict[int, tuple[Any, ...]] = {}
_HEADER_ZEROS: Final = bytes(_HAND_ME * _FLOAT)
_MY_HAND_BYTES: Final = (_HAND_ME * _FLOAT, _HAND_OPP * _FLOAT)
_OPP_HAND_BYTES: Final = (_HAND_OPP * _FLOAT, _FORTRESS * _FLOAT)
_MY_HAND_ZEROS: Final = bytes((_HAND_OPP - _HAND_ME) * _FLOAT)
_OPP_HAND_ZEROS: Final = bytes((_FORTRESS - _HAND_OPP) * _FLOAT)
_EMPTY_LANE: Final = bytes(_LANE_SIZE * _FLOAT)


def _encode_duel_play(game: Game, seat: int, fields: GameFields) -> npt.NDArray[np.float32]:
    """:func:`encode_observation` for a duel in its summon or combat phase, no return order pending."""
    opp = 1 - seat
    _solo, stage, turn, max_turns, active, mana, hands, known, fort, lanes, _threat, _pending = fields[:12]
    hidden_ids = fields.hidden_identities
    mine, theirs = hands[seat], hands[opp]
    rows = (lanes[seat * 2], lanes[seat * 2 + 1], lanes[opp * 2], lanes[opp * 2 + 1])
    last = _LAST_PLAY.pop(seat, None)
    if last is None:
        raw, out = _floats(OBSERVATION_LAYOUT.size)
        _write_header(out, game, seat, stage, turn, max_turns, active, mana)
        _write_hand(out, 0, mine, fort[seat], known[seat], hidden_ids)
        _write_hand(out, 1, theirs, fort[opp], known[opp], hidden_ids)
        for slot, row in enumerate(rows):
            if row:
                _write_lane(raw, out, slot, row, 0)
    else:
        raw, out, was_mine, was_known, was_theirs, was_their_known, was_hidden_ids, *was_rows = last
        raw[: _HAND_ME * _FLOAT] = _HEADER_ZEROS
        _write_header(out, game, seat, stage, turn, max_turns, active, mana)
        if mine != was_mine or known[seat] != was_known:
            start, stop = _MY_HAND_BYTES
            raw[start:stop] = _MY_HAND_ZEROS
            _write_hand(out, 0, mine, fort[seat], known[seat], hidden_ids)
        if theirs != was_theirs or known[opp] != was_their_known or hidden_ids != was_hidden_ids:
            start, stop = _OPP_HAND_BYTES
            raw[start:stop] = _OPP_HAND_ZEROS
            _write_hand(out, 1, theirs, fort[opp], known[opp], hidden_ids)
        for slot, row in enumerate(rows):
            if row != was_rows[slot]:
                _write_lane(raw, out, slot, row, 0)
    vector = _vector(bytearray(raw))  # the caller's own copy
    _LAST_PLAY[seat] = (
        raw,
        out,
        list(mine),
        known[seat],
        list(theirs),
        known[opp],
        hidden_ids,
        *(list(row) for row in rows),
    )
    return vector


def _fill_solo(game: Game, out: memoryview[float]) -> None:
    """The automaton's deck (as a set), discard pile and the threat options (all public, R9.1)."""
    fields = game.fields()
    base = _S["automaton_deck"]
    for c in fields.deck[:-1]:
        out[base + c] = 1.0
    base = _S["automaton_discard"]
    for c in fields.discard:
        out[base + c] = 1.0
    base = _S["automaton_flags"]
    out[base] = 1.0
    if fields.last_turn:
        out[base + 1] = 1.0
    out[base + 2] = _DECK_FRACTIONS[min(game.automaton_deck_size, 255)]
    t = game.threat
    base = _S["threat"]
    if t.extra_mana_per_creature == 2:
        out[base] = 1.0
    out[base + 1] = _TENTHS[t.base_mana]
    if t.starts == "automaton":
        out[base + 2] = 1.0
    if t.resilience == "fort":
        out[base + 3] = 1.0
    if t.defence == "minus_one":
        out[base + 4] = 1.0
    for j, bit in enumerate(_THREAT_ABILITY_BITS):
        if fields.threat_bits & bit:
            out[base + 5 + j] = 1.0


def _fill_setup(game: Game, seat: int, out: memoryview[float]) -> None:
    """The setup stage as the seat's view shows it: the pile's size only, a custom deck hidden until
    both are built (R2.5)."""
    st = game.setup_state
    if st is None:
        return
    opp = 1 - seat
    verb = st.steps[0][0]
    if verb in SETUP_VERBS:  # else chance's step (external chance): to_move says "nobody"
        out[_S["setup_decision"] + SETUP_VERBS.index(verb)] = 1.0
    base = _S["setup_revealed"]
    for c in st.revealed:
        out[base + c] = 1.0
    base = _S["setup_cards"]
    hide_opp = st.kind == "custom" and not all(st.built)
    for k, p in enumerate((seat, opp)):
        if k == 1 and hide_opp:
            continue
        for c in st.cards[p]:
            out[base + k * N_CARDS + c] = 1.0
    base = _S["setup_counts"]
    out[base] = _CARD_FRACTIONS[min(len(st.pool), 255)]
    out[base + 1] = _STEP_FRACTIONS[min(len(st.steps), 255)]
    out[base + 2] = _QUARTERS[min(len(st.decks), 255)]
    if hide_opp and st.built[opp]:
        out[base + 3] = 1.0


def encode_infostate(
    game: Game,
    seat: int,
    dealt_hand: Sequence[int] | None,
    history: Sequence[tuple[int, int]],
) -> npt.NDArray[np.float32]:
    """The perfect-recall information-state vector of ``seat``: the observation, the seat's hand as
    dealt (``dealt_hand``, card integers left to right; ``None`` before the deal), and the decisions
    so far as ``(player, action)`` (see :func:`public_action`)."""
    if seat != 0 and seat != 1:
        raise ValueError(f"an information state is for seat 0 or 1, not {seat!r}")
    raw, out = _floats(INFOSTATE_LAYOUT.size)
    _fill(game, seat, raw, out, game.fields())
    if dealt_hand is not None:
        base = _I["dealt_hand"]
        for i, c in enumerate(list(dealt_hand)[:HAND_CAP]):
            out[base + i * CARD_KINDS + c] = 1.0
    base = _I["history"]
    if len(history) > HISTORY_CAP:
        out[_I["history_overflow"]] = 1.0
        history = history[-HISTORY_CAP:]
    for i, (who, _action) in enumerate(history):
        out[base + i * 3 + (1 if who == seat else 2)] = 1.0
    vector = _vector(raw)
    if history:
        codes = np.array([public_action(a) + 1 for _, a in history], dtype=np.float32) / HISTORY_SCALE
        vector[base : base + 3 * len(history) : 3] = codes
    return vector


def public_action(action: int) -> int:
    """What the other seat learns of a decision: itself, but a custom build only as "a build" (the
    decks are revealed when both are built, R2.5, and the observation shows them then)."""
    return A.BUILD_BASE if action >= A.BUILD_BASE else action


def legal_mask(game: Game, seat: int | None = None) -> npt.NDArray[np.int8]:
    """The legal-action mask (``ACTION_SPACE`` int8, 1 where legal) of the player to move, or all
    zeros when ``seat`` is given and it is not that seat's decision (or the game is over)."""
    mask = bytearray(A.ACTION_SPACE)
    if seat is None or game.current_player == seat:
        legal = game.legal_actions()
        # Sorted integers; the custom build stage's decks (the environments decide it) are outside
        # the space: its mask stays all zeros.
        if legal and game.decision_kind is not DecisionKind.BUILD:
            if legal[-1] < A.ACTION_SPACE:
                for a in legal:
                    mask[a] = 1
            else:  # a chance node's outcomes (external chance): outside the space
                for a in legal:
                    if a < A.ACTION_SPACE:
                        mask[a] = 1
    return np.frombuffer(mask, dtype=np.int8)
