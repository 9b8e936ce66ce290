"""The store of games (issue 12): Parquet files round-trip every result and card row, the schema is
the documented one, DuckDB queries the folder, and ``clash stats`` answers on the command line."""

from __future__ import annotations

import json
import re
from dataclasses import replace
from pathlib import Path

import pytest
from click.testing import CliRunner

from clashofdecks.cli import main
from clashofdecks.options import Threat
from clashofdecks.simulation.batch import SimConfig, run_games
from clashofdecks.simulation.game import GameResult, SimulationError
from clashofdecks.simulation.store import (
    CARD_COLUMNS,
    GAME_COLUMNS,
    RunInfo,
    StoreWriter,
    arrow_schema,
    query,
)

pa = pytest.importorskip("pyarrow", reason="the analysis extra (pip install '.[analysis]') is not installed")
pq = pytest.importorskip("pyarrow.parquet")
pytest.importorskip("duckdb")

DOCS = Path(__file__).resolve().parent.parent / "docs" / "simulation.md"
THREAT = Threat(base_mana=7, starts="automaton", abilities=("rage", "splash"))


def _play(config: SimConfig) -> list[GameResult]:
    rows: list[GameResult] = []
    run_games(config, workers=1, on_chunk=rows.extend)
    return rows


def _write(root: Path, run: str, config: SimConfig, results: list[GameResult], block: int) -> StoreWriter:
    threat = config.solo_threat()
    writer = StoreWriter(
        root, RunInfo(run, config.mode, config.format, config.max_turns, threat), block_games=block
    )
    for k in range(0, len(results), 3):  # the runner's chunks arrive a few games at a time
        writer.add(results[k : k + 3])
    writer.close()
    return writer


def test_games_and_cards_round_trip(tmp_path: Path) -> None:
    duel = SimConfig(
        mode="duel", agents=("greedy", "random"), games=10, seed=7, format="precon", card_stats=True
    )
    solo = SimConfig(mode="solo", agents=("random",), games=7, seed=3, threat=THREAT, card_stats=True)
    duel_results, solo_results = _play(duel), _play(solo)
    w1 = _write(tmp_path, "duel-run", duel, duel_results, block=4)
    _write(tmp_path, "solo-run", solo, solo_results, block=100)
    # Blocks of >= 4 games from chunks of 3: games 0-5, then 6-9 (the last chunk completes it).
    assert sorted(p.name for p in w1.folder.glob("games-*.parquet")) == [
        "games-0000000.parquet",
        "games-0000006.parquet",
    ]
    assert w1.games_written == 10
    for run, config, results in (("duel-run", duel, duel_results), ("solo-run", solo, solo_results)):
        folder = tmp_path / run
        game_tables = [pq.read_table(p) for p in sorted(folder.glob("games-*.parquet"))]
        card_tables = [pq.read_table(p) for p in sorted(folder.glob("cards-*.parquet"))]
        for t in game_tables:
            assert t.schema == arrow_schema(GAME_COLUMNS)
        for t in card_tables:
            assert t.schema == arrow_schema(CARD_COLUMNS)
        game_rows = [row for t in game_tables for row in t.to_pylist()]
        card_rows = [row for t in card_tables for row in t.to_pylist()]
        assert len(game_rows) == len(results)
        for row, r in zip(game_rows, results, strict=True):
            assert (row["run"], row["game"], row["seed"]) == (run, r.index, r.seed)
            assert (row["mode"], row["format"]) == (config.mode, config.format)
            assert (row["agent0"], row["agent1"]) == r.seats
            assert (row["deck0"], row["deck1"]) == r.decks
            assert (row["winner"], row["winner_agent"]) == (r.winner, r.winner_name)
            assert (row["termination"], row["turns"], row["actions"]) == (r.termination, r.turns, r.actions)
            assert row["max_turns"] == config.max_turns
        expected_cards = [(r, c) for r in results for c in r.cards]
        assert len(card_rows) == len(expected_cards)
        for row, (r, c) in zip(card_rows, expected_cards, strict=True):
            assert (row["game"], row["seat"], row["card"], row["source"], row["pick"]) == (
                r.index,
                c.seat,
                c.card,
                c.source,
                c.pick,
            )
            counts = (c.played, c.turns_in_play, c.damage, c.kills, c.destroyed)
            assert (
                row["played"],
                row["turns_in_play"],
                row["damage"],
                row["kills"],
                row["destroyed"],
            ) == counts
            assert row["agent"] == r.seats[c.seat]
            assert row["won"] == (None if r.winner is None else r.winner == c.seat)
    # Precon duel: both deck numbers; solo: the threat options, the automaton starts (seat 1).
    by_run = query(
        tmp_path,
        "SELECT run, count(deck0), count(deck1), min(first_seat), max(threat_points), "
        "max(threat_abilities), max(threat_starts) FROM games GROUP BY run ORDER BY run",
    ).rows
    assert by_run[0][:4] == ("duel-run", 10, 10, 0) and by_run[0][4] is None
    assert by_run[1] == ("solo-run", 0, 0, 1, THREAT.threat_points(), "splash+rage", "automaton")


