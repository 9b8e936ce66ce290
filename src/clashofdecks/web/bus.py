"""The change bus: how one server process learns what another one did to a game it holds.

Two kinds of message travel on it, both small (NOTIFY refuses payloads of 8,000 bytes and more):

* a **change** -- ``{"game": id, "revision": n}``: the game was written (an action, an undo, its end,
  a seat claimed...) and is now at revision ``n``.  On PostgreSQL the store sends it with
  ``pg_notify`` inside the transaction of the write (:meth:`Store.bump_revision`), so it is
  delivered exactly when the write commits, and never for a write rolled back.
* a **notice** -- ``{"game": id, "notice": frame}``: a ``notice`` frame (``joined``,
  ``opponent_away``...) for every connection of the game, whichever process holds it.

:class:`PostgresBus` keeps one ``LISTEN`` connection per process (psycopg 3, asynchronous); when that
connection drops it reconnects and tells the server to catch up every game it holds, since
notifications sent meanwhile are lost.  :class:`LocalBus` is SQLite's: one process, so a notice goes
straight to the handler and changes need no telling.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from collections.abc import Awaitable, Callable
from typing import Any, Protocol

from .store import CHANGES_CHANNEL, Store

log = logging.getLogger("clashofdecks.web")

#: Called with a game's id and its new revision (a change another process may have made).
OnChange = Callable[[str, int], Awaitable[None]]
#: Called with a game's id, a notice frame for its connections and the connection not to send it
#: to (a key the publishing process chose), if any.
OnNotice = Callable[[str, dict[str, Any], str | None], Awaitable[None]]
#: Called after the bus missed messages (its connection dropped): catch up every game held.
OnResync = Callable[[], Awaitable[None]]

#: Seconds without a notification after which the listening connection is checked (a dead
#: connection is found within this time), and the first wait before reconnecting.
HEARTBEAT_SECONDS = 5.0
#: The listening connection's ``application_name`` (how an operator, or a test, finds it).
BUS_NAME = "clash-bus"
RECONNECT_SECONDS = 0.5


class ChangeBus(Protocol):
    async def start(self, on_change: OnChange, on_notice: OnNotice, on_resync: OnResync) -> None: ...

    async def publish_notice(self, game_id: str, frame: dict[str, Any], skip: str | None) -> None: ...

    async def stop(self) -> None: ...


class LocalBus:
    """One process (SQLite): notices are delivered here at once; nobody else writes its games."""

    def __init__(self) -> None:
        self._on_notice: OnNotice | None = None

    async def start(self, on_change: OnChange, on_notice: OnNotice, on_resync: OnResync) -> None:
        self._on_notice = on_notice

    async def publish_notice(self, game_id: str, frame: dict[str, Any], skip: str | None) -> None:
        if self._on_notice is not None:
            await self._on_notice(game_id, frame, skip)

    async def stop(self) -> None:
        self._on_notice = None


class PostgresBus:
    """LISTEN/NOTIFY on the store's PostgreSQL database.  A notice is sent with NOTIFY through the
    store (``run_db``) and reaches this process too, through its own LISTEN: one path for all."""

    def __init__(self, dsn: str, run_db: Callable[[Callable[[Store], None]], Awaitable[None]]) -> None:
        self.dsn = dsn
        self.run_db = run_db
        self.task: asyncio.Task[None] | None = None
        self.listening = asyncio.Event()
        #: How many times the listening connection was (re)opened (the tests read it).
        self.connects = 0

    async def start(self, on_change: OnChange, on_notice: OnNotice, on_resync: OnResync) -> None:
        self.task = asyncio.create_task(self._listen(on_change, on_notice, on_resync))
        # Listening before the first request is served: a change made right after is not missed.
        waiter = asyncio.create_task(self.listening.wait())
        await asyncio.wait({waiter, self.task}, timeout=30, return_when=asyncio.FIRST_COMPLETED)
        waiter.cancel()

    async def publish_notice(self, game_id: str, frame: dict[str, Any], skip: str | None) -> None:
        await self.run_db(lambda s: s.announce_notice(game_id, frame, skip))

    async def stop(self) -> None:
        if self.task is not None:
            self.task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self.task

    async def _listen(self, on_change: OnChange, on_notice: OnNotice, on_resync: OnResync) -> None:
        import psycopg

        wait = RECONNECT_SECONDS
        while True:
            try:
                connect = psycopg.AsyncConnection.connect(
                    self.dsn, autocommit=True, application_name=BUS_NAME
                )
                async with await connect as conn:
                    await conn.execute(f"LISTEN {CHANGES_CHANNEL}")
                    self.connects += 1
                    self.listening.set()
                    wait = RECONNECT_SECONDS
                    if self.connects > 1:
                        await on_resync()  # what was sent while nobody listened is lost: read the store
                    await self._receive(conn, on_change, on_notice)
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # the database went away: listen again once it is back
                log.warning("the change bus lost its connection (%s); reconnecting", exc)
            await asyncio.sleep(wait)
            wait = min(wait * 2, HEARTBEAT_SECONDS)

    async def _receive(self, conn: Any, on_change: OnChange, on_notice: OnNotice) -> None:
        while True:
            async for note in conn.notifies(timeout=HEARTBEAT_SECONDS):
                await _dispatch(note.payload, on_change, on_notice)
            await conn.execute("SELECT 1")  # quiet for a while: is the connection still there?


async def _dispatch(payload: str, on_change: OnChange, on_notice: OnNotice) -> None:
    try:
        message = json.loads(payload)
        game_id = str(message["game"])
        if "notice" in message:
            skip = message.get("skip")
            await on_notice(game_id, dict(message["notice"]), None if skip is None else str(skip))
        else:
            await on_change(game_id, int(message["revision"]))
    except (ValueError, KeyError, TypeError):
        log.warning("ignored a malformed change message: %.200s", payload)
    except Exception:  # one game's failed catch-up must not stop the bus
        log.exception("handling a change message failed: %.200s", payload)


def listen_dsn(store: Store) -> str:
    """The store's database as a libpq connection string (psycopg's, without SQLAlchemy's driver)."""
    url = store.engine.url.set(drivername="postgresql")
    return url.render_as_string(hide_password=False)


def bus_for(store: Store, run_db: Callable[[Callable[[Store], None]], Awaitable[None]]) -> ChangeBus:
    if store.engine.dialect.name == "postgresql":
        return PostgresBus(listen_dsn(store), run_db)
    return LocalBus()
