"""Identities one person cannot multiply or lose (issue 33; docs/web.md, "Rating integrity" and
"Identities and accounts"): play-now never pairs two identities of one browser, recovery codes,
sockets closed on every process at sign-out, the review records of rated games and the pruning of
old sessions and guests."""

from __future__ import annotations

import http.cookiejar
import json
import secrets
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

from test_admin import _admin
from test_logins import _account, _closed_code, _sign_in
from test_rated_play import Queuer
from websockets.sync.client import ClientConnection, connect

from conftest import ServerProcess


class Browser:
    """An HTTP client that keeps its cookies, as one browser profile does."""

    def __init__(self, server: ServerProcess) -> None:
        self.server = server
        self.jar = http.cookiejar.CookieJar()
        self.opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(self.jar))

    def post(self, path: str, body: Any) -> tuple[int, Any]:
        req = urllib.request.Request(
            self.server.url + path,
            data=json.dumps(body).encode(),
            method="POST",
            headers={"Content-Type": "application/json"},
        )
        try:
            with self.opener.open(req, timeout=30) as r:
                return r.status, json.loads(r.read())
        except urllib.error.HTTPError as exc:
            return exc.code, json.loads(exc.read() or b"null")

    def cookie(self, name: str) -> str | None:
        return next((c.value for c in self.jar if c.name == name), None)

    def session(self) -> str:
        value = self.cookie("clash_session")
        assert value is not None
        return value

    def forget_session(self) -> None:
        """The session cookie alone is dropped (as a person copying it away would): the rest stays."""
        self.jar.clear(domain="127.0.0.1", path="/", name="clash_session")

    def guest(self) -> str:
        status, body = self.post("/api/identities", {})
        assert status == 200, body
        return self.session()


def _queue(server: ServerProcess, session: str) -> Queuer:
    q = Queuer(server, session)
    q.send({"type": "queue", "format": "draft"})
    assert q.recv()["status"] == "waiting"
    return q


def test_play_now_never_pairs_two_identities_of_one_browser(server: ServerProcess) -> None:
    one = Browser(server)
    first = one.guest()
    assert one.post("/api/account/register", {"username": "lineage-a", "password": "correct horse"})[0] == 200
    first = one.session()  # a new session at sign-up, same browser
    one.forget_session()
    second = one.guest()  # a second identity, made in the same browser
    assert second != first
    other = Browser(server).guest()  # another browser
    queuers = [_queue(server, first), _queue(server, second)]
    try:
        queuers.append(_queue(server, other))
        game = queuers[2].recv()["game"]  # the stranger is paired with one of the two
        told = []
        for q in queuers[:2]:
            q.send({"type": "leave_queue"})
            told.append(q.recv())
        matched = [f for f in told if f["type"] == "matched"]
        assert len(matched) == 1 and matched[0]["game"] == game, told
        assert {"type": "queue", "status": "left"} in told  # the other still waited, unpaired
    finally:
        for q in queuers:
            q.close()


def _socket(proc: ServerProcess, session: str) -> ClientConnection:
    """A lobby socket of ``session``, answering (a ping answered: it is open and served)."""
    ws = connect(proc.ws_url, additional_headers={"Authorization": f"Bearer {session}"}, open_timeout=30)
    _ping(ws)
    return ws


def _ping(ws: ClientConnection) -> None:
    ws.send(json.dumps({"type": "ping", "id": 7}))
    assert json.loads(ws.recv(timeout=30))["type"] == "pong"


def test_a_sign_out_closes_the_sessions_sockets_on_every_process(pg_processes: Any, pg_database: str) -> None:
    procs = pg_processes(2, "--agent-workers", "0")
    name = f"everywhere-{secrets.token_hex(4)}"
    session = _account(procs[0], name)
    other_device = _sign_in(procs[0], name, "correct horse")
    ws = _socket(procs[1], session)  # opened on the process the sign-out does not reach
    kept = _socket(procs[1], other_device)
    assert procs[0].post("/api/account/logout", {}, session=session)[0] == 200
    assert _closed_code(ws) == 1008
    _ping(kept)  # the other device's session lives on: its socket too
    assert "session(s) ended" in _admin(procs[0], "sign-out", name, "--database", pg_database)
    assert _closed_code(kept) == 1008  # the operator's command reached the server process


def test_the_operators_sign_out_closes_sockets_on_sqlite(tmp_path: Path) -> None:
    proc = ServerProcess(tmp_path, "--agent-workers", "0").start()
    try:
        session = _account(proc, "sqlite-out")
        ws = _socket(proc, session)
        assert "session(s) ended" in _admin(proc, "sign-out", "sqlite-out")
        assert _closed_code(ws) == 1008
    finally:
        proc.stop()
