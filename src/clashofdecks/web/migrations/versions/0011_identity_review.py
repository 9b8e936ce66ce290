"""Browser lineage of sessions (play-now never pairs two identities of one browser), recovery
codes, the review records of rated games, sign-outs every process reads, and the server's
secrets (docs/web.md, "Identities and accounts" and "Rating integrity").

Revision ID: 0011_identity_review
Revises: 0010_fairplay_reports
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0011_identity_review"
down_revision = "0010_fairplay_reports"


def upgrade() -> None:
    with op.batch_alter_table("sessions") as batch:
        batch.add_column(sa.Column("lineage", sa.String(32), nullable=True))
    op.create_table(
        "browser_identities",
        sa.Column("lineage", sa.String(32), primary_key=True),
        sa.Column(
            "identity_id",
            sa.String(32),
            sa.ForeignKey("identities.id", ondelete="CASCADE"),
            primary_key=True,
        ),
        sa.Column("seen_at", sa.Float, nullable=False),
    )
    op.create_index("ix_browser_identities_identity", "browser_identities", ["identity_id"])
    op.create_table(
        "recovery_codes",
        sa.Column(
            "identity_id",
            sa.String(32),
            sa.ForeignKey("identities.id", ondelete="CASCADE"),
            primary_key=True,
        ),
        sa.Column("code_hash", sa.String(64), primary_key=True),
        sa.Column("created_at", sa.Float, nullable=False),
    )
    op.create_table(
        "reviews",
        sa.Column("game_id", sa.String(32), sa.ForeignKey("games.id", ondelete="CASCADE"), primary_key=True),
        sa.Column("seat", sa.Integer, primary_key=True),
        sa.Column("identity_id", sa.String(32), nullable=True),
        sa.Column("addresses", sa.Text, nullable=False),
        sa.Column("lineages", sa.Text, nullable=False),
        sa.Column("joins", sa.Integer, nullable=False),
        sa.Column("refused_hints", sa.Integer, nullable=False),
        sa.Column("created_at", sa.Float, nullable=False),
    )
    op.create_index("ix_reviews_created", "reviews", ["created_at"])
    op.create_table(
        "signouts",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("identity_id", sa.String(32), nullable=False),
        sa.Column("at", sa.Float, nullable=False),
    )
    op.create_table(
        "server_secrets",
        sa.Column("name", sa.String(40), primary_key=True),
        sa.Column("value", sa.String(200), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("server_secrets")
    op.drop_table("signouts")
    op.drop_index("ix_reviews_created", "reviews")
    op.drop_table("reviews")
    op.drop_table("recovery_codes")
    op.drop_index("ix_browser_identities_identity", "browser_identities")
    op.drop_table("browser_identities")
    with op.batch_alter_table("sessions") as batch:
        batch.drop_column("lineage")
