"""Bounded work, off the event loop (issue 33): imports and replay pages in the workers' optional
lane, replays built a page at a time, one hint per identity per interval, hints dropped when their
socket closes, and every worker job within a time budget and a memory limit -- each counted in
/metrics (refused, dropped, timed out, over memory).  Nothing here measures time: budgets are set
so a job surely passes them, and the test clock moves the hint interval."""

from __future__ import annotations

import asyncio
import json
import os
import threading
import time
import urllib.request
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("starlette")

from starlette.websockets import WebSocketDisconnect, WebSocketState
from test_abuse import tight  # noqa: F401  (the fixture)
from test_live_games import OWNER, _page, _say, _started

from clashofdecks.session import GameSession, Seat
from clashofdecks.web import metrics, workers
from clashofdecks.web.games import NewGame, replay_frames
from clashofdecks.web.routes_common import Limits
from clashofdecks.web.routes_socket import SocketRoute
from clashofdecks.web.server import GameServer, ServerConfig
from conftest import Client, ServerProcess, run_async


def _long_record(actions: int) -> dict[str, Any]:
    """Two people at one device ending every turn (no turn cap): a long, valid record."""
    from clashofdecks.options import Ruleset

    s = GameSession.new(
        mode="duel",
        format="precon",
        seed=3,
        participants=[Seat.remote("a"), Seat.remote("b")],
        ruleset=Ruleset(max_turns=None),
        allow_undo_between_people=True,
    )
    while len(s.steps) < actions:
        legal = s.legal_actions(s.to_move)
        s.act(s.to_move, "end" if "end" in legal else legal[0])
    return s.record().to_dict()


def _metric(proc: ServerProcess, name: str) -> float:
    """A counter of the server's /metrics (0 when it has not been counted yet)."""
    with urllib.request.urlopen(proc.url + "/metrics", timeout=30) as r:
        text = r.read().decode()
    for line in text.splitlines():
        if line.startswith(name + " ") or line.startswith(name + "{"):
            return float(line.rsplit(" ", 1)[1])
    return 0.0


# ------------------------------------------------------------------ imports and replays (HTTP)


def test_a_replay_comes_a_page_at_a_time(tight: Any) -> None:  # noqa: F811
    """Each request builds one page of frames (``replay_page_frames``) and the log before it; the
    pages put together are the whole replay.  Before, every request built every frame."""
    proc = tight("--metrics-allow", "127.0.0.1", "--limit", "replay_page_frames=7")
    record = _long_record(20)
    status, body = proc.post("/api/import", record)
    assert status == 200, body
    game = body["id"]
    from clashofdecks.record import GameRecord

    whole = replay_frames(GameRecord.from_dict(record), "en", ("a", "b"))
    pages = []
    for start in range(0, 21, 7):
        status, page = proc.get(f"/api/games/{game}/replay?from={start}")
        assert status == 200 and page["from"] == start and page["total"] == 21, page
        assert len(page["frames"]) == min(7, 21 - start)
        earlier = [e for f in whole[:start] for e in f["events"]]
        assert [e["kind"] for e in page["log"]] == [e["kind"] for e in earlier][-200:]
        pages.extend(page["frames"])
    assert [(f["action"], f["turn"]) for f in pages] == [(f["action"], f["turn"]) for f in whole]
    assert proc.get(f"/api/games/{game}/replay?from=22")[0] == 400
    assert proc.get(f"/api/games/{game}/replay?from=x")[0] == 400
    jobs = 'clash_worker_jobs_total{kind="replay",lane="optional"}'
    assert _metric(proc, jobs) == 3  # each page built in the optional lane, off the event loop


def test_an_import_over_its_time_budget_fails_cleanly_in_a_worker(tight: Any) -> None:  # noqa: F811
    """The import's replay runs in a worker process within ``job_seconds``: past it the import is a
    503 that says so, nothing is stored, and the time-out is counted."""
    proc = tight("--agent-workers", "1", "--metrics-allow", "127.0.0.1", "--limit", "job_seconds=0.001")
    me = proc.default_session()
    before = proc.get("/api/lobby", session=me)[1]["mine"]
    status, body = proc.post("/api/import", _long_record(2000))
    assert status == 503 and "more than 0.001 s" in body["error"], body
    assert _metric(proc, 'clash_work_timed_out_total{kind="import"}') == 1
    assert proc.get("/api/lobby", session=me)[1]["mine"] == before


# ------------------------------------------------------------------ the hello log (on the event loop)


