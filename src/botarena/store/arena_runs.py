"""The arena coordinator's reads and writes (specs/arena.md: Coordinator, Version states, Ratings).

    runs = ArenaRunStore(store)
    runs.claim_coordinator(cid, host, pid, owner, stale_s=15)   # CoordinatorBusy when held
    match_id = runs.add_match(tournament_id, key, ..., versions={0: 12, 1: 17})
    runs.record_rated(tournament_id, cid, [record], {key: update})  # results + ratings, one transaction

Built on a `Store` through its public API (`read_session`, `write_session`, `record_results`). Like
`store/arena.py` it keeps the strings of `botarena.arena.vocabulary` it is given and imports nothing
of the arena layer: a rating update comes as plain rows (`RatingWrite`, `HistoryLike`).

The coordinator is the only writer of what it writes here (the lock in `arena_coordinators` sees to
that); the server writes versions as they arrive and reads the rest.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, Protocol

from sqlalchemy import Connection, delete, func, insert, select, update

from botarena.runner.record import MatchRecord
from botarena.store.arena_reads import rebuild_records, record_pair_results
from botarena.store.models import (
    ArenaCoordinator,
    BotVersion,
    Competition,
    Match,
    MatchPlayer,
    MatchVersion,
    RatingCurrent,
    RatingHistory,
    Team,
    Version,
    utcnow,
)
from botarena.store.rows import StoreError
from botarena.store.store import Store


class CoordinatorBusy(StoreError):
    """Another live coordinator holds the competition's lock."""


@dataclass(frozen=True, slots=True)
class VersionView:
    """What the coordinator needs of a version: its state, team, and how a worker runs it."""

    id: int
    team_id: int
    team_name: str
    number: int
    kind: str
    state: str
    reason_code: str | None
    reason: str | None
    activate: bool
    inherits_from: int | None
    received_at: datetime
    activated_at: datetime | None
    first_rated_match_at: datetime | None
    spec: str | None  # the bot version's run spec (an uploaded artifact's) or its spec (a URL)
    artifact: str | None


@dataclass(frozen=True, slots=True)
class RatingWrite:
    """A version's rating after a result or an activation (`ratings_current`)."""

    version_id: int
    mu: float
    sigma: float
    games: int


class HistoryLike(Protocol):
    """One seat of one rated match before and after it (`botarena.arena.rating.HistoryRow`)."""

    @property
    def version(self) -> int: ...
    @property
    def mu_before(self) -> float: ...
    @property
    def sigma_before(self) -> float: ...
    @property
    def mu_after(self) -> float: ...
    @property
    def sigma_after(self) -> float: ...


@dataclass(frozen=True, slots=True)
class RatedWrite:
    """What one rated result does to the ratings: every seat's new rating and its history rows."""

    ratings: Sequence[RatingWrite]
    history: Sequence[HistoryLike]


@dataclass(frozen=True, slots=True)
class ArenaMatchView:
    """An arena match as the coordinator reloads it: which version sits where, and how it ended."""

    id: int
    key: str
    round: int
    seed: int
    kind: str
    reason: str | None
    status: str
    attempts: int
    seats: tuple[str, ...]
    versions: dict[int, int]  # seat -> version id (validation opponents have none)
    started_at: datetime | None
    finished_at: datetime | None
    voided: bool
    ranks: tuple[int, ...] | None = None
    statuses: tuple[dict[str, int], ...] | None = None
    replay_hash: str | None = None


@dataclass(frozen=True, slots=True)
class LockHolder:
    host: str
    pid: int
    owner: str
    heartbeat_at: datetime


