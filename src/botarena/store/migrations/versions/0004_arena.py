"""The hosted arena (specs/arena.md, part 1): competitions, teams, tokens, versions, the arena's
ratings and its audit log, each match's kind, reason and void mark, the version in each seat of an
arena match, and the coordinator's lock.

The spec calls this "migration 0003"; 0003 was taken by the entrants' failures (issue 26) before the
arena began, so the arena's tables come in 0004.

Revision ID: 0004
Revises: 0003
Create Date: 2026-12-03
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0004"
down_revision: str | None = "0003"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_TZ = sa.DateTime(timezone=True)


def _fk(table: str, column: str, target: str, ondelete: str | None = "CASCADE") -> sa.ForeignKeyConstraint:
    referred = target.split(".")[0]
    return sa.ForeignKeyConstraint(
        [column], [target], name=op.f(f"fk_{table}_{column}_{referred}"), ondelete=ondelete
    )


def _competitions_and_teams() -> None:
    op.create_table(
        "competitions",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(length=200), nullable=False),
        sa.Column("game", sa.String(length=64), nullable=False),
        sa.Column("preset", sa.String(length=64), nullable=False),
        sa.Column("config", sa.JSON(), nullable=False),
        sa.Column("players", sa.Integer(), nullable=False),
        sa.Column("format", sa.String(length=16), nullable=False),
        sa.Column("phase", sa.String(length=16), nullable=False),
        sa.Column("policy", sa.JSON(), nullable=False),
        sa.Column("seed", sa.BigInteger(), nullable=False),
        sa.Column("tournament_id", sa.Integer(), nullable=False),
        sa.Column("rating_epoch", sa.Integer(), nullable=False),
        sa.Column("created_at", _TZ, nullable=False),
        _fk("competitions", "tournament_id", "tournaments.id", ondelete=None),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_competitions")),
        sa.UniqueConstraint("name", name=op.f("uq_competitions_name")),
        sa.UniqueConstraint("tournament_id", name=op.f("uq_competitions_tournament_id")),
    )
    op.create_table(
        "teams",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("competition_id", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(length=100), nullable=False),
        sa.Column("disabled", sa.Boolean(), nullable=False),
        sa.Column("bot_id", sa.Integer(), nullable=False),
        sa.Column("created_at", _TZ, nullable=False),
        _fk("teams", "competition_id", "competitions.id"),
        _fk("teams", "bot_id", "bots.id", ondelete=None),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_teams")),
        sa.UniqueConstraint("competition_id", "name", name=op.f("uq_teams_competition_id_name")),
    )
    op.create_table(
        "tokens",
        sa.Column("kid", sa.String(length=32), nullable=False),
        sa.Column("competition_id", sa.Integer(), nullable=False),
        sa.Column("team_id", sa.Integer(), nullable=True),
        sa.Column("role", sa.String(length=16), nullable=False),
        sa.Column("sha256", sa.String(length=64), nullable=False),
        sa.Column("created_at", _TZ, nullable=False),
        sa.Column("last_used_at", _TZ, nullable=True),
        sa.Column("revoked_at", _TZ, nullable=True),
        _fk("tokens", "competition_id", "competitions.id"),
        _fk("tokens", "team_id", "teams.id"),
        sa.PrimaryKeyConstraint("kid", name=op.f("pk_tokens")),
    )
    op.create_index("ix_tokens_competition_id_team_id", "tokens", ["competition_id", "team_id"])


def _versions_and_ratings() -> None:
    op.create_table(
        "versions",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("team_id", sa.Integer(), nullable=False),
        sa.Column("number", sa.Integer(), nullable=False),
        sa.Column("bot_version_id", sa.Integer(), nullable=True),
        sa.Column("kind", sa.String(length=16), nullable=False),
        sa.Column("source_digest", sa.String(length=64), nullable=True),
        sa.Column("state", sa.String(length=16), nullable=False),
        sa.Column("reason_code", sa.String(length=32), nullable=True),
        sa.Column("reason", sa.Text(), nullable=True),
        sa.Column("note", sa.Text(), nullable=True),
        sa.Column("idempotency_key", sa.String(length=200), nullable=True),
        sa.Column("received_at", _TZ, nullable=False),
        sa.Column("validated_at", _TZ, nullable=True),
        sa.Column("activated_at", _TZ, nullable=True),
        sa.Column("first_rated_match_at", _TZ, nullable=True),
        sa.Column("retired_at", _TZ, nullable=True),
        sa.Column("activate", sa.Boolean(), nullable=False, server_default=sa.true()),
        sa.Column("inherits_from", sa.Integer(), nullable=True),
        sa.Column("log", sa.Text(), nullable=True),
        _fk("versions", "team_id", "teams.id"),
        _fk("versions", "inherits_from", "versions.id", ondelete=None),
        _fk("versions", "bot_version_id", "bot_versions.id", ondelete=None),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_versions")),
        sa.UniqueConstraint("team_id", "number", name=op.f("uq_versions_team_id_number")),
        sa.UniqueConstraint("team_id", "idempotency_key", name=op.f("uq_versions_team_id_idempotency_key")),
    )
    op.create_index("ix_versions_team_id_state", "versions", ["team_id", "state"])
    op.create_index("ix_versions_team_id_source_digest", "versions", ["team_id", "source_digest"])
    op.create_table(
        "ratings_current",
        sa.Column("version_id", sa.Integer(), nullable=False),
        sa.Column("mu", sa.Float(), nullable=False),
        sa.Column("sigma", sa.Float(), nullable=False),
        sa.Column("games", sa.Integer(), nullable=False),
        sa.Column("updated_at", _TZ, nullable=False),
        _fk("ratings_current", "version_id", "versions.id"),
        sa.PrimaryKeyConstraint("version_id", name=op.f("pk_ratings_current")),
    )
    op.create_table(
        "rating_history",
        sa.Column("match_id", sa.Integer(), nullable=False),
        sa.Column("version_id", sa.Integer(), nullable=False),
        sa.Column("mu_before", sa.Float(), nullable=False),
        sa.Column("sigma_before", sa.Float(), nullable=False),
        sa.Column("mu_after", sa.Float(), nullable=False),
        sa.Column("sigma_after", sa.Float(), nullable=False),
        _fk("rating_history", "match_id", "matches.id"),
        _fk("rating_history", "version_id", "versions.id"),
        sa.PrimaryKeyConstraint("match_id", "version_id", name=op.f("pk_rating_history")),
    )
    op.create_index(op.f("ix_rating_history_version_id"), "rating_history", ["version_id"])


def upgrade() -> None:
    _competitions_and_teams()
    _versions_and_ratings()
    op.create_table(
        "audit_log",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("at", _TZ, nullable=False),
        sa.Column("competition_id", sa.Integer(), nullable=False),
        sa.Column("actor", sa.String(length=100), nullable=False),
        sa.Column("action", sa.String(length=64), nullable=False),
        sa.Column("target", sa.String(length=200), nullable=False),
        sa.Column("reason", sa.Text(), nullable=True),
        _fk("audit_log", "competition_id", "competitions.id"),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_audit_log")),
    )
    op.create_index("ix_audit_log_competition_id_id", "audit_log", ["competition_id", "id"])
    # Added in place (ALTER TABLE ADD COLUMN, constant defaults), never by a batch that recreates
    # `matches`: on SQLite that drops the table, and the drop cascades into every seat's result.
    # Every match recorded before the arena is a rated tournament match, not void.
    op.add_column("matches", sa.Column("kind", sa.String(length=16), nullable=False, server_default="rated"))
    op.add_column("matches", sa.Column("reason", sa.String(length=32), nullable=True))
    op.add_column("matches", sa.Column("voided", sa.Boolean(), nullable=False, server_default="0"))
    op.create_index("ix_matches_tournament_id_id", "matches", ["tournament_id", "id"])
    _coordination()


def _coordination() -> None:
    """Which version sits in each seat of an arena match, and the coordinator's lock."""
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
        "arena_coordinators",
        sa.Column("competition_id", sa.Integer(), nullable=False),
        sa.Column("host", sa.String(length=255), nullable=False),
        sa.Column("pid", sa.Integer(), nullable=False),
        sa.Column("owner", sa.String(length=64), nullable=False),
        sa.Column("started_at", _TZ, nullable=False),
        sa.Column("heartbeat_at", _TZ, nullable=False),
        _fk("arena_coordinators", "competition_id", "competitions.id"),
        sa.PrimaryKeyConstraint("competition_id", name=op.f("pk_arena_coordinators")),
    )


def downgrade() -> None:
    op.drop_table("arena_coordinators")
    op.drop_table("match_versions")
    op.drop_index("ix_matches_tournament_id_id", table_name="matches")
    for column in ("voided", "reason", "kind"):
        _drop_match_column(column)
    for table in ("audit_log", "rating_history", "ratings_current", "versions", "tokens", "teams"):
        op.drop_table(table)
    op.drop_table("competitions")


def _drop_match_column(column: str) -> None:
    """Drop a column of `matches` in place: SQLite's own DROP COLUMN (3.35+), never a recreate of the
    table, whose DROP TABLE would cascade into `match_players` and lose every result."""
    if op.get_bind().dialect.name == "sqlite":
        op.execute(f'ALTER TABLE matches DROP COLUMN "{column}"')
    else:
        op.drop_column("matches", column)
