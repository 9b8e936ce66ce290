"""``simulation.analysis_check`` (docs/ai.md, "The analysis a player can believe"), at a tiny size: the
points file keeps the search's own chances so that a map is fitted and checked without analysing
again, and the map applied to a point gives exactly what ``clash analyze`` shows."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from clashofdecks.agents.greedy import GreedyAgent
from clashofdecks.analyze import CALIBRATION, analyze_record
from clashofdecks.formats import new_game
from clashofdecks.options import LEVELS
from clashofdecks.record import GameRecord, record_game
from clashofdecks.simulation import analysis_check
from clashofdecks.simulation.analysis_check import calibration, collect, fit

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
    return root / "duel", root / "solo"


def test_the_map_applied_to_a_point_is_what_the_analysis_shows(records: tuple[Path, Path]) -> None:
    data = collect(list(records), iterations=ITERATIONS)
    assert [g["context"] for g in data["games"]] == ["duel", "duel", "solo2", "solo0"]
    for game in data["games"]:
        shown = analyze_record(GameRecord.load(Path(game["file"])), iterations=ITERATIONS)
        moves = [d for d in shown.decisions if d.best is not None and d.player in (0, 1)]
        assert len(moves) == len(game["points"]) > 0
        assert any(p[0] is not None for p in game["points"])
        for d, point in zip(moves, game["points"], strict=True):
            chance, _ = analysis_check._mapped(point, game["context"], CALIBRATION)
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
    assert set(solo) == {"solo0", "solo2"} and solo["solo0"]["a"] == solo["solo2"]["a"]
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
