"""A learned, calibrated evaluation: the chance that a seat wins, from that seat's view only.

The model is a logistic regression (one coefficient vector for duels, one for solo games) on the
documented features of :func:`features`.  It is trained by ``clash train-eval`` on games the
project simulates itself and shipped as ``data/evaluation.json`` (coefficients plus a model card:
features, training data, command, date, held-out calibration).  Prediction is pure Python: a dot
product and a logistic function, no numpy.

Fairness (R9): :func:`features` reads only what the seat may know: fortress positions and hand
sizes (public, R9.2), the boards, the automaton's deck size and discard pile (R9.1), the solo
threat options, the turn, phase and mana, and the seat's *own* playable cards.  It never reads
the opponent's hidden hand places or the automaton's deck order, so every determinization of a
position sampled for the seat gives the same features (``tests/test_evaluation.py``).

Also here, because training and the documentation need them: :func:`fit_logistic` (Newton's
method with a small ridge, pure Python) and :func:`reliability_table` (predicted vs observed by
decile, Brier score, log loss).
"""

from __future__ import annotations

import json
import math
import random
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any, Final

from ..cards import ABILITIES, ABILITY_BITS, ATTACK, AURA, CARD_INDEX, COST, HEALTH, N_CARDS
from ..engine import GameEngine
from ..native import PackedEvaluation, check_layout
from ..options import LEVELS, Threat
from ..position import sample_determinization
from ..rules import Creature, Game
from .greedy import DEFAULT_WEIGHTS, card_value, evaluate, fortress_after, incoming_hits, weight_values

#: The model file's format tag.
MODEL_FORMAT: Final = "clashofdecks-evaluation/1"
#: Where the shipped model lives inside the package.
MODEL_RESOURCE: Final = "evaluation.json"

#: Feature names, in vector order ("me" is the seat whose chance is estimated, "op" the other
#: seat: in solo, the automaton).  See :func:`features` for each definition.
FEATURES: Final[tuple[str, ...]] = (
    "bias",
    "setup",
    "setup_first",
    "first",
    "my_turn",
    "turn",
    "mana_left",
    "my_life",
    "op_life",
    "my_bastion",
    "op_bastion",
    "my_hand",
    "op_hand",
    "my_attack",
    "op_attack",
    "my_health",
    "op_health",
    "my_creatures",
    "op_creatures",
    "my_abilities",
    "op_abilities",
    "my_hits",
    "op_hits",
    "my_lethal_my_turn",
    "op_lethal_my_turn",
    "my_lethal_op_turn",
    "op_lethal_op_turn",
    "my_playable_value",
    "heuristic",
    "threat_mana",
    "threat_abilities",
    "threat_starts",
    "threat_fort",
    "threat_defence",
    "threat_extra_mana",
    "automaton_discard",
    "op_mana_left",
)
N_FEATURES: Final = len(FEATURES)
#: The solo threat options' features: a block of 6 from ``threat_mana`` on (:func:`threat_features`).
THREAT_FIRST: Final = FEATURES.index("threat_mana")
N_THREAT_FEATURES: Final = 6
#: The greedy heuristic's score enters divided by this and clipped to +-5 (it is +-1e9 at the end).
HEURISTIC_SCALE: Final = 10.0


def _popcount(bits: int) -> int:
    return bin(bits).count("1")


