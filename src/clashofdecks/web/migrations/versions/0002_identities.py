"""Identities (guests and accounts) and their sessions; seats owned by identities.

Revision ID: 0002_identities
Revises: 0001

The upgrade keeps every game and seat.  Its rule for what was stored before identities existed
(``docs/web.md``, "Upgrading"):

- each distinct ``seats.owner`` (the value of a former ``clash_player`` cookie) becomes one guest
  identity, which now owns those seats; the cookie value is kept only as the SHA-256 of a *legacy*
  session, so the browser that holds the cookie is recognised once on its next visit and given a
  new session id (the legacy one is then deleted);
- a human seat with no owner (the friend's seat of a duel, which the former release never marked)
  stays without one: the first identity that presents its token takes it, as with a new invite.
"""

from __future__ import annotations

import hashlib
import secrets
import time

import sqlalchemy as sa
from alembic import op

revision = "0002_identities"
down_revision = "0001"


def upgrade() -> None:
    op.create_table(
        "identities",
        sa.Column("id", sa.String(32), primary_key=True),
        sa.Column("handle", sa.String(40), nullable=False, unique=True),
        sa.Column("display_name", sa.String(64), nullable=False),
        sa.Column("username", sa.String(40), nullable=True, unique=True),
        sa.Column("password_hash", sa.String(200), nullable=True),
        sa.Column("created_at", sa.Float, nullable=False),
    )
    op.create_table(
        "sessions",
        sa.Column("id_hash", sa.String(64), primary_key=True),
        sa.Column(
            "identity_id", sa.String(32), sa.ForeignKey("identities.id", ondelete="CASCADE"), nullable=False
        ),
        sa.Column("legacy", sa.Boolean, nullable=False),
        sa.Column("created_at", sa.Float, nullable=False),
    )
    op.create_index("ix_sessions_identity", "sessions", ["identity_id"])

    conn = op.get_bind()
    seats = sa.table("seats", sa.column("owner", sa.String), sa.column("name", sa.String))
    identities = sa.table(
        "identities",
        sa.column("id", sa.String),
        sa.column("handle", sa.String),
        sa.column("display_name", sa.String),
        sa.column("created_at", sa.Float),
    )
    sessions = sa.table(
        "sessions",
        sa.column("id_hash", sa.String),
        sa.column("identity_id", sa.String),
        sa.column("legacy", sa.Boolean),
        sa.column("created_at", sa.Float),
    )
    now = time.time()
    owners = [
        r[0] for r in conn.execute(sa.select(seats.c.owner).where(seats.c.owner.is_not(None)).distinct())
    ]
    for cookie in owners:
        identity = secrets.token_hex(16)
        name = (
            conn.execute(sa.select(seats.c.name).where(seats.c.owner == cookie).limit(1)).scalar() or "Guest"
        )
        conn.execute(
            identities.insert().values(
                id=identity, handle="guest-" + identity[:10], display_name=name[:64], created_at=now
            )
        )
        conn.execute(
            sessions.insert().values(
                id_hash=hashlib.sha256(cookie.encode()).hexdigest(),
                identity_id=identity,
                legacy=True,
                created_at=now,
            )
        )
        conn.execute(seats.update().where(seats.c.owner == cookie).values(owner=identity))


def downgrade() -> None:
    # Back to owner cookies is impossible (only their hashes are kept): seats lose their owners.
    op.execute("UPDATE seats SET owner = NULL")
    op.drop_index("ix_sessions_identity", "sessions")
    op.drop_table("sessions")
    op.drop_table("identities")
