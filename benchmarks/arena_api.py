"""The arena's API latency at scale while results land (specs/arena.md, goal G5: leaderboard page, team
page and match list p99 <= 50 ms, a 10 MiB upload POST p99 <= 1 s, at 1,000 teams and 100k matches with
10 results/s landing).

    .venv/bin/python benchmarks/arena_api.py [--full] [--db postgresql+psycopg://...] [--teams N]
        [--matches N] [--rate 10] [--requests 200] [--seconds 60] [--uploads 10] [--upload-mib 10]

1. Build: a competition (drones) with `--teams` teams, `--versions` versions each (the last active, the
   others retired), their ratings, and `--matches` finished matches of history (rated, a few
   validations) with their seats' results and rating history, bulk-inserted through the store's own
   models. SQLite in a temporary folder by default; `--db` names a PostgreSQL server, on which a scratch
   database of its own is created and dropped afterwards.
2. Serve: the real app (`botarena.server.app.serve`) under uvicorn on 127.0.0.1, in its own process.
3. Write: a process lands `--rate` rated results a second the way a coordinator does on main (see
   `land_result`): the match is added, its result recorded (`Store.record_results`), then its
   ratings, rating history, W/D/L counters and the rating epoch in one more transaction.
4. Read: a bounded loop (at most `--requests` rounds and `--seconds`) over the leaderboard's first and
   middle pages, a team page's reads (its versions, its own matches, its pairs) and the match list one
   cursor step in, then `--uploads` POSTs of a `--upload-mib` MiB zip of random files.

Every figure is printed: the sizes built, how long the build took, each route's p50/p99 and count, the
uploads' p50/p99, and the results the writer landed meanwhile. Defaults are small (100 teams, 10k
matches) so that it runs in a minute or two; `--full` gives the spec's sizes (1,000 teams, 100k matches).
"""

from __future__ import annotations

import argparse
import contextlib
import gzip
import http.client
import io
import multiprocessing
import os
import random
import re
import signal
import subprocess
import sys
import tempfile
import time
import zipfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from sqlalchemy import create_engine, func, insert, select, text, update

from botarena.arena.competitions import add_teams, check_setup, create_competition
from botarena.arena.rating import MU0, SIGMA0, VersionRating
from botarena.arena.rating import update as rate_match
from botarena.runner.record import MatchRecord
from botarena.store import Store
from botarena.store.arena import ArenaStore
from botarena.store.arena_reads import link_match_versions, rebuild_records, record_pair_results
from botarena.store.arena_versions import seat_name
from botarena.store.models import (
    BotVersion,
    Competition,
    Match,
    MatchPlayer,
    MatchVersion,
    RatingCurrent,
    RatingHistory,
    Team,
    Version,
)

CHUNK = 5000
OK_STATUSES = {"OK": 200}
REPLAY = gzip.compress(b'{"game": "drones", "bench": true}', mtime=0)
SERVER = """
import gc, sys, time
from botarena.server.app import serve
from botarena.store import Store

pauses, began, ready = [], [0.0], []

def watch(phase, info):  # the full collections once it serves: how many, and the longest pause
    if phase == "start":
        began[0] = time.perf_counter()
    elif info["generation"] == 2 and ready:
        pauses.append(time.perf_counter() - began[0])

def on_ready(url):
    ready.append(True)
    print(url, flush=True)

gc.callbacks.append(watch)
store = Store.open(sys.argv[1], replay_dir=sys.argv[2] or None, migrate=False)
serve(store, port=0, on_ready=on_ready)
print(f"gc {len(pauses)} {max(pauses, default=0.0) * 1000:.1f}", flush=True)
"""
# High quotas: the benchmark uploads several 10 MiB versions; the default policy would refuse them.
POLICY = {
    "uploads_per_hour": 10_000,
    "uploads_per_day": 100_000,
    "kept_versions": 1000,
    "team_bytes_mb": 100_000,
}


@dataclass
class Built:
    """What the build made: the competition, its tournament, each team's token and active version."""

    competition_id: int
    tournament_id: int
    tokens: dict[int, str]
    active: dict[int, int]  # team id -> its active version id
    sizes: dict[str, int] = field(default_factory=dict)


# ------------------------------------------------------------------------------------------ build