def test_duckdb_reads_every_run_under_the_folder(tmp_path: Path) -> None:
    config = SimConfig(
        mode="duel", agents=("random", "random"), games=12, seed=1, format="draft", card_stats=True
    )
    results = _play(config)
    _write(tmp_path / "a", "run-1", config, results, block=5)
    _write(
        tmp_path / "b" / "deeper", "run-2", replace(config, seed=2), _play(replace(config, seed=2)), block=50
    )
    (count,) = query(tmp_path, "SELECT count(*) FROM games").rows[0]
    assert count == 24
    wins = query(tmp_path / "a", "SELECT winner, count(*) FROM games GROUP BY winner ORDER BY winner").rows
    assert dict(wins) == {w: sum(r.winner == w for r in results) for w in {r.winner for r in results}}
    # Every card row belongs to a game (join on run and game), 16 per draft duel.
    (joined,) = query(tmp_path, "SELECT count(*) FROM cards JOIN games USING (run, game)").rows[0]
    assert joined == 24 * 16


def test_a_run_folder_with_games_is_never_overwritten(tmp_path: Path) -> None:
    config = SimConfig(
        mode="duel", agents=("random", "random"), games=3, seed=1, format="random", card_stats=True
    )
    _write(tmp_path, "run", config, _play(config), block=10)
    before = {p.name: p.read_bytes() for p in (tmp_path / "run").iterdir()}
    with pytest.raises(SimulationError, match="already holds"):
        StoreWriter(tmp_path, RunInfo("run", "duel", "random", 200, None))
    assert {p.name: p.read_bytes() for p in (tmp_path / "run").iterdir()} == before


def test_a_run_must_say_what_it_is(tmp_path: Path) -> None:
    """A solo run without its threat (the report groups solo games by it) or an unknown mode is
    refused before anything is written."""
    with pytest.raises(SimulationError, match="needs its threat"):
        StoreWriter(tmp_path, RunInfo("run", "solo", "draft", 200, None))
    with pytest.raises(SimulationError, match="'duel' or 'solo'"):
        StoreWriter(tmp_path, RunInfo("run", "trio", "draft", 200, None))
    assert list(tmp_path.iterdir()) == []


def test_the_schema_is_documented_exactly() -> None:
    """docs/simulation.md has one table per view whose rows are the columns, types and meanings."""
    text = DOCS.read_text(encoding="utf-8")
    for view, columns in (("games", GAME_COLUMNS), ("cards", CARD_COLUMNS)):
        section = text.split(f"**`{view}`**", 1)[1]
        rows = re.findall(r"^\| `(\w+)` \| (\w+) \| (.+) \|$", section.split("\n\n", 2)[1], flags=re.M)
        assert rows == [(n, t, d) for n, t, d in columns], f"the {view} table of docs/simulation.md"


SIM_ARGS = ["simulate", "--agents", "greedy", "random", "--games", "12", "--seed", "5"]


def test_simulate_out_and_clash_stats(tmp_path: Path) -> None:
    runner = CliRunner()
    out = runner.invoke(
        main,
        [*SIM_ARGS, "--workers", "1", "--out", str(tmp_path), "--json"],
    )
    assert out.exit_code == 0, out.output
    summary = json.loads(out.stdout)
    greedy = summary["agents"][0]
    got = runner.invoke(
        main,
        [
            "stats",
            str(tmp_path),
            "SELECT count(*) AS games, sum((winner_agent = 'greedy')::int) AS wins FROM games",
            "--json",
        ],
    )
    assert got.exit_code == 0, got.output
    assert json.loads(got.stdout) == [{"games": 12, "wins": greedy["wins"]}]
    (run,) = tmp_path.iterdir()
    assert run.name == "duel-draft-greedy-vs-random-seed5-n12"
    meta = json.loads((run / "run.json").read_text())
    assert meta["complete"] is True and meta["games_written"] == 12
    # The same run again: refused, nothing changed.
    again = runner.invoke(
        main,
        ["simulate", "--agents", "greedy", "random", "--games", "12", "--seed", "5", "--out", str(tmp_path)],
    )
    assert again.exit_code == 2 and "already holds" in again.output
    csv_out = runner.invoke(main, ["stats", str(tmp_path), "SELECT card FROM cards LIMIT 2", "--csv"])
    assert csv_out.exit_code == 0 and csv_out.stdout.splitlines()[0] == "card"
    table = runner.invoke(main, ["stats", str(tmp_path), "SELECT count(*) AS n FROM cards"])
    assert table.exit_code == 0 and str(12 * 16) in table.stdout


def test_clash_stats_errors(tmp_path: Path) -> None:
    runner = CliRunner()
    empty = runner.invoke(main, ["stats", str(tmp_path), "SELECT 1"])
    assert empty.exit_code == 2 and "holds no games" in empty.output
    missing = runner.invoke(main, ["stats", str(tmp_path / "nope"), "SELECT 1"])
    assert missing.exit_code == 2 and "not a folder" in missing.output
    config = SimConfig(
        mode="duel", agents=("random", "random"), games=2, seed=1, format="random", card_stats=True
    )
    _write(tmp_path, "run", config, _play(config), block=10)
    bad = runner.invoke(main, ["stats", str(tmp_path), "SELECT nonsense FROM games"])
    assert bad.exit_code == 2 and "query failed" in bad.output and "Traceback" not in bad.output
