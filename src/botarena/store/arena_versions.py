"""The arena's versions and what is read about them (specs/arena.md, part 1): a team's uploads and URL
entries through their states, the competition's matches as the arena lists them, its leaderboard, a
team's record against each opponent, and the figures of `/stats`.

    versions = ArenaVersions(ArenaStore(store))
    row, created = versions.add_version(NewVersion(...), quotas, at=now)  # QuotaExceeded, ...
    versions.activate(row.id, at=now)                                     # StateRefused

Built on `ArenaStore`/`Store` through their public API (`read_session`/`write_session`); like
`store/arena.py` it never imports the arena layer: states and kinds are the vocabulary's strings,
given by the caller. Every write that must be judged on the stored state (a digest already uploaded,
an idempotency key, a quota, a state change) is judged inside its write transaction, with the team's
row locked on PostgreSQL (SQLite's BEGIN IMMEDIATE already holds the database), so two uploads of one
team never both pass a quota or number two versions alike.

Seats: an arena match's `matches.seats` names a version as `seat_name(version_id)` ("version:<id>");
any other seat (a starter bot opposing a validation) is no team's. A seat whose result carries a
`bot_version_id` of a team's bot row is that version too.

Voided matches: `matches.voided`, set with the audit entry `void_match` on `match:<id>`; the counters
drop the match at once, `arena rerate` leaves it out, and the coordinator never rates one voided
while it ran.
"""

from __future__ import annotations

import hashlib
import statistics
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, fields
from datetime import datetime, timedelta
from typing import Any, TypeVar

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from botarena.store.arena import ArenaStore, CompetitionRow
from botarena.store.arena_reads import record_pair_results
from botarena.store.models import (
    Artifact,
    AuditEntry,
    Bot,
    BotVersion,
    Competition,
    Match,
    MatchPlayer,
    MatchVersion,
    PairRecord,
    RatingCurrent,
    Team,
    Version,
    VersionRecord,
)
from botarena.store.rows import StoreError

SEAT_PREFIX = "version:"
QUEUED = ("received", "validating")  # a newer upload supersedes a version in these states
VOID_ACTION = "void_match"
MAX_PAGE = 200
SCAN_BATCH = 500  # rows read per step while a filter that SQL cannot apply fills a page
MAX_SCANNED = 20_000  # a filtered page stops after this many rows and gives its cursor


RowT = TypeVar("RowT")


def _row(cls: type[RowT], obj: object) -> RowT:
    """The frozen row `cls` of an ORM object (the same field names)."""
    return cls(**{f.name: getattr(obj, f.name) for f in fields(cls)})  # type: ignore[arg-type]


def seat_name(version_id: int) -> str:
    """How an arena match's `seats` names version `version_id`."""
    return f"{SEAT_PREFIX}{version_id}"


def seat_version(name: str) -> int | None:
    """The version a seat name stands for, or None (a starter bot, another tournament's entrant)."""
    if not name.startswith(SEAT_PREFIX):
        return None
    tail = name[len(SEAT_PREFIX) :]
    return int(tail) if tail.isdigit() and len(tail) < 19 else None


class IdempotencyKeyReused(StoreError):
    """An Idempotency-Key this team already sent with other bytes."""


class StateRefused(StoreError):
    """A state change the version's current state does not allow (judged in the transaction)."""


class NoSuchVersion(StoreError):
    """A version id the store does not hold."""


class QuotaExceeded(StoreError):
    """A team over one of its upload quotas; `retry_after_s` is when it may try again."""

    def __init__(self, detail: str, retry_after_s: float) -> None:
        super().__init__(detail)
        self.retry_after_s = retry_after_s


@dataclass(frozen=True, slots=True)
class VersionRow:
    id: int
    team_id: int
    number: int
    bot_version_id: int | None
    kind: str
    source_digest: str | None
    state: str
    reason_code: str | None
    reason: str | None
    note: str | None
    idempotency_key: str | None
    received_at: datetime
    validated_at: datetime | None
    activated_at: datetime | None
    first_rated_match_at: datetime | None
    retired_at: datetime | None
    log: str | None = None
    """A rejected or paused version's own log (the coordinator's: its stderr head and tail)."""


@dataclass(frozen=True, slots=True)
class Quotas:
    """A team's upload quotas (the policy's `uploads_per_hour`, `uploads_per_day`, `kept_versions`,
    `team_bytes_mb` in bytes)."""

    per_hour: int
    per_day: int
    kept: int
    team_bytes: int


