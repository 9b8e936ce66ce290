"""Public handles an account chooses (docs/web.md, "Identities and accounts"): once, unique among
the handles in use and those given up (an old ``/p/<handle>`` address keeps leading to its owner, so
it is never given to someone else), reserved words refused.  Migration 0012_handles."""

from __future__ import annotations

import re
import time
from typing import Final

import sqlalchemy as sa
from sqlalchemy.engine import Engine

from .store import metadata
from .store_tables import identities, rated_games, seats

#: A chosen handle: 3-32 of a-z, 0-9, ``_ . -``, starting with a letter or digit (as usernames).
CHOSEN_HANDLE: Final = re.compile(r"[a-z0-9][a-z0-9_.-]{2,31}")
#: Words nobody takes as a handle: they would pass for the site, its staff or its players' roles.
RESERVED: Final = frozenset(
    (
        "admin",
        "administrator",
        "root",
        "system",
        "operator",
        "moderator",
        "mod",
        "staff",
        "support",
        "help",
        "official",
        "clash",
        "clashofdecks",
        "automaton",
        "anonymous",
        "deleted",
        "guest",
        "player",
        "players",
        "api",
        "static",
        "me",
        "null",
        "undefined",
        "ai",
        "bot",
        "leaderboard",
        "account",
        "tutorial",
        "rules",
    )
)

former_handles = sa.Table(
    "former_handles",
    metadata,
    sa.Column("handle", sa.String(40), primary_key=True),
    sa.Column(
        "identity_id", sa.String(32), sa.ForeignKey("identities.id", ondelete="CASCADE"), nullable=False
    ),
    sa.Column("changed_at", sa.Float, nullable=False),
)
sa.Index("ix_former_handles_identity", former_handles.c.identity_id, unique=True)  # once per identity


class HandleRefused(ValueError):
    """A handle that cannot be chosen; ``code``: ``bad_handle``, ``handle_taken`` or ``handle_chosen``."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


def checked_handle(value: object) -> str:
    """``value`` as a handle to choose (lower case), or :class:`HandleRefused`."""
    if not isinstance(value, str) or not CHOSEN_HANDLE.fullmatch(value.strip().lower()):
        raise HandleRefused(
            "bad_handle", "a handle has 3 to 32 characters: letters a-z, digits, '_', '.', '-'"
        )
    handle = value.strip().lower()
    if handle in RESERVED or handle.startswith("guest"):
        raise HandleRefused("bad_handle", f"the handle {handle!r} is reserved")
    return handle


def choose_handle(engine: Engine, identity_id: str, value: object) -> str:
    """The identity's public handle becomes ``value``, once: its old handle is kept as a former one
    (its address redirects).  Refused, with nothing changed: a bad or reserved handle, one in use or
    given up, a second choice."""
    handle = checked_handle(value)
    with engine.begin() as conn:
        if conn.execute(
            sa.select(former_handles.c.handle).where(former_handles.c.identity_id == identity_id)
        ).first():
            raise HandleRefused("handle_chosen", "the handle has been chosen once already")
        taken = conn.execute(sa.select(identities.c.id).where(identities.c.handle == handle)).first()
        given_up = conn.execute(
            sa.select(former_handles.c.handle).where(former_handles.c.handle == handle)
        ).first()
        if taken is not None or given_up is not None:
            raise HandleRefused("handle_taken", f"the handle {handle!r} is taken")
        old = conn.execute(sa.select(identities.c.handle).where(identities.c.id == identity_id)).scalar_one()
        conn.execute(
            former_handles.insert().values(handle=old, identity_id=identity_id, changed_at=time.time())
        )
        conn.execute(identities.update().where(identities.c.id == identity_id).values(handle=handle))
    return handle


def current_handle(engine: Engine, former: str) -> str | None:
    """The handle now of the identity that gave up ``former`` (None: nobody did)."""
    with engine.connect() as conn:
        query = (
            sa.select(identities.c.handle)
            .join(former_handles, former_handles.c.identity_id == identities.c.id)
            .where(former_handles.c.handle == former)
        )
        return conn.execute(query).scalar()


def seat_handles(engine: Engine, game_id: str) -> list[str | None] | None:
    """The handle of each seat's identity in a rated game (None: a seat no identity holds yet), so
    the page shows it beside the name and nobody passes for someone else; None for a game that is
    not rated (or not agreed as rated yet)."""
    with engine.connect() as conn:
        rated = conn.execute(sa.select(rated_games.c.agreed).where(rated_games.c.game_id == game_id)).scalar()
        if rated is not True:
            return None
        rows = conn.execute(
            sa.select(seats.c.seat, identities.c.handle)
            .select_from(seats.outerjoin(identities, identities.c.id == seats.c.owner))
            .where(seats.c.game_id == game_id)
            .order_by(seats.c.seat)
        )
        return [r.handle for r in rows]
