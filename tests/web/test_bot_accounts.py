"""Bot accounts (issue 39; docs/web.md, "Bots") on a real server, on SQLite and PostgreSQL: an account its
owner marks as a bot before its first game (refused after), shown as a bot, rated on a list of its own
(a person who meets a bot keeps their rating), met in the queue only by people who opted in, never by
its owner, two bots meeting; and ``clash bot --server`` playing a whole game from the queue."""

from __future__ import annotations

import http.client
import json
import os
import random
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest
from websockets.sync.client import ClientConnection, connect

from clashofdecks.web.bot import Bot, Stop, load_agent
from clashofdecks.web.ratings import MatchQueue, Waiting
from conftest import Client, ServerProcess, pg_url_or_skip, reset_pg, through_first_turns

PASSWORD = "long enough words"


@pytest.fixture(scope="module", params=["sqlite", "postgresql"])
def site(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    database = None
    if request.param == "postgresql":
        database = pg_url_or_skip()
        reset_pg(database)
    proc = ServerProcess(tmp_path_factory.mktemp("bots"), database=database).start()
    yield proc
    proc.stop()
    if database:
        reset_pg(database)


class Queuer:
    """A client on the lobby's socket (no game): it sends queue messages and reads the answers."""

    def __init__(self, server: ServerProcess, session: str) -> None:
        headers = {"Authorization": f"Bearer {session}"}
        self._cm = connect(server.ws_url, additional_headers=headers, open_timeout=30)
        self.ws: ClientConnection = self._cm.__enter__()

    def queue(self, fmt: str, **fields: Any) -> dict[str, Any]:
        self.ws.send(json.dumps({"type": "queue", "format": fmt, **fields}))
        return self.recv()

    def recv(self) -> dict[str, Any]:
        while True:
            frame = dict(json.loads(self.ws.recv(timeout=60)))
            if frame.get("status") != "ai_offer":
                return frame

    def leave(self) -> dict[str, Any]:
        self.ws.send(json.dumps({"type": "leave_queue"}))
        return self.recv()

    def close(self) -> None:
        self._cm.__exit__(None, None, None)


_names = iter(range(10**6))


def _account(server: ServerProcess) -> tuple[str, str, str]:
    """(bearer session, handle, username) of a new account."""
    username = f"acct{next(_names)}_{random.randrange(10**6)}"
    status, me = server.post(
        "/api/account/register", {"username": username, "password": PASSWORD}, session=server.guest()
    )
    assert status == 200, me
    return _session_of_login(server, username), str(me["identity"]), username


def _session_of_login(server: ServerProcess, username: str) -> str:
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=30)
    try:
        body = json.dumps({"username": username, "password": PASSWORD})
        conn.request("POST", "/api/account/login", body, {"Content-Type": "application/json"})
        response = conn.getresponse()
        response.read()
        assert response.status == 200
        return (response.getheader("Set-Cookie") or "").split("clash_session=", 1)[1].split(";", 1)[0]
    finally:
        conn.close()


def _bot(server: ServerProcess, owner_session: str) -> tuple[str, str]:
    """(bot session, bot handle): a new account its owner marks as a bot."""
    _session, handle, username = _account(server)
    status, body = server.post(
        "/api/bots", {"username": username, "password": PASSWORD}, session=owner_session
    )
    assert status == 200, body
    assert body["bot"] is True and body["identity"] == handle and body["session"]
    return str(body["session"]), handle


def _board(server: ServerProcess, which: str) -> list[dict[str, Any]]:
    status, body = server.get(f"/api/leaderboard?format=precon&include=provisional&list={which}")
    assert status == 200, body
    return list(body["players"])