@dataclass(frozen=True, slots=True)
class VersionBot:
    """The bot version a new arena version runs, registered under the team's bot: its spec, how a
    worker runs it (`run_spec`, None for a URL entry), and the artifact it runs from (kept under its
    sha256, which is also the bot version's digest)."""

    spec: str
    artifact: bytes
    run_spec: str | None = None


@dataclass(frozen=True, slots=True)
class NewVersion:
    """A version to add: the team, its kind, its identity (`source_digest`), the bot it runs, the
    size it adds to the team's bytes, and what the team sent with it."""

    team_id: int
    kind: str
    source_digest: str
    bot: VersionBot
    size: int
    note: str | None = None
    idempotency_key: str | None = None


@dataclass(frozen=True, slots=True)
class SeatInfo:
    """Who holds an arena seat: the team and the version (None for a starter bot's seat)."""

    team_id: int
    team: str
    version_id: int
    number: int
    kind: str
    digest: str | None


@dataclass(frozen=True, slots=True)
class PlayerResult:
    """One seat's result in a finished match."""

    seat: int
    rank: int
    score: float
    statuses: dict[str, int]
    time_used_ms: float
    failure: dict[str, Any] | None


@dataclass(frozen=True, slots=True)
class ArenaMatch:
    """An arena match as its routes show it: the match row, its kind and reason, its seats' results."""

    id: int
    tournament_id: int
    key: str
    round: int
    kind: str
    reason: str | None
    status: str
    seats: list[str]
    seed: int
    attempts: int
    error: str | None
    replay_hash: str | None
    steps: int | None
    duration_s: float | None
    created_at: datetime
    started_at: datetime | None
    finished_at: datetime | None
    players: list[PlayerResult] = field(default_factory=list)


@dataclass(slots=True)
class Record:
    """Rated games, wins, draws and losses."""

    games: int = 0
    wins: int = 0
    draws: int = 0
    losses: int = 0

    def add(self, outcome: int) -> None:
        """`outcome` 1 a win, 0 a draw, -1 a loss."""
        self.games += 1
        if outcome > 0:
            self.wins += 1
        elif outcome == 0:
            self.draws += 1
        else:
            self.losses += 1


@dataclass(frozen=True, slots=True)
class BoardRow:
    team_id: int
    team: str
    version_id: int
    number: int
    kind: str
    mu: float | None  # None: not rated yet (the caller shows the model's prior)
    sigma: float | None
    games: int
    record: Record = field(default_factory=Record)


@dataclass(frozen=True, slots=True)
class StatsRow:
    in_flight: dict[str, int]
    waiting_validations: int
    oldest_wait_s: float | None
    games_last_hour: list[int]  # per active version


