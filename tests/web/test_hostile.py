"""Hostile input: every bad message gets an error reply and changes nothing (checked by a fresh
connection that reads the game afterwards)."""

from __future__ import annotations

import json
import urllib.error
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from websockets.exceptions import ConnectionClosed, InvalidStatus
from websockets.sync.client import connect

from clashofdecks.web.protocol import MAX_MESSAGE_BYTES, ProtocolError, RateLimiter, parse_message
from conftest import Client, ServerProcess


@pytest.fixture()
def duel(server: ServerProcess) -> Iterator[tuple[dict[str, Any], Client, Client]]:
    body = server.new_game(kind="friend", format="precon")
    a = Client(server, body["id"], body["tokens"])
    b = Client(server, body["id"], [body["invite"].split("#t=")[1]])
    yield body, a, b
    a.close()
    b.close()


def snapshot(server: ServerProcess, body: dict[str, Any]) -> tuple[int, Any, Any]:
    c = Client(server, body["id"], [])
    state = (c.state["index"], c.state["setup"], c.state["view"])
    c.close()
    return state


def mover_and_other(a: Client, b: Client) -> tuple[Client, Client]:
    return (a, b) if a.state["legal"] else (b, a)


@pytest.mark.parametrize(
    ("message", "code"),
    [
        ("{not json", "bad_json"),
        ("[1, 2, 3]", "bad_json"),
        ('"act"', "bad_json"),
        ("{}", "unknown_type"),
        ('{"type": "teleport"}', "unknown_type"),
        ('{"type": 7}', "unknown_type"),
        ('{"type": "act", "action": "end"}', "bad_field"),
        ('{"type": "act", "action": "end", "index": "0"}', "bad_field"),
        ('{"type": "act", "action": "end", "index": true}', "bad_field"),
        ('{"type": "act", "action": "end", "index": -1}', "bad_field"),
        ('{"type": "act", "action": 5, "index": 0}', "bad_field"),
        ('{"type": "act", "action": "", "index": 0}', "bad_field"),
        ('{"type": "act", "action": "end", "index": 0, "seat": 1}', "bad_field"),
        ('{"type": "hello", "game": "x"}', "bad_field"),
        ("x" * (MAX_MESSAGE_BYTES + 1), "too_big"),
    ],
)
def test_malformed_messages_are_refused(
    server: ServerProcess, duel: tuple[dict[str, Any], Client, Client], message: str, code: str
) -> None:
    body, a, b = duel
    before = snapshot(server, body)
    mover, _ = mover_and_other(a, b)
    mover.send(message)
    frame = mover.expect_error(code)
    assert frame["message"]
    assert snapshot(server, body) == before
    # The connection still works afterwards.
    mover.act(mover.state["legal"][0])
    assert snapshot(server, body)[0] == before[0] + 1


def test_game_messages_that_the_game_refuses(
    server: ServerProcess, duel: tuple[dict[str, Any], Client, Client]
) -> None:
    body, a, b = duel
    mover, other = mover_and_other(a, b)
    before = snapshot(server, body)
    index = mover.state["index"]
    other.send({"type": "act", "action": mover.state["legal"][0], "index": index})
    other.expect_error("not_your_turn")
    mover.send({"type": "act", "action": mover.state["legal"][0], "index": index + 1})
    mover.expect_error("stale")
    mover.send({"type": "act", "action": "dance wildly", "index": index})
    mover.expect_error("syntax")
    mover.send({"type": "act", "action": "play NOSUCHCARD top", "index": index})
    mover.expect_error("syntax")
    mover.send({"type": "act", "action": "pick BRUTE", "index": index})  # a precon game has no draft
    err = mover.expect_error("illegal")
    assert "deck" in err["message"]
    mover.send({"type": "undo", "index": index})  # undo between two people is not offered
    mover.expect_error("undo_refused")
    other.send({"type": "hint"})
    other.expect_error("hint_unavailable")
    assert snapshot(server, body) == before


