"""The store: bots, tournaments, matches, results and ratings in SQL; replays as files by content hash.

One `Store` is shared by a coordinator thread that writes and server threads that read; every method
runs in its own short transaction (sessions never leak out). Writes that must happen exactly once
(`record_result`) update the match only while it is not finished, inside the transaction that adds
its players, so a second call, from this process or another, changes nothing.
"""

from __future__ import annotations

import contextlib
import hashlib
from collections import defaultdict
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from sqlalchemy import Connection, Engine, Executable, Select, bindparam, delete, func, insert, select, update
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.engine import URL, make_url
from sqlalchemy.orm import Session, selectinload, sessionmaker

from botarena.core.replay import Replay, ReplayError, parse_replay
from botarena.runner.record import MatchRecord
from botarena.store import engine as eng
from botarena.store.models import (
    Artifact,
    Bot,
    BotVersion,
    Match,
    MatchPlayer,
    Rating,
    Tournament,
    TournamentEntrant,
    utcnow,
)
from botarena.store.replays import ReplayStorage, keep_replay, replay_storage
from botarena.store.rows import (
    MATCH_STATUSES,
    TOURNAMENT_STATUSES,
    BotVersionRow,
    EntrantRow,
    MatchRow,
    RatingRow,
    StoreError,
    TournamentRow,
)

MAX_ERROR_CHARS = 4000  # a failure's message is for people; a traceback's tail is enough
_CHUNK = 500  # rows per INSERT batch, ids per IN (...) list


# The hot paths' statements, built once: building a statement costs several times what SQLite
# takes to run it (benchmarks/store_writes.py), and a built one keeps its compiled-cache key.
_BY_KEY = (Match.tournament_id == bindparam("p_tournament_id")) & (Match.key == bindparam("p_key"))
_NOT_FINISHED = Match.status != "finished"
_EXISTS = select(Match.id).where(_BY_KEY)
_MARK_RUNNING = (
    update(Match)
    .where(_BY_KEY, _NOT_FINISHED)
    .values(status="running", attempts=Match.attempts + 1, started_at=bindparam("p_now"))
)
_FINISH = (
    update(Match)
    .where(Match.id == bindparam("p_match_id"), _NOT_FINISHED)
    .values(
        status="finished",
        error=None,
        replay_hash=bindparam("p_replay_hash"),
        steps=bindparam("p_steps"),
        duration_s=bindparam("p_duration_s"),
        finished_at=bindparam("p_now"),
    )
)
_MARK_RUNNING_MANY = (
    update(Match)
    .where(
        Match.tournament_id == bindparam("p_tournament_id"),
        Match.key.in_(bindparam("p_keys", expanding=True)),
        _NOT_FINISHED,
    )
    .values(status="running", attempts=Match.attempts + 1, started_at=bindparam("p_now"))
)
_FIND_MANY = select(Match.id, Match.key, Match.status, Match.seats).where(
    Match.tournament_id == bindparam("p_tournament_id"), Match.key.in_(bindparam("p_keys", expanding=True))
)
# In id order: concurrent recorders of overlapping batches lock their rows in the same order (no deadlock).
_UNFINISHED_OF = (
    select(Match.id).where(Match.id.in_(bindparam("p_ids", expanding=True)), _NOT_FINISHED).order_by(Match.id)
)
_FAIL = (
    update(Match)
    .where(_BY_KEY, _NOT_FINISHED)
    .values(status="failed", error=bindparam("p_error"), finished_at=bindparam("p_now"))
)
_EMPTY = (
    update(Match)
    .where(_BY_KEY, _NOT_FINISHED)
    .values(status="empty", error=bindparam("p_error"), finished_at=bindparam("p_now"))
)
_POSTPONE = (
    update(Match)
    .where(_BY_KEY, _NOT_FINISHED)
    .values(status="scheduled", error=bindparam("p_error"), finished_at=None)
)
_INSERT_PLAYERS = insert(MatchPlayer)
_MATCHES = select(*(column for column in Match.__table__.c))
_PLAYERS = select(
    MatchPlayer.match_id,
    MatchPlayer.rank,
    MatchPlayer.score,
    MatchPlayer.statuses,
    MatchPlayer.time_used_ms,
    MatchPlayer.failure,
).order_by(MatchPlayer.match_id, MatchPlayer.seat)


class MatchSpecLike(Protocol):
    @property
    def key(self) -> str: ...
    @property
    def round(self) -> int: ...
    @property
    def seats(self) -> Sequence[str]: ...
    @property
    def seed(self) -> int: ...


class RatingLike(Protocol):
    @property
    def name(self) -> str: ...
    @property
    def mu(self) -> float: ...
    @property
    def sigma(self) -> float: ...
    @property
    def ordinal(self) -> float: ...
    @property
    def played(self) -> int: ...


@dataclass(frozen=True)
class Deleted:
    """What `Store.delete_tournaments` deleted."""

    tournaments: int = 0
    matches: int = 0
    replays: int = 0