def features(game: Game, seat: int) -> list[float]:
    """The feature vector of ``game`` for ``seat`` (names in :data:`FEATURES`), public
    information and ``seat``'s own hand only.

    * ``bias`` 1; ``setup`` 1 during the setup stage (draft, deck choice, bans, builds), where
      every other feature but ``setup_first`` is 0; ``setup_first``/``first``: ``seat`` starts
      (seat 0, R2.3a) during/after the setup;
    * ``my_turn``: it is ``seat``'s turn; ``turn``: turn number / 10; ``mana_left``: mana left
      this turn / 4 if it is ``seat``'s turn, else 0;
    * per side (``my_``/``op_``): ``life`` places before the fortress is rightmost, plus for a
      Bastion the Fort's life after the fall (the rest of the hand; for the automaton its discard
      pile); ``bastion`` 1 for a Bastion; ``hand`` hand size (automaton: its deck);
      ``attack``/``health``/``creatures``/``abilities`` over its creatures in play (remaining
      health; abilities printed, from Auras and the solo threat);
    * ``hits``: the damage the side's board would land on the other fortress in one combat
      (:func:`~clashofdecks.agents.greedy.incoming_hits`, capped at the other side's places left);
      ``my_lethal_my_turn`` … ``op_lethal_op_turn``: 1 if that side's combat would push the other
      Fort to the rightmost place, split by whose turn it is (who gets to act first);
    * ``my_playable_value``: the static value (:func:`~clashofdecks.agents.greedy.card_value`) of
      ``seat``'s playable cards it can pay for next turn / 10 (its own hand: it sees it);
    * ``heuristic``: the greedy heuristic's score for ``seat``
      (:func:`~clashofdecks.agents.greedy.evaluate`) / 10, clipped to +-5;
    * solo only (else 0): the threat options (R8.2) ``threat_mana`` (base mana - 6),
      ``threat_abilities`` (count), ``threat_starts``, ``threat_fort``, ``threat_defence``,
      ``threat_extra_mana``, and ``automaton_discard`` (its discard pile's size / 10);
    * ``op_mana_left``: in a duel, the mana the other seat has left this turn / 4 if it is the
      other seat's turn, else 0 (public: spent mana buys public cards).  It tells the seat that is
      not to move how much the opponent can still do before its own turn.
    """
    x = [0.0] * N_FEATURES
    x[0] = 1.0
    solo = game.is_solo
    if solo:
        x[THREAT_FIRST : THREAT_FIRST + N_THREAT_FEATURES] = threat_features(game.threat)
    if game.phase == "setup":
        x[1] = 1.0
        x[2] = 1.0 if seat == 0 else 0.0
        return x
    other = 1 - seat
    x[3] = 1.0 if seat == 0 else 0.0
    mine = game.active == seat
    x[4] = 1.0 if mine else 0.0
    x[5] = game.turn / 10.0
    x[6] = game.mana / 4.0 if mine else 0.0
    threat_bits = sum(ABILITY_BITS[a] for a in game.threat.abilities) if solo else 0
    lanes: list[list[Creature]] = [[], [], [], []]
    for p, lane, _pos, cr in game.creatures():
        lanes[p * 2 + lane].append(cr)
    discard = len(game.automaton_discard) if solo else 0
    sides = [_side_features(x, k, game, p, lanes, threat_bits, discard) for k, p in enumerate((seat, other))]
    _lethal_features(x, lanes, seat, sides, threat_bits)
    if not (solo and seat == 1):
        _side, _left, size = sides[0]
        value = sum(
            card_value(CARD_INDEX[c]) for c in game.playable_cards(seat) if COST[CARD_INDEX[c]] <= size
        )
        x[27] = value / 10.0
    x[28] = max(-5.0, min(5.0, evaluate(game, seat) / HEURISTIC_SCALE))
    x[35] = discard / 10.0
    if not solo and game.active == other:
        x[36] = game.mana / 4.0
    return x


def _side_features(
    x: list[float], k: int, game: Game, p: int, lanes: list[list[Creature]], threat_bits: int, discard: int
) -> tuple[bool, int, int]:
    """Side ``k``'s (0: the seat's, 1: the other's) life, Bastion, hand and creature totals into ``x``;
    returns the side's fortress as ``(bastion, places left, hand size)``."""
    side, left, size = game.fortress(p)
    bastion = side == "BASTION"
    automaton = game.is_solo and p == 1
    extra = (discard if automaton else size - 1) if bastion else 0
    x[7 + k] = float(left + extra)
    x[9 + k] = 1.0 if bastion else 0.0
    x[11 + k] = float(size)
    attack = health = count = abilities = 0
    for row in (lanes[p * 2], lanes[p * 2 + 1]):
        for i, cr in enumerate(row):
            c = cr[0]
            bits = ABILITIES[c] | (threat_bits if automaton else 0)
            if i:
                bits |= AURA[row[i - 1][0]]
            if i + 1 < len(row):
                bits |= AURA[row[i + 1][0]]
            attack += ATTACK[c]
            health += HEALTH[c] - cr[1]
            count += 1
            abilities += _popcount(bits)
    x[13 + k] = float(attack)
    x[15 + k] = float(health)
    x[17 + k] = float(count)
    x[19 + k] = float(abilities)
    return bastion, left, size


