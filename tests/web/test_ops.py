"""The operator's side of ``clash serve`` (issue 25, "Operable"; docs/web.md, "Operating"): health
and readiness, the access log (and that no secret reaches it), Prometheus metrics (absent by default,
moving when a game is played), forwarded client addresses from trusted proxies only, and the SQLite
lock that keeps a second process off one SQLite file."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import uvicorn

from clashofdecks.web import routes_ops
from clashofdecks.web.app import create_app
from clashofdecks.web.routes_ops import OpsConfig
from clashofdecks.web.server import ServerConfig
from conftest import Client, ServerProcess, free_port


def _fetch(url: str, headers: dict[str, str] | None = None, data: bytes | None = None) -> tuple[int, bytes]:
    sent = dict(headers or {})
    if data is not None:
        sent.setdefault("Content-Type", "application/json")
    req = urllib.request.Request(url, data=data, headers=sent, method="POST" if data is not None else "GET")
    try:
        with urllib.request.urlopen(req, timeout=30) as r:
            return r.status, r.read()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read()


def _wait_for_line(path: Path, pattern: str, guard: float = 60.0) -> str:
    """The log's text once a line matches ``pattern`` (a hang guard, not a timed assertion)."""
    deadline = time.monotonic() + guard
    while True:
        text = path.read_text(encoding="utf-8") if path.exists() else ""
        if re.search(pattern, text, re.M):
            return text
        if time.monotonic() > deadline:
            raise AssertionError(f"no line matching {pattern!r} in:\n{text[-3000:]}")
        time.sleep(0.1)


def _metric(text: str, name: str) -> float:
    match = re.search(rf"^{re.escape(name)} (\S+)$", text, re.M)
    assert match is not None, f"{name} missing from the metrics"
    return float(match.group(1))


@pytest.fixture(scope="module")
def operated(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[ServerProcess, Path, int]]:
    """A server with an access log file and a metrics listener."""
    data = tmp_path_factory.mktemp("ops")
    access = data / "access.log"
    metrics_port = free_port()
    proc = ServerProcess(
        data,
        "--rate",
        "200",
        "--agent-workers",
        "0",
        "--access-log",
        str(access),
        "--metrics-port",
        str(metrics_port),
    ).start()
    yield proc, access, metrics_port
    proc.stop()


def test_health_and_readiness_answer_without_a_session(operated: tuple[ServerProcess, Path, int]) -> None:
    proc, _access, _port = operated
    assert _fetch(proc.url + "/healthz") == (200, b'{"status":"alive"}')
    status, body = _fetch(proc.url + "/readyz")
    assert status == 200 and json.loads(body) == {"status": "ready"}


def test_the_access_log_has_a_line_per_request_and_socket_and_no_secret(
    operated: tuple[ServerProcess, Path, int],
) -> None:
    proc, access, _port = operated
    session = proc.guest()
    secret_query = "token=QUERYSECRET1234"
    headers = {"Authorization": f"Bearer {session}", "Cookie": f"clash_session={session}"}
    assert _fetch(f"{proc.url}/api/lobby?{secret_query}", headers)[0] == 200
    game = proc.new_game(kind="friend", format="draft")
    invite_token = game["invite"].split("#t=")[1]
    client = Client(proc, game["id"], game["tokens"], session=game["session"])
    if client.state["legal"]:  # the creator's seat may not be the first to decide
        client.act(client.state["legal"][0])
    client.close()
    text = _wait_for_line(access, r'"WEBSOCKET /ws HTTP/1\.1" 101 \d+ [\d.]+ close \d+$')
    assert re.search(r'^127\.0\.0\.1 - - \[[^]]+\] "GET /api/lobby HTTP/1\.1" 200 \d+ [\d.]+$', text, re.M)
    assert re.search(r'"POST /api/identities HTTP/1\.1" 200 \d+ ', text)
    assert re.search(r'"POST /api/games HTTP/1\.1" 200 \d+ ', text)
    assert re.search(r'"WEBSOCKET /ws HTTP/1\.1" 101 - [\d.]+ open$', text, re.M)
    for secret in (session, game["session"], *game["tokens"], invite_token, "QUERYSECRET1234"):
        assert secret not in text, "a secret reached the access log"
    assert "?" not in text  # no query string at all


