"""Fair play in rated games (docs/web.md, "Fair play"): no engine help while a rated game runs (a
hint refused over the socket to either seat and to spectators, records, replays and analyses
refused over HTTP), undo refused between two people, the abort rule, time controls of rated games
and rematches, and reports of an opponent after the game."""

from __future__ import annotations

from typing import Any

from conftest import Client, ServerProcess, through_first_turns


def rated_duel(server: ServerProcess) -> tuple[dict[str, Any], Client, Client]:
    """A friend duel both players chose rated, both pages open (the creator's first)."""
    body = server.new_game(kind="friend", format="precon", rated=True)
    a = Client(server, body["id"], body["tokens"])
    b = Client(server, body["id"], [body["invite"].split("#t=")[1].split("&")[0]], rated=True)
    assert a.wait_state()["rated"] is True  # the creator's page is told the invitee accepted
    return body, a, b


def mover_and_other(a: Client, b: Client) -> tuple[Client, Client]:
    """The page whose seat is to move, and the other, both at the game's latest state."""
    while a.state["index"] != b.state["index"]:
        (a if a.state["index"] < b.state["index"] else b).wait_state()
    return (a, b) if a.state["legal"] else (b, a)


def through_setup(a: Client, b: Client) -> None:
    """Both players make their setup decisions (the first legal one): the play phase begins."""
    while b.state["phase"] == "setup" or a.state["phase"] == "setup":
        mover, other = mover_and_other(a, b)
        mover.act(mover.state["legal"][0])
        other.wait_state()


def test_no_engine_help_in_a_rated_game_while_it_runs(server: ServerProcess) -> None:
    body, a, b = rated_duel(server)
    watcher = Client(server, body["id"], [])
    try:
        assert b.state["rated"] is True
        through_setup(a, b)  # on the mover's own turn of the play phase, when a hint would be given
        mover, other = mover_and_other(a, b)
        for client in (mover, other, watcher):
            client.send({"type": "hint"})
            err = client.expect_error("hint_unavailable")
            assert "rated" in err["message"]
        mover.send({"type": "undo", "index": mover.state["index"]})  # never between two people
        mover.expect_error("undo_refused")
        for path in ("analysis", "replay", "record"):
            status, answer = server.get(f"/api/games/{body['id']}/{path}")
            assert status == 403 and answer["code"] == "hint_unavailable", (path, answer)
        mover.send({"type": "resign"})
        assert mover.wait_state()["result"] is not None
        status, answer = server.get(f"/api/games/{body['id']}/analysis")  # open once it is over
        assert status in (200, 202) and "code" not in answer, answer
        status, answer = server.get(f"/api/games/{body['id']}/replay")
        assert status == 200
    finally:
        for c in (a, b, watcher):
            c.close()


def _rating(server: ServerProcess, session: str) -> dict[str, Any] | None:
    status, me = server.get("/api/me", session=session)
    assert status == 200
    status, body = server.get("/api/leaderboard?format=precon&include=provisional")
    assert status == 200
    return next((p for p in body["players"] if p["handle"] == me["identity"]), None)


def test_a_rated_game_resigned_in_the_setup_is_aborted_and_unrated(server: ServerProcess) -> None:
    body, a, b = rated_duel(server)
    try:
        mover, other = mover_and_other(a, b)
        assert mover.state["can_abort"] is True and other.state["can_abort"] is True
        mover.act(mover.state["legal"][0])  # a setup pick does not count
        other.wait_state()
        mover.send({"type": "resign"})
        over = mover.wait_state()
        assert over["result"]["aborted"] is True and over["rated"] is False
        assert "first turn" in over["result"]["abort_reason"]  # English, for pages of former releases
        assert over["result"]["abort_code"] == "before_first_turns"  # what a page says in its language
        assert over["can_abort"] is False
    finally:
        a.close()
        b.close()
    assert _rating(server, a.session) is None and _rating(server, b.session) is None
    # Opened again later (from the store), the game still says it was aborted.
    again = Client(server, body["id"], [])
    try:
        assert again.state["result"]["aborted"] is True and again.state["rated"] is False
        assert again.state["result"]["abort_code"] == "before_first_turns"
    finally:
        again.close()


def test_abort_is_offered_until_each_player_has_finished_a_first_turn(server: ServerProcess) -> None:
    _body, a, b = rated_duel(server)
    try:
        through_setup(a, b)
        mover, other = mover_and_other(a, b)
        other.send({"type": "abort"})  # during the opponent's first turn, still offered
        over = other.wait_state()
        assert over["result"]["aborted"] is True and over["result"]["winner"] == mover.state["seat"]
    finally:
        a.close()
        b.close()
    assert _rating(server, a.session) is None
    _body, a, b = rated_duel(server)
    try:
        through_first_turns(a, b)
        mover, _other = mover_and_other(a, b)
        mover.send({"type": "abort"})
        mover.expect_error("abort_refused")
        mover.send({"type": "resign"})  # now a resignation counts: a loss
        over = mover.wait_state()
        assert over["rated"] is True and "aborted" not in over["result"]
    finally:
        a.close()
        b.close()
    loser = _rating(server, mover.session)
    assert loser is not None and loser["losses"] == 1