def build(store: Store, teams: int, versions_per_team: int, matches: int, seed: int) -> Built:
    """The competition with its teams, versions, ratings and `matches` finished matches of history."""
    rng = random.Random(seed)
    arena = ArenaStore(store)
    competition, _ = create_competition(arena, "bench", check_setup("drones"), policy=POLICY, seed=seed)
    arena.update_competition(competition.id, actor="bench", phase="open")
    added = add_teams(arena, competition.id, [f"team-{i:04d}" for i in range(teams)], actor="bench")
    tokens = {row.id: token.text for row, token in added}
    versions = _add_versions(store, [(row.id, row.bot_id) for row, _ in added], versions_per_team, rng)
    active = {team: ids[-1] for team, ids in versions.items()}
    _add_ratings(store, [v for ids in versions.values() for v in ids], rng)
    _add_history(store, competition.tournament_id, versions, matches, rng)
    _fix_sequences(store)
    with store.write_session("cannot count the records") as session:
        rebuild_records(session, competition.id)  # the W/D/L and pair counters of that history
    _settle(store)
    built = Built(competition.id, competition.tournament_id, tokens, active)
    built.sizes = sizes(store)
    return built


def _add_versions(
    store: Store, teams: list[tuple[int, int]], per_team: int, rng: random.Random
) -> dict[int, list[int]]:
    """Each team's bot versions and arena versions (the last active, the others retired), by team."""
    at = datetime.now(UTC) - timedelta(days=7)
    with store.write_session("cannot add versions") as session:
        rows = [
            {"bot_id": bot, "version": n, "spec": "python bot.py", "digest": f"{team:08x}{n:056x}"}
            for team, bot in teams
            for n in range(1, per_team + 1)
        ]
        _insert(session, BotVersion, rows)
        bot_versions = {
            (bot, n): i
            for i, bot, n in session.execute(select(BotVersion.id, BotVersion.bot_id, BotVersion.version))
        }
        rows = [
            {
                "team_id": team,
                "number": n,
                "bot_version_id": bot_versions[(bot, n)],
                "kind": "upload",
                "source_digest": f"{team:08x}{n:056x}",
                "state": "active" if n == per_team else "retired",
                "received_at": at + timedelta(minutes=n),
                "validated_at": at + timedelta(minutes=n, seconds=20),
                "activated_at": at + timedelta(minutes=n, seconds=21),
            }
            for team, bot in teams
            for n in range(1, per_team + 1)
        ]
        _insert(session, Version, rows)
        found: dict[int, list[int]] = {}
        for version, team in session.execute(select(Version.id, Version.team_id).order_by(Version.number)):
            found.setdefault(team, []).append(version)
    del rng
    return found


def _add_ratings(store: Store, versions: list[int], rng: random.Random) -> None:
    now = datetime.now(UTC)
    rows = [
        {
            "version_id": v,
            "mu": rng.gauss(MU0, 4.0),
            "sigma": rng.uniform(0.8, SIGMA0),
            "games": rng.randrange(0, 400),
            "updated_at": now,
        }
        for v in versions
    ]
    with store.write_session("cannot add ratings") as session:
        _insert(session, RatingCurrent, rows)


def _add_history(
    store: Store, tournament_id: int, versions: dict[int, list[int]], count: int, rng: random.Random
) -> None:
    """`count` finished matches between versions of two teams (95 % rated, 5 % validation), with
    their seats' results and, for the rated ones, their rating history; oldest first over 7 days."""
    teams = list(versions)
    start = datetime.now(UTC) - timedelta(days=7)
    step = timedelta(days=7) / max(count, 1)
    with store.write_session("cannot add the history") as session:
        first = (session.scalar(select(func.max(Match.id))) or 0) + 1
    for base in range(0, count, CHUNK):
        matches, players, history, links = [], [], [], []
        for i in range(base, min(count, base + CHUNK)):
            match_id = first + i
            one, two = rng.sample(teams, 2)
            seats = [rng.choice(versions[one]), rng.choice(versions[two])]
            kind = "validation" if rng.random() < 0.05 else "rated"
            at = start + step * i
            matches.append(_match_row(match_id, tournament_id, i, seats, kind, at, rng))
            ranks = rng.choice([(1, 2), (2, 1), (1, 1)])
            players.extend(_player_row(match_id, seat, seats[seat], ranks[seat], rng) for seat in (0, 1))
            links.extend({"match_id": match_id, "seat": seat, "version_id": seats[seat]} for seat in (0, 1))
            if kind == "rated":
                history.extend(_history_row(match_id, version, rng) for version in seats)
        with store.write_session("cannot add the history") as session:
            _insert(session, Match, matches)
            _insert(session, MatchPlayer, players)
            _insert(session, RatingHistory, history)
            _insert(session, MatchVersion, links)