def test_a_bot_meets_a_person_who_opted_in_and_only_the_bot_is_rated(site: ServerProcess) -> None:
    owner, owner_handle, _u = _account(site)
    bot_session, bot_handle = _bot(site, owner)
    person = site.guest()
    p, b = Queuer(site, person), Queuer(site, bot_session)
    try:
        assert p.queue("precon", bots=True) == {
            "type": "queue",
            "status": "waiting",
            "format": "precon",
            "rating": 1000,
            "bots": True,
        }
        assert b.queue("precon")["status"] == "waiting"
        matched_p, matched_b = p.recv(), b.recv()
    finally:
        p.close()
        b.close()
    assert matched_p["type"] == matched_b["type"] == "matched" and matched_p["game"] == matched_b["game"]
    cp = Client(site, matched_p["game"], [], session=person)
    cb = Client(site, matched_p["game"], [], session=bot_session)
    try:
        players = cp.state["players"]
        assert sorted(pl.get("bot", False) for pl in players) == [
            False,
            True,
        ]  # the frames say which seat is a bot
        through_first_turns(cp, cb)
        cp.send({"type": "resign"})
        assert cp.wait_state()["result"] is not None
    finally:
        cp.close()
        cb.close()
    # The bot is rated on the bots' list; the person's rating did not move (no rating at all yet).
    bots_list = _board(site, "bots")
    assert [(r["handle"], r["bot"], r["wins"]) for r in bots_list if r["handle"] == bot_handle] == [
        (bot_handle, True, 1)
    ]
    people = _board(site, "people")
    assert all(r["handle"] != bot_handle and not r["bot"] for r in people)
    status, page = site.get(f"/api/players/{bot_handle}")
    assert status == 200 and page["bot"] is True and page["owner"] == owner_handle
    me = site.get("/api/me", session=person)[1]["identity"]
    status, person_page = site.get(f"/api/players/{me}")
    assert status == 200 and person_page["ratings"] == {} and person_page["bot"] is False
    assert person_page["games"][0]["bots"].count(True) == 1  # the game lists show the bot's seat
    assert site.get("/api/leaderboard?list=robots")[0] == 400


def _sentinel_pair(site: ServerProcess) -> None:
    """Two guests matched in the draft queue: a pairing round ran over everyone waiting."""
    x, y = Queuer(site, site.guest()), Queuer(site, site.guest())
    try:
        assert x.queue("draft")["status"] == "waiting"
        assert y.queue("draft")["status"] == "waiting"
        assert x.recv()["type"] == y.recv()["type"] == "matched"
    finally:
        x.close()
        y.close()


def test_a_person_who_did_not_opt_in_never_meets_a_bot_and_two_bots_meet(site: ServerProcess) -> None:
    owner, _h, _u = _account(site)
    (first, _b1), (second, _b2) = _bot(site, owner), _bot(site, _account(site)[0])
    p, b1 = Queuer(site, site.guest()), Queuer(site, first)
    try:
        assert p.queue("precon")["status"] == "waiting"  # no "bots": people only
        assert b1.queue("precon")["status"] == "waiting"
        _sentinel_pair(site)
        b2 = Queuer(site, second)
        try:
            assert b2.queue("precon")["status"] == "waiting"
            assert b1.recv()["type"] == b2.recv()["type"] == "matched"  # two bots may meet
        finally:
            b2.close()
        assert p.leave() == {"type": "queue", "status": "left"}  # the person still waited, unmatched
    finally:
        p.close()
        b1.close()


def test_a_bot_never_meets_its_owner(site: ServerProcess) -> None:
    owner, _h, _u = _account(site)
    bot_session, _bot_handle = _bot(site, owner)
    o, b = Queuer(site, owner), Queuer(site, bot_session)
    try:
        assert o.queue("precon", bots=True)["status"] == "waiting"
        assert b.queue("precon")["status"] == "waiting"
        _sentinel_pair(site)
        assert o.leave() == {"type": "queue", "status": "left"}
        assert b.leave() == {"type": "queue", "status": "left"}
    finally:
        o.close()
        b.close()


def _in_browser(server: ServerProcess, lineage: str, path: str, body: dict[str, Any]) -> str:
    """A POST from a browser whose lineage cookie is ``lineage``; the session its answer sets."""
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=30)
    try:
        headers = {"Content-Type": "application/json", "Cookie": f"clash_browser={lineage}"}
        conn.request("POST", path, json.dumps(body), headers)
        response = conn.getresponse()
        response.read()
        assert response.status == 200
        return (response.getheader("Set-Cookie") or "").split("clash_session=", 1)[1].split(";", 1)[0]
    finally:
        conn.close()