def _lethal_features(
    x: list[float],
    lanes: list[list[Creature]],
    seat: int,
    sides: list[tuple[bool, int, int]],
    threat_bits: int,
) -> None:
    """``hits`` and the four ``lethal`` features into ``x`` (``x[4]``, whose turn, already set)."""
    bits_by_player = (0, threat_bits)
    lethal = [0.0, 0.0]
    for k, p in enumerate((seat, 1 - seat)):
        target = 1 - k
        hits = incoming_hits(lanes, p, bits_by_player)
        bastion, left, size = sides[target]
        x[21 + k] = float(min(sum(hits), left))
        fallen = fortress_after(bastion, left, size, hits) if hits else (bastion, left)
        lethal[k] = 1.0 if fallen is None else 0.0
    x[23] = lethal[0] * x[4]
    x[24] = lethal[1] * x[4]
    x[25] = lethal[0] * (1.0 - x[4])
    x[26] = lethal[1] * (1.0 - x[4])


def threat_features(t: Threat) -> tuple[float, ...]:
    """The solo threat options' features (``threat_mana`` … ``threat_extra_mana``), R8.2."""
    return (
        float(t.base_mana - 6),
        float(len(t.abilities)),
        1.0 if t.starts == "automaton" else 0.0,
        1.0 if t.resilience == "fort" else 0.0,
        1.0 if t.defence == "minus_one" else 0.0,
        1.0 if t.extra_mana_per_creature == 2 else 0.0,
    )


def _dot(a: Sequence[float], b: Sequence[float]) -> float:
    """The dot product, summed left to right from 0.0 (the compiled core sums in the same order, so
    both give the same double; ``sum`` of floats is compensated from Python 3.12 on)."""
    total = 0.0
    for u, v in zip(a, b, strict=True):
        total += u * v
    return total


def logistic(z: float) -> float:
    """1 / (1 + e^-z), safe for any z."""
    if z >= 0:
        return 1.0 / (1.0 + math.exp(-z))
    e = math.exp(z)
    return e / (1.0 + e)


#: The second stage's inputs: the first stage's logit, then these features: the solo threat, the
#: opponent's mana left (for a duel seat that is not to move), and a few that tell how the
#: strong agent's games differ from the greedy games of the first stage (the turn, the
#: heuristic, both sides' life, the other hand or deck, the automaton's discard, both boards' hits).
STAGE2_FEATURES: Final[tuple[str, ...]] = (
    "bias",
    "stage1_logit",
    "threat_mana",
    "threat_abilities",
    "threat_starts",
    "threat_fort",
    "threat_defence",
    "threat_extra_mana",
    "op_mana_left",
    "turn",
    "heuristic",
    "my_life",
    "op_life",
    "op_hand",
    "automaton_discard",
    "my_hits",
    "op_hits",
)
# The compiled core computes these features too: its layout must be this one (ImportError otherwise).
check_layout(
    {
        "L_FEATURES": N_FEATURES,
        "L_STAGE2": len(STAGE2_FEATURES),
        "L_THREAT_FIRST": THREAT_FIRST,
        "L_THREAT_N": N_THREAT_FEATURES,
    },
    "agents/evaluation.py",
)
#: The second stages: one per perspective.  A duel seat that is not to move (its chance after its
#: own ``end``, or while the opponent decides) has its own recalibration: the first stage, fitted
#: on greedy games from both seats, is off for it in a different way than for the player to move
#: (docs/ai.md, "Calibration").  A model without it uses the ``duel`` stage for both seats.  Solo
#: games at an R8.3 level have a second stage per level (``solo 0`` … ``solo 5``, fourth session);
#: ``solo`` (fitted on every solo game) judges other threat allocations, and every level of a model
#: without them.
#: The ridge of a level's solo second stage (``fit_logistic``), chosen by cross-validation by game.
LEVEL_STAGE2_RIDGE: Final = 3e-3
SOLO_LEVEL_GROUPS: Final[tuple[str, ...]] = tuple(f"solo {level}" for level in LEVELS)
STAGE2_GROUPS: Final[tuple[str, ...]] = ("duel", "duel, seat not to move", "solo", *SOLO_LEVEL_GROUPS)
_STAGE2_INDEX: Final = tuple(FEATURES.index(f) for f in STAGE2_FEATURES[2:])
_CARD_VALUES: Final = tuple(card_value(c) for c in range(N_CARDS))
_HEURISTIC_WEIGHTS: Final = weight_values(DEFAULT_WEIGHTS)
#: The identity second stage (the first stage's logit unchanged).
IDENTITY_STAGE2: Final = (0.0, 1.0) + (0.0,) * (len(STAGE2_FEATURES) - 2)


