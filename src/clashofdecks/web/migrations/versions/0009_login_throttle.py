"""Login delays shared by every server process, and when a session was last used (sessions expire
unused: docs/web.md, "Identities and accounts").

Revision ID: 0009_login_throttle
Revises: 0008_handover
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0009_login_throttle"
down_revision = "0008_handover"


def upgrade() -> None:
    op.create_table(
        "login_throttle",
        sa.Column("key", sa.String(120), primary_key=True),
        sa.Column("failures", sa.Integer, nullable=False),
        sa.Column("next_at", sa.Float, nullable=False),
        sa.Column("updated_at", sa.Float, nullable=False),
    )
    with op.batch_alter_table("sessions") as batch:
        batch.add_column(sa.Column("used_at", sa.Float, nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("sessions") as batch:
        batch.drop_column("used_at")
    op.drop_table("login_throttle")
