"""``neural-search``: the self-play network inside the search (issue 38; docs/ai.md, "The network inside
the search").

In the play phase, a PUCT search over determinizations from the player's view (ISMCTS, R9): when the
walk first reaches a node, the network (:mod:`.neural`, the shipped weights) gives the prior of each
legal action there and the value of the position for the player to move (the calibrated value head);
that value is backed up, mixed with a rollout cut :data:`CUTOFF` turns later and scored by the learned
evaluation when ``value_weight`` < 1; a child is chosen by ``Q + c x prior x sqrt(availability) / (1 +
visits)`` (an unvisited child's ``Q`` is its parent's value; the availability, how often the action
was legal when its parent was visited, replaces the parent's visits as in ISMCTS).  The decision is the
most visited root action (or, with ``floor`` > 0, the best mean among the root actions visited at least
``floor`` x the most visits).  The tree and the network run in the compiled core (``_native.c``:
``net_search``, the weights handed over once from the shipped file); without the core the same
algorithm runs here with numpy (slower, and not the same draws).  The setup stage is searched as
``strongest`` searches it (:data:`SETUP_ITERATIONS`, draft picks scored by the deck evaluation); the
custom build is the greedy heuristic's, as ``neural``'s.

Settings: ``iterations`` (play-phase iterations per decision; the default is sized to ``strongest``'s
CPU per decision, docs/ai.md), ``c`` (PUCT's constant), ``value_weight`` (0 to 1), ``model`` (another
weights file), ``noise`` and ``noise_alpha`` (Dirichlet noise mixed into the root's prior, for
self-play's exploration; 0, none, by default), ``fpu`` (an unvisited child's value is its parent's
less this), ``cutoff`` (the rollout's turns after the leaf's, :data:`CUTOFF` by default) and ``floor``
(the decision rule above; 0, the most visited, by default).
"""

from __future__ import annotations

import math
import random
import time
from functools import cache
from typing import TYPE_CHECKING, Any, Final

from .. import native
from ..actions import BUILD_BASE, DECK_SIZE_CUSTOM, build_rank
from ..engine import GameEngine
from ..native import NetView, in_engine
from ..rules import DecisionKind, Game
from .base import Agent, no_decision_error
from .evaluation import shipped_model as evaluation_model
from .greedy import CARD_RANKING
from .mcts import MAX_ROLLOUT_ACTIONS, Search, SearchResult, SearchTally
from .mcts import _result as search_result
from .neural import TENSORS, VALUE_TENSORS, NeuralModel, context_of, import_numpy, load_model, shipped_model
from .neural import win_chance as network_chance

if TYPE_CHECKING:
    from pathlib import Path

#: Play-phase iterations per decision: ``strongest``'s CPU per decision (docs/ai.md).
DEFAULT_ITERATIONS: Final = 300
#: PUCT's exploration constant (rewards in [0, 1]): 0.5 beat 1.5 over the same 400 duels against
#: ``strongest`` (docs/ai.md, "Tuning the network's search").
DEFAULT_C: Final = 0.5
#: The share of the network's value in a leaf's reward (the rest: the cut-off rollout's).
DEFAULT_VALUE_WEIGHT: Final = 0.5
#: The Dirichlet noise's alpha at the root when noise is on (about 10 / legal actions, as AlphaZero's).
DEFAULT_NOISE_ALPHA: Final = 1.0
#: An unvisited child's value: its parent's less this (0: the parent's value).
DEFAULT_FPU_CUT: Final = 0.0
#: Turns a rollout plays after its leaf's turn before the learned evaluation scores it (``strongest``'s).
CUTOFF: Final = 2
#: The root's decision: 0, the most visited action; f > 0, the best mean among the actions visited at
#: least f x the most visits.
DEFAULT_FLOOR: Final = 0.0
#: The setup stage's search: ``strongest``'s (agents/registry.py).
SETUP_ITERATIONS: Final = 1500
_SETUP_SETTINGS: Final[dict[str, Any]] = {"cutoff": 2, "evaluation": "learned", "setup": "learned"}
_BUILD: Final = DecisionKind.BUILD


def payload_of(model: NeuralModel) -> tuple[bytes, tuple[int, int, int, int, int]]:
    """The model's float32 payload (the file's tensor order) and its sizes, as ``native.net_new`` takes."""
    np_ = import_numpy()
    names = TENSORS + VALUE_TENSORS if model.has_value_head else TENSORS
    t = model.tensors
    payload = b"".join(np_.ascontiguousarray(t[n], dtype="<f4").tobytes() for n in names)
    value_hidden = int(t["vb1"].shape[0]) if model.has_value_head else 0
    sizes = (model.inputs, int(t["b1"].shape[0]), int(t["b2"].shape[0]), int(t["bp"].shape[0]), value_hidden)
    return payload, sizes


@cache
def _compiled(model: NeuralModel) -> object:
    return native.net_new(*payload_of(model))


