"""Simulation at scale (issue 12): the Ray backend gives the very games of the local backend for any
number of workers, work goes out in chunks, per-card figures do not change a game, and Ctrl-C keeps
what finished.

The Ray tests share one local Ray instance with 2 CPUs (started once: Ray takes seconds to start)
and shut it down at the end, so no Ray process is left running.
"""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from clashofdecks.cli import main
from clashofdecks.simulation.batch import SimConfig, run_games
from clashofdecks.simulation.game import GameResult, GameSpec, play_game
from clashofdecks.simulation.runner import Interrupted, chunk_size, play_chunk, run_specs

DUEL = SimConfig(mode="duel", agents=("greedy", "random"), games=24, seed=11, format="draft", card_stats=True)
SOLO = SimConfig(mode="solo", agents=("greedy",), games=10, seed=5, level=5, format="precon", card_stats=True)


@pytest.fixture(scope="module")
def ray_cluster() -> Iterator[Any]:
    ray = pytest.importorskip("ray", reason="the cluster extra (pip install '.[cluster]') is not installed")
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, configure_logging=False)
    try:
        yield ray
    finally:
        ray.shutdown()
    assert not ray.is_initialized()


def _with_cards(config: SimConfig, **backend: Any) -> tuple[list[GameResult], list[GameResult]]:
    """(results, the results with their card rows as ``on_chunk`` saw them)."""
    chunks: list[GameResult] = []
    results = run_games(config, on_chunk=chunks.extend, **backend)
    return results, chunks


def test_ray_gives_the_games_of_the_local_backend_for_any_number_of_workers(ray_cluster: Any) -> None:
    from clashofdecks.simulation.ray_backend import RayBackend

    for config in (DUEL, SOLO):
        local, local_cards = _with_cards(config, workers=1)
        for workers in (1, 2):
            with RayBackend(workers) as backend:
                assert backend.workers == workers
                on_ray, ray_cards = _with_cards(config, backend=backend)
            assert on_ray == local
            # The per-card rows cross the process boundary unchanged, in game order.
            assert ray_cards == local_cards
            assert [r.index for r in ray_cards] == list(range(config.games))
            assert all(r.cards for r in ray_cards)
        # The kept results carry no card rows (a million games must fit in memory).
        assert all(r.cards == () for r in local)
    # Ray was started by the fixture: the backend joined it and left it running.
    assert ray_cluster.is_initialized()


def test_simulate_cli_on_ray_matches_local(ray_cluster: Any) -> None:
    args = ["simulate", "--agents", "greedy", "random", "--games", "16", "--seed", "3"]
    args += ["--json", "--games-json"]
    local = CliRunner().invoke(main, [*args, "--workers", "2"])
    on_ray = CliRunner().invoke(main, [*args, "--backend", "ray", "--workers", "2"])
    assert local.exit_code == 0, local.output
    assert on_ray.exit_code == 0, on_ray.output
    a, b = json.loads(local.stdout), json.loads(on_ray.stdout)
    assert (a["backend"], b["backend"]) == ("local", "ray")
    assert a["results"] == b["results"] and a["agents"] == b["agents"]
    assert b["interrupted"] is False


def test_arena_on_ray_matches_local(ray_cluster: Any) -> None:
    from clashofdecks.simulation.arena import run_arena
    from clashofdecks.simulation.ray_backend import RayBackend

    local = run_arena(["random", "greedy"], games=6, seed=3, workers=1, bootstrap=0)
    with RayBackend(2) as backend:
        on_ray = run_arena(["random", "greedy"], games=6, seed=3, bootstrap=0, backend=backend)
    assert on_ray.results == local.results
    assert on_ray.table() == local.table()


def test_card_statistics_do_not_change_any_game() -> None:
    """Same seeds → same winners, turns and actions, with or without per-card counting."""
    for config in (DUEL, SOLO, replace(DUEL, format="random", agents=("random", "random"))):
        for spec in config.specs():
            with_stats, _ = play_game(spec)
            without, _ = play_game(replace(spec, collect_stats=False))
            assert with_stats.cards, "card rows were collected"
            assert replace(with_stats, cards=(), decks=(None, None)) == without


