"""Hints in an unrated duel between two people: given only if both players agreed when it was
created (docs/web.md, "Fair play in rated games").  The creator offers them (``POST /api/games``
``"hints": true``); the invitee agrees when taking the seat (``hello`` ``"hints": true``).  A row
exists for each duel whose creator offered them; ``agreed`` once the invitee accepted too.
Migration 0010_fairplay_reports."""

from __future__ import annotations

import sqlalchemy as sa
from sqlalchemy.engine import Connection, Engine

from .store import metadata

hint_terms = sa.Table(
    "hint_terms",
    metadata,
    sa.Column("game_id", sa.String(32), sa.ForeignKey("games.id", ondelete="CASCADE"), primary_key=True),
    sa.Column("agreed", sa.Boolean, nullable=False),
)


def offer(engine: Engine, game_id: str) -> None:
    with engine.begin() as conn:
        conn.execute(hint_terms.insert().values(game_id=game_id, agreed=False))


def answer(conn: Connection, game_id: str, agreed: bool) -> None:
    """The invitee's answer, once (a duel whose creator offered no hints has no row: unchanged)."""
    conn.execute(hint_terms.update().where(hint_terms.c.game_id == game_id).values(agreed=agreed))


def agreed(engine: Engine, game_id: str) -> bool:
    """Whether both players of this duel agreed to hints."""
    with engine.connect() as conn:
        value = conn.execute(sa.select(hint_terms.c.agreed).where(hint_terms.c.game_id == game_id)).scalar()
    return value is True