def stage2_inputs(x: Sequence[float], z: float) -> list[float]:
    """The second stage's input vector (:data:`STAGE2_FEATURES`) for features ``x`` and logit ``z``."""
    return [1.0, z, *(x[i] for i in _STAGE2_INDEX)]


def stage2_group(mode: str, to_move: bool, level: int | None = None) -> str:
    """The second stage (:data:`STAGE2_GROUPS`) for a ``mode`` position judged by the player to move
    (``to_move``) or by the other duel seat; a solo game at R8.3 ``level`` has its level's."""
    if mode == "solo":
        return "solo" if level is None else f"solo {level}"
    return mode if to_move else "duel, seat not to move"


def stage2_mode(group: str) -> str:
    """The mode (``duel``, ``solo``) of a second stage of :data:`STAGE2_GROUPS`."""
    return group.split(",")[0].split(" ")[0]


@cache
def threat_level(threat: Threat) -> int | None:
    """The R8.3 level whose allocation ``threat`` is, or None for another allocation."""
    for level, allocation in LEVELS.items():
        if threat == allocation:
            return level
    return None


@dataclass(frozen=True, slots=True)
class EvaluationModel:
    """Two logistic stages per mode (``"duel"``, ``"solo"``) and the model card.

    Stage 1 (``coefficients``, over :data:`FEATURES`) is fitted on many cheap games (greedy
    self-play); its logit ``z`` then goes through stage 2 (``stage2``, per group of
    :data:`STAGE2_GROUPS`, over :data:`STAGE2_FEATURES`: a bias, ``z``, the solo threat options,
    the opponent's mana left and a few board features), a small recalibration fitted on games of
    the strong agent whose positions the model is meant for (stronger players convert an
    advantage more often: the same position is worth more).  ``p = logistic(stage2 . (1, z, x'))``,
    x' those features."""

    coefficients: dict[str, tuple[float, ...]]
    card: dict[str, Any]
    stage2: dict[str, tuple[float, ...]] = field(default_factory=dict)

    def logit(self, x: Sequence[float], mode: str) -> float:
        """The first stage's logit for the feature vector ``x``."""
        return _dot(self.coefficients[mode], x)

    def _stage2_of(self, group: str) -> tuple[float, ...] | None:
        """The second stage judging ``group``: its own, else its mode's (``duel``, ``solo``), else None."""
        return self.stage2.get(group) or self.stage2.get(stage2_mode(group))

    def probability(
        self, x: Sequence[float], mode: str, to_move: bool = True, level: int | None = None
    ) -> float:
        """The modelled win chance for the feature vector ``x`` of a ``mode`` game, of the player
        to move (``to_move``) or of the duel seat that is not to move; ``level``: the R8.3 level of
        a solo game (None: another threat allocation)."""
        z = self.logit(x, mode)
        v = self._stage2_of(stage2_group(mode, to_move, level))
        if v is None:
            return logistic(z)
        return logistic(_dot(v, stage2_inputs(x, z)))

    def packed(self, game: GameEngine) -> PackedEvaluation:
        """This model packed for the compiled core (:data:`~clashofdecks.native.PackedEvaluation`), with
        ``game``'s threat-option features: ``NativeGame.learned_win_chance`` and a search's cut-off then
        compute :meth:`win_chance` in the core, the same double."""
        return (
            *self._packed_model(threat_level(game.threat) if game.is_solo else None),
            threat_features(game.threat) if game.is_solo else (0.0,) * 6,
            _CARD_VALUES,
            _HEURISTIC_WEIGHTS,
        )

    def _packed_model(
        self, level: int | None
    ) -> tuple[tuple[float, ...], tuple[float, ...], tuple[tuple[float, ...] | None, ...], tuple[int, ...]]:
        return (
            self.coefficients["duel"],
            self.coefficients["solo"],
            (
                self._stage2_of("duel"),
                self._stage2_of("duel, seat not to move"),
                self._stage2_of(stage2_group("solo", True, level)),
            ),
            _STAGE2_INDEX,
        )

    def win_chance(self, game: Game, seat: int) -> float:
        """The chance that ``seat`` wins ``game`` (1/0 once won/lost, 1/2 for a draw), from
        ``seat``'s view only."""
        if game.is_over():
            w = game.winner
            return 0.5 if w is None else (1.0 if w == seat else 0.0)
        if game.is_solo:
            return self.probability(features(game, seat), "solo", True, threat_level(game.threat))
        return self.probability(features(game, seat), "duel", seat == game.current_player)

    def is_calibrated(self, mode: str, level: int | None = None) -> bool:
        """Whether the model card records a passed held-out calibration check for ``mode``; for a solo
        game at R8.3 ``level``, the check of that level where the card has one (``solo N``)."""
        calibrated = self.card.get("calibrated", {})
        if mode == "solo" and level is not None and f"solo {level}" in calibrated:
            return bool(calibrated[f"solo {level}"])
        return bool(calibrated.get(mode, False))

    def chance_label(self, mode: str, level: int | None = None) -> str:
        """How a front end names this model's chance in ``mode`` (a solo game: at ``level``): "win
        chance" where the card says it is calibrated, "estimated win chance" elsewhere."""
        return "win chance" if self.is_calibrated(mode, level) else "estimated win chance"

    def to_dict(self) -> dict[str, Any]:
        return {
            "format": MODEL_FORMAT,
            "features": list(FEATURES),
            "coefficients": {m: list(w) for m, w in self.coefficients.items()},
            "stage2_features": list(STAGE2_FEATURES),
            "stage2": {m: list(w) for m, w in self.stage2.items()},
            "card": self.card,
        }

    @classmethod
    def from_dict(cls, data: Any) -> EvaluationModel:
        """Read a model (a clear :class:`ValueError` for a file of another kind or version)."""
        if not isinstance(data, dict) or data.get("format") != MODEL_FORMAT:
            raise ValueError(f"not an evaluation model of format {MODEL_FORMAT}")
        if data.get("features") != list(FEATURES):
            raise ValueError("the model's features do not match this version's features")
        coefs: dict[str, tuple[float, ...]] = {}
        for mode in ("duel", "solo"):
            w = data.get("coefficients", {}).get(mode)
            if not isinstance(w, list) or len(w) != N_FEATURES:
                raise ValueError(f"the model has no {N_FEATURES} coefficients for {mode}")
            coefs[mode] = tuple(float(v) for v in w)
        stage2: dict[str, tuple[float, ...]] = {}
        if data.get("stage2_features", list(STAGE2_FEATURES)) != list(STAGE2_FEATURES):
            raise ValueError("the model's second-stage inputs do not match this version's")
        for group, v in (data.get("stage2") or {}).items():
            if group not in STAGE2_GROUPS or not isinstance(v, list) or len(v) != len(STAGE2_FEATURES):
                raise ValueError(f"the model's second stage for {group!r} does not match {STAGE2_FEATURES}")
            stage2[group] = tuple(float(a) for a in v)
        card = data.get("card", {})
        return cls(coefs, card if isinstance(card, dict) else {}, stage2)

    def save(self, path: Path) -> None:
        path.write_text(json.dumps(self.to_dict(), indent=1) + "\n", encoding="utf-8")


