"""``neural``: a policy-value network trained by self-play (docs/ai.md, "The neural agent").

The network is a small multilayer perceptron on the observation vector of
:mod:`clashofdecks.encoding` (the seat to move's view only, R9): two hidden ReLU layers, a policy
head of :data:`~clashofdecks.actions.ACTION_SPACE` logits (masked to the legal actions) and a value
head, the mover's chance to win.  It was trained by search distillation
(:mod:`clashofdecks.simulation.neural_training`, ``clash train-neural``).  A version-2 file may add
the calibrated value head (:data:`VALUE_TENSORS`, :mod:`clashofdecks.simulation.neural_value`,
``clash neural-value``): the trunk's hidden layer, the learned logistic evaluation's features and
logit, and the context (duel, solo level 0-5) through one more layer; :func:`win_chance` uses it
where the file has it.

Play needs numpy only (no torch): ``pip install 'clashofdecks[neural]'``; without it, building the
agent raises :class:`NeuralDependencyError` naming the extra.  The agent's settings:

* ``iterations=0`` (the default): the network's policy alone, the legal action with the highest
  logit (deterministic, about a millisecond a decision).
* ``iterations=N``: an ISMCTS of N iterations with the ``strongest`` strength's settings (cut-off
  rollouts scored by the learned evaluation, draft picks by the deck evaluation) and the network's
  policy as a prior at the root: the action maximising ``visit share + PRIOR_WEIGHT x policy``.
* ``model=PATH``: another weights file (a training checkpoint) instead of the shipped one.

The custom format's build stage is outside the action layout: the agent builds the greedy
heuristic's ten best cards, as ``greedy`` does.

The weights file (``data/neural.bin``): the 8 bytes ``CLASHNN1``, a 4-byte little-endian header
length, a UTF-8 JSON header (``format``, ``version``, the encoder's ``layout`` id, ``actions``, the
tensors' names and shapes, the payload's ``sha256``, a model ``card``), then the tensors as
little-endian float32.  A file that is truncated, of another version, for another encoder layout or
with a wrong checksum is refused with a :class:`NeuralModelError` saying which.
"""

from __future__ import annotations

import hashlib
import importlib
import json
import math
import random
import struct
from collections.abc import Sequence
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

from ..actions import ACTION_SPACE, BUILD_BASE, DECK_SIZE_CUSTOM, build_rank
from ..engine import GameEngine
from ..options import LEVELS
from ..rules import DecisionKind, Game
from .base import Agent, no_decision_error
from .greedy import CARD_RANKING
from .mcts import DEFAULT_C, Search, SearchResult, SearchTally
from .spec import AgentSpecError

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

MAGIC: Final = b"CLASHNN1"
MODEL_FORMAT: Final = "clashofdecks-neural"
MODEL_VERSION: Final = 2
#: Versions this code reads: version 1 is a model without the calibrated value head.
READABLE_VERSIONS: Final = (1, 2)
#: The tensors of a model, in file order: trunk, policy head, value head (``w`` is inputs x outputs).
TENSORS: Final = ("w1", "b1", "w2", "b2", "wp", "bp", "wv", "bv")
#: The calibrated value head (version 2, optional as a set; docs/ai.md, "The calibrated value head"):
#: the logistic evaluation's features are standardised (``vmean``, ``vstd``), joined to the trunk's
#: last hidden layer, that evaluation's logit ``z`` and the context's one-hot (:data:`CONTEXTS`),
#: through one hidden ReLU layer (``vw1``, ``vb1``) to a logit (``vw2``, ``vb2``) added to
#: ``va[context] + vk[context] * z``: at zero hidden weights, the logistic evaluation recalibrated.
VALUE_TENSORS: Final = ("vmean", "vstd", "vw1", "vb1", "vw2", "vb2", "va", "vk")
#: What the value head tells apart: a duel, or a solo game at R8.3 level 0-5 (its one-hot input).
CONTEXTS: Final[tuple[str, ...]] = ("duel", *(f"solo {level}" for level in LEVELS))
N_CONTEXTS: Final = len(CONTEXTS)
SHIPPED_MODEL: Final = Path(__file__).resolve().parent.parent / "data" / "neural.bin"
#: Weight of the network's policy beside the search's visit share at the root (``iterations=N``):
#: small, so the policy only decides between actions the search found about equally good (0.5 let
#: a weak network overrule the search: docs/ai.md).
PRIOR_WEIGHT: Final = 0.1
EXTRA_HINT: Final = "pip install 'clashofdecks[neural]'"
_BUILD: Final = DecisionKind.BUILD


