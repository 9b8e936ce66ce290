"""The game server's shared state: its options, a connection, and the core every room of
``GameServer`` builds on -- the store and its database thread, the games in memory and their locks,
the group commit of writes and the revision check of a game's writes (web/sync.py)."""

from __future__ import annotations

import asyncio
import contextlib
import functools
import time
from collections.abc import Callable, Sequence
from concurrent.futures import Executor, ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, TypeVar

from sqlalchemy.engine import Connection as DbConnection
from starlette.websockets import WebSocket, WebSocketDisconnect, WebSocketState

from ..events import Event
from ..session import CheckedAction
from . import leases
from .games import LiveGame, NewGame, dumps
from .limits import Caps
from .matchmaking import Matchmaker
from .protocol import Message, RateLimiter
from .store import ActionWrite, ClockRow, Store, Write
from .sync import GameSync, History

T = TypeVar("T")

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
    #: The caps against abuse (web/limits.py; ``clash serve --limit NAME=VALUE``).
    caps: Caps = field(default_factory=Caps)
    #: ``Host`` names answered (DNS rebinding; web/http_guard.py): ``clash serve`` sets this
    #: machine's names, the bound address and ``--public-url``'s host; ``*`` answers any.
    allowed_hosts: tuple[str, ...] = ("*",)


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


class ServerCore:
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

    if TYPE_CHECKING:  # methods of the other rooms (server_*.py), for the type checker

        async def get_game(self, game_id: str) -> LiveGame | None: ...
        async def create_owned_game(
            self,
            req: NewGame,
            owners: Sequence[str],
            *,
            rated: bool = False,
            with_write: Callable[[DbConnection, str], None] | None = None,
        ) -> LiveGame: ...
        async def broadcast(self, live: LiveGame, events: Sequence[Event | dict[str, Any]]) -> None: ...
        async def _finish(self, live: LiveGame, result: dict[str, Any]) -> bool: ...
        async def tick_queue(self) -> None: ...
        async def _rematch(self, conn: Connection, live: LiveGame) -> None: ...
        async def _hello(self, conn: Connection, msg: Message) -> None: ...
        async def _apply(self, live: LiveGame, checked: CheckedAction) -> list[Event | dict[str, Any]]: ...
        def schedule_agents(self, live: LiveGame) -> None: ...
        async def _in_worker(self, fn: Callable[..., T], *args: Any) -> T: ...
        async def _take_over_agents(self) -> None: ...
        def _start_clock(self, live: LiveGame) -> bool: ...
        async def _time_out(self, live: LiveGame, now: float) -> None: ...
        async def _current_game(self, game_id: str) -> LiveGame | None: ...
        async def holds(self, name: str) -> bool: ...
        async def _keep_lease(self, name: str) -> None: ...
        def request_analysis(self, game_id: str) -> tuple[int, dict[str, Any]]: ...

    async def read_db(self, fn: Callable[[Store], T]) -> T:
        """A read-only query: on PostgreSQL in a read thread of its own connection, so it does not
        wait behind the group commit; on SQLite in the database thread, like every query."""
        if self.reads is None:
            return await self.run_db(fn)
        assert self.store is not None
        store = self.store
        return await asyncio.get_running_loop().run_in_executor(self.reads, lambda: fn(store))

    async def run_db(self, fn: Callable[[Store], T]) -> T:
        assert self.store is not None and self.db is not None
        store = self.store
        return await asyncio.get_running_loop().run_in_executor(self.db, lambda: fn(store))

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


def _save_clock(store: Store, conn: DbConnection, *, game_id: str, clock: ClockRow) -> None:
    store.save_clock(game_id, clock, conn=conn)


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
