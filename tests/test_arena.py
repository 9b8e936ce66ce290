"""``clash arena``: tournament layout, statistics (Wilson, Bradley-Terry Elo) and the command line."""

from __future__ import annotations

import json
import math
from collections import Counter
from pathlib import Path

import pytest
from click.testing import CliRunner

from clashofdecks.agents.mcts import ISMCTSAgent, MCTSAgent
from clashofdecks.agents.registry import make_agent
from clashofdecks.agents.spec import AgentSpecError, parse_spec
from clashofdecks.cli import main
from clashofdecks.options import Threat, ThreatError
from clashofdecks.simulation.arena import run_arena, run_solo, tasks_for
from clashofdecks.simulation.game import SimulationError
from clashofdecks.simulation.stats import Pairing, bradley_terry_elo, elo_with_intervals, wilson_interval
from clashofdecks.threat_text import parse_threat


def test_wilson_interval_matches_known_values() -> None:
    low, high = wilson_interval(80, 100)
    assert low == pytest.approx(0.7111, abs=1e-4)
    assert high == pytest.approx(0.8666, abs=1e-4)
    assert wilson_interval(0, 10)[0] == 0.0
    assert wilson_interval(10, 10)[1] == 1.0
    # Draws count half: 7.5 points of 10 lies between 7 and 8 wins.
    assert wilson_interval(7, 10) < wilson_interval(7.5, 10) < wilson_interval(8, 10)


def test_bradley_terry_elo_recovers_a_known_rate() -> None:
    """75 % against one opponent is an Elo gap of 400·log10(3) ≈ 190.8 (no prior)."""
    elo = bradley_terry_elo(2, {(0, 1): (75.0, 100)}, prior_draws=0.0)
    assert elo[0] - elo[1] == pytest.approx(400 * math.log10(3), abs=0.01)
    assert sum(elo) == pytest.approx(0.0, abs=1e-9)


def test_bradley_terry_prior_keeps_a_perfect_score_finite() -> None:
    elo = bradley_terry_elo(2, {(0, 1): (20.0, 20)})
    assert math.isfinite(elo[0]) and elo[0] > elo[1]


def test_elo_intervals_contain_the_estimate() -> None:
    p = Pairing(0, 1, {s: (1.5 if s % 4 else 0.5, 2) for s in range(40)})
    elo, low, high = elo_with_intervals(2, [p], bootstrap=200, seed=3)
    for e, lo, hi in zip(elo, low, high, strict=True):
        assert lo <= e <= hi
    assert elo[0] > 0 > elo[1]


def test_every_deal_is_played_from_both_seats() -> None:
    tasks = tasks_for(3, 4, seed=10)
    assert len(tasks) == 3 * 4
    per_pair_deal = Counter((t.a, t.b, t.seed) for t in tasks)
    assert set(per_pair_deal.values()) == {2}
    assert {t.seed for t in tasks} == {10, 11}  # the same deals for every pairing
    assert {(t.a, t.b, t.seed, t.swap) for t in tasks} == {
        (a, b, s, w) for a, b in ((0, 1), (0, 2), (1, 2)) for s in (10, 11) for w in (False, True)
    }
    with pytest.raises(SimulationError):
        tasks_for(2, 3, seed=1)


def test_agent_specs() -> None:
    assert parse_spec("ismcts") == ("ismcts", {})
    assert parse_spec("ismcts:500") == ("ismcts", {"iterations": 500})
    assert parse_spec("mcts:seconds=0.5,c=1.2") == ("mcts", {"seconds": 0.5, "c": 1.2, "iterations": None})
    agent = make_agent("ismcts:iterations=40,rollout=greedy", 3)
    assert isinstance(agent, ISMCTSAgent) and agent.iterations == 40
    assert isinstance(make_agent("mcts:10"), MCTSAgent)
    assert parse_spec("ismcts:cutoff=none")[1] == {"cutoff": None}
    assert parse_spec("ismcts:50,cutoff=2")[1] == {"iterations": 50, "cutoff": 2}
    for bad in (
        "greedy:100",
        "ismcts:depth=3",
        "ismcts:lots",
        "nobody",
        "ismcts:0",
        "ismcts:rollout=perfect",
    ):
        with pytest.raises(AgentSpecError):
            make_agent(bad)


