"""Work done exactly once by several ``clash serve`` processes on one PostgreSQL database, and by
another process when the one holding it is killed (docs/web.md, "Leases"): AI moves, a clock
timeout with its rating, and queue pairings across processes.  Real server processes; skipped
without ``CLASH_TEST_PG_URL`` (in CI its absence is an error)."""

from __future__ import annotations

import json
import random
import re
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
from test_clocks import T0, FileClock
from websockets.sync.client import connect

from clashofdecks.session import GameSession, Seat
from clashofdecks.web.games import GameState, game_row
from clashofdecks.web.store import SeatRow, normalize_url, open_store
from conftest import Client, ServerProcess, pg_url, reset_pg, through_first_turns

LEASE = "2"  # seconds: a killed holder's work is taken over after this


@pytest.fixture
def database() -> Iterator[str]:
    url = pg_url()
    if not url:
        pytest.skip("CLASH_TEST_PG_URL is not set (no PostgreSQL server for the multi-process tests)")
    reset_pg(url)
    yield url
    reset_pg(url)


def _servers(tmp_path: Path, database: str, n: int = 2, lease: str = LEASE) -> list[ServerProcess]:
    procs: list[ServerProcess] = []
    for i in range(n):
        args = ("--rate", "200", "--agent-workers", "0", "--lease-seconds", lease)
        procs.append(ServerProcess(tmp_path / f"p{i}", *args, database=database).start())
    return procs


def _sql(database: str, query: str, **params: Any) -> list[Any]:
    engine = sa.create_engine(normalize_url(database))
    try:
        with engine.connect() as conn:
            return list(conn.execute(sa.text(query), params))
    finally:
        engine.dispose()