def _match_row(
    match_id: int, tournament_id: int, i: int, seats: list[int], kind: str, at: datetime, rng: random.Random
) -> dict[str, Any]:
    return {
        "id": match_id,
        "tournament_id": tournament_id,
        "key": f"h{i}",
        "round": i,
        "seats": [seat_name(v) for v in seats],
        "seed": rng.randrange(2**62),
        "status": "finished",
        "attempts": 1,
        "replay_hash": None,
        "steps": 200,
        "duration_s": 1.5,
        "created_at": at - timedelta(seconds=3),
        "started_at": at - timedelta(seconds=2),
        "finished_at": at,
        "kind": kind,
        "reason": "validation" if kind == "validation" else "deficit",
    }


def _player_row(match_id: int, seat: int, version: int, rank: int, rng: random.Random) -> dict[str, Any]:
    return {
        "match_id": match_id,
        "seat": seat,
        "name": seat_name(version),
        "bot_version_id": None,
        "rank": rank,
        "score": float(rng.randrange(100)),
        "statuses": OK_STATUSES,
        "time_used_ms": 120.0,
        "failure": None,
    }


def _history_row(match_id: int, version: int, rng: random.Random) -> dict[str, Any]:
    mu = rng.gauss(MU0, 3.0)
    return {
        "match_id": match_id,
        "version_id": version,
        "mu_before": mu,
        "sigma_before": 2.0,
        "mu_after": mu + rng.uniform(-0.5, 0.5),
        "sigma_after": 1.98,
    }


def _insert(session: Any, model: Any, rows: list[dict[str, Any]]) -> None:
    for start in range(0, len(rows), CHUNK):
        chunk = rows[start : start + CHUNK]
        if chunk:
            session.execute(insert(model), chunk)


def _fix_sequences(store: Store) -> None:
    """PostgreSQL: move the matches' id sequence past the ids the build chose itself."""
    if store.dialect != "postgresql":
        return
    with store.write_session("cannot move the sequence") as session:
        session.execute(
            text("SELECT setval(pg_get_serial_sequence('matches', 'id'), (SELECT max(id) FROM matches))")
        )


def _settle(store: Store) -> None:
    """PostgreSQL: VACUUM ANALYZE after the bulk load, as autovacuum would have done by the time a real
    arena has that history (else it runs during the measurement, on the same 2 cores). SQLite's store
    is never analyzed in use, so neither is it here."""
    if store.dialect != "postgresql":
        return
    engine = create_engine(store.connect_url, isolation_level="AUTOCOMMIT")
    try:
        with engine.connect() as conn:
            conn.execute(text("VACUUM ANALYZE"))
    finally:
        engine.dispose()


def sizes(store: Store) -> dict[str, int]:
    """Rows of the tables the reads touch, and the database's bytes."""
    counted: dict[str, int] = {}
    with store.read_session("cannot count") as session:
        for label, model in (
            ("teams", Team),
            ("versions", Version),
            ("matches", Match),
            ("match_players", MatchPlayer),
            ("rating_history", RatingHistory),
        ):
            counted[label] = int(session.scalar(select(func.count()).select_from(model)) or 0)
        if store.dialect == "postgresql":
            counted["database_bytes"] = int(
                session.scalar(text("SELECT pg_database_size(current_database())"))
            )
        else:
            database = session.get_bind().url.database
            counted["database_bytes"] = os.path.getsize(database) if database else 0
    return counted


# ----------------------------------------------------------------------------------------- writer


