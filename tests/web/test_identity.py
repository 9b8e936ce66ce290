"""Identities, accounts and seats over HTTP and WebSockets (no browser): who may hold a seat, the
cross-site checks, the abuse limits, hostile input to the new calls, and secrets kept out of the log.

Each test names the threat of ``docs/web.md`` ("Threats") it proves the defence of.
"""

from __future__ import annotations

import json
import urllib.request
from pathlib import Path
from typing import Any

from conftest import Client, ServerProcess, _open


def _hello(server: ServerProcess, game: str, tokens: list[str], session: str | None) -> dict[str, Any]:
    """The first frame answering a ``hello`` (a state or an error), on a connection of ``session``."""
    from websockets.sync.client import connect

    headers = {"Authorization": f"Bearer {session}"} if session else None
    with connect(server.ws_url, additional_headers=headers, open_timeout=30) as ws:
        ws.send(json.dumps({"type": "hello", "game": game, "tokens": tokens}))
        while True:
            frame = json.loads(ws.recv(timeout=30))
            if frame["type"] in ("state", "error"):
                return dict(frame)


def _raw_post(server: ServerProcess, path: str, data: bytes, headers: dict[str, str]) -> tuple[int, Any]:
    return _open(urllib.request.Request(server.url + path, data=data, method="POST", headers=headers))


def _mine(server: ServerProcess, session: str) -> list[str]:
    status, lobby = server.get("/api/lobby", session=session)
    assert status == 200
    return [g["id"] for g in lobby["mine"]]


# ---------------------------------------------------------------------------- seats


def test_invite_is_single_use_and_seats_belong_to_identities(server: ServerProcess) -> None:
    """Seat takeover and token reuse: the creator holding the invite token cannot take the friend's
    seat, before or after the friend joined; a third person with the link is refused; the seats
    reopen only for their identities, from any connection they sign in on."""
    creator = server.guest()
    body = server.new_game(session=creator, kind="friend", format="precon")
    game, invite = body["id"], body["invite"].split("#t=")[1]
    # Before the friend: the creator's own invite is refused to the creator (and the seat stays open).
    refused = _hello(server, game, [invite], creator)
    assert refused["type"] == "error" and refused["code"] == "own_game"
    # A client without an identity cannot take a seat with a token either.
    refused = _hello(server, game, [invite], None)
    assert refused["type"] == "error" and refused["code"] == "no_identity"
    friend = server.guest()
    b = Client(server, game, [invite], session=friend)
    assert b.state["seat"] == 1 - body["seat"]
    # After the friend: the stored invite token opens nothing for the creator, nor for a third person.
    for session in (creator, server.guest()):
        refused = _hello(server, game, [invite], session)
        assert refused["type"] == "error" and refused["code"] == "seat_taken", refused
    # The creator's own seat token does not open it for anyone else either.
    refused = _hello(server, game, body["tokens"], friend)
    assert refused["type"] == "error" and refused["code"] == "seat_taken"
    # Without a token: each identity gets its own seat back, anyone else watches.
    again = _hello(server, game, [], friend)
    assert (
        again["type"] == "state"
        and again["seat"] == 1 - body["seat"]
        and again["seats"] == [1 - body["seat"]]
    )
    assert _hello(server, game, [], creator)["seat"] == body["seat"]
    watcher = _hello(server, game, [], server.guest())
    assert watcher["seat"] is None and watcher["legal"] == [] and watcher["open_seats"] == []
    b.close()


def test_a_token_that_opens_no_seat_claims_nothing(server: ServerProcess) -> None:
    """A bad token next to a good one is refused as a whole: the good seat is not taken."""
    body = server.new_game(kind="friend", format="precon")
    invite = body["invite"].split("#t=")[1]
    stranger = server.guest()
    refused = _hello(server, body["id"], [invite, "not-a-token"], stranger)
    assert refused["code"] == "bad_token"
    assert _hello(server, body["id"], [], stranger)["seat"] is None  # nothing was claimed
    # The same token twice takes the seat once.
    assert _hello(server, body["id"], [invite, invite], stranger)["seat"] == 1 - body["seat"]


def test_hot_seat_and_solo_open_by_identity(server: ServerProcess) -> None:
    me = server.guest()
    hot = server.new_game(session=me, kind="hotseat", format="precon")
    assert _hello(server, hot["id"], [], me)["seats"] == [0, 1]
    solo = server.new_game(session=me, kind="solo", format="precon", deck=1)
    frame = _hello(server, solo["id"], [], me)
    assert frame["seat"] == solo["seat"] and frame["legal"]
    assert set(_mine(server, me)) >= {hot["id"], solo["id"]}
    assert solo["id"] not in _mine(server, server.guest())


# ---------------------------------------------------------------------------- cross-site requests