class NeuralModelError(AgentSpecError):
    """A weights file that cannot be used (truncated, another version or layout, a bad checksum)."""


class NeuralDependencyError(AgentSpecError):
    """numpy, which the ``neural`` agent computes with, is not installed."""


def import_numpy() -> Any:
    """The ``numpy`` module, or a clear error naming the extra to install."""
    try:
        return importlib.import_module("numpy")
    except ImportError as exc:
        raise NeuralDependencyError(f"the neural agent needs numpy: {EXTRA_HINT}") from exc


class NeuralModel:
    """The network's weights (numpy float32 arrays by :data:`TENSORS` name) and its model card."""

    def __init__(self, tensors: dict[str, npt.NDArray[np.float32]], card: dict[str, Any]) -> None:
        missing = [n for n in TENSORS if n not in tensors]
        if missing:
            raise NeuralModelError(f"the model lacks the tensors {missing}")
        self.tensors = tensors
        self.card = card

    @property
    def inputs(self) -> int:
        return int(self.tensors["w1"].shape[0])

    @property
    def has_value_head(self) -> bool:
        """Whether the model has the calibrated value head (:data:`VALUE_TENSORS`)."""
        return all(n in self.tensors for n in VALUE_TENSORS)

    def hidden(self, obs: npt.NDArray[np.float32]) -> npt.NDArray[np.float32]:
        """The trunk's last hidden layer ``(n, hidden)`` for observations ``(n, inputs)``."""
        np_ = import_numpy()
        t = self.tensors
        h = np_.maximum(obs @ t["w1"] + t["b1"], 0.0)
        result: npt.NDArray[np.float32] = np_.maximum(h @ t["w2"] + t["b2"], 0.0)
        return result

    def value_logit(
        self,
        hidden: npt.NDArray[np.float32],
        features: npt.NDArray[np.float32],
        z: npt.NDArray[np.float32],
        context: npt.NDArray[np.int64],
    ) -> npt.NDArray[np.float32]:
        """The calibrated value head's logits ``(n,)`` (:data:`VALUE_TENSORS`): the trunk's hidden
        layer, the logistic evaluation's features and logit ``z``, the context (:data:`CONTEXTS`)."""
        np_ = import_numpy()
        t = self.tensors
        onehot = np_.eye(N_CONTEXTS, dtype=np_.float32)[context]
        xs = (features - t["vmean"]) / t["vstd"]
        u = np_.concatenate([hidden, xs, z[:, None], onehot], axis=1)
        h = np_.maximum(u @ t["vw1"] + t["vb1"], 0.0)
        result: npt.NDArray[np.float32] = (
            (h @ t["vw2"] + t["vb2"])[:, 0] + t["va"][context] + t["vk"][context] * z
        )
        return result

    def forward(
        self, obs: npt.NDArray[np.float32]
    ) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.float32]]:
        """Policy logits ``(n, ACTION_SPACE)`` and win chances ``(n,)`` for observations ``(n, inputs)``."""
        np_ = import_numpy()
        t = self.tensors
        h = np_.maximum(obs @ t["w1"] + t["b1"], 0.0)
        h = np_.maximum(h @ t["w2"] + t["b2"], 0.0)
        logits = h @ t["wp"] + t["bp"]
        value = 1.0 / (1.0 + np_.exp(-(h @ t["wv"] + t["bv"])[:, 0]))
        return logits, value

    def save(self, path: Path) -> None:
        """Write the model in the file format of the module docstring."""
        from ..encoding import OBSERVATION_LAYOUT_ID

        np_ = import_numpy()
        names = TENSORS + VALUE_TENSORS if self.has_value_head else TENSORS
        arrays = [np_.ascontiguousarray(self.tensors[n], dtype="<f4") for n in names]
        payload = b"".join(a.tobytes() for a in arrays)
        header = {
            "format": MODEL_FORMAT,
            "version": MODEL_VERSION,
            "layout": OBSERVATION_LAYOUT_ID,
            "actions": ACTION_SPACE,
            "tensors": [{"name": n, "shape": list(a.shape)} for n, a in zip(names, arrays, strict=True)],
            "sha256": hashlib.sha256(payload).hexdigest(),
            "card": self.card,
        }
        head = json.dumps(header, sort_keys=True).encode("utf-8")
        path.write_bytes(MAGIC + struct.pack("<I", len(head)) + head + payload)


