"""Identities one person cannot multiply or lose (issue 33; docs/web.md, "Rating integrity" and
"Identities and accounts"): play-now never pairs two identities of one browser, recovery codes,
sockets closed on every process at sign-out, the review records of rated games and the pruning of
old sessions and guests."""

from __future__ import annotations

import http.cookiejar
import json
import secrets
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import pytest
from test_admin import _admin
from test_logins import _account, _closed_code, _sign_in
from test_rated_play import Queuer
from websockets.sync.client import ClientConnection, connect

from conftest import Client, ServerProcess


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


def test_on_postgresql_a_sign_out_reaches_the_other_process_by_notification(
    pg_processes: Any, pg_database: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The watcher's rounds put off (``CLASH_TEST_WATCH_SECONDS``): the ``signouts`` table is never
    read, so only the sign-out's NOTIFY can close the socket on the other process -- a logout made
    there, and the operator's command.  Before, the other process closed it at its next watch tick
    only, and here never."""
    monkeypatch.setenv("CLASH_TEST_WATCH_SECONDS", "3600")
    procs = pg_processes(2, "--agent-workers", "0")
    name = f"notified-{secrets.token_hex(4)}"
    session = _account(procs[0], name)
    other_device = _sign_in(procs[0], name, "correct horse")
    ws = _socket(procs[1], session)
    kept = _socket(procs[1], other_device)
    assert procs[0].post("/api/account/logout", {}, session=session)[0] == 200
    assert _closed_code(ws) == 1008
    _ping(kept)  # the other device's session lives on: its socket too
    assert "session(s) ended" in _admin(procs[0], "sign-out", name, "--database", pg_database)
    assert _closed_code(kept) == 1008


def test_the_operators_sign_out_closes_sockets_on_sqlite(tmp_path: Path) -> None:
    proc = ServerProcess(tmp_path, "--agent-workers", "0").start()
    try:
        session = _account(proc, "sqlite-out")
        ws = _socket(proc, session)
        assert "session(s) ended" in _admin(proc, "sign-out", "sqlite-out")
        assert _closed_code(ws) == 1008
    finally:
        proc.stop()


def test_a_recovery_code_resets_the_password_once(server: ServerProcess) -> None:
    browser = Browser(server)
    browser.guest()
    status, body = browser.post(
        "/api/account/register", {"username": "forgetful", "password": "correct horse"}
    )
    assert status == 200 and len(body["recovery_codes"]) == 8  # shown this once
    codes = body["recovery_codes"]
    code = codes[0]
    assert "recovery_codes" not in server.get("/api/me", session=browser.session())[1]
    ws = _socket(server, browser.session())
    reset = {"username": "forgetful", "new_password": "a brand new passphrase"}
    stranger = Browser(server)
    status, body = stranger.post("/api/account/recover", {**reset, "code": "aaaa-bbbb-cccc"})
    assert status == 401 and body["code"] == "login_failed"
    status, body = stranger.post("/api/account/recover", {**reset, "username": "nobody-here", "code": code})
    assert status == 401 and body["error"] == "wrong username or recovery code"  # no enumeration
    status, body = stranger.post("/api/account/recover", {**reset, "code": code.upper().replace("-", " ")})
    assert status == 200 and body["username"] == "forgetful" and body["recovery_codes_left"] == 7
    assert _closed_code(ws) == 1008  # the old sessions end, their sockets close
    assert server.get("/api/me", session=browser.session())[1]["identity"] is None
    assert server.get("/api/me", session=stranger.session())[1]["username"] == "forgetful"
    login = {"username": "forgetful", "password": "correct horse"}
    assert server.post("/api/account/login", login, session="")[0] == 401
    login["password"] = "a brand new passphrase"
    assert server.post("/api/account/login", login, session="")[0] == 200
    again = {**reset, "code": code, "new_password": "yet another passphrase"}
    assert Browser(server).post("/api/account/recover", again)[0] == 401  # a code works once
    common = {**reset, "code": codes[1], "new_password": "password"}
    assert Browser(server).post("/api/account/recover", common)[0] == 400  # not a common password
    status, body = Browser(server).post("/api/account/recover", {**reset, "code": codes[1]})
    assert status == 200 and body["recovery_codes_left"] == 6  # the refused reset used nothing


def test_an_account_gets_new_recovery_codes_with_its_password(server: ServerProcess) -> None:
    """``POST /api/account/recovery-codes``: the password required (a wrong one, another site's
    request, a form post or a guest change nothing), then eight new codes, shown once, and the old
    ones void.  Before, an owner who used or lost the codes had no way to get new ones."""
    from test_identity import _raw_post

    browser = Browser(server)
    browser.guest()
    status, body = browser.post("/api/account/register", {"username": "renewer", "password": "correct horse"})
    assert status == 200
    old = body["recovery_codes"]
    route = "/api/account/recovery-codes"
    status, body = browser.post(route, {"password": "not my password"})
    assert status == 401 and body["code"] == "login_failed"
    auth = {"Authorization": f"Bearer {browser.session()}"}
    data = json.dumps({"password": "correct horse"}).encode()
    status, body = _raw_post(server, route, data, {"Content-Type": "text/plain", **auth})
    assert status == 415, body
    foreign = {"Content-Type": "application/json", "Origin": "https://evil.example", **auth}
    status, body = _raw_post(server, route, data, foreign)
    assert status == 403 and body["code"] == "bad_origin"
    guest = Browser(server)
    guest.guest()
    status, body = guest.post(route, {"password": "correct horse"})
    assert status == 401 and body["code"] == "no_identity"
    status, body = browser.post(route, {"password": "correct horse"})
    assert status == 200 and body["username"] == "renewer", body
    new = body["recovery_codes"]
    assert len(new) == 8 and not set(new) & set(old)
    assert "recovery_codes" not in server.get("/api/me", session=browser.session())[1]  # shown once
    reset = {"username": "renewer", "new_password": "a brand new passphrase"}
    assert Browser(server).post("/api/account/recover", {**reset, "code": old[0]})[0] == 401  # void
    status, body = Browser(server).post("/api/account/recover", {**reset, "code": new[0]})
    assert status == 200 and body["recovery_codes_left"] == 7


def test_a_disabled_account_is_not_opened_by_its_recovery_codes(tmp_path: Path) -> None:
    proc = ServerProcess(tmp_path, "--agent-workers", "0").start()
    try:
        browser = Browser(proc)
        browser.guest()
        status, body = browser.post(
            "/api/account/register", {"username": "banned", "password": "correct horse"}
        )
        assert status == 200
        assert "disabled" in _admin(proc, "disable", "banned")
        reset = {
            "username": "banned",
            "code": body["recovery_codes"][0],
            "new_password": "a fresh passphrase",
        }
        assert Browser(proc).post("/api/account/recover", reset)[0] == 401
    finally:
        proc.stop()


def _review(proc: ServerProcess, game: str, *args: str) -> dict[str, Any]:
    return dict(json.loads(_admin(proc, "review", game, *args)))


def test_a_rated_game_has_a_review_record_only_the_operator_reads(server: ServerProcess) -> None:
    from test_fair_play import rated_duel, through_setup

    body, a, b = rated_duel(server)
    game = body["id"]
    a.send({"type": "hint"})
    a.expect_error("hint_unavailable")
    through_setup(a, b)
    b.close()
    b = Client(server, game, [], session=b.session)  # the same player opens the game again
    a.close()  # its refused hint is written as it leaves
    b.close()
    for _attempt in range(600):  # written in the background: read until it is there
        record = _review(server, game)
        if sum(s["refused_hints"] for s in record["seats"]) == 1:
            break
        time.sleep(0.1)
    seats = record["seats"]
    assert [s["seat"] for s in seats] == [0, 1] and record["format"] == "precon"
    assert sorted(s["reconnects"] for s in seats) == [0, 1]
    assert sum(s["refused_hints"] for s in seats) == 1
    for s in seats:
        (address,) = s["addresses"]  # one machine: one address, kept as a keyed hash only
        assert len(address) == 32 and "127.0.0.1" not in json.dumps(record)
        assert len(s["lineages"]) == 1 and s["move_seconds"] and s["player"].startswith("guest-")
    assert seats[0]["addresses"] == seats[1]["addresses"]  # what the operator compares
    with pytest.raises(urllib.error.HTTPError) as missing:  # no web route reads it
        urllib.request.urlopen(f"{server.url}/api/games/{game}/review", timeout=30)
    assert missing.value.code == 404


def _old_and_new(store: Any, now: float) -> None:
    """Of each kind, one row past its time and one within it."""
    from test_web_store import _row

    from clashofdecks.web.store import IdentityRow
    from clashofdecks.web.store_tables import identities, reviews, sessions

    old, recent = now - 100 * 86400, now - 86400
    for name in ("old-guest", "new-guest", "seated-guest", "old-account", "old-session", "new-session"):
        store.create_identity(IdentityRow(name, name, name), f"hash-{name}")
    with store.engine.begin() as conn:
        conn.execute(identities.update().values(created_at=old))
        conn.execute(identities.update().where(identities.c.id == "new-guest").values(created_at=recent))
        conn.execute(identities.update().where(identities.c.id == "old-account").values(username="oldacc"))
        conn.execute(sessions.update().values(created_at=old, used_at=old))
        conn.execute(sessions.update().where(sessions.c.id_hash == "hash-new-session").values(used_at=recent))
    store.create_game(_row("pruned-game", owner="seated-guest"))
    for game_id, seat, at in (("pruned-game", 0, old), ("pruned-game", 1, recent)):
        with store.engine.begin() as conn:
            conn.execute(
                reviews.insert().values(
                    game_id=game_id,
                    seat=seat,
                    identity_id=None,
                    addresses="[]",
                    lineages="[]",
                    joins=1,
                    refused_hints=0,
                    created_at=at,
                )
            )


def _left(store: Any) -> tuple[set[str], set[str], list[int]]:
    import sqlalchemy as sa

    from clashofdecks.web.store_tables import identities, reviews, sessions

    with store.engine.connect() as conn:
        ids = {r[0] for r in conn.execute(sa.select(identities.c.id))}
        hashes = {r[0] for r in conn.execute(sa.select(sessions.c.id_hash))}
        records = [r[0] for r in conn.execute(sa.select(reviews.c.seat))]
    return ids, hashes, records


def test_pruning_removes_old_sessions_guests_and_records_and_nothing_else(tmp_path: Path) -> None:
    from clashofdecks.web import logins
    from clashofdecks.web.limits import Caps
    from clashofdecks.web.store import open_store

    store = open_store(f"sqlite:///{tmp_path / 'prune.db'}")
    now = time.time()
    _old_and_new(store, now)
    counts = logins.prune(store.engine, now, Caps())
    ids, hashes, records = _left(store)
    # Gone: five sessions unused for 100 days, the old guest left with no session and no seat
    # (and the two other old guests whose only session went), the 100-day-old review record.
    assert hashes == {"hash-new-session"}
    assert ids == {"new-guest", "seated-guest", "old-account", "new-session"}
    assert records == [1]
    assert counts["sessions"] == 5 and counts["review_records"] == 1
    store.close()


def test_a_running_server_prunes_on_its_schedule(tmp_path: Path) -> None:
    from clashofdecks.web.store import open_store

    proc = ServerProcess(tmp_path, "--agent-workers", "0", "--limit", "prune_seconds=1").start()
    try:
        store = open_store(f"sqlite:///{tmp_path / 'web.sqlite3'}")  # the server's database
        _old_and_new(store, time.time())  # written after the start's own pruning
        for _attempt in range(600):  # the watcher's pruning round comes within a few ticks
            if _left(store)[1] == {"hash-new-session"}:
                break
            time.sleep(0.1)
        assert _left(store) == (
            {"new-guest", "seated-guest", "old-account", "new-session"},
            {"hash-new-session"},
            [1],
        )
        store.close()
    finally:
        proc.stop()
