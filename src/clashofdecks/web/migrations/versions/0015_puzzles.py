"""Puzzle ratings (players and puzzles), every finished puzzle attempt, and puzzle reports
(web/puzzle_store.py; docs/puzzles.md).

Revision ID: 0015_puzzles
Revises: 0014_bot_accounts
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0015_puzzles"
down_revision = "0014_bot_accounts"


def upgrade() -> None:
    op.create_table(
        "puzzle_ratings",
        sa.Column("kind", sa.String(8), primary_key=True),
        sa.Column("key", sa.String(32), primary_key=True),
        sa.Column("mu", sa.Float, nullable=False),
        sa.Column("sigma", sa.Float, nullable=False),
        sa.Column("attempts", sa.Integer, nullable=False),
        sa.Column("updated_at", sa.Float, nullable=False),
    )
    op.create_table(
        "puzzle_attempts",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column(
            "identity_id", sa.String(32), sa.ForeignKey("identities.id", ondelete="CASCADE"), nullable=False
        ),
        sa.Column("puzzle_id", sa.String(32), nullable=False),
        sa.Column("solved", sa.Boolean, nullable=False),
        sa.Column("moves", sa.Integer, nullable=False),
        sa.Column("rated", sa.Boolean, nullable=False),
        sa.Column("rating_before", sa.Integer, nullable=True),
        sa.Column("rating_after", sa.Integer, nullable=True),
        sa.Column("at", sa.Float, nullable=False),
    )
    op.create_index("ix_puzzle_attempts_identity", "puzzle_attempts", ["identity_id", "puzzle_id"])
    op.create_table(
        "puzzle_reports",
        sa.Column("puzzle_id", sa.String(32), primary_key=True),
        sa.Column(
            "identity_id", sa.String(32), sa.ForeignKey("identities.id", ondelete="CASCADE"), primary_key=True
        ),
        sa.Column("reason", sa.Text, nullable=False),
        sa.Column("created_at", sa.Float, nullable=False),
    )


def downgrade() -> None:
    op.drop_table("puzzle_reports")
    op.drop_index("ix_puzzle_attempts_identity", table_name="puzzle_attempts")
    op.drop_table("puzzle_attempts")
    op.drop_table("puzzle_ratings")
