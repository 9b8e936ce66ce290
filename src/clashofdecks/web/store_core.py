"""The store's core: the engine, its transactions (the caller's or a new one), consistent reads,
and the change notifications of PostgreSQL (web/bus.py)."""

from __future__ import annotations

import contextlib
import select
import time
from collections.abc import Iterator
from typing import Any

import sqlalchemy as sa
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.engine import Connection, Engine

from .store_rows import CHANGES_CHANNEL, ActionWrite, change_payload

NOTIFY = sa.text("SELECT pg_notify(:channel, :payload)")

#: A server database's group-commit connection is kept between commits that follow within this many
#: seconds; after a longer pause it goes back to the pool, and the next commit takes one checked
#: before use (SQLAlchemy's ``pool_pre_ping``), so a connection the database dropped meanwhile is
#: replaced before a write, as with a pooled connection each time.
KEEP_BATCH_SECONDS = 1.0


def insert_once(conn: Connection, table: sa.Table, values: dict[str, Any]) -> bool:
    """Insert one row unless a row holding its key (or another unique column) is there: True when it
    was inserted; False, with nothing written and the transaction still usable, when another writer
    stored one first.  The database decides (``ON CONFLICT DO NOTHING``), so two writers at once never
    both insert, and no key clash is raised to be caught (other constraints still raise)."""
    insert = postgresql.insert if conn.dialect.name == "postgresql" else sqlite.insert
    # The row's key comes back only when it was inserted (psycopg's rowcount does not say, -1).
    statement = insert(table).values(**values).on_conflict_do_nothing()
    return conn.execute(statement.returning(*table.primary_key.columns)).first() is not None