class ArenaVersions:
    """Versions, match lists, the leaderboard and the stats over one ArenaStore."""

    def __init__(self, arena: ArenaStore) -> None:
        self.arena = arena
        self.store = arena.store

    # --------------------------------------------------------------------------- reading

    def competition_of_tournament(self, tournament_id: int) -> CompetitionRow | None:
        """The competition whose own tournament this is (None: a plain tournament)."""
        with self.store.read_session("cannot read competitions") as session:
            found = session.scalar(select(Competition).where(Competition.tournament_id == tournament_id))
            return None if found is None else _row(CompetitionRow, found)

    def get_version(self, version_id: int) -> VersionRow | None:
        with self.store.read_session("cannot read versions") as session:
            found = session.get(Version, version_id)
            return None if found is None else _row(VersionRow, found)

    def versions(self, team_id: int) -> list[VersionRow]:
        """The team's versions, newest first."""
        query = select(Version).where(Version.team_id == team_id).order_by(Version.number.desc())
        with self.store.read_session("cannot read versions") as session:
            return [_row(VersionRow, v) for v in session.scalars(query)]

    def find_by_key(self, team_id: int, key: str) -> VersionRow | None:
        query = select(Version).where(Version.team_id == team_id, Version.idempotency_key == key)
        with self.store.read_session("cannot read versions") as session:
            found = session.scalar(query)
            return None if found is None else _row(VersionRow, found)

    def source_artifact(self, version_id: int) -> str | None:
        """The artifact digest of an upload version's bot (None for a URL entry or none at all)."""
        query = (
            select(BotVersion.artifact)
            .join(Version, Version.bot_version_id == BotVersion.id)
            .where(Version.id == version_id, Version.kind == "upload")
        )
        with self.store.read_session("cannot read versions") as session:
            found = session.scalar(query)
        return None if found is None else str(found)

    def validation_matches(self, tournament_id: int, version_id: int) -> list[int]:
        """The ids of the version's validation matches, oldest first."""
        return self.validation_matches_of(tournament_id, [version_id]).get(version_id, [])

    def validation_matches_of(self, tournament_id: int, version_ids: Sequence[int]) -> dict[int, list[int]]:
        """Version id -> the ids of its validation matches, oldest first, for these versions (one read,
        through the seat links)."""
        if not version_ids:
            return {}
        query = (
            select(MatchVersion.version_id, Match.id)
            .join(Match, Match.id == MatchVersion.match_id)
            .where(MatchVersion.version_id.in_(sorted(set(version_ids))))
            # `+ 0` keeps a planner from walking the tournament's whole history by its index
            # (SQLite did): the versions' own links drive this read, each checked by primary key
            .where((Match.tournament_id + 0) == tournament_id, Match.kind == "validation")
            .distinct()
            .order_by(MatchVersion.version_id, Match.id)
        )
        found: dict[int, list[int]] = defaultdict(list)
        with self.store.read_session("cannot read matches") as session:
            for version_id, match_id in session.execute(query):
                found[int(version_id)].append(int(match_id))
        return dict(found)

    def quota_check(self, team_id: int, quotas: Quotas, size: int, at: datetime) -> None:
        """QuotaExceeded if the team cannot add a version of `size` bytes at `at` (a cheap look before
        an upload is converted; `add_version` judges it again in its transaction)."""
        with self.store.read_session("cannot read versions") as session:
            _check_quotas(session, team_id, quotas, size, at)

    # --------------------------------------------------------------------------- writing

    def add_version(self, new: NewVersion, quotas: Quotas, *, at: datetime) -> tuple[VersionRow, bool]:
        """The team's version for `new`: (the existing one, False) when the team already has this
        source digest or sent this idempotency key with it; else (a new version `received`, True),
        numbered after the team's last, superseding its queued versions. IdempotencyKeyReused for a
        key sent before with other bytes; QuotaExceeded over a quota.

        One transaction stores the artifact, the bot version and the arena version, so a process
        killed (or a quota refused) part way leaves none of them, and a known upload writes nothing."""
        with self.store.write_session(f"cannot add a version to team {new.team_id}") as session:
            team = _lock_team(session, new.team_id)
            existing = _existing(session, new)
            if existing is not None:
                return existing, False
            _check_quotas(session, new.team_id, quotas, new.size, at)
            bot_version_id = self._register_team_bot(session, team, new.bot)
            latest = session.scalar(select(func.max(Version.number)).where(Version.team_id == new.team_id))
            number = (latest or 0) + 1
            for queued in session.scalars(
                select(Version).where(Version.team_id == new.team_id, Version.state.in_(QUEUED))
            ):
                queued.state = "superseded"
                queued.reason_code = "superseded"
                queued.reason = f"version {number} replaced it in the validation queue"
            version = Version(
                team_id=new.team_id,
                number=number,
                bot_version_id=bot_version_id,
                kind=new.kind,
                source_digest=new.source_digest,
                state="received",
                note=new.note,
                idempotency_key=new.idempotency_key,
                received_at=at,
            )
            session.add(version)
            session.flush()
            return _row(VersionRow, version), True

    def _register_team_bot(self, session: Session, team: Team, bot: VersionBot) -> int:
        """The id of `bot` as a version of the team's `bots` row, its artifact stored, in `session`."""
        owner = session.get(Bot, team.bot_id)
        if owner is None:
            raise StoreError(f"team {team.id} has no bot")
        digest = hashlib.sha256(bot.artifact).hexdigest()
        self.store.put_artifact_in(session, digest, bot.artifact)
        registered = self.store.register_bot_in(
            session, owner.game, owner.name, bot.spec, digest, artifact=digest, run_spec=bot.run_spec
        )
        return registered.id

    def activate(self, version_id: int, *, at: datetime) -> VersionRow:
        """A `ready` version becomes its team's only active one (the previous active retires); an
        active one stays so. StateRefused from any other state."""
        with self.store.write_session(f"cannot activate version {version_id}") as session:
            version = _locked_version(session, version_id)
            if version.state == "active":
                return _row(VersionRow, version)
            if version.state != "ready":
                raise StateRefused(f"version {version.number} is {version.state}, not ready")
            _retire_active(session, version.team_id, at)
            version.state, version.activated_at = "active", at
            version.reason_code = version.reason = None
            session.flush()
            return _row(VersionRow, version)

    def retire(self, version_id: int, *, at: datetime) -> VersionRow:
        """A ready or active version stops playing (`retired`); StateRefused from any other state."""
        with self.store.write_session(f"cannot retire version {version_id}") as session:
            version = _locked_version(session, version_id)
            if version.state not in ("ready", "active"):
                raise StateRefused(
                    f"version {version.number} is {version.state}: only a ready or active one retires"
                )
            version.state, version.retired_at = "retired", at
            session.flush()
            return _row(VersionRow, version)

    def disable(
        self, competition_id: int, version_id: int, *, actor: str, reason: str, at: datetime
    ) -> VersionRow:
        """The organizer takes a version out of play (`disabled`, the reason kept), audited in the same
        transaction; StateRefused when it is disabled already."""
        with self.store.write_session(f"cannot disable version {version_id}") as session:
            version = _locked_version(session, version_id)
            if version.state == "disabled":
                raise StateRefused(f"version {version.number} is disabled already")
            version.state, version.reason_code, version.reason = "disabled", "disabled", reason
            _audit(session, competition_id, actor, "disable_version", f"version:{version_id}", reason, at)
            session.flush()
            return _row(VersionRow, version)

    def enable(
        self, competition_id: int, version_id: int, *, actor: str, reason: str, at: datetime
    ) -> VersionRow:
        """A disabled version back: active again if it was its team's active version and the team has
        none now, ready if it had passed validation, else received (validated again); audited."""
        with self.store.write_session(f"cannot enable version {version_id}") as session:
            version = _locked_version(session, version_id)
            if version.state != "disabled":
                raise StateRefused(f"version {version.number} is {version.state}, not disabled")
            _back_in_play(session, version)
            _audit(session, competition_id, actor, "enable_version", f"version:{version_id}", reason, at)
            session.flush()
            return _row(VersionRow, version)

    def active_numbers(self, competition_id: int) -> dict[int, int]:
        """Team id -> the number of its active version, for every team of the competition (disabled
        teams too, unlike the leaderboard's read), in one read."""
        query = (
            select(Version.team_id, Version.number)
            .join(Team, Team.id == Version.team_id)
            .where(Team.competition_id == competition_id, Version.state == "active")
        )
        with self.store.read_session("cannot read the teams' versions") as session:
            return {int(team): int(number) for team, number in session.execute(query).all()}

    def set_team_disabled(
        self, competition_id: int, team_id: int, disabled: bool, *, actor: str, reason: str, at: datetime
    ) -> list[VersionRow]:
        """The organizer disables a team (it cannot upload, leaves the leaderboard, and every version
        of it in play or waiting becomes `disabled` with reason code `team_disabled`) or enables it
        again (exactly those versions come back, as `enable` brings one back); audited in the same
        transaction. The versions changed; StateRefused when the team is so already."""
        action = "disable_team" if disabled else "enable_team"
        with self.store.write_session(f"cannot {action.replace('_', ' ')} {team_id}") as session:
            team = _lock_team(session, team_id)
            if team.disabled == disabled:
                raise StateRefused(f"team {team.name!r} is {'disabled' if disabled else 'enabled'} already")
            team.disabled = disabled
            if disabled:
                changed = list(
                    session.scalars(
                        select(Version).where(Version.team_id == team_id, Version.state.in_(TEAM_IN_PLAY))
                    )
                )
                for version in changed:
                    version.state, version.reason_code, version.reason = "disabled", TEAM_DISABLED, reason
            else:
                changed = list(
                    session.scalars(
                        select(Version)
                        .where(
                            Version.team_id == team_id,
                            Version.state == "disabled",
                            Version.reason_code == TEAM_DISABLED,
                        )
                        .order_by(Version.id.desc())  # the newest first: the active one comes back active
                    )
                )
                for version in changed:
                    _back_in_play(session, version)
            _audit(session, competition_id, actor, action, f"team:{team_id}", reason, at)
            session.flush()
            return [_row(VersionRow, version) for version in changed]

    def void_match(
        self, competition_id: int, match_id: int, *, actor: str, reason: str, at: datetime
    ) -> bool:
        """Mark a match void (`matches.voided`, with the audit entry `void_match`): it stops counting
        in the W/D/L and pair counters now and in the ratings at the next `arena rerate`; a match
        still running is not rated when it ends. False if it was void already."""
        target = f"match:{match_id}"
        with self.store.write_session(f"cannot void match {match_id}") as session:
            match = session.get(Match, match_id)
            if match is None or match.voided:
                return False
            match.voided = True
            _audit(session, competition_id, actor, VOID_ACTION, target, reason, at)
            _uncount(session, match_id)
            return True

    def voided_matches(self, competition_id: int) -> set[int]:
        """The ids of the competition's voided matches."""
        query = (
            select(Match.id)
            .join(Competition, Competition.tournament_id == Match.tournament_id)
            .where(Competition.id == competition_id, Match.voided.is_(True))
        )
        with self.store.read_session("cannot read the voided matches") as session:
            return set(session.scalars(query))

    # --------------------------------------------------------------------------- matches

    def seats(self, matches: Iterable[Any]) -> dict[int, SeatInfo]:
        """Version id -> who holds it, for every version seated in `matches` (MatchRows)."""
        wanted = {v for m in matches for v in (seat_version(name) for name in m.seats) if v is not None}
        if not wanted:
            return {}
        query = (
            select(
                Version.id, Version.team_id, Team.name, Version.number, Version.kind, Version.source_digest
            )
            .join(Team, Team.id == Version.team_id)
            .where(Version.id.in_(sorted(wanted)))
        )
        with self.store.read_session("cannot read versions") as session:
            return {
                row[0]: SeatInfo(row[1], row[2], row[0], row[3], row[4], row[5])
                for row in session.execute(query)
            }

    def match_ids_page(
        self,
        tournament_id: int,
        *,
        team_id: int | None = None,
        version_id: int | None = None,
        kind: str | None = None,
        status: str | None = None,
        before: int | None = None,
        limit: int = MAX_PAGE,
    ) -> list[int]:
        """Ids of the tournament's matches newest first, before the cursor, where the team (any of its
        versions) or the version holds a seat, of this kind and status. With a team or version the
        page is read from that side's seat links (`match_versions`): it costs that team's matches,
        never the competition's whole history."""
        size = max(1, min(limit, SCAN_BATCH))
        query = select(Match.id).where(Match.tournament_id == tournament_id)
        if kind is not None:
            query = query.where(Match.kind == kind)
        if status is not None:
            query = query.where(Match.status == status)
        with self.store.read_session("cannot read matches") as session:
            if team_id is None and version_id is None:
                if before is not None:
                    query = query.where(Match.id < before)
                return [int(i) for i in session.scalars(query.order_by(Match.id.desc()).limit(size))]
            return _linked_page(session, query, _seat_links(team_id, version_id), before, size)

    def matches(self, match_ids: Sequence[int]) -> list[ArenaMatch]:
        """These matches (in the order given, unknown ids left out) with their seats' results."""
        if not match_ids:
            return []
        wanted = sorted(set(match_ids))
        players: dict[int, list[PlayerResult]] = defaultdict(list)
        names = [f.name for f in fields(ArenaMatch) if f.name != "players"]
        # Core rows, not ORM objects: loading them was most of a match page's CPU (benchmarks/arena_api.py)
        with self.store.read_session("cannot read matches") as session:
            conn = session.connection()
            found = conn.execute(select(*(Match.__table__.c[n] for n in names)).where(Match.id.in_(wanted)))
            matches = {row.id: row for row in found}
            query = (
                select(
                    MatchPlayer.match_id,
                    MatchPlayer.seat,
                    MatchPlayer.rank,
                    MatchPlayer.score,
                    MatchPlayer.statuses,
                    MatchPlayer.time_used_ms,
                    MatchPlayer.failure,
                )
                .where(MatchPlayer.match_id.in_(wanted))
                .order_by(MatchPlayer.match_id, MatchPlayer.seat)
            )
            for match_id, seat, rank, score, statuses, used, failure in conn.execute(query):
                players[match_id].append(PlayerResult(seat, rank, score, dict(statuses), used, failure))
        rows = {
            i: ArenaMatch(**{name: row[k] for k, name in enumerate(names)}, players=players.get(i, []))
            for i, row in matches.items()
        }
        return [rows[i] for i in match_ids if i in rows]

    # --------------------------------------------------------------------------- leaderboard

    def active_versions(self, competition_id: int) -> list[BoardRow]:
        """The active version of every team not disabled, with its current rating (None: not rated)."""
        query = (
            select(
                Team.id,
                Team.name,
                Version.id,
                Version.number,
                Version.kind,
                RatingCurrent.mu,
                RatingCurrent.sigma,
                RatingCurrent.games,
                VersionRecord.games,
                VersionRecord.wins,
                VersionRecord.draws,
                VersionRecord.losses,
            )
            .join(Version, Version.team_id == Team.id)
            .outerjoin(RatingCurrent, RatingCurrent.version_id == Version.id)
            .outerjoin(VersionRecord, VersionRecord.version_id == Version.id)
            .where(Team.competition_id == competition_id, Team.disabled.is_(False), Version.state == "active")
        )
        with self.store.read_session("cannot read the leaderboard") as session:
            return [
                BoardRow(
                    *r[:7],
                    int(r[7] or 0),
                    Record(*(int(n or 0) for n in r[8:])) if r[8] is not None else Record(),
                )
                # (Core rows: the ORM's per-row work was most of this read's cost at 1,000 teams)
                for r in session.connection().execute(query)
            ]

    def rated_results(
        self, tournament_id: int, since: datetime | None = None
    ) -> list[tuple[int, list[int | None], list[int]]]:
        """(match id, the version of each seat, each seat's rank) of every finished rated match, oldest
        first (since `since`, when given)."""
        query = (
            select(Match.id, Match.seats, MatchPlayer.seat, MatchPlayer.rank)
            .join(MatchPlayer, MatchPlayer.match_id == Match.id)
            .where(Match.tournament_id == tournament_id, Match.kind == "rated", Match.status == "finished")
            .order_by(Match.id, MatchPlayer.seat)
        )
        if since is not None:
            query = query.where(Match.finished_at >= since)
        results: dict[int, tuple[list[int | None], list[int]]] = {}
        with self.store.read_session("cannot read results") as session:
            for match_id, seats, _seat, rank in session.execute(query):
                _, ranks = results.setdefault(match_id, ([seat_version(str(s)) for s in seats], []))
                ranks.append(int(rank))
        return [(match_id, versions, ranks) for match_id, (versions, ranks) in results.items()]

    def records(self, tournament_id: int) -> dict[int, Record]:
        """Each version's rated W/D/L (the counters `arena_reads.record_pair_results` keeps)."""
        query = (
            select(VersionRecord)
            .join(Version, Version.id == VersionRecord.version_id)
            .join(Team, Team.id == Version.team_id)
            .join(Competition, Competition.id == Team.competition_id)
            .where(Competition.tournament_id == tournament_id)
        )
        with self.store.read_session("cannot read records") as session:
            return {r.version_id: Record(r.games, r.wins, r.draws, r.losses) for r in session.scalars(query)}

    def pairs(self, tournament_id: int, team_id: int) -> dict[int, Record]:
        """The team's rated record against each other team (by team id): a win when it ranked better
        (the counters `arena_reads.record_pair_results` keeps; `tournament_id` is the competition's)."""
        del tournament_id  # a team belongs to one competition: its id alone names its pairs
        query = select(PairRecord).where(PairRecord.team_id == team_id)
        with self.store.read_session("cannot read records") as session:
            return {r.opponent_id: Record(r.games, r.wins, r.draws, r.losses) for r in session.scalars(query)}

    def team_names(self, team_ids: Iterable[int]) -> dict[int, str]:
        """Team id -> name for these teams."""
        wanted = sorted(set(team_ids))
        if not wanted:
            return {}
        with self.store.read_session("cannot read teams") as session:
            rows = session.execute(select(Team.id, Team.name).where(Team.id.in_(wanted)))
            return {int(team_id): str(name) for team_id, name in rows}

    def team_of_versions(self, tournament_id: int) -> dict[int, int]:
        """Version id -> team id for every version of the competition owning this tournament."""
        query = (
            select(Version.id, Version.team_id)
            .join(Team, Team.id == Version.team_id)
            .join(Competition, Competition.id == Team.competition_id)
            .where(Competition.tournament_id == tournament_id)
        )
        with self.store.read_session("cannot read versions") as session:
            return {row[0]: row[1] for row in session.execute(query)}

    def stats(self, competition_id: int, tournament_id: int, *, at: datetime) -> StatsRow:
        """What `/stats` shows now: matches in flight by kind, validations waiting and the oldest wait,
        rated games in the last hour of each active version."""
        running = (
            select(Match.kind, func.count())
            .where(Match.tournament_id == tournament_id, Match.status == "running")
            .group_by(Match.kind)
        )
        waiting = (
            select(func.count(), func.min(Version.received_at))
            .join(Team, Team.id == Version.team_id)
            .where(Team.competition_id == competition_id, Version.state.in_(QUEUED))
        )
        with self.store.read_session("cannot read the stats") as session:
            in_flight = {str(kind): int(count) for kind, count in session.execute(running)}
            count, oldest = session.execute(waiting).one()
        games: dict[int, int] = defaultdict(int)
        for _, versions, _ in self.rated_results(tournament_id, since=at - timedelta(hours=1)):
            for version in versions:
                if version is not None:
                    games[version] += 1
        active = [row.version_id for row in self.active_versions(competition_id)]
        oldest_wait = (at - oldest).total_seconds() if oldest is not None else None
        return StatsRow(in_flight, int(count), oldest_wait, [games[v] for v in active])


