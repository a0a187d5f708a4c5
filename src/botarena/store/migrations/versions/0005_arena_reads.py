"""The arena's reads that scale (specs/arena.md, G5): the version in each seat of an arena match (the
match list's team and version filters), and W/D/L and pair counters updated where rated results are
recorded (the leaderboard and `/pairs` without reading the history). What 0004 already holds is
linked and counted here once.

Revision ID: 0005
Revises: 0004
Create Date: 2026-12-03
"""

from __future__ import annotations

import json
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
        "match_versions",
        sa.Column("match_id", sa.Integer(), nullable=False),
        sa.Column("seat", sa.Integer(), nullable=False),
        sa.Column("version_id", sa.Integer(), nullable=False),
        _fk("match_versions", "match_id", "matches.id"),
        _fk("match_versions", "version_id", "versions.id"),
        sa.PrimaryKeyConstraint("match_id", "seat", name=op.f("pk_match_versions")),
    )
    op.create_index(op.f("ix_match_versions_version_id"), "match_versions", ["version_id"])
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
    """Link and count the arena matches recorded before this revision (none on a new store)."""
    # (the store's own functions, on this migration's connection: the tables are as 0005 made them)
    from botarena.store.arena_reads import link_match_versions, rebuild_records

    conn = op.get_bind()
    competitions = conn.execute(sa.text("SELECT id, tournament_id FROM competitions")).all()
    known = {row[0] for row in conn.execute(sa.text("SELECT id FROM versions"))}
    for competition_id, tournament_id in competitions:
        matches = conn.execute(
            sa.text("SELECT id, seats FROM matches WHERE tournament_id = :t"), {"t": tournament_id}
        )
        for match_id, seats in matches.all():
            names = json.loads(seats) if isinstance(seats, str) else seats
            shown = [name if _known(name, known) else "" for name in names or []]
            link_match_versions(conn, match_id, shown)
        rebuild_records(conn, competition_id)


def _known(name: object, known: set[int]) -> bool:
    text = str(name)
    return text.startswith("version:") and text[8:].isdigit() and int(text[8:]) in known


def downgrade() -> None:
    op.drop_table("pair_records")
    op.drop_table("version_records")
    op.drop_index(op.f("ix_match_versions_version_id"), table_name="match_versions")
    op.drop_table("match_versions")
