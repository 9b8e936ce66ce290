"""Work done exactly once by several server processes on one database (docs/web.md, "Leases").

A lease is a row ``(name, holder, expires)``: the process whose id is ``holder`` does the work
called ``name`` until ``expires``.  Expiry is judged by the DATABASE's clock (PostgreSQL's
``clock_timestamp()``, SQLite's own ``julianday('now')``), never one process's clock against
another's, and taking a lease is one atomic statement (``INSERT … ON CONFLICT DO UPDATE … WHERE
expired OR mine``), so two processes asking at once get one yes.  A holder renews its lease while it
works; when it dies the lease expires and another process takes the work over.

The leases of this module's users:

- ``agent:<game>``: the pending agent decision of a game (``store.agent_turns`` says which games
  wait for one: written in the transaction of the action that made it the agent's turn);
- ``clocks``, ``abandonment``, ``queue``: the scans of the game clocks, of absent duel players and
  the queue's pairings, each done by one process at a time;
- ``tournaments``: the tournament director's pairing and scoring (web/tournament_director.py);
- ``analysis:<game>``: the analysis of a finished game, computed by one process (kept by
  ``store.analyses``; a process that dies while computing leaves it to the next request).

Each server start has a process id (``host:pid:random``, readable by people) and a heartbeat row in
``processes``: presence and queue entries of a process whose heartbeat stopped are another process's
to judge or drop.
"""

from __future__ import annotations

import os
import secrets
import socket
from typing import Any, Final

import sqlalchemy as sa
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.engine import Connection, Engine

from .store import agent_turns, games, metadata
from .store_core import StoreCore

leases = sa.Table(
    "leases",
    metadata,
    sa.Column("name", sa.String(80), primary_key=True),
    sa.Column("holder", sa.String(120), nullable=False),
    sa.Column("expires", sa.Float, nullable=False),  # the database's clock, seconds since the epoch
)

#: One row per running server process: its last heartbeat (the database's clock).
processes = sa.Table(
    "processes",
    metadata,
    sa.Column("id", sa.String(120), primary_key=True),
    sa.Column("started_at", sa.Float, nullable=False),
    sa.Column("seen_at", sa.Float, nullable=False),
)

#: Seconds a process's heartbeat stays valid: a process silent longer is taken for dead.
PROCESS_TTL: Final = 15.0
#: The singleton leases (one process at a time does each of these scans).
CLOCKS: Final = "clocks"
ABANDONMENT: Final = "abandonment"
QUEUE: Final = "queue"
#: The pruning of old sessions, guests and review records (web/logins.py ``prune``).
PRUNE: Final = "prune"
#: The tournament director (web/tournament_director.py): starts, pairs, scores and ends tournaments.
TOURNAMENTS: Final = "tournaments"


def new_process_id() -> str:
    """An id for this server start: random (a restarted process with the same pid is another
    process), with the host and pid for people reading the tables."""
    host = socket.gethostname()[:60]
    return f"{host}:{os.getpid()}:{secrets.token_hex(6)}"


def agent_lease(game_id: str) -> str:
    return f"agent:{game_id}"


def analysis_lease(game_id: str) -> str:
    return f"analysis:{game_id}"


def db_now(dialect: str) -> Any:
    """The database's clock as seconds since the epoch (an SQL expression)."""
    if dialect == "postgresql":
        return sa.func.extract("epoch", sa.func.clock_timestamp())
    # SQLite's own time (julianday has sub-second precision; unixepoch('subsec') needs 3.42).
    return (sa.func.julianday("now") - 2440587.5) * 86400.0


def _now(conn: Connection) -> Any:
    return db_now(conn.dialect.name)


def _upsert(conn: Connection) -> Any:
    return postgresql.insert if conn.dialect.name == "postgresql" else sqlite.insert


# ---------------------------------------------------------------------------- leases


def acquire(engine: Engine, name: str, holder: str, seconds: float) -> bool:
    """Take (or renew) the lease ``name`` for ``seconds``: True when ``holder`` has it now.  One
    statement: it inserts the lease, or takes it over when it has expired or is already ours."""
    with engine.begin() as conn:
        return acquire_in(conn, name, holder, seconds)


def acquire_alone(store: StoreCore, name: str, holder: str, seconds: float) -> bool:
    """:func:`acquire` from the server's writing thread: its one statement on the store's kept
    connection (``StoreCore.statement_alone``: one round trip on PostgreSQL, not four)."""
    with store.statement_alone() as conn:
        return acquire_in(conn, name, holder, seconds)


def acquire_in(conn: Connection, name: str, holder: str, seconds: float) -> bool:
    stmt = _ACQUIRE.get(conn.dialect.name)
    if stmt is None:
        stmt = _ACQUIRE[conn.dialect.name] = _acquire_statement(conn)
    params = {"name": name, "holder": holder, "seconds": seconds}
    return conn.execute(stmt, params).first() is not None