def _read_header(data: bytes, where: str) -> tuple[dict[str, Any], bytes]:
    if len(data) < len(MAGIC) + 4 or data[: len(MAGIC)] != MAGIC:
        raise NeuralModelError(f"{where} is not a neural model file (no {MAGIC.decode()} header)")
    (size,) = struct.unpack_from("<I", data, len(MAGIC))
    start = len(MAGIC) + 4
    if start + size > len(data):
        raise NeuralModelError(f"{where} is truncated (its header is cut short)")
    try:
        header = json.loads(data[start : start + size].decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise NeuralModelError(f"{where} has an unreadable header: {exc}") from None
    if not isinstance(header, dict):
        raise NeuralModelError(f"{where} has an unreadable header (not an object)")
    return header, data[start + size :]


def _check_header(header: dict[str, Any], where: str) -> None:
    from ..encoding import OBSERVATION_LAYOUT_ID

    if header.get("format") != MODEL_FORMAT:
        raise NeuralModelError(f"{where} is not a {MODEL_FORMAT} model")
    if header.get("version") not in READABLE_VERSIONS:
        raise NeuralModelError(
            f"{where} is a model of version {header.get('version')!r}; this version reads"
            f" {' and '.join(map(str, READABLE_VERSIONS))}"
        )
    if header.get("layout") != OBSERVATION_LAYOUT_ID:
        raise NeuralModelError(
            f"{where} was trained on the observation layout {header.get('layout')!r}, "
            f"not this version's {OBSERVATION_LAYOUT_ID!r}: retrain it (clash train-neural)"
        )
    if header.get("actions") != ACTION_SPACE:
        raise NeuralModelError(f"{where} has {header.get('actions')!r} actions, not {ACTION_SPACE}")


def load_model(path: Path | None = None) -> NeuralModel:
    """Read and check a weights file (the shipped one by default); see the module docstring."""
    np_ = import_numpy()
    path = SHIPPED_MODEL if path is None else Path(path)
    where = f"the neural model {path}"
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise NeuralModelError(f"cannot read {where}: {exc.strerror or exc}") from None
    header, payload = _read_header(data, where)
    _check_header(header, where)
    try:
        shapes = {t["name"]: tuple(int(d) for d in t["shape"]) for t in header["tensors"]}
    except (KeyError, TypeError, ValueError):
        raise NeuralModelError(f"{where} has an unreadable tensor list") from None
    allowed = [list(TENSORS)] + ([list(TENSORS + VALUE_TENSORS)] if header["version"] >= 2 else [])
    if list(shapes) not in allowed:
        raise NeuralModelError(
            f"{where} has the tensors {list(shapes)}, not {list(TENSORS)}"
            f" (and optionally {list(VALUE_TENSORS)})"
        )
    sizes = [4 * _count(shape) for shape in shapes.values()]
    if len(payload) != sum(sizes):
        raise NeuralModelError(f"{where} is truncated ({len(payload)} of {sum(sizes)} weight bytes)")
    if hashlib.sha256(payload).hexdigest() != header.get("sha256"):
        raise NeuralModelError(f"{where} fails its checksum (sha256): the file is damaged")
    tensors: dict[str, Any] = {}
    offset = 0
    for (name, shape), size in zip(shapes.items(), sizes, strict=True):
        tensors[name] = np_.frombuffer(payload, dtype="<f4", count=size // 4, offset=offset).reshape(shape)
        offset += size
    _check_shapes(tensors, where)
    card = header.get("card")
    return NeuralModel(tensors, card if isinstance(card, dict) else {})


def _count(shape: tuple[int, ...]) -> int:
    n = 1
    for d in shape:
        n *= d
    return n


def _check_shapes(t: dict[str, Any], where: str) -> None:
    from ..encoding import OBSERVATION_LAYOUT

    hidden1, hidden2 = t["b1"].shape[0], t["b2"].shape[0]
    expected = {
        "w1": (OBSERVATION_LAYOUT.size, hidden1),
        "w2": (hidden1, hidden2),
        "wp": (hidden2, ACTION_SPACE),
        "bp": (ACTION_SPACE,),
        "wv": (hidden2, 1),
        "bv": (1,),
    }
    if "vw1" in t:
        from .evaluation import N_FEATURES

        value_hidden = t["vb1"].shape[0]
        expected |= {
            "vmean": (N_FEATURES,),
            "vstd": (N_FEATURES,),
            "vw1": (hidden2 + N_FEATURES + 1 + N_CONTEXTS, value_hidden),
            "vw2": (value_hidden, 1),
            "vb2": (1,),
            "va": (N_CONTEXTS,),
            "vk": (N_CONTEXTS,),
        }
    for name, shape in expected.items():
        if tuple(t[name].shape) != shape:
            raise NeuralModelError(f"{where}: tensor {name} has shape {t[name].shape}, not {shape}")


@cache
def shipped_model() -> NeuralModel:
    """The shipped weights, loaded once per process."""
    return load_model(SHIPPED_MODEL)


def observation_of(game: Game) -> npt.NDArray[np.float32]:
    """The network's input for the player to move (its view only: the encoder's observation)."""
    from ..encoding import encode_observation

    return encode_observation(game, game.current_player)


def legal_policy(model: NeuralModel, game: Game, legal: Sequence[int]) -> tuple[list[float], float]:
    """The network's probabilities over ``legal`` (softmax of their logits) and the mover's win chance."""
    np_ = import_numpy()
    logits, value = model.forward(observation_of(game)[None, :])
    chosen = logits[0, list(legal)]
    weights = np_.exp(chosen - chosen.max())
    probs = weights / weights.sum()
    return [float(p) for p in probs], float(value[0])


def context_of(game: Game) -> int:
    """The index in :data:`CONTEXTS` of ``game``'s kind: a duel, or a solo game's R8.3 level (a solo
    game with another threat allocation is judged as the level of its base mana)."""
    if not game.is_solo:
        return 0
    from .evaluation import threat_level

    level = threat_level(game.threat)
    if level is None:
        level = min(max(game.threat.base_mana - 6, 0), 4)
    return 1 + level


def value_inputs(game: Game, seat: int) -> tuple[list[float], float]:
    """The calibrated value head's side inputs for ``seat``: the logistic evaluation's features and
    its logit (the same public information and own hand, R9)."""
    from .evaluation import features
    from .evaluation import shipped_model as evaluation_model

    x = features(game, seat)
    p = min(max(evaluation_model().win_chance(game, seat), 1e-6), 1.0 - 1e-6)
    return x, math.log(p / (1.0 - p))


def win_chance(game: Game, seat: int, model: NeuralModel | None = None) -> float:
    """The network's chance that ``seat`` wins ``game``, from ``seat``'s view only: the calibrated
    value head's where the model has one (fitted and checked for the player to move; for the duel
    seat not to move it is unchecked), else the first value head's."""
    from ..encoding import encode_observation

    np_ = import_numpy()
    model = model or shipped_model()
    obs = encode_observation(game, seat)[None, :]
    if not model.has_value_head:
        _, value = model.forward(obs)
        return float(value[0])
    x, z = value_inputs(game, seat)
    logit = model.value_logit(
        model.hidden(obs),
        np_.array([x], dtype=np_.float32),
        np_.array([z], dtype=np_.float32),
        np_.array([context_of(game)]),
    )
    return float(1.0 / (1.0 + math.exp(-float(logit[0]))))


#: The search of ``neural:N``: the ``strongest`` strength's settings (agents/registry.py).
_SEARCH_SETTINGS: Final[dict[str, Any]] = {"cutoff": 2, "evaluation": "learned", "setup": "learned"}


class NeuralAgent(Agent):
    """``neural``: the network's policy, alone or as the root prior of an ISMCTS (module docstring)."""

    name = "neural"

    def __init__(
        self,
        seed: int | None = 0,
        *,
        iterations: int | None = 0,
        c: float = DEFAULT_C,
        model: str | None = None,
    ) -> None:
        if iterations is None or iterations < 0:
            raise ValueError(f"iterations must be 0 (the policy alone) or more, not {iterations}")
        self.model = shipped_model() if model is None else load_model(Path(model))
        self.iterations = iterations
        self.search = Search(c=c, **_SEARCH_SETTINGS) if iterations else None
        self._rng = random.Random(seed)
        #: The last decision's search (``iterations=N``), and what the searches cost since the reset.
        self.last: SearchResult | None = None
        self.tally = SearchTally()

    def reset(self, seed: int | None = None) -> None:
        self._rng = random.Random(seed)
        self.tally = SearchTally()

    def act(self, game: GameEngine) -> int:
        if game.current_player < 0:
            raise no_decision_error(game, self.name)
        if game.decision_kind is _BUILD:
            return BUILD_BASE + build_rank(CARD_RANKING[:DECK_SIZE_CUSTOM])
        legal = game.legal_actions()
        if not legal:
            raise no_decision_error(game, self.name)
        self.last = None
        if len(legal) == 1:
            return legal[0]
        position = game.to_game(record_events=False)  # the encoder reads the Python engine's game
        probs, _ = legal_policy(self.model, position, legal)
        if self.search is None:
            return legal[max(range(len(legal)), key=lambda i: (probs[i], -i))]
        rng = random.Random(self._rng.getrandbits(64))
        result = self.search.run(position, rng, iterations=self.iterations)
        self.last = result
        self.tally.add(result)
        total = max(1, sum(visits for _, visits, _ in result.stats))
        share = {a: visits / total for a, visits, _ in result.stats}
        prior = dict(zip(legal, probs, strict=True))
        return max(legal, key=lambda a: (share.get(a, 0.0) + PRIOR_WEIGHT * prior[a], -a))


def make_neural_agent(seed: int | None = 0, **settings: Any) -> NeuralAgent:
    """The registry's factory: checks the dependency first, so a missing numpy is a clear error."""
    import_numpy()
    return NeuralAgent(seed, **settings)


__all__ = [
    "CONTEXTS",
    "MODEL_VERSION",
    "N_CONTEXTS",
    "PRIOR_WEIGHT",
    "SHIPPED_MODEL",
    "VALUE_TENSORS",
    "NeuralAgent",
    "NeuralDependencyError",
    "NeuralModel",
    "NeuralModelError",
    "context_of",
    "load_model",
    "make_neural_agent",
    "shipped_model",
    "value_inputs",
    "win_chance",
]
