"""Each seat's failures with its result, so tournaments say who failed without reading replays
(issue 26, item 2): the kinds (never started, crashed, timed out, invalid) and the first non-OK
verdict. Results recorded before this revision keep NULL (their status counts still say the kinds).

Revision ID: 0003
Revises: 0002
Create Date: 2026-12-02
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0003"
down_revision: str | None = "0002"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("match_players") as batch:
        batch.add_column(sa.Column("failure", sa.JSON(none_as_null=True), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("match_players") as batch:
        batch.drop_column("failure")
