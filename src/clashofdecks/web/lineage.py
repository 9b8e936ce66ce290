"""Browser lineage: which identities one browser has held (docs/web.md, "Rating integrity").

A browser gets a random lineage id in the ``clash_browser`` cookie with its first session; every
session made in it later (a sign-in, a new guest after a sign-out, an account) carries the same id,
and each identity it held is linked to it.  Play-now never pairs two identities linked to one
lineage, so one person cannot feed rating points from a second identity in the same browser.  A
browser whose cookies are cleared starts a new lineage: the review records (web/reviews.py) keep
the hashed address beside it for the operator (households share addresses: not a ban).
"""

from __future__ import annotations

import re
import secrets
from collections.abc import Iterable
from typing import Final

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from .store_core import insert_once
from .store_tables import browser_identities, sessions

LINEAGE_COOKIE: Final = "clash_browser"
#: The cookie lasts 400 days (the longest browsers keep one) and survives sign-outs.
LINEAGE_MAX_AGE: Final = 400 * 86400
_LINEAGE_RE: Final = re.compile(r"[0-9a-f]{32}")


def new_lineage() -> str:
    return secrets.token_hex(16)


def valid(value: str | None) -> str | None:
    """``value`` when it is a lineage id this server could have made, else None."""
    return value if value is not None and _LINEAGE_RE.fullmatch(value) else None


def of_session(conn: Connection, session_hash: str) -> str | None:
    return conn.execute(sa.select(sessions.c.lineage).where(sessions.c.id_hash == session_hash)).scalar()


def link(conn: Connection, lineage: str, identity_id: str, now: float) -> None:
    """Note that ``lineage`` held ``identity_id`` (once; later times move ``seen_at`` on)."""
    row = {"lineage": lineage, "identity_id": identity_id, "seen_at": now}
    if not insert_once(conn, browser_identities, row):
        conn.execute(
            browser_identities.update()
            .where(browser_identities.c.lineage == lineage, browser_identities.c.identity_id == identity_id)
            .values(seen_at=now)
        )


def kept_apart(conn: Connection, identity_ids: Iterable[str]) -> set[frozenset[str]]:
    """The pairs of ``identity_ids`` that some browser lineage has both held."""
    ids = sorted(set(identity_ids))
    if len(ids) < 2:
        return set()
    rows = conn.execute(
        sa.select(browser_identities.c.lineage, browser_identities.c.identity_id).where(
            browser_identities.c.identity_id.in_(ids)
        )
    ).all()
    held: dict[str, set[str]] = {}
    for lineage, identity in rows:
        held.setdefault(str(lineage), set()).add(str(identity))
    apart: set[frozenset[str]] = set()
    for group in held.values():
        members = sorted(group)
        for i, a in enumerate(members):
            apart.update(frozenset((a, b)) for b in members[i + 1 :])
    return apart
