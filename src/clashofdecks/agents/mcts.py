"""Tree search players: ``ismcts`` (fair, R9) and ``mcts`` (perfect information, for analysis).

Both run the same UCT search (:class:`Search`); they differ only in the state each iteration
starts from:

* ``ismcts`` is single-observer information-set MCTS (Cowling, Powley & Whitehouse 2012).  Every
  iteration samples a *determinization*, a full state consistent with what the searching player
  may know (:func:`clashofdecks.position.sample_determinization`: the opponent's hidden hand
  places, the automaton deck order, the face-down draft pile, future shuffles), and descends one
  shared tree keyed by actions.  Because the legal actions differ between determinizations, a
  child's UCB term counts how often it was *available* rather than how often its parent was
  visited ("availability counts").  The agent never looks at a hidden card: it searches a
  canonical copy in which the hidden cards are sorted before they are shuffled, so its decision
  is a function of the player's view and its seed only (``tests/test_search.py`` checks this by
  permuting hidden cards).
* ``mcts`` searches the true state (hidden cards and the future of the game's RNG included): an
  upper reference for ``ismcts`` and the engine of ``clash analyze``.  It is *not* a fair player.

Tree nodes belong to ``game.current_player`` of the state they were entered from, so a return
order (R3.9) chosen by the opponent during our turn is the opponent's node, and in solo every
node is the player's: the automaton never decides, its turn resolves inside ``end`` and is the
chance the determinizations sample.  Rewards are 1 for a win, 0 for a loss and 1/2 for a capped
draw, always from the point of view of the node's player.

Decision kinds: every action listed by ``legal_actions()``.  The custom build stage (R2.5) lists
C(32, 10) decks; the tree offers a few candidate builds instead (the best ten cards by the greedy
heuristic's :func:`~clashofdecks.agents.greedy.card_value` and variants of it), and rollouts build
a random deck.

The setup stage (R2): its search tree and rollouts run in the Python engine.  By default
(``setup="rollout"``) a rollout from a setup position plays the whole game at random; with
``setup="learned"`` (duels) it stops when the setup ends and is scored by the deck evaluation
(:mod:`.deck_evaluation`: the chance each pair of decks gives, learned from strong play), so a
draft pick is valued as the strong agent would use the card, not as random play would.  The agent
setting ``setup=random`` skips the search in the setup and chooses at random (varied decks for
training data: ``clash train-decks``).

Budgets: ``iterations`` per decision (deterministic for a seed), or ``seconds`` (wall clock; then
not reproducible).  Decisions with one legal action are answered without search.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Final, Literal

from ..actions import BUILD_BASE, DECK_SIZE_CUSTOM, build_rank
from ..engine import GameEngine
from ..game_loop import game_steps
from ..native import AVAILABLE as NATIVE_AVAILABLE
from ..native import in_engine
from ..rules import DecisionKind, Game
from ..rules.playout import (
    CompiledScore,
    Evaluator,
    TreeSettings,
    finished_reward,
    greedy_choice,
    logistic_chance,
    rollout_reward,
    search_tree,
)
from ..rules.playout import random_build as _random_build
from .base import Agent, no_decision_error
from .deck_evaluation import shipped_deck_model
from .evaluation import chance_after, shipped_model
from .greedy import CARD_RANKING, DEFAULT_WEIGHTS, evaluate, weight_values

#: Default UCB exploration constant for rewards in [0, 1] (about 1/sqrt(2); not tuned further).
#: A plain name: an Enum member read through its class is slow (the rollout loop reads it each step).
_BUILD: Final = DecisionKind.BUILD
DEFAULT_C: Final = 0.7
#: A rollout longer than this many actions stops and is scored by the heuristic (a safety net:
#: random games last about 50 actions).
MAX_ROLLOUT_ACTIONS: Final = 2000
#: Candidate builds offered at a custom build node (R2.5): the top ten cards plus variants.
BUILD_CANDIDATES: Final = 8
ROLLOUTS: Final = ("random", "greedy")
#: How a cut-off rollout is scored: the greedy heuristic through a logistic scale, or the learned
#: evaluation (:mod:`.evaluation`, the shipped model).
EVALUATIONS: Final = ("heuristic", "learned")
#: How a rollout from the setup stage is scored: played to the end (or the cut-off), or stopped
#: when the setup ends and scored by the deck evaluation (duels).
SETUP_SCORES: Final = ("rollout", "learned")
#: An agent's ``setup`` setting: a search scored as in :data:`SETUP_SCORES`, or no search at all.
SETUP_CHOICES: Final = (*SETUP_SCORES, "random")
#: Logistic scales turning the greedy heuristic's score into a win chance for cut-off rollouts,
#: fitted (maximum likelihood) on positions of greedy games: duel, solo.  See docs/ai.md.
EVAL_SCALE_DUEL: Final = 12.0
EVAL_SCALE_SOLO: Final = 20.0
#: The greedy rollout policy's weights as the compiled core takes them (the documented defaults).
_ROLLOUT_WEIGHTS: Final = weight_values(DEFAULT_WEIGHTS)
#: Turns a solo rollout plays after its leaf's turn before the heuristic scores it (``"auto"``).
SOLO_CUTOFF: Final = 2
#: A rollout cutoff in turns, None (play to the end) or "auto" (see :class:`Search`).
Cutoff = int | None | Literal["auto"]


@dataclass(frozen=True, slots=True)
class SearchResult:
    """What a search found at its root."""

    action: int
    #: Estimated chance that the player to move wins after ``action`` (mean reward of its node).
    win_chance: float
    iterations: int
    seconds: float
    #: Per root action: (action, visits, mean reward for the player to move), most visited first.
    stats: tuple[tuple[int, int, float], ...]


def _canonical(game: Game) -> Game:
    """A copy of ``game`` to sample determinizations from, so that every sample depends on the
    searching player's view and the search's RNG alone, never on the true hidden order.

    :func:`~clashofdecks.position.sample_determinization` sorts the hidden hand places, the
    automaton deck and the face-down draft pile (R2.4, R7.1) before shuffling them, so a sample
    depends only on the view and the seed.
    """
    g = game.clone()
    g.record_events = False
    return g


def _reward(game: GameEngine) -> float:
    """Player 0's reward at a finished game: 1 win, 0 loss, 1/2 draw."""
    return finished_reward(game)


