"""The search primitives of the Python engine: a rollout, a position's reward by any evaluator, the greedy
choice and the UCT search, the methods :class:`~clashofdecks.engine.GameEngine` asks of both engines.

The compiled core has the same methods (``clashofdecks.native.NativeGame``, docs/native.md) with the same
draws and the same doubles, so an agent calls them on whichever engine holds its game and never asks
which one that is.  The policies (which evaluator, which cutoff, the setup stage's scoring, the
candidate builds) stay in :mod:`clashofdecks.agents`: they come in here as data (:class:`Evaluator`)
or as functions (:func:`search_tree`'s hooks).
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final, Protocol

from ..actions import BUILD_BASE, DECK_SIZE_CUSTOM, build_rank
from ..cards import N_CARDS
from .heuristic import Weights, evaluate
from .state import DecisionKind
from .views import GameViews

_BUILD: Final = DecisionKind.BUILD  # a plain name: an Enum member read through its class is slow

#: A learned evaluation packed for the core (``agents.evaluation.EvaluationModel.packed``, described at
#: ``clashofdecks.native``).
PackedEvaluation = tuple[
    tuple[float, ...],
    tuple[float, ...],
    tuple[tuple[float, ...] | None, ...],
    tuple[int, ...],
    tuple[float, ...],
    tuple[float, ...],
    tuple[float, ...],
]
#: What the compiled core scores by itself: a packed learned evaluation, or the greedy heuristic's 9
#: weights with the logistic scale that turns its score for player 0 into a win chance.
CompiledScore = PackedEvaluation | tuple[Sequence[float], float]


@dataclass(frozen=True, slots=True)
class Evaluator:
    """Player 0's reward (a win chance) of an unfinished position, as data both engines take.

    ``python`` computes it on a game of the Python engine; ``compiled``, given the game (either
    engine), says what the core computes itself (:data:`CompiledScore`), the same double, or is
    ``None`` when only the Python function exists (the core then hands it its game in Python)."""

    python: Callable[[Any], float]
    compiled: Callable[[Any], CompiledScore] | None = None


def logistic_chance(score: float, scale: float) -> float:
    """``1 / (1 + exp(-clip(score / scale, ±50)))``: a heuristic score as a win chance (as the core)."""
    x = score / scale
    return 1.0 / (1.0 + math.exp(-max(-50.0, min(50.0, x))))


class _Finished(Protocol):
    @property
    def winner(self) -> int | None: ...


def finished_reward(game: _Finished) -> float:
    """Player 0's reward at a finished game: 1 win, 0 loss, 1/2 draw."""
    w = game.winner
    return 0.5 if w is None else (1.0 if w == 0 else 0.0)


def random_build(rnd: Callable[[], float]) -> int:
    """A random custom deck (R2.5) drawn with ``rnd``: a partial Fisher-Yates over the 32 cards."""
    cards = list(range(N_CARDS))
    for i in range(DECK_SIZE_CUSTOM):
        j = i + int(rnd() * (N_CARDS - i))
        cards[i], cards[j] = cards[j], cards[i]
    return BUILD_BASE + build_rank(cards[:DECK_SIZE_CUSTOM])


def greedy_choice(game: Any, legal: Sequence[int], rnd: Callable[[], float], weights: Weights) -> int:
    """The one-ply greedy move on a determinized Python game (ties broken with ``rnd``)."""
    player = game.current_player
    best: list[int] = []
    best_score = -math.inf
    for a in list(legal):
        game.apply(a)
        score = evaluate(game, player, weights)
        game.undo()
        if score > best_score:
            best_score = score
            best = [a]
        elif score == best_score:
            best.append(a)
    return best[0] if len(best) == 1 else best[int(rnd() * len(best))]


class _Searchable(Protocol):
    """What :func:`search_tree` needs of a game (either engine)."""

    @property
    def winner(self) -> int | None: ...
    @property
    def current_player(self) -> int: ...
    @property
    def decision_kind(self) -> DecisionKind: ...
    @property
    def phase(self) -> str: ...
    @property
    def turn(self) -> int: ...
    @property
    def is_solo(self) -> bool: ...
    def is_over(self) -> bool: ...
    def legal_actions(self) -> Sequence[int]: ...
    def apply(self, action: int) -> Sequence[object]: ...
    def rollout(
        self,
        rnd: Callable[[], float],
        max_actions: int,
        turn_limit: int | None = None,
        *,
        greedy: Sequence[float] | None = None,
        until_play: bool = False,
    ) -> int: ...
    def reward(self, evaluator: Evaluator) -> float: ...


