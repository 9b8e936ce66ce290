"""Sockets closed on every server process when their session ends (docs/web.md, "Identities and
accounts").

Ending sessions (a sign-out, a password change or reset, ``clash admin``) writes a ``signouts`` row
naming the identity in the same transaction.  On PostgreSQL that transaction also sends
``{"signout": identity}`` on the change bus's channel (web/bus.py), delivered when it commits: every
server process closes those of its sockets of the identity whose session is no longer in the
database at once.  The table is the fallback (a process whose listening connection was down) and
SQLite's way: each process reads the rows newer than the last it saw at every watch tick (one
indexed read) and does the same.  The process that ended the sessions closes its own at once.  A
socket of another device whose session lives on stays open; a stranger's NOTIFY naming an identity
closes nothing whose session lives.  The command line tools write the same rows and send the same
notification, so a server process they never talk to closes its sockets too.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Final

import sqlalchemy as sa
from sqlalchemy.engine import Connection, Engine

from .store_core import NOTIFY
from .store_rows import CHANGES_CHANNEL
from .store_tables import sessions, signouts

#: The key of a sign-out's message on the change bus's channel.
MESSAGE_KEY: Final = "signout"

#: Rows kept this long (a process down longer reads no sockets to close anyway).
KEEP_SECONDS = 86400.0


def announce(conn: Connection, identity_id: str, now: float) -> None:
    """In the transaction that ends sessions of ``identity_id``: every process will look (told at
    once on PostgreSQL, when the transaction commits)."""
    conn.execute(signouts.insert().values(identity_id=identity_id, at=now))
    if conn.dialect.name == "postgresql":
        payload = json.dumps({MESSAGE_KEY: identity_id})
        conn.execute(NOTIFY, {"channel": CHANGES_CHANNEL, "payload": payload})


def last_id(engine: Engine) -> int:
    with engine.connect() as conn:
        return int(conn.execute(sa.select(sa.func.coalesce(sa.func.max(signouts.c.id), 0))).scalar() or 0)


def since(engine: Engine, after: int) -> tuple[int, set[str]]:
    """The identities signed out after row ``after``, and the last row's id."""
    with engine.connect() as conn:
        rows = conn.execute(
            sa.select(signouts.c.id, signouts.c.identity_id)
            .where(signouts.c.id > after)
            .order_by(signouts.c.id)
        ).all()
    if not rows:
        return after, set()
    return int(rows[-1].id), {str(r.identity_id) for r in rows}


def live_sessions(engine: Engine, hashes: Iterable[str]) -> set[str]:
    """Which of the session hashes ``hashes`` still sign someone in."""
    wanted = sorted(set(hashes))
    if not wanted:
        return set()
    with engine.connect() as conn:
        rows = conn.execute(sa.select(sessions.c.id_hash).where(sessions.c.id_hash.in_(wanted)))
        return {str(r.id_hash) for r in rows}


def prune(conn: Connection, now: float) -> int:
    return int(conn.execute(signouts.delete().where(signouts.c.at < now - KEEP_SECONDS)).rowcount or 0)
