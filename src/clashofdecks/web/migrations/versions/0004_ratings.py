"""Ratings of rated duels: which games are rated, one OpenSkill rating per identity and format,
and every rating change (the player page's plot).

Revision ID: 0004_ratings
Revises: 0003_analyses
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0004_ratings"
down_revision = "0003_analyses"


def upgrade() -> None:
    op.create_table(
        "rated_games",
        sa.Column("game_id", sa.String(32), sa.ForeignKey("games.id", ondelete="CASCADE"), primary_key=True),
        sa.Column("format", sa.String(16), nullable=False),
        sa.Column("agreed", sa.Boolean, nullable=False),
        sa.Column("applied_at", sa.Float, nullable=True),
    )
    op.create_table(
        "ratings",
        sa.Column(
            "identity_id", sa.String(32), sa.ForeignKey("identities.id", ondelete="CASCADE"), primary_key=True
        ),
        sa.Column("format", sa.String(16), primary_key=True),
        sa.Column("mu", sa.Float, nullable=False),
        sa.Column("sigma", sa.Float, nullable=False),
        sa.Column("games", sa.Integer, nullable=False),
        sa.Column("wins", sa.Integer, nullable=False),
        sa.Column("losses", sa.Integer, nullable=False),
        sa.Column("updated_at", sa.Float, nullable=False),
    )
    op.create_index("ix_ratings_format", "ratings", ["format", "mu"])
    op.create_table(
        "rating_history",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column(
            "identity_id", sa.String(32), sa.ForeignKey("identities.id", ondelete="CASCADE"), nullable=False
        ),
        sa.Column("format", sa.String(16), nullable=False),
        sa.Column("game_id", sa.String(32), nullable=False),
        sa.Column("rating", sa.Integer, nullable=False),
        sa.Column("at", sa.Float, nullable=False),
    )
    op.create_index("ix_rating_history_identity", "rating_history", ["identity_id", "format"])


def downgrade() -> None:
    op.drop_index("ix_rating_history_identity", "rating_history")
    op.drop_table("rating_history")
    op.drop_index("ix_ratings_format", "ratings")
    op.drop_table("ratings")
    op.drop_table("rated_games")