class _Node:
    """A tree node: the statistics of the action that led here, for the player who chose it."""

    __slots__ = ("avail", "builds", "children", "player", "visits", "wins")

    def __init__(self, player: int) -> None:
        self.player = player
        self.visits = 0
        self.wins = 0.0
        self.avail = 1
        self.children: dict[int, _Node] = {}
        self.builds: list[int] | None = None


@dataclass(frozen=True, slots=True)
class TreeSettings:
    """How :func:`search_tree` searches: the UCB constant, the rollouts and their scoring, and the
    agents' hooks for the setup stage (the compiled core's search has no setup stage)."""

    c: float
    cutoff_turns: int | None
    max_rollout_actions: int
    evaluator: Evaluator
    mix: float = 0.0
    #: The greedy rollout policy's 9 weights, or ``None`` for uniform random rollouts.
    greedy: Sequence[float] | None = None
    #: The custom builds a build node offers (R2.5: too many to list), from the search's generator.
    builds: Callable[[random.Random], list[int]] | None = None
    #: Scores a duel whose setup has just ended (rollouts from a setup root stop there), or ``None``.
    setup_end: Callable[[Any], float] | None = None
    #: The game in the engine the rest of a rollout should run in once the setup is over.
    play_engine: Callable[[Any], Any] | None = None


def search_tree(
    begin: Callable[[], _Searchable],
    rng: random.Random,
    player: int,
    settings: TreeSettings,
    *,
    iterations: int | None,
    deadline: float | None,
    clock: Callable[[], float],
) -> tuple[int, list[tuple[int, int, float]]]:
    """UCT with availability counts from the states ``begin()`` gives (determinizations or copies), for
    ``player``; stops after ``iterations`` or once ``clock() >= deadline`` (checked every 8
    iterations).  Returns the iterations done and, per root action, ``(action, visits, wins)``."""
    root = _Node(1 - player)
    limit = iterations if iterations is not None else 1 << 62
    done = 0
    while done < limit:
        _iterate(root, begin(), rng, settings)
        done += 1
        if deadline is not None and (done & 7) == 0 and clock() >= deadline:
            break
    return done, [(a, ch.visits, ch.wins) for a, ch in root.children.items()]


def _select(node: _Node, legal: Iterable[int], c: float) -> tuple[list[int] | None, _Node | None, int]:
    """The untried actions at ``node`` (counting availability), else its best child by UCB."""
    children = node.children
    untried: list[int] | None = None
    best: _Node | None = None
    best_action = -1
    best_score = -1.0
    log = math.log
    sqrt = math.sqrt
    for a in legal:
        ch = children.get(a)
        if ch is None:
            if untried is None:
                untried = [a]
            else:
                untried.append(a)
            continue
        ch.avail += 1
        if untried is None:
            score = ch.wins / ch.visits + c * sqrt(log(ch.avail) / ch.visits)
            if score > best_score:
                best_score = score
                best = ch
                best_action = a
    return untried, best, best_action


def _iterate(root: _Node, d: _Searchable, rng: random.Random, settings: TreeSettings) -> None:
    node = root
    path = [root]
    setup_end = settings.setup_end
    while not d.is_over():
        if setup_end is not None and d.phase != "setup":
            break
        legal: Sequence[int] = d.legal_actions()
        if d.decision_kind is _BUILD and settings.builds is not None:
            if node.builds is None:
                node.builds = settings.builds(rng)
            legal = node.builds
        untried, best, best_action = _select(node, legal, settings.c)
        player = d.current_player
        if untried is not None:
            a = untried[rng.randrange(len(untried))] if len(untried) > 1 else untried[0]
            child = _Node(player)
            node.children[a] = child
            d.apply(a)
            path.append(child)
            break
        assert best is not None
        d.apply(best_action)
        node = best
        path.append(node)
    reward = _leaf_reward(d, rng, settings)
    for n in path:
        n.visits += 1
        n.wins += reward if n.player == 0 else 1.0 - reward


def _leaf_reward(d: _Searchable, rng: random.Random, settings: TreeSettings) -> float:
    if d.is_over():
        return finished_reward(d)
    if settings.setup_end is not None and d.phase != "setup":
        return settings.setup_end(d)
    if settings.mix and d.phase != "setup":
        mix = settings.mix
        leaf = d.reward(settings.evaluator)
        return (1.0 - mix) * rollout_reward(d, rng, settings) + mix * leaf
    return rollout_reward(d, rng, settings)


