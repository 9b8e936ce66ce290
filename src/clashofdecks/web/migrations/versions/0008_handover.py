"""Work handed over between server processes: the abandonment countdowns and the rematch offers
live in the database, so the process that takes over a dead one's work continues them
(docs/web.md, "Hand-over").

Revision ID: 0008_handover
Revises: 0007_leases
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0008_handover"
down_revision = "0007_leases"


def upgrade() -> None:
    op.create_table(
        "abandonment",
        sa.Column("game_id", sa.String(32), sa.ForeignKey("games.id", ondelete="CASCADE"), primary_key=True),
        sa.Column("seat", sa.Integer, primary_key=True),
        sa.Column("since", sa.Float, nullable=False),
    )
    op.create_table(
        "rematches",
        sa.Column("game_id", sa.String(32), sa.ForeignKey("games.id", ondelete="CASCADE"), primary_key=True),
        sa.Column("offer0", sa.Boolean, nullable=False),
        sa.Column("offer1", sa.Boolean, nullable=False),
        sa.Column("new_game_id", sa.String(32), nullable=True),
    )


def downgrade() -> None:
    op.drop_table("rematches")
    op.drop_table("abandonment")