def test_a_bot_never_meets_an_identity_of_its_owners_browser(site: ServerProcess) -> None:
    _session, _handle, username = _account(site)
    lineage = f"{random.getrandbits(128):032x}"
    owner = _in_browser(site, lineage, "/api/account/login", {"username": username, "password": PASSWORD})
    bot_session, _bot_handle = _bot(site, owner)
    # The owner's browser, signed out, plays as a new guest: that guest is the owner too, for the queue.
    second_identity = _in_browser(site, lineage, "/api/identities", {})
    g, b = Queuer(site, second_identity), Queuer(site, bot_session)
    try:
        assert g.queue("precon", bots=True)["status"] == "waiting"
        assert b.queue("precon")["status"] == "waiting"
        _sentinel_pair(site)
        assert g.leave() == {"type": "queue", "status": "left"}
        assert b.leave() == {"type": "queue", "status": "left"}
    finally:
        g.close()
        b.close()


def test_an_account_becomes_a_bot_only_before_its_first_game(site: ServerProcess) -> None:
    owner, _h, _u = _account(site)
    played, _handle, username = _account(site)
    site.new_game(session=played, kind="solo", format="precon", deck=1)
    creds = {"username": username, "password": PASSWORD}
    status, body = site.post("/api/bots", creds, session=owner)
    assert status == 409 and body["code"] == "played_already"
    assert site.get("/api/me", session=played)[1]["bot"] is False  # nothing changed
    status, body = site.post("/api/bots", {**creds, "password": "not the password"}, session=owner)
    assert status == 401 and body["code"] == "login_failed"
    _s, _h2, fresh = _account(site)
    status, body = site.post("/api/bots", {"username": fresh, "password": PASSWORD}, session=site.guest())
    assert status == 403 and body["code"] == "not_an_account"  # a guest owns no bot
    status, body = site.post("/api/bots", {"username": fresh, "password": PASSWORD}, session=owner)
    assert status == 200 and body["owner"] == _h and PASSWORD not in json.dumps(body)
    status, body = site.post("/api/bots", {"username": fresh, "password": PASSWORD}, session=owner)
    assert status == 409 and body["code"] == "already_bot"
    status, body = site.post("/api/bots", {"username": _u, "password": PASSWORD}, session=owner)
    assert status == 400 and body["code"] == "bad_field"  # an account does not own itself


def _person_plays(person: Client, rng: random.Random) -> dict[str, Any]:
    while person.state["result"] is None:
        state = person.state
        if state["to_move"] == state["seat"] and state["legal"]:
            person.send({"type": "act", "action": rng.choice(state["legal"]), "index": state["index"]})
        person.recv(120)
    return dict(person.state["result"])


def _clash_bot(site: ServerProcess, token: str, *args: str) -> subprocess.Popen[str]:
    env = {**os.environ, "CLASH_BOT_TOKEN": token}
    cmd = [sys.executable, "-m", "clashofdecks", "bot", "--server", site.url, "--agent", "greedy", *args]
    return subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def test_clash_bot_server_plays_a_whole_game_from_the_queue(site: ServerProcess) -> None:
    owner, _h, _u = _account(site)
    token, _bot_handle = _bot(site, owner)
    bot = _clash_bot(site, token, "--games", "1")
    person = site.guest()
    q = Queuer(site, person)
    try:
        assert q.queue("precon", bots=True)["status"] == "waiting"
        matched = q.recv()
    finally:
        q.close()
    client = Client(site, matched["game"], [], session=person)
    try:
        result = _person_plays(client, random.Random(4))
    finally:
        client.close()
    out, err = bot.communicate(timeout=120)
    assert bot.returncode == 0, err
    assert f"game {matched['game']}: {result['reason']}" in out and "1 game played" in out
    assert token not in out + err


