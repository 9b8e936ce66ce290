"""``clash simulate`` and ``clash arena`` games on the compiled core (issue 13): the same seed gives
the same game whichever engine plays it.

Every game is played twice, with the play phase on the compiled core and all in the Python engine
(``simulation.game`` told the core is missing, as ``CLASH_NATIVE=0`` does), and the results are
compared: winner, reason, turns, actions, termination, seats.  Each comparison also checks that
the core really played (``GameResult.on_core``), so it cannot pass by playing Python twice.  One
test runs the command line itself with and without ``CLASH_NATIVE=0``.

Skipped only when the extension is not built (``CLASH_REQUIRE_NATIVE=1`` makes that a failure).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterable
from dataclasses import replace
from pathlib import Path

import pytest

from clashofdecks import native
from clashofdecks.agents.registry import make_agent
from clashofdecks.native import NativeGame
from clashofdecks.options import Ruleset, Threat
from clashofdecks.rules import Game
from clashofdecks.simulation import game as game_module
from clashofdecks.simulation.arena import run_arena, run_solo
from clashofdecks.simulation.batch import SimConfig
from clashofdecks.simulation.game import GameResult, GameSpec, play_game, plays_on_core

if not native.AVAILABLE:
    if os.environ.get("CLASH_REQUIRE_NATIVE") == "1":
        pytest.fail(f"CLASH_REQUIRE_NATIVE=1 but {native.engine_notice()}", pytrace=False)
    pytest.skip(f"{native.engine_notice()}: build the extension to run these tests", allow_module_level=True)


def _fields(result: GameResult) -> tuple[object, ...]:
    return (
        result.index,
        result.seed,
        result.seats,
        result.winner,
        result.reason,
        result.turns,
        result.actions,
        result.termination,
        result.participants_swapped,
    )


def _python_only(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(game_module, "NATIVE_AVAILABLE", False)


def _play_both(
    specs: Iterable[GameSpec], monkeypatch: pytest.MonkeyPatch, *, core_expected: bool = True
) -> list[GameResult]:
    """Play each spec on the core and in Python; assert the same result; return the core's."""
    out = []
    for spec in specs:
        on_core, _ = play_game(spec)
        with monkeypatch.context() as m:
            _python_only(m)
            in_python, finished = play_game(spec)
        assert isinstance(finished, Game) and not in_python.on_core
        assert _fields(on_core) == _fields(in_python), spec
        assert on_core == in_python
        assert on_core.on_core is core_expected, spec
        out.append(on_core)
    return out


@pytest.mark.parametrize("fmt", ["draft", "precon", "custom", "random"])
def test_random_duels_are_the_same_games_on_the_core(fmt: str, monkeypatch: pytest.MonkeyPatch) -> None:
    config = SimConfig(mode="duel", agents=("random", "random"), games=40, seed=7, format=fmt)
    results = _play_both(config.specs(), monkeypatch)
    # Both seats win some games: the comparison covers real, varied games.
    assert {r.winner for r in results} >= {0, 1}


