"""The search tree in the compiled core (``NativeGame.search``, docs/native.md) against the Python tree.

``Search.run`` with the core and random rollouts runs the whole UCT loop in C (determinization, tree
walk, UCB, rollout) with CPython's Mersenne Twister re-implemented in C.  For the same seed and
iteration budget it must give exactly the statistics of the Python tree (``Search(native=False)``:
actions, visits and mean rewards as floats) and leave the caller's generator in the same state,
over random duel and solo positions of every start (random rulesets and threat options), perfect
information, several exploration constants, cut-off rollouts scored by the heuristic or the learned
evaluation, positions one action from the end and short games that end inside the tree.
"""

from __future__ import annotations

import os
import random
import time
from collections.abc import Callable
from typing import Any

import pytest

from clashofdecks import native
from clashofdecks.rules import Game

if not native.AVAILABLE:
    if os.environ.get("CLASH_REQUIRE_NATIVE") == "1":
        pytest.fail(f"CLASH_REQUIRE_NATIVE=1 but {native.engine_notice()}", pytrace=False)
    pytest.skip(
        f"{native.engine_notice()}: the search tree in C is not there to test", allow_module_level=True
    )

from clashofdecks.agents import mcts
from clashofdecks.agents.evaluation import shipped_model
from clashofdecks.agents.mcts import Search, SearchResult
from clashofdecks.native import NativeGame
from clashofdecks.native_check import KINDS, start_game