def rollout_reward(d: _Searchable, rng: random.Random, settings: TreeSettings) -> float:
    """Player 0's reward of a rollout from ``d`` (changed): the setup at random, then the play phase
    (in :attr:`TreeSettings.play_engine`) by the rollout policy, to the end, the cutoff or the budget."""
    rnd = rng.random
    cutoff = settings.cutoff_turns
    limit = None if cutoff is None else d.turn + cutoff
    budget = settings.max_rollout_actions
    played = 0
    if d.phase == "setup":
        played = d.rollout(rnd, budget, limit, greedy=settings.greedy, until_play=True)
        if d.phase == "setup":
            return d.reward(settings.evaluator)
        if settings.setup_end is not None:
            return settings.setup_end(d)
    if settings.play_engine is not None:
        d = settings.play_engine(d)
    d.rollout(rnd, budget - played, limit, greedy=settings.greedy)
    return d.reward(settings.evaluator)


class SearchPaths(GameViews):
    """The search primitives of :class:`~clashofdecks.rules.Game` (see the module)."""

    __slots__ = ()

    if TYPE_CHECKING:  # methods of the other rooms, for the type checker

        def clone(self) -> SearchPaths: ...
        def sample_determinization(self, player: int, rng: random.Random) -> SearchPaths: ...
        def undo(self) -> int: ...

    def rollout(
        self,
        rnd: Callable[[], float],
        max_actions: int,
        turn_limit: int | None = None,
        *,
        greedy: Sequence[float] | None = None,
        until_play: bool = False,
    ) -> int:
        """Play on with ``rnd`` (e.g. ``rng.random``): ``rnd()`` only when more than one action is legal,
        then ``legal[int(rnd() * n)]``, or with ``greedy`` weights the best-scoring action
        (:func:`greedy_choice`, ``rnd()`` only to break a tie; setup choices stay random), a custom
        build at random.  Stops at the end of the game, past turn ``turn_limit`` (not in the setup),
        when the setup is over (``until_play``) or after ``max_actions``; returns the actions played."""
        weights = None if greedy is None else Weights(*greedy)
        for i in range(max_actions):
            setup = self.phase == "setup"
            if (until_play and not setup) or self.is_over():
                return i
            if turn_limit is not None and self._turn > turn_limit and not setup:
                return i
            legal = self.legal_actions()
            if self.decision_kind is _BUILD:
                self.apply(random_build(rnd))
                continue
            n = len(legal)
            if n == 1:
                self.apply(legal[0])
            elif weights is not None and not setup:
                self.apply(greedy_choice(self, legal, rnd, weights))
            else:
                self.apply(legal[int(rnd() * n)])
        return max_actions

    def reward(self, evaluator: Evaluator) -> float:
        """Player 0's reward: the result of a finished game, else ``evaluator``'s chance."""
        if self.is_over():
            return finished_reward(self)
        return evaluator.python(self)

    def greedy_action(self, rng: random.Random, weights: Sequence[float], *, finish_turn: bool = True) -> int:
        """The greedy agent's play-phase choice for the current player (at least two legal actions): a
        determinization from ``rng``, every legal action applied (and the turn finished the default
        way if ``finish_turn``) and scored by :func:`evaluate`, the best kept, a tie broken by
        ``rng.randrange``."""
        player = self.current_player
        legal = self.legal_actions()
        if player < 0 or len(legal) < 2:
            raise ValueError("greedy_action needs a decision with at least two actions")
        w = Weights(*weights)
        sample = self.sample_determinization(player, rng)
        sample.record_events = False
        best: list[int] = []
        best_score = -float("inf")
        turn = sample.turn
        for action in legal:
            sample.apply(action)
            applied = 1
            if finish_turn:  # complete the turn the default way: pass every later decision of it
                while not sample.is_over() and sample.turn == turn:
                    sample.apply(sample.legal_actions()[0])
                    applied += 1
            score = evaluate(sample, player, w)
            for _ in range(applied):
                sample.undo()
            if score > best_score:
                best_score = score
                best = [action]
            elif score == best_score:
                best.append(action)
        return best[0] if len(best) == 1 else best[rng.randrange(len(best))]

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
        """The UCT search with random rollouts for :attr:`current_player` (as
        ``clashofdecks.native.NativeGame.search``, which gives the same statistics and leaves ``rng``
        in the same state): each iteration from a determinization of a canonical copy (or, with
        ``perfect_information``, a copy), a rollout cut ``cutoff_turns`` turns after its leaf's
        turn scored by ``score``; ``mix`` > 0 also scores each leaf.  Returns the iterations done and,
        per root action, ``(action, visits, wins)``."""
        if iterations is None and deadline is None:
            raise ValueError("a search needs a budget: iterations or a deadline")
        player = self.current_player
        base = self.clone()
        base.record_events = False
        base.keep_undo = False  # iterations only go forward

        def begin() -> Any:
            return base.clone() if perfect_information else base.sample_determinization(player, rng)

        settings = TreeSettings(c, cutoff_turns, max_rollout_actions, score, mix)
        done, stats = search_tree(
            begin, rng, player, settings, iterations=iterations, deadline=deadline, clock=clock
        )
        return done, tuple(stats)
