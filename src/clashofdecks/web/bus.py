"""The change bus: how one server process learns what another one did to a game it holds.

Two kinds of message travel on it, both small (NOTIFY refuses payloads of 8,000 bytes and more):

* a **change** -- ``{"game": id, "revision": n}``: the game was written (an action, an undo, its end,
  a seat claimed...) and is now at revision ``n``.  When the write was actions alone, the message
  carries them too -- ``"index": i, "actions": [[seat, text], ...]``, appended at index ``i`` -- so a
  copy at revision ``n - 1`` applies them without reading the store (:class:`Change`).  On
  PostgreSQL the store sends it with ``pg_notify`` inside the transaction of the write
  (:meth:`Store.bump_revision`), so it is delivered exactly when the write commits, and never for a
  write rolled back.  Any client of the database may NOTIFY on the channel: a message that is not
  one of these is logged and ignored.
* a **notice** -- ``{"game": id, "notice": frame}``: a ``notice`` frame (``joined``,
  ``opponent_away``...) for every connection of the game, whichever process holds it.
* a **sign-out** -- ``{"signout": identity}``: sessions of the identity ended (web/signouts.py); each
  process closes its sockets of the identity whose session is gone (``on_signout``).

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
from dataclasses import dataclass
from typing import Any, Protocol, TypeGuard

from .store import CHANGES_CHANNEL, Store

log = logging.getLogger("clashofdecks.web")


@dataclass(frozen=True)
class Change:
    """A game's new revision, and the actions that made it when they alone did (``index``: where they
    were appended; None: another kind of change, or one whose actions did not fit the message)."""

    revision: int
    index: int | None = None
    actions: tuple[tuple[int, str], ...] = ()


#: Called with a game's id and its change (one another process may have made).
OnChange = Callable[[str, Change], Awaitable[None]]
#: Called with a game's id, a notice frame for its connections and the connection not to send it
#: to (a key the publishing process chose), if any.
OnNotice = Callable[[str, dict[str, Any], str | None], Awaitable[None]]
#: Called after the bus missed messages (its connection dropped): catch up every game held.
OnResync = Callable[[], Awaitable[None]]
#: Called with an identity whose sessions ended (web/signouts.py).
OnSignout = Callable[[str], Awaitable[None]]

#: Seconds without a notification after which the listening connection is checked (a dead
#: connection is found within this time), and the first wait before reconnecting.
HEARTBEAT_SECONDS = 5.0
#: The listening connection's ``application_name`` (how an operator, or a test, finds it).
BUS_NAME = "clash-bus"
RECONNECT_SECONDS = 0.5


class ChangeBus(Protocol):
    #: Whether other processes write the games too (else a copy in memory is the store's state).
    shared: bool
    #: Told of sign-outs as they commit (PostgreSQL); the ``signouts`` table is read besides.
    on_signout: OnSignout | None

    async def start(self, on_change: OnChange, on_notice: OnNotice, on_resync: OnResync) -> None: ...

    async def publish_notice(self, game_id: str, frame: dict[str, Any], skip: str | None) -> None: ...

    async def stop(self) -> None: ...


class LocalBus:
    """One process (SQLite): notices are delivered here at once; nobody else writes its games."""

    shared = False

    def __init__(self) -> None:
        self._on_notice: OnNotice | None = None
        #: Unused: one process, which closes its own sockets at a sign-out.
        self.on_signout: OnSignout | None = None

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

    shared = True

    def __init__(self, dsn: str, run_db: Callable[[Callable[[Store], None]], Awaitable[None]]) -> None:
        self.dsn = dsn
        self.run_db = run_db
        self.task: asyncio.Task[None] | None = None
        self.listening = asyncio.Event()
        self.on_signout: OnSignout | None = None
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
                await _dispatch(note.payload, on_change, on_notice, self.on_signout)
            await conn.execute("SELECT 1")  # quiet for a while: is the connection still there?


#: The key of a sign-out's message (web/signouts.py's ``MESSAGE_KEY``).
SIGNOUT_KEY = "signout"

#: The frame types a notice may be (``LiveGame.notify``'s).
NOTICE_TYPES = ("notice", "rematch", "presence")


class MalformedMessage(ValueError):
    """A message on the channel that is not one this app sends."""


def parse_change(message: dict[str, Any]) -> Change:
    """The change a message announces; :class:`MalformedMessage` unless every field has its type."""
    revision = message.get("revision")
    if not _is_int(revision) or revision < 0:
        raise MalformedMessage("no revision")
    if "index" not in message and "actions" not in message:
        return Change(revision)
    index, actions = message.get("index"), message.get("actions")
    if not _is_int(index) or index < 0 or not isinstance(actions, list) or not actions:
        raise MalformedMessage("bad index or actions")
    parsed: list[tuple[int, str]] = []
    for item in actions:
        if not (isinstance(item, list) and len(item) == 2 and _is_int(item[0]) and isinstance(item[1], str)):
            raise MalformedMessage("bad action")
        parsed.append((item[0], item[1]))
    return Change(revision, index, tuple(parsed))


def _is_int(value: object) -> TypeGuard[int]:
    return isinstance(value, int) and not isinstance(value, bool)


async def _dispatch(
    payload: str, on_change: OnChange, on_notice: OnNotice, on_signout: OnSignout | None = None
) -> None:
    try:
        message = json.loads(payload)
        if isinstance(message, dict) and SIGNOUT_KEY in message:
            identity = message[SIGNOUT_KEY]
            if not isinstance(identity, str):
                raise MalformedMessage("bad signout")
            if on_signout is not None:
                await on_signout(identity)
            return
        if not isinstance(message, dict) or not isinstance(message.get("game"), str):
            raise MalformedMessage("no game")
        game_id = message["game"]
        if "notice" in message:
            skip = message.get("skip")
            frame = message["notice"]
            # Only the frames LiveGame.notify sends: a stranger's NOTIFY must not reach the pages as a state.
            if not isinstance(frame, dict) or frame.get("type") not in NOTICE_TYPES:
                raise MalformedMessage("bad notice")
            if not (skip is None or isinstance(skip, str)):
                raise MalformedMessage("bad skip")
            await on_notice(game_id, frame, skip)
        else:
            await on_change(game_id, parse_change(message))
    except (ValueError, RecursionError):  # MalformedMessage, json's errors, absurd nesting
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