def test_text_plain_and_foreign_origins_are_refused(server: ServerProcess) -> None:
    """CSRF: the request another site can make a browser send without a preflight (text/plain, or a
    form) gets 415 and creates nothing; JSON from a foreign Origin gets 403; no Origin (a
    non-browser client) and this site's own Origin are served."""
    me = server.guest()
    auth = {"Authorization": f"Bearer {me}"}
    before = _mine(server, me)
    body = json.dumps({"kind": "solo"}).encode()
    for media in ("text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x", ""):
        for path in ("/api/games", "/api/identities", "/api/account/login", "/api/import", "/api/me"):
            status, answer = _raw_post(server, path, body, {"Content-Type": media, **auth})
            assert status == 415, (media, path, answer)
    status, answer = _raw_post(
        server,
        "/api/games",
        body,
        {"Content-Type": "application/json", "Origin": "https://evil.example", **auth},
    )
    assert status == 403 and answer["code"] == "bad_origin"
    assert _mine(server, me) == before  # nothing was created
    status, _ = _raw_post(
        server, "/api/games", body, {"Content-Type": "application/json; charset=utf-8", **auth}
    )
    assert status == 200
    own = f"http://127.0.0.1:{server.port}"
    status, _ = _raw_post(
        server, "/api/games", body, {"Content-Type": "application/json", "Origin": own, **auth}
    )
    assert status == 200
    assert len(_mine(server, me)) == len(before) + 2


def test_requests_without_identity_create_nothing(server: ServerProcess) -> None:
    for path in ("/api/games", "/api/import", "/api/me", "/api/account/register", "/api/account/delete"):
        status, answer = server.post(path, {}, session="")
        assert status == 401 and answer["code"] == "no_identity", (path, answer)
    status, answer = server.post("/api/games", {"kind": "solo"}, session="forged-session-id")
    assert status == 401


# ---------------------------------------------------------------------------- accounts


def test_account_life_cycle(server: ServerProcess) -> None:
    """A guest's games stay theirs when they make an account; another device signs in and gets them
    (and its own guest games); every sign-in gives a new session id (fixation); sign-out ends the
    session; deleting the account deletes the person and keeps the games, anonymised."""
    guest = server.guest()
    game = server.new_game(session=guest, kind="solo", format="precon", deck=1, name="Ada")
    status, me = server.post("/api/me", {"display_name": "Ada Lovelace"}, session=guest)
    assert status == 200 and me["display_name"] == "Ada Lovelace" and not me["account"]
    # A session id planted before the account: the account gets a new one, the old one stops working.
    status, me = server.post(
        "/api/account/register", {"username": "Ada", "password": "correct horse"}, session=guest
    )
    assert status == 200 and me["username"] == "ada" and me["account"] and me["identity"].startswith("guest-")
    assert server.get("/api/me", session=guest)[1]["identity"] is None
    status, answer = server.post("/api/account/register", {"username": "ADA", "password": "another one"})
    assert status == 409 and answer["code"] == "username_taken"
    # A second device: a guest with a game of its own signs in.
    device = server.guest()
    other_game = server.new_game(session=device, kind="solo", format="precon", deck=2)
    status, answer = server.post(
        "/api/account/login", {"username": "ada", "password": "wrong horse"}, session=device
    )
    assert status == 401 and answer["error"] == "wrong username or password"
    status, answer = server.post(
        "/api/account/login", {"username": "nobody", "password": "wrong horse"}, session=device
    )
    assert status == 401 and answer["error"] == "wrong username or password"  # no hint that it does not exist
    login = urllib.request.Request(
        server.url + "/api/account/login",
        data=json.dumps({"username": "ada", "password": "correct horse"}).encode(),
        method="POST",
        headers={"Content-Type": "application/json", "Authorization": f"Bearer {device}"},
    )
    with urllib.request.urlopen(login, timeout=30) as r:
        cookie = r.headers["Set-Cookie"]
        assert json.loads(r.read())["username"] == "ada"
    assert "HttpOnly" in cookie and "SameSite=lax" in cookie.replace("Lax", "lax")
    session = cookie.split(";")[0].split("=", 1)[1]
    assert session not in (guest, device)
    assert server.get("/api/me", session=device)[1]["identity"] is None  # the device's old session ended
    assert {game["id"], other_game["id"]} <= set(_mine(server, session))
    frame = _hello(server, game["id"], [], session)
    assert frame["seat"] == game["seat"] and frame["legal"]  # the guest's game continues on the device
    # Sign out: the session opens nothing any more.
    assert server.post("/api/account/logout", {}, session=session)[0] == 200
    assert server.get("/api/me", session=session)[1]["identity"] is None
    assert _hello(server, game["id"], [], session)["seat"] is None
    # Delete: with the password only; the games stay, without the person.
    session = server_session(server, "ada", "correct horse")
    assert server.post("/api/account/delete", {"password": "wrong horse"}, session=session)[0] == 401
    assert server.post("/api/account/delete", {"password": "correct horse"}, session=session)[0] == 200
    assert (
        server.post("/api/account/login", {"username": "ada", "password": "correct horse"}, session="")[0]
        == 401
    )
    status, lobby = server.get("/api/lobby")
    listed = [g for g in lobby["open"] if g["id"] == game["id"]]
    assert listed and "deleted player" in listed[0]["players"] and "Ada" not in listed[0]["players"]
    assert (
        _hello(server, game["id"], game["tokens"], server.guest())["code"] == "bad_token"
    )  # nobody takes it over