def _heuristic_reward(game: Game) -> float:
    """Player 0's win chance guessed from the greedy heuristic's score (a logistic fit)."""
    if game.is_over():
        return _reward(game)
    return _logistic(evaluate(game, 0), game.is_solo)


def _logistic(heuristic: float, solo: bool) -> float:
    """The greedy heuristic's score for player 0 turned into a win chance (:func:`_heuristic_reward`)."""
    return logistic_chance(heuristic, EVAL_SCALE_SOLO if solo else EVAL_SCALE_DUEL)


def _learned_reward(game: Game) -> float:
    """Player 0's win chance by the learned evaluation, from the view of the player to move."""
    if game.is_over():
        return _reward(game)
    seat = game.current_player
    chance = shipped_model().win_chance(game, seat)
    return chance if seat == 0 else 1.0 - chance


def _deck_reward(game: Game) -> float:
    """Player 0's win chance by the deck evaluation, in a duel whose setup has just ended."""
    return shipped_deck_model().game_chance(game, 0)


def candidate_builds(rng: random.Random, count: int = BUILD_CANDIDATES) -> list[int]:
    """Custom build actions (R2.5) worth searching: the ten best cards by the greedy ranking, then
    variants that swap one or two of them for other cards (distinct, in a seeded order)."""
    best = list(CARD_RANKING[:DECK_SIZE_CUSTOM])
    rest = list(CARD_RANKING[DECK_SIZE_CUSTOM:])
    out = [BUILD_BASE + build_rank(best)]
    tries = 0
    while len(out) < count and tries < 100 * count:
        tries += 1
        deck = best[:]
        for _ in range(1 + rng.randrange(2)):
            deck[rng.randrange(DECK_SIZE_CUSTOM)] = rest[rng.randrange(len(rest))]
        if len(set(deck)) == DECK_SIZE_CUSTOM:
            action = BUILD_BASE + build_rank(deck)
            if action not in out:
                out.append(action)
    return out


def _result(children: Iterable[tuple[int, int, float]], iterations: int, elapsed: float) -> SearchResult:
    """The result from the root's children as (action, visits, summed rewards)."""
    stats = sorted(
        ((a, visits, wins / visits if visits else 0.0) for a, visits, wins in children),
        key=lambda s: (-s[1], -s[2], s[0]),
    )
    best = stats[0]
    return SearchResult(best[0], best[2], iterations, elapsed, tuple(stats))