class ArenaRunStore:
    """The coordinator's repository over one `Store`."""

    def __init__(self, store: Store) -> None:
        self.store = store

    # ------------------------------------------------------------------------------ the lock

    def claim_coordinator(
        self,
        competition_id: int,
        *,
        host: str,
        pid: int,
        owner: str,
        stale_s: float,
        alive: Callable[[str, int], bool],
    ) -> LockHolder | None:
        """Take the competition's coordinator lock; returns the holder taken over (a stale lock: its
        heartbeat older than `stale_s`, or `alive(host, pid)` False), None when it was free.
        CoordinatorBusy (one line naming host and pid) while a live coordinator holds it."""
        now = utcnow()
        with self.store.write_session(f"cannot lock competition {competition_id}") as session:
            query = select(ArenaCoordinator).where(ArenaCoordinator.competition_id == competition_id)
            if session.get_bind().dialect.name == "postgresql":
                query = query.with_for_update()
            held = session.scalar(query)
            if held is None:
                session.add(
                    ArenaCoordinator(
                        competition_id=competition_id, host=host, pid=pid, owner=owner,
                        started_at=now, heartbeat_at=now,
                    )
                )  # fmt: skip
                return None
            before = LockHolder(held.host, held.pid, held.owner, held.heartbeat_at)
            fresh = now - held.heartbeat_at < timedelta(seconds=stale_s)
            if fresh and alive(held.host, held.pid):
                raise CoordinatorBusy(
                    f"competition {competition_id} already has a coordinator ({held.host}, {held.pid})"
                )
            held.host, held.pid, held.owner = host, pid, owner
            held.started_at = held.heartbeat_at = now
            return before

    def heartbeat(self, competition_id: int, owner: str) -> bool:
        """Stamp the lock as alive; False when `owner` no longer holds it (taken over)."""
        with self.store.write_session(f"cannot stamp the lock of competition {competition_id}") as session:
            result = session.connection().execute(
                update(ArenaCoordinator)
                .where(ArenaCoordinator.competition_id == competition_id, ArenaCoordinator.owner == owner)
                .values(heartbeat_at=utcnow())
            )
            return bool(result.rowcount)

    def release_coordinator(self, competition_id: int, owner: str) -> None:
        with self.store.write_session(f"cannot unlock competition {competition_id}") as session:
            session.execute(
                delete(ArenaCoordinator).where(
                    ArenaCoordinator.competition_id == competition_id, ArenaCoordinator.owner == owner
                )
            )

    def lock_holder(self, competition_id: int) -> LockHolder | None:
        with self.store.read_session("cannot read the coordinator lock") as session:
            held = session.get(ArenaCoordinator, competition_id)
            return None if held is None else LockHolder(held.host, held.pid, held.owner, held.heartbeat_at)

    # -------------------------------------------------------------------------------- versions

    def add_version(
        self,
        team_id: int,
        *,
        kind: str,
        bot_version_id: int,
        source_digest: str | None,
        note: str | None = None,
        activate: bool = True,
        state: str = "received",
    ) -> int:
        """A new version of the team (numbered next), as an upload stores it once it is packed."""
        with self.store.write_session(f"cannot add a version to team {team_id}") as session:
            latest = session.scalar(select(func.max(Version.number)).where(Version.team_id == team_id))
            version = Version(
                team_id=team_id,
                number=(latest or 0) + 1,
                bot_version_id=bot_version_id,
                kind=kind,
                source_digest=source_digest,
                state=state,
                note=note,
                activate=activate,
                received_at=utcnow(),
            )
            session.add(version)
            session.flush()
            return version.id

    def versions(self, competition_id: int, states: Iterable[str] | None = None) -> list[VersionView]:
        """The competition's versions (in some states), oldest first."""
        query = (
            select(Version, Team.name, BotVersion.run_spec, BotVersion.spec, BotVersion.artifact)
            .join(Team, Team.id == Version.team_id)
            .outerjoin(BotVersion, BotVersion.id == Version.bot_version_id)
            .where(Team.competition_id == competition_id)
            .order_by(Version.id)
        )
        if states is not None:
            query = query.where(Version.state.in_(list(states)))
        with self.store.read_session("cannot read versions") as session:
            return [
                _version_view(version, team, run_spec or spec, artifact)
                for version, team, run_spec, spec, artifact in session.execute(query)
            ]

    def get_version(self, version_id: int) -> VersionView | None:
        query = (
            select(Version, Team.name, BotVersion.run_spec, BotVersion.spec, BotVersion.artifact)
            .join(Team, Team.id == Version.team_id)
            .outerjoin(BotVersion, BotVersion.id == Version.bot_version_id)
            .where(Version.id == version_id)
        )
        with self.store.read_session("cannot read versions") as session:
            row = session.execute(query).first()
            return None if row is None else _version_view(row[0], row[1], row[2] or row[3], row[4])

    def set_state(
        self,
        version_id: int,
        state: str,
        *,
        reason_code: str | None = None,
        reason: str | None = None,
        log: str | None = None,
        validated: bool = False,
        only_from: Iterable[str] | None = None,
    ) -> bool:
        """Move a version to `state` (with its reason, log, `validated_at` now when `validated`),
        only from one of `only_from` when given; True when it moved."""
        values: dict[str, Any] = {"state": state, "reason_code": reason_code, "reason": reason}
        if log is not None:
            values["log"] = log
        if validated:
            values["validated_at"] = utcnow()
        query = update(Version).where(Version.id == version_id)
        if only_from is not None:
            query = query.where(Version.state.in_(list(only_from)))
        with self.store.write_session(f"cannot update version {version_id}") as session:
            return bool(session.connection().execute(query.values(**values)).rowcount)

    def activate(
        self, competition_id: int, version_id: int, previous_id: int | None, start: RatingWrite | None
    ) -> datetime:
        """In one transaction: `previous_id` (the team's active version) retires, `version_id` becomes
        active (its first activation stamps `activated_at` and `inherits_from`), its starting rating
        is written (None: it has one already) and the rating epoch moves. Returns `activated_at`."""
        now = utcnow()
        with self.store.write_session(f"cannot activate version {version_id}") as session:
            if previous_id is not None:
                session.execute(
                    update(Version)
                    .where(Version.id == previous_id, Version.state == "active")
                    .values(state="retired", retired_at=now)
                )
            version = session.get(Version, version_id)
            if version is None:
                raise StoreError(f"no version {version_id}")
            version.state, version.reason_code, version.reason = "active", None, None
            if version.activated_at is None:
                version.activated_at, version.inherits_from = now, previous_id
            if start is not None and session.get(RatingCurrent, version_id) is None:
                session.add(
                    RatingCurrent(
                        version_id=version_id, mu=start.mu, sigma=start.sigma, games=start.games,
                        updated_at=now,
                    )
                )  # fmt: skip
            _bump_epoch(session.connection(), competition_id)
            activated = version.activated_at
        return activated

    def ratings(self, competition_id: int) -> dict[int, RatingWrite]:
        """Every version's current rating (`ratings_current`) in the competition."""
        query = (
            select(RatingCurrent)
            .join(Version, Version.id == RatingCurrent.version_id)
            .join(Team, Team.id == Version.team_id)
            .where(Team.competition_id == competition_id)
        )
        with self.store.read_session("cannot read ratings") as session:
            return {
                r.version_id: RatingWrite(r.version_id, r.mu, r.sigma, r.games)
                for r in session.scalars(query)
            }

    def replace_ratings(self, competition_id: int, ratings: Iterable[RatingWrite]) -> None:
        """`arena rerate --write`: set these ratings as current and recount the W/D/L and pair
        counters from the results (one transaction, epoch bumped)."""
        now = utcnow()
        with self.store.write_session(f"cannot write the ratings of competition {competition_id}") as session:
            conn = session.connection()
            for rating in ratings:
                _write_rating(conn, rating, now)
            rebuild_records(conn, competition_id)
            _bump_epoch(conn, competition_id)

    # -------------------------------------------------------------------------------- matches

    def add_match(
        self,
        tournament_id: int,
        *,
        key: str,
        round: int,
        seats: Sequence[str],
        seed: int,
        kind: str,
        reason: str,
        versions: Mapping[int, int],
    ) -> int:
        """The arena match `key` of the competition's tournament with the version of each seat, in
        one transaction; a key already there is left as it is (its id is returned)."""
        with self.store.write_session(f"cannot add match {key!r}") as session:
            found = session.scalar(
                select(Match.id).where(Match.tournament_id == tournament_id, Match.key == key)
            )
            if found is not None:
                return int(found)
            match = Match(
                tournament_id=tournament_id, key=key, round=round, seats=list(seats), seed=int(seed),
                status="scheduled", attempts=0, kind=kind, reason=reason, created_at=utcnow(),
            )  # fmt: skip
            session.add(match)
            session.flush()
            session.add_all(
                MatchVersion(match_id=match.id, seat=seat, version_id=version)
                for seat, version in versions.items()
            )
            return int(match.id)

    def set_match_error(self, match_id: int, error: str) -> None:
        """A note on an unfinished match for people ("retrying (attempt 2 of 3): ...")."""
        with self.store.write_session(f"cannot update match {match_id}") as session:
            session.execute(
                update(Match)
                .where(Match.id == match_id, Match.status != "finished")
                .values(error=error[:4000])
            )

    def matches(
        self,
        tournament_id: int,
        *,
        statuses: Iterable[str] | None = None,
        kind: str | None = None,
        finished_since: datetime | None = None,
    ) -> list[ArenaMatchView]:
        """The tournament's arena matches (by status, kind, finished after a time), in id order."""
        query = select(Match).where(Match.tournament_id == tournament_id).order_by(Match.id)
        if statuses is not None:
            query = query.where(Match.status.in_(list(statuses)))
        if kind is not None:
            query = query.where(Match.kind == kind)
        if finished_since is not None:
            query = query.where(Match.finished_at >= finished_since)
        with self.store.read_session("cannot read arena matches") as session:
            matches = list(session.scalars(query))
            ids = [m.id for m in matches]
            seats: dict[int, dict[int, int]] = {i: {} for i in ids}
            players: dict[int, list[MatchPlayer]] = {i: [] for i in ids}
            for start in range(0, len(ids), 500):
                chunk = ids[start : start + 500]
                for link in session.scalars(select(MatchVersion).where(MatchVersion.match_id.in_(chunk))):
                    seats[link.match_id][link.seat] = link.version_id
                finished = (
                    select(MatchPlayer).where(MatchPlayer.match_id.in_(chunk)).order_by(MatchPlayer.seat)
                )
                for player in session.scalars(finished):
                    players[player.match_id].append(player)
            return [_match_view(m, seats[m.id], players[m.id]) for m in matches]

    def record_rated(
        self,
        tournament_id: int,
        competition_id: int,
        results: Sequence[MatchRecord],
        ratings: Mapping[str, RatedWrite],
    ) -> list[bool]:
        """Record `results` exactly once (`Store.record_results`) and, in the same transaction, for
        each rated one recorded now: its `rating_history` rows, its versions' `ratings_current`, their
        `first_rated_match_at` when it is their first, and one bump of the rating epoch; each seat's
        result row is linked to its version's bot version. A crash leaves all of it or none."""

        def within(conn: Connection, recorded: Mapping[str, int]) -> None:
            _link_bot_versions(conn, list(recorded.values()))
            rated = [(key, match_id) for key, match_id in recorded.items() if key in ratings]
            voided = _voided_among(conn, [match_id for _, match_id in rated])
            rated = [(key, match_id) for key, match_id in rated if match_id not in voided]
            if not rated:  # (a match the organizer voided while it ran is recorded, never rated)
                return
            now = utcnow()
            ranks_of = {result.key: list(result.ranks) for result in results}
            for key, match_id in rated:
                write = ratings[key]
                conn.execute(insert(RatingHistory), [_history_row(match_id, row) for row in write.history])
                # the W/D/L and pair counters the leaderboard and /pairs read (store/arena_reads.py)
                record_pair_results(conn, _seat_versions(conn, match_id, len(ranks_of[key])), ranks_of[key])
                for rating in write.ratings:
                    _write_rating(conn, rating, now)
                finished = conn.scalar(select(Match.finished_at).where(Match.id == match_id)) or now
                conn.execute(
                    update(Version)
                    .where(
                        Version.id.in_([r.version_id for r in write.ratings]),
                        Version.first_rated_match_at.is_(None),
                    )
                    .values(first_rated_match_at=finished)
                )
            _bump_epoch(conn, competition_id)

        return self.store.record_results(tournament_id, results, within=within)

    def rating_history(self, competition_id: int) -> list[tuple[int, int, float, float, float, float]]:
        """(match id, version, mu/sigma before, mu/sigma after) of every rated seat, by match id."""
        query = (
            select(RatingHistory)
            .join(Match, Match.id == RatingHistory.match_id)
            .join(Competition, Competition.tournament_id == Match.tournament_id)
            .where(Competition.id == competition_id)
            .order_by(RatingHistory.match_id, RatingHistory.version_id)
        )
        with self.store.read_session("cannot read the rating history") as session:
            return [
                (h.match_id, h.version_id, h.mu_before, h.sigma_before, h.mu_after, h.sigma_after)
                for h in session.scalars(query)
            ]