#: The lease upsert by dialect, built once: building it at each call cost more CPU than running it
#: (several a second on every process: docs/performance.md).
_ACQUIRE: dict[str, Any] = {}


def _acquire_statement(conn: Connection) -> Any:
    now = _now(conn)
    holder = sa.bindparam("holder", type_=sa.String)
    stmt = _upsert(conn)(leases).values(
        name=sa.bindparam("name", type_=sa.String),
        holder=holder,
        expires=now + sa.bindparam("seconds", type_=sa.Float),
    )
    stmt = stmt.on_conflict_do_update(
        index_elements=[leases.c.name],
        set_={"holder": stmt.excluded.holder, "expires": stmt.excluded.expires},
        where=sa.or_(leases.c.expires < now, leases.c.holder == holder),
    )
    # RETURNING, not rowcount: psycopg reports no row count for an upsert.
    return stmt.returning(leases.c.holder)


def renew(engine: Engine, name: str, holder: str, seconds: float) -> bool:
    """Extend a lease ``holder`` still has (False: it was lost, another process took it over)."""
    with engine.begin() as conn:
        done = conn.execute(
            leases.update()
            .where(leases.c.name == name, leases.c.holder == holder)
            .values(expires=_now(conn) + seconds)
        )
        return bool(done.rowcount == 1)


def release(engine: Engine, name: str, holder: str) -> None:
    """Give a lease up (only if ``holder`` still has it): another process may take it at once."""
    with engine.begin() as conn:
        conn.execute(leases.delete().where(leases.c.name == name, leases.c.holder == holder))


def holder_of(engine: Engine, name: str) -> str | None:
    """Who holds ``name`` now (None: nobody, or the lease expired)."""
    with engine.connect() as conn:
        return conn.execute(
            sa.select(leases.c.holder).where(leases.c.name == name, leases.c.expires >= _now(conn))
        ).scalar_one_or_none()


# ---------------------------------------------------------------------------- processes


def heartbeat(engine: Engine, process: str) -> None:
    """Say this process is alive (once a watch tick)."""
    with engine.begin() as conn:
        heartbeat_in(conn, process)


def heartbeat_alone(store: StoreCore, process: str) -> None:
    """:func:`heartbeat` from the server's writing thread: one statement on the store's kept
    connection (``StoreCore.statement_alone``)."""
    with store.statement_alone() as conn:
        heartbeat_in(conn, process)


def heartbeat_in(conn: Connection, process: str) -> None:
    now = _now(conn)
    stmt = _upsert(conn)(processes).values(id=process, started_at=now, seen_at=now)
    conn.execute(stmt.on_conflict_do_update(index_elements=[processes.c.id], set_={"seen_at": now}))


def alive_processes(conn: Connection) -> Any:
    """A subquery of the ids of processes whose heartbeat is recent."""
    return sa.select(processes.c.id).where(processes.c.seen_at >= _now(conn) - PROCESS_TTL)


def forget_dead_processes(conn: Connection) -> None:
    """Drop the heartbeat rows of processes silent for long (their work was taken over already)."""
    conn.execute(processes.delete().where(processes.c.seen_at < _now(conn) - 20 * PROCESS_TTL))


# ---------------------------------------------------------------------------- agent turns


def orphaned_agent_turns(engine: Engine, limit: int = 50) -> list[str]:
    """Active games whose agent is to move and whose agent lease nobody holds (never taken, or its
    holder died): the agent moves a watcher takes over."""
    with engine.connect() as conn:
        lease = sa.select(leases.c.name).where(
            leases.c.name == sa.literal("agent:") + agent_turns.c.game_id,
            leases.c.expires >= _now(conn),
        )
        query = (
            sa.select(agent_turns.c.game_id)
            .join(games, games.c.id == agent_turns.c.game_id)
            .where(games.c.status == "active", ~lease.exists())
            .limit(limit)
        )
        return [r.game_id for r in conn.execute(query)]


def claim_agent_turn(engine: Engine, game_id: str, idx: int, holder: str, seconds: float) -> bool:
    """Take the lease of a game's agent decision number ``idx`` (and keep the turn in
    ``agent_turns``, for a game whose agent moved first, before any action was stored): True when
    ``holder`` is to think now.  False: another process thinks, or the game is past ``idx``."""
    with engine.begin() as conn:
        stored = conn.execute(sa.select(games.c.n_actions).where(games.c.id == game_id)).scalar_one_or_none()
        if stored != idx:
            return False
        # An upsert: two processes claiming at once must not collide on the key (one gets the lease).
        turn = _upsert(conn)(agent_turns).values(game_id=game_id, idx=idx)
        conn.execute(turn.on_conflict_do_update(index_elements=[agent_turns.c.game_id], set_={"idx": idx}))
        return acquire_in(conn, agent_lease(game_id), holder, seconds)
