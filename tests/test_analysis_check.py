"""``simulation.analysis_check`` (docs/ai.md, "The analysis a player can believe"), at a tiny size: the
points file keeps the search's own chances so that a map is fitted and checked without analysing
again, and the map applied to a point gives exactly what ``clash analyze`` shows."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from clashofdecks.agents.greedy import GreedyAgent
from clashofdecks.analyze import CALIBRATION, CALIBRATION_CURVES, analyze_record, curve_map
from clashofdecks.formats import new_game
from clashofdecks.options import LEVELS
from clashofdecks.record import GameRecord, record_game
from clashofdecks.simulation import analysis_check
from clashofdecks.simulation.analysis_check import calibration, collect, crossval, fit, fit_curve

ITERATIONS = 20


def _play(directory: Path, name: str, **options: object) -> None:
    game = new_game(seed=len(name), **options)  # type: ignore[arg-type]
    agents = [GreedyAgent(1), GreedyAgent(2)]
    while not game.is_over():
        game.apply(agents[game.current_player].act(game))
    directory.mkdir(exist_ok=True)
    record_game(game, ["greedy", "greedy"]).save(directory / f"{name}.json")


@pytest.fixture(scope="module")
def records(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    root = tmp_path_factory.mktemp("analysis_check")
    _play(root / "duel", "d1", mode="duel", format="draft")
    _play(root / "duel", "d22", mode="duel", format="draft")
    _play(root / "solo", "s1", mode="solo", format="precon", threat=LEVELS[2])
    _play(root / "solo", "s22", mode="solo", format="precon", threat=LEVELS[0])
    _play(root / "solo", "s333", mode="solo", format="precon", threat=LEVELS[4])  # a curve's level
    return root / "duel", root / "solo"


def test_the_map_applied_to_a_point_is_what_the_analysis_shows(records: tuple[Path, Path]) -> None:
    data = collect(list(records), iterations=ITERATIONS)
    assert [g["context"] for g in data["games"]] == ["duel", "duel", "solo2", "solo0", "solo4"]
    assert "solo4" in CALIBRATION_CURVES
    for game in data["games"]:
        shown = analyze_record(GameRecord.load(Path(game["file"])), iterations=ITERATIONS)
        moves = [d for d in shown.decisions if d.best is not None and d.player in (0, 1)]
        assert len(moves) == len(game["points"]) > 0
        assert any(p[0] is not None for p in game["points"])
        for d, point in zip(moves, game["points"], strict=True):
            chance, _ = analysis_check._mapped(point, game["context"], CALIBRATION, CALIBRATION_CURVES)
            assert chance == pytest.approx(d.after, abs=1e-12)


def test_fit_and_calibration_read_a_points_file(records: tuple[Path, Path], tmp_path: Path) -> None:
    path = tmp_path / "points.json"
    assert analysis_check.main(["points", str(records[0]), "--out", str(path)]) == 0
    fitted = fit(path)
    assert (
        set(fitted) == {"duel"}
        and fitted["duel"]["games"] == 2
        and fitted["duel"]["a"] == fitted["duel"]["a"]
    )
    solo = fit(collect([records[1]], iterations=ITERATIONS))["solo_shared"]
    assert set(solo) == {"solo0", "solo2", "solo4"} and solo["solo0"]["a"] == solo["solo2"]["a"]
    checked = calibration(json.loads(path.read_text(encoding="utf-8")), resamples=50)["duel"]
    assert checked["games"] == 2 and checked["moves"] == sum(b["moves"] for b in checked["bins"])
    low, high = checked["ece_interval_95"]
    assert 0.0 <= low <= high <= 1.0
    for b in checked["bins"]:
        assert b["gap_interval_95"][0] <= b["gap_interval_95"][1]
        assert b["within_5_points"] == (b["gap_interval_95"][0] <= 0.05 and b["gap_interval_95"][1] >= -0.05)
    assert checked["meets_target"] == (checked["ece"] <= 0.02 or checked["every_bin_within_5_points"])


def test_a_bad_command_line_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert analysis_check.main(["nonsense"]) == 2
    assert "usage" in capsys.readouterr().err


def test_a_level_with_a_curve_is_shown_its_curve_not_its_logistic_map(records: tuple[Path, Path]) -> None:
    """Solo level 4 goes through ``CALIBRATION_CURVES`` (docs/ai.md): the points of a level-4 game
    mapped by its curve are what the analysis shows, and its logistic map would show another chance."""
    data = collect([records[1]], iterations=ITERATIONS)
    (game,) = [g for g in data["games"] if g["context"] == "solo4"]
    shown = analyze_record(GameRecord.load(Path(game["file"])), iterations=ITERATIONS)
    moves = [d for d in shown.decisions if d.best is not None and d.player in (0, 1)]
    searched = [(d, p) for d, p in zip(moves, game["points"], strict=True) if p[0] is not None]
    assert searched
    for d, point in searched:
        assert d.after == pytest.approx(curve_map(point[0], CALIBRATION_CURVES["solo4"]), abs=1e-12)
        replaced = analysis_check._mapped(point, "solo4", {"solo4": (1.047, 1.188)})  # the map before it
        assert replaced[0] != pytest.approx(d.after, abs=1e-6)


def test_a_curve_pools_groups_until_the_share_won_rises() -> None:
    """``fit_curve``: groups of the search's chance; a group won more often than the next is pooled
    with it, so the knots rise; a group of too few moves joins the next."""
    points = [(0.01, 0.0)] * 95 + [(0.01, 1.0)] * 5  # 5 % won
    points += [(0.25, 1.0)] * 70 + [(0.25, 0.0)] * 30  # 70 % won
    points += [(0.45, 1.0)] * 50 + [(0.45, 0.0)] * 50  # 50 % won: pooled with 0.25's group
    points += [(0.95, 1.0)] * 10  # 10 moves: too few alone, joins the group before it
    curve = fit_curve(points)
    assert len(curve) == 2
    assert [x for x, _ in curve] == sorted(x for x, _ in curve) and curve[0][1] < curve[1][1]
    assert curve[0][1] == pytest.approx(math.log(5.5 / 95.5), abs=1e-3)
    assert curve[1][1] == pytest.approx(math.log(130.5 / 80.5), abs=1e-3)


def _moves(chance: float, share_won: float) -> list[list[float]]:
    return [[chance, chance, float(i < share_won * 20)] for i in range(20)]


def test_crossval_compares_a_logistic_map_and_a_curve_out_of_fold() -> None:
    """A level won 10 % at a search chance of 0.1 and 70 % from 0.3 to 0.5 (a step, as solo level 4's
    games): the curve follows it better out of fold; a context of too few games is not folded."""
    step = _moves(0.02, 0.0) + _moves(0.1, 0.1) + _moves(0.3, 0.7) + _moves(0.5, 0.7) + _moves(0.9, 0.95)
    games = [{"file": str(k), "context": "solo4", "cpu_seconds": 0.0, "points": step} for k in range(10)]
    checked = crossval({"iterations": ITERATIONS, "games": [*games, {**games[0], "context": "duel"}]})
    assert checked["duel"] == {"games": 1, "better": None}
    level = checked["solo4"]
    assert level["games"] == 10 and level["better"] == "curve"
    assert level["curve"]["log_loss"] < level["logistic"]["log_loss"]
    assert level["curve"]["ece"] < level["logistic"]["ece"]
    assert set(level["logistic"]) == {"log_loss", "ece", "bins_off"}


def test_mistakes_judges_each_flagged_move_again_by_a_deeper_search(records: tuple[Path, Path]) -> None:
    """``mistakes``: every move the analysis flags (each side's largest drop, then the next) is
    searched again from its position; the counts add up per stage and one gap per flagged move."""
    checked = analysis_check.mistakes(records[0], deep=60, iterations=ITERATIONS)
    flagged = sum(
        len(analyze_record(r, iterations=ITERATIONS).mistakes(top=3))
        for r in analysis_check._records(records[0])
    )
    assert checked["flagged"] == flagged == len(checked["gaps"]) > 0
    assert checked["flagged"] == sum(stage[0] for stage in checked["by_stage"].values())
    assert checked["really_worse"] == sum(gap > 0 for gap in checked["gaps"])
    assert checked["really_worse"] == sum(stage[1] for stage in checked["by_stage"].values())
