"""Rematch offers kept in the database, so the two players of a finished duel may ask through
different server processes, even at the same instant, and get one new game (docs/web.md,
"Hand-over").

A finished duel has at most one row: which seats offered a rematch and the rematch game once made.
Offering is one upsert that returns both offers as they stand after it (on PostgreSQL the row's
lock orders two offers at once: the later sees both), and the rematch is made only by the
transaction that sets ``new_game_id`` while it is still empty (a compare-and-set in the same
transaction that creates the game): two processes that both see both offers make one game.
"""

from __future__ import annotations

import sqlalchemy as sa
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.engine import Connection, Engine

from .store import metadata

rematches = sa.Table(
    "rematches",
    metadata,
    sa.Column("game_id", sa.String(32), sa.ForeignKey("games.id", ondelete="CASCADE"), primary_key=True),
    sa.Column("offer0", sa.Boolean, nullable=False),
    sa.Column("offer1", sa.Boolean, nullable=False),
    sa.Column("new_game_id", sa.String(32), nullable=True),
)

_OFFERS = (rematches.c.offer0, rematches.c.offer1)


class RematchMadeError(Exception):
    """Another request made this duel's rematch first (the caller reads it with :func:`rematch_of`)."""


def offer(engine: Engine, game_id: str, seats: set[int]) -> tuple[set[int], str | None]:
    """Record that ``seats`` ask for a rematch of ``game_id``: (the seats that have offered now,
    the rematch game if it was made already).  ``seats``: one or both (a hot-seat game)."""
    with engine.begin() as conn:
        insert = postgresql.insert if conn.dialect.name == "postgresql" else sqlite.insert
        mine = {f"offer{s}": s in seats for s in (0, 1)}
        stmt = insert(rematches).values(game_id=game_id, new_game_id=None, **mine)
        stmt = stmt.on_conflict_do_update(
            index_elements=[rematches.c.game_id],
            set_={f"offer{s}": True for s in seats},
        )
        row = conn.execute(stmt.returning(*_OFFERS, rematches.c.new_game_id)).one()
        return {s for s in (0, 1) if row[s]}, row.new_game_id


def claim(conn: Connection, new_game_id: str, *, game_id: str) -> None:
    """In the transaction that creates ``new_game_id``: make it the rematch of ``game_id``, or raise
    :class:`RematchMadeError` (and the transaction, the new game with it, rolls back)."""
    done = conn.execute(
        rematches.update()
        .where(rematches.c.game_id == game_id, rematches.c.new_game_id.is_(None))
        .values(new_game_id=new_game_id)
    )
    if done.rowcount != 1:
        raise RematchMadeError(f"the rematch of game {game_id} was made already")


def rematch_of(engine: Engine, game_id: str) -> str | None:
    with engine.connect() as conn:
        return conn.execute(
            sa.select(rematches.c.new_game_id).where(rematches.c.game_id == game_id)
        ).scalar_one_or_none()