def test_metrics_listen_apart_and_move_when_a_game_is_played(
    operated: tuple[ServerProcess, Path, int],
) -> None:
    proc, _access, metrics_port = operated
    metrics_url = f"http://127.0.0.1:{metrics_port}/metrics"
    status, before = _fetch(metrics_url)
    assert status == 200
    accepted, acked = (
        _metric(before.decode(), "clash_actions_accepted_total"),
        _metric(before.decode(), "clash_action_latency_seconds_count"),
    )
    assert _metric(before.decode(), "process_resident_memory_bytes") > 0
    game = proc.new_game(kind="solo", format="draft", level=2)
    client = Client(proc, game["id"], game["tokens"])
    for _ in range(5):
        client.act(client.state["legal"][0])
    during = _fetch(metrics_url)[1].decode()
    client.close()
    assert _metric(during, "clash_actions_accepted_total") >= accepted + 5
    assert _metric(during, "clash_action_latency_seconds_count") == acked + 5
    assert _metric(during, "clash_connected_players") >= 1
    assert _metric(during, "clash_games_in_progress") >= 1
    assert _metric(during, "clash_queue_length") == 0
    # The metrics listener serves nothing else, and the main port no metrics (no --metrics-allow).
    assert _fetch(f"http://127.0.0.1:{metrics_port}/api/lobby")[0] == 404
    assert _fetch(proc.url + "/metrics")[0] == 404


def test_readiness_fails_with_a_reason_when_the_database_does_not_answer(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = ServerConfig(database_url=f"sqlite:///{tmp_path / 'r.sqlite3'}", agent_workers=0)
    app = create_app(config, OpsConfig())
    port = free_port()
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    while not server.started:  # start-up, not a timed assertion
        assert thread.is_alive(), "the server did not start"
        time.sleep(0.05)
    game_server = app.state.server
    try:
        assert _fetch(f"http://127.0.0.1:{port}/readyz")[0] == 200

        async def broken(fn: Any) -> Any:
            raise OSError("connection refused")

        monkeypatch.setattr(game_server, "run_db", broken)
        status, body = _fetch(f"http://127.0.0.1:{port}/readyz")
        assert status == 503 and json.loads(body)["reason"] == "the database is unreachable (OSError)"

        async def hanging(fn: Any) -> Any:
            import asyncio

            await asyncio.sleep(3600)

        monkeypatch.setattr(game_server, "run_db", hanging)
        monkeypatch.setattr(routes_ops, "READY_TIMEOUT", 0.2)
        status, body = _fetch(f"http://127.0.0.1:{port}/readyz")
        assert status == 503 and "did not answer" in json.loads(body)["reason"]
        assert _fetch(f"http://127.0.0.1:{port}/healthz")[0] == 200  # alive all the same
    finally:
        server.should_exit = True
        thread.join(timeout=30)


def test_forwarded_addresses_are_ignored_from_an_untrusted_peer(tmp_path: Path) -> None:
    access = tmp_path / "access.log"
    # The test connects from 127.0.0.1; only 10.255.0.1 (no one here) may forward addresses.
    proc = ServerProcess(
        tmp_path, "--create-rate", "1", "--forwarded-allow-ips", "10.255.0.1", "--access-log", str(access)
    ).start()
    try:
        url = proc.url + "/api/identities"
        first = _fetch(url, {"X-Forwarded-For": "203.0.113.7"}, b'{"bearer": true}')
        second = _fetch(url, {"X-Forwarded-For": "203.0.113.8"}, b'{"bearer": true}')
        assert first[0] == 200 and second[0] == 429  # one address, one bucket: the header changed nothing
        text = _wait_for_line(access, r'"POST /api/identities HTTP/1\.1" 429')
        assert "203.0.113" not in text and text.count("127.0.0.1 - - ") >= 2
        assert _fetch(proc.url + "/metrics")[0] == 404  # no metrics without --metrics-port/--metrics-allow
    finally:
        proc.stop()


def test_forwarded_addresses_are_used_from_a_trusted_proxy(tmp_path: Path) -> None:
    # A proxy on this machine, named; the access log goes to stderr (the server's log here).
    proc = ServerProcess(
        tmp_path, "--create-rate", "1", "--metrics-allow", "203.0.113.9", "--forwarded-allow-ips", "127.0.0.1"
    ).start()
    try:
        url = proc.url + "/api/identities"
        body = b'{"bearer": true}'
        assert _fetch(url, {"X-Forwarded-For": "203.0.113.7"}, body)[0] == 200
        assert _fetch(url, {"X-Forwarded-For": "203.0.113.8"}, body)[0] == 200  # another client's bucket
        assert _fetch(url, {"X-Forwarded-For": "203.0.113.7"}, body)[0] == 429
        _wait_for_line(proc.log, r'^203\.0\.113\.7 - - \[[^]]+\] "POST /api/identities HTTP/1\.1" 429 ')
        assert _fetch(proc.url + "/metrics", {"X-Forwarded-For": "203.0.113.9"})[0] == 200
        assert _fetch(proc.url + "/metrics", {"X-Forwarded-For": "203.0.113.10"})[0] == 404
        assert _fetch(proc.url + "/metrics")[0] == 404
    finally:
        proc.stop()


def _serve(data: Path, *args: str) -> subprocess.CompletedProcess[str]:
    cmd = [sys.executable, "-m", "clashofdecks", "serve", "--port", str(free_port()), *args]
    env = {**os.environ, "CLASH_DATA_DIR": str(data)}
    return subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=120)