def _long_session(actions: int) -> GameSession:
    from clashofdecks.record import GameRecord

    return GameSession.from_record(
        GameRecord.from_dict(_long_record(actions)),
        seats=[Seat.remote("a"), Seat.remote("b")],
        allow_undo_between_people=True,
    )


def test_the_hello_log_renders_only_the_events_it_shows() -> None:
    """A page opening a long game in a language nobody read it in yet renders the latest steps
    only (``hello_log_events``), on the event loop: a few sentences, whatever the game's length.
    Before, the first render in a language rendered every event of the game."""
    from clashofdecks.web.frame_words import PositionWords

    session = _long_session(400)
    words = PositionWords(session)
    whole_count = sum(len(s.events) for s in session.steps) + len(session.initial_events)
    before = metrics.COSTS.sentence_renders
    tail = [e for step in words.history("fr", ("a", "b"), at_least=5) for e in step]
    rendered = metrics.COSTS.sentence_renders - before
    assert 5 <= len(tail) == rendered < whole_count // 20, (rendered, whole_count)
    # The same events, in the same order, as the whole log's end (rendered here, off the count).
    whole = [e for step in PositionWords(session).history("fr", ("a", "b")) for e in step]
    assert tail == whole[-len(tail) :]
    # Kept: asking again renders nothing; an action renders its own events only.
    before = metrics.COSTS.sentence_renders
    assert [e for step in words.history("fr", ("a", "b"), at_least=5) for e in step] == tail
    assert metrics.COSTS.sentence_renders == before
    session.act(session.to_move, session.legal_actions(session.to_move)[0])
    words.history("fr", ("a", "b"), at_least=5)
    assert metrics.COSTS.sentence_renders - before == len(session.steps[-1].events)


def test_the_hello_log_after_an_undo_shows_the_game_as_it_now_is() -> None:
    """An undo takes steps back: the log kept for the old steps is not shown for the new ones."""
    from clashofdecks.web.frame_words import PositionWords

    session = _long_session(12)
    words = PositionWords(session)
    seat = session.to_move
    others = [a for a in session.legal_actions(seat) if a != "end"]
    session.act(seat, others[0])
    words.history("en", ("a", "b"), at_least=3)
    assert session.undo(seat) == [others[0]]
    session.act(seat, "end")
    fresh = PositionWords(session).history("en", ("a", "b"))
    assert words.history("en", ("a", "b")) == fresh


def test_a_page_opening_a_long_game_renders_the_latest_events_only(tight: Any) -> None:  # noqa: F811
    """Over the socket: a watcher opening a long game in another language costs
    the sentences of the log it gets (and its frame's few lines), not the whole game's."""
    proc = tight("--rate", "200", "--metrics-allow", "127.0.0.1", "--limit", "hello_log_events=3")
    game = proc.new_game(kind="hotseat", format="precon")
    c = Client(proc, game["id"], game["tokens"])
    for _ in range(40):
        legal = c.state["legal"]
        c.act("end" if "end" in legal else legal[0])
    played = _metric(proc, "clash_sentence_renders_total")
    c.close()
    watcher = Client(proc, game["id"], [], lang="de")
    assert 0 < len(watcher.state["log"]) <= 3
    opened = _metric(proc, "clash_sentence_renders_total") - played
    watcher.close()
    assert opened < 20, opened  # the log's steps and the frame's prompt; the game rendered far more
    assert played > 100, played


