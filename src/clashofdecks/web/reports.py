"""Reports of an opponent after a game, kept with the game for the operator (docs/web.md, "Fair
play in rated games").  One report per player and game: a second one from the same player changes
nothing.  Migration 0010_fairplay_reports."""

from __future__ import annotations

import time

import sqlalchemy as sa
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.engine import Engine

from .store import metadata

#: Longest reason kept (characters); a longer one is refused.
MAX_REASON = 500

reports = sa.Table(
    "reports",
    metadata,
    sa.Column("game_id", sa.String(32), sa.ForeignKey("games.id", ondelete="CASCADE"), primary_key=True),
    sa.Column("reporter", sa.String(32), primary_key=True),  # the reporting identity's id
    sa.Column("reported", sa.String(32), nullable=False),  # the opponent's identity id
    sa.Column("reason", sa.Text, nullable=False),
    sa.Column("created_at", sa.Float, nullable=False),
)


def report(engine: Engine, game_id: str, reporter: str, reported: str, reason: str) -> bool:
    """Keep ``reporter``'s report of ``reported`` in ``game_id``; False when it had one already
    (the first stays)."""
    with engine.begin() as conn:
        insert = postgresql.insert if conn.dialect.name == "postgresql" else sqlite.insert
        row = {
            "game_id": game_id,
            "reporter": reporter,
            "reported": reported,
            "reason": reason,
            "created_at": time.time(),
        }
        done = conn.execute(insert(reports).values(**row).on_conflict_do_nothing())
        return done.rowcount == 1


def reports_of(engine: Engine, game_id: str) -> list[tuple[str, str, str]]:
    """The reports of a game: (reporter, reported, reason), oldest first (for the operator)."""
    with engine.connect() as conn:
        rows = conn.execute(
            sa.select(reports.c.reporter, reports.c.reported, reports.c.reason)
            .where(reports.c.game_id == game_id)
            .order_by(reports.c.created_at)
        )
        return [(r.reporter, r.reported, r.reason) for r in rows]
