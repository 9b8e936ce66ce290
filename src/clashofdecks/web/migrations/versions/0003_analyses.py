"""Analyses of finished games (``clash analyze`` run once per game by the server, kept).

Revision ID: 0003_analyses
Revises: 0002_identities
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0003_analyses"
down_revision = "0002_identities"


def upgrade() -> None:
    op.create_table(
        "analyses",
        sa.Column("game_id", sa.String(32), sa.ForeignKey("games.id", ondelete="CASCADE"), primary_key=True),
        sa.Column("status", sa.String(8), nullable=False),
        sa.Column("body", sa.Text, nullable=False),
        sa.Column("iterations", sa.Integer, nullable=False),
        sa.Column("seconds", sa.Float, nullable=False),
        sa.Column("created_at", sa.Float, nullable=False),
    )


def downgrade() -> None:
    op.drop_table("analyses")
