"""Logins nobody can race or use to lock the owner out, common passwords refused, sessions that
expire, sockets that close with their session (issue 33; docs/web.md, "Identities and accounts").
Concurrent guesses are sent at once from threads; nothing here measures time."""

from __future__ import annotations

import concurrent.futures
import hashlib
import http.client
import json
import secrets
import sqlite3
import time
from pathlib import Path
from typing import Any

import pytest
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import connect

from conftest import ServerProcess


def _account(proc: ServerProcess, username: str, password: str = "correct horse") -> str:
    """A new account; the session of a sign-in to it (read from its cookie, as a browser keeps it)."""
    status, body = proc.post(
        "/api/account/register", {"username": username, "password": password}, session=proc.guest()
    )
    assert status == 200, body
    return _sign_in(proc, username, password)


def _sign_in(proc: ServerProcess, username: str, password: str) -> str:
    conn = http.client.HTTPConnection("127.0.0.1", proc.port, timeout=30)
    try:
        body = json.dumps({"username": username, "password": password})
        conn.request("POST", "/api/account/login", body, {"Content-Type": "application/json"})
        response = conn.getresponse()
        response.read()
        assert response.status == 200
        cookie = response.getheader("Set-Cookie") or ""
        return cookie.split("clash_session=", 1)[1].split(";", 1)[0]
    finally:
        conn.close()


def _guess(procs: list[ServerProcess], username: str, passwords: list[str]) -> list[int]:
    """Every password sent at once, spread over ``procs``; the statuses in the same order."""
    with concurrent.futures.ThreadPoolExecutor(len(passwords)) as pool:
        futures = [
            pool.submit(
                procs[i % len(procs)].post,
                "/api/account/login",
                {"username": username, "password": pw},
                session="",
            )
            for i, pw in enumerate(passwords)
        ]
        return [f.result()[0] for f in futures]


def test_guesses_sent_at_once_are_counted_before_they_are_verified(tmp_path: Path) -> None:
    proc = ServerProcess(tmp_path, "--agent-workers", "0", "--limit", "login_delay=600").start()
    try:
        _account(proc, "target")
        codes = _guess([proc], "target", ["wrong horse"] * 24)
        assert codes.count(401) == 5 and codes.count(429) == 19, codes  # the 5 free failures
        status, body = proc.post(
            "/api/account/login", {"username": "target", "password": "correct horse"}, session=""
        )
        assert status == 429 and body["retry_after"] >= 1  # the delay holds the right password too
    finally:
        proc.stop()


def test_two_processes_share_the_login_counts(pg_processes: Any) -> None:
    procs = pg_processes(2, "--agent-workers", "0", "--limit", "login_delay=600")
    name = f"shared-{secrets.token_hex(4)}"  # the database is shared with other test runs
    _account(procs[0], name)
    codes = _guess(procs, name, ["wrong horse"] * 20)
    assert codes.count(401) == 5, codes
    assert (
        procs[1].post("/api/account/login", {"username": name, "password": "correct horse"}, session="")[0]
        == 429
    )


def test_the_delay_grows_and_the_owner_gets_in_once_it_has_passed(tmp_path: Path) -> None:
    """No lock-out: past the free failures each attempt waits (doubling); then the right password works."""
    proc = ServerProcess(
        tmp_path, "--agent-workers", "0", "--limit", "login_free_failures=1", "--limit", "login_delay=0.2"
    ).start()
    try:
        _account(proc, "owner")
        assert (
            proc.post("/api/account/login", {"username": "owner", "password": "wrong horse"}, session="")[0]
            == 401
        )
        for _ in range(600):  # until the short delay has passed (polled; the server judges the time)
            status, _body = proc.post(
                "/api/account/login", {"username": "owner", "password": "correct horse"}, session=""
            )
            if status != 429:
                break
            time.sleep(0.05)
        assert status == 200
        # The right password cleared the account's count: the next failure is a free one again.
        wrong = {"username": "owner", "password": "wrong horse"}
        assert proc.post("/api/account/login", wrong, session="")[0] == 401
    finally:
        proc.stop()


def test_common_passwords_are_refused_at_sign_up_and_change(server: ServerProcess) -> None:
    for common in ("password", "12345678", "Password1", "iloveyou"):
        status, body = server.post(
            "/api/account/register", {"username": "someone", "password": common}, session=server.guest()
        )
        assert status == 400 and "common" in body["error"], (common, body)
    session = _account(server, "changer")
    status, body = server.post(
        "/api/account/password", {"password": "correct horse", "new_password": "qwertyuiop"}, session=session
    )
    assert status == 400 and "common" in body["error"]