def _voided_among(conn: Connection, match_ids: list[int]) -> set[int]:
    if not match_ids:
        return set()
    query = select(Match.id).where(Match.id.in_(match_ids), Match.voided.is_(True))
    return set(conn.execute(query).scalars())


def _seat_versions(conn: Connection, match_id: int, seats: int) -> list[int | None]:
    """The version in each seat of a match (None for a starter's seat), from its seat links."""
    linked = dict(
        conn.execute(
            select(MatchVersion.seat, MatchVersion.version_id).where(MatchVersion.match_id == match_id)
        )
        .tuples()
        .all()
    )
    return [linked.get(seat) for seat in range(seats)]


def _version_view(version: Version, team: str, spec: str | None, artifact: str | None) -> VersionView:
    return VersionView(
        id=version.id,
        team_id=version.team_id,
        team_name=team,
        number=version.number,
        kind=version.kind,
        state=version.state,
        reason_code=version.reason_code,
        reason=version.reason,
        activate=version.activate,
        inherits_from=version.inherits_from,
        received_at=version.received_at,
        activated_at=version.activated_at,
        first_rated_match_at=version.first_rated_match_at,
        spec=spec,
        artifact=artifact,
    )


def _match_view(match: Match, versions: dict[int, int], players: list[MatchPlayer]) -> ArenaMatchView:
    done = match.status == "finished" and players
    return ArenaMatchView(
        id=match.id,
        key=match.key,
        round=match.round,
        seed=match.seed,
        kind=match.kind,
        reason=match.reason,
        status=match.status,
        attempts=match.attempts,
        seats=tuple(match.seats),
        versions=versions,
        started_at=match.started_at,
        finished_at=match.finished_at,
        voided=match.voided,
        ranks=tuple(p.rank for p in players) if done else None,
        statuses=tuple(dict(p.statuses) for p in players) if done else None,
        replay_hash=match.replay_hash,
    )


