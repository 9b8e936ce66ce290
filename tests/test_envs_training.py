"""The learning example (issue 11): a CI-sized run of examples/train_maskable_ppo.py checks that the
training pipeline runs end to end (MaskablePPO on the masked environments, the learning curve, the
final evaluation with intervals, the plot).  The full run is a command (docs/envs.md)."""

from __future__ import annotations

import csv
import importlib.util
import json
import tempfile
from pathlib import Path

import pytest

pytest.importorskip("sb3_contrib")
pytest.importorskip("gymnasium")

EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "train_maskable_ppo.py"


def _example() -> object:
    spec = importlib.util.spec_from_file_location("train_maskable_ppo", EXAMPLE)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_wilson_interval() -> None:
    example = _example()
    low, high = example.wilson(50, 100)  # type: ignore[attr-defined]
    assert low == pytest.approx(0.404, abs=1e-3) and high == pytest.approx(0.596, abs=1e-3)
    assert example.wilson(0, 10)[0] == 0.0  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    "args",
    [
        ["--env", "duel", "--opponent", "random", "--steps", "1024", "--final-opponents", "random,greedy"],
        ["--env", "solo", "--level", "0", "--steps", "512"],
    ],
)
def test_training_pipeline_smoke(tmp_path: Path, args: list[str], monkeypatch: pytest.MonkeyPatch) -> None:
    example = _example()
    system_tmp = tmp_path / "system-tmp"
    system_tmp.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(system_tmp))
    small = ["--n-steps", "256", "--batch-size", "64", "--eval-every", "512", "--curve-games", "3"]
    results = example.main([*args, *small, "--final-games", "4", "--out", str(tmp_path)])  # type: ignore[attr-defined]
    assert results["steps"] >= int(args[args.index("--steps") + 1])
    for name in ("model.zip", "curve.csv", "curve.png", "results.json", "progress.csv"):
        assert (tmp_path / name).stat().st_size > 0
    # SB3 logs to a new SB3-<date> folder there unless told otherwise (torch's own cache may stay).
    assert not list(system_tmp.glob("SB3-*")), "the run left its log in the system's temporary directory"
    rows = list(csv.DictReader((tmp_path / "curve.csv").open()))
    assert len(rows) >= 2 and all(0.0 <= float(r["win_rate"]) <= 1.0 for r in rows)
    saved = json.loads((tmp_path / "results.json").read_text())
    expected = {"random", "greedy"} if "duel" in args else {"automaton"}
    assert set(saved["final"]) == expected
    for result in saved["final"].values():
        low, high = result["interval95"]
        assert result["games"] == 4 and low <= result["win_rate"] <= high
