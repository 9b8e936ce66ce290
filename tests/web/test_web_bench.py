"""The web load benchmark runs (a few duels; the figures themselves are not asserted)."""

from __future__ import annotations

import json

from click.testing import CliRunner

from clashofdecks.cli import main


def test_clash_bench_web_small() -> None:
    result = CliRunner().invoke(main, ["bench", "--web", "--web-duels", "3", "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["duels"] == 3 and data["finished"] == 3
    assert data["errors"] == []
    assert data["actions"] > 60 and data["p99_ms"] >= data["p50_ms"] > 0