def test_a_stored_game_opened_by_a_page_is_replayed_off_the_event_loop(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A spectator opening an imported record (up to ``record_actions`` actions) makes the server
    replay it: in a thread, not on the event loop's.  Before, the replay ran on the loop."""
    from clashofdecks.web import game_table

    threads: list[threading.Thread] = []
    replay = game_table.session_of_row

    def recorded(row: Any) -> Any:
        threads.append(threading.current_thread())
        return replay(row)

    monkeypatch.setattr(game_table, "session_of_row", recorded)

    async def play() -> None:
        server = _server(tmp_path)
        await _started(server)
        try:
            from clashofdecks.record import GameRecord

            row = await server.table.import_record(GameRecord.from_dict(_long_record(60)), OWNER)
            loop_thread = threading.current_thread()
            live = await server.table.get(row.id)
            assert live is not None and len(live.session.steps) == 60
            assert threads and all(t is not loop_thread for t in threads), threads
        finally:
            await server.stop()

    run_async(play(), timeout=300)


# ------------------------------------------------------------------ hints (WebSocket, in process)


def _server(tmp_path: Path, **caps: Any) -> GameServer:
    config = ServerConfig(database_url=f"sqlite:///{tmp_path / 'w.sqlite3'}", agent_workers=0)
    for name, value in caps.items():
        setattr(config.caps, name, value)
    return GameServer(config)


async def _past_setup(route: SocketRoute, page: Any, game: Any) -> None:
    await _say(route, page, json.dumps({"type": "hello", "game": game.id, "tokens": []}))
    while game.session.phase == "setup":  # hints are given after the setup
        seat = game.session.to_move
        act = {"type": "act", "action": game.session.legal_actions(seat)[0], "index": len(game.session.steps)}
        await _say(route, page, json.dumps(act))


def test_an_identity_gets_one_hint_per_interval(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A second hint within ``hint_interval_seconds`` of the identity's last is refused, in another
    game too (counted in ``clash_work_refused``); once the (test) clock has moved on, it is given."""
    now = [1_000_000.0]
    monkeypatch.setattr(workers, "hint", lambda *_a: ("end", 0.5, "win chance"))

    async def play() -> None:
        server = _server(tmp_path, hint_interval_seconds=5.0)
        server.config.clock = lambda: now[0]
        await _started(server)
        try:
            route = SocketRoute(server, Limits.of(server.config))
            pages = []
            for seed in (7, 8):
                game, _t = await server.table.create_game(
                    NewGame(kind="hotseat", format="precon", seed=seed), OWNER
                )
                page, ws = _page()
                await _past_setup(route, page, game)
                pages.append((page, ws))
            refused = metrics.WORK_REFUSED.labels("hint", "per_identity")._value.get()
            await _say(route, pages[0][0], json.dumps({"type": "hint"}))
            assert pages[0][1].sent[-1]["type"] == "hint"
            await _say(route, pages[1][0], json.dumps({"type": "hint"}))
            assert pages[1][1].sent[-1]["code"] == "hint_unavailable", pages[1][1].sent[-1]
            assert metrics.WORK_REFUSED.labels("hint", "per_identity")._value.get() == refused + 1
            now[0] += 5.0
            await _say(route, pages[1][0], json.dumps({"type": "hint"}))
            assert pages[1][1].sent[-1]["type"] == "hint"
        finally:
            await server.stop()

    run_async(play(), timeout=300)


class QueueSocket:
    """A page's WebSocket fed from a queue (``None``: the page closes), keeping what it is sent."""

    def __init__(self) -> None:
        self.application_state = WebSocketState.CONNECTED
        self.incoming: asyncio.Queue[str | None] = asyncio.Queue()
        self.sent: list[dict[str, Any]] = []

    async def receive(self) -> dict[str, Any]:
        text = await self.incoming.get()
        if text is None:
            self.application_state = WebSocketState.DISCONNECTED
            return {"type": "websocket.disconnect", "code": 1001}
        return {"type": "websocket.receive", "text": text}

    async def send_text(self, text: str) -> None:
        if self.application_state != WebSocketState.CONNECTED:
            raise WebSocketDisconnect(1001)
        self.sent.append(json.loads(text))

    async def close(self, code: int = 1000) -> None:
        self.application_state = WebSocketState.DISCONNECTED


def test_a_hint_queued_for_a_closed_socket_is_not_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The optional lane is busy; a page asks a hint and closes while it waits: the hint is dropped
    (``clash_work_dropped``) and never thought.  Before, the socket's reading waited for the hint,
    so the close was seen only after the hint had been thought for nobody."""
    release = threading.Event()
    asked: list[int] = []

    def hint(record: dict[str, Any], seat: int, seconds: float) -> tuple[str, float, str]:
        asked.append(seat)
        return "end", 0.5, "win chance"

    monkeypatch.setattr(workers, "hint", hint)

    async def play() -> None:
        server = _server(tmp_path)
        await _started(server)
        try:
            route = SocketRoute(server, Limits.of(server.config))
            game, _t = await server.table.create_game(NewGame(kind="hotseat", format="precon", seed=7), OWNER)
            page, _ws = _page()
            await _past_setup(route, page, game)
            # (``page`` stays open: a game no page follows is let go from memory.)
            busy = asyncio.create_task(server.pool.run_optional(release.wait))
            ws = QueueSocket()
            from clashofdecks.web.store import IdentityRow

            serving = asyncio.create_task(route._serve(ws, IdentityRow(OWNER, "o", ""), "127.0.0.1"))  # type: ignore[arg-type]
            dropped = metrics.WORK_DROPPED.labels("hint", "socket_closed")._value.get()
            await ws.incoming.put(json.dumps({"type": "hello", "game": game.id, "tokens": []}))
            await ws.incoming.put(json.dumps({"type": "hint"}))
            while not (any(f.get("type") == "state" for f in ws.sent) and game.hinting):
                await asyncio.sleep(0.01)  # the hint waits for the busy lane
            await ws.incoming.put(None)
            await serving
            release.set()
            await busy
            await server.pool.run_optional(time.time)  # the lane has taken every job queued before
            assert asked == [] and not game.hinting
            assert metrics.WORK_DROPPED.labels("hint", "socket_closed")._value.get() == dropped + 1
        finally:
            release.set()
            await server.stop()

    run_async(play(), timeout=300)


def test_a_hint_queued_while_its_game_moves_on_is_not_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The optional lane is busy; a page asks a hint, then acts while the hint waits: once a worker
    is free the hint is dropped unrun (``clash_work_dropped{why="game_moved"}``) and the page is
    told so, instead of being sent a hint for a position that is gone."""
    release = threading.Event()
    asked: list[int] = []

    def hint(record: dict[str, Any], seat: int, seconds: float) -> tuple[str, float, str]:
        asked.append(seat)
        return "end", 0.5, "win chance"

    monkeypatch.setattr(workers, "hint", hint)

    async def play() -> None:
        server = _server(tmp_path)
        await _started(server)
        try:
            route = SocketRoute(server, Limits.of(server.config))
            game, _t = await server.table.create_game(NewGame(kind="hotseat", format="precon", seed=7), OWNER)
            page, _ws = _page()
            await _past_setup(route, page, game)
            busy = asyncio.create_task(server.pool.run_optional(release.wait))
            ws = QueueSocket()
            from clashofdecks.web.store import IdentityRow

            serving = asyncio.create_task(route._serve(ws, IdentityRow(OWNER, "o", ""), "127.0.0.1"))  # type: ignore[arg-type]
            dropped = metrics.WORK_DROPPED.labels("hint", "game_moved")._value.get()
            await ws.incoming.put(json.dumps({"type": "hello", "game": game.id, "tokens": []}))
            await ws.incoming.put(json.dumps({"type": "hint"}))
            while not (any(f.get("type") == "state" for f in ws.sent) and game.hinting):
                await asyncio.sleep(0.01)  # the hint waits for the busy lane
            state = [f for f in ws.sent if f.get("type") == "state"][-1]
            steps = len(game.session.steps)
            act = {"type": "act", "action": state["legal"][0], "index": state["index"]}
            await ws.incoming.put(json.dumps(act))
            while len(game.session.steps) == steps:
                await asyncio.sleep(0.01)  # the page's action is applied while the hint waits
            release.set()
            await busy
            while game.hinting:
                await asyncio.sleep(0.01)
            await ws.incoming.put(None)
            await serving
            assert asked == []
            assert metrics.WORK_DROPPED.labels("hint", "game_moved")._value.get() == dropped + 1
            errors = [f for f in ws.sent if f.get("type") == "error"]
            assert [e["code"] for e in errors] == ["hint_unavailable"], errors
        finally:
            release.set()
            await server.stop()

    run_async(play(), timeout=300)


# ------------------------------------------------------------------ budgets (worker processes)


def sleep_long() -> None:
    time.sleep(3600)


def grow(mib: int) -> int:
    return len(bytearray(mib << 20))


def pid() -> int:
    return os.getpid()


def test_worker_jobs_are_stopped_at_their_time_and_memory_budgets() -> None:
    """In worker processes: a job past ``job_seconds`` fails with JobTimedOut; one that needs more
    than ``job_memory_mb`` fails with JobOverMemory and its worker is replaced; both are counted and
    the lane goes on with the next job."""

    async def run() -> None:
        pool = workers.WorkerPool(1, 1, seconds=1.0, memory_mb=64)
        await pool.start()
        try:
            timed_out = metrics.WORK_TIMED_OUT.labels("sleep_long")._value.get()
            with pytest.raises(workers.JobTimedOut, match="more than 1 s"):
                await pool.run_optional(sleep_long)
            assert metrics.WORK_TIMED_OUT.labels("sleep_long")._value.get() == timed_out + 1
            first = await pool.run_optional(pid)
            over = metrics.WORK_OVER_MEMORY.labels("grow")._value.get()
            with pytest.raises(workers.JobOverMemory, match="more than 64 MiB"):
                await pool.run_optional(grow, 2048)
            assert metrics.WORK_OVER_MEMORY.labels("grow")._value.get() == over + 1
            assert await pool.run_optional(pid) != first  # a new worker
            assert await pool.run_optional(grow, 16) == 16 << 20  # within the limit: done
            with pytest.raises(workers.JobOverMemory):
                await pool.run_ai(grow, 2048)  # the AI lane has the memory limit too
        finally:
            pool.stop()

    run_async(run(), timeout=300)