def load_model(path: Path | None = None) -> EvaluationModel:
    """The model in ``path``, or the shipped one (``clashofdecks/data/evaluation.json``)."""
    if path is not None:
        return EvaluationModel.from_dict(json.loads(path.read_text(encoding="utf-8")))
    return shipped_model()


@cache
def shipped_model() -> EvaluationModel:
    """The model shipped in the package (read once)."""
    text = resources.files("clashofdecks").joinpath("data", MODEL_RESOURCE).read_text(encoding="utf-8")
    return EvaluationModel.from_dict(json.loads(text))


def win_chance(game: Game, seat: int) -> float:
    """The shipped model's chance that ``seat`` wins ``game``, from ``seat``'s view."""
    return shipped_model().win_chance(game, seat)


#: Determinizations averaged by :func:`chance_after` (the move may resolve hidden chance: the
#: automaton's turn, a reshuffle).
AFTER_SAMPLES: Final = 16


def chance_after(game: Game, seat: int, action: int, *, seed: int = 0, samples: int = AFTER_SAMPLES) -> float:
    """``seat``'s win chance after ``action`` is played in ``game`` (not changed), by the shipped
    model, averaged over ``samples`` determinizations from ``seat``'s view: the move is applied to
    positions consistent with what ``seat`` knows, never to the true hidden cards or the true
    future of the game's chance."""
    rng = random.Random(seed)
    model = shipped_model()
    total = 0.0
    for _ in range(samples):
        d = sample_determinization(game, seat, rng)
        d.record_events = False
        d.apply(action)
        total += model.win_chance(d, seat)
    return total / samples