def test_spectators_and_wrong_tokens(
    server: ServerProcess, duel: tuple[dict[str, Any], Client, Client]
) -> None:
    body, _a, _b = duel
    before = snapshot(server, body)
    watcher = Client(server, body["id"], [])
    watcher.send({"type": "act", "action": "end", "index": watcher.state["index"]})
    watcher.expect_error("spectator")
    watcher.send({"type": "resign"})
    watcher.expect_error("spectator")
    watcher.close()
    with connect(server.ws_url) as ws:
        ws.send(json.dumps({"type": "hello", "game": body["id"], "tokens": ["A" * 32]}))
        assert json.loads(ws.recv(timeout=10))["code"] == "bad_token"
        ws.send(json.dumps({"type": "act", "action": "end", "index": 0}))
        assert json.loads(ws.recv(timeout=10))["code"] == "hello_first"
        ws.send(json.dumps({"type": "hello", "game": "0" * 24, "tokens": []}))
        assert json.loads(ws.recv(timeout=10))["code"] == "no_game"
    # A token of another game opens nothing here.
    other = server.new_game(kind="solo", format="precon")
    with connect(server.ws_url) as ws:
        ws.send(json.dumps({"type": "hello", "game": body["id"], "tokens": other["tokens"]}))
        assert json.loads(ws.recv(timeout=10))["code"] == "bad_token"
    assert snapshot(server, body) == before


def test_actions_after_the_game_is_over(
    server: ServerProcess, duel: tuple[dict[str, Any], Client, Client]
) -> None:
    body, a, b = duel
    a.send({"type": "resign"})
    a.wait_state()
    while b.state["result"] is None:
        b.wait_state()
    before = snapshot(server, body)
    for client in (a, b):
        client.send({"type": "act", "action": "end", "index": client.state["index"]})
        client.expect_error("game_over")
        client.send({"type": "resign"})
        client.expect_error("game_over")
    assert snapshot(server, body) == before


def test_huge_frames_close_the_connection(
    server: ServerProcess, duel: tuple[dict[str, Any], Client, Client]
) -> None:
    body, _a, _b = duel
    before = snapshot(server, body)
    with connect(server.ws_url, max_size=None) as ws, pytest.raises(ConnectionClosed):
        # The server may close while the frame is still arriving: then the send itself fails.
        ws.send("x" * (2 << 20))
        ws.recv(timeout=10)
    assert snapshot(server, body) == before


def test_foreign_origin_is_refused(server: ServerProcess) -> None:
    with pytest.raises(InvalidStatus), connect(server.ws_url, origin="http://evil.example"):  # type: ignore[arg-type]
        pass
    with connect(server.ws_url, origin=f"http://127.0.0.1:{server.port}"):  # type: ignore[arg-type]
        pass


def test_flood_is_rate_limited(tmp_path: Path) -> None:
    """Above the socket's rate the first excess message is answered, the rest dropped unanswered
    (test_abuse.py: a longer run closes the socket)."""
    proc = ServerProcess(
        tmp_path, "--rate", "5", "--agent-workers", "0", "--limit", "flood_drops=1000"
    ).start()
    try:
        body = proc.new_game(kind="solo", format="precon", deck=1)
        c = Client(proc, body["id"], body["tokens"])
        index = c.state["index"]
        for _ in range(60):
            c.send({"type": "act", "action": "end", "index": index})
        c.send({"type": "ping", "id": 7})  # past the flood: dropped too while the bucket is empty
        codes = []
        with pytest.raises(TimeoutError):
            while True:
                frame = c.recv(timeout=3)
                codes.append(frame.get("code", frame["type"]))
        assert codes.count("rate_limited") == 1, codes
        assert codes.count("state") == 1  # the first "end" was taken; every later one refused
        c.close()
    finally:
        proc.stop()


def test_parse_message_units() -> None:
    assert parse_message('{"type": "ping"}').type == "ping"
    msg = parse_message('{"type": "hello", "game": "abc", "token": "t1"}')
    assert msg.get("tokens") == ["t1"]
    with pytest.raises(ProtocolError) as err:
        parse_message('{"type": "hello", "game": "abc", "tokens": ["a", "b", "c"]}')
    assert err.value.code == "bad_field"
    with pytest.raises(ProtocolError):
        parse_message('{"type": "hello", "game": "../etc"}')
    with pytest.raises(ProtocolError):
        parse_message("[" * 4000)
    with pytest.raises(ProtocolError):
        parse_message(b"\xff\xfe")
    limiter = RateLimiter(rate=1.0, burst=3.0)
    assert [limiter.allow() for _ in range(5)] == [True, True, True, False, False]


