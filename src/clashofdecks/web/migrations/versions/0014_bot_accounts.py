"""Bot accounts (docs/web.md, "Bots"): an account its owner marked as a bot before its first game,
and whether a person waiting in the queue agreed to meet bots.

Revision ID: 0014_bot_accounts
Revises: 0013_tournaments
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0014_bot_accounts"
down_revision = "0013_tournaments"


# Plain ALTER TABLE, never a batch copy: SQLite would copy ``identities`` by dropping it, and the
# drop would cascade to every session, rating and seat link of every identity.


def upgrade() -> None:
    op.add_column("identities", sa.Column("is_bot", sa.Boolean, nullable=False, server_default="0"))
    op.add_column("identities", sa.Column("bot_owner", sa.String(32), nullable=True))
    op.add_column("queue_entries", sa.Column("bots_ok", sa.Boolean, nullable=False, server_default="0"))


def downgrade() -> None:
    op.drop_column("queue_entries", "bots_ok")
    op.drop_column("identities", "bot_owner")
    op.drop_column("identities", "is_bot")