# ---------------------------------------------------------------------------- training


def fit_logistic(
    xs: Sequence[Sequence[float]],
    ys: Sequence[float],
    *,
    ridge: float = 1e-3,
    iterations: int = 25,
    tolerance: float = 1e-7,
) -> list[float]:
    """Maximum-likelihood logistic regression (labels in [0, 1]; 1/2 for a draw) by Newton's
    method, with an L2 penalty ``ridge`` x n on every coefficient but the first (the bias, when
    the first feature is the constant 1).  Constant features get a zero coefficient.  Pure Python:
    O(n d^2) per step."""
    n = len(xs)
    if n == 0 or n != len(ys):
        raise ValueError("fit_logistic needs as many labels as rows, and at least one row")
    d = len(xs[0])
    w = [0.0] * d
    penalty = ridge * n
    last = math.inf
    for _ in range(iterations):
        grad = [0.0] * d
        hess = [[0.0] * d for _ in range(d)]
        loss = 0.0
        for x, y in zip(xs, ys, strict=True):
            z = sum(a * b for a, b in zip(w, x, strict=True))
            p = logistic(z)
            loss -= y * math.log(max(p, 1e-12)) + (1 - y) * math.log(max(1 - p, 1e-12))
            g = p - y
            h = p * (1 - p)
            nz = [(i, v) for i, v in enumerate(x) if v != 0.0]
            for i, v in nz:
                grad[i] += g * v
                hv = h * v
                row = hess[i]
                for j, u in nz:
                    if j >= i:
                        row[j] += hv * u
        for i in range(d):
            for j in range(i):
                hess[i][j] = hess[j][i]
            if i > 0:
                grad[i] += penalty * w[i]
                hess[i][i] += penalty
                loss += 0.5 * penalty * w[i] * w[i]
            if hess[i][i] == 0.0:
                hess[i][i] = 1.0  # a feature that is always 0: keep its coefficient at 0
        step = _solve(hess, grad)
        w = [a - b for a, b in zip(w, step, strict=True)]
        if abs(last - loss) < tolerance * n:
            break
        last = loss
    return w


def _solve(a: list[list[float]], b: list[float]) -> list[float]:
    """Solve a x = b (Gaussian elimination with partial pivoting; a and b are not kept)."""
    n = len(b)
    m = [[*row, b[i]] for i, row in enumerate(a)]
    for col in range(n):
        piv = max(range(col, n), key=lambda r: abs(m[r][col]))
        if abs(m[piv][col]) < 1e-12:
            continue
        m[col], m[piv] = m[piv], m[col]
        for r in range(col + 1, n):
            f = m[r][col] / m[col][col]
            if f:
                for c in range(col, n + 1):
                    m[r][c] -= f * m[col][c]
    x = [0.0] * n
    for r in range(n - 1, -1, -1):
        if abs(m[r][r]) < 1e-12:
            x[r] = 0.0
            continue
        x[r] = (m[r][n] - sum(m[r][c] * x[c] for c in range(r + 1, n))) / m[r][r]
    return x


@dataclass(frozen=True, slots=True)
class ReliabilityRow:
    """One decile bin of predictions: [lo, hi), its size, mean prediction and observed rate."""

    lo: float
    hi: float
    n: int
    predicted: float
    observed: float

    @property
    def gap(self) -> float:
        """observed - predicted (0 for an empty bin)."""
        return self.observed - self.predicted if self.n else 0.0


@dataclass(frozen=True, slots=True)
class Reliability:
    """A reliability table with the Brier score and log loss of the same predictions."""

    rows: tuple[ReliabilityRow, ...]
    n: int
    brier: float
    log_loss: float

    def within(self, tolerance: float = 0.05, min_count: int = 200) -> bool:
        """Whether every bin with at least ``min_count`` predictions is within ``tolerance`` of
        its observed rate (the issue's goal: 5 points, 200 positions).  Vacuously true when no
        bin is that large: see :meth:`checked`."""
        return all(abs(r.gap) <= tolerance for r in self.rows if r.n >= min_count)

    def checked(self, min_count: int = 200) -> int:
        """How many bins have at least ``min_count`` predictions (the bins :meth:`within` judges)."""
        return sum(1 for r in self.rows if r.n >= min_count)

    def to_dict(self) -> dict[str, Any]:
        return {
            "n": self.n,
            "brier": self.brier,
            "log_loss": self.log_loss,
            "deciles": [
                {"lo": r.lo, "hi": r.hi, "n": r.n, "predicted": r.predicted, "observed": r.observed}
                for r in self.rows
            ],
        }