def percentiles(values: Sequence[int]) -> dict[str, float | None]:
    """p10, p50 and p90 of `values` (None each when there are none)."""
    if not values:
        return {"p10": None, "p50": None, "p90": None}
    if len(values) == 1:
        return {"p10": float(values[0]), "p50": float(values[0]), "p90": float(values[0])}
    cuts = statistics.quantiles(values, n=10, method="inclusive")
    return {"p10": cuts[0], "p50": statistics.median(values), "p90": cuts[8]}


def _seat_links(team_id: int | None, version_id: int | None) -> Any:
    """The match ids whose seats hold the version, or any version of the team, newest first."""
    links = select(MatchVersion.match_id).distinct()
    if team_id is not None:
        links = links.where(MatchVersion.version_id.in_(select(Version.id).where(Version.team_id == team_id)))
    if version_id is not None:
        links = links.where(MatchVersion.version_id == version_id)
    return links.order_by(MatchVersion.match_id.desc())


def _linked_page(session: Session, matches: Any, links: Any, before: int | None, size: int) -> list[int]:
    """Up to `size` ids of `matches` among `links`, below `before`. The links are read first, a batch
    at a time, and only then checked against `matches` (tournament, kind, status): asked as one join,
    a planner may walk the tournament's whole history by id instead of the team's few links."""
    found: list[int] = []
    cursor = before
    while len(found) < size:
        step = links if cursor is None else links.where(MatchVersion.match_id < cursor)
        batch = [int(i) for i in session.scalars(step.limit(SCAN_BATCH))]
        if not batch:
            break
        kept = set(session.scalars(matches.where(Match.id.in_(batch))))
        found.extend(i for i in batch if i in kept)
        if len(batch) < SCAN_BATCH:
            break
        cursor = batch[-1]
    return found[:size]


