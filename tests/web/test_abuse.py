"""A server no single client can slow down or stop (issue 33; docs/web.md, "Threats"): bounded work
(records, game length, the hello log, heavy GETs), socket floods, connection caps and deadlines,
the Host allow-list and headers, numbers out of range, names on every path.  Each cap is lowered
with ``--limit`` so the test reaches it in a few requests; nothing here measures time."""

from __future__ import annotations

import http.client
import json
import resource
import socket
from pathlib import Path
from typing import Any

import pytest
from websockets.exceptions import ConnectionClosed, InvalidStatus
from websockets.sync.client import connect

from conftest import Client, ServerProcess


def _request(
    proc: ServerProcess,
    method: str,
    path: str,
    body: Any = None,
    *,
    source: str = "127.0.0.1",
    **headers: str,
) -> tuple[int, Any, http.client.HTTPResponse]:
    conn = http.client.HTTPConnection("127.0.0.1", proc.port, timeout=30, source_address=(source, 0))
    try:
        data = None if body is None else (body if isinstance(body, bytes) else json.dumps(body).encode())
        sent = {"Content-Type": "application/json", **headers} if data is not None else dict(headers)
        conn.request(method, path, data, sent)
        response = conn.getresponse()
        raw = response.read()
        try:
            parsed = json.loads(raw) if raw else None
        except ValueError:
            parsed = raw
        return response.status, parsed, response
    finally:
        conn.close()


@pytest.fixture
def tight(tmp_path: Path) -> Any:
    """``tight(*args)``: a server started with these extra arguments, stopped after the test."""
    started: list[ServerProcess] = []

    def start(*args: str) -> ServerProcess:
        proc = ServerProcess(tmp_path / f"s{len(started)}", "--agent-workers", "0", *args).start()
        started.append(proc)
        return proc

    yield start
    for proc in started:
        proc.stop()


# ------------------------------------------------------------------ 1. bounded work


def test_a_record_above_the_action_cap_is_refused_before_it_is_replayed(tight: Any) -> None:
    proc = tight("--limit", "record_actions=5")
    record = {"record_version": 1, "mode": "duel", "format": "precon", "seed": 1, "actions": ["end"] * 6}
    status, body = proc.post("/api/import", record)
    assert status == 400 and "at most 5 actions" in body["error"], body
    status, body = proc.post("/api/import", {**record, "actions": []})
    assert status == 200, body


def test_a_web_game_ends_in_a_draw_at_the_turn_cap(tight: Any) -> None:
    """Two people at one device ending every turn: without a cap the game grows without end."""
    proc = tight("--limit", "max_turns=2")
    game = proc.new_game(kind="hotseat", format="precon")
    c = Client(proc, game["id"], game["tokens"])
    for _ in range(200):
        if c.state["phase"] == "over":
            break
        legal = c.state["legal"]
        c.act("end" if "end" in legal else legal[0])
    assert c.state["phase"] == "over"
    assert c.state["result"]["winner"] is None
    c.close()


def test_the_hello_log_holds_the_latest_events_only(tight: Any) -> None:
    proc = tight("--limit", "hello_log_events=3")
    game = proc.new_game(kind="hotseat", format="precon")
    c = Client(proc, game["id"], game["tokens"])
    for _ in range(6):
        legal = c.state["legal"]
        c.act("end" if "end" in legal else legal[0])
    c.close()
    watcher = Client(proc, game["id"], [])
    assert 0 < len(watcher.state["log"]) <= 3
    watcher.close()


def test_records_replays_and_analyses_are_limited_per_address(tight: Any) -> None:
    proc = tight("--limit", "heavy_per_minute=2")
    unknown = "0" * 24
    assert proc.get(f"/api/games/{unknown}/record")[0] == 404
    assert proc.get(f"/api/games/{unknown}/replay")[0] == 404
    status, body = proc.get(f"/api/games/{unknown}/analysis")
    assert status == 429 and body["code"] == "rate_limited"
    # Another address has its own allowance; the lobby is not limited.
    assert _request(proc, "GET", f"/api/games/{unknown}/record", source="127.0.0.2")[0] == 404
    assert proc.get("/api/lobby")[0] == 200


# ------------------------------------------------------------------ 2. floods


