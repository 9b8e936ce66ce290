"""What ``clash analyze`` and the web's replay compute (issue 38, "analysis a player can believe"):
one search judges the played and the best move; moves that reach the same end of turn are one play
(attacks are automatic, R3.5); each side's largest drop is listed; a position proven won or lost
within the current turn shows 100 % or 0 %; the command's default is the web's setting."""

from __future__ import annotations

import itertools
import json
import math
import random
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from clashofdecks.agents.greedy import GreedyAgent
from clashofdecks.agents.mcts import Search, SearchResult
from clashofdecks.analyze import (
    CALIBRATION,
    CALIBRATION_CURVES,
    DEFAULT_ITERATIONS,
    Analysis,
    Decision,
    analyze_record,
    calibrated,
    context_of,
    curve_map,
    logistic_map,
    proven_result,
    same_end_of_turn,
)
from clashofdecks.cli import analyze_cmd, main
from clashofdecks.formats import new_game
from clashofdecks.options import LEVELS
from clashofdecks.position import load_position
from clashofdecks.record import GameRecord, Replay, record_game
from clashofdecks.rules import Game
from clashofdecks.web import workers
from clashofdecks.web.config import ServerConfig


def _attacks_left_position() -> Game:
    """Player 1 in combat, turn 18 (a seeded random duel): its bottom lane's attacks are automatic
    (R3.5) and win the game (R4.3) whether it says ``next`` (one attack, then choose again) or
    ``end`` (every attack left, then the turn ends)."""
    return load_position(
        {
            "mode": "duel",
            "turn": 18,
            "active": 1,
            "phase": "combat",
            "mana": 3,
            "players": [
                {
                    "hand": ["OGRE", "FORT", "PARASITE", "SHAMAN", "DISCIPLE", "BRIGAND", "ANNIHILATION"],
                    "lanes": {"top": ["ABERRATION", "VORTEX"], "bottom": []},
                    "public": ["PARASITE", "SHAMAN", "DISCIPLE", "BRIGAND", "ANNIHILATION"],
                },
                {
                    "hand": ["CARAPACE", "CARNIVORE", "GNOME", "FORT", "BOOM", "COMBUSTION"],
                    "lanes": {"top": [], "bottom": ["MUTANT", "GRRR", "LIEUTENANT"]},
                    "public": ["GNOME", "BOOM", "COMBUSTION"],
                },
            ],
            "chance": {"seed": 1, "draws": 1},
            "hidden_identities": True,
        },
        record_events=False,
    )