@pytest.mark.parametrize(
    ("agents", "fmt"),
    [
        (("ismcts:8", "random"), "draft"),
        (("random", "mcts:8"), "precon"),
        (("ismcts:6,cutoff=1,eval=learned", "mcts:6"), "custom"),
        (("ismcts:6,rollout=greedy", "random"), "draft"),
        (("greedy", "random"), "draft"),
        (("greedy", "ismcts:5"), "precon"),
        (("greedy", "greedy"), "custom"),
    ],
)
def test_search_agents_choose_the_same_on_the_core(
    agents: tuple[str, str], fmt: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = SimConfig(mode="duel", agents=agents, games=4, seed=3, format=fmt, max_turns=24)
    _play_both(config.specs(), monkeypatch)


@pytest.mark.parametrize("level", [0, 3, 5])
def test_solo_levels_are_the_same_games_on_the_core(level: int, monkeypatch: pytest.MonkeyPatch) -> None:
    config = SimConfig(mode="solo", agents=("random",), games=30, seed=level, level=level, format="precon")
    _play_both(config.specs(), monkeypatch)
    search = SimConfig(mode="solo", agents=("ismcts:6",), games=2, seed=level, level=level, format="draft")
    _play_both(search.specs(), monkeypatch)


def test_solo_threat_options_are_the_same_games_on_the_core(monkeypatch: pytest.MonkeyPatch) -> None:
    """R8.2 options the levels do not combine: the automaton starts, fort resilience, abilities."""
    threat = Threat(
        base_mana=9,
        extra_mana_per_creature=2,
        starts="automaton",
        resilience="fort",
        defence="minus_one",
        abilities=("rage", "splash"),
    )
    config = SimConfig(mode="solo", agents=("random",), games=30, seed=4, threat=threat, format="draft")
    _play_both(config.specs(), monkeypatch)


def test_turn_caps_and_chosen_decks_are_the_same_games_on_the_core(monkeypatch: pytest.MonkeyPatch) -> None:
    capped = SimConfig(
        mode="duel", agents=("random", "random"), games=30, seed=9, format="draft", max_turns=6
    )
    results = _play_both(capped.specs(), monkeypatch)
    assert any(r.termination == "turn_cap" and r.winner is None for r in results)
    decks = SimConfig(
        mode="duel",
        agents=("random", "ismcts:5"),
        games=6,
        seed=2,
        format="precon",
        deck_pairs=((1, 3), (4, 2)),
        max_turns=30,
    )
    _play_both(decks.specs(), monkeypatch)


def test_rule_variants_are_the_same_games_on_the_core(monkeypatch: pytest.MonkeyPatch) -> None:
    ruleset = Ruleset(
        lanes="rotated",
        incantation_timing="summon_only",
        protection="any_damage",
        automaton_lanes="per_card",
        max_turns=40,
    )
    duel = SimConfig(mode="duel", agents=("random", "random"), games=20, seed=5, format="custom")
    _play_both((replace(spec, ruleset=ruleset) for spec in duel.specs()), monkeypatch)
    solo = SimConfig(mode="solo", agents=("random",), games=20, seed=5, level=4, format="draft")
    _play_both((replace(spec, ruleset=ruleset) for spec in solo.specs()), monkeypatch)


def test_arena_and_solo_tables_are_the_same_on_the_core(monkeypatch: pytest.MonkeyPatch) -> None:
    """``clash arena``: coin-toss seats (R2.3a), each deal from both seats, Elo from the results."""
    arena = run_arena(["random", "ismcts:5", "greedy"], games=2, seed=11, max_turns=30, bootstrap=20)
    solo = run_solo(["random", "mcts:5"], games=2, seed=3, threat=Threat.level(2), max_turns=40)
    with monkeypatch.context() as m:
        _python_only(m)
        arena_py = run_arena(["random", "ismcts:5", "greedy"], games=2, seed=11, max_turns=30, bootstrap=20)
        solo_py = run_solo(["random", "mcts:5"], games=2, seed=3, threat=Threat.level(2), max_turns=40)
    assert [_fields(r) for r in arena.results] == [_fields(r) for r in arena_py.results]
    assert arena.to_dict() == arena_py.to_dict()
    assert [_fields(r) for r in solo.results] == [_fields(r) for r in solo_py.results]
    assert solo.to_dict() == solo_py.to_dict()
    assert any(r.participants_swapped for r in arena.results)
    assert all(r.on_core for r in arena.results)  # greedy too
    assert all(r.on_core for r in solo.results)


def test_games_that_need_the_python_engine_stay_there(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Per-card counts read events and records read the history: those games never move; with a
    record, the game is the same as the one played on the core without it."""
    config = SimConfig(mode="duel", agents=("random", "random"), games=3, seed=1, format="draft")
    for spec in config.specs():
        plain, finished = play_game(spec)
        assert plain.on_core and isinstance(finished, NativeGame)
        recorded, kept = play_game(replace(spec, records_dir=str(tmp_path)))
        counted, _ = play_game(replace(spec, collect_stats=True))
        assert isinstance(kept, Game) and not recorded.on_core and not counted.on_core
        assert _fields(plain) == _fields(recorded) == _fields(counted)
        assert recorded.record is not None and Path(recorded.record).is_file()
    assert plays_on_core(next(iter(config.specs())), [make_agent("greedy", 0), None])


def test_a_position_the_core_refuses_is_played_in_python(monkeypatch: pytest.MonkeyPatch) -> None:
    """NativeUnsupportedError at the conversion: the whole game stays in the Python engine."""

    def refuse(game: Game) -> NativeGame:
        raise native.NativeUnsupportedError("the compiled core cannot hold this state: test")

    spec = next(iter(SimConfig(mode="duel", agents=("random", "random"), games=1, seed=2).specs()))
    expected, _ = play_game(spec)
    monkeypatch.setattr(game_module.NativeGame, "from_game", staticmethod(refuse))
    refused, finished = play_game(spec)
    assert isinstance(finished, Game) and not refused.on_core
    assert _fields(refused) == _fields(expected)


def test_every_agent_acts_on_either_engine_with_the_same_choice() -> None:
    """No agent declares an engine: each one takes a core's game and chooses as on the Python twin."""
    core = NativeGame.random_duel(1)
    for name in ("random", "greedy", "ismcts:40", "mcts:40"):
        agent = make_agent(name, 5)
        on_core = agent.act(core)
        agent.reset(5)
        assert agent.act(core.to_game()) == on_core, name


def test_clash_simulate_prints_the_same_with_and_without_the_core(tmp_path: Path) -> None:
    """The command itself, once with CLASH_NATIVE=0: the same summary and the same games."""
    src = Path(game_module.__file__).resolve().parents[2]
    args = [
        sys.executable,
        "-m",
        "clashofdecks",
        "simulate",
        "--agents",
        "random",
        "ismcts:5",
        "--games",
        "6",
        "--seed",
        "21",
        "--workers",
        "2",
        "--json",
        "--games-json",
    ]
    outputs = []
    for disable in ("", "0"):
        path = os.pathsep.join([str(src), os.environ.get("PYTHONPATH", "")])
        env = {**os.environ, "CLASH_NATIVE": disable, "PYTHONPATH": path}
        done = subprocess.run(args, capture_output=True, text=True, env=env, timeout=600, check=False)
        assert done.returncode == 0, done.stderr
        outputs.append(json.loads(done.stdout))
    with_core, without = outputs
    assert with_core["games_on_core"] == 6 and without["games_on_core"] == 0
    for out in outputs:
        del out["elapsed_s"], out["games_on_core"]
    assert with_core == without
