"""The web load benchmark runs (a few duels; the figures themselves are not asserted).

It runs as the command a user types, in its own process: the benchmark starts its own event loop,
which must not meet one left running by another test in this process (Playwright's, say)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import pg_url


def test_clash_bench_web_small() -> None:
    code = "from clashofdecks.cli import main; main()"
    argv = [sys.executable, "-c", code, "bench", "--web", "--web-duels", "3", "--json"]
    # A hang guard only, above the benchmark's own bounds (60 s for the server to start, 300 s for the
    # duels): on a loaded machine the run may be slow, and slowness is not what this test checks.
    result = subprocess.run(argv, capture_output=True, text=True, timeout=900, check=False)
    assert result.returncode == 0, result.stdout + result.stderr
    data = json.loads(result.stdout)
    assert data["duels"] == 3 and data["finished"] == 3
    assert "processes" not in data  # the one-process output is as it was
    assert data["errors"] == []
    assert data["actions"] > 60 and data["p99_ms"] >= data["p50_ms"] > 0


def test_the_bench_runs_as_in_production_and_reports_the_cost_counters() -> None:
    """A worker process beside the server (its CPU counted with it), no automatic analysis, the
    cost counters per action from /metrics, the load average."""
    result = _bench("--web", "--web-duels", "2", "--json")
    assert result.returncode == 0, result.stdout + result.stderr
    data = json.loads(result.stdout)
    assert data["finished"] == 2 and data["errors"] == [] and data["analysis"] is False
    assert data["analyses"] is None and data["workers_cpu_ms_per_action"] is not None
    counters = data["counters_per_action"]
    assert set(counters) == {
        "sql_statements",
        "frames_sent",
        "frame_bytes_sent",
        "sentence_renders",
        "position_dumps",
    }
    assert 2 <= counters["frames_sent"] < 3 and counters["sentence_renders"] > 1
    # One position dump per action for both seats' frames (and one per page opening).
    assert 1 <= counters["position_dumps"] < 1.5
    assert data["load_before"] is not None and data["version"]


def test_bots_of_protocol_2_play_whole_duels_on_deltas_for_fewer_bytes() -> None:
    """``--protocol 2``: the bots ask for deltas (rebuilding each full frame from them) and play
    whole duels without an error; a frame after a move is a delta, so the bytes sent per action
    fall well under version 1's."""
    runs = {}
    for version in (1, 2):
        result = _bench("--web", "--web-duels", "3", "--protocol", str(version), "--json")
        assert result.returncode == 0, result.stdout + result.stderr
        runs[version] = data = json.loads(result.stdout)
        assert data["protocol"] == version and data["finished"] == 3 and data["errors"] == []
    per_action = {v: data["counters_per_action"] for v, data in runs.items()}
    assert per_action[2]["frames_sent"] == pytest.approx(per_action[1]["frames_sent"], rel=0.1)
    # About 0.6 at 100 duels (docs/performance.md); three duels vary more, so the margin is wider.
    assert per_action[2]["frame_bytes_sent"] < 0.75 * per_action[1]["frame_bytes_sent"]


def test_bench_protocol_belongs_to_web() -> None:
    result = _bench("--protocol", "2")
    assert result.returncode == 2 and "--protocol belongs to --web" in result.stderr
    result = _bench("--web", "--protocol", "3")
    assert result.returncode == 2 and "--protocol" in result.stderr


def test_paced_bots_play_until_the_duration_ends_without_an_error() -> None:
    result = _bench("--web", "--web-duels", "2", "--pace", "0.01,0.05", "--duration", "3", "--json")
    assert result.returncode == 0, result.stdout + result.stderr
    data = json.loads(result.stdout)
    assert data["pace"] == [0.01, 0.05] and data["errors"] == [] and data["actions"] > 0


def test_a_baseline_runs_beside_this_version(tmp_path: Path) -> None:
    """``--baseline-venv``: the same bench against another installed version (here this one again,
    through a "venv" whose python runs this interpreter), both printed."""
    (tmp_path / "bin").mkdir()
    python = tmp_path / "bin" / "python"
    python.write_text(f'#!/bin/sh\nexec "{sys.executable}" "$@"\n')
    python.chmod(0o755)
    result = _bench("--web", "--web-duels", "1", "--baseline-venv", str(tmp_path), "--json")
    assert result.returncode == 0, result.stdout + result.stderr
    data = json.loads(result.stdout)
    assert set(data) == {"this", "baseline"}
    assert data["baseline"]["python"] == str(tmp_path / "bin" / "python")
    assert data["this"]["finished"] == data["baseline"]["finished"] == 1


