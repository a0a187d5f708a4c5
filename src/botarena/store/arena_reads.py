"""What keeps the arena's public reads O(page) whatever the history (specs/arena.md, *Reads that scale*,
goal G5): W/D/L and pair counters updated where rated results are recorded, and the seat -> version
links the match list filters by.

    with store.write_session(...) as session:          # or inside Store.record_results' transaction
        record_pair_results(session, [v1, v2], [1, 2]) # one rated result: +1 W for v1, +1 L for v2
    link_match_versions(session, match_id, seats)      # with the match, before it is played

Who calls what:
- the coordinator, in the transaction that records a rated result and its rating update, calls
  `record_pair_results(conn, versions, ranks)` once per rated result recorded now (a repeated
  result that `record_results` refuses must not count again);
- whoever adds an arena match writes its `match_versions` rows in the same transaction (the
  coordinator's `add_match` does; `link_match_versions` is the same write for seat names);
- a void takes a finished rated match back out (`record_pair_results(..., undo=True)`), and `arena
  rerate` (or a repair) recounts everything with `rebuild_records`.

The functions take a Session or a Core Connection (the coordinator records inside a Connection) and
only execute statements in it: the caller's transaction commits them or none.

Outcomes (the same rules the leaderboard always used): a version's result is a win alone at the top
rank, a draw when it shares the top rank, else a loss; a team against another team in the same
match wins when it ranked better, draws when equal, loses when worse.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from typing import Any

from sqlalchemy import Connection, delete, insert, select
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.orm import Session

from botarena.store.models import (
    Competition,
    Match,
    MatchPlayer,
    MatchVersion,
    PairRecord,
    Team,
    Version,
    VersionRecord,
)

Executor = Session | Connection
SEAT_PREFIX = "version:"  # (store/arena_versions.py seat_name)
COUNTS = ("games", "wins", "draws", "losses")
_BATCH = 2000


def outcome(rank: int, ranks: Sequence[int]) -> int:
    """A seat's outcome among `ranks` (1 is best): 1 a win alone at the top, 0 a draw shared, -1 a loss."""
    best = min(ranks)
    if rank != best:
        return -1
    return 1 if list(ranks).count(best) == 1 else 0


def _delta(result: int, sign: int) -> dict[str, int]:
    return {
        "games": sign,
        "wins": sign if result > 0 else 0,
        "draws": sign if result == 0 else 0,
        "losses": sign if result < 0 else 0,
    }


def _upsert(executor: Executor, model: Any, keys: dict[str, int], delta: dict[str, int]) -> None:
    """Add `delta` to the counters of the row `keys` (created at `delta` when it is not there)."""
    dialect = executor.get_bind().dialect.name if isinstance(executor, Session) else executor.dialect.name
    make = postgresql.insert if dialect == "postgresql" else sqlite.insert
    table = model.__table__
    statement = make(table).values(**keys, **delta)
    statement = statement.on_conflict_do_update(
        index_elements=list(keys), set_={name: table.c[name] + statement.excluded[name] for name in COUNTS}
    )
    executor.execute(statement)


def record_pair_results(
    executor: Executor, versions: Sequence[int | None], ranks: Sequence[int], *, undo: bool = False
) -> None:
    """Count one rated result (each seat's version, None for a seat that is no team's, and its rank)
    in `version_records` and `pair_records`; `undo` takes a counted one back out (a void). Costs
    O(seats^2) statements, whatever the history."""
    if len(versions) != len(ranks):
        raise ValueError(f"{len(ranks)} ranks for {len(versions)} seats")
    sign = -1 if undo else 1
    for version, rank in zip(versions, ranks, strict=True):
        if version is not None:
            _upsert(executor, VersionRecord, {"version_id": version}, _delta(outcome(rank, ranks), sign))
    known = [v for v in versions if v is not None]
    if not known:
        return
    teams = dict(executor.execute(select(Version.id, Version.team_id).where(Version.id.in_(known))).all())
    seated = [
        (teams.get(v) if v is not None else None, rank) for v, rank in zip(versions, ranks, strict=True)
    ]
    for mine, rank in seated:
        for theirs, other in seated:
            if mine is None or theirs is None or mine == theirs:
                continue
            result = (rank < other) - (rank > other)
            _upsert(executor, PairRecord, {"team_id": mine, "opponent_id": theirs}, _delta(result, sign))