def test_abort_is_refused_in_an_unrated_duel(server: ServerProcess) -> None:
    body = server.new_game(kind="friend", format="precon")
    a = Client(server, body["id"], body["tokens"])
    try:
        assert a.state["can_abort"] is False
        a.send({"type": "abort"})
        a.expect_error("abort_refused")
    finally:
        a.close()


def test_play_now_gives_a_rated_game_with_a_real_time_clock(server: ServerProcess) -> None:
    from test_rated_play import Queuer

    sessions = [server.guest(), server.guest()]
    queuers = [Queuer(server, s) for s in sessions]
    try:
        for q in queuers:
            q.send({"type": "queue", "format": "draft"})
            assert q.recv()["status"] == "waiting"
        game = queuers[0].recv()["game"]
        assert queuers[1].recv()["game"] == game
    finally:
        for q in queuers:
            q.close()
    a = Client(server, game, [], session=sessions[0])
    b = Client(server, game, [], session=sessions[1])
    try:
        assert b.state["rated"] is True and b.state["clock"]["control"] == "5+3"
        assert b.state["clock"]["running"] == b.state["to_move"]  # both seats held: it runs
    finally:
        a.close()
        b.close()


def test_a_rematch_keeps_the_time_control_of_the_game_it_repeats(server: ServerProcess) -> None:
    body = server.new_game(kind="friend", format="precon", time_control="3+2")
    a = Client(server, body["id"], body["tokens"])
    b = Client(server, body["id"], [body["invite"].split("#t=")[1].split("&")[0]])
    try:
        a.send({"type": "resign"})
        a.wait_state()
        b.wait_state()
        for c in (a, b):
            c.send({"type": "rematch"})
        answer = b.recv()
        while answer["type"] != "rematch":
            answer = b.recv()
    finally:
        a.close()
        b.close()
    again = Client(server, answer["game"], [], session=body["session"])
    try:
        assert again.state["clock"] is not None and again.state["clock"]["control"] == "3+2"
    finally:
        again.close()


def test_the_other_seat_and_spectators_are_told_when_a_seat_leaves(server: ServerProcess) -> None:
    _body, a, b = rated_duel(server)
    watcher = Client(server, _body["id"], [])
    try:
        b_seat = b.state["seat"]
        b.close()
        for c in (a, watcher):
            notice = c.recv()
            while notice["type"] != "notice" or notice["code"] != "left":
                notice = c.recv()
            assert notice["seats"] == [b_seat]
    finally:
        a.close()
        watcher.close()


def test_a_player_reports_the_opponent_after_the_game(server: ServerProcess) -> None:
    from clashofdecks.web import reports
    from clashofdecks.web.store import open_store

    body, a, b = rated_duel(server)
    path = f"/api/games/{body['id']}/report"
    try:
        status, answer = server.post(path, {"reason": "stalled"}, session=a.session)
        assert status == 403  # not over yet
        a.send({"type": "resign"})
        a.wait_state()
    finally:
        a.close()
        b.close()
    for refused in ({}, {"reason": ""}, {"reason": 3}, {"reason": "x" * 501}):
        status, answer = server.post(path, refused, session=a.session)
        assert status == 400, (refused, answer)
    status, answer = server.post(path, {"reason": "stalled"}, session=server.guest())
    assert status == 403 and answer["code"] == "not_a_player"
    status, answer = server.post(path, {"reason": "stalled every turn"}, session=a.session)
    assert status == 200 and answer == {"reported": True, "new": True}
    status, answer = server.post(path, {"reason": "again"}, session=a.session)
    assert status == 200 and answer["new"] is False  # one report per player and game
    me = {c.session: server.get("/api/me", session=c.session)[1] for c in (a, b)}
    store = open_store(f"sqlite:///{server.data_dir / 'web.sqlite3'}")
    try:
        kept = reports.reports_of(store.engine, body["id"])
        a_id = store.identity_by_handle(me[a.session]["identity"])
        b_id = store.identity_by_handle(me[b.session]["identity"])
        assert a_id is not None and b_id is not None
        assert kept == [(a_id.id, b_id.id, "stalled every turn")]
    finally:
        store.close()


def _hint_or_error(c: Client) -> dict[str, Any]:
    c.send({"type": "hint"})
    while True:
        frame = c.recv(timeout=60)
        if frame["type"] in ("hint", "error"):
            return frame