def _until(what: str, probe: Callable[[], Any], timeout: float = 120) -> Any:
    """Poll ``probe`` until it answers something true (a hang guard, not a timed assertion)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        answer = probe()
        if answer:
            return answer
        time.sleep(0.2)
    raise AssertionError(f"waited {timeout} s for {what}")


def _log_lines(procs: list[ServerProcess], pattern: str) -> list[str]:
    return [
        line
        for p in procs
        for line in p.log.read_text(errors="replace").splitlines()
        if re.search(pattern, line)
    ]


def _agent_game(database: str, game_id: str, spec: str) -> None:
    """A duel between two agents, stored before the servers start (their start picks it up)."""
    session = GameSession.new(
        mode="duel",
        format="precon",
        seed=11,
        participants=[Seat.agent_seat(spec, "AI one"), Seat.agent_seat(spec, "AI two")],
        session_id=game_id,
    )
    rows = [SeatRow(s, seat.kind, seat.name, seat.agent) for s, seat in enumerate(session.seats)]
    store = open_store(database)
    store.create_game(game_row(GameState(game_id, "ai", session, rows)))
    store.close()


def _actions(database: str, game_id: str) -> list[int]:
    return [
        r.idx for r in _sql(database, "SELECT idx FROM actions WHERE game_id = :g ORDER BY idx", g=game_id)
    ]


def test_two_processes_make_each_ai_move_once(tmp_path: Path, database: str) -> None:
    """A spectator on each process: both processes have the game in memory and both are asked to
    run its agents (a page's hello does); the agent lease lets one think per decision.  Leases of
    the default 10 s: a 2 s lease may expire while a loaded machine thinks (then the move is
    computed twice and stored once, which the log says)."""
    procs = _servers(tmp_path, database, lease="10")
    try:
        _agent_game(database, "agentsduel01", "ismcts:iterations=30")
        watchers = [Client(p, "agentsduel01", []) for p in procs]
        _until(
            "the end of the game",
            lambda: _sql(database, "SELECT 1 FROM games WHERE status = 'over'"),
            timeout=300,
        )
        indices = _actions(database, "agentsduel01")
        assert indices == list(range(len(indices))) and len(indices) > 10
        assert _log_lines(procs, "stored by another process|Traceback|lease .* was lost") == []
        for w in watchers:
            w.close()
    finally:
        for p in procs:
            p.stop()


def test_a_killed_thinker_s_move_is_made_by_the_other_process(tmp_path: Path, database: str) -> None:
    _agent_game(database, "slowagents01", "ismcts:seconds=4")
    first = _servers(tmp_path, database, n=1)[0]
    assert first.proc is not None
    pid = first.proc.pid
    try:
        _until(
            "the first process thinking",
            lambda: _sql(database, "SELECT holder FROM leases WHERE name = 'agent:slowagents01'"),
        )
        holder = _sql(database, "SELECT holder FROM leases WHERE name = 'agent:slowagents01'")[0].holder
        assert f":{pid}:" in holder
        second = _servers(tmp_path / "second", database, n=1)[0]
        watcher = Client(second, "slowagents01", [])  # a spectator on the process that survives
        first.stop(kill=True)  # SIGKILL while it thinks
        before = len(_actions(database, "slowagents01"))
        _until("the move taken over", lambda: len(_actions(database, "slowagents01")) > before, timeout=90)
        indices = _actions(database, "slowagents01")
        assert indices == list(range(len(indices)))  # none lost, none twice
        assert _log_lines([second], "taking over its agent's decision") != []
        while watcher.state["index"] <= before:  # the spectator is shown the move made there
            watcher.recv(timeout=60)
        watcher.close()
        second.stop()
    finally:
        first.stop()


def test_a_clock_running_out_under_two_processes_ends_the_game_once(
    tmp_path: Path, database: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    clock = FileClock(tmp_path / "now")
    monkeypatch.setenv("CLASH_TEST_CLOCK_FILE", str(clock.path))
    procs = _servers(tmp_path, database)
    try:
        game = procs[0].new_game(kind="friend", format="draft", time_control="3+2", rated=True)
        a = Client(procs[0], game["id"], game["tokens"])
        token = game["invite"].split("#t=")[1].split("&")[0]
        b = Client(procs[1], game["id"], [token], rated=True)
        assert b.state["clock"]["running"] is not None and b.state["rated"] is True
        through_first_turns(a, b)  # a game lost on time before it began would be aborted, not rated
        clock.set(T0 + 3600)  # far past the deadline, for both processes
        over = "SELECT result FROM games WHERE id = :g AND status = 'over'"
        rows = _until("the time loss", lambda: _sql(database, over, g=game["id"]))
        assert json.loads(rows[0].result)["termination"] == "time"
        time.sleep(1.5)  # both watchers look again (neither may end it a second time)
        assert len(_log_lines(procs, f"game {game['id']}: seat \\d lost on time")) == 1
        history = _sql(database, "SELECT identity_id FROM rating_history WHERE game_id = :g", g=game["id"])
        assert len(history) == 2  # the rating applied once: one row per player
        games = _sql(database, "SELECT games FROM ratings")
        assert sorted(r.games for r in games) == [1, 1]
        a.close()
        b.close()
    finally:
        for p in procs:
            p.stop()


def _queue(proc: ServerProcess, session: str) -> Any:
    headers = {"Authorization": f"Bearer {session}"}
    ws = connect(proc.ws_url, additional_headers=headers, open_timeout=30).__enter__()
    ws.send(json.dumps({"type": "queue", "format": "precon"}))
    assert json.loads(ws.recv(timeout=30))["status"] == "waiting"
    return ws


def _matched(ws: Any) -> str:
    while True:
        frame = json.loads(ws.recv(timeout=60))
        if frame["type"] == "matched":
            assert frame["rated"] is True
            return str(frame["game"])


def test_players_queued_on_two_processes_are_paired_and_a_killed_queue_holder_is_replaced(
    tmp_path: Path, database: str
) -> None:
    procs = _servers(tmp_path, database)
    try:
        one, two = _queue(procs[0], procs[0].guest()), _queue(procs[1], procs[1].guest())
        game = _matched(one)
        assert _matched(two) == game
        seats = _sql(database, "SELECT owner FROM seats WHERE game_id = :g", g=game)
        assert len({r.owner for r in seats}) == 2
        one.close()
        two.close()
        holder = _sql(database, "SELECT holder FROM leases WHERE name = 'queue'")[0].holder
        dead = next(p for p in procs if p.proc is not None and f":{p.proc.pid}:" in holder)
        alive = next(p for p in procs if p is not dead)
        dead.stop(kill=True)
        three, four = _queue(alive, alive.guest()), _queue(alive, alive.guest())
        assert _matched(three) == _matched(four)  # paired once the lease expired
        assert _sql(database, "SELECT count(*) AS n FROM games")[0].n == 2
        three.close()
        four.close()
    finally:
        for p in procs:
            p.stop()


def test_a_player_who_moved_to_another_process_is_not_judged_away(tmp_path: Path, database: str) -> None:
    """The friend's seat joins on one process, leaves, and comes back on the other (as a balancer
    may send it): present, so the duel goes on past ``--abandon-after``; when it leaves for good on
    its turn, the duel ends abandoned, once."""
    procs = [
        ServerProcess(
            tmp_path / f"p{i}",
            "--agent-workers",
            "0",
            "--lease-seconds",
            LEASE,
            "--abandon-after",
            "2",
            database=database,
        ).start()
        for i in range(2)
    ]
    try:
        game = procs[0].new_game(kind="friend", format="draft")
        token = game["invite"].split("#t=")[1].split("&")[0]
        a = Client(procs[0], game["id"], game["tokens"])
        first = Client(procs[0], game["id"], [token])
        friend = first.session
        first.close()
        b = Client(procs[1], game["id"], [token], session=friend)
        rng = random.Random(5)
        while a.state["legal"]:  # play the creator's decisions: the friend (on the other process) is to move
            a.act(rng.choice(a.state["legal"]))
        time.sleep(5)  # more than --abandon-after and a lease: nobody may judge the friend away
        assert _sql(database, "SELECT status FROM games WHERE id = :g", g=game["id"])[0].status == "active"
        b.close()
        _until(
            "the abandonment", lambda: _sql(database, "SELECT 1 FROM games WHERE status = 'over'"), timeout=60
        )
        time.sleep(1.5)
        assert len(_log_lines(procs, f"game {game['id']}: seat \\d abandoned the game")) == 1
        a.close()
    finally:
        for p in procs:
            p.stop()