class Store:
    """Persistence for tournaments. Open with `Store.open(url)`; thread-safe."""

    def __init__(self, engine: Engine, url: str, replays: str | Path | None = None) -> None:
        self._engine = engine
        # The URL for people (password hidden, as SQLAlchemy prints URLs) and the one to connect with,
        # e.g. to open the same store from another process.
        self.connect_url = url
        self.url = make_url(url).render_as_string(hide_password=True)
        self.dialect: str = engine.dialect.name
        self._read = sessionmaker(engine, expire_on_commit=False)
        self._writer = engine.execution_options(**{eng.WRITE: True})
        parsed = make_url(url)
        self.replays: ReplayStorage = replay_storage(
            replays,
            default_dir=_default_replay_dir(parsed),
            engine=engine,
            writer=self._writer,
            url=self.url,
        )
        self._write = sessionmaker(self._writer, expire_on_commit=False)
        self._versions: dict[int, dict[str, int]] = {}

    # ------------------------------------------------------------------------------ lifecycle

    @classmethod
    def open(
        cls,
        url: str | None = None,
        *,
        replay_dir: str | Path | None = None,
        replays: str | None = None,
        migrate: bool = True,
    ) -> Store:
        """Open (and by default create or upgrade) the store at `url`, default `sqlite:///./var/botarena.db`.

        Replays (store/replays.py) go where `replays` says: "db" (the database), a directory, or a
        `file:///shared/dir` location every worker mounts (workers then write replays there
        themselves). By default (and `replay_dir` is the same as a directory): `replays/` next to
        a SQLite file, an in-memory SQLite's `./var/replays`, PostgreSQL's database, so that every
        machine that reaches it sees every replay.
        Raises StoreError with a one-line reason for a bad URL or replay location, an unreachable
        server or an unwritable path.
        """
        if replay_dir is not None and replays is not None:
            raise StoreError("give the store's replays by replay_dir or by replays, not both")
        parsed = eng.normalize_url(url or eng.DEFAULT_URL)
        engine = eng.make_engine(parsed)
        try:
            with (
                eng.translated(f"cannot open {parsed.render_as_string(hide_password=True)}"),
                engine.connect(),
            ):
                pass
            if migrate:
                eng.migrate(engine)
            else:
                eng.check_schema(engine)
            return cls(
                engine,
                parsed.render_as_string(hide_password=False),
                Path(replay_dir) if replay_dir is not None else replays,
            )
        except BaseException:
            engine.dispose()
            raise

    def close(self) -> None:
        self._engine.dispose()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"Store({self.url!r})"

    @contextlib.contextmanager
    def _read_connection(self, what: str) -> Iterator[Connection]:
        """A Core connection in a read transaction (cheaper than a session for one statement)."""
        with eng.translated(what), self._engine.begin() as conn:
            yield conn

    @contextlib.contextmanager
    def _write_connection(self, what: str) -> Iterator[Connection]:
        """A Core connection in a write transaction (BEGIN IMMEDIATE on SQLite), committed at the end."""
        with eng.translated(what), self._writer.begin() as conn:
            yield conn

    def read_session(self, what: str) -> contextlib.AbstractContextManager[Session]:
        """A session in a read transaction, for a repository built on this store (store/arena.py);
        a database error in it is a one-line StoreError starting with `what`."""
        return self._reading(what)

    def write_session(self, what: str) -> contextlib.AbstractContextManager[Session]:
        """A session in a write transaction (BEGIN IMMEDIATE on SQLite), committed when the block
        ends and rolled back if it raises; a database error in it is a one-line StoreError."""
        return self._writing(what)

    @contextlib.contextmanager
    def _reading(self, what: str) -> Iterator[Session]:
        with eng.translated(what), self._read() as session:
            yield session

    @contextlib.contextmanager
    def _writing(self, what: str) -> Iterator[Session]:
        """A write transaction (BEGIN IMMEDIATE on SQLite), committed when the block ends."""
        with eng.translated(what), self._write.begin() as session:
            yield session

    # ----------------------------------------------------------------------------------- bots

    def register_bot(
        self,
        game: str,
        name: str,
        spec: str,
        digest: str | None = None,
        *,
        artifact: str | None = None,
        run_spec: str | None = None,
    ) -> BotVersionRow:
        """The version of bot (game, name) with this spec and digest, created if new (versions count
        1, 2, ... per bot). `artifact` (put first with `put_artifact`) and `run_spec` say how workers
        run it from the store; a version found already keeps its own (the digest covers them)."""
        with self._writing(f"cannot register bot {name!r}") as session:
            return self.register_bot_in(
                session, game, name, spec, digest, artifact=artifact, run_spec=run_spec
            )

    def register_bot_in(
        self,
        session: Session,
        game: str,
        name: str,
        spec: str,
        digest: str | None = None,
        *,
        artifact: str | None = None,
        run_spec: str | None = None,
    ) -> BotVersionRow:
        """`register_bot` inside the caller's write transaction (`write_session`), so a repository
        can register a bot version and the rows that refer to it in one commit."""
        if self.dialect == "postgresql":
            # Registrations are rare: one at a time (the lock is released at commit), so two
            # processes registering the same bot cannot both create it or number two versions alike.
            # (On SQLite, BEGIN IMMEDIATE has the same effect.)
            session.execute(select(func.pg_advisory_xact_lock(eng.REGISTER_LOCK)))
        return self._register_bot(session, game, name, spec, digest or "", artifact, run_spec)

    @staticmethod
    def _register_bot(
        session: Session,
        game: str,
        name: str,
        spec: str,
        digest: str,
        artifact: str | None = None,
        run_spec: str | None = None,
    ) -> BotVersionRow:
        bot = session.scalar(select(Bot).where(Bot.game == game, Bot.name == name))
        if bot is None:
            bot = Bot(game=game, name=name, created_at=utcnow())
            session.add(bot)
            session.flush()
        version = session.scalar(
            select(BotVersion).where(
                BotVersion.bot_id == bot.id, BotVersion.spec == spec, BotVersion.digest == digest
            )
        )
        if version is None:
            latest = session.scalar(select(func.max(BotVersion.version)).where(BotVersion.bot_id == bot.id))
            version = BotVersion(
                bot_id=bot.id,
                version=(latest or 0) + 1,
                spec=spec,
                digest=digest,
                created_at=utcnow(),
                artifact=artifact,
                run_spec=run_spec,
            )
            session.add(version)
            session.flush()
        return _bot_version_row(version, bot)

    # ------------------------------------------------------------------------------ artifacts

    def put_artifact(self, digest: str, data: bytes) -> None:
        """Keep a bot's packed files under the sha256 `digest` of `data` (StoreError if it is not);
        idempotent: the same digest is the same bytes, kept once."""
        statement = self._artifact_insert(digest, data)
        with self._write_connection(f"cannot store artifact {digest}") as conn:
            conn.execute(statement)

    def put_artifact_in(self, session: Session, digest: str, data: bytes) -> None:
        """`put_artifact` inside the caller's write transaction (`write_session`)."""
        session.execute(self._artifact_insert(digest, data))

    def _artifact_insert(self, digest: str, data: bytes) -> Executable:
        if hashlib.sha256(data).hexdigest() != digest:
            raise StoreError(f"artifact {digest[:80]!r} is not the sha256 of its data")
        values = {"digest": digest, "size": len(data), "data": data, "created_at": utcnow()}
        dialect_insert = postgresql.insert if self.dialect == "postgresql" else sqlite.insert
        return dialect_insert(Artifact).values(**values).on_conflict_do_nothing(index_elements=["digest"])

    def get_artifact(self, digest: str) -> bytes:
        """The bytes of artifact `digest` (StoreError if the store has none)."""
        with self._read_connection(f"cannot read artifact {digest}") as conn:
            data = conn.scalar(select(Artifact.data).where(Artifact.digest == digest))
        if data is None:
            raise StoreError(f"no artifact {digest[:80]} in the store")
        return bytes(data)

    # ---------------------------------------------------------------------------- tournaments

    def create_tournament(
        self,
        *,
        name: str,
        game: str,
        format: str,
        preset: str | None,
        config: Mapping[str, Any],
        seed: int,
        options: Mapping[str, Any],
        entrants: Sequence[tuple[str, int]],
    ) -> TournamentRow:
        """A new tournament in status "created"; `entrants` are (name, bot_version_id) in order."""
        _check_int64(seed, f"tournament {name!r}: seed")
        _check_json(config, f"tournament {name!r}: config")
        _check_json(options, f"tournament {name!r}: options")
        names = [entrant for entrant, _ in entrants]
        duplicates = sorted({n for n in names if names.count(n) > 1})
        if duplicates:
            raise StoreError(f"tournament {name!r}: entrant {duplicates[0]!r} is listed twice")
        with self._writing(f"cannot create tournament {name!r}") as session:
            versions = set(
                session.scalars(
                    select(BotVersion.id).where(BotVersion.id.in_([v for _, v in entrants]))
                ).all()
            )
            missing = [v for _, v in entrants if v not in versions]
            if missing:
                raise StoreError(f"tournament {name!r}: no bot version {missing[0]}")
            tournament = Tournament(
                name=name,
                game=game,
                format=format,
                preset=preset,
                config=dict(config),
                seed=int(seed),
                options=dict(options),
                status="created",
                created_at=utcnow(),
            )
            session.add(tournament)
            session.flush()
            session.add_all(
                TournamentEntrant(tournament_id=tournament.id, position=i, name=n, bot_version_id=v)
                for i, (n, v) in enumerate(entrants)
            )
            tournament_id = tournament.id
        row = self.get_tournament(tournament_id)
        assert row is not None
        return row

    def _tournaments(self) -> Select[Tournament]:
        return select(Tournament).options(
            selectinload(Tournament.entrants).selectinload(TournamentEntrant.bot_version)
        )

    def get_tournament(self, tournament_id: int) -> TournamentRow | None:
        with self._reading("cannot read tournaments") as session:
            found = session.scalar(self._tournaments().where(Tournament.id == tournament_id))
            return None if found is None else _tournament_row(found)

    def find_tournament(self, name: str) -> TournamentRow | None:
        """The newest tournament called `name`, or None."""
        with self._reading("cannot read tournaments") as session:
            query = self._tournaments().where(Tournament.name == name)
            found = session.scalar(query.order_by(Tournament.id.desc()).limit(1))
            return None if found is None else _tournament_row(found)

    def list_tournaments(self, game: str | None = None) -> list[TournamentRow]:
        """All tournaments (of `game`), newest first."""
        with self._reading("cannot read tournaments") as session:
            query = self._tournaments().order_by(Tournament.id.desc())
            if game is not None:
                query = query.where(Tournament.game == game)
            return [_tournament_row(t) for t in session.scalars(query)]

    def set_tournament_status(self, tournament_id: int, status: str) -> None:
        """Set the status; "finished" and "failed" stamp `finished_at`, the others clear it."""
        if status not in TOURNAMENT_STATUSES:
            raise StoreError(
                f"unknown tournament status {status!r} (one of {', '.join(TOURNAMENT_STATUSES)})"
            )
        finished_at = utcnow() if status in ("finished", "failed") else None
        with self._write_connection(f"cannot update tournament {tournament_id}") as conn:
            result = conn.execute(
                update(Tournament)
                .where(Tournament.id == tournament_id)
                .values(status=status, finished_at=finished_at)
            )
            if result.rowcount == 0:
                raise StoreError(f"no tournament {tournament_id}")

    def delete_tournaments(self, tournament_ids: Collection[int]) -> Deleted:
        """Delete these tournaments with everything that is theirs: entrants, matches, the matches'
        players, ratings, and the replays no match left in the store references. Returns what went.

        The rows go in one transaction (a reader sees a tournament whole or not at all); the replays
        after it commits, so a reader that still holds a match row finds its replay missing
        (`ReplayMissing`, which the server answers 404), never a match without its rows. A replay is
        content-addressed and names its match (tournament id and key), so no other tournament's
        match can share one; the check of the remaining references is there all the same. Bot
        versions and artifacts stay: other tournaments may enter them. Ids that are no tournament
        are ignored. The caller chooses what to delete: nothing here stops a coordinator that is
        still running one of them (`run_demo` never deletes the cycle it plays)."""
        wanted = sorted({int(t) for t in tournament_ids})
        if not wanted:
            return Deleted()
        hashes: set[str] = set()
        tournaments = matches = 0
        with self._write_connection("cannot delete tournaments") as conn:
            for start in range(0, len(wanted), _CHUNK):
                chunk = wanted[start : start + _CHUNK]
                of_them = select(Match.id).where(Match.tournament_id.in_(chunk)).scalar_subquery()
                hashes.update(
                    digest
                    for digest in conn.scalars(
                        select(Match.replay_hash).where(
                            Match.tournament_id.in_(chunk), Match.replay_hash.is_not(None)
                        )
                    )
                    if digest
                )
                conn.execute(delete(MatchPlayer).where(MatchPlayer.match_id.in_(of_them)))
                matches += conn.execute(delete(Match).where(Match.tournament_id.in_(chunk))).rowcount
                conn.execute(delete(Rating).where(Rating.tournament_id.in_(chunk)))
                conn.execute(delete(TournamentEntrant).where(TournamentEntrant.tournament_id.in_(chunk)))
                tournaments += conn.execute(delete(Tournament).where(Tournament.id.in_(chunk))).rowcount
            ordered = sorted(hashes)
            referenced: set[str] = set()
            for start in range(0, len(ordered), _CHUNK):
                chunk_hashes = ordered[start : start + _CHUNK]
                referenced.update(
                    conn.scalars(select(Match.replay_hash).where(Match.replay_hash.in_(chunk_hashes)))
                )
        for tournament_id in wanted:
            self._versions.pop(tournament_id, None)
        unreferenced = sorted(hashes - referenced)
        for digest in unreferenced:
            self.replays.remove(digest)
        return Deleted(tournaments=tournaments, matches=matches, replays=len(unreferenced))

    # -------------------------------------------------------------------------------- matches

    def add_matches(self, tournament_id: int, specs: Iterable[MatchSpecLike]) -> int:
        """Schedule matches; keys already in the tournament are left untouched. Returns how many
        were inserted."""
        rows: dict[str, dict[str, Any]] = {}
        now = utcnow()
        for spec in specs:
            _check_int64(spec.seed, f"match {spec.key!r}: seed")
            if spec.key not in rows:  # the first of a repeated key wins, as an earlier call's would
                rows[spec.key] = {
                    "tournament_id": tournament_id,
                    "key": spec.key,
                    "round": int(spec.round),
                    "seats": [str(s) for s in spec.seats],
                    "seed": int(spec.seed),
                    "status": "scheduled",
                    "attempts": 0,
                    "created_at": now,
                }
        if not rows:
            return 0
        values = list(rows.values())
        inserted = 0
        with self._writing(f"cannot add matches to tournament {tournament_id}") as session:
            if session.get(Tournament, tournament_id) is None:
                raise StoreError(f"no tournament {tournament_id}")
            # INSERT .. ON CONFLICT DO NOTHING RETURNING: only the new rows come back, which counts
            # them exactly even when another process adds the same keys at the same moment.
            dialect_insert = postgresql.insert if self.dialect == "postgresql" else sqlite.insert
            statement = (
                dialect_insert(Match)
                .on_conflict_do_nothing(index_elements=["tournament_id", "key"])
                .returning(Match.id)
            )
            connection = session.connection()
            for start in range(0, len(values), _CHUNK):
                inserted += len(connection.execute(statement, values[start : start + _CHUNK]).all())
        return inserted

    def list_matches(
        self,
        tournament_id: int | None = None,
        *,
        status: str | Iterable[str] | None = None,
        limit: int | None = None,
        offset: int = 0,
    ) -> list[MatchRow]:
        """Matches (of a tournament, with a status or one of several), ordered by (tournament, round,
        key)."""
        query = _MATCHES
        if tournament_id is not None:
            query = query.where(Match.tournament_id == tournament_id)
        if status is not None:
            wanted = [status] if isinstance(status, str) else list(status)
            query = query.where(Match.status.in_(wanted))
        query = query.order_by(Match.tournament_id, Match.round, Match.key).offset(offset)
        if limit is not None:
            query = query.limit(limit)
        return self._match_rows(query)

    def count_matches(self, tournament_id: int) -> dict[str, int]:
        """Matches by status, every status present (0 when none)."""
        counts: dict[str, int] = dict.fromkeys(MATCH_STATUSES, 0)
        query = (
            select(Match.status, func.count())
            .where(Match.tournament_id == tournament_id)
            .group_by(Match.status)
        )
        with self._reading("cannot count matches") as session:
            for status, count in session.execute(query):
                counts[status] = count
        return counts

    def get_match(self, match_id: int) -> MatchRow | None:
        found = self._match_rows(_MATCHES.where(Match.id == match_id))
        return found[0] if found else None

    def find_match(self, tournament_id: int, key: str) -> MatchRow | None:
        """The match called `key` in the tournament, or None."""
        found = self._match_rows(_MATCHES.where(Match.tournament_id == tournament_id, Match.key == key))
        return found[0] if found else None

    def _match_rows(self, query: Select[Any]) -> list[MatchRow]:
        """MatchRows for a query of _MATCHES, with their finished matches' players (Core queries: the
        ORM would cost several times more per row)."""
        with self._read_connection("cannot read matches") as conn:
            matches = conn.execute(query).all()
            finished = [m.id for m in matches if m.status == "finished"]
            players: dict[int, list[Any]] = defaultdict(list)
            for start in range(0, len(finished), _CHUNK):
                chosen = _PLAYERS.where(MatchPlayer.match_id.in_(finished[start : start + _CHUNK]))
                for player in conn.execute(chosen):
                    players[player.match_id].append(player)
        return [_match_row(m, players.get(m.id)) for m in matches]

    def mark_running(self, tournament_id: int, key: str) -> None:
        """Status running, one more attempt, started now. A finished match is left alone."""
        with self._write_connection(f"cannot update match {key!r}") as conn:
            result = conn.execute(
                _MARK_RUNNING, {"p_tournament_id": tournament_id, "p_key": key, "p_now": utcnow()}
            )
            if result.rowcount == 0:
                self._require_match(conn, tournament_id, key)

    def mark_running_many(self, tournament_id: int, keys: Sequence[str]) -> None:
        """`mark_running` for several matches in one transaction (a coordinator's batch)."""
        if not keys:
            return
        with self._write_connection(f"cannot update matches of tournament {tournament_id}") as conn:
            for start in range(0, len(keys), _CHUNK):
                chunk = list(keys[start : start + _CHUNK])
                params = {"p_tournament_id": tournament_id, "p_keys": chunk, "p_now": utcnow()}
                if conn.execute(_MARK_RUNNING_MANY, params).rowcount < len(set(chunk)):
                    for key in chunk:  # the rare path: a finished one, or one that does not exist
                        self._require_match(conn, tournament_id, key)

    def record_result(
        self,
        tournament_id: int,
        key: str,
        *,
        ranks: Sequence[int],
        scores: Sequence[float],
        statuses: Sequence[Mapping[str, int]],
        time_used_ms: Sequence[float],
        steps: int,
        duration_s: float,
        replay_gz: bytes = b"",
        replay_hash: str | None = None,
        failures: Sequence[Mapping[str, Any] | None] | None = None,
    ) -> bool:
        """Record a finished match exactly once: True if this call recorded it, False (and nothing
        changed) if it was already finished. (`record_results` for one match.)

        `replay_hash` instead of `replay_gz`: a worker wrote the replay to the store's shared
        location itself; ReplayMissing (a StoreError) if it is not there. `failures`: per seat, its
        failures (`botarena.tournament.failures.seat_failures`), kept with its result."""
        result = MatchRecord(
            key, ranks, scores, statuses, time_used_ms, steps, duration_s, replay_gz, replay_hash, failures
        )
        return self.record_results(tournament_id, [result])[0]

    def record_results(
        self,
        tournament_id: int,
        results: Sequence[MatchRecord],
        *,
        within: Callable[[Connection, Mapping[str, int]], None] | None = None,
    ) -> list[bool]:
        """Record finished matches exactly once each, in one transaction: for each result, True if
        this call recorded it, False (and nothing changed) if it was already finished (or repeated
        earlier in `results`).

        `within(conn, recorded)` runs inside that transaction with the keys this call records (key
        -> match id, in match id order): what it writes commits with the results or not at all (the
        arena's ratings, `store/arena_runs.py`). It is not called when nothing is recorded.

        Raises StoreError, recording nothing, if a key is unknown, a result does not fit its match's
        seats, or a replay a worker wrote to the shared location (`replay_hash`) is not there
        (ReplayMissing). The replays are written first (by content hash: a crash after them leaves
        at most unreferenced replays), then one transaction marks the matches finished and writes
        their players.
        """
        if not results:
            return []
        found = self._find_matches(tournament_id, [r.key for r in results])
        chosen: dict[str, MatchRecord] = {}
        for result in results:
            match_id, status, seats = found[result.key]
            _check_result_fits(result, len(seats))
            if status != "finished" and result.key not in chosen:
                chosen[result.key] = result  # the cheap answer; the transaction decides for real
        if not chosen:
            return [False] * len(results)
        versions = self._entrant_versions(tournament_id)
        sent = [result for result in chosen.values() if result.replay_hash is None]
        written = dict(
            zip((r.key for r in sent), self.replays.write_many([r.replay_gz for r in sent]), strict=True)
        )
        rows = {}
        for key, result in chosen.items():
            match_id, _, seats = found[key]
            digest = written.get(key) or keep_replay(self.replays, b"", result.replay_hash, f"match {key!r}")
            rows[match_id] = (result, seats, digest)
        with self._write_connection(f"cannot record results of tournament {tournament_id}") as conn:
            # Exactly-once: only the matches still unfinished inside this write transaction are
            # written. On SQLite BEGIN IMMEDIATE made this the only writer; on PostgreSQL FOR UPDATE
            # locks the rows, so a concurrent recorder waits and then sees them finished.
            query = _UNFINISHED_OF.with_for_update() if self.dialect == "postgresql" else _UNFINISHED_OF
            open_ids = set(conn.scalars(query, {"p_ids": list(rows)}))
            if not open_ids:
                return [False] * len(results)
            now = utcnow()
            conn.execute(
                _FINISH,
                [
                    {
                        "p_match_id": match_id,
                        "p_replay_hash": digest,
                        "p_steps": int(result.steps),
                        "p_duration_s": float(result.duration_s),
                        "p_now": now,
                    }
                    for match_id, (result, _, digest) in rows.items()
                    if match_id in open_ids
                ],
            )
            players = [
                _player_row(match_id, seat, name, versions.get(name), result)
                for match_id, (result, seats, _) in rows.items()
                if match_id in open_ids
                for seat, name in enumerate(seats)
            ]
            conn.execute(_INSERT_PLAYERS, players)
            if within is not None:
                now_recorded = {rows[match_id][0].key: match_id for match_id in sorted(open_ids)}
                within(conn, now_recorded)
        recorded = {result.key for match_id, (result, _, _) in rows.items() if match_id in open_ids}
        answers = []
        for result in results:  # a repeated key is recorded once: the first occurrence says so
            answers.append(result.key in recorded)
            recorded.discard(result.key)
        return answers

    def _find_matches(self, tournament_id: int, keys: Sequence[str]) -> dict[str, tuple[int, str, list[str]]]:
        """(id, status, seats) of each match by key; StoreError naming the first unknown key."""
        found: dict[str, tuple[int, str, list[str]]] = {}
        unique = list(dict.fromkeys(keys))
        with self._read_connection("cannot read matches") as conn:
            for start in range(0, len(unique), _CHUNK):
                params = {"p_tournament_id": tournament_id, "p_keys": unique[start : start + _CHUNK]}
                for match_id, key, status, seats in conn.execute(_FIND_MANY, params):
                    found[key] = (match_id, status, list(seats))
        for key in unique:
            if key not in found:
                raise StoreError(f"no match {key!r} in tournament {tournament_id}")
        return found

    def record_failure(self, tournament_id: int, key: str, error: str) -> None:
        """Status failed with the reason, unless the match already finished (a result is never lost)."""
        with self._write_connection(f"cannot update match {key!r}") as conn:
            params = {
                "p_tournament_id": tournament_id,
                "p_key": key,
                "p_error": error[:MAX_ERROR_CHARS],
                "p_now": utcnow(),
            }
            result = conn.execute(_FAIL, params)
            if result.rowcount == 0:
                self._require_match(conn, tournament_id, key)

    def record_empty(self, tournament_id: int, key: str, reason: str) -> None:
        """Status empty (a real-time round nobody registered for: never played, and no failure),
        with the reason in `error`; a finished match is left alone."""
        with self._write_connection(f"cannot update match {key!r}") as conn:
            params = {
                "p_tournament_id": tournament_id,
                "p_key": key,
                "p_error": reason[:MAX_ERROR_CHARS],
                "p_now": utcnow(),
            }
            if conn.execute(_EMPTY, params).rowcount == 0:
                self._require_match(conn, tournament_id, key)

    def postpone(self, tournament_id: int, key: str, error: str) -> None:
        """The platform could not play the match (a lost worker, a full disk, no sandbox): back to
        scheduled, with the reason in `error`, for a later run (`--resume`) to play. Unlike
        `record_failure` this is no result: the match is neither failed nor rated. A finished match
        is left alone."""
        with self._write_connection(f"cannot update match {key!r}") as conn:
            params = {"p_tournament_id": tournament_id, "p_key": key, "p_error": error[:MAX_ERROR_CHARS]}
            if conn.execute(_POSTPONE, params).rowcount == 0:
                self._require_match(conn, tournament_id, key)

    def reset_running(self, tournament_id: int) -> int:
        """Matches left running by a dead process go back to scheduled; returns how many."""
        with self._write_connection(f"cannot update tournament {tournament_id}") as conn:
            result = conn.execute(
                update(Match)
                .where(Match.tournament_id == tournament_id, Match.status == "running")
                .values(status="scheduled")
            )
            return result.rowcount

    @staticmethod
    def _require_match(conn: Connection, tournament_id: int, key: str) -> None:
        found = conn.scalar(_EXISTS, {"p_tournament_id": tournament_id, "p_key": key})
        if found is None:
            raise StoreError(f"no match {key!r} in tournament {tournament_id}")

    def _entrant_versions(self, tournament_id: int) -> dict[str, int]:
        """Entrant name -> bot version id (cached: a tournament's entrants never change)."""
        versions = self._versions.get(tournament_id)
        if versions is None:
            query = select(TournamentEntrant.name, TournamentEntrant.bot_version_id).where(
                TournamentEntrant.tournament_id == tournament_id
            )
            with self._read_connection("cannot read entrants") as conn:
                versions = {name: version for name, version in conn.execute(query)}
            self._versions[tournament_id] = versions
        return versions

    # -------------------------------------------------------------------------------- ratings

    def save_ratings(self, tournament_id: int, ratings: Iterable[RatingLike]) -> None:
        """Replace the tournament's ratings with these."""
        now = utcnow()
        rows = {
            r.name: {
                "tournament_id": tournament_id,
                "name": r.name,
                "mu": float(r.mu),
                "sigma": float(r.sigma),
                "ordinal": float(r.ordinal),
                "played": int(r.played),
                "updated_at": now,
            }
            for r in ratings
        }
        with self._writing(f"cannot save ratings of tournament {tournament_id}") as session:
            if session.get(Tournament, tournament_id) is None:
                raise StoreError(f"no tournament {tournament_id}")
            session.execute(delete(Rating).where(Rating.tournament_id == tournament_id))
            if rows:
                session.execute(insert(Rating), list(rows.values()))

    def ratings(self, tournament_id: int) -> list[RatingRow]:
        """The saved ratings, best ordinal first (ties by name)."""
        query = (
            select(Rating)
            .where(Rating.tournament_id == tournament_id)
            .order_by(Rating.ordinal.desc(), Rating.name)
        )
        with self._reading("cannot read ratings") as session:
            return [RatingRow(r.name, r.mu, r.sigma, r.ordinal, r.played) for r in session.scalars(query)]

    # -------------------------------------------------------------------------------- replays

    def remove_unrecorded_replays(self, match_ids: Collection[str]) -> int:
        """Delete the replays that no match references and that are replays of the matches named
        (`Replay.match_id`) in `match_ids`; returns how many.

        A replay is written before its match is recorded (by the coordinator in `record_results`,
        or by a worker to the shared location), so a coordinator killed or stopped in between leaves
        one that nothing references. The coordinator of a tournament calls this before it plays
        again, with the ids of its matches that were tried and never finished: nothing else can be
        writing those matches' replays then, and a replay that any match references (of this
        tournament or another) is never touched."""
        wanted = set(match_ids)
        if not wanted:
            return 0
        query = select(Match.replay_hash).where(Match.replay_hash.is_not(None)).distinct()
        with self._read_connection("cannot read the recorded replays") as conn:
            referenced = set(conn.scalars(query))
        removed = 0
        for digest in list(self.replays.digests()):
            if digest in referenced:
                continue
            try:
                match_id = parse_replay(self.replays.read(digest), f"replay {digest}").match_id
            except (ReplayError, StoreError):  # damaged, or gone meanwhile: not this sweep's to judge
                continue
            if match_id in wanted:
                self.replays.remove(digest)
                removed += 1
        return removed

    def read_replay(self, digest: str) -> bytes:
        """The gzip bytes of the replay with this hash (MatchRow.replay_hash), checked against it:
        ReplayMissing or ReplayDamaged (StoreErrors, one line) when it is gone or damaged."""
        return self.replays.read(digest)

    def load_replay(self, digest: str) -> Replay:
        """The replay with this hash, parsed (StoreError, or ReplayError for bytes that are no replay)."""
        return parse_replay(self.read_replay(digest), f"replay {digest}")

    def replay_path(self, digest: str) -> Path:
        """The file of the replay with this hash, when the replays are files (StoreError otherwise)."""
        path = getattr(self.replays, "path", None)
        if path is None:
            raise StoreError(f"the replays of this store are in {self.replays.location}, not in files")
        result: Path = path(digest)
        return result


