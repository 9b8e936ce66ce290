"""The Locust load test (``clashofdecks.web.loadtest``): its scenario plays real games against a real
server, its driver finds an acknowledged action that is missing from the store, bad settings are
refused.  No figure is asserted: the runs are short and the machine may be loaded.

Locust patches the standard library with gevent when it is imported, so it never is in this process:
the scenario runs in the driver's ``python -m locust`` subprocess."""

from __future__ import annotations

import importlib.util
import json
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from clashofdecks.web.loadtest.driver import (
    _without_password,
    check_acknowledged,
    read_acks,
    summary_markdown,
)
from clashofdecks.web.loadtest.settings import Settings
from conftest import pg_url

needs_loadtest = pytest.mark.skipif(
    importlib.util.find_spec("locust") is None or importlib.util.find_spec("websocket") is None,
    reason="the loadtest extra is not installed (pip install -e '.[web,loadtest]')",
)


def _loadtest(out: Path, *args: str) -> subprocess.CompletedProcess[str]:
    argv = [sys.executable, "-m", "clashofdecks.web.loadtest", "--out", str(out), *args]
    # A hang guard only: the run's own length plus the servers' start on a loaded machine.
    return subprocess.run(argv, capture_output=True, text=True, timeout=600, check=False)


def _summary(out: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    return data


@needs_loadtest
def test_the_scenario_plays_games_and_a_deleted_acknowledged_action_is_reported(tmp_path: Path) -> None:
    out = tmp_path / "run"
    # Players without a pause: a game of about 50 decisions ends in a few seconds.
    result = _loadtest(out, "--games", "2", "--duration", "20", "--pace", "0,0.02")
    assert result.returncode == 0, result.stdout + result.stderr
    summary = _summary(out)
    assert summary["errors"] == 0, summary["error_kinds"]
    assert summary["games_finished"] >= 1
    assert summary["actions_acknowledged"] > 20 and summary["deliveries"] > 20
    assert summary["lost_actions"] == 0 and summary["mismatched_actions"] == 0
    assert summary["ack_p99_ms"] is not None and summary["load_average_before"]
    assert summary["server_cpu_ms_per_action"] > 0 and summary["generator_cpu_ms_per_action"] > 0
    assert "| lost actions | 0 (mismatched: 0) |" in (out / "summary.md").read_text(encoding="utf-8")

    # The same store with one acknowledged action deleted: the check names it.
    acks = read_acks(out / "acks.jsonl")
    (game, index), (_seat, _action) = sorted(acks.items())[len(acks) // 2]
    db = out / "servers" / "web.sqlite3"
    with sqlite3.connect(db) as conn:
        assert conn.execute("DELETE FROM actions WHERE game_id = ? AND idx = ?", (game, index)).rowcount == 1
    check = check_acknowledged(f"sqlite:///{db}", out / "acks.jsonl")
    assert check.lost_count == 1 and check.lost == [(game, index)]
    assert check.acknowledged == len(acks) and check.mismatched_count == 0

    # And an action stored with another text than the one acknowledged is reported as such.
    other = next(key for key in sorted(acks) if key[0] != game or key[1] != index)
    with sqlite3.connect(db) as conn:
        conn.execute("UPDATE actions SET action = 'end' WHERE game_id = ? AND idx = ?", other)
    assert check_acknowledged(f"sqlite:///{db}", out / "acks.jsonl").mismatched == [other]


@needs_loadtest
@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--kill"], "killing a server needs at least 2 processes"),
        (["--processes", "2"], "need a shared PostgreSQL database"),
        (["--processes", "2", "--database", "sqlite:///x.db"], "need a shared PostgreSQL database"),
        (["--pace", "8,2"], "the pace must be"),
        (["--pace", "fast"], "LOW,HIGH"),
        (["--assign", "sticky"], "sticky"),
        (["--games", "0"], "--games"),
    ],
)
def test_bad_settings_are_usage_errors_before_anything_starts(
    tmp_path: Path, args: list[str], message: str
) -> None:
    out = tmp_path / "run"
    result = _loadtest(out, *args)
    assert result.returncode == 2, result.stdout + result.stderr
    assert message in result.stderr and "Traceback" not in result.stderr
    assert not (out / "servers").exists()