def test_a_second_process_on_one_sqlite_file_is_refused_until_the_first_dies(tmp_path: Path) -> None:
    first = ServerProcess(tmp_path, "--agent-workers", "0").start()
    try:
        refused = _serve(tmp_path, "--agent-workers", "0")
        assert refused.returncode == 1
        lines = refused.stderr.strip().splitlines()
        assert len(lines) == 1 and "SQLite" in lines[0] and "PostgreSQL" in lines[0], refused.stderr
        assert "running at" not in refused.stdout
        assert _serve(tmp_path, "--migrate-only").returncode == 1  # no migration under a running server
        assert first.proc is not None
        first.proc.send_signal(signal.SIGKILL)  # the kernel releases the lock of a killed process
        first.proc.wait(timeout=30)
        first.proc = None
        second = ServerProcess(tmp_path, "--agent-workers", "0").start()
        assert _fetch(second.url + "/readyz")[0] == 200
        second.stop()
    finally:
        first.stop()


def test_migrate_only_migrates_and_exits(tmp_path: Path) -> None:
    done = _serve(tmp_path, "--migrate-only")
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("The database is at revision 0") and "running at" not in done.stdout
    assert (tmp_path / "web.sqlite3").exists()


def test_the_access_log_file_is_reopened_after_logrotate_moves_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from clashofdecks.web import access_log

    monkeypatch.setattr(access_log, "_REOPEN_CHECK_SECONDS", 0.0)  # look at every line
    path = tmp_path / "access.log"
    log = access_log.AccessLog.open(str(path))
    assert log is not None and access_log.AccessLog.open("off") is None
    log.write("first line")
    path.rename(tmp_path / "access.log.1")
    log.write("second line")
    log.close()
    assert path.read_text(encoding="utf-8") == "second line\n"
    assert (tmp_path / "access.log.1").read_text(encoding="utf-8") == "first line\n"
