"""Batch simulation (``clashofdecks.simulation``) and ``clash simulate``: determinism across worker counts,
the greedy-vs-random strength check, the interval math, records, and the command line."""

from __future__ import annotations

import gc
import json
import math
import tracemalloc
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path

import pytest
from click.testing import CliRunner

from clashofdecks.cli import main
from clashofdecks.record import GameRecord, replay
from clashofdecks.simulation.batch import MAX_BATCH_GAMES, SimConfig, Totals, run_games, simulate, summarize
from clashofdecks.simulation.game import GameResult, GameSpec, SimulationError, play_game
from clashofdecks.simulation.runner import MAX_GAMES, MAX_WORKERS, LocalBackend, run_specs
from clashofdecks.simulation.seeds import derive_seed
from clashofdecks.simulation.stats import wilson_interval


def test_results_identical_for_one_and_two_workers() -> None:
    """Same seed, 1 vs 2 worker processes: the very same games (seeds, seats, winners, lengths)."""
    for config in (
        SimConfig(mode="duel", agents=("greedy", "random"), games=24, seed=11, format="draft"),
        SimConfig(mode="solo", agents=("greedy",), games=12, seed=5, level=1, format="precon"),
    ):
        one = run_games(config, workers=1)
        two = run_games(config, workers=2)
        assert one == two
        assert [r.index for r in one] == list(range(config.games))
        assert summarize(config, one).to_dict() == summarize(config, two).to_dict()


def test_greedy_beats_random_in_at_least_95_percent_of_400_duels() -> None:
    """Issue 4: greedy wins >= 95% of 400 duel games against random (draft format, fixed seed)."""
    summary = simulate(SimConfig(mode="duel", agents=("greedy", "random"), games=400, seed=2024), workers=1)
    greedy, rand = summary.agents
    assert greedy.name == "greedy" and rand.name == "random"
    assert greedy.games == 400
    assert greedy.wins >= 380, f"greedy won {greedy.wins}/400"
    assert greedy.wins + rand.wins + summary.draws == 400
    # Seats alternate: each agent started exactly half of the games.
    assert greedy.games_first == rand.games_first == 200


def test_wilson_interval_matches_a_hand_computation() -> None:
    """8 wins of 10, z = 1.96: centre (0.8 + z²/20)/(1 + z²/10) = 0.71674, half-width
    z·sqrt(0.8·0.2/10 + z²/400)/(1 + z²/10) = 0.22658 → [0.49016, 0.94331] (textbook value)."""
    z = 1.959963984540054
    centre = (0.8 + z * z / 20) / (1 + z * z / 10)
    half = z * math.sqrt(0.016 + z * z / 400) / (1 + z * z / 10)
    low, high = wilson_interval(8, 10)
    assert low == pytest.approx(centre - half, abs=1e-12)
    assert high == pytest.approx(centre + half, abs=1e-12)
    assert (round(low, 4), round(high, 4)) == (0.4902, 0.9433)
    # Edge cases: never outside [0, 1], and the interval of 0 successes starts at 0.
    assert wilson_interval(0, 20)[0] == 0.0
    assert wilson_interval(20, 20)[1] == 1.0
    assert wilson_interval(10, 10)[0] == pytest.approx(0.7225, abs=1e-4)
    assert wilson_interval(0, 0) == (0.0, 1.0)


def test_summary_counts_and_averages() -> None:
    config = SimConfig(mode="duel", agents=("random", "random"), games=30, seed=3, format="random")
    results = run_games(config, workers=1)
    summary = summarize(config, results)
    a, b = summary.agents
    assert a.wins + b.wins + summary.draws == 30
    assert a.losses == b.wins and b.losses == a.wins
    assert summary.avg_turns == pytest.approx(sum(r.turns for r in results) / 30)
    assert summary.avg_actions == pytest.approx(sum(r.actions for r in results) / 30)
    low, high = wilson_interval(a.wins, 30)
    assert (a.ci_low, a.ci_high) == (low, high)
    # Seating: agent A sits in seat 0 in even games.
    assert all(r.seats == ("random", "random") for r in results)


def test_turn_cap_makes_draws() -> None:
    """ruleset.max_turns: a game still running at the end of the cap is a draw (no winner)."""
    config = SimConfig(
        mode="duel", agents=("random", "random"), games=20, seed=1, format="random", max_turns=2
    )
    summary = simulate(config, workers=1)
    assert summary.draws > 0
    assert all(r.turns <= 2 for r in summary.results)
    assert all((r.winner is None) == (r.reason.startswith("turn cap")) for r in summary.results)