def _closed_code(ws: Any) -> int | None:
    with pytest.raises(ConnectionClosed) as closed:
        while True:
            ws.recv(timeout=30)
    return None if closed.value.rcvd is None else closed.value.rcvd.code


def test_a_password_change_ends_the_other_sessions_and_closes_sockets(server: ServerProcess) -> None:
    first = _account(server, "mover")
    second = _sign_in(server, "mover", "correct horse")  # another device
    assert server.get("/api/me", session=second)[1]["identity"] is not None
    ws = connect(server.ws_url, additional_headers={"Authorization": f"Bearer {first}"})
    ws.send(json.dumps({"type": "ping", "id": 1}))
    ws.recv(timeout=30)
    status, body = server.post(
        "/api/account/password",
        {"password": "wrong horse", "new_password": "a new passphrase"},
        session=first,
    )
    assert status == 401
    status, body = server.post(
        "/api/account/password",
        {"password": "correct horse", "new_password": "a new passphrase"},
        session=first,
    )
    assert status == 200, body
    assert _closed_code(ws) == 1008
    assert server.get("/api/me", session=second)[1]["identity"] is None  # the other device is signed out
    status, _ = server.post(
        "/api/account/login", {"username": "mover", "password": "correct horse"}, session=""
    )
    assert status == 401
    status, _ = server.post(
        "/api/account/login", {"username": "mover", "password": "a new passphrase"}, session=""
    )
    assert status == 200


def test_logout_closes_the_identitys_sockets(server: ServerProcess) -> None:
    session = _account(server, "leaver")
    ws = connect(server.ws_url, additional_headers={"Authorization": f"Bearer {session}"})
    ws.send(json.dumps({"type": "ping", "id": 1}))
    ws.recv(timeout=30)
    assert server.post("/api/account/logout", {}, session=session)[0] == 200
    assert _closed_code(ws) == 1008


def test_sessions_expire_unused(tmp_path: Path) -> None:
    """A session unused for 30 days signs nobody in; one used meanwhile lives on (the sessions'
    stamps are aged in the database: the server's clock is the system's)."""
    proc = ServerProcess(tmp_path, "--agent-workers", "0", "--limit", "session_days=30").start()
    try:
        kept, dropped = proc.guest(), proc.guest()

        def age(session: str, days: float) -> None:
            with sqlite3.connect(tmp_path / "web.sqlite3") as db:
                stamp = time.time() - days * 86400
                db.execute(
                    "UPDATE sessions SET created_at = ?, used_at = NULL WHERE id_hash = ?",
                    (stamp, hashlib.sha256(session.encode()).hexdigest()),
                )

        def used_at(session: str) -> float | None:
            with sqlite3.connect(tmp_path / "web.sqlite3") as db:
                key = hashlib.sha256(session.encode()).hexdigest()
                row = db.execute("SELECT used_at FROM sessions WHERE id_hash = ?", (key,)).fetchone()
                return None if row[0] is None else float(row[0])

        age(kept, 20)
        age(dropped, 40)
        assert proc.get("/api/me", session=kept)[1]["identity"] is not None
        stamp = used_at(kept)  # its use is written: it lives 30 days from now
        assert stamp is not None and stamp > time.time() - 86400
        assert proc.get("/api/me", session=kept)[1]["identity"] is not None
        assert used_at(kept) == stamp  # written at most once a day, not at every request
        assert proc.get("/api/me", session=dropped)[1]["identity"] is None
        assert proc.get("/api/me", session=dropped)[1]["identity"] is None  # and it is gone
    finally:
        proc.stop()


def test_a_password_typed_as_a_username_is_not_logged(tmp_path: Path) -> None:
    proc = ServerProcess(tmp_path, "--agent-workers", "0").start()
    try:
        _account(proc, "realname")
        proc.post("/api/account/login", {"username": "my.secret.pass", "password": "realname1"}, session="")
        proc.post("/api/account/login", {"username": "realname", "password": "wrong horse"}, session="")
    finally:
        proc.stop()
    log = proc.log.read_text()
    assert "my.secret.pass" not in log
    assert "'realname'" in log  # a failure on an existing account names it, for the operator
