"""Work done once across server processes: leases, process heartbeats, the agent turns waiting for
a decision, presence per seat and process, and the "play now" queue (docs/web.md, "Leases").

Revision ID: 0007_leases
Revises: 0005_clocks (the lead chains it after 0006_sync at merge)
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0007_leases"
down_revision = "0006_sync"


def upgrade() -> None:
    op.create_table(
        "leases",
        sa.Column("name", sa.String(80), primary_key=True),
        sa.Column("holder", sa.String(120), nullable=False),
        sa.Column("expires", sa.Float, nullable=False),
    )
    op.create_table(
        "processes",
        sa.Column("id", sa.String(120), primary_key=True),
        sa.Column("started_at", sa.Float, nullable=False),
        sa.Column("seen_at", sa.Float, nullable=False),
    )
    op.create_table(
        "agent_turns",
        sa.Column("game_id", sa.String(32), sa.ForeignKey("games.id", ondelete="CASCADE"), primary_key=True),
        sa.Column("idx", sa.Integer, nullable=False),
    )
    op.create_table(
        "presence",
        sa.Column("process_id", sa.String(120), primary_key=True),
        sa.Column("game_id", sa.String(32), sa.ForeignKey("games.id", ondelete="CASCADE"), primary_key=True),
        sa.Column("seat", sa.Integer, primary_key=True),
        sa.Column("connections", sa.Integer, nullable=False),
        sa.Column("changed_at", sa.Float, nullable=False),
    )
    op.create_index("ix_presence_game", "presence", ["game_id", "seat"])
    op.create_table(
        "queue_entries",
        sa.Column("identity_id", sa.String(32), primary_key=True),
        sa.Column("format", sa.String(16), nullable=False),
        sa.Column("rating", sa.Integer, nullable=False),
        sa.Column("name", sa.String(64), nullable=False),
        sa.Column("lang", sa.String(8), nullable=False),
        sa.Column("joined_at", sa.Float, nullable=False),
        sa.Column("process_id", sa.String(120), nullable=False),
        sa.Column("ai_offered", sa.Boolean, nullable=False),
        sa.Column("game_id", sa.String(32), nullable=True),
    )
    op.create_index("ix_queue_entries_process", "queue_entries", ["process_id"])


def downgrade() -> None:
    op.drop_index("ix_queue_entries_process", table_name="queue_entries")
    op.drop_table("queue_entries")
    op.drop_index("ix_presence_game", table_name="presence")
    op.drop_table("presence")
    op.drop_table("agent_turns")
    op.drop_table("processes")
    op.drop_table("leases")