@needs_loadtest
@pytest.mark.skipif(not pg_url(), reason="CLASH_TEST_PG_URL is not set (no PostgreSQL server)")
def test_two_processes_one_killed_halfway_lose_no_acknowledged_action(tmp_path: Path) -> None:
    """Each seat on a process of its own choosing (``split``: no sticky sessions); the
    killed process's players reconnect to the other, which takes their games up from the store."""
    out = tmp_path / "run"
    url = str(pg_url())
    args = ["--games", "4", "--processes", "2", "--assign", "split", "--kill", "--database", url]
    result = _loadtest(out, *args, "--duration", "24", "--pace", "0.05,0.2")
    assert result.returncode == 0, result.stdout + result.stderr
    summary = _summary(out)
    assert summary["killed_after_s"] is not None
    assert summary["actions_acknowledged"] > 20
    assert summary["lost_actions"] == 0 and summary["mismatched_actions"] == 0
    assert ":***@" in summary["config"]["database"] and url not in (out / "summary.json").read_text()
    # Every drop was the kill's: no "connection lost", no error frame, no seat left behind.
    kinds = {kind["name"] for kind in summary["error_kinds"]}
    assert not kinds & {"connection lost", "error frame", "reconnect failed", "stalled"}, kinds


def test_settings_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CLASH_LOADTEST_ADDRESSES", "http://a:1/, http://b:2")
    monkeypatch.setenv("CLASH_LOADTEST_ASSIGN", "same")
    monkeypatch.setenv("CLASH_LOADTEST_PACE", "1,3")
    settings = Settings.from_env(None)
    assert settings.addresses == ("http://a:1", "http://b:2") and settings.same_process
    assert settings.pace == (1.0, 3.0) and settings.killed() == set()
    monkeypatch.delenv("CLASH_LOADTEST_ADDRESSES")
    assert Settings.from_env("http://h:3").addresses == ("http://h:3",)
    with pytest.raises(ValueError, match="no server address"):
        Settings.from_env(None)
    monkeypatch.setenv("CLASH_LOADTEST_ASSIGN", "sticky")
    with pytest.raises(ValueError, match="split, same"):
        Settings.from_env("http://h:3")


def test_summary_markdown_lists_the_figures_and_the_errors() -> None:
    summary = {
        "games": 5000,
        "games_played": 5100,
        "games_finished": 90,
        "processes": 2,
        "database": "PostgreSQL",
        "assign": "split",
        "duration_s": 300.0,
        "pace_s": [2.0, 8.0],
        "actions_acknowledged": 12345,
        "actions_per_s": 41.2,
        "ack_p50_ms": 12.0,
        "ack_p95_ms": 40.0,
        "ack_p99_ms": 80.0,
        "ack_max_ms": 300.5,
        "delivery_p99_ms": None,
        "deliveries": 0,
        "errors": 3,
        "error_kinds": [{"name": "stalled", "error": "no frame", "occurrences": "3"}],
        "killed_after_s": 150.2,
        "reconnects_after_kill": 10,
        "reconnect_p99_ms": 400.0,
        "lost_actions": 0,
        "mismatched_actions": 0,
        "server_cpu_ms_per_action": 1.234,
        "generator_cpu_ms_per_action": None,
        "load_average_before": [1.5, 1.0, 1.0],
        "load_average_during": [3.25, 2.0, 1.0],
        "open_file_limit": 1048576,
    }
    text = summary_markdown(summary)
    assert "| act→ack p50 · p95 · p99 · max | 12 ms · 40 ms · 80 ms · 300 ms |" in text
    assert "| act→other seat p99 | — (0 deliveries) |" in text
    assert "after 150 s; 10 seats reconnected (p99 400 ms)" in text
    assert "| load average (1 min) before · during | 1.50 · 3.25 |" in text
    assert "- 3× stalled: no frame" in text
    assert "| CPU per action: servers · Locust | 1.23 ms · — |" in text


def test_the_summary_never_shows_the_database_password() -> None:
    assert (
        _without_password("postgresql://clash:secret@db:5432/clash") == "postgresql://clash:***@db:5432/clash"
    )
    assert _without_password("postgresql://clash@db/clash") == "postgresql://clash@db/clash"
    assert _without_password("sqlite:////tmp/web.sqlite3") == "sqlite:////tmp/web.sqlite3"
    assert _without_password(None) is None