def _check_result_fits(result: MatchRecord, seats: int) -> None:
    per_seat = {
        "ranks": result.ranks,
        "scores": result.scores,
        "statuses": result.statuses,
        "time_used_ms": result.time_used_ms,
    }
    for label, values in per_seat.items():
        if len(values) != seats:
            raise StoreError(f"match {result.key!r}: {len(values)} {label} for {seats} seats")
    failures = result.failures
    if failures is not None:
        if len(failures) != seats:
            raise StoreError(f"match {result.key!r}: {len(failures)} failures for {seats} seats")
        _check_json(list(failures), f"match {result.key!r}: failures")


def _player_row(
    match_id: int, seat: int, name: str, version: int | None, result: MatchRecord
) -> dict[str, Any]:
    return {
        "match_id": match_id,
        "seat": seat,
        "name": name,
        "bot_version_id": version,
        "rank": int(result.ranks[seat]),
        "score": float(result.scores[seat]),
        "statuses": {str(k): int(v) for k, v in result.statuses[seat].items()},
        "time_used_ms": float(result.time_used_ms[seat]),
        "failure": _seat_failure(result, seat),
    }


def _seat_failure(result: MatchRecord, seat: int) -> dict[str, Any] | None:
    """The seat's failure summary, if the record has them (one made without them has None)."""
    failure = result.failures[seat] if result.failures is not None else None
    return dict(failure) if failure else None