def test_a_flooding_socket_gets_one_error_and_is_closed(tight: Any) -> None:
    proc = tight("--rate", "5", "--limit", "flood_drops=20")
    body = proc.new_game(kind="solo", format="precon", deck=1)
    c = Client(proc, body["id"], body["tokens"])
    index = c.state["index"]
    for _ in range(60):
        try:
            c.send({"type": "act", "action": "end", "index": index})
        except ConnectionClosed:
            break
    frames: list[dict[str, Any]] = []
    with pytest.raises(ConnectionClosed) as closed:
        while True:
            frames.append(c.recv())
    assert closed.value.rcvd is not None and closed.value.rcvd.code == 1008
    codes = [f.get("code", f["type"]) for f in frames]
    assert codes.count("rate_limited") == 1, codes  # the excess is dropped, not answered
    # The game is untouched by the flood beyond the first action, and an honest socket plays on.
    honest = Client(proc, body["id"], body["tokens"], session=c.session)
    assert honest.state["index"] <= index + 1
    honest.close()


# ------------------------------------------------------------------ 3. connections


def test_a_socket_that_says_nothing_is_closed(tight: Any) -> None:
    proc = tight("--limit", "first_message_seconds=0.2")
    with connect(proc.ws_url) as ws, pytest.raises(ConnectionClosed) as closed:
        ws.recv(timeout=30)
    assert closed.value.rcvd is not None and closed.value.rcvd.code == 1008


def test_sockets_are_capped_per_identity_and_per_address(tight: Any) -> None:
    proc = tight("--limit", "sockets_per_identity=2", "--limit", "sockets_per_address=3")
    me = proc.guest()
    bearer = {"Authorization": f"Bearer {me}"}
    opened = [connect(proc.ws_url, additional_headers=bearer) for _ in range(2)]
    with pytest.raises(InvalidStatus):
        connect(proc.ws_url, additional_headers=bearer)
    opened.append(connect(proc.ws_url))  # another client of this address: the third
    with pytest.raises(InvalidStatus):
        connect(proc.ws_url)
    opened[0].close()  # a closed socket frees its place
    opened.append(connect(proc.ws_url, additional_headers=bearer))
    for ws in opened:
        ws.close()


def test_above_the_servers_concurrency_requests_get_a_503(tight: Any) -> None:
    """uvicorn's ``limit_concurrency`` is the ``concurrency`` cap: with two sockets open on a server
    that allows two connections, a request is answered 503 (at the default, 10,000, far above the
    per-address caps, those act first)."""
    proc = tight("--limit", "concurrency=2")
    assert _request(proc, "GET", "/api/cards")[0] == 200
    with connect(proc.ws_url), connect(proc.ws_url):
        assert _request(proc, "GET", "/api/cards")[0] == 503


def test_sockets_opened_are_limited_per_address(tight: Any) -> None:
    """A flood closed at ``flood_drops`` cannot come straight back on new sockets without end."""
    proc = tight("--limit", "socket_opens_per_minute=2")
    with connect(proc.ws_url), connect(proc.ws_url):
        pass
    with pytest.raises(InvalidStatus):
        connect(proc.ws_url)
    status, _body, _r = _request(proc, "GET", "/api/cards", source="127.0.0.1")
    assert status == 200  # HTTP is not limited by it


def test_a_request_whose_headers_never_end_is_closed(tight: Any) -> None:
    proc = tight("--limit", "header_seconds=0.2")
    with socket.create_connection(("127.0.0.1", proc.port), timeout=30) as s:
        s.sendall(b"GET /api/cards HTTP/1.1\r\nHost: 127.0.0.1\r\n")  # never the blank line
        assert s.recv(100) == b""  # closed by the server (a timeout here raises)


def test_serve_raises_its_open_file_limit(tmp_path: Path) -> None:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    low = min(1024, hard)
    if low == hard:
        pytest.skip("the hard open-file limit is 1,024 or less: nothing to raise")
    resource.setrlimit(resource.RLIMIT_NOFILE, (low, hard))
    try:
        proc = ServerProcess(tmp_path, "--agent-workers", "0").start()
    finally:
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))
    try:
        assert proc.proc is not None
        limits = Path(f"/proc/{proc.proc.pid}/limits").read_text()
        line = next(x for x in limits.splitlines() if x.startswith("Max open files"))
        assert line.split()[3] == line.split()[4], line  # soft == hard
    finally:
        proc.stop()


# ------------------------------------------------------------------ 7. headers and parsing


