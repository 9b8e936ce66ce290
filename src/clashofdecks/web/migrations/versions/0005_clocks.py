"""Clocks of clocked games (real-time and correspondence) and the solo campaign's best results.

Revision ID: 0005_clocks
Revises: 0004_ratings
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0005_clocks"
down_revision = "0004_ratings"


def upgrade() -> None:
    op.create_table(
        "clocks",
        sa.Column("game_id", sa.String(32), sa.ForeignKey("games.id", ondelete="CASCADE"), primary_key=True),
        sa.Column("control", sa.String(16), nullable=False),
        sa.Column("remaining0", sa.Float, nullable=False),
        sa.Column("remaining1", sa.Float, nullable=False),
        sa.Column("running", sa.Integer, nullable=True),
        sa.Column("deadline", sa.Float, nullable=True),
    )
    op.create_index("ix_clocks_deadline", "clocks", ["deadline"])
    op.create_table(
        "campaign",
        sa.Column(
            "identity_id",
            sa.String(32),
            sa.ForeignKey("identities.id", ondelete="CASCADE"),
            primary_key=True,
        ),
        sa.Column("level", sa.Integer, primary_key=True),
        sa.Column("best", sa.String(8), nullable=False),
        sa.Column("played", sa.Integer, nullable=False),
        sa.Column("won", sa.Integer, nullable=False),
        sa.Column("updated_at", sa.Float, nullable=False),
    )


def downgrade() -> None:
    op.drop_table("campaign")
    op.drop_index("ix_clocks_deadline", table_name="clocks")
    op.drop_table("clocks")
