"""Kill the server mid-game (SIGKILL), start it again: every game continues from its last action; an
agent that was to move moves by itself.  On SQLite and, when available, PostgreSQL.  And a duel
whose player stays away on their turn ends after the documented time, the other seat told."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from conftest import Client, ServerProcess, pg_url, reset_pg


def _play_until_the_agent_moved(c: Client, rng: random.Random, times: int) -> int:
    """Play random legal moves for the human and wait out the AI's turns until the AI has moved
    ``times`` times or the game is over; returns how often the AI moved."""
    agent_moves = 0
    while c.state["result"] is None and agent_moves < times:
        if c.state["legal"]:
            c.act(rng.choice(c.state["legal"]))
        else:
            before = c.state["index"]
            c.wait_state(timeout=60)
            agent_moves += c.state["index"] > before
    return agent_moves


@pytest.mark.parametrize("backend", ["sqlite", "postgresql"])
def test_kill_and_restart_resumes_every_game(tmp_path: Path, backend: str) -> None:
    database = None
    if backend == "postgresql":
        database = pg_url()
        if not database:
            pytest.skip("CLASH_TEST_PG_URL is not set (no PostgreSQL server)")
        reset_pg(database)
    proc = ServerProcess(tmp_path, "--rate", "200", database=database).start()
    rng = random.Random(9)
    try:
        solo = proc.new_game(kind="solo", format="draft")
        duel = proc.new_game(kind="friend", format="precon")
        ai = proc.new_game(kind="ai", format="precon")
        s = Client(proc, solo["id"], solo["tokens"])
        for _ in range(12):
            s.act(rng.choice(s.state["legal"]))
        a = Client(proc, duel["id"], duel["tokens"])
        b = Client(proc, duel["id"], [duel["invite"].split("#t=")[1]])
        for _ in range(6):
            mover = a if a.state["legal"] else b
            mover.act(rng.choice(mover.state["legal"]))
            other = b if mover is a else a
            while other.state["index"] < mover.state["index"]:
                other.wait_state()
        c = Client(proc, ai["id"], ai["tokens"])
        while not c.state["legal"]:
            c.wait_state()
        seen = {
            solo["id"]: (s.state["index"], s.state["view"]),
            duel["id"]: (a.state["index"], a.state["view"]),
            ai["id"]: (c.state["index"], c.state["setup"], c.state["view"]),
        }
        c.act(c.state["legal"][0])  # now the AI is to move (or thinking) when the server dies
        ai_index = c.state["index"]
        proc.stop(kill=True)
        for client in (s, a, b, c):
            client.close()

        proc = ServerProcess(tmp_path, "--rate", "200", database=database).start()
        s = Client(proc, solo["id"], solo["tokens"])
        assert (s.state["index"], s.state["view"]) == seen[solo["id"]]
        a = Client(proc, duel["id"], duel["tokens"])
        assert (a.state["index"], a.state["view"]) == seen[duel["id"]]
        c = Client(proc, ai["id"], ai["tokens"])
        assert c.state["index"] >= ai_index
        while not c.state["legal"] and c.state["result"] is None:
            c.wait_state()  # the AI moves by itself after the restart
        assert c.state["index"] > ai_index or c.state["result"] is not None
        # The solo game plays on to its end.
        while s.state["result"] is None:
            s.act(rng.choice(s.state["legal"]))
        for client in (s, a, c):
            client.close()
    finally:
        proc.stop()


def test_abandoned_duel_times_out(tmp_path: Path) -> None:
    proc = ServerProcess(tmp_path, "--abandon-after", "1.5", "--agent-workers", "0").start()
    try:
        duel = proc.new_game(kind="friend", format="precon")
        a = Client(proc, duel["id"], duel["tokens"])
        b = Client(proc, duel["id"], [duel["invite"].split("#t=")[1]])
        mover, stayer = (a, b) if a.state["legal"] else (b, a)
        away_seat = mover.state["seat"]
        mover.close()  # the player whose turn it is leaves
        codes = []
        while stayer.state["result"] is None:
            frame = stayer.recv(timeout=20)
            if frame["type"] == "notice" and frame["code"] != "joined":
                codes.append(frame["code"])
        assert "left" in codes  # presence: the seat's last page closed (test_fair_play.py)
        codes = [c for c in codes if c != "left"]
        assert codes[:1] == ["opponent_away"] and "abandoned" in codes
        result = stayer.state["result"]
        assert result["winner"] == 1 - away_seat and result["termination"] == "abandoned"
        status, rec = proc.get(f"/api/games/{duel['id']}/record")
        assert status == 200 and rec["result"]["termination"] == "resigned"
        stayer.close()
    finally:
        proc.stop()


def _worker_pids(parent: int) -> list[int]:
    """The agent worker processes the server started (children running multiprocessing's spawn_main)."""
    pids = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            cmdline = (entry / "cmdline").read_bytes()
        except OSError:
            continue
        if int(stat[1]) == parent and b"spawn_main" in cmdline:
            pids.append(int(entry.name))
    return pids


def test_a_dead_agent_worker_is_replaced(tmp_path: Path) -> None:
    import os
    import signal

    if not Path("/proc/self/stat").exists():
        pytest.skip("needs /proc to find the worker process")
    proc = ServerProcess(tmp_path, "--rate", "200", "--agent-workers", "1").start()
    try:
        assert proc.proc is not None
        workers = _worker_pids(proc.proc.pid)
        assert workers, "no agent worker process found"
        for pid in workers:
            os.kill(pid, signal.SIGKILL)  # a worker of the server this test started
        game = proc.new_game(kind="ai", format="precon")
        c = Client(proc, game["id"], game["tokens"])
        agent_moves = _play_until_the_agent_moved(c, random.Random(4), 4)
        assert agent_moves >= 1 or c.state["result"] is not None
        c.close()
    finally:
        proc.stop()


@pytest.mark.parametrize("old_spec", ["greedy", "random", "ismcts:200,cutoff=2"])
def test_a_game_stored_with_an_old_ai_level_loads_and_plays_on(tmp_path: Path, old_spec: str) -> None:
    """Games created when the lobby offered easy/medium/hard stored those levels' agent specs in the
    seat row; they load after the named strengths replaced the levels, and their AI moves again."""
    from clashofdecks.session import GameSession, Seat
    from clashofdecks.web.games import GameState, game_row
    from clashofdecks.web.store import SeatRow, open_store, token_hash

    session = GameSession.new(
        mode="duel",
        format="precon",
        seed=77,
        participants=[Seat.remote("Ann"), Seat.agent_seat(old_spec, "AI (medium)")],
        session_id="oldlevel01",
    )
    token = "old-level-token-0123456789"
    rows = [
        SeatRow(s, seat.kind, seat.name, seat.agent, token_hash(token) if seat.agent is None else None)
        for s, seat in enumerate(session.seats)
    ]
    store = open_store(f"sqlite:///{tmp_path / 'web.sqlite3'}")
    store.create_game(game_row(GameState("oldlevel01", "ai", session, rows)))
    store.close()
    human = next(r.seat for r in rows if r.agent is None)

    proc = ServerProcess(tmp_path, "--rate", "200", "--agent-workers", "0").start()
    try:
        c = Client(proc, "oldlevel01", [token])
        assert c.state["seat"] == human
        assert c.state["players"][1 - human] == {"name": "AI (medium)", "kind": "agent"}
        agent_moves = _play_until_the_agent_moved(c, random.Random(3), 3)
        assert agent_moves >= 1 or c.state["result"] is not None
        c.close()
    finally:
        proc.stop()
