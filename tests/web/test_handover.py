"""Work handed over when the server process holding it dies (docs/web.md, "Hand-over"): the clock
lease's holder killed mid-game, the abandonment countdown carried over to the next holder, rematch
offers made at once on two processes, a resignation racing a time-out, and a game whose last
action was stored by a process killed before it marked the game over.  Real ``clash serve``
processes on a real PostgreSQL; skipped without ``CLASH_TEST_PG_URL`` (in CI its absence is an
error)."""

from __future__ import annotations

import json
import random
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from test_clocks import T0, FileClock
from test_several_processes import act, joined, wait_index
from test_work_once import _log_lines, _sql, _until

from conftest import Client, ServerProcess, pg_url, reset_pg

LEASE = "2"  # seconds: a killed holder's work is taken over after this
ABANDON = 6.0  # --abandon-after in these tests (seconds of the database's clock)


@pytest.fixture
def database() -> Iterator[str]:
    url = pg_url()
    if not url:
        pytest.skip("CLASH_TEST_PG_URL is not set (no PostgreSQL server for the hand-over tests)")
    reset_pg(url)
    yield url
    reset_pg(url)


def _servers(tmp_path: Path, database: str, *extra: str, n: int = 2) -> list[ServerProcess]:
    args = ("--rate", "200", "--agent-workers", "0", "--lease-seconds", LEASE, *extra)
    return [ServerProcess(tmp_path / f"p{i}", *args, database=database).start() for i in range(n)]


def invite_token(game: dict[str, Any]) -> str:
    return str(game["invite"].split("#t=")[1].split("&")[0])


def _pid_in(proc: ServerProcess, holder: str) -> bool:
    return proc.proc is not None and f":{proc.proc.pid}:" in holder


def _holder(database: str, name: str, procs: list[ServerProcess]) -> tuple[ServerProcess, ServerProcess]:
    """(the process holding the lease ``name``, the other one), once one holds it."""
    query = "SELECT holder FROM leases WHERE name = :n"
    holder = _until(f"a holder of {name}", lambda: _sql(database, query, n=name))[0].holder
    held = next(p for p in procs if _pid_in(p, holder))
    return held, next(p for p in procs if p is not held)


def _taken_over(database: str, name: str, survivor: ServerProcess) -> None:
    query = "SELECT holder FROM leases WHERE name = :n"
    _until(f"{name} taken over", lambda: _pid_in(survivor, _sql(database, query, n=name)[0].holder), 60)


def _status(database: str, game: str) -> str:
    return str(_sql(database, "SELECT status FROM games WHERE id = :g", g=game)[0].status)


def _result(database: str, game: str) -> dict[str, Any]:
    rows = _until(
        "the game's end",
        lambda: _sql(database, "SELECT result FROM games WHERE id = :g AND status = 'over'", g=game),
        90,
    )
    return dict(json.loads(rows[0].result))


def _notices(client: Client, code: str) -> list[dict[str, Any]]:
    return [f for f in client.frames if f["type"] == "notice" and f.get("code") == code]


def _drain(client: Client, seconds: float) -> None:
    """Read whatever the client is sent for ``seconds`` (frames are kept in ``client.frames``)."""
    deadline = time.monotonic() + seconds
    while (left := deadline - time.monotonic()) > 0:
        try:
            client.recv(timeout=left)
        except TimeoutError:
            return


# ---------------------------------------------------------------------------- 1. the clocks lease