def test_seeds_are_derived_per_game() -> None:
    assert derive_seed(1, 0) == derive_seed(1, 0)
    seeds = {derive_seed(1, i) for i in range(1000)}
    assert len(seeds) == 1000
    assert derive_seed(1, 0) != derive_seed(2, 0)
    assert all(0 <= s < 2**48 for s in seeds)


def test_bad_configs_are_refused() -> None:
    with pytest.raises(SimulationError, match="duel needs 2"):
        run_games(SimConfig(mode="duel", agents=("greedy",)), workers=1)
    with pytest.raises(SimulationError, match="not played in solo"):
        run_games(SimConfig(mode="solo", agents=("greedy",), format="custom"), workers=1)
    with pytest.raises(ValueError, match="unknown agent 'zz'"):
        run_games(SimConfig(mode="duel", agents=("greedy", "zz")), workers=1)


def test_records_replay_to_the_same_result(tmp_path: Path) -> None:
    config = SimConfig(mode="solo", agents=("greedy",), games=4, seed=9, records_dir=str(tmp_path))
    results = run_games(config, workers=1)
    files = sorted(tmp_path.glob("game-*.json"))
    assert len(files) == 4
    for res, path in zip(results, files, strict=True):
        record = GameRecord.load(path)
        assert record.players == ["greedy", "automaton"]
        game = replay(record)
        assert game.winner == res.winner and game.turn == res.turns


# ---------------------------------------------------------------------------- CLI


