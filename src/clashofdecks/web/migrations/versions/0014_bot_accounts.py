"""Bot accounts (docs/web.md, "Bots"): an account its owner marked as a bot before its first game,
and whether a person waiting in the queue agreed to meet bots.

Revision ID: 0014_bot_accounts
Revises: 0012_handles
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0014_bot_accounts"
down_revision = "0012_handles"


def upgrade() -> None:
    with op.batch_alter_table("identities") as batch:
        batch.add_column(sa.Column("is_bot", sa.Boolean, nullable=False, server_default=sa.false()))
        batch.add_column(sa.Column("bot_owner", sa.String(32), nullable=True))
    with op.batch_alter_table("queue_entries") as batch:
        batch.add_column(sa.Column("bots_ok", sa.Boolean, nullable=False, server_default=sa.false()))


def downgrade() -> None:
    with op.batch_alter_table("queue_entries") as batch:
        batch.drop_column("bots_ok")
    with op.batch_alter_table("identities") as batch:
        batch.drop_column("bot_owner")
        batch.drop_column("is_bot")
