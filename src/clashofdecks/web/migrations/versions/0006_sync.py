"""A revision per game, bumped by every write that changes it: several server processes on one
database detect that they are behind (docs/web.md, "Several processes").

Revision ID: 0006_sync
Revises: 0005_clocks
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0006_sync"
down_revision = "0005_clocks"


def upgrade() -> None:
    with op.batch_alter_table("games") as batch:
        batch.add_column(sa.Column("revision", sa.Integer, nullable=False, server_default="0"))


def downgrade() -> None:
    with op.batch_alter_table("games") as batch:
        batch.drop_column("revision")