class Search:
    """UCT over a tree of actions, from determinizations (``perfect_information=False``) or from
    copies of the true state (``True``).

    ``c`` is the exploration constant; ``rollout`` is ``"random"`` (uniform over legal actions, the
    benchmark's policy) or ``"greedy"`` (the one-ply greedy heuristic in the play phase, setup choices
    at random: slower, stronger).
    ``cutoff`` (None: play to the end) stops a rollout once ``cutoff`` turns after the leaf's turn
    are over and scores the position with the greedy heuristic turned into a win chance
    (:func:`_heuristic_reward`); ``cutoff=0`` finishes the leaf's own turn only.  ``"auto"`` (the
    default) plays duels to the end and cuts solo rollouts after :data:`SOLO_CUTOFF` turns: random
    play almost never beats the automaton, so full random rollouts say little there.
    ``evaluation`` scores cut-off rollouts: ``"heuristic"`` (above) or ``"learned"`` (the shipped
    learned evaluation's win chance for the player to move, :mod:`.evaluation`).
    ``mix`` (0 to 1, default 0) also scores each leaf of the play phase (the position the tree walk
    ends in, before its rollout) with ``evaluation`` and backs up ``(1 - mix) x`` the rollout's
    reward ``+ mix x`` the leaf's, as AlphaGo mixed its value network with rollouts; a leaf in the
    setup stage keeps the rollout's reward.
    ``setup`` scores a rollout from the setup stage: ``"rollout"`` plays on as above;
    ``"learned"`` (duels; solo games play on) stops when the setup ends and scores both decks with
    the deck evaluation (:mod:`.deck_evaluation`); the tree then ends there too.
    """

    def __init__(
        self,
        *,
        c: float = DEFAULT_C,
        rollout: str = "random",
        cutoff: Cutoff = "auto",
        perfect_information: bool = False,
        evaluation: str = "heuristic",
        mix: float = 0.0,
        setup: str = "rollout",
        native: bool | None = None,
    ) -> None:
        if not 0.0 <= mix <= 1.0:
            raise ValueError(f"mix is a weight between 0 and 1, not {mix}")
        if native and not NATIVE_AVAILABLE:
            raise ValueError("native=True needs the compiled core (docs/native.md)")
        if cutoff != "auto" and cutoff is not None and (not isinstance(cutoff, int) or cutoff < 0):
            raise ValueError(f"the rollout cutoff must be >= 0 turns, not {cutoff}")
        if rollout not in ROLLOUTS:
            raise ValueError(f"unknown rollout policy {rollout!r} (choose {' or '.join(ROLLOUTS)})")
        if c < 0:
            raise ValueError(f"the exploration constant must be >= 0, not {c}")
        if evaluation not in EVALUATIONS:
            raise ValueError(f"unknown evaluation {evaluation!r} (choose {' or '.join(EVALUATIONS)})")
        if setup not in SETUP_SCORES:
            raise ValueError(f"unknown setup scoring {setup!r} (choose {' or '.join(SETUP_SCORES)})")
        self.setup = setup
        self.c = c
        self.evaluation = evaluation
        self._score: Callable[[Game], float] = (
            _learned_reward if evaluation == "learned" else _heuristic_reward
        )
        self.mix = mix
        self.rollout = rollout
        self.cutoff = cutoff
        self.perfect_information = perfect_information
        #: Random and greedy rollouts run in the compiled core when it is available (``native=None``):
        #: the same actions for the same generator, so the search's result does not depend on it.
        self.native = NATIVE_AVAILABLE if native is None else native

    # ------------------------------------------------------------------ the search

    def run(
        self,
        game: GameEngine,
        rng: random.Random,
        *,
        iterations: int | None = 1000,
        seconds: float | None = None,
    ) -> SearchResult:
        """Search from ``game`` (not changed, either engine) for ``game.current_player``; stop after
        ``iterations`` or ``seconds``, whichever comes first (at least one iteration).

        The play phase with random rollouts runs the engine's own search (the whole tree in the compiled
        core when :attr:`native`, the same statistics as in Python); the setup stage and greedy rollouts
        keep the tree here, their iterations and rollouts in the engine's primitives."""
        me = game.current_player
        if me < 0:
            raise ValueError("the game is over: nothing to search")
        if iterations is None and seconds is None:
            raise ValueError("a search needs a budget: iterations or seconds")
        if iterations is not None and iterations < 1:
            raise ValueError(f"a search needs at least 1 iteration, not {iterations}")
        # A canonical copy: every determinization depends on the player's view and ``rng`` alone.
        base = game.to_game(record_events=False)
        if self.rollout != "greedy":
            base.keep_undo = False  # iterations only go forward: no undo records (greedy rollouts undo)
        t0 = time.perf_counter()
        deadline = None if seconds is None else t0 + seconds
        play_phase = base.phase != "setup"
        if play_phase and self.rollout == "random" and (type(rng) is random.Random or not self.native):
            engine = in_engine(base, compiled=self.native)
            engine.keep_undo = False
            done, stats = engine.search(
                rng,
                iterations=iterations,
                deadline=deadline,
                clock=time.perf_counter,
                c=self.c,
                perfect_information=self.perfect_information,
                cutoff_turns=self._cutoff_turns(base),
                max_rollout_actions=MAX_ROLLOUT_ACTIONS,
                score=self._evaluator(),
                mix=self.mix,
            )
            return _result(stats, done, time.perf_counter() - t0)
        start = in_engine(base, compiled=self.native)
        if start is not base:
            start.keep_undo = False  # a converted copy: the core's rollouts need no undo records

        def begin() -> GameEngine:
            return start.clone() if self.perfect_information else start.sample_determinization(me, rng)

        done, children = search_tree(
            begin,
            rng,
            me,
            self._tree_settings(base),
            iterations=iterations,
            deadline=deadline,
            clock=time.perf_counter,
        )
        return _result(children, done, time.perf_counter() - t0)

    def _cutoff_turns(self, game: GameEngine) -> int | None:
        cutoff = self.cutoff
        if cutoff == "auto":
            return SOLO_CUTOFF if game.is_solo else None
        return cutoff

    def _evaluator(self) -> Evaluator:
        """How an unfinished rollout is scored, as data for the engines: computed in the compiled core
        (the same double) unless a test replaced the score by another function."""
        score = self._score
        if score is _learned_reward:
            return Evaluator(score, _learned_compiled)
        if score is _heuristic_reward:
            return Evaluator(score, _heuristic_compiled)
        return Evaluator(score)

    def _tree_settings(self, game: GameEngine) -> TreeSettings:
        """The settings of the Python tree (:func:`~clashofdecks.rules.playout.search_tree`) for a search
        from ``game``: setup rollouts end where the setup does, scored by the deck evaluation (duels)."""
        learned_setup = self.setup == "learned" and game.phase == "setup" and not game.is_solo
        setup_end = _deck_reward if learned_setup else None
        return TreeSettings(
            c=self.c,
            cutoff_turns=self._cutoff_turns(game),
            max_rollout_actions=MAX_ROLLOUT_ACTIONS,
            evaluator=self._evaluator(),
            mix=self.mix,
            greedy=_ROLLOUT_WEIGHTS if self.rollout == "greedy" else None,
            builds=candidate_builds,
            setup_end=setup_end,
            play_engine=_in_core if self.native else None,
        )

    def _rollout(self, game: GameEngine, rng: random.Random) -> float:
        """Player 0's reward of one rollout from ``game`` (changed) by this search's policy."""
        return rollout_reward(game, rng, self._tree_settings(game))