def test_bots_still_playing_at_the_deadline_are_reported() -> None:
    code = (
        "import json; from clashofdecks.web.loadtest.bench import run_web_bench; "
        "print(json.dumps(run_web_bench(duels=2, seconds=0.05).to_dict()))"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=300, check=False
    )
    assert result.returncode == 0, result.stdout + result.stderr
    data = json.loads(result.stdout)
    assert data["finished"] == 0
    assert data["errors"] == ["4 bots were still playing after 0.05 s"]


def _bench(*args: str) -> subprocess.CompletedProcess[str]:
    code = "from clashofdecks.cli import main; main()"
    return subprocess.run(
        [sys.executable, "-c", code, "bench", *args], capture_output=True, text=True, timeout=900, check=False
    )


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--web", "--processes", "2"], "--processes above 1 needs --database postgresql://"),
        (["--web", "--processes", "2", "--database", "sqlite:///x.db"], "needs --database postgresql://"),
        (["--web", "--processes", "0"], "--processes"),
        (["--web", "--processes", "65"], "--processes"),
        (["--processes", "2"], "belong to --web"),
        (["--database", "postgresql://u@h/db"], "belong to --web"),
        (["--analysis"], "belong to --web"),
        (["--pace", "2,8"], "belong to --web"),
        (["--web", "--pace", "8"], "LOW,HIGH"),
        (["--web", "--pace", "8,2"], "LOW <= HIGH"),
        (["--web", "--baseline-venv", "/no/such/venv"], "--baseline-venv"),
    ],
)
def test_bench_web_processes_arguments(args: list[str], message: str) -> None:
    result = _bench(*args)
    assert result.returncode == 2, result.stdout + result.stderr
    assert message in result.stderr and "Traceback" not in result.stderr


@pytest.mark.skipif(not pg_url(), reason="CLASH_TEST_PG_URL is not set (no PostgreSQL server)")
def test_bench_web_on_two_processes_of_one_database() -> None:
    result = _bench("--web", "--web-duels", "4", "--processes", "2", "--database", str(pg_url()), "--json")
    assert result.returncode == 0, result.stdout + result.stderr
    data = json.loads(result.stdout)
    assert data["processes"] == 2 and data["duels"] == 4 and data["finished"] == 4
    assert data["errors"] == [] and data["actions"] > 60
    assert data["server_cpu_ms_per_action"] is not None
    assert isinstance(data["unfinished_before"], int)  # what the database held before: said beside


def test_the_bench_counts_the_unfinished_games_a_database_already_holds(tmp_path: Path) -> None:
    """A paced run leaves its games open; a later run on that database is told (its servers scan them)."""
    import sqlalchemy as sa

    from clashofdecks.web.loadtest.bench import unfinished_games
    from clashofdecks.web.store import open_store

    url = f"sqlite:///{tmp_path / 'web.sqlite3'}"
    assert unfinished_games(url) == 0  # no schema yet
    open_store(url).close()
    engine = sa.create_engine(url)
    with engine.begin() as conn:
        for i, status in enumerate(("active", "over", "active")):
            conn.execute(
                sa.text(
                    "INSERT INTO games (id, kind, mode, format, setup, status, n_actions,"
                    " created_at, updated_at) VALUES (:id, 'friend', 'duel', 'draft', '{}', :status, 0, 0, 0)"
                ),
                {"id": f"g{i}", "status": status},
            )
    engine.dispose()
    assert unfinished_games(url) == 2


def test_without_the_loadtest_extra_the_bench_says_which_extra_to_install(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import importlib.util

    from click.testing import CliRunner

    from clashofdecks.cli import main

    real = importlib.util.find_spec

    def without_locust(name: str, *args: object) -> object:
        return None if name == "locust" else real(name, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(importlib.util, "find_spec", without_locust)
    result = CliRunner().invoke(main, ["bench", "--web", "--web-duels", "1"])
    assert result.exit_code == 2
    assert "loadtest extra" in result.output and "pip install -e '.[web,loadtest]'" in result.output
    assert "Traceback" not in result.output


def test_only_the_bench_command_reaches_the_load_tooling() -> None:
    """The bench and the load test live in ``clashofdecks.web.loadtest`` (issue 37, item 7): no
    module outside it imports it but the ``clash bench`` command, and an app made to serve has not
    loaded it."""
    import ast

    import clashofdecks

    root = Path(clashofdecks.__file__).parent
    reaching = []
    for path in root.rglob("*.py"):
        rel = path.relative_to(root).as_posix()
        if rel.startswith("web/loadtest/"):
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module and "loadtest" in node.module:
                reaching.append(rel)
    assert sorted(set(reaching)) == ["cli/attack_bench.py", "cli/bench_cmd.py"]  # clash bench, --attack
    probe = (
        "import sys; from clashofdecks.web.app import create_app; from clashofdecks.web.server import "
        "ServerConfig; create_app(ServerConfig()); "
        "print([m for m in sys.modules if m.startswith('clashofdecks.web.loadtest')])"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, timeout=300, check=False
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"
