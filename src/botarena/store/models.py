"""The schema, as SQLAlchemy 2 typed declarative models.

Every change here needs a migration in `migrations/versions/` (tests/store/test_migrations.py
compares the two on SQLite and PostgreSQL). Constraint names come from the naming convention, so a
migration names them the same way on every database.

Results live in `match_players` (one row per seat) so that per-bot questions ("every match of this
bot version") are plain SQL; `MatchRow` reassembles the per-seat lists.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any, ClassVar

from sqlalchemy import (
    JSON,
    BigInteger,
    Boolean,
    DateTime,
    Dialect,
    Float,
    ForeignKey,
    Index,
    Integer,
    LargeBinary,
    MetaData,
    String,
    Text,
    TypeDecorator,
    UniqueConstraint,
)
from sqlalchemy import true as sa_true
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column, relationship

NAMING_CONVENTION = {
    "ix": "ix_%(column_0_label)s",
    "uq": "uq_%(table_name)s_%(column_0_N_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}


def utcnow() -> datetime:
    return datetime.now(UTC)


class UTCDateTime(TypeDecorator[datetime]):
    """A timezone-aware UTC datetime on every database (SQLite keeps no zone: it stores UTC
    and the zone is put back on the way out)."""

    impl = DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        if value.tzinfo is None:
            raise ValueError("naive datetime given to the store (use an aware UTC datetime)")
        value = value.astimezone(UTC)
        return value.replace(tzinfo=None) if dialect.name == "sqlite" else value

    def process_result_value(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)


class Base(DeclarativeBase):
    metadata = MetaData(naming_convention=NAMING_CONVENTION)
    type_annotation_map: ClassVar[dict[Any, Any]] = {
        datetime: UTCDateTime(),
        dict[str, Any]: JSON,
        list[Any]: JSON,
    }


class Bot(Base):
    """A bot by name within a game; its code lives in its versions."""

    __tablename__ = "bots"
    __table_args__ = (UniqueConstraint("game", "name"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    game: Mapped[str] = mapped_column(String(64))
    name: Mapped[str] = mapped_column(String(200))
    created_at: Mapped[datetime] = mapped_column(default=utcnow)

    versions: Mapped[list[BotVersion]] = relationship(back_populates="bot", order_by="BotVersion.version")


class BotVersion(Base):
    """One (spec, digest) of a bot. `digest` is "" when none was given: a NULL would make the unique
    constraint let duplicates through."""

    __tablename__ = "bot_versions"
    __table_args__ = (UniqueConstraint("bot_id", "version"), UniqueConstraint("bot_id", "spec", "digest"))

    id: Mapped[int] = mapped_column(primary_key=True)
    bot_id: Mapped[int] = mapped_column(ForeignKey("bots.id", ondelete="CASCADE"))
    version: Mapped[int] = mapped_column(Integer)
    spec: Mapped[str] = mapped_column(Text)
    digest: Mapped[str] = mapped_column(String(128))
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    # The bot's code as a content-addressed artifact (`artifacts.digest`), and the spec that runs it
    # once a worker has unpacked it ("{artifact}" stands for the unpacked folder). NULL for bots
    # that are no files (starter bots, URLs, plain commands).
    artifact: Mapped[str | None] = mapped_column(String(64))
    run_spec: Mapped[str | None] = mapped_column(Text)

    bot: Mapped[Bot] = relationship(back_populates="versions")


class Artifact(Base):
    """A bot's files as one canonical archive, addressed by the sha256 of its bytes: workers on any
    machine fetch it by digest (and check the digest) instead of reading the entrant's paths."""

    __tablename__ = "artifacts"

    digest: Mapped[str] = mapped_column(String(64), primary_key=True)
    size: Mapped[int] = mapped_column(BigInteger)
    data: Mapped[bytes] = mapped_column(LargeBinary)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)


class ReplayBlob(Base):
    """A replay's gzip bytes kept in the database, by content hash (the store's replays when they
    live in the database rather than in a directory: every machine that reaches the database reads them)."""

    __tablename__ = "replay_blobs"

    digest: Mapped[str] = mapped_column(String(64), primary_key=True)
    size: Mapped[int] = mapped_column(BigInteger)
    data: Mapped[bytes] = mapped_column(LargeBinary)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)


class Tournament(Base):
    __tablename__ = "tournaments"

    id: Mapped[int] = mapped_column(primary_key=True)
    name: Mapped[str] = mapped_column(String(200), index=True)
    game: Mapped[str] = mapped_column(String(64), index=True)
    format: Mapped[str] = mapped_column(String(64))
    preset: Mapped[str | None] = mapped_column(String(64))
    config: Mapped[dict[str, Any]]
    seed: Mapped[int] = mapped_column(BigInteger)
    options: Mapped[dict[str, Any]]
    status: Mapped[str] = mapped_column(String(16))
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    finished_at: Mapped[datetime | None]

    entrants: Mapped[list[TournamentEntrant]] = relationship(
        back_populates="tournament", order_by="TournamentEntrant.position"
    )


