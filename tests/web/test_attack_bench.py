"""``clash bench --attack`` runs (at tiny sizes, so it cannot rot): every phase measured, the
honest player played in each, the attacks reached the server.  Its figures are measurements
(docs/web.md, "Threats"), never asserted."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

pytest.importorskip("starlette")
pytest.importorskip("websockets")

from clashofdecks.cli import main


def test_the_attack_bench_runs_every_phase_at_tiny_sizes() -> None:
    result = CliRunner().invoke(
        main, ["bench", "--attack", "--attack-tiny", "--attack-seconds", "2", "--json"]
    )
    assert result.exit_code == 0, result.output
    out = json.loads(result.stdout)
    phases = {p["attack"]: p for p in out["phases"]}
    assert list(phases) == ["none", "record", "flood 2", "hints 2", "idle 5"]
    assert all(p["actions"] > 0 for p in phases.values()), phases
    assert phases["hints 2"]["refused"] > 0  # one hint per identity per interval: the rest refused
