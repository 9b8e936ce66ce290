"""Option bounds of ``clash analyze`` and ``clash bench`` (simulate's and arena's are tested beside
their commands): a value out of range is a usage error (exit code 2) naming the option, before any
work starts; and ``clash bench`` reports progress without logging decorations."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from clashofdecks.cli import main


@pytest.fixture(scope="module")
def record(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("records")
    res = CliRunner().invoke(
        main,
        ["simulate", "--agents", "greedy", "random", "--games", "1", "--workers", "1", "--records", str(out)],
    )
    assert res.exit_code == 0, res.output
    return out / "game-000000.json"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--top", "-1"], "Invalid value for '--top'"),
        (["--iterations", "0"], "Invalid value for '--iterations'"),
        (["--iterations", str(10**23)], "1<=x<=1000000"),
    ],
)
def test_analyze_refuses_values_out_of_range(record: Path, args: list[str], message: str) -> None:
    res = CliRunner().invoke(main, ["analyze", str(record), *args])
    assert res.exit_code == 2, res.output
    assert message in res.output and "Traceback" not in res.output


def test_analyze_top_zero_flags_nothing(record: Path) -> None:
    res = CliRunner().invoke(main, ["analyze", str(record), "--iterations", "5", "--top", "0", "--json"])
    assert res.exit_code == 0, res.output
    assert json.loads(res.stdout)["mistakes"] == []


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--games", "0"], "Invalid value for '--games'"),
        (["--games", str(10**23)], "1<=x<=1000000"),
        (["--rounds", "0"], "Invalid value for '--rounds'"),
        (["--rounds", "101"], "1<=x<=100"),
        (["--ismcts-iterations", "-1"], "Invalid value for '--ismcts-iterations'"),
    ],
)
def test_bench_refuses_values_out_of_range(args: list[str], message: str) -> None:
    res = CliRunner().invoke(main, ["bench", *args])
    assert res.exit_code == 2, res.output
    assert message in res.output and "Traceback" not in res.output


def test_bench_progress_has_no_logging_decorations() -> None:
    """Progress lines are plain sentences: no clock, no ``bench_cmd.py:NN`` source location."""
    res = CliRunner().invoke(main, ["bench", "--games", "2", "--rounds", "1", "--ismcts-iterations", "0"])
    assert res.exit_code == 0, res.output
    progress = [line for line in res.stderr.splitlines() if line.strip()]
    assert progress[0] == "measuring: random games, events off"
    assert all(line.startswith("measuring: ") for line in progress)
    assert ".py:" not in res.output
