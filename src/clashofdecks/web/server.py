"""The web app: a Starlette ASGI application (HTTP for the lobby, records and replays; one WebSocket
per page for game traffic).  ``clash serve`` runs it on uvicorn; ``docs/web.md`` documents it.

The server is the only judge: pages send action text, the session checks it, and each connection
gets the view of the seats its tokens open (R9), spectators the public view.  Every action is
committed to the store before anyone is told about it; agent decisions, hints and game analyses run
in a process pool, off the event loop.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import multiprocessing
import os
import re
import secrets
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Coroutine, Sequence
from concurrent.futures import BrokenExecutor, Executor, ProcessPoolExecutor, ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from importlib import resources
from typing import Any, TypeVar
from urllib.parse import urlsplit

from sqlalchemy.engine import Connection as DbConnection
from sqlalchemy.exc import IntegrityError
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.websockets import WebSocket, WebSocketDisconnect, WebSocketState

from ..errors import ActionSyntaxError, ClashError, IllegalActionError, RecordError
from ..events import Event
from ..options import LEVELS
from ..record import GameRecord
from ..session import AGENT, REMOTE, GameSession, NotYourTurnError, SessionError, StaleActionError, UndoError
from ..ui.action_text import describe_action
from ..ui.i18n import LANGUAGES
from ..worker_processes import exit_with_parent
from . import identity as ident
from . import leases, metrics, presence, rematches, workers
from .bus import bus_for
from .clocks import TIME_CONTROLS, ClockState
from .games import (
    AI_LEVELS,
    DEFAULT_AI,
    GameSetupError,
    LiveGame,
    NewGame,
    abandoned_result,
    board_abilities,
    clock_control,
    clock_of_row,
    clock_row,
    common_part,
    create_session,
    dumps,
    events_json,
    final_result,
    frame_for,
    game_row,
    join_frame,
    record_of_row,
    rulebook_level,
    seat_names,
    seat_part,
    session_of_row,
    undo_event,
)
from .identity import SESSION_COOKIE
from .matchmaking import Matchmaker
from .protocol import (
    MAX_NAME_CHARS,
    Message,
    ProtocolError,
    RateLimiter,
)
from .ratings import LEADERBOARD_GAMES, RATED_FORMATS, display
from .store import (
    ActionWrite,
    AnalysisRow,
    CampaignLevel,
    ClockRow,
    GameRow,
    IdentityRow,
    SeatRow,
    SeatTakenError,
    Store,
    Write,
    open_store,
    token_hash,
)
from .sync import GameSync, History, StaleError, history_of
from .tutorial import TutorialError, tutorial_steps

log = logging.getLogger("clashofdecks.web")
T = TypeVar("T")
#: How long the session cookie lives in the browser (the session itself lasts until logout).
SESSION_MAX_AGE = 400 * 86400
#: Threads (each with its own database connection) for the read-only queries on PostgreSQL.
READ_THREADS = 2


@dataclass
class ServerConfig:
    """Options of ``clash serve`` (see ``docs/web.md``)."""

    database_url: str | None = None
    #: The address players use (``https://cards.example.org``): invite links and allowed Origins.
    public_url: str | None = None
    #: Messages per second per connection, and the burst allowed above that pace.
    rate: float = 20.0
    burst: float = 40.0
    #: Games a client address may create per minute over HTTP (new games and imports), and the
    #: burst allowed above that pace; more get 429 and create nothing.
    create_rate: float = 20.0
    create_burst: float = 20.0
    #: A duel seat whose player is away on their turn this long loses (the other seat is told).
    abandon_seconds: float = 600.0
    #: Worker processes for agents and hints (0: a thread in this process, for tests and small machines).
    agent_workers: int = 1
    hint_seconds: float = 1.0
    #: Further Origins allowed to open game sockets (besides the page's own host and the public URL).
    extra_origins: tuple[str, ...] = ()
    watch_interval: float = 1.0
    #: Search iterations per decision of a game's analysis (``clash analyze --iterations``): about
    #: 2-3 CPU-seconds for a game of 50-70 actions (docs/web.md, "Analyses").
    analysis_iterations: int = 1000
    #: Analyses that run in the worker pool at once, and analyses that may wait for a slot.  A request
    #: beyond both is answered "busy" and queues nothing, so a flood of imports cannot queue CPU work.
    analysis_running: int = 1
    analysis_waiting: int = 8
    #: Longer records are not analysed here (kept as "failed", pointing to ``clash analyze``): the
    #: cost grows with the actions, and an imported record may hold thousands (about 20 CPU-seconds
    #: at 400 actions and the default iterations).
    analysis_max_actions: int = 400
    #: Login attempts a client address may make per minute (bursts up to the same number), and
    #: attempts on one account per 15 minutes (bursts up to the same number); more get 429.
    login_rate_address: float = 10.0
    login_rate_account: float = 5.0
    #: The server's clock for game clocks, deadlines and the "play now" queue (waiting times, the AI
    #: offer), in seconds since the epoch.  Settable in tests only, so they move time without
    #: sleeping (``clash serve`` reads it from the test-only ``CLASH_TEST_CLOCK_FILE``); nothing a
    #: client sends about time is ever used.
    clock: Callable[[], float] = time.time
    #: Seconds a lease lasts unless renewed (docs/web.md, "Leases"): how long the work of a killed
    #: process (an AI move, the clock and queue scans) waits before another process takes it over.
    lease_seconds: float = 10.0


@dataclass(eq=False)
class Connection:
    ws: WebSocket
    limiter: RateLimiter
    live: LiveGame | None = None
    seats: set[int] = field(default_factory=set)
    #: The identity whose session cookie (or bearer header) opened the socket; None: watch only.
    identity: str | None = None
    #: The identity's display name when the socket opened (a queue game's seat name).
    display_name: str = ""
    lang: str = "en"
    send_lock: asyncio.Lock = field(default_factory=asyncio.Lock)

    async def send(self, frame: dict[str, Any]) -> None:
        await self.send_text(dumps(frame))

    async def send_text(self, text: str) -> None:
        async with self.send_lock:
            if self.ws.application_state != WebSocketState.CONNECTED:
                return
            with contextlib.suppress(RuntimeError, WebSocketDisconnect, OSError):
                await self.ws.send_text(text)


class GameServer:
    """The state behind the app: the store, the games in memory, the worker pools."""

    def __init__(self, config: ServerConfig) -> None:
        self.config = config
        self.store: Store | None = None
        self.games: dict[str, LiveGame] = {}
        self.locks: dict[str, asyncio.Lock] = {}
        self.load_lock = asyncio.Lock()
        self.db: ThreadPoolExecutor | None = None
        #: Read-only queries off the writing thread (PostgreSQL; None on SQLite: ``read_db``).
        self.reads: ThreadPoolExecutor | None = None
        self.pool: Executor | None = None
        self.watcher: asyncio.Task[None] | None = None
        self.agent_tasks: set[asyncio.Task[None]] = set()
        self.pending_writes: list[
            tuple[ActionWrite | Callable[[Store, DbConnection], None], asyncio.Future[None]]
        ] = []
        self.flusher: asyncio.Task[None] | None = None
        self.inline_db = False
        #: Analyses queued or running, by game (a second request for the same game shares its job).
        self.analyses: dict[str, asyncio.Task[None]] = {}
        self.analysis_slots = asyncio.Semaphore(max(1, config.analysis_running))
        #: Analyses this process has started in the worker pool (what the tests count).
        self.analysis_jobs = 0
        #: This server start's id in the leases, heartbeats, presence and queue (web/leases.py).
        self.process_id = leases.new_process_id()
        #: The "play now" queue (its entries are in the database: docs/web.md, "The queue").
        self.matchmaker = Matchmaker(self, config.clock)
        #: The change bus and the catch-up of games other processes changed (web/sync.py).
        self.sync: GameSync | None = None

    # ------------------------------------------------------------------ life cycle

    async def start(self) -> None:
        self.db = ThreadPoolExecutor(max_workers=1, thread_name_prefix="clash-db")
        loop = asyncio.get_running_loop()
        self.store = await loop.run_in_executor(self.db, open_store, self.config.database_url)
        self.inline_db = self.store.engine.dialect.name == "sqlite"
        if not self.inline_db:
            self.reads = ThreadPoolExecutor(max_workers=READ_THREADS, thread_name_prefix="clash-read")
        self.sync = GameSync(self, bus_for(self.store, self.read_db))  # a notice writes no game
        await self.sync.start()
        me = self.process_id
        await self.run_db(lambda s: leases.heartbeat(s.engine, me))
        self.pool = self._new_pool()
        await loop.run_in_executor(self.pool, workers.warm_up)
        self.watcher = asyncio.create_task(self._watch())
        # Games whose agent was to move when the server stopped go on by themselves.
        for row in await self.run_db(lambda s: s.list_games(status="active", limit=1000)):
            if any(seat.kind == AGENT for seat in row.seats):
                live = await self.get_game(row.id)
                if live is not None:
                    self.schedule_agents(live)

    async def stop(self) -> None:
        if self.watcher is not None:
            self.watcher.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self.watcher
        for task in [*self.agent_tasks, *self.analyses.values()]:
            task.cancel()
        if self.sync is not None:
            await self.sync.stop()
        if self.store is not None and self.db is not None:
            with contextlib.suppress(Exception):  # a stopping server gives its scans up at once
                await self.run_db(self._release_scans)
        if self.pool is not None:
            self.pool.shutdown(wait=False, cancel_futures=True)
        if self.store is not None and self.db is not None:
            await asyncio.get_running_loop().run_in_executor(self.db, self.store.close)
        if self.db is not None:
            self.db.shutdown(wait=True)
        if self.reads is not None:
            self.reads.shutdown(wait=True)

    def _release_scans(self, store: Store) -> None:
        for name in (leases.CLOCKS, leases.ABANDONMENT, leases.QUEUE):
            leases.release(store.engine, name, self.process_id)

    async def run_db(self, fn: Callable[[Store], T]) -> T:
        assert self.store is not None and self.db is not None
        store = self.store
        return await asyncio.get_running_loop().run_in_executor(self.db, lambda: fn(store))

    async def read_db(self, fn: Callable[[Store], T]) -> T:
        """A read-only query: on PostgreSQL in a read thread of its own connection, so it does not
        wait behind the group commit; on SQLite in the database thread, like every query."""
        if self.reads is None:
            return await self.run_db(fn)
        assert self.store is not None
        store = self.store
        return await asyncio.get_running_loop().run_in_executor(self.reads, lambda: fn(store))

    async def write(self, fn: ActionWrite | Callable[[Store, DbConnection], None]) -> None:
        """Store one write; returns once it is committed (raises its error otherwise).

        Writes that arrive while a commit is under way are committed together in the next one
        (group commit): with many games, one commit acknowledges many actions.
        """
        fut: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self.pending_writes.append((fn, fut))
        if self.flusher is None or self.flusher.done():
            self.flusher = asyncio.create_task(self._flush())
        await fut

    async def write_game(
        self,
        live: LiveGame,
        fn: ActionWrite | Callable[[Store, DbConnection], None],
        *,
        then: Callable[[Store, DbConnection], None] | None = None,
        shown: History | None = None,
    ) -> None:
        """Store a write that changes ``live`` (the caller holds its lock), with ``then`` in the same
        transaction, only if the stored game is still at this copy's revision.  If another server
        process changed it first, nothing is written: the copy catches up, its pages are sent the
        new state, and :class:`~clashofdecks.web.sync.StaleError` is raised.  ``shown``: the history
        the pages were shown, when the session in memory is already past it (web/sync.py)."""
        assert self.sync is not None
        expected = live.revision
        write: ActionWrite | Callable[[Store, DbConnection], None]
        if isinstance(fn, ActionWrite):
            action = replace(fn, revision=expected, alone=then is None)
            write = action if then is None else functools.partial(_append_then, action=action, then=then)
        else:
            write = functools.partial(_bumped, fn=fn, then=then, game_id=live.id, expected=expected)
        await self.sync.checked(live, lambda: self.write(write), shown)
        live.revision = expected + 1

    async def notify_game(
        self, game_id: str, frame: dict[str, Any], *, skip: Connection | None = None
    ) -> None:
        """Send a notice frame to every connection of the game, on every server process (through
        the change bus), except ``skip``."""
        assert self.sync is not None
        await self.sync.notify_game(game_id, frame, skip)

    async def _flush(self) -> None:
        assert self.store is not None and self.db is not None
        store = self.store
        loop = asyncio.get_running_loop()
        while self.pending_writes:
            batch, self.pending_writes = self.pending_writes, []
            calls: list[Write] = [
                fn if isinstance(fn, ActionWrite) else functools.partial(fn, store) for fn, _fut in batch
            ]
            try:
                if self.inline_db:
                    # SQLite on local disk commits in well under a millisecond: a hop to a thread
                    # (and back) costs more under load than the commit itself.
                    errors = store.batch(calls)
                else:
                    errors = await loop.run_in_executor(self.db, store.batch, calls)
            except Exception as exc:  # the executor itself failed: every write of the batch did
                errors = [exc] * len(batch)
            for (_fn, fut), err in zip(batch, errors, strict=True):
                if fut.done():
                    continue
                if err is None:
                    fut.set_result(None)
                else:
                    fut.set_exception(err)

    def lock(self, game_id: str) -> asyncio.Lock:
        lock = self.locks.get(game_id)
        if lock is None:
            lock = self.locks[game_id] = asyncio.Lock()
        return lock

    # ------------------------------------------------------------------ games

    async def get_game(self, game_id: str) -> LiveGame | None:
        live = self.games.get(game_id)
        if live is not None:
            return live
        async with self.load_lock:
            live = self.games.get(game_id)
            if live is not None:
                return live
            row = await self.read_db(lambda s: s.load_game(game_id))
            if row is None:
                return None
            try:
                session = session_of_row(row)
            except ClashError as exc:
                log.error("game %s does not replay from the store: %s", game_id, exc)
                return None
            live = LiveGame(
                row.id,
                row.kind,
                session,
                row.seats,
                rated=row.rated,
                rated_offer=row.rated_offer,
                revision=row.revision,
            )
            if row.clock is not None:
                live.clock = clock_of_row(row.clock)
            if row.kind == "solo":
                live.campaign_level = rulebook_level(row.setup.get("threat"))
            if row.result is not None and row.result.get("abandoned"):
                live.result_override = row.result
            if session.is_over and row.status != "over":
                # Its process was killed between storing the last action and marking the game over:
                # ended here as it would have been there (the rating, the clock, the campaign).
                with contextlib.suppress(StaleError):  # another process ended it meanwhile
                    await self._finish(live, final_result(session))
            self.games[game_id] = live
            return live

    async def create_game(self, req: NewGame, owner: str) -> tuple[LiveGame, dict[int, str]]:
        game_id = secrets.token_hex(12)
        session, seats, tokens = create_session(req, game_id)
        creator_seat = session.participant_seat(0)
        seats[creator_seat].owner = owner
        if req.kind == "hotseat":
            seats[1 - creator_seat].owner = owner
        live = LiveGame(game_id, req.kind, session, seats, rated_offer=req.rated)
        control = clock_control(req)
        if control is not None:
            live.clock = ClockState.new(control)
            self._start_clock(live)  # both seats held already (a duel the queue made): it runs now
        if req.deck is not None and session.to_move == creator_seat and req.kind == "solo":
            session.act(creator_seat, f"deck {req.deck}")
        row = game_row(live)
        row.rated_offer = req.rated
        if req.kind == "solo":  # the same rule as for a game loaded from the store
            live.campaign_level = rulebook_level(row.setup.get("threat"))
        clock = None if live.clock is None else clock_row(live.clock)

        def create(s: Store) -> None:
            s.create_game(row)
            if clock is not None:
                s.save_clock(game_id, clock)

        await self.run_db(create)
        self.games[game_id] = live
        self.schedule_agents(live)
        return live, tokens

    async def create_owned_game(
        self,
        req: NewGame,
        owners: Sequence[str],
        *,
        rated: bool = False,
        with_write: Callable[[DbConnection, str], None] | None = None,
    ) -> LiveGame:
        """A game whose people's seats belong to ``owners`` from the start (participant order; one
        owner holds both seats of a hot-seat game): no invite, no token.  Queue games, rematches.
        ``with_write(conn, game_id)`` runs in the transaction that creates the game (the queue's
        pairing: no game is made for a pair whose entries were taken meanwhile)."""
        game_id = secrets.token_hex(12)
        session, seats, _tokens = create_session(req, game_id)
        for participant, owner in enumerate(owners):
            seats[session.participant_seat(participant)].owner = owner
        for seat in seats:
            if req.kind == "hotseat" and seat.kind == REMOTE:
                seat.owner = owners[0]
            seat.token_hash = None
        live = LiveGame(game_id, req.kind, session, seats, rated=rated)
        row = game_row(live)
        row.rated = rated

        def create(s: Store) -> None:
            with s.engine.begin() as c:
                if with_write is not None:
                    with_write(c, game_id)
                s.create_game(row, c)

        await self.run_db(create)
        self.games[game_id] = live
        self.schedule_agents(live)
        return live

    async def import_record(self, record: GameRecord, owner: str) -> LiveGame:
        from ..session import Seat

        seats = [
            Seat.remote("Player 0"),
            Seat("automaton") if record.mode == "solo" else Seat.remote("Player 1"),
        ]
        game_id = secrets.token_hex(12)
        try:
            session = GameSession.from_record(record, seats=seats, session_id=game_id)
        except ClashError as exc:
            raise RecordError(str(exc)) from None
        names = list(record.players)
        rows = [
            SeatRow(s, seats[s].kind, names[s] if s < len(names) else seats[s].kind, None, None, owner)
            for s in (0, 1)
        ]
        live = LiveGame(game_id, "imported", session, rows)
        row = game_row(live)
        row.status = "over"  # an imported game is for replaying, never continued here
        if row.result is None:
            row.result = {"winner": None, "reason": "imported unfinished", "termination": "imported"}
        await self.run_db(lambda s: s.create_game(row))
        return live

    async def broadcast(self, live: LiveGame, events: Sequence[Event | dict[str, Any]]) -> None:
        """A ``state`` frame to every connection of the game, each built for its seats (R9).  The
        public part is built and serialised once per language, each seat's part once per seat, so
        connections that see the same (spectators, one language) share one text."""
        session = live.session
        abilities = None if session.phase == "setup" else board_abilities(session)
        now = self.config.clock()
        common_by_lang: dict[str, str] = {}
        own_by_seats: dict[tuple[frozenset[int], str], dict[str, Any]] = {}
        texts: dict[tuple[frozenset[int], str], str] = {}
        for conn in list(live.connections):
            seats = frozenset(conn.seats)
            key = (seats, conn.lang)
            text = texts.get(key)
            if text is None:
                common = common_by_lang.get(conn.lang)
                if common is None:
                    events_text = events_json(live, events, conn.lang)
                    common = common_by_lang[conn.lang] = dumps(common_part(live, events_text, abilities, now))
                own = own_by_seats.get(key)
                if own is None:
                    own = own_by_seats[key] = seat_part(live, set(seats), conn.lang)
                text = texts[key] = join_frame(own, common)
            await conn.send_text(text)

    def schedule_agents(self, live: LiveGame) -> None:
        if live.agent_busy or live.session.is_over or not live.session.is_agent_turn():
            return
        live.agent_busy = True
        task = asyncio.create_task(self._run_agents(live))
        self.agent_tasks.add(task)
        task.add_done_callback(self.agent_tasks.discard)

    async def _run_agents(self, live: LiveGame) -> None:
        """Make the agent's decisions of a game while it is the agent's turn, each under the game's
        agent lease (docs/web.md, "Leases"): one process thinks per decision, renewing the lease
        while it thinks; a process that finds the lease held leaves the move to its holder, and if
        the holder dies, a watcher takes it over once the lease has expired."""
        session = live.session
        failed = False
        try:
            while True:
                job = await self._claim_agent_decision(live)
                if job is None:
                    break
                seat, index, record, spec = job
                text = await self._think(live.id, record, spec, session.seed * 2 + seat + index)
                if text is None:
                    break  # the lease was taken over: its new holder makes this move
                async with self.lock(live.id):
                    session = live.session
                    if len(session.steps) != index or session.to_move != seat:
                        continue  # the game moved on meanwhile (an undo): think again
                    try:
                        events = await self._apply(live, seat, text)
                    except IntegrityError:
                        await self._stale(live, index)
                        break
                    await self.broadcast(live, events)
        except asyncio.CancelledError:
            raise
        except StaleError:  # another process moved the game meanwhile: its copy here caught up
            pass
        except Exception:  # an agent failure must not take the server down; the game waits
            log.exception("agent move failed in game %s", live.id)
            failed = True
        finally:
            live.agent_busy = False
            # A failed decision keeps its lease until it expires: tried again then, not at once.
            # The release is submitted before any new task of this game can claim (one database
            # thread, in order).
            name, me = leases.agent_lease(live.id), self.process_id
            if not failed:
                with contextlib.suppress(Exception):
                    await self.run_db(lambda s: leases.release(s.engine, name, me))

    async def _claim_agent_decision(self, live: LiveGame) -> tuple[int, int, dict[str, Any], str] | None:
        """(seat, index, record, agent spec) of the agent decision this process is to make now, with
        its lease taken; None when no agent is to move or another process thinks."""
        session = live.session
        async with self.lock(live.id):
            if session.is_over or not session.is_agent_turn():
                return None
            seat = session.to_move
            spec = session.seats[seat].agent
            assert spec is not None
            record = session.record().to_dict()
            index = len(session.steps)
        me, seconds = self.process_id, self.config.lease_seconds
        if not await self.run_db(lambda s: leases.claim_agent_turn(s.engine, live.id, index, me, seconds)):
            return None
        return seat, index, record, spec

    async def _think(self, game_id: str, record: dict[str, Any], spec: str, seed: int) -> str | None:
        """The agent's action (a stateless job in the worker pool), the lease renewed meanwhile;
        None when the lease was lost (this process was too slow: another took the move over)."""
        name = leases.agent_lease(game_id)
        renewer = asyncio.create_task(self._keep_lease(name))
        try:
            text = await self._in_worker(workers.agent_action, record, spec, seed)
        finally:
            renewer.cancel()
        return text if await self._renew(name) else None

    @contextlib.asynccontextmanager
    async def _lease_held(self, name: str) -> AsyncIterator[bool]:
        """Whether this process took the lease ``name``; while it is held, it is renewed, and it is
        given up at the end (another process may then take the work at once)."""
        if not await self.holds(name):
            yield False
            return
        renewer = asyncio.create_task(self._keep_lease(name))
        try:
            yield True
        finally:
            renewer.cancel()
            me = self.process_id
            with contextlib.suppress(Exception):
                await self.run_db(lambda s: leases.release(s.engine, name, me))

    async def _keep_lease(self, name: str) -> None:
        while await self._renew(name):
            await asyncio.sleep(self.config.lease_seconds / 3)

    async def _renew(self, name: str) -> bool:
        me, seconds = self.process_id, self.config.lease_seconds
        if await self.run_db(lambda s: leases.renew(s.engine, name, me, seconds)):
            return True
        log.warning("lease %s was lost (this process was too slow); its work may be done twice", name)
        return False

    async def _stale(self, live: LiveGame, index: int) -> None:
        """Another process stored decision ``index`` first (the caller holds the game's lock): this
        copy catches up with the store, and its pages are shown the game as it stands."""
        log.warning("game %s: decision %d was stored by another process; catching up", live.id, index)
        assert self.sync is not None
        await self.sync.refresh(live, locked=True)

    async def _in_worker(self, fn: Callable[..., T], *args: Any) -> T:
        """Run ``fn`` in the worker pool; a pool whose process died is replaced and the job retried once."""
        loop = asyncio.get_running_loop()
        assert self.pool is not None
        try:
            return await loop.run_in_executor(self.pool, fn, *args)
        except BrokenExecutor:
            log.warning("a worker process died; starting a new pool")
            self.pool.shutdown(wait=False, cancel_futures=True)
            self.pool = self._new_pool()
            return await loop.run_in_executor(self.pool, fn, *args)

    def _new_pool(self) -> Executor:
        if self.config.agent_workers > 0:
            ctx = multiprocessing.get_context("spawn")
            # Workers end with the server even when it is killed (SIGKILL): no idle worker left behind.
            return ProcessPoolExecutor(
                max_workers=self.config.agent_workers,
                mp_context=ctx,
                initializer=exit_with_parent,
                initargs=(os.getpid(),),
            )
        return ThreadPoolExecutor(max_workers=1, thread_name_prefix="clash-agent")

    async def _apply(self, live: LiveGame, seat: int, text: str) -> list[Event | dict[str, Any]]:
        """Check, store, then apply one action (the caller holds the game's lock).  Raises the
        session's errors with nothing changed."""
        session = live.session
        checked = session.check(seat, text)
        code, canonical, index = checked.action, checked.text, checked.index
        clock = live.clock
        if clock is None:
            await self.write_game(
                live, ActionWrite(live.id, index, seat, canonical, _agent_decides_after(session, code))
            )
            step = session.act(seat, code)
        else:
            now = self.config.clock()
            if clock.expired(now) is not None:
                await self._time_out(live, now)
                raise SessionError("your time ran out before this action arrived")
            # The clock's new state depends on who decides next: apply, then store the action and the
            # clock in one transaction before anyone is told (a stale write rebuilds the session from
            # the store; any other failed write makes the socket handler drop the game from memory,
            # which then reloads from the store).
            shown = history_of(session)
            step = session.act(seat, code)
            clock.moved(session.to_move, now)
            moved = clock_row(clock)
            await self.write_game(
                live,
                ActionWrite(live.id, index, seat, canonical, _agent_decides_after(session, None)),
                then=functools.partial(_save_clock, game_id=live.id, clock=moved),
                shown=shown,
            )
        metrics.action_accepted()
        if session.is_over:
            result = final_result(session)
            await self._finish(live, result)
        return list(step.events)

    async def _finish(self, live: LiveGame, result: dict[str, Any]) -> bool:
        """Store the end of a game played here, and start its analysis (an imported game's waits
        for its replay to be opened).  False, with nothing written, when the store says the game
        was over already (another server process ended it: a timeout or abandonment counts once)."""
        rating = _rating_write(live, result)
        clock = None
        if live.clock is not None:
            live.clock.stop(self.config.clock())
            clock = clock_row(live.clock)
        credit: tuple[str, bool] | None = None
        outcome = live.session.outcome
        player = live.seats[0] if live.seats else None
        if live.campaign_level is not None and player is not None and player.owner and outcome is not None:
            credit = (player.owner, outcome.winner == 0)
        level = live.campaign_level

        ended: list[bool] = []

        def finish(s: Store, c: DbConnection) -> None:
            # The ratings, the stopped clock and the campaign change in the transaction that ends
            # the game: never one without the other, and only if this write ended it.
            ended.append(s.finish(live.id, result, conn=c))
            if not ended[-1]:
                return
            if rating is not None:
                s.apply_rating(live.id, rating[0], rating[1], conn=c)
            if clock is not None:
                s.save_clock(live.id, clock, conn=c)
            if credit is not None and level is not None:
                s.record_campaign(credit[0], level, credit[1], conn=c)

        # The session in memory has ended already: a refused write rebuilds it from the store.
        await self.write_game(live, finish, shown=history_of(live.session))
        if not ended[-1]:
            return False
        if live.kind != "imported":
            self.request_analysis(live.id)  # when "busy", the replay page asks again later
        return True

    def _start_clock(self, live: LiveGame) -> bool:
        """Start a clocked game's clock once every person's seat is held by an identity (an invite
        not yet opened costs nobody time); True when it started now."""
        clock = live.clock
        if clock is None or clock.started or live.session.is_over:
            return False
        if any(s.kind == REMOTE and s.owner is None for s in live.seats):
            return False
        clock.start(live.session.to_move, self.config.clock())
        return True

    async def _time_out(self, live: LiveGame, now: float) -> None:
        """End a game whose running clock has run out (the caller holds the game's lock): the seat
        loses on time, stored like a resignation with the termination ``time``, once: a write
        refused because another process changed the game raises :class:`StaleError` (caught up)."""
        clock = live.clock
        session = live.session
        seat = None if clock is None else clock.expired(now)
        if seat is None or session.is_over:
            return
        outcome = session.lose_on_time(seat)
        if not await self._finish(live, final_result(session)):
            return  # another process ended it first (its copy here catches up at the next look)
        log.info("game %s: seat %d lost on time", live.id, seat)
        event = {"kind": "time", "rule": "", "player": seat, "text": outcome.reason}
        task = asyncio.create_task(self._announce_time_out(live, seat, event))
        self.agent_tasks.add(task)  # kept (and cancelled on stop) like agent tasks
        task.add_done_callback(self.agent_tasks.discard)

    async def _lost_on_time_before(self, live: LiveGame, what: str) -> None:
        """A clocked game whose running clock ran out before ``what`` arrived (the caller holds the
        lock) was lost on time then, whatever came after: ended so here, and ``what`` refused."""
        now = self.config.clock()
        if live.clock is not None and live.clock.expired(now) is not None:
            try:
                await self._time_out(live, now)
            except StaleError:
                if not live.session.is_over:  # caught up: the clock had moved elsewhere in time
                    raise
                raise ProtocolError("game_over", "the game is over") from None  # ended elsewhere
            raise ProtocolError("game_over", f"the game was lost on time before {what} arrived")

    async def _announce_time_out(self, live: LiveGame, seat: int, event: dict[str, Any]) -> None:
        await self.notify_game(live.id, {"type": "notice", "code": "time_out", "seat": seat})
        await self.broadcast(live, [event])

    async def _check_clocks(self) -> None:
        """End every game whose deadline has passed: found in the database, so a deadline that passed
        while the server was down, or in a game another server process holds, is seen too.  Run by
        the holder of the ``clocks`` lease; each game's clock is read from the store (the authority:
        another process may have moved it)."""
        now = self.config.clock()
        for game_id in await self.run_db(lambda s: s.expired_clocks(now)):
            live = await self._current_game(game_id)
            if live is None:
                continue
            async with self.lock(live.id):
                if not await self._refresh(live) or live.clock is None:
                    continue
                try:
                    await self._time_out(live, now)
                except StaleError:  # another process changed the game meanwhile: caught up
                    continue
            if not live.connections and live.session.is_over:
                self.games.pop(live.id, None)  # loaded only to end it: the store keeps it

    async def _refresh(self, live: LiveGame) -> bool:
        """Before ending a game here (the caller holds its lock): bring the copy to the store, which
        another process may have changed (an action, an invitee who joined there, a clock moved).
        False: the game is over or gone."""
        assert self.sync is not None
        await self.sync.refresh(live, locked=True)
        return not live.session.is_over

    async def _current_game(self, game_id: str) -> LiveGame | None:
        """The game as the store has it now: a copy in memory that is behind the store (another
        process wrote it) catches up (web/sync.py), and this process's pages are shown the change.
        Compared under the game's lock, so a write under way here is not taken for a difference."""
        live = await self.get_game(game_id)
        if live is None:
            return None
        assert self.sync is not None
        async with self.lock(game_id):
            await self.sync.catch_up_if_moved(live)
        return live

    async def _watch(self) -> None:
        """Every watch interval: this process's heartbeat, the agent moves whose holder died, the
        queue, the game clocks and the abandonment clock of unclocked duels between people; the
        scans each by the one process holding its lease (docs/web.md, "Leases")."""
        steps: list[tuple[str, Callable[[], Awaitable[None]]]] = [
            ("the heartbeat", self._heartbeat),
            ("taking over agent moves", self._take_over_agents),
            ("the queue", self.tick_queue),
            ("checking the game clocks", self._scan(leases.CLOCKS, self._check_clocks)),
            ("checking absent players", self._scan(leases.ABANDONMENT, self._check_abandonment)),
        ]
        while True:
            await asyncio.sleep(self.config.watch_interval)
            for what, step in steps:
                try:
                    await step()
                except asyncio.CancelledError:
                    raise
                except Exception:  # a database hiccup must not stop the watcher; the next round retries
                    log.exception("%s failed", what)

    def _scan(self, name: str, work: Callable[[], Awaitable[None]]) -> Callable[[], Awaitable[None]]:
        """``work`` run only while this process holds the lease ``name`` (taken or renewed here)."""

        async def scan() -> None:
            if await self.holds(name):
                await work()

        return scan

    async def holds(self, name: str) -> bool:
        me, seconds = self.process_id, self.config.lease_seconds
        return await self.run_db(lambda s: leases.acquire(s.engine, name, me, seconds))

    async def _heartbeat(self) -> None:
        me = self.process_id
        await self.run_db(lambda s: leases.heartbeat(s.engine, me))

    async def _take_over_agents(self) -> None:
        """Agent moves nobody thinks about (their process died, or never took them): schedule them
        here; the agent lease makes one process take each."""
        for game_id in await self.run_db(lambda s: leases.orphaned_agent_turns(s.engine)):
            live = await self._current_game(game_id)
            if live is not None:
                log.info("game %s: taking over its agent's decision %d", game_id, live.n_actions)
                self.schedule_agents(live)

    async def _check_abandonment(self) -> None:
        """Unclocked friend duels whose player to move has no connection on any live process: told
        to the game once, lost ``abandon_seconds`` after the countdown started; the countdown is
        stored (web/presence.py), so a process taking this scan over continues it."""
        counting = await self.run_db(lambda s: presence.running_countdowns(s.engine))
        for game_id, seat in await self.run_db(lambda s: presence.away_seats(s.engine)):
            live = await self._current_game(game_id)
            if live is None or live.clock is not None or live.session.to_move != seat:
                if live is not None and (game_id, seat) in counting:  # no longer its move
                    await self.write(functools.partial(_cancel_countdown, game_id=game_id, seat=seat))
                if live is not None and not live.connections and not live.agent_busy:
                    self.games.pop(game_id, None)  # loaded only to look: the store keeps it
                continue
            elapsed = counting.get((game_id, seat))
            if elapsed is None:
                start = functools.partial(_start_countdown, game_id=game_id, seat=seat)
                if await self.run_db(start):
                    notice = {"type": "notice", "code": "opponent_away", "seat": seat}
                    await self.notify_game(game_id, {**notice, "seconds": self.config.abandon_seconds})
            elif elapsed >= self.config.abandon_seconds:
                await self._abandon(live, seat)
        await self.write(_forget_countdowns)

    async def _abandon(self, live: LiveGame, seat: int) -> None:
        async with self.lock(live.id):
            if not await self._refresh(live) or live.session.to_move != seat:
                return
            result = abandoned_result(live.session, seat)
            live.result_override = result
            try:
                ended = await self._finish(live, result)
            except StaleError:  # another process changed the game meanwhile: caught up, next scan looks
                return
            if not ended:
                return
        log.info("game %s: seat %d abandoned the game", live.id, seat)
        await self.notify_game(live.id, {"type": "notice", "code": "abandoned", "seat": seat})
        await self.broadcast(live, [])

    def _background(self, work: Coroutine[Any, Any, None]) -> None:
        """Run ``work`` as a task kept (and cancelled on stop) like agent tasks."""
        task = asyncio.create_task(work)
        self.agent_tasks.add(task)
        task.add_done_callback(self.agent_tasks.discard)

    async def _save_presence(self, live: LiveGame, seats: set[int]) -> None:
        """Tell the other processes how many connections this one holds for ``seats`` (friend duels
        without a clock only: the abandonment rule's)."""
        if live.kind != "friend" or live.clock is not None or not seats:
            return
        counts = {seat: live.present.get(seat, 0) for seat in seats}
        me, game_id = self.process_id, live.id

        def save(_s: Store, c: DbConnection) -> None:
            for seat, n in counts.items():
                presence.set_presence(c, me, game_id, seat, n)

        await self.write(save)

    # ------------------------------------------------------------------ analyses

    async def analysis(self, game_id: str) -> tuple[int, dict[str, Any]]:
        """The answer of ``GET /api/games/{id}/analysis`` (HTTP status, body): the kept analysis, or
        "pending" (queued or running: ask again after ``retry_after`` seconds) or "busy" (every slot
        taken: nothing queued, ask again later).  The first request for a finished game that has
        none starts its analysis; each game is analysed at most once (docs/web.md, "Analyses")."""
        if not _GAME_ID.fullmatch(game_id):
            return 404, {"error": "no such game"}
        kept = await self.run_db(lambda s: s.load_analysis(game_id))
        if kept is not None:
            return 200, _analysis_body(kept)
        if game_id in self.analyses:
            return self._pending()
        row = await self.run_db(lambda s: s.load_game(game_id))
        if row is None:
            return 404, {"error": "no such game"}
        if row.status != "over":
            # The analysis replays the record, hidden cards and all: finished games only.
            return 403, {"error": "analyses are made of finished games only"}
        return self.request_analysis(game_id)

    def request_analysis(self, game_id: str) -> tuple[int, dict[str, Any]]:
        """Queue the analysis of a finished game unless it is queued already or every place is
        taken (then "busy", and nothing is queued)."""
        if game_id not in self.analyses:
            if len(self.analyses) >= self.config.analysis_running + self.config.analysis_waiting:
                return 503, {
                    "status": "busy",
                    "error": "the server is analysing other games; ask again later",
                    "retry_after": ANALYSIS_BUSY_RETRY,
                }
            task = asyncio.create_task(self._analyse(game_id))
            self.analyses[game_id] = task
            task.add_done_callback(lambda _t: self.analyses.pop(game_id, None))
        return self._pending()

    def _pending(self) -> tuple[int, dict[str, Any]]:
        return 202, {"status": "pending", "retry_after": ANALYSIS_PENDING_RETRY}

    async def _analyse(self, game_id: str) -> None:
        iterations = self.config.analysis_iterations
        try:
            async with self.analysis_slots, self._lease_held(leases.analysis_lease(game_id)) as held:
                if not held:
                    return  # another process analyses it (if it dies, a later request takes it over)
                if await self.run_db(lambda s: s.load_analysis(game_id)) is not None:
                    return  # kept meanwhile (a server sharing this database)
                row = await self.run_db(lambda s: s.load_game(game_id))
                if row is None or row.status != "over":
                    return
                if len(row.actions) > self.config.analysis_max_actions:
                    error = (
                        f"this game has {len(row.actions)} actions; the server analyses games of at most "
                        f"{self.config.analysis_max_actions} (clash analyze RECORD analyses any)"
                    )
                    too_long = AnalysisRow(game_id, "failed", {"error": error}, iterations, 0.0)
                    await self.write(lambda s, c: _keep_analysis(s, c, too_long))
                    return
                record = record_of_row(row).to_dict()
                self.analysis_jobs += 1
                log.info("analysing game %s (%d actions)", game_id, len(row.actions))
                try:
                    body, seconds = await self._in_worker(workers.analysis, record, iterations)
                    kept = AnalysisRow(game_id, "done", body, iterations, seconds)
                except ClashError as exc:  # the record does not replay: kept too, never tried again
                    kept = AnalysisRow(game_id, "failed", {"error": str(exc)}, iterations, 0.0)
                await self.write(lambda s, c: _keep_analysis(s, c, kept))
        except asyncio.CancelledError:
            raise
        except Exception:  # not kept: the next request for this game tries again
            log.exception("analysis of game %s failed", game_id)

    # ------------------------------------------------------------------ socket messages

    async def handle(self, conn: Connection, msg: Message) -> None:
        if msg.type == "ping":
            await conn.send({"type": "pong", "id": msg.get("id", 0)})
            return
        if msg.type == "hello":
            await self._hello(conn, msg)
            return
        if msg.type in ("queue", "leave_queue", "queue_ai"):
            await self.matchmaker.handle(conn, msg)
            return
        live = conn.live
        if live is None:
            raise ProtocolError("hello_first", "send 'hello' with the game id first")
        if not conn.seats:
            raise ProtocolError("spectator", "spectators watch; they cannot act")
        if msg.type == "hint":
            await self._hint(conn, live)
            return
        if msg.type == "rematch":
            await self._rematch(conn, live)
            return
        async with self.lock(live.id):
            session = live.session  # read under the lock: a catch-up may replace it
            if session.is_over:
                raise ProtocolError("game_over", "the game is over")
            seat = self._acting_seat(conn, live)
            await self._lost_on_time_before(live, _WHAT.get(msg.type, "this message"))
            if msg.type in ("act", "undo") and msg.get("index") != len(session.steps):
                await self._refuse_stale(live, msg.get("index"))
            if msg.type == "act":
                try:
                    session.check(seat, msg.get("action"), msg.get("index"))
                    events = await self._apply(live, seat, msg.get("action"))
                except StaleActionError:
                    raise ProtocolError(
                        "stale",
                        f"the game has {len(session.steps)} actions; your page showed {msg.get('index')}",
                    ) from None
                except NotYourTurnError as exc:
                    raise ProtocolError("not_your_turn", str(exc)) from None
                except ActionSyntaxError as exc:
                    raise ProtocolError("syntax", str(exc)) from None
                except IllegalActionError as exc:
                    raise ProtocolError("illegal", str(exc)) from None
                except SessionError as exc:
                    raise ProtocolError("game_over", str(exc)) from None
            elif msg.type == "undo":
                shown = history_of(session)
                try:
                    taken = session.undo(seat, msg.get("index"))
                except StaleActionError as exc:
                    raise ProtocolError("stale", str(exc)) from None
                except UndoError as exc:
                    raise ProtocolError("undo_refused", str(exc)) from None
                keep = len(session.steps)
                await self.write_game(
                    live, functools.partial(_truncate, game_id=live.id, keep=keep), shown=shown
                )
                events = [undo_event(live, taken)]
            else:  # resign
                outcome = session.resign(seat)
                result = final_result(session)
                await self._finish(live, result)
                events = [{"kind": "resigned", "rule": "", "player": seat, "text": outcome.reason}]
        await self.broadcast(live, events)
        self.schedule_agents(live)

    async def _refuse_stale(self, live: LiveGame, index: Any) -> None:
        """Answer ``stale`` to a page whose index is not this copy's (the caller holds the lock).
        With several processes the page may be ahead (it reconnected here from another process):
        the copy first catches up, and the page is sent the game as it stands."""
        assert self.sync is not None
        if not self.inline_db:
            await self.sync.refresh(live, locked=True)
        steps = len(live.session.steps)
        raise ProtocolError("stale", f"the game has {steps} actions; your page showed {index}")

    def _acting_seat(self, conn: Connection, live: LiveGame) -> int:
        if len(conn.seats) == 1:
            return next(iter(conn.seats))
        to_move = live.session.to_move
        if to_move in conn.seats:
            return to_move
        raise ProtocolError("not_your_turn", f"seat {to_move} is to move")

    async def _hello(self, conn: Connection, msg: Message) -> None:
        if conn.live is not None:
            raise ProtocolError("bad_field", "this connection already follows a game")
        live = await self.get_game(msg.get("game"))
        if live is None:
            raise ProtocolError("no_game", "no such game")
        tokens: list[str] = msg.get("tokens")
        async with self.lock(live.id):
            if self.sync is not None:  # a copy held here may be older than the store
                await self.sync.catch_up_if_moved(live)
            seats = await self._seats_of(conn, live, tokens, accept_rated=msg.get("rated") is True)
            if self._start_clock(live):
                assert live.clock is not None
                started = clock_row(live.clock)
                await self.write_game(live, functools.partial(_save_clock, game_id=live.id, clock=started))
                if live.connections:
                    await self.broadcast(live, [])  # the creator's page shows the clock running
        conn.live = live
        conn.seats = seats
        conn.lang = msg.get("lang") or "en"
        live.connections.add(conn)
        for s in seats:
            live.present[s] = live.present.get(s, 0) + 1
        await self._save_presence(live, seats)
        frame = frame_for(live, seats, lang=conn.lang, now=self.config.clock())
        # Seats no identity holds yet: the creator's page shows the invite link until it is used.
        frame["open_seats"] = [s.seat for s in live.seats if s.owner is None and s.token_hash is not None]
        history = [*live.session.initial_events, *(e for st in live.session.steps for e in st.events)]
        frame["log"] = events_json(live, history, conn.lang)
        await conn.send(frame)
        self.schedule_agents(live)  # an agent stopped by a failure tries again when a page opens
        if seats:
            await self.notify_game(
                live.id, {"type": "notice", "code": "joined", "seats": sorted(seats)}, skip=conn
            )

    async def _seats_of(
        self, conn: Connection, live: LiveGame, tokens: list[str], *, accept_rated: bool = False
    ) -> set[int]:
        """The seats this connection plays (the caller holds the game's lock): those its identity
        owns, and those whose token it presents when no identity holds them yet, which it thereby
        takes for good (an invite link is single-use).  Refused, with nothing changed: a token of
        no seat, a seat another identity holds, the second seat of a friend duel for the identity
        that holds the first (its creator), and any token without an identity."""
        me = conn.identity
        by_hash = {s.token_hash: s for s in live.seats if s.token_hash is not None}
        presented = [by_hash.get(token_hash(t)) for t in tokens]
        if any(row is None for row in presented):
            raise ProtocolError("bad_token", "that token opens no seat of this game")
        to_claim: list[SeatRow] = []
        for row in presented:
            assert row is not None
            if (row.owner is not None and row.owner == me) or any(r.seat == row.seat for r in to_claim):
                continue
            if me is None:
                raise ProtocolError(
                    "no_identity", "seats belong to identities: sign in or POST /api/identities first"
                )
            if row.owner is not None:
                raise ProtocolError(
                    "seat_taken", "this seat belongs to another player; open the game without it to watch"
                )
            if live.kind == "friend" and any(s.owner == me for s in live.seats if s.seat != row.seat):
                raise ProtocolError(
                    "own_game", "you hold the other seat of this duel; the invite link is for your friend"
                )
            to_claim.append(row)
        assert me is not None or not to_claim
        for row in to_claim:
            game_id, seat = live.id, row.seat
            assert me is not None
            try:
                await self.write_game(live, functools.partial(_claim, game_id=game_id, seat=seat, owner=me))
            except SeatTakenError:
                raise ProtocolError("seat_taken", "this seat belongs to another player") from None
            row.owner = me
            if live.rated_offer:
                # The invitee's answer to a duel offered as rated: rated only when both chose it.
                await self.write_game(
                    live, functools.partial(_answer_rated, game_id=live.id, accepted=accept_rated)
                )
                live.rated_offer, live.rated = False, accept_rated
        return {s.seat for s in live.seats if me is not None and s.owner == me and s.kind == REMOTE}

    async def _hint(self, conn: Connection, live: LiveGame) -> None:
        session = live.session
        async with self.lock(live.id):
            if session.is_over:
                raise ProtocolError("game_over", "the game is over")
            seat = self._acting_seat(conn, live)
            if not session.can_hint(seat, in_setup=False):
                raise ProtocolError("hint_unavailable", "hints are given on your own turn, after the setup")
            record = session.record().to_dict()
            index = len(session.steps)
        action, score, label = await self._in_worker(workers.hint, record, seat, self.config.hint_seconds)
        sentence = action
        if len(session.steps) == index:  # the game has not moved on: say the action as the move list does
            sentence = describe_action(session.game, action, conn.lang, names=seat_names(live, conn.lang))
        await conn.send(
            {
                "type": "hint",
                "index": index,
                "action": action,
                "sentence": sentence,
                "score": score,
                "label": label,
            }
        )

    # ------------------------------------------------------------------ the queue and rematches

    async def tick_queue(self) -> None:
        await self.matchmaker.tick()

    async def _rematch(self, conn: Connection, live: LiveGame) -> None:
        """A rematch of a finished duel: between two people both must ask (the first asking offers
        it to the other); against the AI or at one device it starts at once.  Rated again if the
        first game was."""
        async with self.lock(live.id):
            session = live.session
            if not session.is_over or session.is_solo or live.kind not in ("friend", "ai", "hotseat"):
                raise ProtocolError("rematch_refused", "a rematch is offered in a finished duel only")
            if live.rematch_game is not None:
                await conn.send({"type": "rematch", "game": live.rematch_game})
                return
            owners = [live.seats[session.participant_seat(p)].owner for p in (0, 1)]
            people = [o for o in owners if o is not None]
            if live.kind == "friend" and (len(set(people)) != 2 or len(people) != 2):
                raise ProtocolError("rematch_refused", "both seats of this duel need their players")
            game_id, asking = live.id, set(conn.seats)
            # The offers are in the store: an offer made through another process counts here.
            offers, made = await self.run_db(lambda s: rematches.offer(s.engine, game_id, asking))
            live.rematch_offers.update(offers)
            if made is None and live.kind == "friend" and offers != {0, 1}:
                offer = {"type": "notice", "code": "rematch_offered", "seats": sorted(offers)}
                await self.notify_game(live.id, offer)
                return
            if made is None:
                made = await self._make_rematch(conn, live)
            live.rematch_game = made
        await self.notify_game(live.id, {"type": "rematch", "game": made})

    async def _make_rematch(self, conn: Connection, live: LiveGame) -> str:
        """The rematch game of ``live`` (both have offered): made here, or, when another request
        made it first (on any process), that one."""
        session = live.session
        owners = [o for o in (live.seats[session.participant_seat(p)].owner for p in (0, 1)) if o is not None]
        head = session.record()
        names = [live.seats[session.participant_seat(p)].name for p in (0, 1)]
        req = NewGame(kind=live.kind, format=head.format, name=names[0], name2=names[1], lang=conn.lang)
        if live.kind == "ai":
            agent = live.seats[session.participant_seat(1)].agent
            req.ai = agent if agent in AI_LEVELS else DEFAULT_AI
        game_id = live.id
        try:
            claim = functools.partial(rematches.claim, game_id=game_id)
            new = await self.create_owned_game(req, owners[:2], rated=live.rated, with_write=claim)
        except rematches.RematchMadeError:
            made = await self.run_db(lambda s: rematches.rematch_of(s.engine, game_id))
            assert made is not None  # set in the transaction that raised this
            return made
        return new.id

    def disconnect(self, conn: Connection) -> None:
        if conn.identity is not None and conn.identity in self.matchmaker.queued:
            self._background(self.matchmaker.disconnect(conn))
        live = conn.live
        if live is None:
            return
        live.connections.discard(conn)
        for s in conn.seats:
            live.present[s] = max(0, live.present.get(s, 0) - 1)
        self._background(self._save_presence(live, set(conn.seats)))
        # Unwatched here: the store keeps it (clocks, presence and agent turns too), and a page
        # opening it again, or a scan, reloads it.
        if not live.connections and not live.agent_busy:
            self.games.pop(live.id, None)
            lock = self.locks.get(live.id)
            if lock is not None and not lock.locked():
                del self.locks[live.id]


#: What a player's message is called when it arrived too late (``_lost_on_time_before``).
_WHAT = {"act": "this action", "undo": "this undo", "resign": "this resignation"}


def _agent_decides_after(session: GameSession, code: int | None) -> bool | None:
    """Whether an agent seat is to decide after ``code`` (None: after the action just applied),
    stored with the action so a process finds the agent moves to take over (web/leases.py); None
    in a game without an agent seat (nothing to keep: no cost on the hot path of duels).  A copy
    of the game is played one action ahead when the action is not applied yet."""
    agents = {s for s, seat in enumerate(session.seats) if seat.kind == AGENT}
    if not agents:
        return None
    if code is None:
        return session.is_agent_turn()
    game = session.game.clone()
    game.apply(code)
    return not game.is_over() and game.current_player in agents


def _rating_write(live: LiveGame, result: dict[str, Any]) -> tuple[str | None, tuple[str, str]] | None:
    """For a rated duel between two identities: (the winner's identity or None for a draw, both
    identities); None for any other game.  A resignation and an abandonment count as losses."""
    if not live.rated:
        return None
    owners = [s.owner for s in live.seats]
    a, b = owners[0], owners[1]
    if a is None or b is None or a == b:
        return None
    winner = result.get("winner")
    return (owners[winner] if winner in (0, 1) else None), (a, b)


def _answer_rated(store: Store, conn: DbConnection, *, game_id: str, accepted: bool) -> None:
    store.answer_rated_offer(game_id, accepted, conn=conn)


def _create_identity(store: Store, *, row: IdentityRow, sid: str) -> None:
    store.create_identity(row, ident.session_hash(sid))


def _claim(store: Store, conn: DbConnection, *, game_id: str, seat: int, owner: str) -> None:
    store.claim_seat(game_id, seat, owner, conn=conn)


def _save_clock(store: Store, conn: DbConnection, *, game_id: str, clock: ClockRow) -> None:
    store.save_clock(game_id, clock, conn=conn)


def _start_countdown(store: Store, *, game_id: str, seat: int) -> bool:
    return presence.start_countdown(store.engine, game_id, seat)


def _forget_countdowns(_store: Store, conn: DbConnection) -> None:
    presence.forget_finished(conn)
    presence.forget_returned(conn)


def _cancel_countdown(_store: Store, conn: DbConnection, *, game_id: str, seat: int) -> None:
    presence.cancel_countdown(conn, game_id, seat)


def _truncate(store: Store, conn: DbConnection, *, game_id: str, keep: int) -> None:
    store.truncate_actions(game_id, keep, conn=conn)


def _bumped(
    store: Store,
    conn: DbConnection,
    *,
    fn: Callable[[Store, DbConnection], None],
    then: Callable[[Store, DbConnection], None] | None,
    game_id: str,
    expected: int,
) -> None:
    """A write of a game behind its revision check (web/sync.py), in one transaction."""
    store.bump_revision(game_id, expected, conn)
    fn(store, conn)
    if then is not None:
        then(store, conn)


def _append_then(
    store: Store, conn: DbConnection, *, action: ActionWrite, then: Callable[[Store, DbConnection], None]
) -> None:
    store.append_actions([action], conn)  # checks the action's revision
    then(store, conn)


# ---------------------------------------------------------------------------- HTTP


def _index_html() -> str:
    return resources.files("clashofdecks.web").joinpath("static/index.html").read_text(encoding="utf-8")


def _origin_allowed(origin: str | None, host: str | None, config: ServerConfig) -> bool:
    """Browsers send Origin; a page of another site must not drive a player's seat (CSWSH).
    Clients without an Origin (bots, tests) are not browsers and are let through."""
    if origin is None:
        return True
    parts = urlsplit(origin)
    if host and parts.netloc == host:
        return True
    allowed = list(config.extra_origins)
    if config.public_url:
        pub = urlsplit(config.public_url)
        allowed.append(f"{pub.scheme}://{pub.netloc}")
    return origin.rstrip("/") in {a.rstrip("/") for a in allowed}


def _session_id(headers: Any, cookies: dict[str, str]) -> str | None:
    """The session id a request carries: ``Authorization: Bearer <id>`` (bots, scripts) or the
    ``clash_session`` cookie (browsers)."""
    auth = headers.get("authorization", "")
    if auth[:7].lower() == "bearer ":
        return auth[7:].strip() or None
    return cookies.get(SESSION_COOKIE) or None


def _address(request: Request) -> str:
    return request.client.host if request.client is not None else "unknown"


def _cross_site_refusal(request: Request, config: ServerConfig) -> Response | None:
    """State-changing requests are JSON only (415 otherwise: an HTML form or a ``text/plain``
    fetch of another site cannot send JSON without a CORS preflight, which this server never
    grants), and their Origin, when present, must be this site's (403).  A request without an
    Origin is a non-browser client: browsers send Origin on every POST."""
    media = request.headers.get("content-type", "").split(";", 1)[0].strip().lower()
    origin = request.headers.get("origin")
    if media != "application/json" or not _origin_allowed(origin, request.headers.get("host"), config):
        log.warning(
            "refused POST %s (content type %r, origin %r)", request.url.path, media[:60], (origin or "")[:100]
        )
    if media != "application/json":
        return JSONResponse(
            {"error": "send the request as application/json", "code": "unsupported_media_type"},
            status_code=415,
        )
    if not _origin_allowed(request.headers.get("origin"), request.headers.get("host"), config):
        return JSONResponse(
            {"error": "requests from other sites are refused", "code": "bad_origin"}, status_code=403
        )
    return None


def _set_session(response: Response, session_id: str, request: Request, config: ServerConfig) -> None:
    secure = request.url.scheme == "https" or (config.public_url or "").startswith("https:")
    response.set_cookie(
        SESSION_COOKIE, session_id, max_age=SESSION_MAX_AGE, httponly=True, samesite="lax", secure=secure
    )


def _me(row: IdentityRow | None) -> dict[str, Any]:
    if row is None:
        return {"identity": None}
    return {
        "identity": row.handle,
        "display_name": row.display_name,
        "username": row.username,
        "account": row.is_account,
    }


def _base_url(request: Request, config: ServerConfig) -> str:
    if config.public_url:
        return config.public_url.rstrip("/")
    return str(request.base_url).rstrip("/")


def campaign_json(levels: Sequence[CampaignLevel]) -> dict[str, Any]:
    """The solo campaign of one identity (``GET /api/campaign``, a player's page): every rulebook
    level with its best result (``None``: not played), whether it is open (level 0, and each level
    after a won one), and ``next``: the lowest open level not won yet (the highest level once all
    are won)."""
    by_level = {c.level: c for c in levels}
    out: list[dict[str, Any]] = []
    for level in sorted(LEVELS):
        c = by_level.get(level)
        below = by_level.get(level - 1)
        out.append(
            {
                "level": level,
                "best": None if c is None else c.best,
                "played": 0 if c is None else c.played,
                "won": 0 if c is None else c.won,
                "open": level == min(LEVELS) or (below is not None and below.best == "won"),
            }
        )
    candidates = [c["level"] for c in out if c["open"] and c["best"] != "won"]
    return {"levels": out, "next": candidates[0] if candidates else max(LEVELS)}


def _clock_summary(row: GameRow, player: str | None, now: float) -> dict[str, Any] | None:
    if row.clock is None:
        return None
    clock = clock_of_row(row.clock)
    return {**clock.to_json(now), "your_turn": _holds(row, clock.running, player)}


def _holds(row: GameRow, seat: int | None, player: str | None) -> bool:
    return (
        player is not None
        and seat is not None
        and any(s.seat == seat and s.owner == player for s in row.seats)
    )


def _summary(row: GameRow, player: str | None, now: float = 0.0) -> dict[str, Any]:
    clock = _clock_summary(row, player, now)
    return {
        "clock": clock,
        "your_turn": clock is not None and clock["your_turn"],
        "id": row.id,
        "kind": row.kind,
        "mode": row.mode,
        "format": row.format,
        "status": row.status,
        "players": [s.name for s in row.seats],
        "result": row.result,
        "actions": row.n_actions,
        "updated": row.updated_at,
        "mine": player is not None and any(s.owner == player for s in row.seats),
    }


_CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self' ws: wss:; frame-ancestors 'none'; base-uri 'none'"
)


MAX_OPTIONS_BYTES = 16 * 1024
#: Handles are guest-<hex> or usernames (a-z 0-9 _ . -); anything else is no player, unasked.
_HANDLE = re.compile(r"[a-z0-9_.-]{1,40}")


def _player_body(store: Store, row: IdentityRow) -> dict[str, Any]:
    """``GET /api/players/<handle>``: ratings and their history by format, results by format and
    by preconstructed deck, and the identity's last 50 games (the results count those).  No
    identity id leaves the server."""
    rates, hist = store.player_ratings(row.id)
    ratings_by_format = {
        r.format: {
            "rating": display(r.mu, r.sigma),
            "games": r.games,
            "wins": r.wins,
            "losses": r.losses,
            "provisional": row.username is None or r.games < LEADERBOARD_GAMES,
        }
        for r in rates
    }
    history: dict[str, list[dict[str, Any]]] = {}
    for h in hist:
        history.setdefault(h.format, []).append({"game": h.game_id, "rating": h.rating, "at": h.at})
    games_rows = store.list_games(owner=row.id, limit=50)
    results: dict[str, dict[str, int]] = {}
    by_deck: dict[str, dict[str, int]] = {}
    decks = store.decks_taken([g.id for g in games_rows if g.format == "precon" and g.status == "over"])
    for g in games_rows:
        if g.status != "over" or g.kind == "imported":
            continue
        mine = [s.seat for s in g.seats if s.owner == row.id]
        winner = (g.result or {}).get("winner")
        key = "wins" if winner in mine and len(mine) == 1 else "draws" if winner is None else "losses"
        if len(mine) != 1:
            key = "played"  # hot-seat: both seats are the player's
        tally = results.setdefault(g.format, {"wins": 0, "losses": 0, "draws": 0, "played": 0})
        tally[key] += 1
        deck = decks.get((g.id, mine[0])) if len(mine) == 1 else None
        if deck is not None:
            per_deck = by_deck.setdefault(str(deck), {"wins": 0, "losses": 0, "draws": 0, "played": 0})
            per_deck[key] += 1
    return {
        "handle": row.handle,
        "name": row.display_name or row.handle,
        "account": row.is_account,
        "ratings": ratings_by_format,
        "history": history,
        "results": results,
        #: Preconstructed games by the deck the player took (1-4).
        "results_by_deck": by_deck,
        "games": [_summary(g, row.id) for g in games_rows],
        #: The solo campaign (as ``GET /api/players/<handle>/campaign``).
        "campaign": campaign_json(store.campaign_of_identity(row.id)),
    }


#: Game ids are 24 hex digits (``secrets.token_hex(12)``); anything else is no game, unasked.
_GAME_ID = re.compile(r"[0-9a-f]{1,32}")
#: Seconds the replay page waits before asking again for an analysis under way, or refused as busy.
ANALYSIS_PENDING_RETRY = 2
ANALYSIS_BUSY_RETRY = 10


def _keep_analysis(store: Store, conn: DbConnection, row: AnalysisRow) -> None:
    store.save_analysis(row, conn=conn)  # False when one is kept already: the first one stays


def _analysis_body(kept: AnalysisRow) -> dict[str, Any]:
    if kept.status != "done":
        return {"status": "failed", "error": kept.body.get("error", "the analysis failed")}
    return {
        "status": "done",
        "analysis": kept.body,
        "iterations": kept.iterations,
        "seconds": round(kept.seconds, 3),
        "created_at": kept.created_at,
    }


#: The name a deleted person's seats show.
ANONYMOUS_NAME = "deleted player"
MAX_RECORD_BYTES = 1 << 20
MAX_TUTORIAL_BYTES = 1024
MAX_TUTORIAL_ACTION_CHARS = 100


async def _read_body(request: Request, limit: int) -> bytes | None:
    """The request body, or None once it passes ``limit`` bytes (read no further: a huge upload
    costs the server nothing but the refusal)."""
    declared = request.headers.get("content-length")
    if declared is not None and declared.isdigit() and int(declared) > limit:
        return None
    chunks: list[bytes] = []
    size = 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit:
            return None
        chunks.append(chunk)
    return b"".join(chunks)


def _new_game_request(data: Any) -> NewGame:
    if not isinstance(data, dict):
        raise GameSetupError("the request must be a JSON object")
    allowed = {
        "kind",
        "format",
        "deck",
        "level",
        "threat",
        "ai",
        "name",
        "name2",
        "lang",
        "rated",
        "time_control",
    }
    unknown = sorted(set(data) - allowed)
    if unknown:
        raise GameSetupError(f"unknown option {unknown[0]!r}")
    req = NewGame()
    for key in ("kind", "format", "ai", "name", "name2", "lang"):
        if key in data:
            if not isinstance(data[key], str) or len(data[key]) > MAX_NAME_CHARS:
                raise GameSetupError(f"{key!r} must be a short text")
            setattr(req, key, data[key])
    if "deck" in data and data["deck"] is not None:
        if type(data["deck"]) is not int:
            raise GameSetupError("'deck' must be 1-4")
        req.deck = data["deck"]
    if "level" in data:
        if type(data["level"]) is not int or data["level"] not in LEVELS:
            raise GameSetupError(f"'level' must be one of {sorted(LEVELS)}")
        req.level = data["level"]
    if "time_control" in data and data["time_control"] is not None:
        if not isinstance(data["time_control"], str):
            raise GameSetupError(f"'time_control' must be one of none, {', '.join(TIME_CONTROLS)}")
        req.time_control = data["time_control"]
    if "threat" in data and data["threat"] is not None:
        if not isinstance(data["threat"], dict):
            raise GameSetupError("'threat' must be an object of threat options")
        req.threat = data["threat"]
    if "rated" in data:
        if type(data["rated"]) is not bool:
            raise GameSetupError("'rated' must be true or false")
        if data["rated"] and (req.kind != "friend" or req.format not in RATED_FORMATS):
            raise GameSetupError("only a friend duel in draft or precon can be rated")
        req.rated = data["rated"]
    from ..ui.i18n import languages

    if req.lang not in languages():
        raise GameSetupError(f"'lang' must be one of {', '.join(languages())}")
    return req


def _tutorial_request(data: Any) -> tuple[int, str, str]:
    """``{"step": index, "action": text, "lang": "en"}`` checked: the step index, the action, the language."""
    if not isinstance(data, dict):
        raise TutorialError("the request must be a JSON object")
    unknown = sorted(set(data) - {"step", "action", "lang"})
    if unknown:
        raise TutorialError(f"unknown field {unknown[0]!r} (step, action, lang)")
    n = len(tutorial_steps())
    step = data.get("step")
    if type(step) is not int or not 0 <= step < n:
        raise TutorialError(f"'step' must be a step number from 0 to {n - 1}")
    action = data.get("action")
    if not isinstance(action, str) or not action.strip() or len(action) > MAX_TUTORIAL_ACTION_CHARS:
        raise TutorialError(
            f"'action' must be an action in text notation (at most {MAX_TUTORIAL_ACTION_CHARS} characters)"
        )
    lang = data.get("lang", "en")
    if lang not in LANGUAGES:
        raise TutorialError(f"'lang' must be one of {', '.join(LANGUAGES)}")
    return step, action, lang