def test_round_robin_is_reproducible_and_counts_every_game() -> None:
    first = run_arena(["random", "greedy", "ismcts:15"], games=2, seed=3, bootstrap=50)
    second = run_arena(["random", "greedy", "ismcts:15"], games=2, seed=3, bootstrap=50)
    assert [r.winner for r in first.results] == [r.winner for r in second.results]
    assert [p.games for p in first.pairings] == [2, 2, 2]
    assert len(first.results) == 6
    assert first.elo == second.elo
    data = first.to_dict()
    assert [row["games"] for row in data["pairings"]] == [2, 2, 2]


def test_greedy_beats_random_over_shared_deals() -> None:
    """A sanity check that the bookkeeping credits the right agent: greedy wins most games."""
    result = run_arena(["random", "greedy"], games=10, seed=1, bootstrap=50)
    row = result.table()[0]
    assert row["agent"] == "random" and row["games"] == 10
    assert row["win_rate"] <= 0.3
    assert result.elo[1] > result.elo[0]


def test_cli_arena_json_and_errors() -> None:
    runner = CliRunner()
    res = runner.invoke(main, ["arena", "random", "greedy", "--games", "2", "--workers", "1", "--json"])
    assert res.exit_code == 0, res.output
    data = json.loads(res.stdout)
    assert data["agents"] == ["random", "greedy"]
    assert data["pairings"][0]["games"] == 2
    bad = runner.invoke(main, ["arena", "random", "wizard"])
    assert bad.exit_code == 2
    assert "unknown agent" in bad.output and "Traceback" not in bad.output
    odd = runner.invoke(main, ["arena", "random", "greedy", "--games", "3"])
    assert odd.exit_code == 2


def test_cli_arena_table_with_two_workers() -> None:
    res = CliRunner().invoke(main, ["arena", "random", "greedy", "--games", "2", "--workers", "2"])
    assert res.exit_code == 0, res.output
    assert "Elo" in res.output and "greedy" in res.output


# ---------------------------------------------------------------------------- solo (R7, R8)


def test_solo_agents_play_the_same_deals_against_the_automaton() -> None:
    result = run_solo(["greedy", "random"], games=8, seed=5, threat=Threat.level(1))
    assert [r.games for r in result.rows] == [8, 8]
    seeds = [
        sorted(r.seed for r, t in zip(result.results, result.tasks, strict=True) if t.a == a) for a in (0, 1)
    ]
    assert seeds[0] == seeds[1] == list(range(5, 13))
    # Rows agree with the per-game results (the automaton sits in seat 1).
    for a, row in enumerate(result.rows):
        assert row.wins == sum(
            1 for r, t in zip(result.results, result.tasks, strict=True) if t.a == a and r.winner == 0
        )
    assert result.rows[0].wins >= result.rows[1].wins
    assert result.to_dict()["threat_points"] == 1


def test_parse_threat_forms() -> None:
    """R8.2 options by name; the points are the caller's business (any allocation is allowed)."""
    t = parse_threat("base_mana=8,starts=automaton,abilities=rage+splash")
    assert (t.base_mana, t.starts, set(t.abilities)) == (8, "automaton", {"rage", "splash"})
    assert t.threat_points() == 5
    assert parse_threat('{"resilience": "fort", "defence": "minus_one"}').threat_points() == 1
    for bad in ("base_mana=11", "colour=red", "base_mana", "{not json", "abilities=wings"):
        with pytest.raises(ThreatError):
            parse_threat(bad)


def test_cli_arena_solo() -> None:
    runner = CliRunner()
    res = runner.invoke(
        main,
        ["arena", "greedy", "--mode", "solo", "--level", "3", "--games", "3", "--workers", "1", "--json"],
    )
    assert res.exit_code == 0, res.output
    data = json.loads(res.stdout)
    assert data["threat"]["base_mana"] == 9 and data["rows"][0]["games"] == 3
    both = runner.invoke(
        main, ["arena", "greedy", "--mode", "solo", "--level", "1", "--threat", "base_mana=7"]
    )
    assert both.exit_code == 2
    duel_level = runner.invoke(main, ["arena", "greedy", "random", "--level", "1"])
    assert duel_level.exit_code == 2 and "solo" in duel_level.output


# ---------------------------------------------------------------------------- workers, bounds, log


def test_arena_results_identical_for_one_and_two_workers() -> None:
    """The shared runner hands results back in task order: 1 and 2 worker processes give the very
    same games, win rates and Elo (duel and solo)."""
    one = run_arena(["random", "greedy", "ismcts:8"], games=4, seed=7, workers=1, bootstrap=40)
    two = run_arena(["random", "greedy", "ismcts:8"], games=4, seed=7, workers=2, bootstrap=40)
    assert one.results == two.results and one.tasks == two.tasks
    assert one.to_dict() == two.to_dict()
    solo_one = run_solo(["greedy", "random"], games=5, seed=3, workers=1)
    solo_two = run_solo(["greedy", "random"], games=5, seed=3, workers=2)
    assert solo_one.results == solo_two.results
    assert solo_one.to_dict() == solo_two.to_dict()