def server_session(server: ServerProcess, username: str, password: str) -> str:
    req = urllib.request.Request(
        server.url + "/api/account/login",
        data=json.dumps({"username": username, "password": password}).encode(),
        method="POST",
        headers={"Content-Type": "application/json"},
    )
    with urllib.request.urlopen(req, timeout=30) as r:
        return str(r.headers["Set-Cookie"].split(";")[0].split("=", 1)[1])


def test_a_guest_can_delete_itself(server: ServerProcess) -> None:
    guest = server.guest()
    game = server.new_game(session=guest, kind="solo", format="precon", deck=1)
    assert server.post("/api/account/delete", {}, session=guest)[0] == 200
    assert server.get("/api/me", session=guest)[1]["identity"] is None
    assert server.get("/api/lobby")[0] == 200 and game["id"] not in _mine(server, guest)


# ---------------------------------------------------------------------------- hostile input


BAD_NAMES: list[Any] = [
    "",
    "   ",
    "x" * 41,
    7,
    None,
    ["Ada"],
    {"a": 1},
    "Ada\nEve",
    "\u202eevil",
    "a\x00b",
    "\ud800",
]
BAD_USERNAMES: list[Any] = ["ab", "x" * 33, "ünïcode", "../etc", "a b", "<script>", 5, None, "", "-ada"]
BAD_PASSWORDS: list[Any] = ["short", "x" * 257, 12345678, None, ["password1"], "\x00" * 8]


def test_hostile_names_passwords_and_bodies_change_nothing(server: ServerProcess) -> None:
    me = server.guest()
    before = server.get("/api/me", session=me)[1]
    for name in BAD_NAMES:
        status, answer = server.post("/api/me", {"display_name": name}, session=me)
        assert status == 400 and answer["error"], name
        status, answer = server.post("/api/identities", {"display_name": name, "bearer": True}, session="")
        assert status == 400, name
    for username in BAD_USERNAMES:
        status, answer = server.post(
            "/api/account/register", {"username": username, "password": "long enough"}, session=me
        )
        assert status == 400 and "username" in answer["error"], username
    for password in BAD_PASSWORDS:
        status, answer = server.post(
            "/api/account/register", {"username": "valid_name", "password": password}, session=me
        )
        assert status == 400 and "password" in answer["error"], password
    bodies: list[bytes] = [
        b"",
        b"{",
        b"[]",
        b"null",
        b'"x"',
        b"{" * 5000,
        json.dumps({"extra": 1}).encode(),
        b"\xff\xfe",
        b"{" + b" " * 20000 + b"}",
    ]
    for raw in bodies:
        for path in (
            "/api/me",
            "/api/identities",
            "/api/account/register",
            "/api/account/login",
            "/api/account/delete",
        ):
            status, answer = server.post(path, None, raw=raw, session=me)
            assert 400 <= status < 500 and status != 429, (path, raw[:20], status, answer)
    status, answer = server.post("/api/identities", {"bearer": "yes"}, session="")
    assert status == 400
    assert server.get("/api/me", session=me)[1] == before  # nothing changed
    assert server.post("/api/account/login", {"username": "valid_name", "password": "long enough"})[0] == 401


# ---------------------------------------------------------------------------- abuse limits


def test_login_attempts_are_limited_per_account_and_per_address(tmp_path: Path) -> None:
    """Brute force: after 5 attempts on one account (per 15 minutes) even the right password is
    refused with 429 and a clear message; an address gets 10 attempts a minute over all accounts."""
    proc = ServerProcess(
        tmp_path, "--agent-workers", "0", "--login-rate", "10", "--limit", "login_delay=600"
    ).start()
    try:
        owner = proc.guest()
        assert (
            proc.post(
                "/api/account/register", {"username": "target", "password": "right password"}, session=owner
            )[0]
            == 200
        )
        for _ in range(5):
            assert (
                proc.post("/api/account/login", {"username": "target", "password": "wrong password"})[0]
                == 401
            )
        status, answer = proc.post("/api/account/login", {"username": "target", "password": "right password"})
        assert status == 429 and answer["code"] == "rate_limited" and "this account" in answer["error"], (
            answer
        )
        assert answer["retry_after"] >= 1
        # Other accounts from the same address: until the address's own limit (10 a minute, of which
        # the 6 above drew 6; the bucket refills slowly while the attempts run, hence a range).
        codes: list[int] = []
        for i in range(20):
            status, answer = proc.post(
                "/api/account/login", {"username": f"user{i}", "password": "wrong password"}
            )
            codes.append(status)
            if status == 429:
                break
        assert codes[-1] == 429 and "this address" in answer["error"], codes
        assert 4 <= codes.count(401) <= 8, codes
    finally:
        proc.stop()