def _in_core(game: GameEngine) -> GameEngine:
    return in_engine(game, compiled=True)


def _heuristic_compiled(game: GameEngine) -> CompiledScore:
    return _ROLLOUT_WEIGHTS, EVAL_SCALE_SOLO if game.is_solo else EVAL_SCALE_DUEL


def _learned_compiled(game: GameEngine) -> CompiledScore:
    return shipped_model().packed(game)


def _greedy_choice(d: Game, legal: Sequence[int], rnd: Callable[[], float]) -> int:
    """The one-ply greedy move on a determinized state (ties broken at random)."""
    return greedy_choice(d, legal, rnd, DEFAULT_WEIGHTS)


@dataclass(slots=True)
class SearchTally:
    """What an agent's searches cost since its last reset: decisions searched (forced moves are
    not), iterations and wall-clock seconds.  With a time budget the iterations per decision show
    how much search the machine gave it (``clash arena --log``)."""

    decisions: int = 0
    iterations: int = 0
    seconds: float = 0.0

    def add(self, result: SearchResult) -> None:
        self.decisions += 1
        self.iterations += result.iterations
        self.seconds += result.seconds


class _SearchAgent(Agent):
    """Shared body of the two search agents."""

    perfect_information = False

    def __init__(
        self,
        seed: int | None = 0,
        *,
        iterations: int | None = 1000,
        seconds: float | None = None,
        c: float = DEFAULT_C,
        rollout: str = "random",
        cutoff: Cutoff = "auto",
        eval: str = "heuristic",  # the spec setting's name (ismcts:200,eval=learned)
        mix: float = 0.0,
        setup: str = "rollout",
    ) -> None:
        if iterations is not None and iterations < 1:
            raise ValueError(f"iterations must be at least 1, not {iterations}")
        if seconds is not None and seconds <= 0:
            raise ValueError(f"seconds must be positive, not {seconds}")
        if iterations is None and seconds is None:
            raise ValueError("a search agent needs a budget: iterations or seconds")
        if setup not in SETUP_CHOICES:
            raise ValueError(f"unknown setup choice {setup!r} (choose {', '.join(SETUP_CHOICES)})")
        #: ``setup=random``: setup decisions at random, without a search (varied training decks).
        self.random_setup = setup == "random"
        self.iterations = iterations
        self.seconds = seconds
        self.search = Search(
            c=c,
            rollout=rollout,
            cutoff=cutoff,
            perfect_information=self.perfect_information,
            evaluation=eval,
            mix=mix,
            setup="rollout" if self.random_setup else setup,
        )
        self._seed = seed
        self._rng = random.Random(seed)
        self.last: SearchResult | None = None
        self.tally = SearchTally()

    def reset(self, seed: int | None = None) -> None:
        self._seed = seed
        self._rng = random.Random(seed)
        self.tally = SearchTally()

    def act(self, game: GameEngine) -> int:
        if game.current_player < 0:
            raise no_decision_error(game, self.name)
        legal = game.legal_actions()
        building = game.decision_kind is _BUILD
        if not building and len(legal) == 1:
            self.last = None
            return legal[0]
        if not legal:
            raise no_decision_error(game, self.name)
        rng = random.Random(self._rng.getrandbits(64))
        if self.random_setup and game.phase == "setup":
            self.last = None
            return _random_build(rng.random) if building else legal[rng.randrange(len(legal))]
        self.last = self.search.run(game, rng, iterations=self.iterations, seconds=self.seconds)
        self.tally.add(self.last)
        return self.last.action