def _uncount(session: Session, match_id: int) -> None:
    """Take a finished rated match's result back out of the W/D/L and pair counters (a void)."""
    match = session.get(Match, match_id)
    if match is None or match.kind != "rated" or match.status != "finished":
        return
    ranks = [
        int(r)
        for r in session.scalars(
            select(MatchPlayer.rank).where(MatchPlayer.match_id == match_id).order_by(MatchPlayer.seat)
        )
    ]
    if len(ranks) == len(match.seats):
        record_pair_results(session, [seat_version(str(s)) for s in match.seats], ranks, undo=True)


TEAM_DISABLED = "team_disabled"
# the versions a team's disabling takes out of play: those playing or waiting to (a paused one
# stays paused: it plays no more, and the team's enabling leaves its pause as it was)
TEAM_IN_PLAY = ("received", "validating", "ready", "active")


def _lock_team(session: Session, team_id: int) -> Team:
    query = select(Team).where(Team.id == team_id)
    if session.get_bind().dialect.name == "postgresql":
        query = query.with_for_update()
    team = session.scalar(query)
    if team is None:
        raise StoreError(f"no team {team_id}")
    return team


def _back_in_play(session: Session, version: Version) -> None:
    """A disabled version's state again: active if it was its team's active version and the team
    has none now, ready if it had passed validation, else received (validated again)."""
    session.flush()  # (a version brought back just before in this session counts as active)
    active = session.scalar(
        select(Version.id).where(Version.team_id == version.team_id, Version.state == "active")
    )
    if version.activated_at is not None and version.retired_at is None and active is None:
        version.state = "active"
    else:
        version.state = "ready" if version.validated_at is not None else "received"
    version.reason_code = version.reason = None


