"""Reports of an opponent after a game, for the operator, and the players' agreement to hints in
an unrated duel between two people (docs/web.md, "Fair play in rated
games").

Revision ID: 0010_fairplay_reports
Revises: 0009_login_throttle
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0010_fairplay_reports"
down_revision = "0009_login_throttle"


def upgrade() -> None:
    op.create_table(
        "reports",
        sa.Column("game_id", sa.String(32), sa.ForeignKey("games.id", ondelete="CASCADE"), primary_key=True),
        sa.Column("reporter", sa.String(32), primary_key=True),
        sa.Column("reported", sa.String(32), nullable=False),
        sa.Column("reason", sa.Text, nullable=False),
        sa.Column("created_at", sa.Float, nullable=False),
    )
    op.create_table(
        "hint_terms",
        sa.Column("game_id", sa.String(32), sa.ForeignKey("games.id", ondelete="CASCADE"), primary_key=True),
        sa.Column("agreed", sa.Boolean, nullable=False),
    )


def downgrade() -> None:
    op.drop_table("hint_terms")
    op.drop_table("reports")
