"""The web load benchmark runs (a few duels; the figures themselves are not asserted).

It runs as the command a user types, in its own process: the benchmark starts its own event loop,
which must not meet one left running by another test in this process (Playwright's, say)."""

from __future__ import annotations

import json
import subprocess
import sys


def test_clash_bench_web_small() -> None:
    code = "from clashofdecks.cli import main; main()"
    argv = [sys.executable, "-c", code, "bench", "--web", "--web-duels", "3", "--json"]
    result = subprocess.run(argv, capture_output=True, text=True, timeout=300, check=False)
    assert result.returncode == 0, result.stdout + result.stderr
    data = json.loads(result.stdout)
    assert data["duels"] == 3 and data["finished"] == 3
    assert data["errors"] == []
    assert data["actions"] > 60 and data["p99_ms"] >= data["p50_ms"] > 0