def _check_int64(value: int, what: str) -> None:
    if not -(2**63) <= int(value) < 2**63:
        raise StoreError(f"{what} {value} does not fit in 64 bits")


def _check_json(value: object, what: str) -> None:
    try:
        eng.json_dumps(value)
    except TypeError as error:
        raise StoreError(f"{what}: {error}") from None


def _default_replay_dir(url: URL) -> Path | None:
    """`replays/` next to a SQLite file, `./var/replays` for an in-memory one, None (the database)
    for PostgreSQL."""
    if url.get_backend_name() == "postgresql":
        return None
    path = eng.sqlite_file(url)
    return path.parent / "replays" if path is not None else Path("var") / "replays"


def _bot_version_row(version: BotVersion, bot: Bot) -> BotVersionRow:
    return BotVersionRow(
        id=version.id,
        bot_id=bot.id,
        game=bot.game,
        name=bot.name,
        version=version.version,
        spec=version.spec,
        digest=version.digest or None,
        created_at=version.created_at,
        artifact=version.artifact,
        run_spec=version.run_spec,
    )


def _tournament_row(t: Tournament) -> TournamentRow:
    return TournamentRow(
        id=t.id,
        name=t.name,
        game=t.game,
        format=t.format,
        preset=t.preset,
        config=t.config,
        seed=t.seed,
        options=t.options,
        status=t.status,  # type: ignore[arg-type]
        created_at=t.created_at,
        finished_at=t.finished_at,
        entrants=[
            EntrantRow(
                e.name,
                e.bot_version_id,
                e.bot_version.spec,
                e.bot_version.version,
                e.bot_version.artifact,
                e.bot_version.run_spec,
            )
            for e in t.entrants
        ],
    )


def _match_row(m: Any, players: list[Any] | None) -> MatchRow:
    """A MatchRow from a _MATCHES row and its players in seat order (None unless finished)."""
    if m.status != "finished":
        players = None
    return MatchRow(
        id=m.id,
        tournament_id=m.tournament_id,
        key=m.key,
        round=m.round,
        seats=list(m.seats),
        seed=m.seed,
        status=m.status,
        attempts=m.attempts,
        error=m.error,
        replay_hash=m.replay_hash,
        ranks=None if players is None else [p.rank for p in players],
        scores=None if players is None else [p.score for p in players],
        statuses=None if players is None else [p.statuses for p in players],
        time_used_ms=None if players is None else [p.time_used_ms for p in players],
        failures=None if players is None else [p.failure for p in players],
        steps=m.steps,
        duration_s=m.duration_s,
        created_at=m.created_at,
        started_at=m.started_at,
        finished_at=m.finished_at,
    )