def reliability_table(predicted: Sequence[float], observed: Sequence[float], bins: int = 10) -> Reliability:
    """Predictions vs outcomes (1 win, 0 loss, 1/2 draw) in ``bins`` equal-width bins of the
    predicted probability ([0, 0.1), …, [0.9, 1]), plus the Brier score (mean squared error) and
    the log loss (mean negative log-likelihood, predictions clipped to [1e-6, 1 - 1e-6])."""
    if len(predicted) != len(observed):
        raise ValueError("as many outcomes as predictions are needed")
    if any(not 0.0 <= p <= 1.0 for p in predicted):
        raise ValueError("predictions must be probabilities in [0, 1]")
    sums = [[0, 0.0, 0.0] for _ in range(bins)]
    brier = 0.0
    loss = 0.0
    for p, y in zip(predicted, observed, strict=True):
        k = min(bins - 1, int(p * bins))
        s = sums[k]
        s[0] += 1
        s[1] += p
        s[2] += y
        brier += (p - y) ** 2
        q = min(max(p, 1e-6), 1 - 1e-6)
        loss -= y * math.log(q) + (1 - y) * math.log(1 - q)
    n = len(predicted)
    rows = tuple(
        ReliabilityRow(
            k / bins,
            (k + 1) / bins,
            int(s[0]),
            s[1] / s[0] if s[0] else 0.0,
            s[2] / s[0] if s[0] else 0.0,
        )
        for k, s in enumerate(sums)
    )
    return Reliability(rows, n, brier / n if n else 0.0, loss / n if n else 0.0)


def gap_intervals(
    predicted: Sequence[float],
    observed: Sequence[float],
    games: Sequence[str],
    *,
    bins: int = 10,
    resamples: int = 400,
    seed: int = 0,
) -> list[tuple[float, float] | None]:
    """A 95 % percentile-bootstrap interval of each bin's gap (observed - predicted, as in
    :func:`reliability_table`), resampling whole *games* with replacement: the positions of one
    game share its result, so they are not independent and a bin's error is governed by how many
    games it spans.  ``None`` for a bin with no predictions."""
    if not len(predicted) == len(observed) == len(games):
        raise ValueError("as many outcomes and games as predictions are needed")
    per_game: dict[str, list[list[float]]] = {}
    for p, y, g in zip(predicted, observed, games, strict=True):
        sums = per_game.setdefault(g, [[0.0, 0.0, 0.0] for _ in range(bins)])
        s = sums[min(bins - 1, int(p * bins))]
        s[0] += 1
        s[1] += p
        s[2] += y
    names = sorted(per_game)
    rng = random.Random(seed)
    gaps: list[list[float]] = [[] for _ in range(bins)]
    for _ in range(resamples):
        total = [[0.0, 0.0, 0.0] for _ in range(bins)]
        for _g in names:
            for t, s in zip(total, per_game[names[rng.randrange(len(names))]], strict=True):
                t[0] += s[0]
                t[1] += s[1]
                t[2] += s[2]
        for k, t in enumerate(total):
            if t[0]:
                gaps[k].append((t[2] - t[1]) / t[0])
    out: list[tuple[float, float] | None] = []
    for k in range(bins):
        if not any(per_game[g][k][0] for g in names):
            out.append(None)
            continue
        ranked = sorted(gaps[k])
        n = len(ranked)
        out.append((ranked[int(0.025 * (n - 1))], ranked[int(0.975 * (n - 1))]) if n else None)
    return out


__all__ = [
    "FEATURES",
    "LEVEL_STAGE2_RIDGE",
    "MODEL_FORMAT",
    "N_FEATURES",
    "SOLO_LEVEL_GROUPS",
    "STAGE2_FEATURES",
    "STAGE2_GROUPS",
    "EvaluationModel",
    "Reliability",
    "ReliabilityRow",
    "chance_after",
    "features",
    "fit_logistic",
    "gap_intervals",
    "load_model",
    "logistic",
    "reliability_table",
    "shipped_model",
    "stage2_group",
    "stage2_inputs",
    "stage2_mode",
    "threat_level",
    "win_chance",
]