class TournamentEntrant(Base):
    __tablename__ = "tournament_entrants"
    __table_args__ = (UniqueConstraint("tournament_id", "name"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    tournament_id: Mapped[int] = mapped_column(ForeignKey("tournaments.id", ondelete="CASCADE"))
    position: Mapped[int] = mapped_column(Integer)  # registration order
    name: Mapped[str] = mapped_column(String(200))
    bot_version_id: Mapped[int] = mapped_column(ForeignKey("bot_versions.id"), index=True)

    tournament: Mapped[Tournament] = relationship(back_populates="entrants")
    bot_version: Mapped[BotVersion] = relationship()


class Match(Base):
    """A scheduled match; `key` is its stable name in the tournament, which makes adding and
    recording idempotent."""

    __tablename__ = "matches"
    __table_args__ = (
        UniqueConstraint("tournament_id", "key"),
        Index("ix_matches_tournament_id_status", "tournament_id", "status"),
        Index("ix_matches_tournament_id_round_key", "tournament_id", "round", "key"),
        # an arena's match list: a competition's matches newest first, paged by id (specs/arena.md)
        Index("ix_matches_tournament_id_id", "tournament_id", "id"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    tournament_id: Mapped[int] = mapped_column(ForeignKey("tournaments.id", ondelete="CASCADE"))
    key: Mapped[str] = mapped_column(String(100))
    round: Mapped[int] = mapped_column(Integer)
    seats: Mapped[list[Any]]
    seed: Mapped[int] = mapped_column(BigInteger)
    status: Mapped[str] = mapped_column(String(16))
    attempts: Mapped[int] = mapped_column(Integer, default=0)
    error: Mapped[str | None] = mapped_column(Text)
    replay_hash: Mapped[str | None] = mapped_column(String(64))
    steps: Mapped[int | None] = mapped_column(Integer)
    duration_s: Mapped[float | None] = mapped_column(Float)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    started_at: Mapped[datetime | None]
    finished_at: Mapped[datetime | None]
    # Arena matches (revision 0004): what the match is for (rated, validation, scrimmage, final) and
    # why the scheduler made it (placement, deficit, ...); every tournament match is a rated one.
    kind: Mapped[str] = mapped_column(String(16), default="rated", server_default="rated")
    reason: Mapped[str | None] = mapped_column(String(32))
    # An organizer's void: the match stays on record but stops counting (`arena rerate` skips it).
    voided: Mapped[bool] = mapped_column(Boolean, default=False, server_default="0")

    players: Mapped[list[MatchPlayer]] = relationship(order_by="MatchPlayer.seat")


class MatchPlayer(Base):
    """One seat's result in a finished match."""

    __tablename__ = "match_players"

    match_id: Mapped[int] = mapped_column(ForeignKey("matches.id", ondelete="CASCADE"), primary_key=True)
    seat: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(String(200))
    bot_version_id: Mapped[int | None] = mapped_column(ForeignKey("bot_versions.id"), index=True)
    rank: Mapped[int] = mapped_column(Integer)
    score: Mapped[float] = mapped_column(Float)
    statuses: Mapped[dict[str, Any]]  # {"OK": n, "TIMEOUT": m, ...}
    time_used_ms: Mapped[float] = mapped_column(Float)
    # The seat's failures in this match (botarena.tournament.failures.seat_failures: the kinds and the
    # first non-OK verdict), NULL when all its verdicts were OK or for results from before revision 0003.
    failure: Mapped[dict[str, Any] | None] = mapped_column(JSON(none_as_null=True))


class Rating(Base):
    """A tournament's latest ratings, replaced as a whole by each save."""

    __tablename__ = "ratings"

    tournament_id: Mapped[int] = mapped_column(
        ForeignKey("tournaments.id", ondelete="CASCADE"), primary_key=True
    )
    name: Mapped[str] = mapped_column(String(200), primary_key=True)
    mu: Mapped[float] = mapped_column(Float)
    sigma: Mapped[float] = mapped_column(Float)
    ordinal: Mapped[float] = mapped_column(Float)
    played: Mapped[int] = mapped_column(Integer)
    updated_at: Mapped[datetime] = mapped_column(default=utcnow)


# ------------------------------------------------------------------------------------ the arena
# specs/arena.md, revision 0004. Enum-like columns hold the strings of botarena.arena.vocabulary
# (the store does not import the arena layer: it keeps what it is given).


class Competition(Base):
    """A hosted competition; it owns one tournament row (format "arena") that holds its matches, so
    results, replays and match pages work as they do for tournaments."""

    __tablename__ = "competitions"

    id: Mapped[int] = mapped_column(primary_key=True)
    name: Mapped[str] = mapped_column(String(200), unique=True)
    game: Mapped[str] = mapped_column(String(64))
    preset: Mapped[str] = mapped_column(String(64))
    config: Mapped[dict[str, Any]]
    players: Mapped[int] = mapped_column(Integer)
    format: Mapped[str] = mapped_column(String(16))
    phase: Mapped[str] = mapped_column(String(16))
    policy: Mapped[dict[str, Any]]
    seed: Mapped[int] = mapped_column(BigInteger)
    tournament_id: Mapped[int] = mapped_column(ForeignKey("tournaments.id"), unique=True)
    rating_epoch: Mapped[int] = mapped_column(Integer, default=0)  # bumped by every rating write
    created_at: Mapped[datetime] = mapped_column(default=utcnow)


class Team(Base):
    """A team of a competition; its versions are its `bots` row's bot versions."""

    __tablename__ = "teams"
    __table_args__ = (UniqueConstraint("competition_id", "name"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    competition_id: Mapped[int] = mapped_column(ForeignKey("competitions.id", ondelete="CASCADE"))
    name: Mapped[str] = mapped_column(String(100))
    disabled: Mapped[bool] = mapped_column(Boolean, default=False)
    bot_id: Mapped[int] = mapped_column(ForeignKey("bots.id"))
    created_at: Mapped[datetime] = mapped_column(default=utcnow)


class Token(Base):
    """An API token `ba_<kid>_<secret>`: only the sha256 of its secret is kept. `team_id` is NULL
    for the organizer's."""

    __tablename__ = "tokens"
    __table_args__ = (Index("ix_tokens_competition_id_team_id", "competition_id", "team_id"),)

    kid: Mapped[str] = mapped_column(String(32), primary_key=True)
    competition_id: Mapped[int] = mapped_column(ForeignKey("competitions.id", ondelete="CASCADE"))
    team_id: Mapped[int | None] = mapped_column(ForeignKey("teams.id", ondelete="CASCADE"))
    role: Mapped[str] = mapped_column(String(16))
    sha256: Mapped[str] = mapped_column(String(64))
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    last_used_at: Mapped[datetime | None]
    revoked_at: Mapped[datetime | None]


class Version(Base):
    """One submission of a team: an upload or a URL, numbered 1, 2, ... per team, through its states
    (received, validating, ready, rejected, active, retired, superseded, paused, disabled)."""

    __tablename__ = "versions"
    __table_args__ = (
        UniqueConstraint("team_id", "number"),
        UniqueConstraint("team_id", "idempotency_key"),
        Index("ix_versions_team_id_state", "team_id", "state"),
        Index("ix_versions_team_id_source_digest", "team_id", "source_digest"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    team_id: Mapped[int] = mapped_column(ForeignKey("teams.id", ondelete="CASCADE"))
    number: Mapped[int] = mapped_column(Integer)
    bot_version_id: Mapped[int | None] = mapped_column(ForeignKey("bot_versions.id"))
    kind: Mapped[str] = mapped_column(String(16))
    source_digest: Mapped[str | None] = mapped_column(String(64))
    state: Mapped[str] = mapped_column(String(16))
    reason_code: Mapped[str | None] = mapped_column(String(32))
    reason: Mapped[str | None] = mapped_column(Text)
    note: Mapped[str | None] = mapped_column(Text)
    idempotency_key: Mapped[str | None] = mapped_column(String(200))
    received_at: Mapped[datetime] = mapped_column(default=utcnow)
    validated_at: Mapped[datetime | None]
    activated_at: Mapped[datetime | None]
    first_rated_match_at: Mapped[datetime | None]
    retired_at: Mapped[datetime | None]
    # Whether the version becomes the team's active one once it is ready (the upload's `activate`).
    activate: Mapped[bool] = mapped_column(Boolean, default=True, server_default=sa_true())
    # The team's active version this one replaced at its (first) activation: where `on_new_version`
    # took its starting rating from, so `arena rerate` starts it the same way.
    inherits_from: Mapped[int | None] = mapped_column(ForeignKey("versions.id"))
    # A rejected version's own log from the failing validation game (head and tail, 64 KiB at most).
    log: Mapped[str | None] = mapped_column(Text)


class RatingCurrent(Base):
    """A version's rating now (updated in the transaction that records each rated result)."""

    __tablename__ = "ratings_current"

    version_id: Mapped[int] = mapped_column(ForeignKey("versions.id", ondelete="CASCADE"), primary_key=True)
    mu: Mapped[float] = mapped_column(Float)
    sigma: Mapped[float] = mapped_column(Float)
    games: Mapped[int] = mapped_column(Integer, default=0)
    updated_at: Mapped[datetime] = mapped_column(default=utcnow)


class RatingHistory(Base):
    """What one rated match did to each version's rating (`arena rerate` replays these)."""

    __tablename__ = "rating_history"

    match_id: Mapped[int] = mapped_column(ForeignKey("matches.id", ondelete="CASCADE"), primary_key=True)
    version_id: Mapped[int] = mapped_column(
        ForeignKey("versions.id", ondelete="CASCADE"), primary_key=True, index=True
    )
    mu_before: Mapped[float] = mapped_column(Float)
    sigma_before: Mapped[float] = mapped_column(Float)
    mu_after: Mapped[float] = mapped_column(Float)
    sigma_after: Mapped[float] = mapped_column(Float)


class AuditEntry(Base):
    """One organizer (or token) action on a competition: who, what, on what, why."""

    __tablename__ = "audit_log"
    __table_args__ = (Index("ix_audit_log_competition_id_id", "competition_id", "id"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    at: Mapped[datetime] = mapped_column(default=utcnow)
    competition_id: Mapped[int] = mapped_column(ForeignKey("competitions.id", ondelete="CASCADE"))
    actor: Mapped[str] = mapped_column(String(100))
    action: Mapped[str] = mapped_column(String(64))
    target: Mapped[str] = mapped_column(String(200))
    reason: Mapped[str | None] = mapped_column(Text)


# ------------------------------------------------------------------------- the arena's reads (0004 and 0005)
# Counters and links that keep the arena's public reads O(page), whatever the history
# (specs/arena.md, G5); store/arena_reads.py writes them where results are recorded.


class MatchVersion(Base):
    """Which arena version sits in a seat of an arena match (written with the match, before it is
    played): a seat held by a validation opponent (a starter bot) has no row. The match list's
    team and version filters read it instead of the seats' text."""

    __tablename__ = "match_versions"

    match_id: Mapped[int] = mapped_column(ForeignKey("matches.id", ondelete="CASCADE"), primary_key=True)
    seat: Mapped[int] = mapped_column(Integer, primary_key=True)
    version_id: Mapped[int] = mapped_column(ForeignKey("versions.id", ondelete="CASCADE"), index=True)


class ArenaCoordinator(Base):
    """The lock of a competition's one coordinator (`botarena arena run`): who holds it and when it
    last said it was alive; a lock whose heartbeat is stale, or whose process is gone, is taken over."""

    __tablename__ = "arena_coordinators"

    competition_id: Mapped[int] = mapped_column(
        ForeignKey("competitions.id", ondelete="CASCADE"), primary_key=True
    )
    host: Mapped[str] = mapped_column(String(255))
    pid: Mapped[int] = mapped_column(Integer)
    owner: Mapped[str] = mapped_column(String(64))  # a random id of the holding run (pids are reused)
    started_at: Mapped[datetime] = mapped_column(default=utcnow)
    heartbeat_at: Mapped[datetime] = mapped_column(default=utcnow)


class VersionRecord(Base):
    """A version's rated wins, draws and losses, counted as each rated result is recorded."""

    __tablename__ = "version_records"

    version_id: Mapped[int] = mapped_column(ForeignKey("versions.id", ondelete="CASCADE"), primary_key=True)
    games: Mapped[int] = mapped_column(Integer, default=0)
    wins: Mapped[int] = mapped_column(Integer, default=0)
    draws: Mapped[int] = mapped_column(Integer, default=0)
    losses: Mapped[int] = mapped_column(Integer, default=0)


class PairRecord(Base):
    """A team's rated record against one other team (`GET .../teams/{tid}/pairs`), counted as each
    rated result is recorded: a win when it ranked better than that opponent."""

    __tablename__ = "pair_records"

    team_id: Mapped[int] = mapped_column(ForeignKey("teams.id", ondelete="CASCADE"), primary_key=True)
    opponent_id: Mapped[int] = mapped_column(ForeignKey("teams.id", ondelete="CASCADE"), primary_key=True)
    games: Mapped[int] = mapped_column(Integer, default=0)
    wins: Mapped[int] = mapped_column(Integer, default=0)
    draws: Mapped[int] = mapped_column(Integer, default=0)
    losses: Mapped[int] = mapped_column(Integer, default=0)
