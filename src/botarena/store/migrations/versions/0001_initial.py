"""The initial schema: bots and versions, tournaments and entrants, matches and their players, ratings.

Revision ID: 0001
Revises:
Create Date: 2026-11-22
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0001"
down_revision: str | None = None
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "bots",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("game", sa.String(length=64), nullable=False),
        sa.Column("name", sa.String(length=200), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_bots")),
        sa.UniqueConstraint("game", "name", name=op.f("uq_bots_game_name")),
    )
    op.create_table(
        "tournaments",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(length=200), nullable=False),
        sa.Column("game", sa.String(length=64), nullable=False),
        sa.Column("format", sa.String(length=64), nullable=False),
        sa.Column("preset", sa.String(length=64), nullable=True),
        sa.Column("config", sa.JSON(), nullable=False),
        sa.Column("seed", sa.BigInteger(), nullable=False),
        sa.Column("options", sa.JSON(), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("finished_at", sa.DateTime(timezone=True), nullable=True),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_tournaments")),
    )
    op.create_index(op.f("ix_tournaments_game"), "tournaments", ["game"], unique=False)
    op.create_index(op.f("ix_tournaments_name"), "tournaments", ["name"], unique=False)

    op.create_table(
        "bot_versions",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("bot_id", sa.Integer(), nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.Column("spec", sa.Text(), nullable=False),
        sa.Column("digest", sa.String(length=128), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["bot_id"], ["bots.id"], name=op.f("fk_bot_versions_bot_id_bots"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_bot_versions")),
        sa.UniqueConstraint("bot_id", "spec", "digest", name=op.f("uq_bot_versions_bot_id_spec_digest")),
        sa.UniqueConstraint("bot_id", "version", name=op.f("uq_bot_versions_bot_id_version")),
    )
    op.create_table(
        "matches",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("tournament_id", sa.Integer(), nullable=False),
        sa.Column("key", sa.String(length=100), nullable=False),
        sa.Column("round", sa.Integer(), nullable=False),
        sa.Column("seats", sa.JSON(), nullable=False),
        sa.Column("seed", sa.BigInteger(), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("attempts", sa.Integer(), nullable=False),
        sa.Column("error", sa.Text(), nullable=True),
        sa.Column("replay_hash", sa.String(length=64), nullable=True),
        sa.Column("steps", sa.Integer(), nullable=True),
        sa.Column("duration_s", sa.Float(), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("started_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("finished_at", sa.DateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(
            ["tournament_id"],
            ["tournaments.id"],
            name=op.f("fk_matches_tournament_id_tournaments"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_matches")),
        sa.UniqueConstraint("tournament_id", "key", name=op.f("uq_matches_tournament_id_key")),
    )
    op.create_index(
        "ix_matches_tournament_id_round_key", "matches", ["tournament_id", "round", "key"], unique=False
    )
    op.create_index("ix_matches_tournament_id_status", "matches", ["tournament_id", "status"], unique=False)

    op.create_table(
        "ratings",
        sa.Column("tournament_id", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(length=200), nullable=False),
        sa.Column("mu", sa.Float(), nullable=False),
        sa.Column("sigma", sa.Float(), nullable=False),
        sa.Column("ordinal", sa.Float(), nullable=False),
        sa.Column("played", sa.Integer(), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["tournament_id"],
            ["tournaments.id"],
            name=op.f("fk_ratings_tournament_id_tournaments"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("tournament_id", "name", name=op.f("pk_ratings")),
    )
    op.create_table(
        "match_players",
        sa.Column("match_id", sa.Integer(), nullable=False),
        sa.Column("seat", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(length=200), nullable=False),
        sa.Column("bot_version_id", sa.Integer(), nullable=True),
        sa.Column("rank", sa.Integer(), nullable=False),
        sa.Column("score", sa.Float(), nullable=False),
        sa.Column("statuses", sa.JSON(), nullable=False),
        sa.Column("time_used_ms", sa.Float(), nullable=False),
        sa.ForeignKeyConstraint(
            ["bot_version_id"], ["bot_versions.id"], name=op.f("fk_match_players_bot_version_id_bot_versions")
        ),
        sa.ForeignKeyConstraint(
            ["match_id"], ["matches.id"], name=op.f("fk_match_players_match_id_matches"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("match_id", "seat", name=op.f("pk_match_players")),
    )
    op.create_index(
        op.f("ix_match_players_bot_version_id"), "match_players", ["bot_version_id"], unique=False
    )

    op.create_table(
        "tournament_entrants",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("tournament_id", sa.Integer(), nullable=False),
        sa.Column("position", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(length=200), nullable=False),
        sa.Column("bot_version_id", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(
            ["bot_version_id"],
            ["bot_versions.id"],
            name=op.f("fk_tournament_entrants_bot_version_id_bot_versions"),
        ),
        sa.ForeignKeyConstraint(
            ["tournament_id"],
            ["tournaments.id"],
            name=op.f("fk_tournament_entrants_tournament_id_tournaments"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_tournament_entrants")),
        sa.UniqueConstraint("tournament_id", "name", name=op.f("uq_tournament_entrants_tournament_id_name")),
    )
    op.create_index(
        op.f("ix_tournament_entrants_bot_version_id"), "tournament_entrants", ["bot_version_id"], unique=False
    )


def downgrade() -> None:
    op.drop_index(op.f("ix_tournament_entrants_bot_version_id"), table_name="tournament_entrants")

    op.drop_table("tournament_entrants")
    op.drop_index(op.f("ix_match_players_bot_version_id"), table_name="match_players")

    op.drop_table("match_players")
    op.drop_table("ratings")
    op.drop_index("ix_matches_tournament_id_status", table_name="matches")
    op.drop_index("ix_matches_tournament_id_round_key", table_name="matches")

    op.drop_table("matches")
    op.drop_table("bot_versions")
    op.drop_index(op.f("ix_tournaments_name"), table_name="tournaments")
    op.drop_index(op.f("ix_tournaments_game"), table_name="tournaments")

    op.drop_table("tournaments")
    op.drop_table("bots")
