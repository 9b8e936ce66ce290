"""Rated play over a real server: "play now" pairs two strangers into one rated duel, a resignation
changes both ratings (a loss for the one who resigned), the queue's hostile input, leaving the page
leaves the queue, rematches, and the leaderboard and player endpoints' refusals."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from websockets.sync.client import ClientConnection, connect

from conftest import Client, ServerProcess, through_first_turns


class Queuer:
    """A bot on the lobby's socket (no game): it sends queue messages and keeps what it receives."""

    def __init__(self, server: ServerProcess, session: str | None) -> None:
        headers = {"Authorization": f"Bearer {session}"} if session else None
        self._cm = connect(server.ws_url, additional_headers=headers, open_timeout=30)
        self.ws: ClientConnection = self._cm.__enter__()

    def send(self, msg: Any) -> None:
        self.ws.send(msg if isinstance(msg, str) else json.dumps(msg))

    def recv(self, timeout: float = 30) -> dict[str, Any]:
        return dict(json.loads(self.ws.recv(timeout=timeout)))

    def close(self) -> None:
        self._cm.__exit__(None, None, None)


def _rating(server: ServerProcess, handle: str, fmt: str = "draft") -> dict[str, Any] | None:
    status, body = server.get(f"/api/leaderboard?format={fmt}&include=provisional")
    assert status == 200, body
    return next((p for p in body["players"] if p["handle"] == handle), None)


def _handle(server: ServerProcess, session: str) -> str:
    status, me = server.get("/api/me", session=session)
    assert status == 200
    return str(me["identity"])


def test_play_now_pairs_two_strangers_into_a_rated_duel_and_resigning_loses(server: ServerProcess) -> None:
    a_session, b_session = server.guest(), server.guest()
    a, b = Queuer(server, a_session), Queuer(server, b_session)
    try:
        a.send({"type": "queue", "format": "precon"})
        assert a.recv() == {"type": "queue", "status": "waiting", "format": "precon", "rating": 1000}
        b.send({"type": "queue", "format": "precon"})
        assert b.recv()["status"] == "waiting"
        matched_a, matched_b = a.recv(), b.recv()
    finally:
        a.close()
        b.close()
    assert matched_a["type"] == matched_b["type"] == "matched"
    assert matched_a["game"] == matched_b["game"] and matched_a["rated"] is True
    game = matched_a["game"]
    # The seats belong to the two identities: each opens its own seat without a token.
    ca = Client(server, game, [], session=a_session)
    cb = Client(server, game, [], session=b_session)
    try:
        assert ca.state["kind"] == "friend" and ca.state["rated"] is True
        assert len(ca.state["seats"]) == 1 and len(cb.state["seats"]) == 1
        assert ca.state["seats"] != cb.state["seats"]
        a_seat = ca.state["seats"][0]
        taken: dict[int, int] = {}
        for _ in range(2):  # each takes a preconstructed deck
            mover, other = (ca, cb) if ca.state["legal"] else (cb, ca)
            deck = next(x for x in mover.state["legal"] if x.startswith("deck "))
            taken[mover.state["seats"][0]] = int(deck.split()[1])
            mover.act(deck)
            other.wait_state()
        through_first_turns(ca, cb)  # before that, a resignation would abort the game (not rated)
        ca.send({"type": "resign"})
        over = ca.wait_state()
        assert over["result"]["winner"] == 1 - a_seat
    finally:
        ca.close()
        cb.close()
    ra, rb = (
        _rating(server, _handle(server, a_session), "precon"),
        _rating(server, _handle(server, b_session), "precon"),
    )
    assert ra is not None and rb is not None
    assert ra["games"] == rb["games"] == 1
    assert (ra["wins"], ra["losses"], rb["wins"], rb["losses"]) == (0, 1, 1, 0)
    assert rb["rating"] > 1000 > ra["rating"] and ra["provisional"] and rb["provisional"]
    # Guests are provisional: never on the plain leaderboard.
    status, plain = server.get("/api/leaderboard?format=precon")
    assert status == 200 and all(p["handle"] != ra["handle"] for p in plain["players"])
    # The player page's data: the rating history has the game.
    status, page = server.get(f"/api/players/{ra['handle']}")
    assert status == 200 and page["ratings"]["precon"]["losses"] == 1
    assert [h["game"] for h in page["history"]["precon"]] == [game]
    assert "id" not in page and all("owner" not in g for g in page["games"])
    # Results by preconstructed deck: the deck the player took in the setup.
    assert page["results_by_deck"] == {str(taken[a_seat]): {"wins": 0, "losses": 1, "draws": 0, "played": 0}}