def test_one_search_of_each_position_judges_the_played_and_the_best_move(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """One search per decision with a choice, and both chances are its branches' means: the played
    move's (before the map) is its node's mean, and the best move is that search's action."""
    results: list[SearchResult] = []
    run = Search.run

    def recorded(self: Search, game: Game, rng: random.Random, **kwargs: Any) -> SearchResult:
        results.append(run(self, game, rng, **kwargs))
        return results[-1]

    monkeypatch.setattr(Search, "run", recorded)
    game = Game.random_duel(3, record_events=False)
    agents = [GreedyAgent(1), GreedyAgent(2)]
    while not game.is_over():
        game.apply(agents[game.current_player].act(game))
    record = record_game(game, ["p0", "p1"])
    analysis = analyze_record(record, iterations=30, calibrate=False)
    judged = [d for d in analysis.decisions if d.best is not None]
    assert len(results) == len(judged) > 0
    searched = dict(zip((d.index for d in judged), results, strict=True))
    replay = Replay(record)
    for step in replay:
        res = searched.get(step.index)
        if res is None:
            continue
        d = analysis.decisions[step.index]
        means = {a: mean for a, visits, mean in res.stats if visits}
        if d.raw_after is not None:
            assert d.raw_after == means[step.action]
        # the search's own best, or the played move when both are one play (same end of turn)
        assert d.best_action in (replay.game.action_text(res.action), d.action)


def test_next_attack_and_end_turn_are_one_play() -> None:
    game = _attacks_left_position()
    seat = game.current_player
    assert same_end_of_turn(game, seat, game.parse_action("next"), game.parse_action("end"))
    assert not same_end_of_turn(game, seat, game.parse_action("next"), game.parse_action("cast BOOM 0.top.0"))


def test_the_winners_next_attack_is_no_mistake_and_shows_the_proven_win(tmp_path: Path) -> None:
    game = _attacks_left_position()
    game.apply_text("next")
    while not game.is_over():
        game.apply_text("end")
    assert game.winner == 1
    path = tmp_path / "next.json"
    record_game(game, ["p0", "p1"]).save(path)
    analysis = analyze_record(GameRecord.load(path), iterations=200, seed=3)
    first = analysis.decisions[0]
    assert (first.player, first.action) == (1, "next")
    assert first.loss == 0.0 and first.best_action == "next"
    assert first.after == 1.0  # the attacks left win within this turn: proven, not estimated
    assert all(d.loss == 0.0 for d in analysis.decisions if d.player == 1)


def test_a_position_is_proven_only_within_its_turn() -> None:
    game = _attacks_left_position()
    assert proven_result(game, 1) == 1.0 and proven_result(game, 0) == 0.0
    quiet = Game.random_duel(4, record_events=False)  # turn 1: nothing is decided yet
    assert proven_result(quiet, quiet.current_player) is None


def test_a_position_proven_lost_within_the_turn_shows_0_percent() -> None:
    """A solo player whose every move loses before the automaton's turn ends (inside ``end``) is
    shown 0 % for the move played and for the best move alike, whatever the search estimated."""
    for seed in range(1, 40):
        game = new_game(seed=seed, mode="solo", format="precon", threat=LEVELS[4])
        agent = GreedyAgent(seed)
        while not game.is_over():
            game.apply(agent.act(game))
        if game.winner == 1:
            break
    record = record_game(game, ["greedy", "automaton"])
    lost = []
    replay = Replay(record)
    for step in replay:
        position = replay.game
        choice = position.phase != "setup" and len(position.legal_actions()) > 1
        if choice and proven_result(position, position.current_player) == 0.0:
            lost.append(step.index)
    assert lost
    analysis = analyze_record(record, iterations=20)
    for index in lost:
        d = analysis.decisions[index]
        assert d.after == 0.0 and d.best == 0.0 and d.loss == 0.0


def _decision(index: int, player: int, loss: float) -> Decision:
    return Decision(index, 1, player, f"play {index}", best=0.5 + loss, best_action="end", after=0.5)


def test_each_sides_largest_drop_is_listed() -> None:
    record = record_game(Game.random_duel(1, record_events=False), ["p0", "p1"])
    decisions = [_decision(0, 0, 0.4), _decision(1, 0, 0.3), _decision(2, 1, 0.1), _decision(3, 0, 0.2)]
    analysis = Analysis(record, decisions, [], 10, False)
    assert [(d.player, d.index) for d in analysis.mistakes(top=1)] == [(0, 0), (1, 2)]
    assert [(d.player, d.index) for d in analysis.mistakes(top=3)] == [(0, 0), (0, 1), (1, 2)]
    drops = analysis.to_dict()["largest_drops"]
    assert [d["index"] for d in drops] == [0, 2]


def test_the_command_computes_what_the_web_shows() -> None:
    params = {p.name: p for p in analyze_cmd.analyze.params}
    assert params["iterations"].default == DEFAULT_ITERATIONS == ServerConfig.analysis_iterations


def test_the_command_with_no_options_prints_what_the_web_shows(tmp_path: Path) -> None:
    """``clash analyze --json RECORD`` (no other option) and the web's analysis job at the server's
    default setting give the same analysis, number for number (the same iterations, seed, search and
    flagged moves; only the CPU time, the players' names and the page's label differ)."""
    game = Game.random_duel(2, record_events=False)
    agents = [GreedyAgent(1), GreedyAgent(2)]
    while not game.is_over():
        game.apply(agents[game.current_player].act(game))
    record = record_game(game, ["p0", "p1"])
    path = tmp_path / "game.json"
    record.save(path)
    res = CliRunner().invoke(main, ["analyze", str(path), "--json"])
    assert res.exit_code == 0, res.output
    command = json.loads(res.stdout)
    web, _ = workers.analysis(record.to_dict(), ServerConfig().analysis_iterations)
    for body in (command, web):
        body.pop("cpu_seconds"), body.pop("players", None), body.pop("label", None)
    assert command == web and command["iterations"] == DEFAULT_ITERATIONS and command["search"] == "ismcts"


def test_the_search_chances_are_mapped_per_context() -> None:
    """The fitted map keeps the order of chances and leaves an unknown context alone."""
    assert calibrated(0.3, None) == 0.3 and calibrated(0.3, "solo?") == 0.3
    for context in ("duel", *(f"solo{level}" for level in range(6))):
        mapped = [calibrated(p / 10, context) for p in range(1, 10)]
        assert mapped == sorted(mapped) and all(0.0 < m < 1.0 for m in mapped), context
    duel = record_game(Game.random_duel(1, record_events=False), ["p0", "p1"])
    assert context_of(GameRecord.from_dict(duel.to_dict())) == "duel"


def test_a_curve_goes_through_its_knots_and_keeps_every_order() -> None:
    """``curve_map``: linear in logits between knots, slope 1 beyond the end ones; solo level 4 takes
    its curve (``CALIBRATION_CURVES``), strictly increasing so that a worse move still shows lower."""
    curve = ((-2.0, -1.0), (0.0, 1.0), (1.0, 1.5))
    for x, y in (*curve, (-1.0, 0.0), (0.5, 1.25), (-4.0, -3.0), (3.0, 3.5)):
        assert curve_map(1.0 / (1.0 + math.exp(-x)), curve) == pytest.approx(1.0 / (1.0 + math.exp(-y)))
    shipped = CALIBRATION_CURVES["solo4"]
    grid = [p / 1000 for p in range(1, 1000)]
    mapped = [calibrated(p, "solo4") for p in grid]
    replaced = [logistic_map(p, (1.047, 1.188)) for p in grid]  # level 4's logistic map before the curve
    assert "solo4" not in CALIBRATION and mapped == [curve_map(p, shipped) for p in grid] != replaced
    assert all(a < b for a, b in itertools.pairwise(mapped))
