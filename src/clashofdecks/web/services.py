"""What one server process gives every part of the game server, each built once at start and passed
to the parts by constructor: the database (its writing thread, its read threads, the group commit),
the tasks kept until the server stops, and the leases this process holds (docs/web.md, "Leases")."""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
from collections.abc import AsyncIterator, Callable, Coroutine
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

from sqlalchemy.engine import Connection as DbConnection

from . import leases
from .store import ActionWrite, Store, Write, open_store

T = TypeVar("T")
log = logging.getLogger("clashofdecks.web")

#: Threads (each with its own database connection) for the read-only queries on PostgreSQL.
READ_THREADS = 2

#: A write of the group commit: an action (the hot path) or a function of the store and a transaction.
GroupWrite = ActionWrite | Callable[[Store, DbConnection], None]


class Database:
    """The store, its one writing thread (every write, in order), its read threads on PostgreSQL, and
    the group commit: writes that arrive while a commit is under way are committed together."""

    def __init__(self, url: str | None) -> None:
        self.url = url
        self.store: Store | None = None
        self.db: ThreadPoolExecutor | None = None
        #: Read-only queries off the writing thread (PostgreSQL; None on SQLite: ``read``).
        self.reads: ThreadPoolExecutor | None = None
        #: SQLite on local disk: commits run on the event loop (a hop to a thread costs more).
        self.inline = False
        self.pending: list[tuple[GroupWrite, asyncio.Future[None]]] = []
        self.flusher: asyncio.Task[None] | None = None

    async def open(self) -> Store:
        self.db = ThreadPoolExecutor(max_workers=1, thread_name_prefix="clash-db")
        loop = asyncio.get_running_loop()
        self.store = store = await loop.run_in_executor(self.db, open_store, self.url)
        self.inline = store.engine.dialect.name == "sqlite"
        if not self.inline:
            self.reads = ThreadPoolExecutor(max_workers=READ_THREADS, thread_name_prefix="clash-read")
        return store

    async def close(self) -> None:
        if self.store is not None and self.db is not None:
            await asyncio.get_running_loop().run_in_executor(self.db, self.store.close)
        if self.db is not None:
            self.db.shutdown(wait=True)
        if self.reads is not None:
            self.reads.shutdown(wait=True)

    async def run(self, fn: Callable[[Store], T]) -> T:
        """``fn(store)`` in the writing thread."""
        assert self.store is not None and self.db is not None
        store = self.store
        return await asyncio.get_running_loop().run_in_executor(self.db, lambda: fn(store))

    async def read(self, fn: Callable[[Store], T]) -> T:
        """A read-only query: on PostgreSQL in a read thread of its own connection, so it does not
        wait behind the group commit; on SQLite in the writing thread, like every query."""
        if self.reads is None:
            return await self.run(fn)
        assert self.store is not None
        store = self.store
        return await asyncio.get_running_loop().run_in_executor(self.reads, lambda: fn(store))

    async def write(self, fn: GroupWrite) -> None:
        """Store one write; returns once it is committed (raises its error otherwise).

        Writes that arrive while a commit is under way are committed together in the next one
        (group commit): with many games, one commit acknowledges many actions.
        """
        fut: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self.pending.append((fn, fut))
        if self.flusher is None or self.flusher.done():
            self.flusher = asyncio.create_task(self._flush())
        await fut

    async def _flush(self) -> None:
        assert self.store is not None and self.db is not None
        store = self.store
        loop = asyncio.get_running_loop()
        if self.inline:
            # One turn of the event loop more: the writes of the messages read in this turn join
            # the commit (under load, more actions per commit; a lone write waits one turn).
            await asyncio.sleep(0)
        while self.pending:
            batch, self.pending = self.pending, []
            calls: list[Write] = [
                fn if isinstance(fn, ActionWrite) else functools.partial(fn, store) for fn, _fut in batch
            ]
            try:
                if self.inline:
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


class Background:
    """Tasks of the server that nobody awaits (agent turns, presence saves, announcements): kept so
    they are not collected early, and cancelled when the server stops."""

    def __init__(self) -> None:
        self.tasks: set[asyncio.Task[None]] = set()

    def run(self, work: Coroutine[Any, Any, None]) -> asyncio.Task[None]:
        task = asyncio.create_task(work)
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)
        return task

    def cancel_all(self) -> None:
        for task in list(self.tasks):
            task.cancel()


class LeaseKeeper:
    """The leases of this server process (web/leases.py): taken, renewed while their work runs,
    given back."""

    def __init__(self, db: Database, process_id: str, seconds: float) -> None:
        self.db = db
        self.process_id = process_id
        self.seconds = seconds

    async def holds(self, name: str) -> bool:
        """Whether this process holds the lease ``name`` now (taken or renewed here)."""
        me, seconds = self.process_id, self.seconds
        return await self.db.run(lambda s: leases.acquire_alone(s, name, me, seconds))

    async def keep(self, name: str) -> None:
        """Renew ``name`` a few times per lease span, until cancelled or lost."""
        while await self.renew(name):
            await asyncio.sleep(self.seconds / 3)

    async def renew(self, name: str) -> bool:
        me, seconds = self.process_id, self.seconds
        if await self.db.run(lambda s: leases.renew(s.engine, name, me, seconds)):
            return True
        log.warning("lease %s was lost (this process was too slow); its work may be done twice", name)
        return False

    async def release(self, name: str) -> None:
        me = self.process_id
        await self.db.run(lambda s: leases.release(s.engine, name, me))

    @contextlib.asynccontextmanager
    async def held(self, name: str) -> AsyncIterator[bool]:
        """Whether this process took the lease ``name``; while it is held, it is renewed, and it is
        given up at the end (another process may then take the work at once)."""
        if not await self.holds(name):
            yield False
            return
        renewer = asyncio.create_task(self.keep(name))
        try:
            yield True
        finally:
            renewer.cancel()
            with contextlib.suppress(Exception):
                await self.release(name)
