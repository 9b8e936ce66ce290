"""Handles an account chose once: the former handle of each, so its old address redirects and is
never given to someone else (docs/web.md, "Identities and accounts").

Revision ID: 0012_handles
Revises: 0011_identity_review
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0012_handles"
down_revision = "0011_identity_review"


def upgrade() -> None:
    op.create_table(
        "former_handles",
        sa.Column("handle", sa.String(40), primary_key=True),
        sa.Column(
            "identity_id", sa.String(32), sa.ForeignKey("identities.id", ondelete="CASCADE"), nullable=False
        ),
        sa.Column("changed_at", sa.Float, nullable=False),
    )
    op.create_index("ix_former_handles_identity", "former_handles", ["identity_id"], unique=True)


def downgrade() -> None:
    op.drop_index("ix_former_handles_identity", table_name="former_handles")
    op.drop_table("former_handles")