def test_queue_messages_are_checked_and_change_nothing(server: ServerProcess) -> None:
    anonymous = Queuer(server, None)
    try:
        anonymous.send({"type": "queue", "format": "draft"})
        assert anonymous.recv()["code"] == "no_identity"
    finally:
        anonymous.close()
    session = server.guest()
    q = Queuer(server, session)
    try:
        for bad, code in [
            ({"type": "queue"}, "bad_field"),
            ({"type": "queue", "format": 3}, "bad_field"),
            ({"type": "queue", "format": "custom"}, "bad_field"),  # not a rated format
            ({"type": "queue", "format": "draft", "rating": 3000}, "bad_field"),  # no such field
            ({"type": "queue", "format": "draft", "lang": "xx"}, "bad_field"),
            ({"type": "queue", "format": "x" * 5000}, "too_big"),
            ({"type": "leave_queue"}, "not_queued"),
            ({"type": "queue_ai"}, "not_queued"),
            ({"type": "rematch"}, "hello_first"),
        ]:
            q.send(bad)
            answer = q.recv()
            assert answer["type"] == "error" and answer["code"] == code, (bad, answer)
        q.send({"type": "queue", "format": "draft"})
        assert q.recv()["status"] == "waiting"
        q.send({"type": "queue", "format": "precon"})  # one queue at a time
        assert q.recv()["code"] == "already_queued"
        q.send({"type": "queue_ai"})  # the AI is offered after 30 s, not before
        assert q.recv()["code"] == "not_queued"
        # A second page of the same identity cannot queue either (nobody plays themselves).
        other_page = Queuer(server, session)
        try:
            other_page.send({"type": "queue", "format": "draft"})
            assert other_page.recv()["code"] == "already_queued"
        finally:
            other_page.close()
        q.send({"type": "leave_queue"})
        assert q.recv() == {"type": "queue", "status": "left"}
    finally:
        q.close()


def test_leaving_the_page_leaves_the_queue(server: ServerProcess) -> None:
    gone = Queuer(server, server.guest())
    gone.send({"type": "queue", "format": "draft"})
    assert gone.recv()["status"] == "waiting"
    gone.close()  # the page is left
    stays = Queuer(server, server.guest())
    try:
        stays.send({"type": "queue", "format": "draft"})
        assert stays.recv()["status"] == "waiting"
        stays.send({"type": "ping", "id": 7})
        # Not paired with the one who left: the next message is the answer to the ping.
        assert stays.recv() == {"type": "pong", "id": 7}
        stays.send({"type": "leave_queue"})
        assert stays.recv()["status"] == "left"
    finally:
        stays.close()


def test_a_rematch_needs_both_players_and_is_rated_again(server: ServerProcess) -> None:
    a_session, b_session = server.guest(), server.guest()
    a, b = Queuer(server, a_session), Queuer(server, b_session)
    try:
        a.send({"type": "queue", "format": "draft"})
        a.recv()
        b.send({"type": "queue", "format": "draft"})
        b.recv()
        game = a.recv()["game"]
        b.recv()
    finally:
        a.close()
        b.close()
    ca = Client(server, game, [], session=a_session)
    cb = Client(server, game, [], session=b_session)
    watcher = Client(server, game, [], session=server.guest())
    try:
        ca.send({"type": "rematch"})
        ca.expect_error("rematch_refused")  # not over yet
        through_first_turns(ca, cb)
        cb.send({"type": "resign"})
        ca.wait_state()
        cb.wait_state()
        watcher.send({"type": "rematch"})
        watcher.expect_error("spectator")
        ca.send({"type": "rematch"})
        offered = cb.recv()
        while offered["type"] != "notice":
            offered = cb.recv()
        assert offered["code"] == "rematch_offered" and offered["seats"] == ca.state["seats"]
        cb.send({"type": "rematch"})
        to_a = ca.recv()
        while to_a["type"] != "rematch":
            to_a = ca.recv()
        to_b = cb.recv()
        while to_b["type"] != "rematch":
            to_b = cb.recv()
        assert to_a["game"] == to_b["game"] != game
    finally:
        ca.close()
        cb.close()
        watcher.close()
    ra = Client(server, to_a["game"], [], session=a_session)
    try:
        assert ra.state["rated"] is True and len(ra.state["seats"]) == 1
    finally:
        ra.close()