def test_clash_bot_server_leaves_the_queue_on_sigterm_and_refuses_a_bad_token(site: ServerProcess) -> None:
    owner, _h, _u = _account(site)
    token, _bot_handle = _bot(site, owner)
    bot = _clash_bot(site, token)
    assert bot.stdout is not None
    assert "waits in the precon queue" in bot.stdout.readline()
    bot.terminate()
    out, err = bot.communicate(timeout=60)
    assert bot.returncode == 0, err
    assert "stopped: left the queue" in out and "Traceback" not in err
    refused = _clash_bot(site, "not-a-session")
    out, err = refused.communicate(timeout=60)
    assert refused.returncode == 1 and "signs in nobody" in err and "not-a-session" not in out + err
    person, _ph, _pu = _account(site)
    refused = _clash_bot(site, person)
    out, err = refused.communicate(timeout=60)
    assert refused.returncode == 1 and "is not a bot account" in err


def test_the_queue_rules_of_bots() -> None:
    person = Waiting("p", "precon", 1000, 0.0)
    willing = Waiting("w", "precon", 1000, 0.0, bots_ok=True)
    bot, other_bot = Waiting("b", "precon", 1000, 0.0, bot=True), Waiting("c", "precon", 1000, 0.0, bot=True)
    assert not person.may_meet(bot) and not bot.may_meet(person)
    assert willing.may_meet(bot) and bot.may_meet(willing) and bot.may_meet(other_bot)
    queue = MatchQueue(clock=lambda: 0.0, apart={frozenset(("b", "w"))})  # w owns b
    for entry in (person, willing, bot):
        queue.waiting[entry.identity] = entry
    assert [(a.identity, b.identity) for a, b in queue.pair()] == [("p", "w")]


def test_a_queue_bot_reconnects_and_finishes_the_game_in_play_when_asked_to_stop(site: ServerProcess) -> None:
    owner, _h, _u = _account(site)
    token, _bot_handle = _bot(site, owner)
    said: list[str] = []
    bot = Bot(load_agent("greedy", 2), token, seed=2, say=said.append)
    real_connect, opened = bot._connect, []

    def first_drops(base: str) -> Any:
        opened.append(base)
        if len(opened) in (1, 3):  # the first socket to the queue, and the first to the game
            raise OSError("connection refused (the test's)")
        return real_connect(base)

    bot._connect = first_drops  # type: ignore[method-assign]
    stop, played = Stop(), []
    thread = threading.Thread(
        target=lambda: played.append(bot.play_queue(site.url, "precon", stop)), daemon=True
    )
    thread.start()
    person = site.guest()
    q = Queuer(site, person)
    try:
        assert q.queue("precon", bots=True)["status"] == "waiting"
        matched = q.recv()
    finally:
        q.close()
    while f"matched: game {matched['game']}" not in said:  # in the game, not still in the queue
        assert thread.is_alive()
        time.sleep(0.05)
    client = Client(site, matched["game"], [], session=person)
    try:
        stop.ask()  # once, in the game: the bot plays it to its end, then stops instead of queueing again
        result = _person_plays(client, random.Random(6))
    finally:
        client.close()
    thread.join(120)
    assert played == [1]
    assert len(opened) == 4 and sum("connecting again" in line for line in said) == 2
    assert said[-2:] == [
        f"game {matched['game']}: {result['reason']}",
        "stopped after the game in play, as asked",
    ]


def test_a_queue_bot_asked_twice_to_stop_leaves_the_game_in_play(site: ServerProcess) -> None:
    owner, _h, _u = _account(site)
    token, _bot_handle = _bot(site, owner)
    said: list[str] = []
    bot = Bot(load_agent("greedy", 3), token, seed=3, say=said.append)
    stop, played = Stop(), []
    thread = threading.Thread(
        target=lambda: played.append(bot.play_queue(site.url, "precon", stop)), daemon=True
    )
    thread.start()
    q = Queuer(site, site.guest())
    try:
        assert q.queue("precon", bots=True)["status"] == "waiting"
        game = q.recv()["game"]
    finally:
        q.close()
    while f"matched: game {game}" not in said:  # in the game, not still in the queue
        assert thread.is_alive()
        time.sleep(0.05)
    stop.ask()
    stop.ask()
    thread.join(120)
    assert played == [0] and said[-1] == f"stopped: left game {game} unfinished"