def test_each_deal_seats_the_pair_both_ways() -> None:
    """The coin toss seats the first participant; swapping the participants swaps the seats, so
    the two games of a deal have the agents in opposite seats."""
    result = run_arena(["random", "greedy"], games=8, seed=11, bootstrap=10)
    by_deal: dict[int, list[tuple[str, str]]] = {}
    for r in result.results:
        by_deal.setdefault(r.seed, []).append(r.seats)
    assert sorted(by_deal) == [11, 12, 13, 14]
    for seats in by_deal.values():
        assert sorted(seats) == [("greedy", "random"), ("random", "greedy")]
    # Some deals' coin toss seats the first participant second.
    assert any(r.participants_swapped for r in result.results)
    for task, r in zip(result.tasks, result.results, strict=True):
        winner = task.winner(r)
        assert winner is None or result.agents[winner] == r.winner_name


def test_cli_arena_log_lines(tmp_path: Path) -> None:
    log = tmp_path / "arena.log"
    res = CliRunner().invoke(
        main,
        ["arena", "random", "greedy", "--games", "4", "--seed", "9", "--workers", "1", "--log", str(log)],
    )
    assert res.exit_code == 0, res.output
    entries = [json.loads(line) for line in log.read_text().splitlines()]
    assert [e["deal"] for e in entries] == [9, 9, 10, 10]
    assert [e["participants"] for e in entries[:2]] == [["random", "greedy"], ["greedy", "random"]]
    assert all(e["winner"] in ("random", "greedy", None) and e["turns"] > 0 for e in entries)
    assert all("searches" not in e for e in entries)  # neither agent searches


def test_cli_arena_log_says_what_each_search_cost(tmp_path: Path) -> None:
    """A search agent's line has its decisions searched, iterations and seconds, beside its name."""
    log = tmp_path / "arena.log"
    res = CliRunner().invoke(
        main,
        ["arena", "ismcts:7", "random", "--games", "2", "--seed", "4", "--workers", "1", "--log", str(log)],
    )
    assert res.exit_code == 0, res.output
    for entry in (json.loads(line) for line in log.read_text().splitlines()):
        searched = entry["searches"][entry["participants"].index("ismcts:7")]
        assert entry["searches"][entry["participants"].index("random")] is None
        assert searched["decisions"] > 0
        assert searched["iterations"] == 7 * searched["decisions"]  # forced moves are not searched
        assert searched["seconds"] > 0


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["random", "greedy", "--games", str(10**23)], "Invalid value for '--games'"),
        (["random", "greedy", "--games", "0"], "Invalid value for '--games'"),
        (["random", "greedy", "--workers", "-1"], "Invalid value for '--workers'"),
        (["random", "greedy", "--workers", "257"], "0<=x<=256"),
        (["random", "greedy", "--bootstrap", "-1"], "Invalid value for '--bootstrap'"),
        (["random", "greedy", "--bootstrap", "100001"], "0<=x<=100000"),
        (["random", "greedy", "--max-turns", "-1"], "Invalid value for '--max-turns'"),
        (["random", "greedy", "greedy", "--games", "600000"], "more than the 1,000,000 games"),
        (["random", "greedy", "--mode", "solo", "--games", "600000"], "more than 1,000,000 games"),
    ],
)
def test_cli_arena_refuses_values_out_of_range(args: list[str], message: str) -> None:
    result = CliRunner().invoke(main, ["arena", *args])
    assert result.exit_code == 2, result.output
    assert message in result.output
    assert "Traceback" not in result.output


def test_cli_arena_without_bootstrap_prints_no_interval() -> None:
    """--bootstrap 0 skips the Elo intervals: JSON null (NaN is not JSON), and a word in the table."""
    runner = CliRunner()
    res = runner.invoke(
        main, ["arena", "random", "greedy", "--games", "2", "--workers", "1", "--bootstrap", "0", "--json"]
    )
    assert res.exit_code == 0, res.output
    assert "NaN" not in res.stdout
    assert [row["ci95"] for row in json.loads(res.stdout)["elo"]] == [None, None]
    table = runner.invoke(
        main, ["arena", "random", "greedy", "--games", "2", "--workers", "1", "--bootstrap", "0"]
    )
    assert table.exit_code == 0 and "none (--bootstrap 0)" in table.output and "nan" not in table.output