def test_spectators_cannot_ask_for_a_rematch(server: ServerProcess) -> None:
    g = server.new_game(kind="ai", ai="beginner")
    owner = Client(server, g["id"], [], session=g["session"])
    spectator = Client(server, g["id"], [], session=server.guest())
    try:
        spectator.send({"type": "rematch"})
        assert spectator.expect_error("spectator")
        owner.send({"type": "resign"})
        owner.wait_state()
        owner.send({"type": "rematch"})  # against the AI a rematch starts at once
        answer = owner.recv()
        while answer["type"] != "rematch":
            answer = owner.recv()
        assert answer["game"] != g["id"]
    finally:
        owner.close()
        spectator.close()
    again = Client(server, answer["game"], [], session=g["session"])
    try:
        assert again.state["rated"] is False and again.state["kind"] == "ai"
    finally:
        again.close()


def test_leaderboard_and_player_requests_are_checked(server: ServerProcess) -> None:
    assert server.get("/api/leaderboard?format=custom")[0] == 400
    assert server.get("/api/leaderboard?format=draft&include=everything")[0] == 400
    assert server.get("/api/players/nobody-here")[0] == 404
    assert server.get("/api/players/NOT%20A%20HANDLE")[0] == 404
    status, body = server.get("/api/leaderboard?format=draft")
    assert status == 200 and body["min_games"] == 10 and isinstance(body["players"], list)


def _invite_token(game: dict[str, Any]) -> tuple[str, bool]:
    fragment = game["invite"].split("#", 1)[1]
    parts = dict(p.split("=", 1) for p in fragment.split("&"))
    return parts["t"], parts.get("rated") == "1"


def test_a_friend_duel_is_rated_only_when_both_chose_it(server: ServerProcess) -> None:
    for accepted in (True, False):
        game = server.new_game(kind="friend", format="draft", rated=True)
        token, offered = _invite_token(game)
        assert offered
        friend_session = server.guest()
        host = Client(server, game["id"], [], session=game["session"])
        friend = Client(server, game["id"], [token], session=friend_session, rated=accepted)
        try:
            assert friend.state["rated"] is accepted
            assert host.wait_state()["rated"] is accepted  # the host's page is told the answer
            through_first_turns(host, friend)
            friend.send({"type": "resign"})
            over = friend.recv()
            while over["type"] != "state" or over.get("result") is None:
                over = friend.recv()
        finally:
            friend.close()
            host.close()
        handle = _handle(server, friend_session)
        rating = _rating(server, handle)
        if accepted:
            assert rating is not None and rating["losses"] == 1 and rating["rating"] < 1000
        else:
            assert rating is None  # declined: not rated, no rating made


def test_rated_is_offered_only_for_friend_duels_of_the_rated_formats(server: ServerProcess) -> None:
    session = server.guest()
    for options in (
        {"kind": "ai", "rated": True},
        {"kind": "hotseat", "rated": True},
        {"kind": "solo", "rated": True},
        {"kind": "friend", "format": "custom", "rated": True},
        {"kind": "friend", "rated": "yes"},
        {"kind": "friend", "rated": 1},
    ):
        status, body = server.post("/api/games", options, session=session)
        assert status == 400, (options, body)
    status, mine = server.get("/api/lobby", session=session)
    assert status == 200 and mine["mine"] == []  # nothing was created
    # The hello's answer is a boolean too.
    game = server.new_game(kind="friend", rated=True)
    token, _offered = _invite_token(game)
    bad = Queuer(server, server.guest())
    try:
        bad.send({"type": "hello", "game": game["id"], "tokens": [token], "rated": "yes"})
        assert bad.recv()["code"] == "bad_field"
    finally:
        bad.close()


def test_leaving_a_rated_game_counts_as_a_loss(tmp_path: Path) -> None:
    """An unclocked rated duel (a friend duel both chose rated: the queue's games have a clock,
    which alone decides them) left by the player to move is lost by abandonment."""
    proc = ServerProcess(tmp_path, "--abandon-after", "1.5", "--agent-workers", "0").start()
    try:
        game = proc.new_game(kind="friend", format="precon", rated=True)
        token, _offered = _invite_token(game)
        a = Client(proc, game["id"], game["tokens"])
        b = Client(proc, game["id"], [token], rated=True)
        a.wait_state()  # told that the invitee accepted: rated
        a_session, b_session = a.session, b.session
        through_first_turns(a, b)  # leaving before that aborts the game (test_fair_play.py)
        mover, stayer = (a, b) if a.state["legal"] else (b, a)
        left_session = a_session if mover is a else b_session
        mover.close()  # the player whose turn it is leaves the rated game
        while stayer.state["result"] is None:
            stayer.recv(timeout=20)
        assert stayer.state["result"]["termination"] == "abandoned"
        stayer.close()
        rating = _rating(proc, _handle(proc, left_session), "precon")
        assert rating is not None and (rating["games"], rating["losses"]) == (1, 1)
    finally:
        proc.stop()