def land_result(store: Store, competition_id: int, tournament_id: int, versions: list[int], n: int) -> None:
    """One rated result landed as a coordinator on main can: the match added with its seat links,
    its result recorded (`Store.record_results`), then its ratings, rating history, W/D/L and pair
    counters (`record_pair_results`) and the epoch bump in one transaction. (The coordinator's own
    `record_rated`, not on main yet, does the last two steps in one transaction.)"""
    rng = random.Random(n)
    seats = rng.sample(versions, 2)
    key = f"w{os.getpid()}-{n}"
    names = [seat_name(v) for v in seats]
    store.add_matches(tournament_id, [_Spec(key, 1_000_000 + n, names, n)])
    with store.write_session("cannot link the seats") as session:  # (the coordinator: with the match)
        added = session.scalar(select(Match.id).where(Match.tournament_id == tournament_id, Match.key == key))
        link_match_versions(session, int(added or 0), names)
    ranks = list(rng.choice([(1, 2), (2, 1), (1, 1)]))
    record = MatchRecord(key, ranks, [1.0, 0.0], [OK_STATUSES, OK_STATUSES], [100.0, 100.0], 200, 1.5, REPLAY)
    store.record_results(tournament_id, [record])
    with store.write_session("cannot rate the result") as session:
        match_id = session.scalar(
            select(Match.id).where(Match.tournament_id == tournament_id, Match.key == key)
        )
        current = {
            r.version_id: VersionRating(r.mu, r.sigma, r.games)
            for r in session.scalars(select(RatingCurrent).where(RatingCurrent.version_id.in_(seats)))
        }
        rated = rate_match(current, dict(zip(seats, ranks, strict=True)), int(match_id or 0))
        for version, rating in rated.ratings.items():
            session.execute(
                update(RatingCurrent)
                .where(RatingCurrent.version_id == version)
                .values(mu=rating.mu, sigma=rating.sigma, games=rating.games)
            )
        session.add_all(
            RatingHistory(
                match_id=row.match_id,
                version_id=row.version,
                mu_before=row.mu_before,
                sigma_before=row.sigma_before,
                mu_after=row.mu_after,
                sigma_after=row.sigma_after,
            )
            for row in rated.rows
        )
        record_pair_results(session, list(seats), ranks)
        session.execute(
            update(Competition)
            .where(Competition.id == competition_id)
            .values(rating_epoch=Competition.rating_epoch + 1)
        )


@dataclass(frozen=True)
class _Spec:
    key: str
    round: int
    seats: list[str]
    seed: int


def writer(
    url: str, replays: str, ids: tuple[int, int], versions: list[int], rate: float, stop: Any, landed: Any
) -> None:
    """Land `rate` results a second (on a fixed cadence, not after each other) until `stop` is set."""
    store = Store.open(url, replay_dir=replays or None, migrate=False)
    period = 1.0 / rate
    due = time.monotonic()
    n = 0
    try:
        while not stop.is_set():
            land_result(store, ids[0], ids[1], versions, n)
            n += 1
            landed.value = n
            due += period
            pause = due - time.monotonic()
            if pause > 0:
                stop.wait(pause)
    finally:
        store.close()


# ----------------------------------------------------------------------------------------- server