def test_cli_json_shape() -> None:
    result = CliRunner().invoke(
        main,
        ["simulate", "--mode", "duel", "--agents", "greedy", "random", "--games", "10", "--seed", "4",
         "--workers", "1", "--json"],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert {
        "mode",
        "format",
        "games",
        "seed",
        "agents",
        "draws",
        "avg_turns",
        "avg_actions",
        "workers",
    } <= set(data)
    assert data["mode"] == "duel" and data["format"] == "draft" and data["games"] == 10
    names = [a["name"] for a in data["agents"]]
    assert names == ["greedy", "random"]
    for a in data["agents"]:
        assert {"wins", "losses", "draws", "win_rate", "ci_low", "ci_high"} <= set(a)
        assert 0 <= a["ci_low"] <= a["win_rate"] <= a["ci_high"] <= 1
    assert sum(a["wins"] for a in data["agents"]) + data["draws"] == 10


def test_cli_solo_table_and_records(tmp_path: Path) -> None:
    out = tmp_path / "recs"
    result = CliRunner().invoke(
        main,
        ["simulate", "--mode", "solo", "--agent", "random", "--level", "2", "--games", "3",
         "--workers", "1", "--records", str(out)],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    assert "automaton" in result.output and "95% CI" in result.output
    assert len(list(out.glob("game-*.json"))) == 3


def test_cli_unknown_agent_is_a_clear_error() -> None:
    result = CliRunner().invoke(main, ["simulate", "--agents", "greedy", "nobody", "--games", "2"])
    assert result.exit_code == 2
    assert "unknown agent 'nobody'" in result.output
    assert "greedy" in result.output and "random" in result.output
    assert "Traceback" not in result.output


def test_cli_error_text_keeps_its_brackets(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """An error's text is printed as it is: ``pip install 'clashofdecks[analysis]'`` lost its
    ``[analysis]`` to the terminal's markup."""
    import clashofdecks.simulation.store as store

    def missing(name: str) -> object:
        raise SimulationError(f"the store of games needs {name}: pip install 'clashofdecks[analysis]'")

    monkeypatch.setattr(store, "_module", missing)
    args = ["simulate", "--agents", "random", "random", "--games", "2", "--out", str(tmp_path / "store")]
    result = CliRunner().invoke(main, args)
    assert result.exit_code != 0
    assert "pip install 'clashofdecks[analysis]'" in result.output, result.output


def test_cli_wrong_option_for_mode() -> None:
    result = CliRunner().invoke(main, ["simulate", "--mode", "solo", "--agents", "greedy", "random"])
    assert result.exit_code == 2
    assert "--agents is for duel" in result.output


# ---------------------------------------------------------------------------- the runner


def test_a_backend_plays_chunks_anywhere_and_gets_the_same_results() -> None:
    """The runner's backend interface: a backend that plays each chunk's games in reverse order
    (as a remote worker might) gives the same results, and one that loses a game is refused."""

    class Reversing:
        workers = 3

        def play_chunks(self, chunks: Iterable[Sequence[GameSpec]]) -> Iterator[list[GameResult]]:
            for chunk in chunks:
                yield list(reversed([play_game(spec)[0] for spec in reversed(chunk)]))

    class Lossy:
        workers = 1

        def play_chunks(self, chunks: Iterable[Sequence[GameSpec]]) -> Iterator[list[GameResult]]:
            for chunk in chunks:
                yield [play_game(spec)[0] for spec in chunk[1:]]

    config = SimConfig(mode="duel", agents=("greedy", "random"), games=9, seed=8, format="precon")
    expected = run_games(config, workers=1)
    assert run_specs(config.specs(), games=9, backend=Reversing(), chunk=2) == expected
    with pytest.raises(SimulationError, match="do not match"):
        run_specs(config.specs(), games=9, backend=Lossy(), chunk=3)


def test_counts_out_of_range_are_refused_in_python() -> None:
    with pytest.raises(SimulationError, match="--games must be 1 to 1,000,000,000"):
        SimConfig(games=MAX_BATCH_GAMES + 1).check()
    SimConfig(games=MAX_GAMES + 1).check()  # a batch needs no list of results (running totals)
    with pytest.raises(SimulationError, match="a run plays 0 to 1,000,000 games"):
        run_specs(SimConfig(games=MAX_GAMES + 1).specs(), games=MAX_GAMES + 1)
    with pytest.raises(SimulationError, match="workers must be 1 to 256"):
        run_games(SimConfig(games=2), workers=MAX_WORKERS + 1)
    with pytest.raises(SimulationError, match="workers must be 1 to 256"):
        LocalBackend(0)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--games", str(10**23)], "Invalid value for '--games'"),
        (["--games", "0"], "Invalid value for '--games'"),
        (["--games", "1000000001"], "1<=x<=1000000000"),
        (["--games", "1000001", "--json", "--games-json"], "--games-json keeps every game's result"),
        (["--workers", "0"], "Invalid value for '--workers'"),
        (["--workers", "257"], "1<=x<=256"),
        (["--max-turns", "0"], "Invalid value for '--max-turns'"),
        (["--level", "6", "--mode", "solo"], "Invalid value for '--level'"),
    ],
)
def test_cli_refuses_values_out_of_range(args: list[str], message: str) -> None:
    result = CliRunner().invoke(main, ["simulate", *args])
    assert result.exit_code == 2, result.output
    assert message in result.output
    assert "Traceback" not in result.output


def _memory_held_while_simulating(monkeypatch: pytest.MonkeyPatch, extra: list[str]) -> int:
    """Bytes the ``clash simulate`` process holds after game 1,800 beyond what it held after game
    200 (live objects, counted by tracemalloc after a full collection, from inside the run)."""
    held: dict[int, int] = {}
    count = Totals.add

    def add(totals: Totals, result: GameResult) -> None:
        count(totals, result)
        if totals.games in (200, 1800) and totals.games not in held:  # the run's (summarize counts too)
            gc.collect()
            held[totals.games] = tracemalloc.get_traced_memory()[0]

    monkeypatch.setattr(Totals, "add", add)
    args = ["simulate", "--agents", "random", "random", "--format", "random", "--games", "1800"]
    tracemalloc.start()
    try:
        result = CliRunner().invoke(main, [*args, "--workers", "1", "--json", *extra])
    finally:
        tracemalloc.stop()
    assert result.exit_code == 0, result.output
    assert json.loads(result.output)["games"] == 1800
    return held[1800] - held[200]


def test_clash_simulate_memory_does_not_grow_with_the_games(monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 13, flat memory: a run without --games-json keeps running totals only, so 1,600 more
    games add (almost) nothing; keeping every result (--games-json) is caught growing."""
    flat = _memory_held_while_simulating(monkeypatch, [])
    assert flat < 16_000, f"{flat} bytes more after 1,600 more games"
    kept = _memory_held_while_simulating(monkeypatch, ["--games-json"])
    assert kept > 1600 * 100, f"only {kept} bytes for 1,600 kept results: the measure is blind"