def net_view(game: Game) -> NetView:
    """What the core's network needs of ``game`` besides its state (:data:`clashofdecks.native.NetView`)."""
    from ..encoding import COMPILED_LAYOUT, OBSERVATION_LAYOUT, encode_observation

    part = OBSERVATION_LAYOUT.slices["threat"]
    threat = [float(x) for x in encode_observation(game, max(0, game.current_player))[part.start : part.stop]]
    return COMPILED_LAYOUT, threat, context_of(game), evaluation_model().packed(game)


class _Node:
    __slots__ = ("avail", "children", "expanded", "player", "prior", "value", "visits", "wins")

    def __init__(self, player: int, prior: float) -> None:
        self.player = player
        self.prior = prior
        self.visits = 0
        self.wins = 0.0
        self.avail = 1
        self.value = 0.5
        self.expanded = False
        self.children: dict[int, _Node] = {}


def root_noise(priors: list[float], rng: random.Random, share: float, alpha: float) -> list[float]:
    """AlphaZero's exploration noise: ``(1 - share) prior + share Dirichlet(alpha)`` (self-play only)."""
    eta = [rng.gammavariate(alpha, 1.0) for _ in priors]
    total = sum(eta)
    return [
        (1 - share) * p + share * (e / total if total > 0 else 1 / len(eta))
        for p, e in zip(priors, eta, strict=True)
    ]


class PythonNetSearch:
    """The core's ``net_search`` in Python, for a machine without the core (numpy for the network)."""

    def __init__(
        self,
        model: NeuralModel,
        c: float,
        value_weight: float,
        noise: float = 0.0,
        noise_alpha: float = 1.0,
        fpu_cut: float = 0.0,
        cutoff: int = CUTOFF,
    ) -> None:
        self.fpu_cut = fpu_cut
        self.model = model
        self.c = c
        self.value_weight = value_weight
        self.noise = noise
        self.noise_alpha = noise_alpha
        self.rollouts = Search(cutoff=cutoff, evaluation="learned", native=False)
        self.evaluations = 0

    def run(self, game: Game, rng: random.Random, iterations: int) -> list[tuple[int, int, float]]:
        me = game.current_player
        root = _Node(1 - me, 1.0)
        for _ in range(iterations):
            d = game.sample_determinization(me, rng)
            d.record_events = False
            self._iterate(root, d, rng)
        return [(a, ch.visits, ch.wins) for a, ch in sorted(root.children.items())]

    def _evaluate(self, d: Game, legal: list[int]) -> tuple[list[float], float]:
        from ..encoding import encode_observation

        np_ = import_numpy()
        mover = d.current_player
        logits, _ = self.model.forward(encode_observation(d, mover)[None, :])
        chosen = logits[0, legal]
        weights = np_.exp(chosen - chosen.max())
        self.evaluations += 1
        return [float(p) for p in weights / weights.sum()], network_chance(d, mover, self.model)

    def _iterate(self, root: _Node, d: Game, rng: random.Random) -> None:
        node, path, reward = root, [root], None
        while not d.is_over():
            legal = list(d.legal_actions())
            player = d.current_player
            if not node.expanded:
                node.expanded = True
                priors, chance = self._evaluate(d, legal) if len(legal) > 1 else ([1.0], 0.5)
                if node is root and len(legal) > 1 and self.noise > 0:
                    priors = root_noise(priors, rng, self.noise, self.noise_alpha)
                node.children = {a: _Node(player, p) for a, p in zip(legal, priors, strict=True)}
                if len(legal) > 1:
                    node.value = chance
                    reward = chance if player == 0 else 1.0 - chance
                    if self.value_weight < 1.0:
                        rolled = self.rollouts._rollout(d, rng)
                        reward = self.value_weight * reward + (1.0 - self.value_weight) * rolled
                    break
            action, node = self._select(node, player, legal)
            d.apply(action)
            path.append(node)
        if reward is None:
            w = d.winner
            reward = 0.5 if w is None else float(w == 0)
        for n in path:
            n.visits += 1
            n.wins += reward if n.player == 0 else 1.0 - reward

    def _select(self, node: _Node, player: int, legal: list[int]) -> tuple[int, _Node]:
        best, best_score = (legal[0], node), -math.inf
        for a in legal:
            ch = node.children.get(a)
            if ch is None:
                ch = node.children[a] = _Node(player, 1.0 / len(legal))
                ch.avail = 0
            ch.avail += 1
            q = ch.wins / ch.visits if ch.visits else node.value - self.fpu_cut
            score = q + self.c * ch.prior * math.sqrt(ch.avail) / (1 + ch.visits)
            if score > best_score:
                best, best_score = (a, ch), score
        return best