def test_http_requests_that_are_refused(server: ServerProcess) -> None:
    status, body = server.post("/api/games", None, raw=b"{" * 10)
    assert status == 400 and "JSON" in body["error"]
    status, body = server.post("/api/games", None, raw=b" " * (64 * 1024))
    assert status == 413
    status, body = server.post("/api/games", {"kind": "tournament"})
    assert status == 400 and "kind" in body["error"]
    status, body = server.post("/api/games", {"kind": "solo", "format": "custom"})
    assert status == 400 and "R2.2" in body["error"]
    status, body = server.post("/api/games", {"kind": "solo", "level": 9})
    assert status == 400
    status, body = server.post("/api/games", {"kind": "solo", "threat": {"base_mana": 99}})
    assert status == 400 and "base_mana" in body["error"]
    status, body = server.post("/api/games", {"kind": "solo", "seed": 1})  # players never choose the deal
    assert status == 400 and "seed" in body["error"]
    try:
        status, body = server.post("/api/import", None, raw=b"x" * (2 << 20))
        assert status == 413
    except urllib.error.URLError as exc:  # refused from its Content-Length before the upload ended
        assert "Broken pipe" in str(exc) or "reset" in str(exc)
    status, body = server.post("/api/import", {"record_version": 1})
    assert status == 400
    status, body = server.get("/api/games/" + "0" * 24 + "/record")
    assert status == 404


def _post_from(source: str, port: int, path: str, body: Any, **headers: str) -> tuple[int, Any, Any]:
    """POST from a chosen loopback source address (127.0.0.0/8 is all loopback on Linux)."""
    import http.client

    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30, source_address=(source, 0))
    try:
        conn.request("POST", path, json.dumps(body), {"Content-Type": "application/json", **headers})
        response = conn.getresponse()
        return response.status, json.loads(response.read() or b"null"), response.getheader("Retry-After")
    finally:
        conn.close()


def test_game_creation_is_rate_limited_per_address(tmp_path: Path) -> None:
    """Above ``--create-rate`` (games a minute per address), new games and imports get 429 with a
    JSON error and create nothing; another address is not held back; the games already made play on."""
    proc = ServerProcess(tmp_path, "--create-rate", "3", "--agent-workers", "0").start()
    try:
        me = proc.guest()
        made = [
            proc.new_game(session=me, kind="solo", format="precon", deck=1) for _ in range(3)
        ]  # the burst
        count_before = len(proc.get("/api/lobby")[1]["open"])
        assert count_before == 3
        for _ in range(5):
            status, body = proc.post("/api/games", {"kind": "friend"})
            assert status == 429, body
            assert body["code"] == "rate_limited" and "a minute" in body["error"] and body["retry_after"] >= 1
        record = {"record_version": 1, "mode": "duel", "format": "precon", "seed": 1, "actions": []}
        status, body = proc.post("/api/import", record)
        assert status == 429 and body["code"] == "rate_limited"
        # A bad request is refused as too many too (the limit is checked before the body is read).
        status, body = proc.post("/api/games", None, raw=b"{" * 10)
        assert status == 429
        assert len(proc.get("/api/lobby")[1]["open"]) == count_before  # nothing was created
        status, _body, retry = _post_from("127.0.0.1", proc.port, "/api/games", {"kind": "solo"})
        assert status == 429 and retry is not None and int(retry) >= 1
        # Another client address has its own allowance.
        status, body, _ = _post_from("127.0.0.2", proc.port, "/api/identities", {"bearer": True})
        assert status == 200, body
        bearer = {"Authorization": "Bearer " + body["session"]}
        status, body, _ = _post_from("127.0.0.2", proc.port, "/api/games", {"kind": "solo"}, **bearer)
        assert status == 200, body
        # The limit is on creating, not on playing: the games made play on.
        c = Client(proc, made[0]["id"], made[0]["tokens"])
        before = c.state["index"]
        c.act(c.state["legal"][0])
        assert c.state["index"] == before + 1
        c.close()
    finally:
        proc.stop()


def test_address_rate_limiter_units() -> None:
    from clashofdecks.web.protocol import AddressRateLimiter

    limiter = AddressRateLimiter(rate=1.0, burst=2.0)
    assert [limiter.allow("a") for _ in range(3)] == [True, True, False]
    assert 0.0 < limiter.retry_after("a") <= 1.0
    assert limiter.allow("b") and limiter.retry_after("unseen") == 0.0
    # Many one-off addresses do not grow the table without bound: full buckets are forgotten.
    limiter.PRUNE_AT = 10  # type: ignore[misc]
    limiter.rate = 1e9  # every bucket refills at once
    for i in range(50):
        limiter.allow(f"10.0.0.{i}")
    assert len(limiter.buckets) <= 11