def seat_version(name: str) -> int | None:
    """The version a seat name stands for ("version:<id>"), or None."""
    if not name.startswith(SEAT_PREFIX):
        return None
    tail = name[len(SEAT_PREFIX) :]
    return int(tail) if tail.isdigit() and len(tail) < 19 else None


def link_match_versions(executor: Executor, match_id: int, seats: Sequence[str]) -> None:
    """The `match_versions` rows of a match whose `seats` are seat names (a starter's seat gets none)."""
    rows = [
        {"match_id": match_id, "seat": seat, "version_id": version}
        for seat, version in enumerate(seat_version(name) for name in seats)
        if version is not None
    ]
    if rows:
        executor.execute(insert(MatchVersion), rows)


def rebuild_records(executor: Executor, competition_id: int) -> None:
    """Recount the competition's `version_records` and `pair_records` from its finished rated matches
    (voided ones left out): for `arena rerate`, a repair, or a store filled in bulk. O(history)."""
    tournament_id = executor.execute(
        select(Competition.tournament_id).where(Competition.id == competition_id)
    ).scalar_one()
    team_ids = select(Team.id).where(Team.competition_id == competition_id)
    executor.execute(delete(PairRecord).where(PairRecord.team_id.in_(team_ids)))
    executor.execute(
        delete(VersionRecord).where(
            VersionRecord.version_id.in_(select(Version.id).where(Version.team_id.in_(team_ids)))
        )
    )
    owner = dict(
        executor.execute(
            select(Version.id, Version.team_id)
            .join(Team, Team.id == Version.team_id)
            .where(Team.competition_id == competition_id)
        ).all()
    )
    voided = _voided(executor, competition_id)
    by_version: dict[int, dict[str, int]] = defaultdict(lambda: dict.fromkeys(COUNTS, 0))
    by_pair: dict[tuple[int, int], dict[str, int]] = defaultdict(lambda: dict.fromkeys(COUNTS, 0))
    for versions, ranks in _rated_results(executor, tournament_id, voided):
        teams = [owner.get(v) if v is not None else None for v in versions]
        for version, rank in zip(versions, ranks, strict=True):
            if version in owner:
                _add(by_version[version], _delta(outcome(rank, ranks), 1))
        for mine, rank in zip(teams, ranks, strict=True):
            for theirs, other in zip(teams, ranks, strict=True):
                if mine is not None and theirs is not None and mine != theirs:
                    _add(by_pair[(mine, theirs)], _delta((rank < other) - (rank > other), 1))
    _insert_all(executor, VersionRecord, [{"version_id": v, **c} for v, c in by_version.items()])
    _insert_all(
        executor, PairRecord, [{"team_id": t, "opponent_id": o, **c} for (t, o), c in by_pair.items()]
    )


def _add(into: dict[str, int], delta: dict[str, int]) -> None:
    for name, value in delta.items():
        into[name] += value


def _insert_all(executor: Executor, model: Any, rows: list[dict[str, int]]) -> None:
    for start in range(0, len(rows), _BATCH):
        executor.execute(insert(model), rows[start : start + _BATCH])


def _voided(executor: Executor, competition_id: int) -> set[int]:
    query = (
        select(Match.id)
        .join(Competition, Competition.tournament_id == Match.tournament_id)
        .where(Competition.id == competition_id, Match.voided.is_(True))
    )
    return set(executor.execute(query).scalars())


def _rated_results(
    executor: Executor, tournament_id: int, voided: set[int]
) -> Iterable[tuple[list[int | None], list[int]]]:
    """(each seat's version, each seat's rank) of every finished rated match, by match id."""
    query = (
        select(Match.id, Match.seats, MatchPlayer.rank)
        .join(MatchPlayer, MatchPlayer.match_id == Match.id)
        .where(Match.tournament_id == tournament_id, Match.kind == "rated", Match.status == "finished")
        .order_by(Match.id, MatchPlayer.seat)
    )
    current: int | None = None
    versions: list[int | None] = []
    ranks: list[int] = []
    for match_id, seats, rank in executor.execute(query):
        if match_id != current:
            if current is not None and current not in voided:
                yield versions, ranks
            current, versions, ranks = match_id, [seat_version(str(s)) for s in seats], []
        ranks.append(int(rank))
    if current is not None and current not in voided:
        yield versions, ranks


__all__ = ["link_match_versions", "outcome", "rebuild_records", "record_pair_results", "seat_version"]