def test_creating_identities_is_rate_limited(tmp_path: Path) -> None:
    proc = ServerProcess(tmp_path, "--create-rate", "3", "--agent-workers", "0").start()
    try:
        codes = [proc.post("/api/identities", {"bearer": True})[0] for _ in range(5)]
        assert codes == [200, 200, 200, 429, 429]
        status, answer = proc.post("/api/identities", {"bearer": True})
        assert status == 429 and "identities" in answer["error"] and answer["retry_after"] >= 1
    finally:
        proc.stop()


# ---------------------------------------------------------------------------- log leaks


def test_passwords_tokens_and_session_ids_never_reach_the_log(tmp_path: Path) -> None:
    proc = ServerProcess(tmp_path, "--agent-workers", "0").start()
    try:
        secret_pw = "Sekr1t-passphrase-4711"
        me = proc.guest()
        proc.post("/api/account/register", {"username": "logcheck", "password": secret_pw}, session=me)
        session = server_session(proc, "logcheck", secret_pw)
        proc.post("/api/account/login", {"username": "logcheck", "password": secret_pw + "x"})
        proc.post("/api/account/login", {"username": "logcheck", "password": "\x00bad"})
        game = proc.new_game(session=session, kind="friend", format="precon")
        invite = game["invite"].split("#t=")[1]
        _hello(proc, game["id"], [invite], session)  # refused: own_game
        _hello(proc, game["id"], ["forged-" + invite], proc.guest())
        secrets = [secret_pw, session, me, invite, *game["tokens"]]
    finally:
        proc.stop()
    log = proc.log.read_text(errors="replace")
    assert "failed login for 'logcheck'" in log  # the log is written (the check below is not vacuous)
    for secret in secrets:
        assert secret not in log


# ---------------------------------------------------------------------------- upgrade


def test_a_browser_of_the_former_release_gets_its_games_back(tmp_path: Path) -> None:
    """A database of the former release (revision 0001) with a duel its creator's ``clash_player``
    cookie owns and the friend's seat unowned: after the upgrade the browser with that cookie is
    recognised once and gets a session that opens its seat; the friend's token takes the other seat
    once; the creator cannot take it."""
    import sqlalchemy as sa

    from clashofdecks.web.games import GameState, NewGame, create_session, game_row
    from clashofdecks.web.store import Store, migrate

    engine = sa.create_engine(f"sqlite:///{tmp_path / 'web.sqlite3'}")
    migrate(engine, "0001")
    session, rows, tokens = create_session(NewGame(kind="friend", format="precon"), "legacy0000001")
    creator = session.participant_seat(0)
    cookie = "c" * 32
    rows[creator].owner = cookie
    Store(engine).create_game(game_row(GameState("legacy0000001", "friend", session, rows)))
    engine.dispose()

    proc = ServerProcess(tmp_path, "--agent-workers", "0").start()
    try:
        me = urllib.request.Request(proc.url + "/api/me", headers={"Cookie": f"clash_player={cookie}"})
        with urllib.request.urlopen(me, timeout=30) as r:
            set_cookies = r.headers.get_all("Set-Cookie")
            answer = json.loads(r.read())
        assert answer["identity"].startswith("guest-") and not answer["account"]
        new_session = next(c for c in set_cookies if c.startswith("clash_session="))
        assert "HttpOnly" in new_session
        assert any(c.startswith("clash_player=") and "Max-Age=0" in c for c in set_cookies)  # removed
        sid = new_session.split(";")[0].split("=", 1)[1]
        assert sid != cookie
        # The cookie is exchanged once: presented again, it is nobody.
        with urllib.request.urlopen(me, timeout=30) as r:
            assert json.loads(r.read())["identity"] is None
        assert _mine(proc, sid) == ["legacy0000001"]
        assert _hello(proc, "legacy0000001", [], sid)["seat"] == creator
        friend_token = tokens[1 - creator]
        assert _hello(proc, "legacy0000001", [friend_token], sid)["code"] == "own_game"
        friend = proc.guest()
        assert _hello(proc, "legacy0000001", [friend_token], friend)["seat"] == 1 - creator
        assert _hello(proc, "legacy0000001", [friend_token], proc.guest())["code"] == "seat_taken"
    finally:
        proc.stop()