def test_an_unrated_duel_offers_hints_only_if_both_agreed(server: ServerProcess) -> None:
    for offered, accepted in ((False, True), (True, False), (True, True)):
        body = server.new_game(kind="friend", format="precon", hints=offered)
        a = Client(server, body["id"], body["tokens"])
        b = Client(server, body["id"], [body["invite"].split("#t=")[1].split("&")[0]], hints=accepted)
        try:
            through_setup(a, b)
            mover, _other = mover_and_other(a, b)
            answer = _hint_or_error(mover)
            if offered and accepted:
                assert answer["type"] == "hint", answer
                assert answer["action"] in mover.state["legal"]
            else:
                assert answer["type"] == "error" and answer["code"] == "hint_unavailable", answer
        finally:
            a.close()
            b.close()
    session = server.guest()
    for refused in ({"kind": "friend", "hints": 1}, {"kind": "friend", "rated": True, "hints": True}):
        status, _answer = server.post("/api/games", refused, session=session)
        assert status == 400


def test_an_invite_offering_hints_says_so_and_only_then(server: ServerProcess) -> None:
    offered = server.new_game(kind="friend", format="precon", hints=True)
    assert offered["invite"].endswith("&hints=1")  # the invitee's page asks before taking the seat
    plain = server.new_game(kind="friend", format="precon")
    assert "&" not in plain["invite"]


def test_the_invitee_names_its_own_seat_and_default_names_are_the_readers(server: ServerProcess) -> None:
    """A Japanese creator who typed no name, a German invitee who typed "Klara": the invitee's seat
    is "Klara" on both pages, the creator's seat has no stored name (each page says "Player 1" in
    its own language), and the German page's sentences name the creator in German."""
    body = server.new_game(kind="friend", format="precon", lang="ja")
    a = Client(server, body["id"], body["tokens"], lang="ja")
    token = body["invite"].split("#t=")[1]
    b = Client(server, body["id"], [token], lang="de", name="Klara")
    try:
        assert b.state["players"][b.state["seat"]]["name"] == "Klara"
        creator = a.state["seat"]
        assert b.state["players"][creator]["name"] == ""  # not "プレイヤー 1"
        frame = a.wait_state()  # the creator's page is told of the seat taken
        while frame["players"][b.state["seat"]]["name"] != "Klara":
            frame = a.wait_state()
        text = " ".join([b.state.get("prompt") or "", *b.state.get("labels", [])])
        assert "プレイヤー" not in text
    finally:
        a.close()
        b.close()


def test_the_leaderboard_shows_the_readers_own_standing_while_not_listed(server: ServerProcess) -> None:
    _body, a, b = rated_duel(server)
    try:
        through_first_turns(a, b)
        a.send({"type": "resign"})
        assert a.wait_state()["result"] is not None
    finally:
        a.close()
        b.close()
    status, board = server.get("/api/leaderboard?format=precon", session=a.session)
    assert status == 200
    assert all(p["handle"] != board["me"]["handle"] for p in board["players"])  # a guest: not listed
    me = board["me"]
    assert me["guest"] is True and me["provisional"] is True and me["games"] == 1 and me["losses"] == 1
    assert me["opponents"] == 1 and me["min_games"] == board["min_games"] and me["rating"] is not None
    status, anonymous = server.get("/api/leaderboard?format=precon")
    assert status == 200 and "me" not in anonymous  # no reader: no standing


def test_a_rated_game_tells_each_seats_unique_handle(server: ServerProcess) -> None:
    body, a, b = rated_duel(server)
    a.close()
    b.close()
    status, answer = server.get(f"/api/games/{body['id']}/handles")
    assert status == 200
    handles = []
    for client in (a, b):
        status, me = server.get("/api/me", session=client.session)
        handles.append(me["identity"])
    assert sorted(answer["handles"]) == sorted(handles)
    unrated = server.new_game(kind="friend", format="precon")
    status, answer = server.get(f"/api/games/{unrated['id']}/handles")
    assert status == 404 and answer["code"] == "no_game"


def test_typed_names_follow_their_players_to_the_seats_the_coin_toss_gives() -> None:
    """Participant 0 (the creator, or the first player paired) may sit in seat 1 after the coin toss:
    each typed name goes to its player's seat, whichever that is."""
    from clashofdecks.web.games import NewGame, create_session

    seats_of_first = set()
    for seed in range(40):
        req = NewGame(kind="friend", format="precon", name="Anna", name2="Yuki", seed=seed)
        session, rows, _tokens = create_session(req, f"g{seed}")
        first = session.participant_seat(0)
        seats_of_first.add(first)
        assert rows[first].name == "Anna" and rows[1 - first].name == "Yuki", seed
    assert seats_of_first == {0, 1}  # both tosses were tried