def test_card_rows_are_consistent_with_the_game() -> None:
    results = run_games(replace(DUEL, games=8), workers=1, on_chunk=None)
    assert len(results) == 8
    rows: list[GameResult] = []
    run_games(replace(DUEL, games=8), workers=1, on_chunk=rows.extend)
    for r in rows:
        seats = {c.seat for c in r.cards}
        assert seats == {0, 1}
        # Draft duel (R2.4): 8 cards each; per seat, picks are numbered 1, 2, … without gaps.
        for seat in (0, 1):
            mine = [c for c in r.cards if c.seat == seat]
            assert len(mine) == 8
            picks = sorted(c.pick for c in mine if c.pick is not None)
            assert picks == list(range(1, len(picks) + 1))
            assert all(c.source in ("pick", "given") for c in mine)
        for c in r.cards:
            assert c.played >= 0 and c.destroyed <= c.played
            if c.turns_in_play:
                assert c.played >= 1
        # Every destruction was caused by some card.
        assert sum(c.kills for c in r.cards) == sum(c.destroyed for c in r.cards)


def test_precon_rows_name_the_decks() -> None:
    chunks: list[GameResult] = []
    run_games(replace(SOLO, games=3, level=0), workers=1, on_chunk=chunks.extend)
    for r in chunks:
        assert r.decks[0] in (1, 2, 3, 4) and r.decks[1] is None  # the automaton has the rest (R7.1)
        assert len([c for c in r.cards if c.seat == 0]) == 8
        assert len([c for c in r.cards if c.seat == 1]) == 24


class CountingBackend:
    """Plays locally and remembers the size of every chunk it was sent."""

    def __init__(self, workers: int) -> None:
        self.workers = workers
        self.sizes: list[int] = []

    def play_chunks(self, chunks: Iterable[Sequence[GameSpec]]) -> Iterator[list[GameResult]]:
        for chunk in chunks:
            self.sizes.append(len(chunk))
            yield play_chunk(chunk)


def test_games_go_out_in_chunks() -> None:
    config = SimConfig(mode="duel", agents=("random", "random"), games=1000, seed=1, format="random")
    backend = CountingBackend(workers=2)
    results = run_games(config, backend=backend)
    assert len(results) == 1000
    assert chunk_size(1000, 2) == 32
    assert backend.sizes == [32] * 31 + [8]  # 32 tasks for 1,000 games, not 1,000
    assert chunk_size(1_000_000, 64) == 32 and chunk_size(10, 4) == 1


class InterruptedBackend:
    """Hands back two chunks, then Ctrl-C arrives; remembers whether it was closed."""

    workers = 1

    def __init__(self) -> None:
        self.closed = False

    def play_chunks(self, chunks: Iterable[Sequence[GameSpec]]) -> Iterator[list[GameResult]]:
        try:
            for n, chunk in enumerate(chunks):
                if n == 2:
                    raise KeyboardInterrupt
                yield play_chunk(chunk)
        finally:
            self.closed = True


def test_ctrl_c_keeps_the_finished_games() -> None:
    config = SimConfig(mode="duel", agents=("random", "random"), games=40, seed=2, format="random")
    backend = InterruptedBackend()
    stored: list[GameResult] = []
    with pytest.raises(Interrupted) as caught:
        run_specs(config.specs(), games=40, backend=backend, chunk=5, on_chunk=stored.extend)
    kept = caught.value.results
    assert [r.index for r in kept] == list(range(10))
    assert [r.index for r in stored] == list(range(10))
    assert kept == run_games(replace(config, games=10), workers=1)
    assert backend.closed


