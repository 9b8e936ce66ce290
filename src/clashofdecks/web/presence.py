"""Which seats have a player connected, across every server process (the abandonment rule of
unclocked friend duels, docs/web.md "Leases").

Each process keeps one row per (process, game, seat) it has had connections for, with how many it
holds now; a seat is present when some process that is alive (its heartbeat is recent,
``leases.processes``) holds a connection for it.  A seat with rows but no live connection has been
joined and is away: the process holding the ``abandonment`` lease judges it.  Seats never joined
have no row (an invite not opened is not an abandonment).

An away seat's countdown is a row of ``abandonment`` (game, seat, since: the database's clock),
written once by the holder that first sees the seat away on its move and read by every holder
after it: a process that takes the lease over continues the countdown, never restarts it.  A
connection of the seat on any process deletes the row (the countdown is cancelled).
"""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.engine import Connection, Engine

from .leases import alive_processes, db_now
from .store import clocks, games, metadata
from .store_core import execute_compiled

presence = sa.Table(
    "presence",
    metadata,
    sa.Column("process_id", sa.String(120), primary_key=True),
    sa.Column("game_id", sa.String(32), sa.ForeignKey("games.id", ondelete="CASCADE"), primary_key=True),
    sa.Column("seat", sa.Integer, primary_key=True),
    sa.Column("connections", sa.Integer, nullable=False),
    sa.Column("changed_at", sa.Float, nullable=False),  # the database's clock
)

#: The abandonment countdown of an away seat: running since ``since`` (the database's clock).
countdowns = sa.Table(
    "abandonment",
    metadata,
    sa.Column("game_id", sa.String(32), sa.ForeignKey("games.id", ondelete="CASCADE"), primary_key=True),
    sa.Column("seat", sa.Integer, primary_key=True),
    sa.Column("since", sa.Float, nullable=False),
)


def _presence_statements(dialect: str) -> tuple[Any, Any, Any]:
    """The presence write's three statements for ``dialect``, built once (SQLAlchemy then finds
    each compiled in its cache at once: a presence write comes with every page that opens or
    closes a game)."""
    now = db_now(dialect)
    key = (
        presence.c.process_id == sa.bindparam("p"),
        presence.c.game_id == sa.bindparam("g"),
        presence.c.seat == sa.bindparam("s"),
    )
    update = presence.update().where(*key).values(connections=sa.bindparam("n"), changed_at=now)
    insert = presence.insert().values(
        process_id=sa.bindparam("p"),
        game_id=sa.bindparam("g"),
        seat=sa.bindparam("s"),
        connections=sa.bindparam("n"),
        changed_at=now,
    )
    cancel = countdowns.delete().where(
        countdowns.c.game_id == sa.bindparam("g"), countdowns.c.seat == sa.bindparam("s")
    )
    return update, insert, cancel


_PRESENCE_STATEMENTS = {dialect: _presence_statements(dialect) for dialect in ("postgresql", "sqlite")}


def set_presence(conn: Connection, process: str, game_id: str, seat: int, connections: int) -> None:
    """This process now holds ``connections`` connections of ``seat`` (a write of the group commit)."""
    update, insert, cancel = _PRESENCE_STATEMENTS[conn.dialect.name]
    params = {"p": process, "g": game_id, "s": seat, "n": connections}
    if execute_compiled(conn, update, [params]).rowcount == 0:
        execute_compiled(conn, insert, [params])
    if connections > 0:  # the seat's player is here: a countdown of its absence ends
        execute_compiled(conn, cancel, [{"g": game_id, "s": seat}])


def start_countdown(engine: Engine, game_id: str, seat: int) -> bool:
    """Start the abandonment countdown of an away seat now (the database's clock) unless one runs
    already (another holder started it): True when it started here."""
    with engine.begin() as conn:
        insert = postgresql.insert if conn.dialect.name == "postgresql" else sqlite.insert
        stmt = insert(countdowns).values(game_id=game_id, seat=seat, since=db_now(conn.dialect.name))
        return conn.execute(stmt.on_conflict_do_nothing().returning(countdowns.c.since)).first() is not None