class NeuralSearchAgent(Agent):
    """``neural-search``: the network's prior and value inside a PUCT search (module docstring)."""

    name = "neural-search"

    def __init__(
        self,
        seed: int | None = 0,
        *,
        iterations: int | None = DEFAULT_ITERATIONS,
        c: float = DEFAULT_C,
        value_weight: float = DEFAULT_VALUE_WEIGHT,
        model: str | None = None,
        native_core: bool | None = None,
        setup_iterations: int = SETUP_ITERATIONS,
        noise: float = 0.0,
        noise_alpha: float = DEFAULT_NOISE_ALPHA,
        fpu: float = DEFAULT_FPU_CUT,
        cutoff: int | str | None = CUTOFF,
        floor: float = DEFAULT_FLOOR,
    ) -> None:
        if iterations is None or iterations < 1:
            raise ValueError(f"iterations must be at least 1, not {iterations}")
        if not 0.0 <= value_weight <= 1.0:
            raise ValueError(f"value_weight is between 0 and 1, not {value_weight}")
        if c < 0:
            raise ValueError(f"the exploration constant must be >= 0, not {c}")
        if not isinstance(cutoff, int) or cutoff < 0:
            raise ValueError(f"neural-search's cutoff is a number of turns >= 0, not {cutoff}")
        if not 0.0 <= floor <= 1.0:
            raise ValueError(f"the decision's visit floor is between 0 and 1, not {floor}")
        if not 0.0 <= noise <= 1.0 or noise_alpha <= 0:
            raise ValueError(
                f"the root noise's share is between 0 and 1 and its alpha > 0, not {noise}, {noise_alpha}"
            )
        self.model = shipped_model() if model is None else load_model(_path(model))
        self.iterations = iterations
        self.c = c
        self.value_weight = value_weight
        #: The share of Dirichlet noise in the root's prior: 0 at play, self-play's exploration when > 0.
        self.noise = noise
        self.noise_alpha = noise_alpha
        #: An unvisited child's value: its parent's less this (first-play urgency).
        self.fpu_cut = fpu
        #: The rollout's turns after the leaf's before the learned evaluation scores it.
        self.cutoff = cutoff
        #: The root's decision rule (:data:`DEFAULT_FLOOR`).
        self.floor = floor
        self.native = native.AVAILABLE if native_core is None else native_core and native.AVAILABLE
        self.setup_search = Search(**_SETUP_SETTINGS)
        #: The setup stage's iterations (``strongest``'s; self-play training lowers them).
        self.setup_iterations = setup_iterations
        self.python = PythonNetSearch(self.model, c, value_weight, noise, noise_alpha, fpu, cutoff)
        self._rng = random.Random(seed)
        #: The last play-phase decision's search and its network evaluations; the searches' cost since the
        #: reset.
        self.last: tuple[SearchResult, int] | None = None
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
        if len(legal) == 1:
            return legal[0]
        rng = random.Random(self._rng.getrandbits(64))
        position = game.to_game(record_events=False)
        if position.phase == "setup":
            result = self.setup_search.run(position, rng, iterations=self.setup_iterations)
            self.tally.add(result)
            return result.action
        started = time.perf_counter()
        stats, evaluations = self._search(position, rng)
        result = decide(stats, self.iterations, time.perf_counter() - started, self.floor)
        self.last = (result, evaluations)
        self.tally.add(result)
        return result.action

    def _search(self, position: Game, rng: random.Random) -> tuple[list[tuple[int, int, float]], int]:
        if self.native:
            found = native.net_search(
                in_engine(position, compiled=True),
                _compiled(self.model),
                rng,
                net_view(position),
                iterations=self.iterations,
                c=self.c,
                cutoff_turns=self.cutoff,
                max_rollout_actions=MAX_ROLLOUT_ACTIONS,
                value_weight=self.value_weight,
                noise=self.noise,
                noise_alpha=self.noise_alpha,
                fpu_cut=self.fpu_cut,
            )
            if found is not None:
                _, compiled_stats, evaluations = found
                return list(compiled_stats), evaluations
        before = self.python.evaluations
        stats = self.python.run(position, rng, self.iterations)
        return stats, self.python.evaluations - before


def decide(
    stats: list[tuple[int, int, float]], iterations: int, seconds: float, floor: float
) -> SearchResult:
    """The root's decision from its children as (action, visits, summed rewards): the most visited
    (``floor`` 0), or the best mean among those visited at least ``floor`` x the most visits."""
    result = search_result(stats, iterations, seconds)
    if floor <= 0 or not result.stats:
        return result
    least = floor * result.stats[0][1]
    action, _, mean = max(
        (s for s in result.stats if s[1] >= least and s[1] > 0), key=lambda s: (s[2], s[1], -s[0])
    )
    return SearchResult(action, mean, iterations, seconds, result.stats)


def _path(model: str) -> Path:
    from pathlib import Path

    return Path(model)


def make_neural_search_agent(seed: int | None = 0, **settings: Any) -> NeuralSearchAgent:
    """The registry's factory: checks the dependency first, so a missing numpy is a clear error."""
    import_numpy()
    if "value" in settings:
        settings["value_weight"] = settings.pop("value")
    return NeuralSearchAgent(seed, **settings)


__all__ = [
    "DEFAULT_ITERATIONS",
    "NeuralSearchAgent",
    "PythonNetSearch",
    "decide",
    "make_neural_search_agent",
    "net_view",
    "payload_of",
    "root_noise",
]
