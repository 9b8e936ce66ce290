"""Smoke tests of ``clashofdecks.bench`` and ``clash bench``: every benchmark runs with tiny sizes and
reports figures of the right kind.  No timing is asserted (the machine decides those); the counts
that do not depend on the machine (actions and turns per game) are checked against a replay."""

from __future__ import annotations

import json
import math
import random

from click.testing import CliRunner

from clashofdecks import Game, native
from clashofdecks.bench import BenchResult, random_game, run_bench
from clashofdecks.cli import main as cli_main

RATES = (
    "games_per_s_events_off",
    "games_per_s_events_on",
    "actions_per_s",
    "clones_per_s",
    "clone_us",
    "apply_undo_pairs_per_s",
    "apply_undo_us",
)

NATIVE_KEYS = (
    "native_games_per_s",
    "native_actions_per_s",
    "native_actions_per_game",
    "native_turns_per_game",
    "native_games",
    "native_from_python_games_per_s",
    "native_speedup",
)


def _replayed_counts(games: int, seed: int) -> tuple[float, float]:
    """Actions and turns per game of the bench's random games, played here without timing."""
    rng = random.Random(seed)
    actions = turns = 0
    for i in range(games):
        game = Game.random_duel(seed + i, record_events=False)
        while not game.is_over():
            legal = game.legal_actions()
            game.apply(legal[int(rng.random() * len(legal))])
            actions += 1
        turns += game.turn
    return actions / games, turns / games


def test_random_game_plays_a_whole_duel_deterministically() -> None:
    first = random_game(5, random.Random(1), record_events=False)
    assert first == random_game(5, random.Random(1), record_events=True)
    actions, turns = first
    assert isinstance(actions, int) and isinstance(turns, int)
    assert actions >= turns >= 1


def test_run_bench_runs_every_benchmark_with_tiny_sizes() -> None:
    stages: list[str] = []
    result = run_bench(games=4, seed=3, rounds=1, ismcts_iterations=5, progress=stages.append)
    assert isinstance(result, BenchResult) and result.games == 4
    for name in RATES:
        value = getattr(result, name)
        assert isinstance(value, float) and math.isfinite(value) and value > 0, (name, value)
    assert (result.actions_per_game, result.turns_per_game) == _replayed_counts(4, 3)
    assert set(result.extra) == {"ismcts_iterations_per_s"}
    assert result.extra["ismcts_iterations_per_s"] > 0
    assert result.machine and result.python.count(".") == 2
    native_stages = ["compiled core: random games inside C", "compiled core: random games driven from Python"]
    assert stages == [
        "random games, events off",
        "random games, events on",
        "apply+undo",
        "clone",
        *(native_stages if native.AVAILABLE else []),
        "ISMCTS iterations (random rollouts)",
        *(["ISMCTS iterations, rollouts in the compiled core"] if native.AVAILABLE else []),
        "session autosave",
    ]
    data = result.to_dict()
    assert set(data) == {
        *RATES,
        *NATIVE_KEYS,
        "actions_per_game",
        "turns_per_game",
        "extra",
        "machine",
        "python",
        "games",
        "engine",
        "native_ismcts_iterations_per_s",
        "autosave_ms_early",
        "autosave_ms_late",
    }
    assert result.autosave_ms_early > 0 and result.autosave_ms_late > 0
    assert data["engine"] == native.engine_notice()
    assert json.loads(json.dumps(data)) == data


def test_native_figures_count_the_compiled_cores_own_games() -> None:
    """With the compiled core: its figures are rates over games it really played (counts replayed);
    without it: every native figure is None and the engine notice says why."""
    result = run_bench(games=3, seed=2, rounds=1, ismcts_iterations=0)
    if not native.AVAILABLE:
        assert result.native_games_per_s is None and result.native_games == 0
        assert "pure Python" in result.engine
        return
    n = result.native_games
    actions, turns, *_ = native.random_duel_playouts(2, n, 2)
    assert (result.native_actions_per_game, result.native_turns_per_game) == (actions / n, turns / n)
    for key in NATIVE_KEYS:
        assert getattr(result, key) > 0, key


def test_run_bench_skips_ismcts_when_asked() -> None:
    result = run_bench(games=1, seed=1, rounds=2, ismcts_iterations=0)
    assert result.extra == {} and result.games == 1 and result.games_per_s_events_on > 0


def test_clash_bench_json_and_table() -> None:
    runner = CliRunner()
    out = runner.invoke(
        cli_main, ["bench", "--games", "2", "--rounds", "1", "--ismcts-iterations", "0", "--json"]
    )
    assert out.exit_code == 0, out.output
    data = json.loads(out.output)
    assert data["games"] == 2 and data["extra"] == {}
    assert all(data[name] > 0 for name in RATES)
    table = runner.invoke(cli_main, ["bench", "--games", "2", "--rounds", "1", "--ismcts-iterations", "3"])
    assert table.exit_code == 0, table.output
    for label in ("random games/s, events off", "apply+undo pair", "clone()", "ismcts iterations per s"):
        assert label in table.output, table.output
    assert "engine: " in table.output
    assert ("native: random games/s" in table.output) == native.AVAILABLE


def test_clash_bench_refuses_bad_sizes_without_a_traceback() -> None:
    for args in (["--games", "0"], ["--rounds", "0"], ["--ismcts-iterations", "-1"]):
        out = CliRunner().invoke(cli_main, ["bench", *args])
        assert out.exit_code == 2, out.output
        assert "Invalid value" in out.output and "Traceback" not in out.output