def _history_row(match_id: int, row: HistoryLike) -> dict[str, Any]:
    return {
        "match_id": match_id,
        "version_id": row.version,
        "mu_before": row.mu_before,
        "sigma_before": row.sigma_before,
        "mu_after": row.mu_after,
        "sigma_after": row.sigma_after,
    }


def _write_rating(conn: Connection, rating: RatingWrite, now: datetime) -> None:
    values = {"mu": rating.mu, "sigma": rating.sigma, "games": rating.games, "updated_at": now}
    changed = conn.execute(
        update(RatingCurrent).where(RatingCurrent.version_id == rating.version_id).values(**values)
    )
    if not changed.rowcount:
        conn.execute(insert(RatingCurrent).values(version_id=rating.version_id, **values))


def _bump_epoch(conn: Connection, competition_id: int) -> None:
    conn.execute(
        update(Competition)
        .where(Competition.id == competition_id)
        .values(rating_epoch=Competition.rating_epoch + 1)
    )


def _link_bot_versions(conn: Connection, match_ids: Sequence[int]) -> None:
    """Each arena seat's result row names its version's bot version (a tournament's come from its
    entrants; an arena's tournament has none)."""
    if not match_ids:
        return
    links = conn.execute(
        select(MatchVersion.match_id, MatchVersion.seat, Version.bot_version_id)
        .join(Version, Version.id == MatchVersion.version_id)
        .where(MatchVersion.match_id.in_(list(match_ids)))
    ).all()
    for match_id, seat, bot_version in links:
        conn.execute(
            update(MatchPlayer)
            .where(MatchPlayer.match_id == match_id, MatchPlayer.seat == seat)
            .values(bot_version_id=bot_version)
        )