class Server:
    """The app under uvicorn in a process of its own."""

    def __init__(self, url: str, replays: str) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-c", SERVER, url, replays], stdout=subprocess.PIPE, text=True
        )
        assert self.process.stdout is not None
        found = re.search(r":(\d+)/", self.process.stdout.readline())
        if found is None:
            self.stop()
            raise SystemExit("the server did not start")
        self.port = int(found.group(1))
        self.conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=120)

    def call(
        self,
        method: str,
        path: str,
        token: str | None = None,
        body: bytes | None = None,
        headers: dict[str, str] | None = None,
    ) -> tuple[int, bytes, float]:
        """(status, body, seconds) of one request on a kept-alive connection."""
        sent = dict(headers or {})
        if token is not None:
            sent["Authorization"] = f"Bearer {token}"
        started = time.perf_counter()
        self.conn.request(method, path, body=body, headers=sent)
        reply = self.conn.getresponse()
        data = reply.read()
        return reply.status, data, time.perf_counter() - started

    def cpu_s(self) -> float:
        """The server process's CPU time so far (user + system), from /proc (0 where there is none)."""
        try:
            fields = Path(f"/proc/{self.process.pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            return 0.0
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def stop(self) -> str:
        """Stop the server; what it said of its full garbage collections (or "")."""
        self.conn.close()
        self.process.send_signal(signal.SIGINT)  # (Ctrl-C: serve returns and the script reports)
        try:
            said, _ = self.process.communicate(timeout=30)
        except subprocess.TimeoutExpired:
            self.process.kill()
            return ""
        found = re.search(r"^gc (\d+) ([\d.]+)$", said or "", re.M)
        return f"{found.group(1)} full collections, the longest {found.group(2)} ms" if found else ""


# ------------------------------------------------------------------------------------------ reads


def routes(
    built: Built, rng: random.Random, newest: int, oldest: int
) -> dict[str, Callable[[], tuple[str, str | None]]]:
    """Route label -> a function giving the next (path, token) to ask."""
    cid = built.competition_id
    middle = len(built.tokens) // 2
    teams = list(built.tokens)

    def team() -> int:
        return rng.choice(teams)

    def own_matches() -> tuple[str, str | None]:
        tid = team()
        return f"/api/competitions/{cid}/matches?team={tid}&limit=50", built.tokens[tid]

    def versions() -> tuple[str, str | None]:
        tid = team()
        return f"/api/competitions/{cid}/teams/{tid}/versions", built.tokens[tid]

    return {
        "leaderboard, first page": lambda: (f"/api/competitions/{cid}/leaderboard?offset=0&limit=50", None),
        "leaderboard, middle page": lambda: (
            f"/api/competitions/{cid}/leaderboard?offset={middle}&limit=50",
            None,
        ),
        "team page: versions": versions,
        "team page: own matches": own_matches,
        "team page: pairs": lambda: (f"/api/competitions/{cid}/teams/{team()}/pairs", None),
        "match list, cursor": lambda: (
            f"/api/competitions/{cid}/matches?limit=50&before={rng.randrange(oldest + 1, newest + 1)}",
            None,
        ),
    }


def read_loop(
    server: Server, asks: dict[str, Callable[[], tuple[str, str | None]]], rounds: int, seconds: float
) -> tuple[dict[str, list[float]], dict[str, float]]:
    """Ask every route in turn, at most `rounds` times each and for at most `seconds`: each route's
    wall times, and the server's CPU seconds spent on it in all (a figure the other load on the
    machine does not inflate, unlike the wall times)."""
    times: dict[str, list[float]] = {label: [] for label in asks}
    cpu = dict.fromkeys(asks, 0.0)
    deadline = time.monotonic() + seconds
    for _ in range(rounds):
        if time.monotonic() > deadline:
            break
        for label, ask in asks.items():
            path, token = ask()
            used = server.cpu_s()
            status, data, took = server.call("GET", path, token)
            cpu[label] += server.cpu_s() - used
            if status != 200:
                raise SystemExit(f"{label}: GET {path} answered {status}: {data[:200]!r}")
            times[label].append(took)
    return times, cpu


def upload_zip(mib: float, rng: random.Random) -> bytes:
    """A zip of about `mib` MiB of random files (incompressible) with a bot.py."""
    buffer = io.BytesIO()
    budget = int(mib * (1 << 20)) - 64 * 1024
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_STORED) as archive:
        archive.writestr("bot.py", f"# {rng.random()}\ndef act(observation):\n    return {{}}\n")
        for i in range(0, budget, 1 << 20):
            archive.writestr(f"data/{i >> 20:03d}.bin", rng.randbytes(min(1 << 20, budget - i)))
    return buffer.getvalue()


def multipart(data: bytes) -> tuple[bytes, dict[str, str]]:
    boundary = f"bench{random.getrandbits(64):016x}"
    head = (
        f'--{boundary}\r\nContent-Disposition: form-data; name="file"; filename="bot.zip"\r\n'
        "Content-Type: application/zip\r\n\r\n"
    ).encode()
    body = head + data + f"\r\n--{boundary}--\r\n".encode()
    return body, {"Content-Type": f"multipart/form-data; boundary={boundary}"}


def uploads(
    server: Server, built: Built, count: int, mib: float, rng: random.Random
) -> tuple[list[float], int, float]:
    """`count` upload POSTs, each by another team: their seconds, the body size, the server's CPU."""
    times, size, cpu = [], 0, 0.0
    teams = list(built.tokens)
    for i in range(count):
        tid = teams[i % len(teams)]
        body, headers = multipart(upload_zip(mib, rng))
        size = len(body)
        path = f"/api/competitions/{built.competition_id}/teams/{tid}/versions"
        used = server.cpu_s()
        status, data, took = server.call("POST", path, built.tokens[tid], body, headers)
        cpu += server.cpu_s() - used
        if status not in (200, 201):
            raise SystemExit(f"upload answered {status}: {data[:300]!r}")
        times.append(took)
    return times, size, cpu