@pytest.mark.parametrize("backend", ["local", "ray"])
def test_ctrl_c_on_the_command_line_exits_130_with_a_partial_summary(tmp_path: Path, backend: str) -> None:
    """A real SIGINT to a real `clash simulate` with 2 workers (local processes, or a local Ray it
    starts itself): exit code 130, the summary of the finished games marked as interrupted, and the
    store and the records folder keep exactly those games."""
    # --out writes the store of games (Parquet): the analysis extra.
    pytest.importorskip("pyarrow", reason="the analysis extra (pip install '.[analysis]') is not installed")
    if backend == "ray":
        pytest.importorskip("ray", reason="the cluster extra (pip install '.[cluster]') is not installed")
    records = tmp_path / "records"
    store = tmp_path / "store"
    command = [sys.executable, "-m", "clashofdecks", "simulate", "--agents", "greedy", "greedy"]
    command += ["--backend", backend]
    command += ["--games", "5000", "--workers", "2", "--json", "--records", str(records), "--out", str(store)]
    proc = subprocess.Popen(
        command,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        # Background jobs may start with SIGINT ignored; the command must see it like a terminal's.
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    try:
        deadline = time.monotonic() + 120
        # Wait until more than a chunk (32 games) per worker is done.
        while not (records.exists() and len(list(records.iterdir())) >= 80):
            assert proc.poll() is None, proc.stderr.read() if proc.stderr else ""
            assert time.monotonic() < deadline, "no games were played"
            time.sleep(0.1)
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 130, err
    summary = json.loads(out)
    assert summary["interrupted"] is True
    assert 32 <= summary["games"] < 5000
    assert "interrupted:" in err
    (run,) = store.iterdir()
    meta = json.loads((run / "run.json").read_text())
    assert meta["complete"] is False
    assert meta["games_written"] == summary["games"]
    # Games of chunks that never came back are not half-reported: their records are gone too.
    kept = sorted(p.name for p in records.iterdir())
    assert kept == [f"game-{i:06d}.json" for i in range(summary["games"])]


BENCH = ["--bench-scaling", "--json"]


def test_scaling_benchmark_measures_every_backend_and_worker_count(ray_cluster: Any) -> None:
    from clashofdecks.simulation.scaling import measure_scaling

    config = SimConfig(mode="duel", agents=("random", "random"), games=40, seed=9, format="random")
    result = measure_scaling(config, workers=(1, 2), backends=("local", "ray"))
    assert [(m.backend, m.workers) for m in result.measurements] == [
        ("local", 1),
        ("local", 2),
        ("ray", 1),
        ("ray", 2),
    ]
    assert result.identical
    times = {(m.backend, m.workers): m.seconds for m in result.measurements}
    for backend in ("local", "ray"):
        assert result.efficiency[backend][1] == pytest.approx(1.0)
        assert result.efficiency[backend][2] == pytest.approx(times[(backend, 1)] / (2 * times[(backend, 2)]))
    assert result.ray_overhead[2] == pytest.approx(times[("ray", 2)] / times[("local", 2)] - 1)
    cli = CliRunner().invoke(
        main,
        ["simulate", "--agents", "random", "random", "--format", "random", "--games", "20", *BENCH],
    )
    assert cli.exit_code == 0, cli.output
    data = json.loads(cli.stdout)
    assert data["identical"] is True and len(data["measurements"]) == 4


def test_backend_options_are_checked() -> None:
    runner = CliRunner()
    wrong = runner.invoke(main, ["simulate", "--games", "2", "--address", "auto"])
    assert wrong.exit_code == 2 and "--address is for --backend ray" in wrong.output
    threat = runner.invoke(main, ["simulate", "--games", "2", "--threat", "base_mana=8"])
    assert threat.exit_code == 2 and "solo option" in threat.output
    bad = runner.invoke(main, ["simulate", "--mode", "solo", "--games", "2", "--threat", "base_mana=11"])
    assert bad.exit_code == 2 and "base_mana" in bad.output
    # A custom threat: the summary is the one of that allocation.
    solo = ["simulate", "--mode", "solo", "--agent", "random", "--games", "4", "--workers", "1"]
    ok = runner.invoke(main, [*solo, "--threat", "base_mana=8,starts=automaton", "--json"])
    assert ok.exit_code == 0, ok.output
    assert json.loads(ok.stdout)["level"] is None


def test_decks_rotate_through_every_pairing() -> None:
    """--decks rotate: game i gets the pairing (i // 2) % 12, by seat; the agents play them."""
    from clashofdecks.simulation.batch import ALL_DECK_PAIRS

    config = SimConfig(
        mode="duel", agents=("random", "random"), games=26, seed=8, format="precon", card_stats=True
    )
    chunks: list[GameResult] = []
    run_games(replace(config, deck_pairs=ALL_DECK_PAIRS), workers=1, on_chunk=chunks.extend)
    assert [r.decks for r in chunks] == [ALL_DECK_PAIRS[(i // 2) % 12] for i in range(26)]
    assert len(set(ALL_DECK_PAIRS)) == 12 and all(a != b for a, b in ALL_DECK_PAIRS)


def test_arena_ctrl_c_exits_130(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """clash arena on Ctrl-C: says how many games finished and where they are, exit code 130."""
    import clashofdecks.simulation.arena as arena_module

    finished = run_games(SimConfig(mode="duel", agents=("random", "random"), games=3, format="random"))

    def interrupted(*_args: Any, **_kwargs: Any) -> None:
        raise Interrupted(finished)

    monkeypatch.setattr(arena_module, "run_arena", interrupted)
    log = tmp_path / "games.jsonl"
    result = CliRunner().invoke(main, ["arena", "random", "greedy", "--games", "4", "--log", str(log)])
    assert result.exit_code == 130
    assert f"interrupted: 3 of 4 games finished (each is in {log})" in result.output