def test_another_host_name_is_refused_and_answers_carry_the_security_headers(tight: Any) -> None:
    proc = tight("--public-url", "http://cards.example.org", "--allowed-host", "games.example.net")
    status, _body, response = _request(proc, "GET", "/api/cards", Host="rebind.example")
    assert status == 400
    for host in (
        f"127.0.0.1:{proc.port}",
        f"localhost:{proc.port}",
        "cards.example.org",
        "games.example.net",
    ):
        status, _body, response = _request(proc, "GET", "/api/cards", Host=host)
        assert status == 200, host
    assert response.getheader("X-Content-Type-Options") == "nosniff"
    assert response.getheader("Referrer-Policy") == "same-origin"
    with socket.create_connection(("127.0.0.1", proc.port), timeout=30) as s:
        s.sendall(
            b"GET /ws HTTP/1.1\r\nHost: rebind.example\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            b"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"
        )
        assert not s.recv(100).startswith(b"HTTP/1.1 101")


def test_no_proxy_is_trusted_by_default(tight: Any) -> None:
    """127.0.0.1 is not a trusted proxy unless named: a local client cannot pick its address."""
    proc = tight("--create-rate", "1")
    first = _request(proc, "POST", "/api/identities", {"bearer": True}, **{"X-Forwarded-For": "203.0.113.7"})
    second = _request(proc, "POST", "/api/identities", {"bearer": True}, **{"X-Forwarded-For": "203.0.113.8"})
    assert first[0] == 200 and second[0] == 429


def test_numbers_out_of_range_are_a_400(server: ServerProcess) -> None:
    huge = b'{"kind": "solo", "deck": ' + b"9" * 5000 + b"}"
    assert server.post("/api/games", None, raw=huge)[0] == 400
    assert server.post("/api/me", None, raw=b'{"display_name": ' + b"9" * 5000 + b"}")[0] == 400
    assert server.post("/api/import", None, raw=b'{"seed": ' + b"9" * 5000 + b"}")[0] == 400
    for seed in (1 << 63, 1 << 70, -1):
        record = {"record_version": 1, "mode": "duel", "format": "precon", "seed": seed, "actions": []}
        status, body = server.post("/api/import", record)
        assert status == 400 and "seed" in body["error"], (seed, body)
    # A socket message is at most 4 KiB: its numbers stay below Python's 4,300 digits, and are ranged.
    game = server.new_game(kind="solo", format="precon")
    c = Client(server, game["id"], game["tokens"])
    c.send('{"type": "ping", "id": ' + "9" * 4000 + "}")
    assert c.expect_error("bad_field")
    c.close()


# ------------------------------------------------------------------ 6. names


@pytest.mark.parametrize("name", ["a\u202eb", "a\u200bb", "a\x00b", "x" * 41, "a\nb"])
def test_every_name_follows_the_display_name_rule(server: ServerProcess, name: str) -> None:
    before = server.get("/api/lobby")[1]["open"]
    for options in ({"kind": "friend", "name": name}, {"kind": "hotseat", "name2": name}):
        status, body = server.post("/api/games", options)
        assert status == 400 and "name" in body["error"], body
    record = {"record_version": 1, "mode": "duel", "format": "precon", "seed": 1, "actions": []}
    status, body = server.post("/api/import", {**record, "players": [name, "b"]})
    assert status == 400 and "name" in body["error"], body
    assert server.get("/api/lobby")[1]["open"] == before
    game = server.new_game(kind="solo", format="precon")
    ws = connect(server.ws_url, additional_headers={"Authorization": f"Bearer {game['session']}"})
    ws.send(json.dumps({"type": "hello", "game": game["id"], "name": name}))
    frame = json.loads(ws.recv(timeout=30))
    assert frame["type"] == "error" and frame["code"] == "bad_field", frame
    ws.close()


def test_a_name_with_nul_is_a_400_on_postgresql(pg_processes: Any) -> None:
    """PostgreSQL refuses NUL in text: a name holding one was an HTTP 500 there, on every path."""
    (proc,) = pg_processes(1, "--agent-workers", "0")
    status, body = proc.post("/api/games", {"kind": "friend", "name": "a\x00b"})
    assert status == 400 and "name" in body["error"], body
    record = {"record_version": 1, "mode": "duel", "format": "precon", "seed": 1, "actions": []}
    status, body = proc.post("/api/import", {**record, "players": ["a\x00b", "b"]})
    assert status == 400 and "name" in body["error"], body
    assert proc.post("/api/me", {"display_name": "a\x00b"})[0] == 400