def _locked_version(session: Session, version_id: int) -> Version:
    query = select(Version).where(Version.id == version_id)
    if session.get_bind().dialect.name == "postgresql":
        query = query.with_for_update()
    version = session.scalar(query)
    if version is None:
        raise NoSuchVersion(f"no version {version_id}")
    return version


def _existing(session: Session, new: NewVersion) -> VersionRow | None:
    """The team's version this upload is already: by its idempotency key (the same bytes, else
    IdempotencyKeyReused), then by its source digest."""
    if new.idempotency_key is not None:
        keyed = session.scalar(
            select(Version).where(
                Version.team_id == new.team_id, Version.idempotency_key == new.idempotency_key
            )
        )
        if keyed is not None:
            if keyed.source_digest != new.source_digest:
                raise IdempotencyKeyReused(
                    f"Idempotency-Key was sent before with other bytes (version {keyed.number})"
                )
            return _row(VersionRow, keyed)
    same = session.scalar(
        select(Version)
        .where(Version.team_id == new.team_id, Version.source_digest == new.source_digest)
        .order_by(Version.number.desc())
        .limit(1)
    )
    return None if same is None else _row(VersionRow, same)


def _check_quotas(session: Session, team_id: int, quotas: Quotas, size: int, at: datetime) -> None:
    mine = Version.team_id == team_id
    for window, limit, words in (
        (timedelta(hours=1), quotas.per_hour, "hour"),
        (timedelta(days=1), quotas.per_day, "day"),
    ):
        times = list(
            session.scalars(
                select(Version.received_at)
                .where(mine, Version.received_at > at - window)
                .order_by(Version.received_at)
            )
        )
        if len(times) >= limit:
            wait = (times[len(times) - limit] + window - at).total_seconds()
            raise QuotaExceeded(f"{len(times)} uploads in the last {words} (limit {limit})", max(1.0, wait))
    kept = session.scalar(select(func.count()).select_from(Version).where(mine)) or 0
    if kept >= quotas.kept:
        raise QuotaExceeded(f"{kept} versions kept (limit {quotas.kept})", 3600.0)
    used = (
        session.scalar(
            select(func.coalesce(func.sum(Artifact.size), 0))
            .select_from(Version)
            .join(BotVersion, BotVersion.id == Version.bot_version_id)
            .join(Artifact, Artifact.digest == BotVersion.artifact)
            .where(mine)
        )
        or 0
    )
    if used + size > quotas.team_bytes:
        mib = 1024 * 1024
        raise QuotaExceeded(
            f"{(used + size) / mib:.1f} MiB of versions with this one"
            f" (limit {quotas.team_bytes / mib:.0f} MiB)",
            3600.0,
        )


def _retire_active(session: Session, team_id: int, at: datetime) -> None:
    for active in session.scalars(
        select(Version).where(Version.team_id == team_id, Version.state == "active")
    ):
        active.state, active.retired_at = "retired", at


def _audit(
    session: Session,
    competition_id: int,
    actor: str,
    action: str,
    target: str,
    reason: str | None,
    at: datetime,
) -> None:
    # (the same entry store/arena.py writes, in this module's own transaction)
    session.add(
        AuditEntry(
            at=at,
            competition_id=competition_id,
            actor=actor[:100],
            action=action[:64],
            target=target[:200],
            reason=reason,
        )
    )


__all__ = [
    "ArenaMatch",
    "ArenaVersions",
    "BoardRow",
    "IdempotencyKeyReused",
    "NewVersion",
    "NoSuchVersion",
    "PlayerResult",
    "QuotaExceeded",
    "Quotas",
    "Record",
    "SeatInfo",
    "StateRefused",
    "StatsRow",
    "VersionBot",
    "VersionRow",
    "percentiles",
    "seat_name",
    "seat_version",
]