@pytest.fixture
def core_searches(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Counts the searches run by ``NativeGame.search`` (so a test knows the C tree really ran)."""
    calls: list[int] = []
    real = NativeGame.search

    def counting(
        self: NativeGame, *args: Any, **kwargs: Any
    ) -> tuple[int, tuple[tuple[int, int, float], ...]]:
        calls.append(1)
        return real(self, *args, **kwargs)

    monkeypatch.setattr(NativeGame, "search", counting)
    return calls


def both_trees(
    game: Game, seed: int, iterations: int, c_settings: dict[str, Any] | None = None, **settings: Any
) -> tuple[SearchResult, SearchResult]:
    """The Python tree's and the C tree's results for the same seed; the generators' states after both
    searches must be equal.  ``c_settings`` overrides settings of the C side only (a broken twin)."""
    py_rng, c_rng = random.Random(seed), random.Random(seed)
    before = game.state()
    py = Search(native=False, **settings).run(game, py_rng, iterations=iterations)
    in_c = Search(native=True, **{**settings, **(c_settings or {})}).run(game, c_rng, iterations=iterations)
    assert game.state() == before, "a search changed the searched game"
    if c_settings is None:
        assert in_c.stats == py.stats, f"seed {seed}: the C tree chose differently"
        assert (in_c.action, in_c.win_chance, in_c.iterations) == (py.action, py.win_chance, py.iterations)
        assert c_rng.getstate() == py_rng.getstate(), f"seed {seed}: the generators differ after the search"
    return py, in_c


def position(kind: str, seed: int, actions: int) -> Game | None:
    """A game of ``kind`` (random ruleset and threat) after up to ``actions`` random actions, or None
    if it ended by then."""
    rng = random.Random(seed)
    game = start_game(kind, seed, rng)
    for _ in range(actions):
        if game.is_over():
            return None
        game.apply(rng.choice(game.legal_actions()))
    return None if game.is_over() else game


@pytest.mark.parametrize("kind", KINDS)
def test_the_c_tree_searches_as_the_python_tree_from_every_start(kind: str, core_searches: list[int]) -> None:
    """Random positions of every start, at several depths: ISMCTS with the automatic cut-off (solo:
    cut after two turns, scored by the heuristic; duel: to the end)."""
    searched = 0
    for seed in range(8):
        game = position(kind, 100 * seed + 7, (0, 3, 12, 30)[seed % 4])
        if game is None:
            continue
        both_trees(game, seed, 70)
        searched += 1
    assert searched >= 5 and len(core_searches) == searched


@pytest.mark.parametrize(
    "settings",
    [
        {"perfect_information": True},
        {"perfect_information": True, "cutoff": 1},
        {"c": 0.0},
        {"c": 0.25},
        {"c": 1.9},
        {"cutoff": 0},
        {"cutoff": 3, "evaluation": "learned"},
        {"cutoff": None},
        {"evaluation": "learned"},
        {"cutoff": None, "evaluation": "learned", "mix": 0.5},
        {"mix": 0.3},
        {"cutoff": 1, "evaluation": "learned", "mix": 1.0},
    ],
)
def test_the_c_tree_searches_as_the_python_tree_with_every_setting(
    settings: dict[str, Any], core_searches: list[int]
) -> None:
    searched = 0
    for seed in range(6):
        kind = ("random_duel", "duel_draft", "solo_precon", "solo_draft", "duel_custom", "duel_precon")[seed]
        game = position(kind, 31 * seed + 1, 4 + 5 * seed)
        if game is None:
            continue
        both_trees(game, seed + 50, 60, **settings)
        searched += 1
    assert searched >= 4 and len(core_searches) == searched


def test_many_seeds_agree() -> None:
    """Every start and setting in turn, over ``CLASH_NATIVE_SEARCH_SEEDS`` seeds (default 40; the
    longer run in docs/native.md used 1,500)."""
    settings: list[dict[str, Any]] = [
        {},
        {"perfect_information": True},
        {"c": 0.0},
        {"c": 1.3},
        {"cutoff": 0},
        {"cutoff": 2, "evaluation": "learned"},
        {"cutoff": None},
        {"cutoff": None, "evaluation": "learned", "mix": 0.5},
    ]
    searched = 0
    for seed in range(int(os.environ.get("CLASH_NATIVE_SEARCH_SEEDS", "40"))):
        game = position(KINDS[seed % len(KINDS)], 1000 + seed, seed % 37)
        if game is not None:
            both_trees(game, seed, 100, **settings[seed % len(settings)])
            searched += 1
    assert searched > 0


def positions_near_the_end(seed: int) -> tuple[Game, Game]:
    """From one random game: the position one action from its end (an action there ends it) and the
    position about six actions earlier (games that end inside the tree)."""
    rng = random.Random(seed)
    game = start_game(KINDS[seed % len(KINDS)], seed, rng)
    history: list[Game] = []
    while not game.is_over():
        history.append(game.clone())
        game.apply(rng.choice(game.legal_actions()))
    last = history[-1]
    return last, history[max(0, len(history) - 6)]


def test_positions_at_the_end_of_the_game_are_searched_alike(core_searches: list[int]) -> None:
    """Leaves that are finished games (rewards without a rollout), at the root's children and deeper."""
    searched = 0
    for seed in range(12):
        last, earlier = positions_near_the_end(seed)
        ends = [a for a in last.legal_actions() if _ends(last, a)]
        assert ends, "the last position has an action that ends the game"
        both_trees(last, seed, 40, cutoff=None)
        both_trees(earlier, seed, 150, cutoff=None)
        both_trees(earlier, seed, 90, perfect_information=True)
        searched += 3
    assert len(core_searches) == searched


def test_short_games_end_inside_the_tree() -> None:
    """A turn cap of two turns: most iterations of a long search reach the end of the game in the tree."""
    from clashofdecks.options import Ruleset

    for seed in range(4):
        game = Game.random_duel(seed, ruleset=Ruleset(max_turns=2), record_events=False)
        for _ in range(seed * 3):
            if game.is_over():
                break
            game.apply(game.legal_actions()[-1])
        if not game.is_over():
            both_trees(game, seed, 400, cutoff=None)


def _ends(game: Game, action: int) -> bool:
    g = game.clone()
    g.apply(action)
    return g.is_over()


def test_a_broken_twin_is_caught() -> None:
    """The comparison can fail: another exploration constant on the C side gives other statistics."""
    differ = 0
    for seed in range(4):
        game = position("random_duel", seed, 6)
        assert game is not None
        py, in_c = both_trees(game, seed, 120, c_settings={"c": 0.8}, c=0.7)
        differ += py.stats != in_c.stats
    assert differ >= 3


def test_the_searches_in_the_setup_stage_and_with_greedy_rollouts_keep_the_python_tree(
    core_searches: list[int],
) -> None:
    game = Game.new(mode="duel", format="draft", seed=4, record_events=False)
    both_trees(game, 4, 40)
    after_setup = position("duel_precon", 5, 2)
    assert after_setup is not None
    both_trees(after_setup, 5, 8, rollout="greedy")
    assert core_searches == []


def test_another_generator_class_keeps_the_python_tree(core_searches: list[int]) -> None:
    class Generator(random.Random):
        pass

    game = position("random_duel", 3, 5)
    assert game is not None
    plain = Search(native=True).run(game, random.Random(3), iterations=50)
    sub = Search(native=True).run(game, Generator(3), iterations=50)
    assert plain.stats == sub.stats and len(core_searches) == 1


def test_visits_add_up_and_a_time_budget_stops_the_c_tree() -> None:
    game = position("solo_draft", 2, 3)
    assert game is not None
    result = Search(native=True).run(game, random.Random(1), iterations=None, seconds=0.05)
    assert result.iterations >= 1 and sum(visits for _, visits, _ in result.stats) == result.iterations
    assert all(0.0 <= mean <= 1.0 for _, _, mean in result.stats)


def test_a_failing_evaluation_stops_the_search_with_its_error(monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(game: Game) -> float:
        raise RuntimeError("evaluation failed")

    game = position("solo_precon", 1, 2)
    assert game is not None
    search = Search(native=True)
    monkeypatch.setattr(search, "_score", broken)
    with pytest.raises(RuntimeError, match="evaluation failed"):
        search.run(game, random.Random(0), iterations=20)


def test_bad_arguments_are_refused_clearly() -> None:
    nat = NativeGame.random_duel(1)
    settings: dict[str, Any] = {
        "iterations": 5,
        "deadline": None,
        "clock": lambda: 0.0,
        "c": 0.7,
        "perfect_information": False,
        "cutoff_turns": None,
        "max_rollout_actions": mcts.MAX_ROLLOUT_ACTIONS,
        "score": lambda g: 0.5,
    }

    class Generator(random.Random):
        pass

    with pytest.raises(TypeError, match=r"random\.Random"):
        nat.search(Generator(1), **settings)
    with pytest.raises(ValueError, match="budget"):
        nat.search(random.Random(1), **{**settings, "iterations": None})
    with pytest.raises(ValueError, match="-3 iterations"):
        nat.search(random.Random(1), **{**settings, "iterations": -3})
    game = position("random_duel", 1, 0)
    assert game is not None
    for on in (False, True):
        with pytest.raises(ValueError, match="at least 1 iteration"):
            Search(native=on).run(game, random.Random(1), iterations=0)
    with pytest.raises(ValueError, match=">= 0"):
        nat.search(random.Random(1), **{**settings, "c": -1.0})
    core = nat._core
    with pytest.raises(ValueError, match="625"):
        core.search(0, (1, 2, 3), 5, None, lambda: 0.0, 0.7, False, True, -1, 10, lambda g: 0.5)
    with pytest.raises(ValueError, match="not the one to move"):
        core.search(
            1, random.Random(1).getstate()[1], 5, None, lambda: 0.0, 0.7, False, True, -1, 10, lambda g: 0.5
        )
    rng = random.Random(9)
    state = rng.getstate()
    nat.search(rng, **settings)
    assert rng.getstate() != state  # the search drew from the caller's generator


def ticks_during(search: Callable[[], tuple[int, Any, Any]]) -> tuple[int, int, float]:
    """Run ``search`` (a ``Core.search`` call) while another thread appends a tick every 0.5 ms (the
    interpreter's switch interval lowered to 0.1 ms); returns the iterations done, the ticks counted
    during the search and its seconds.  A search that never let go of the interpreter would leave
    at most 2 ticks (one switch before it, one after it)."""
    import sys
    import threading

    ticks: list[int] = []
    finished = threading.Event()

    def ticker() -> None:
        while not finished.is_set():
            ticks.append(1)
            finished.wait(0.0005)

    interval = sys.getswitchinterval()
    sys.setswitchinterval(0.0001)
    thread = threading.Thread(target=ticker)
    thread.start()
    try:
        before = len(ticks)
        t0 = time.perf_counter()
        done, _, _ = search()
        seconds = time.perf_counter() - t0
        during = len(ticks) - before
    finally:
        finished.set()
        thread.join()
        sys.setswitchinterval(interval)
    return done, during, seconds


def test_other_threads_run_during_a_search_in_c() -> None:
    """The C loop lets other threads take the interpreter every 8 iterations (a hint computed in a
    thread must not freeze a server's event loop), as the Python loop does every switch interval.
    ``Core.search`` is called directly so that no Python code runs during the search but the score
    callback, which is never called here.

    The search is long (200,000 iterations, about 2 s on an idle core) because with a Python score
    the hand-over is rare: an empty release of the interpreter between batches lets a waiting thread
    in only now and then (5-74 ticks a second measured on the idle machine; 20,000 iterations gave 0
    ticks in some runs)."""
    game = position("random_duel", 1, 6)
    assert game is not None
    core = NativeGame.from_game(game)._core
    mt_state = random.Random(1).getstate()[1]

    def unused(core: object) -> float:  # rollouts to the end: nothing to score
        raise AssertionError("no cut-off here")

    done, during, _ = ticks_during(
        lambda: core.search(
            game.current_player, mt_state, 200000, None, time.perf_counter, 0.7, False, True, -1, 2000, unused
        )
    )
    assert done == 200000 and during > 2, f"the search held the interpreter throughout ({during} ticks)"


def test_other_threads_run_freely_during_a_search_scored_in_the_core() -> None:
    """With the cut-off scored in C (the learned evaluation, packed) the search lets go of the
    interpreter for every batch of 8 iterations, so the ticking thread keeps ticking."""
    rng = random.Random(1)
    game = start_game("duel_draft", 1, rng)
    while game.turn < 3:
        game.apply(rng.choice(game.legal_actions()))
    core = NativeGame.from_game(game)._core
    packed = shipped_model().packed(game)
    mt_state = random.Random(1).getstate()[1]
    done, during, seconds = ticks_during(
        lambda: core.search(
            game.current_player, mt_state, 60000, None, time.perf_counter, 0.7, False, True, 2, 2000, packed
        )
    )
    assert done == 60000
    assert during > 20, f"the search held the interpreter ({during} ticks in {seconds:.2f} s)"
