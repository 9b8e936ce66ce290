"""The learned evaluation in the compiled core (``NativeGame.learned_features``, ``learned_win_chance``,
and the search's cut-off scored in C, docs/native.md) against the Python model (agents/evaluation.py).

The core must give the same doubles, not close ones: the search's statistics, hence its choices,
depend on every bit of a cut-off's value (``tests/test_native_search.py`` compares whole searches).
Positions: every start of ``native_check`` (random rulesets, solo threats with every option), at many
depths, judged by both seats (the seat to move and the other, whose duel second stage differs).
"""

from __future__ import annotations

import os
import random
import time
from collections.abc import Callable

import pytest

from clashofdecks import native

if not native.AVAILABLE:
    if os.environ.get("CLASH_REQUIRE_NATIVE") == "1":
        pytest.fail(f"CLASH_REQUIRE_NATIVE=1 but {native.engine_notice()}", pytrace=False)
    pytest.skip(f"{native.engine_notice()}: the core is not there to test", allow_module_level=True)

from clashofdecks.agents.evaluation import EvaluationModel, features, shipped_model
from clashofdecks.agents.greedy import DEFAULT_WEIGHTS, weight_values
from clashofdecks.agents.mcts import Search
from clashofdecks.native import NativeGame
from clashofdecks.native_check import KINDS, start_game
from clashofdecks.options import Threat
from clashofdecks.rules import Game


def positions(kind: str, seed: int, every: int = 3) -> list[Game]:
    """Positions of one random game of ``kind``: every ``every``-th action from the first turn on."""
    rng = random.Random(seed)
    game = start_game(kind, seed, rng)
    out: list[Game] = []
    step = 0
    while not game.is_over():
        if step % every == 0:
            out.append(game.clone())
        game.apply(rng.choice(game.legal_actions()))
        step += 1
    out.append(game)  # finished: 1, 0 or 1/2
    return out


@pytest.mark.parametrize("kind", KINDS)
def test_features_and_win_chance_are_the_same_doubles(kind: str) -> None:
    model = shipped_model()
    compared = 0
    for seed in range(12):
        for game in positions(kind, 7 * seed + 1):
            nat = NativeGame.from_game(game)
            packed = model.packed(game)
            for seat in (0, 1):
                if not game.is_over():
                    assert nat.learned_features(seat, packed) == tuple(features(game, seat)), (
                        kind,
                        seed,
                        seat,
                    )
                assert nat.learned_win_chance(seat, packed) == model.win_chance(game, seat), (
                    kind,
                    seed,
                    seat,
                )
                compared += 1
    assert compared > 120


def test_a_changed_coefficient_is_seen() -> None:
    """Not vacuous: a model whose one coefficient differs by 1e-12 gives other doubles in the core."""
    model = shipped_model()
    data = model.to_dict()
    data["coefficients"]["duel"][28] += 1e-12
    twin = EvaluationModel.from_dict(data)
    game = positions("duel_draft", 3)[5]
    nat = NativeGame.from_game(game)
    assert features(game, 0)[28] != 0.0
    assert nat.learned_win_chance(0, twin.packed(game)) == twin.win_chance(game, 0)
    assert nat.learned_win_chance(0, twin.packed(game)) != nat.learned_win_chance(0, model.packed(game))


def test_a_malformed_packed_model_is_refused_clearly() -> None:
    nat = NativeGame.random_duel(1)
    packed = shipped_model().packed(nat)
    with pytest.raises(ValueError, match="37 numbers"):
        nat.learned_win_chance(0, ((1.0,) * 36, *packed[1:]))
    with pytest.raises(ValueError, match="out of range"):
        nat.learned_win_chance(0, (*packed[:3], (99,) * 15, *packed[4:]))
    with pytest.raises(ValueError, match="three second stages"):
        nat.learned_win_chance(0, (*packed[:2], (None,), *packed[3:]))
    with pytest.raises(ValueError, match="seat is 0 or 1"):
        nat.learned_win_chance(2, packed)
    with pytest.raises(TypeError):
        nat.learned_win_chance(0, ("no",))  # type: ignore[arg-type]


def test_the_search_scores_cut_offs_in_the_core_as_in_python(monkeypatch: pytest.MonkeyPatch) -> None:
    """The learned and the heuristic cut-off are scored in C (no call back into Python), with the
    statistics of a search whose score is the Python function."""
    rng = random.Random(4)
    game = start_game("duel_draft", 4, rng)
    while game.turn < 4:
        game.apply(rng.choice(game.legal_actions()))
    for evaluation in ("learned", "heuristic"):
        in_c = Search(native=True, cutoff=2, evaluation=evaluation).run(
            game, random.Random(2), iterations=300
        )
        called: list[int] = []
        search = Search(native=True, cutoff=2, evaluation=evaluation)
        python_score = search._score

        def counted(
            g: Game, python_score: Callable[[Game], float] = python_score, called: list[int] = called
        ) -> float:
            called.append(1)
            return python_score(g)

        monkeypatch.setattr(search, "_score", counted)
        through_python = search.run(game, random.Random(2), iterations=300)
        assert called, "the twin must score in Python"
        assert in_c.stats == through_python.stats, evaluation


def test_bad_heuristic_settings_are_refused() -> None:
    nat = NativeGame.random_duel(2)
    args = (
        nat.current_player,
        random.Random(1).getstate()[1],
        5,
        None,
        time.perf_counter,
        0.7,
        False,
        True,
        1,
        100,
    )
    with pytest.raises(ValueError, match="scale"):
        nat._core.search(*args, (weight_values(DEFAULT_WEIGHTS), 0.0))
    with pytest.raises(ValueError, match="9 numbers"):
        nat._core.search(*args, ((1.0, 2.0), 12.0))


def test_a_solo_levels_own_second_stage_is_packed_for_the_core() -> None:
    """The core judges a solo game with the second stage the Python model picks for its level."""
    data = shipped_model().to_dict()
    data["stage2"]["solo 3"] = [v * 0.5 for v in data["stage2"]["solo"]]
    model = EvaluationModel.from_dict(data)
    rng = random.Random(3)
    game = Game.new(mode="solo", format="precon", seed=3, threat=Threat.level(3), record_events=False)
    while game.phase == "setup" or game.turn < 3:
        game.apply(rng.choice(game.legal_actions()))
    nat = NativeGame.from_game(game)
    assert nat.learned_win_chance(0, model.packed(game)) == model.win_chance(game, 0)
    assert model.win_chance(game, 0) != shipped_model().win_chance(game, 0)
