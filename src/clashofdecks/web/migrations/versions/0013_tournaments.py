"""Tournaments on the server: the tournaments, their entries and their pairings (docs/tournaments.md,
"On the server").

Revision ID: 0013_tournaments
Revises: 0012_handles
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0013_tournaments"
down_revision = "0012_handles"


def upgrade() -> None:
    op.create_table(
        "tournaments",
        sa.Column("id", sa.String(32), primary_key=True),
        sa.Column("kind", sa.String(8), nullable=False),
        sa.Column("name", sa.String(64), nullable=False),
        sa.Column("format", sa.String(16), nullable=False),
        sa.Column("time_control", sa.String(16), nullable=False),
        sa.Column("starts_at", sa.Float, nullable=False),
        sa.Column("minutes", sa.Integer, nullable=True),
        sa.Column("rounds", sa.Integer, nullable=True),
        sa.Column("bots_allowed", sa.Boolean, nullable=False),
        sa.Column("created_by", sa.String(32), nullable=True),
        sa.Column("status", sa.String(10), nullable=False),
        sa.Column("round", sa.Integer, nullable=False),
        sa.Column("schedule_key", sa.String(64), nullable=True, unique=True),
        sa.Column("created_at", sa.Float, nullable=False),
        sa.Column("finished_at", sa.Float, nullable=True),
    )
    op.create_index("ix_tournaments_status", "tournaments", ["status", "starts_at"])
    op.create_table(
        "tournament_entries",
        sa.Column(
            "tournament_id",
            sa.String(32),
            sa.ForeignKey("tournaments.id", ondelete="CASCADE"),
            primary_key=True,
        ),
        sa.Column(
            "identity_id", sa.String(32), sa.ForeignKey("identities.id", ondelete="CASCADE"), primary_key=True
        ),
        sa.Column("name", sa.String(64), nullable=False),
        sa.Column("score", sa.Float, nullable=False),
        sa.Column("withdrawn", sa.Boolean, nullable=False),
        sa.Column("joined_at", sa.Float, nullable=False),
    )
    op.create_table(
        "tournament_pairings",
        sa.Column(
            "tournament_id",
            sa.String(32),
            sa.ForeignKey("tournaments.id", ondelete="CASCADE"),
            primary_key=True,
        ),
        sa.Column("round", sa.Integer, primary_key=True),
        sa.Column("player", sa.String(32), primary_key=True),
        sa.Column("opponent", sa.String(32), nullable=True),
        sa.Column("game_id", sa.String(32), nullable=True),
        sa.Column("result", sa.String(8), nullable=True),
        sa.Column("paired_at", sa.Float, nullable=False),
    )
    op.create_index("ix_tournament_pairings_game", "tournament_pairings", ["game_id"])


def downgrade() -> None:
    op.drop_index("ix_tournament_pairings_game", table_name="tournament_pairings")
    op.drop_table("tournament_pairings")
    op.drop_table("tournament_entries")
    op.drop_index("ix_tournaments_status", table_name="tournaments")
    op.drop_table("tournaments")
