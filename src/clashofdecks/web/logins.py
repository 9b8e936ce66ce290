"""Password guessing and session lifetime, in the database so every server process shares them
(docs/web.md, "Identities and accounts" and "Threats").

A login attempt is *taken* before the password is verified, as a failure, in one transaction that
locks the account's and the address's rows: guesses sent at once are counted one after the other,
so no more of them are verified than the free failures allow.  A right password then clears the
account's count.  Past the free failures each attempt waits a delay that doubles with every failure
(at most ``login_delay_max``): the owner is slowed like the guesser, never locked out for good.
"""

from __future__ import annotations

import time
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Connection, Engine

from . import reviews, signouts
from .limits import Caps
from .store_rows import IdentityRow, identity_row
from .store_tables import identities, login_throttle, seats, sessions

#: A session's ``used_at`` is written again once it is this old (not at every request).
TOUCH_EVERY = 86400.0
#: Failures forgotten after this long without an attempt.
FORGET_AFTER = 86400.0


def account_key(username: str) -> str:
    return f"account:{username}"


def address_key(address: str) -> str:
    return f"address:{address[:100]}"


def delay_after(failures: int, free: int, caps: Caps) -> float:
    """Seconds the next attempt waits after ``failures`` failures."""
    if failures < free:
        return 0.0
    return float(min(caps.login_delay * 2.0 ** min(failures - free, 40), caps.login_delay_max))


def take_attempt(engine: Engine, keys: dict[str, int], now: float, caps: Caps) -> float:
    """Take one attempt for each key (key -> its free failures), counted as a failure: 0.0 when
    taken, else the seconds to wait (and nothing is counted)."""
    with engine.begin() as conn:
        rows = {key: _locked_row(conn, key, now) for key in sorted(keys)}
        wait = float(max(row["next_at"] - now for row in rows.values()))
        if wait > 0:
            return wait
        for key, row in rows.items():
            failures = row["failures"] + 1
            conn.execute(
                login_throttle.update()
                .where(login_throttle.c.key == key)
                .values(
                    failures=failures, next_at=now + delay_after(failures, keys[key], caps), updated_at=now
                )
            )
    return 0.0


def succeeded(engine: Engine, account: str, address: str | None = None) -> None:
    """The right password: the account's failures are forgotten, and the attempt taken from the
    address is given back."""
    with engine.begin() as conn:
        conn.execute(login_throttle.delete().where(login_throttle.c.key == account))
        if address is not None:
            conn.execute(
                login_throttle.update()
                .where(login_throttle.c.key == address, login_throttle.c.failures > 0)
                .values(failures=login_throttle.c.failures - 1)
            )


def _locked_row(conn: Connection, key: str, now: float) -> dict[str, Any]:
    insert: Any
    if conn.dialect.name == "postgresql":
        from sqlalchemy.dialects.postgresql import insert
    else:
        from sqlalchemy.dialects.sqlite import insert
    conn.execute(
        insert(login_throttle)
        .values(key=key, failures=0, next_at=0.0, updated_at=now)
        .on_conflict_do_nothing(index_elements=["key"])
    )
    row = conn.execute(
        sa.select(login_throttle.c.failures, login_throttle.c.next_at, login_throttle.c.updated_at)
        .where(login_throttle.c.key == key)
        .with_for_update()
    ).one()
    if now - row.updated_at > FORGET_AFTER:
        return {"failures": 0, "next_at": 0.0}
    return {"failures": int(row.failures), "next_at": float(row.next_at)}


def live_session_identity(engine: Engine, session_hash: str, now: float, caps: Caps) -> IdentityRow | None:
    """The identity of a session used within ``session_days`` (None: unknown or expired; an expired
    session is deleted).  One statement in the common case (a socket or request per page costs
    one read: tests/web/test_cost_counters.py); ``used_at`` is moved on at most once a day."""
    query = (
        sa.select(
            identities,
            sessions.c.created_at.label("s_created"),
            sessions.c.used_at.label("s_used"),
            sessions.c.lineage.label("s_lineage"),
        )
        .join(sessions, sessions.c.identity_id == identities.c.id)
        .where(sessions.c.id_hash == session_hash, sessions.c.legacy.is_(False))
    )
    with engine.connect() as conn:
        row = conn.execute(query).first()
    if row is None:
        return None
    used = row.s_used if row.s_used is not None else row.s_created
    if caps.session_days and now - used > caps.session_days * 86400:
        with engine.begin() as conn:
            conn.execute(sessions.delete().where(sessions.c.id_hash == session_hash))
        return None
    if now - used > TOUCH_EVERY:
        with engine.begin() as conn:
            conn.execute(sessions.update().where(sessions.c.id_hash == session_hash).values(used_at=now))
    found = identity_row(row)
    found.lineage = row.s_lineage
    return found


def end_sessions(engine: Engine, identity_id: str, keep: str | None = None) -> int:
    """End every session of ``identity_id`` but ``keep`` (a session hash): signed out everywhere;
    every server process closes the sockets of those sessions (web/signouts.py)."""
    with engine.begin() as conn:
        where = [sessions.c.identity_id == identity_id]
        if keep is not None:
            where.append(sessions.c.id_hash != keep)
        ended = int(conn.execute(sessions.delete().where(*where)).rowcount or 0)
        signouts.announce(conn, identity_id, time.time())
        return ended


def end_session(engine: Engine, session_hash: str, identity_id: str) -> None:
    """A sign-out: the session ends, and its sockets close on every server process."""
    with engine.begin() as conn:
        conn.execute(sessions.delete().where(sessions.c.id_hash == session_hash))
        signouts.announce(conn, identity_id, time.time())


def prune(engine: Engine, now: float, caps: Caps) -> dict[str, int]:
    """Delete sessions unused for ``session_days``, guests left with no session and no seat (and
    made before that cutoff), login counts forgotten and review records older than ``review_days``
    (what ``clash admin prune``, each server start and the server's pruning round do)."""
    cutoff = now - caps.session_days * 86400 if caps.session_days else None
    with engine.begin() as conn:
        ended = 0
        if cutoff is not None:
            used = sa.func.coalesce(sessions.c.used_at, sessions.c.created_at)
            ended = int(conn.execute(sessions.delete().where(used < cutoff)).rowcount or 0)
        orphans = (
            sa.select(identities.c.id)
            .where(identities.c.username.is_(None))
            .where(~sa.exists().where(sessions.c.identity_id == identities.c.id))
            .where(~sa.exists().where(seats.c.owner == identities.c.id))
        )
        if cutoff is not None:
            orphans = orphans.where(identities.c.created_at < cutoff)
        ids = [r[0] for r in conn.execute(orphans).all()]
        for chunk in range(0, len(ids), 500):
            conn.execute(identities.delete().where(identities.c.id.in_(ids[chunk : chunk + 500])))
        forgotten = conn.execute(
            login_throttle.delete().where(login_throttle.c.updated_at < now - FORGET_AFTER)
        )
        signouts.prune(conn, now)
        reviewed = reviews.prune(conn, now, caps.review_days)
    return {
        "sessions": ended,
        "guests": len(ids),
        "login_counts": int(forgotten.rowcount or 0),
        "review_records": reviewed,
    }
