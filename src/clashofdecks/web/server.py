"""The game server of one process: its parts, each an object made here with the services it uses
passed in (docs/web.md, "Code") -- the database, the worker pool, the leases, the table of live
games (each game one object: web/live_game.py), the agents runner, the analyses, the "play now"
queue, the socket layer and the watcher -- started and stopped together.

The server is the only judge: pages send action text, the session checks it, and each connection
gets the view of the seats its tokens open (R9), spectators the public view.  Every action is
committed to the store before anyone is told about it; agent decisions, hints and game analyses run
in a process pool, off the event loop.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable, Iterable
from typing import TypeVar

from ..session import AGENT
from . import leases, logins, reviews, signouts, workers
from .agents_runner import AgentRunner
from .analyses import Analyses
from .bus import bus_for
from .config import ServerConfig as ServerConfig
from .connection import Connection as Connection
from .game_table import GameTable
from .limits import SocketCounts
from .live_game import GameServices
from .matchmaking import Matchmaker
from .services import Background, Database, LeaseKeeper
from .sockets import Sockets
from .store import Store
from .sync import GameSync
from .tournament_director import TournamentDirector
from .watcher import Watcher

T = TypeVar("T")


class GameServer:
    """The parts of one server process, composed."""

    def __init__(self, config: ServerConfig) -> None:
        self.config = config
        #: This server start's id in the leases, heartbeats, presence and queue (web/leases.py).
        self.process_id = leases.new_process_id()
        self.db = Database(config.database_url)
        self.background = Background()
        self.leases = LeaseKeeper(self.db, self.process_id, config.lease_seconds)
        self.pool = workers.WorkerPool(
            config.agent_workers,
            config.optional_workers,
            seconds=config.caps.job_seconds,
            memory_mb=config.caps.job_memory_mb,
        )
        self.agents = AgentRunner(config, self.db, self.leases, self.pool, self.background)
        self.analyses = Analyses(config, self.db, self.leases, self.pool)
        self.services = GameServices(
            config,
            self.db,
            self.background,
            self.agents,
            self.analyses,
            process_id=self.process_id,
            pool=self.pool,
        )
        self.table = GameTable(self.services)
        #: The "play now" queue (its entries are in the database: docs/web.md, "The queue").
        self.matchmaker = Matchmaker(self.db, self.leases, self.table, config.clock)
        self.sockets = Sockets(config, self.table, self.matchmaker, self.background, self.db)
        #: The sockets open per identity and address (web/limits.py), shared with the routes.
        self.socket_counts = SocketCounts(config.caps)
        self.watcher = Watcher(config, self.db, self.leases, self.table, self.agents, self.matchmaker)
        self.watcher.close_signed_out = self.close_signed_out
        #: Tournaments: started, paired, scored and ended by the holder of their lease.
        self.director = TournamentDirector(
            self.db, self.leases, self.table, config.clock, config.tournament_schedule
        )
        self.watcher.tournaments = self.director.tick
        #: The change bus and the catch-up of games other processes changed (web/sync.py).
        self.sync: GameSync | None = None

    @property
    def store(self) -> Store | None:
        return self.db.store

    async def run_db(self, fn: Callable[[Store], T]) -> T:
        """``fn(store)`` in the database thread (the route groups' way to the store)."""
        return await self.db.run(fn)

    async def close_signed_out(self, identities: Iterable[str]) -> int:
        """Close this process's sockets of ``identities`` whose session ended (web/signouts.py)."""
        identities = list(identities)
        hashes = self.socket_counts.session_hashes(identities)
        live = await self.db.run(lambda s: signouts.live_sessions(s.engine, hashes)) if hashes else set()
        return await self.socket_counts.close_ended(identities, live)

    async def _signed_out(self, identity_id: str) -> None:
        """A sign-out's notification: closed in a task of its own, so the bus goes on reading."""

        async def close() -> None:
            await self.close_signed_out([identity_id])

        self.background.run(close())

    async def start(self) -> None:
        store = await self.db.open()
        bus = bus_for(store, self.db.read)
        bus.on_signout = self._signed_out  # at once on PostgreSQL; the watcher reads the table besides
        self.sync = self.services.sync = GameSync(self.table, self.db, bus)
        await self.sync.start()
        await self.watcher.heartbeat()
        now, caps = time.time(), self.config.caps  # old sessions and guests go (web/logins.py)
        await self.db.run(lambda s: logins.prune(s.engine, now, caps))
        await self.pool.start()
        self.watcher.signouts_seen = await self.db.run(lambda s: signouts.last_id(s.engine))
        self.sockets.review_key = await self.db.run(lambda s: reviews.address_key(s.engine))
        self.watcher.start()
        # Games whose agent was to move when the server stopped go on by themselves.
        for row in await self.db.run(lambda s: s.list_games(status="active", limit=1000)):
            if any(seat.kind == AGENT for seat in row.seats):
                live = await self.table.get(row.id)
                if live is not None:
                    live.schedule_agents()

    async def stop(self) -> None:
        await self.watcher.stop()
        self.background.cancel_all()
        self.analyses.stop()
        if self.sync is not None:
            await self.sync.stop()
        if self.db.store is not None and self.db.db is not None:
            me = self.process_id
            with contextlib.suppress(Exception):  # a stopping server gives its scans up at once
                await self.db.run(lambda s: _release_scans(s, me))
        self.pool.stop()
        await self.db.close()


def _release_scans(store: Store, process_id: str) -> None:
    for name in (leases.CLOCKS, leases.ABANDONMENT, leases.QUEUE, leases.PRUNE, leases.TOURNAMENTS):
        leases.release(store.engine, name, process_id)