def test_the_clock_lease_holder_killed_the_other_process_times_the_game_out_once(
    tmp_path: Path, database: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A 3+2 rated duel, the invitee connected to the process holding the ``clocks`` lease.  That
    process is killed; its player comes back through the other, which shows both clocks as stored
    (the running one counted from its stored deadline), takes the lease over once it expired and
    ends the game on time once, with the right loser and the rating applied once."""
    clock = FileClock(tmp_path / "now")
    monkeypatch.setenv("CLASH_TEST_CLOCK_FILE", str(clock.path))
    procs = _servers(tmp_path, database)
    holder, survivor = _holder(database, "clocks", procs)
    try:
        game = survivor.new_game(kind="friend", format="draft", time_control="3+2", rated=True)
        a = Client(survivor, game["id"], game["tokens"])
        b = Client(holder, game["id"], [invite_token(game)], rated=True)
        assert b.state["clock"]["running"] == b.state["to_move"] and b.state["rated"] is True
        while a.state["clock"]["running"] is None:  # the creator is sent the clock's start
            a.wait_state()
        first = a if a.state["legal"] else b
        seat = first.state["seat"]
        clock.set(T0 + 10)  # the first player takes 10 s, then hands the decision over
        rng = random.Random(2)
        while first.state["clock"]["running"] == seat:
            act(first, rng.choice(first.state["legal"]))
        other = 1 - seat
        assert first.state["clock"]["left"] == ([172.0, 180.0] if seat == 0 else [180.0, 172.0])
        clock.set(T0 + 50)
        friend = b.session
        holder.stop(kill=True)  # SIGKILL: the clocks lease stays in the table until it expires
        b = Client(survivor, game["id"], [invite_token(game)], session=friend)
        assert b.state["clock"]["running"] == other
        assert b.state["clock"]["left"][seat] == 172.0 and b.state["clock"]["left"][other] == 140.0
        _taken_over(database, "clocks", survivor)
        clock.set(T0 + 189)  # one second before the running seat's stored deadline (T0 + 190)
        time.sleep(2)  # two watch ticks of the new holder: the game must not end early
        assert _status(database, game["id"]) == "active"
        clock.set(T0 + 191)
        result = _result(database, game["id"])
        assert result["termination"] == "time" and result["winner"] == seat
        time.sleep(1.5)  # the holder looks again: it must not end the game a second time
        lines = _log_lines([survivor], f"game {game['id']}: seat {other} lost on time")
        assert len(lines) == 1 and _log_lines([holder], "lost on time") == []
        stored = _sql(database, "SELECT * FROM clocks WHERE game_id = :g", g=game["id"])[0]
        left = {seat: 172.0, other: 0.0}
        assert (stored.remaining0, stored.remaining1, stored.running) == (left[0], left[1], None)
        # Lost on time in the setup: aborted and not rated (the abort rule, test_fair_play.py), once.
        assert result["aborted"] is True
        history = _sql(database, "SELECT identity_id FROM rating_history WHERE game_id = :g", g=game["id"])
        assert history == [] and _sql(database, "SELECT games FROM ratings") == []
        end = _until("the end shown", lambda: b.wait_state() if b.state["result"] is None else b.state)
        assert end["clock"]["left"][other] == 0 and end["clock"]["running"] is None
        a.close()
        b.close()
    finally:
        for p in procs:
            p.stop()


def test_a_resignation_after_the_deadline_is_a_loss_on_time(
    tmp_path: Path, database: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The running seat's time is out; before any watcher ends the game, its opponent resigns on the
    process that does not hold the clocks lease: the game was lost on time at its deadline, so the
    resignation is refused and the player out of time loses, once."""
    clock = FileClock(tmp_path / "now")
    monkeypatch.setenv("CLASH_TEST_CLOCK_FILE", str(clock.path))
    procs = _servers(tmp_path, database)
    _held, other = _holder(database, "clocks", procs)
    try:
        game = other.new_game(kind="friend", format="draft", time_control="3+2", rated=True)
        a = Client(other, game["id"], game["tokens"])
        b = Client(other, game["id"], [invite_token(game)], rated=True)
        running = b.state["clock"]["running"]
        waiting = a if a.state["seat"] != running else b
        clock.set(T0 + 600)
        waiting.send({"type": "resign"})
        waiting.expect_error("game_over")
        result = _result(database, game["id"])
        assert result["termination"] == "time" and result["winner"] == 1 - running
        time.sleep(1.5)
        assert len(_log_lines(procs, f"game {game['id']}: seat {running} lost on time")) == 1
        assert result["aborted"] is True  # before any first turn: aborted, not rated
        assert _sql(database, "SELECT 1 FROM rating_history WHERE game_id = :g", g=game["id"]) == []
        a.close()
        b.close()
    finally:
        for p in procs:
            p.stop()


# ---------------------------------------------------------------------------- 2. abandonment


def _friend_to_move(
    proc: ServerProcess, friend_proc: ServerProcess | None = None
) -> tuple[dict[str, Any], Client, Client]:
    """An unclocked friend duel created on ``proc`` whose friend (the invitee, connected to
    ``friend_proc``, by default ``proc`` too) is to move."""
    game = proc.new_game(kind="friend", format="draft")
    a = Client(proc, game["id"], game["tokens"])
    b = Client(friend_proc or proc, game["id"], [invite_token(game)])
    joined(a)
    rng = random.Random(5)
    while a.state["legal"]:
        act(a, rng.choice(a.state["legal"]))
    wait_index(b, a.state["index"])
    assert b.state["legal"]
    return game, a, b


def _countdown(database: str, game: str) -> list[Any]:
    return _sql(database, "SELECT seat, since FROM abandonment WHERE game_id = :g", g=game)


def test_the_abandonment_countdown_goes_on_from_when_the_seat_left_across_a_hand_over(
    tmp_path: Path, database: str
) -> None:
    procs = _servers(tmp_path, database, "--abandon-after", str(ABANDON))
    holder, survivor = _holder(database, "abandonment", procs)
    try:
        game, a, b = _friend_to_move(survivor)
        friend_seat = b.state["seat"]
        b.close()  # the friend leaves on its turn
        started = _until("the countdown stored", lambda: _countdown(database, game["id"]))
        assert started[0].seat == friend_seat
        while not _notices(a, "opponent_away"):
            a.recv(timeout=30)
        time.sleep(ABANDON / 2)  # half the countdown gone, then the process judging it dies
        holder.stop(kill=True)
        _taken_over(database, "abandonment", survivor)
        assert _countdown(database, game["id"]) in ([], started)  # kept as it was (or done with)
        result = _result(database, game["id"])
        assert result.get("abandoned") and result["winner"] == 1 - friend_seat
        ended = _sql(database, "SELECT updated_at FROM games WHERE id = :g", g=game["id"])[0].updated_at
        assert ended >= started[0].since + ABANDON  # not before its time
        _drain(a, 1.5)
        # Continued, not restarted: the new holder did not tell the game a second time.
        assert len(_notices(a, "opponent_away")) == 1 and len(_notices(a, "abandoned")) == 1
        assert len(_log_lines([survivor], f"game {game['id']}: seat \\d abandoned the game")) == 1
        assert _countdown(database, game["id"]) == []
        a.close()
    finally:
        for p in procs:
            p.stop()


def test_a_seat_whose_process_was_killed_is_judged_away_by_the_survivor(
    tmp_path: Path, database: str
) -> None:
    """The friend's only connection and the abandonment lease are on the process killed: its
    presence rows still count one connection, but its heartbeat stops, so once it is taken for dead
    the survivor (the lease's next holder) counts the seat away and abandons the game, once."""
    procs = _servers(tmp_path, database, "--abandon-after", "3")
    holder, survivor = _holder(database, "abandonment", procs)
    try:
        game, a, b = _friend_to_move(survivor, holder)
        friend_seat = b.state["seat"]
        holder.stop(kill=True)  # no clean disconnect: nothing but the heartbeat says the seat left
        _taken_over(database, "abandonment", survivor)
        started = _until("the countdown stored", lambda: _countdown(database, game["id"]), 90)
        result = _result(database, game["id"])
        assert result.get("abandoned") and result["winner"] == 1 - friend_seat
        ended = _sql(database, "SELECT updated_at FROM games WHERE id = :g", g=game["id"])[0].updated_at
        assert ended >= started[0].since + 3
        assert len(_log_lines([survivor], f"game {game['id']}: seat {friend_seat} abandoned the game")) == 1
        a.close()
    finally:
        for p in procs:
            p.stop()


def test_a_seat_back_through_another_process_before_the_deadline_cancels_the_countdown(
    tmp_path: Path, database: str
) -> None:
    procs = _servers(tmp_path, database, "--abandon-after", str(ABANDON))
    try:
        game, a, b = _friend_to_move(procs[0])
        friend = b.session
        b.close()
        first = _until("the countdown stored", lambda: _countdown(database, game["id"]))
        b = Client(procs[1], game["id"], [invite_token(game)], session=friend)  # back, elsewhere
        _until("the countdown cancelled", lambda: not _countdown(database, game["id"]), 30)
        time.sleep(ABANDON + 2)  # past the first deadline: the friend is here, nothing ends
        assert _status(database, game["id"]) == "active" and _countdown(database, game["id"]) == []
        b.close()  # leaves again: a new countdown, from now
        again = _until("a new countdown", lambda: _countdown(database, game["id"]))
        assert again[0].since > first[0].since
        a.close()
    finally:
        for p in procs:
            p.stop()


# ---------------------------------------------------------------------------- 3. rematches


def _finished_duel(
    creator: ServerProcess, invitee: ServerProcess, game: dict[str, Any] | None = None
) -> tuple[str, Client, Client]:
    """A friend duel with its creator on ``creator`` and the friend on ``invitee``, resigned."""
    game = game or creator.new_game(kind="friend", format="precon")
    a = Client(creator, game["id"], game["tokens"], session=game["session"])
    b = Client(invitee, game["id"], [invite_token(game)], session=invitee.guest())
    joined(a)
    a.send({"type": "resign"})
    for c in (a, b):
        while c.state["result"] is None:
            c.wait_state()
    return game["id"], a, b


def _rematch_of(client: Client) -> str:
    while True:
        frame = client.recv(timeout=30)
        if frame["type"] == "rematch":
            return str(frame["game"])


def _offer_rematch(client: Client, both: threading.Barrier) -> None:
    both.wait()  # the two offers leave at the same instant
    client.send({"type": "rematch"})


def _games(database: str) -> int:
    return int(_sql(database, "SELECT count(*) AS n FROM games")[0].n)


def test_rematch_offers_made_at_once_on_two_processes_make_one_game(tmp_path: Path, database: str) -> None:
    procs = _servers(tmp_path, database)
    try:
        for round_ in range(4):
            creator, invitee = (procs[0], procs[1]) if round_ % 2 == 0 else (procs[1], procs[0])
            game, a, b = _finished_duel(creator, invitee)
            before = _games(database)
            both = threading.Barrier(2)
            threads = [threading.Thread(target=_offer_rematch, args=(c, both)) for c in (a, b)]
            for t in threads:
                t.start()
            for t in threads:
                t.join()
            new = _rematch_of(a)
            assert _rematch_of(b) == new
            assert _games(database) == before + 1
            owners = "SELECT owner FROM seats WHERE game_id = :g"
            players = {r.owner for r in _sql(database, owners, g=game)}
            assert {r.owner for r in _sql(database, owners, g=new)} == players and len(players) == 2
            a.close()
            b.close()
    finally:
        for p in procs:
            p.stop()


def test_a_rematch_offered_on_one_process_and_accepted_on_the_other(tmp_path: Path, database: str) -> None:
    procs = _servers(tmp_path, database)
    try:
        _game, a, b = _finished_duel(procs[0], procs[1])
        before = _games(database)
        a.send({"type": "rematch"})
        while not _notices(b, "rematch_offered"):
            b.recv(timeout=30)
        b.send({"type": "rematch"})
        new = _rematch_of(a)
        assert _rematch_of(b) == new and _games(database) == before + 1
        b.send({"type": "rematch"})  # asked again: the same game, no other
        assert _rematch_of(b) == new and _games(database) == before + 1
        a.close()
        b.close()
    finally:
        for p in procs:
            p.stop()


# ---------------------------------------------------------------------------- 4. a half-stored end


def test_a_game_whose_end_was_not_marked_is_finished_with_its_rating_by_another_process(
    tmp_path: Path, database: str
) -> None:
    """A rated duel played to its end; the store is then put back to what a process killed between
    storing the last action and marking the game over leaves (the game active, no rating).  The
    process that opens the game next ends it with its rating, once."""
    one, two = _servers(tmp_path, database)
    try:
        game = one.new_game(kind="friend", format="precon", rated=True)
        a = Client(one, game["id"], game["tokens"])
        b = Client(one, game["id"], [invite_token(game)], rated=True)
        rng = random.Random(7)
        while a.state["result"] is None:
            mover = a if a.state["legal"] else b
            act(mover, rng.choice(mover.state["legal"]))
            wait_index(a if mover is b else b, mover.state["index"])
        a.close()
        b.close()
        one.stop(kill=True)
        g = game["id"]
        for statement in (
            "UPDATE games SET status = 'active', result = NULL WHERE id = :g",
            "UPDATE rated_games SET applied_at = NULL WHERE game_id = :g",
            "DELETE FROM rating_history WHERE game_id = :g",
            "DELETE FROM ratings",
        ):
            _sql_write(database, statement, g=g)
        watcher = Client(two, g, [])
        assert watcher.state["result"] is not None and _status(database, g) == "over"
        assert len(_sql(database, "SELECT 1 FROM rating_history WHERE game_id = :g", g=g)) == 2
        assert sorted(r.games for r in _sql(database, "SELECT games FROM ratings")) == [1, 1]
        watcher.close()
    finally:
        one.stop()
        two.stop()


def _sql_write(database: str, statement: str, **params: Any) -> None:
    import sqlalchemy as sa

    from clashofdecks.web.store import normalize_url

    engine = sa.create_engine(normalize_url(database))
    try:
        with engine.begin() as conn:
            conn.execute(sa.text(statement), params)
    finally:
        engine.dispose()


# ---------------------------------------------------------------------------- 4. analyses


def _played_then_resigned(proc: ServerProcess, actions: int) -> str:
    """A friend duel on ``proc``, ``actions`` random decisions into it, then resigned (its end
    starts the analysis there)."""
    game = proc.new_game(kind="friend", format="precon")
    a = Client(proc, game["id"], game["tokens"])
    b = Client(proc, game["id"], [invite_token(game)])
    joined(a)
    rng = random.Random(9)
    for _ in range(actions):
        mover = a if a.state["legal"] else b
        if a.state["result"] is not None:
            break
        act(mover, rng.choice(mover.state["legal"]))
        wait_index(a if mover is b else b, mover.state["index"])
    if a.state["result"] is None:
        a.send({"type": "resign"})
        while a.state["result"] is None:
            a.wait_state()
    a.close()
    b.close()
    return str(game["id"])


def _analysed(proc: ServerProcess, game: str) -> dict[str, Any]:
    """Ask ``proc`` for the game's analysis until it is there (each ask may start it)."""

    def ask() -> dict[str, Any] | None:
        status, body = proc.get(f"/api/games/{game}/analysis")
        assert status in (200, 202), (status, body)
        return dict(body) if status == 200 else None

    return dict(_until("the analysis", ask, 180))


def test_a_finished_game_is_analysed_once_and_by_the_other_process_when_its_analyser_dies(
    tmp_path: Path, database: str
) -> None:
    # The first process analyses slowly, so that it is surely still at it when it is killed; the
    # other one takes the game over at the ordinary pace.
    args = ("--rate", "200", "--agent-workers", "0", "--lease-seconds", LEASE)
    one = ServerProcess(tmp_path / "p0", *args, "--analysis-iterations", "100000", database=database).start()
    two = ServerProcess(tmp_path / "p1", *args, "--analysis-iterations", "3000", database=database).start()
    try:
        game = _played_then_resigned(one, 4)
        assert _analysed(two, game)  # asked of the other process while the first analyses it
        assert len(_log_lines([one, two], f"analysing game {game}")) == 1
        game = _played_then_resigned(one, 30)
        _until("the analysis under way", lambda: _log_lines([one], f"analysing game {game}"))
        one.stop(kill=True)  # dies while it analyses: its lease expires, the other takes over
        assert _analysed(two, game)
        assert len(_log_lines([two], f"analysing game {game}")) == 1
    finally:
        one.stop()
        two.stop()