class ISMCTSAgent(_SearchAgent):
    """``ismcts``: information-set MCTS from the player's own view (fair: R9)."""

    name = "ismcts"
    perfect_information = False


class MCTSAgent(_SearchAgent):
    """``mcts``: the same search on the true state (sees hidden cards: analysis and reference only)."""

    name = "mcts"
    perfect_information = True


def hint(game: Game, seconds: float = 2.0, *, seed: int = 0) -> tuple[int, float]:
    """The best action found by a fair search (ISMCTS from the current player's view) in about
    ``seconds``, with the player's chance of winning after it by the learned evaluation
    (:func:`.evaluation.chance_after`: from the player's view only)."""
    player = game.current_player
    if player < 0:
        raise no_decision_error(game, "hint")
    search = Search(setup="learned")  # a duel's draft picks valued by the deck evaluation
    result = search.run(game, random.Random(seed), iterations=None, seconds=seconds)
    return result.action, chance_after(game, player, result.action, seed=seed)


def position_after_random_turns(seed: int = 1, turns: int = 6) -> Game:
    """The benchmark position: a seeded random duel (engine.md) after ``turns`` complete turns."""
    rng = random.Random(seed)
    game = Game.random_duel(seed, record_events=False)

    def uniform(g: Game) -> int:
        legal = g.legal_actions()
        return legal[rng.randrange(len(legal))]

    for _step in game_steps(game, [uniform, uniform], stop=lambda g: g.turn > turns):
        pass
    if game.is_over():
        raise ValueError(f"random duel {seed} ended before turn {turns + 1}; choose another seed")
    return game


def ismcts_iterations_per_second(
    seed: int = 1, iterations: int = 3000, *, native: bool = False, rollout: str = "random"
) -> float:
    """ISMCTS iterations per second on one core (random rollouts to the end of the game) from the
    position after 6 turns of the seeded random duel game ``seed`` (``clash bench``); ``native``:
    rollouts in the compiled core; ``rollout="greedy"``: greedy rollouts instead.

    Measured in CPU time of this process, so a busy machine does not lower the figure.
    """
    game = position_after_random_turns(seed)
    search = Search(cutoff=None, native=native, rollout=rollout)
    start = time.process_time()
    result = search.run(game, random.Random(seed), iterations=iterations)
    return result.iterations / max(time.process_time() - start, 1e-9)