def percentile(values: list[float], share: float) -> float:
    """The nearest-rank percentile (`share` in [0, 1])."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, int(share * len(ordered) + 0.999999) - 1))]


def report(label: str, times: list[float], cpu_s: float | None = None) -> None:
    if not times:
        print(f"  {label:<28} no requests")
        return
    # (the server's CPU is counted in clock ticks: a mean over many requests, not one request's)
    cpu = "" if cpu_s is None else f"  server CPU {cpu_s / len(times) * 1000:6.1f} ms/request"
    print(
        f"  {label:<28} p50 {percentile(times, 0.5) * 1000:8.1f} ms"
        f"  p99 {percentile(times, 0.99) * 1000:8.1f} ms  max {max(times) * 1000:8.1f} ms"
        f"  n={len(times)}{cpu}"
    )


# ------------------------------------------------------------------------------------------- main


@contextlib.contextmanager
def scratch_store(url: str | None) -> Iterator[tuple[Store, str]]:
    """(a fresh store, its replay folder or "") on SQLite or a scratch PostgreSQL database."""
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from scratch_stores import postgres_store

    if url is None:
        with tempfile.TemporaryDirectory(prefix="botarena-arena-api-") as root:
            store = Store.open(f"sqlite:///{Path(root) / 'arena.db'}", replay_dir=Path(root) / "replays")
            try:
                yield store, str(Path(root) / "replays")
            finally:
                store.close()
    else:
        with postgres_store(url) as store:
            yield store, ""


def _first_result(landed: Any, process: Any, limit_s: float = 120.0) -> None:
    """Wait until the writer has landed its first result, so that every read is made while results land."""
    deadline = time.monotonic() + limit_s
    while landed.value < 1:
        if not process.is_alive() or time.monotonic() > deadline:
            raise SystemExit("the writer process landed no result")
        time.sleep(0.05)


def run(args: argparse.Namespace) -> None:
    rng = random.Random(args.seed)
    with scratch_store(args.db) as (store, replays):
        started = time.perf_counter()
        built = build(store, args.teams, args.versions, args.matches, args.seed)
        took = time.perf_counter() - started
        shown = ", ".join(f"{k} {v:,}" for k, v in built.sizes.items())
        print(f"built on {store.dialect} in {took:.1f} s: {shown}")
        with store.read_session("cannot read") as session:
            oldest, newest = session.execute(select(func.min(Match.id), func.max(Match.id))).one()
        server = Server(store.connect_url, replays)
        context = multiprocessing.get_context("spawn")
        stop, landed = context.Event(), context.Value("i", 0)
        process = context.Process(
            target=writer,
            args=(
                store.connect_url,
                replays,
                (built.competition_id, built.tournament_id),
                list(built.active.values()),
                args.rate,
                stop,
                landed,
            ),
        )
        process.start()
        try:
            _first_result(landed, process)
            began, before = time.monotonic(), landed.value
            times, cpu = read_loop(
                server, routes(built, rng, int(newest), int(oldest)), args.requests, args.seconds
            )
            upload_times, body, upload_cpu = uploads(server, built, args.uploads, args.upload_mib, rng)
            elapsed = time.monotonic() - began
        finally:
            stop.set()
            process.join(60)
            collections = server.stop()
        during = landed.value - before
        print(
            f"while {during} results landed in {elapsed:.1f} s"
            f" ({during / elapsed:.1f}/s, target {args.rate:g}/s;"
            f" load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores):"
        )
        for label, values in times.items():
            report(label, values, cpu[label])
        report(f"upload POST {body / (1 << 20):.1f} MiB", upload_times, upload_cpu)
        print(f"  the server's garbage collector: {collections or 'not reported'}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--full", action="store_true", help="the spec's sizes: 1,000 teams, 100k matches")
    parser.add_argument("--db", help="a PostgreSQL URL (a scratch database is made there); default SQLite")
    parser.add_argument("--teams", type=int, default=None, help="teams (default 100, --full 1000)")
    parser.add_argument("--versions", type=int, default=3, help="versions per team (the last active)")
    parser.add_argument(
        "--matches", type=int, default=None, help="matches of history (default 10k, --full 100k)"
    )
    parser.add_argument("--rate", type=float, default=10.0, help="results landed per second meanwhile")
    parser.add_argument("--requests", type=int, default=200, help="rounds of the GET loop, at most")
    parser.add_argument("--seconds", type=float, default=60.0, help="the GET loop's time, at most")
    parser.add_argument("--uploads", type=int, default=10, help="upload POSTs")
    parser.add_argument("--upload-mib", type=float, default=10.0, help="each upload's size, MiB")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    args.teams = args.teams or (1000 if args.full else 100)
    args.matches = args.matches if args.matches is not None else (100_000 if args.full else 10_000)
    if args.teams < 2 or args.versions < 1 or args.rate <= 0:
        parser.error("at least 2 teams, 1 version each and a positive --rate")
    run(args)


if __name__ == "__main__":
    main()