def running_countdowns(engine: Engine) -> dict[tuple[str, int], float]:
    """The seconds each running countdown has run, by (game, seat), judged by the database's clock
    (one read a scan: a holder taking over continues from these)."""
    with engine.connect() as conn:
        elapsed = db_now(conn.dialect.name) - countdowns.c.since
        rows = conn.execute(sa.select(countdowns.c.game_id, countdowns.c.seat, elapsed.label("elapsed")))
        return {(r.game_id, int(r.seat)): float(r.elapsed) for r in rows}


def cancel_countdown(conn: Connection, game_id: str, seat: int) -> None:
    """The seat is back, or no longer to move: its countdown (if any) is over."""
    conn.execute(countdowns.delete().where(countdowns.c.game_id == game_id, countdowns.c.seat == seat))


def away_seats(engine: Engine, limit: int = 200) -> list[tuple[str, int]]:
    """(game, seat) of active unclocked friend duels whose seat was joined once and has no
    connection on any live process now: the abandonment candidates (the caller checks whose turn
    it is; in a clocked game the clock alone decides)."""
    with engine.connect() as conn:
        alive = alive_processes(conn)
        clocked = sa.select(clocks.c.game_id).where(clocks.c.game_id == presence.c.game_id)
        held = sa.func.sum(
            sa.case(
                (sa.and_(presence.c.process_id.in_(alive), presence.c.connections > 0), 1),
                else_=0,
            )
        )
        query = (
            sa.select(presence.c.game_id, presence.c.seat)
            .join(games, games.c.id == presence.c.game_id)
            .where(games.c.status == "active", games.c.kind == "friend", ~clocked.exists())
            .group_by(presence.c.game_id, presence.c.seat)
            .having(held == 0)
            .limit(limit)
        )
        return [(r.game_id, int(r.seat)) for r in conn.execute(query)]


def seat_present(engine: Engine, game_id: str, seat: int) -> bool:
    """Whether some live process holds a connection of ``seat`` now."""
    with engine.connect() as conn:
        row = conn.execute(
            sa.select(presence.c.seat).where(
                presence.c.game_id == game_id,
                presence.c.seat == seat,
                presence.c.connections > 0,
                presence.c.process_id.in_(alive_processes(conn)),
            )
        ).first()
        return row is not None


def connected_seats(engine: Engine, game_id: str) -> list[int]:
    """The seats of ``game_id`` some live process holds a connection of now (any process's page
    counts: every process answers the same)."""
    with engine.connect() as conn:
        rows = conn.execute(
            sa.select(presence.c.seat)
            .where(
                presence.c.game_id == game_id,
                presence.c.connections > 0,
                presence.c.process_id.in_(alive_processes(conn)),
            )
            .distinct()
        )
        return sorted(int(r.seat) for r in rows)


def forget_returned(conn: Connection) -> None:
    """Drop the countdowns of seats that have a connection on a live process now (a scan that read
    the seat away just before it came back may have started one)."""
    here = sa.select(presence.c.seat).where(
        presence.c.game_id == countdowns.c.game_id,
        presence.c.seat == countdowns.c.seat,
        presence.c.connections > 0,
        presence.c.process_id.in_(alive_processes(conn)),
    )
    conn.execute(countdowns.delete().where(here.exists()))


def forget_finished(conn: Connection) -> None:
    """Drop the presence and countdowns of games that are over (nothing to judge there any more)."""
    # Correlated EXISTS: looks up the (few) games with presence rows, not every finished game.
    over = sa.select(games.c.id).where(games.c.id == presence.c.game_id, games.c.status != "active")
    conn.execute(presence.delete().where(over.exists()))
    ended = sa.select(games.c.id).where(games.c.id == countdowns.c.game_id, games.c.status != "active")
    conn.execute(countdowns.delete().where(ended.exists()))


sa.Index("ix_presence_game", presence.c.game_id, presence.c.seat)
