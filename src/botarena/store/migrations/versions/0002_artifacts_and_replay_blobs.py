"""Bots as content-addressed artifacts, and replays kept in the database (issue 18).

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-26
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0002"
down_revision: str | None = "0001"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "artifacts",
        sa.Column("digest", sa.String(length=64), nullable=False),
        sa.Column("size", sa.BigInteger(), nullable=False),
        sa.Column("data", sa.LargeBinary(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("digest", name=op.f("pk_artifacts")),
    )
    op.create_table(
        "replay_blobs",
        sa.Column("digest", sa.String(length=64), nullable=False),
        sa.Column("size", sa.BigInteger(), nullable=False),
        sa.Column("data", sa.LargeBinary(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("digest", name=op.f("pk_replay_blobs")),
    )
    with op.batch_alter_table("bot_versions") as batch:
        batch.add_column(sa.Column("artifact", sa.String(length=64), nullable=True))
        batch.add_column(sa.Column("run_spec", sa.Text(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("bot_versions") as batch:
        batch.drop_column("run_spec")
        batch.drop_column("artifact")
    op.drop_table("replay_blobs")
    op.drop_table("artifacts")
