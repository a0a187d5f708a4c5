"""The arena's reads that scale (specs/arena.md, G5): W/D/L and pair counters updated where rated
results are recorded, so the leaderboard and `/pairs` never read the history (the version in each
seat, `match_versions`, is 0004's). What 0004 already holds is counted here once.

Revision ID: 0005
Revises: 0004
Create Date: 2026-12-03
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0005"
down_revision: str | None = "0004"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_COUNTS = ("games", "wins", "draws", "losses")


def _fk(table: str, column: str, target: str) -> sa.ForeignKeyConstraint:
    referred = target.split(".")[0]
    return sa.ForeignKeyConstraint(
        [column], [target], name=op.f(f"fk_{table}_{column}_{referred}"), ondelete="CASCADE"
    )


def _counters() -> list[sa.Column[int]]:
    return [sa.Column(name, sa.Integer(), nullable=False) for name in _COUNTS]


def upgrade() -> None:
    op.create_table(
        "version_records",
        sa.Column("version_id", sa.Integer(), nullable=False),
        *_counters(),
        _fk("version_records", "version_id", "versions.id"),
        sa.PrimaryKeyConstraint("version_id", name=op.f("pk_version_records")),
    )
    op.create_table(
        "pair_records",
        sa.Column("team_id", sa.Integer(), nullable=False),
        sa.Column("opponent_id", sa.Integer(), nullable=False),
        *_counters(),
        _fk("pair_records", "team_id", "teams.id"),
        _fk("pair_records", "opponent_id", "teams.id"),
        sa.PrimaryKeyConstraint("team_id", "opponent_id", name=op.f("pk_pair_records")),
    )
    _backfill()


def _backfill() -> None:
    """Count the rated results recorded before this revision (none on a new store)."""
    # (the store's own function, on this migration's connection: the tables are as 0005 made them)
    from botarena.store.arena_reads import rebuild_records

    conn = op.get_bind()
    for (competition_id,) in conn.execute(sa.text("SELECT id FROM competitions")).all():
        rebuild_records(conn, competition_id)


def downgrade() -> None:
    op.drop_table("pair_records")
    op.drop_table("version_records")