class StoreCore:
    """Synchronous storage; the server calls it from one worker thread per store."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        #: The group commit's own connections, kept between commits (see ``batch_connection``): by
        #: whether it is in autocommit (a lone action's one statement), with when it was last taken
        #: (time.monotonic()).
        self._kept: dict[bool, tuple[Connection, float]] = {}

    def batch_connection(self, *, autocommit: bool = False) -> contextlib.AbstractContextManager[Connection]:
        """A connection for one group commit, to be used in a ``with`` and begun by the caller: the
        same one as the last commit's (its commits come from the one writing thread, one after the
        other).  Taking one from the pool costs about as much as the commit itself on SQLite; on a
        server database it is a round trip more (the check before use) and a third of a lone
        action's client CPU (human-paced games commit their actions one by one: docs/performance.md).
        There it is kept only while commits follow within ``KEEP_BATCH_SECONDS``.  A connection lost
        (invalidated by its error, or ended by the server while kept) is replaced at the next commit.

        ``autocommit``: a connection of its own whose statements each commit alone (no BEGIN and no
        COMMIT sent: a lone action's write is one round trip, ``GameStore.append_alone``); set
        once when it is taken from the pool (the pool resets it when it goes back)."""
        now = time.monotonic()
        conn, used_at = self._kept.pop(autocommit, (None, 0.0))
        if conn is not None and not conn.closed and not conn.invalidated and _told_something(conn):
            conn.invalidate()  # the server ended it while it was kept (a restart, a terminated backend)
        stale = self.engine.dialect.name != "sqlite" and now - used_at > KEEP_BATCH_SECONDS
        if conn is not None and (conn.closed or conn.invalidated or stale):
            conn.close()  # back to the pool (a stale one is checked there before its next use)
            conn = None
        if conn is None:
            conn = self.engine.connect()
            if autocommit:
                conn = conn.execution_options(isolation_level="AUTOCOMMIT")
        self._kept[autocommit] = (conn, now)
        return contextlib.nullcontext(conn)

    @contextlib.contextmanager
    def statement_alone(self) -> Iterator[Connection]:
        """A connection for writes of one statement each, from the writing thread: on a server
        database the kept autocommit connection (``batch_connection``), so the statement is one
        round trip with no pool checkout, no check, BEGIN nor COMMIT (the watcher's heartbeat and
        lease upserts, several a second: docs/performance.md); on SQLite a new transaction, as
        before (its group commit runs on the event loop, not in the writing thread)."""
        if self.engine.dialect.name == "sqlite":
            with self.engine.begin() as conn:
                yield conn
            return
        with self.batch_connection(autocommit=True) as conn, conn.begin():
            yield conn

    @contextlib.contextmanager
    def _begin(self, conn: Connection | None) -> Iterator[Connection]:
        """The caller's transaction (a batch), or a new one committed at the end."""
        if conn is not None:
            yield conn
            return
        with self.engine.begin() as new:
            yield new

    @contextlib.contextmanager
    def _snapshot(self) -> Iterator[Connection]:
        """A read-only connection whose reads all see one moment of the database (PostgreSQL's
        REPEATABLE READ; SQLite's read transaction does so already)."""
        with self.engine.connect() as conn:
            if conn.dialect.name == "postgresql":
                conn = conn.execution_options(isolation_level="REPEATABLE READ")
            yield conn

    def _announce(self, conn: Connection, changes: list[tuple[str, int, ActionWrite | None]]) -> None:
        """On PostgreSQL, NOTIFY the other server processes of these changes (game, new revision, the
        action that alone made it: :func:`change_payload`): delivered when the transaction commits,
        never for one rolled back."""
        if changes and conn.dialect.name == "postgresql":
            payloads = [change_payload(*change) for change in changes]
            conn.execute(NOTIFY, [{"channel": CHANGES_CHANNEL, "payload": p} for p in payloads])

    def close(self) -> None:
        for conn, _used_at in self._kept.values():
            conn.close()
        self._kept.clear()
        self.engine.dispose()


def _told_something(conn: Connection) -> bool:
    """Whether a server database sent anything to this idle connection: between transactions it
    says nothing unless it is closing the connection (the group commit's connection listens to no
    channel), so a readable socket means a connection lost.  A poll of the socket, no round trip.
    Always False on SQLite."""
    if conn.dialect.name == "sqlite":
        return False
    raw: Any = conn.connection.dbapi_connection
    if raw is None or raw.closed:
        return True
    # poll, not select: a server holding thousands of sockets gives this connection a descriptor
    # above select's limit (1,024).
    poller = select.poll()
    poller.register(raw.fileno(), select.POLLIN | select.POLLPRI)
    return bool(poller.poll(0))


#: Hot statements compiled for SQLite once: (SQL text, the parameters' names in order, the values
#: of the statement's own constants), by the statement object (module-level, built once).
_SQLITE_TEXTS: dict[int, tuple[str, tuple[str, ...], dict[str, Any]]] = {}


def execute_compiled(conn: Connection, stmt: Any, rows: list[dict[str, Any]]) -> sa.CursorResult[Any]:
    """``conn.execute(stmt, rows)`` for a statement built once at import (the group commit's):
    on SQLite its text is compiled once and its rows go to the driver as tuples, skipping
    SQLAlchemy's per-row parameter processing and its compiled cache (about half of the group
    commit's CPU, by py-spy: docs/performance.md).  Still one statement for the
    ``before_cursor_execute`` counter.  Only for parameters that need no type processing (ints,
    floats, strings).  Other databases: through SQLAlchemy, unchanged (it batches psycopg's
    INSERTs into one statement)."""
    if conn.dialect.name != "sqlite":
        return conn.execute(stmt, rows)
    compiled = _SQLITE_TEXTS.get(id(stmt))
    if compiled is None:
        c = stmt.compile(dialect=conn.dialect)
        assert c.positiontup is not None  # SQLite's parameters are positional (qmark)
        constants = {name: bind.value for name, bind in c.binds.items() if not bind.required}
        compiled = _SQLITE_TEXTS[id(stmt)] = (str(c), tuple(c.positiontup), constants)
    text, names, constants = compiled
    params = [tuple(row[n] if n in row else constants[n] for n in names) for row in rows]
    return conn.exec_driver_sql(text, params)
