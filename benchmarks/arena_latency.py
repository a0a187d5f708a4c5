"""G1 and G4 (real) of specs/arena.md: upload -> first rated match, and slot utilisation, on a real run of
`botarena serve` and `botarena arena run` (2 workers, drones default preset) with 20 teams already active.

    .venv/bin/python benchmarks/arena_latency.py [--teams 20] [--uploads 6] [--mean-gap 8] [--workers 2]
    .venv/bin/python benchmarks/arena_latency.py --uploads 20 --mean-gap 15     # the spec's full size
    .venv/bin/python benchmarks/arena_latency.py --uploads 90 --mean-gap 20 --stallers 1 --timeout 2400
                                                 # G3/G4 real: about 30 minutes, one staller

A competition of `--teams` teams, each with an active version (a drones bot in Python, packed as the
upload route packs it and activated at the prior: the event's state before the measured uploads), is
created in a SQLite store under a temporary folder. Then the server (`botarena serve`) and the
coordinator (`botarena arena run`) start as their own processes, and `--uploads` new versions arrive
at random intervals (exponential, mean `--mean-gap` s) for random teams, each a zip sent to the upload
route with the team's token (`ArenaClient.upload`, as `botarena submit` sends it). When every upload
has been judged and rated (read back through the version route) or `--timeout` passes, both are
stopped with Ctrl-C and the figures are read from the store:

- upload -> first rated match: `first_rated_match_at - received_at` of each upload, p50 and p99 (G1);
- slot utilisation: the workers' busy seconds (each match's own `duration_s`, from the worker: it
  started `duration_s` before it was recorded) over `workers` x the window from the first upload to
  the last rated result (G4 real);
- games per team over its fair share (G3 real): each team's rated games in that window over the mean
  of every team's (every team has an active version for the whole window, so the fair share is the
  mean), the lowest and highest ratio and the p10/p50/p90.
The figures are printed, never asserted.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import io
import os
import random
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import zipfile
from collections import Counter
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path

import aiohttp

from botarena.arena.archive import check_upload, pack_upload
from botarena.arena.competitions import add_team, check_setup, create_competition, policy_of
from botarena.arena.rating import MU0, SIGMA0
from botarena.clients.arena import ArenaClient
from botarena.store import Store
from botarena.store.arena import ArenaStore, CompetitionRow, TeamRow
from botarena.store.arena_runs import ArenaRunStore, RatingWrite
from botarena.store.arena_versions import seat_version
from botarena.store.rows import MatchRow

BOTS = [
    'def act(obs):\n    return {"newProducers": obs["producers"], "newSoldiers": 0, "launchAttack": False}\n',
    "def act(obs):\n"
    '    return {"newProducers": 0, "newSoldiers": obs["producers"], "launchAttack": obs["turn"] % 3 == 2}\n',
]

STALLER = "import time\n\ndef act(obs):\n    time.sleep(600)\n"


def upload(store: Store, competition: CompetitionRow, team: TeamRow, source: str, *, state: str) -> int:
    """A version of `team` whose bot.py is `source`, checked, packed and stored as an upload is."""
    policy = policy_of(competition)
    packed = pack_upload(check_upload(zipped(source), "bot.zip", policy), policy)
    store.put_artifact(packed.digest, packed.data)
    bot = store.register_bot(
        competition.game, f"arena-{competition.id}/{team.name}", f"arena:{packed.digest}", packed.digest,
        artifact=packed.digest, run_spec=packed.run_spec,
    )  # fmt: skip
    return ArenaRunStore(store).add_version(
        team.id, kind="upload", bot_version_id=bot.id, source_digest=packed.digest, state=state
    )


def build(store: Store, teams: int, stallers: int) -> tuple[CompetitionRow, list[tuple[TeamRow, str]]]:
    """The competition, open, with `teams` teams and an active version each (the first `stallers` of
    them stall); each team's token. The stallers' teams upload nothing more."""
    arena = ArenaStore(store)
    competition, _ = create_competition(arena, "latency", check_setup("drones"), actor="bench")
    made = [add_team(arena, competition.id, f"team{i}", actor="bench") for i in range(teams)]
    competition = arena.update_competition(competition.id, actor="bench", phase="open")
    runs = ArenaRunStore(store)
    for i, (team, _) in enumerate(made):
        source = STALLER if i < stallers else BOTS[i % 2] + f"# team {i}\n"
        version = upload(store, competition, team, source, state="ready")
        runs.activate(competition.id, version, None, RatingWrite(version, MU0, SIGMA0, 0))
    return competition, [(team, token.text) for team, token in made[stallers:]]


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def start(command: list[str], root: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "botarena", *command], cwd=root, start_new_session=True,
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip


async def until_serving(url: str, server: subprocess.Popen[str], deadline_s: float = 120.0) -> None:
    async with asyncio.timeout(deadline_s), aiohttp.ClientSession() as session:
        while server.poll() is None:
            try:
                async with session.get(f"{url}/api/competitions") as answer:
                    if answer.status == 200:
                        return
            except aiohttp.ClientError:
                pass
            await asyncio.sleep(0.2)
    raise RuntimeError(f"the server exited: {server.stderr.read() if server.stderr else ''}")


def zipped(source: str) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("bot.py", source)
    return buffer.getvalue()


async def send_uploads(
    url: str, teams: list[tuple[TeamRow, str]], args: argparse.Namespace, quota: int
) -> list[tuple[str, int]]:
    """`args.uploads` zips sent to the upload route at random intervals, for random teams under
    their hourly quota: (token, version id) of each."""
    rng = random.Random(args.seed)
    sent = {team.id: 1 for team, _ in teams}  # each team's first version counts against the quota
    uploaded: list[tuple[str, int]] = []
    for n in range(args.uploads):
        await asyncio.sleep(rng.expovariate(1.0 / args.mean_gap))
        team, token = rng.choice([entry for entry in teams if sent.get(entry[0].id, 0) < quota])
        sent[team.id] = sent.get(team.id, 0) + 1
        answer = await ArenaClient(url, token).upload(zipped(BOTS[n % 2] + f"# upload {n}\n"), "bot.zip")
        uploaded.append((token, int(answer.version["id"])))
    return uploaded


async def until_judged(url: str, uploaded: list[tuple[str, int]], deadline_s: float) -> None:
    """Until every upload has a first rated match or was rejected, read through the version route."""
    waiting = list(uploaded)
    with contextlib.suppress(TimeoutError):
        async with asyncio.timeout(deadline_s):
            while waiting:
                token, version_id = waiting[0]
                shown = await ArenaClient(url, token).version(version_id)
                if shown.get("first_rated_match_at") or shown.get("state") == "rejected":
                    waiting.pop(0)
                else:
                    await asyncio.sleep(0.5)


async def measure(url: str, server: subprocess.Popen[str], teams: list[tuple[TeamRow, str]],
                  args: argparse.Namespace, quota: int) -> list[int]:  # fmt: skip
    await until_serving(url, server)
    started = time.monotonic()
    uploaded = await send_uploads(url, teams, args, quota)
    await until_judged(url, uploaded, args.timeout - (time.monotonic() - started))
    return [version_id for _, version_id in uploaded]


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(share * (len(ordered) - 1))))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--teams", type=int, default=20)
    parser.add_argument("--uploads", type=int, default=6)
    parser.add_argument("--mean-gap", type=float, default=8.0, help="mean seconds between two uploads")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--timeout", type=float, default=600.0)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--stallers", type=int, default=0, help="teams whose bot stalls 600 s a turn")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="botarena-latency-") as root:
        db = f"sqlite:///{Path(root) / 'arena.db'}"
        store = Store.open(db)
        competition, teams = build(store, args.teams, args.stallers)
        quota = policy_of(competition).uploads_per_hour
        if args.uploads > (quota - 1) * len(teams):
            parser.error(f"{args.uploads} uploads: over {len(teams)} teams x {quota - 1} more an hour")
        port = free_port()
        server = start(["serve", "--db", db, "--port", str(port)], root)
        coordinator = start(
            [
                "arena",
                "run",
                "--competition",
                str(competition.id),
                "--db",
                db,
                "--workers",
                str(args.workers),
            ],
            root,
        )
        uploaded: list[int] = []
        try:
            uploaded = asyncio.run(measure(f"http://127.0.0.1:{port}", server, teams, args, quota))
        finally:
            outputs = []
            for process in (coordinator, server):
                process.send_signal(signal.SIGINT)
                outputs.append(process.communicate(timeout=120))
        report(store, competition, uploaded, args.workers, *outputs[0])
        store.close()


def report(
    store: Store, competition: CompetitionRow, uploaded: list[int], workers: int, out: str, err: str
) -> None:
    runs = ArenaRunStore(store)
    versions = [runs.get_version(v) for v in uploaded]
    latencies = [
        (v.first_rated_match_at - v.received_at).total_seconds()
        for v in versions
        if v is not None and v.first_rated_match_at is not None
    ]
    print(f"arena run: {out.strip().splitlines()[-1] if out.strip() else err.strip()[-300:]}")
    print(
        f"uploads: {len(uploaded)}, rated: {len(latencies)}, states: {sorted(v.state for v in versions if v)}"
    )
    if latencies:
        print(
            f"G1 upload -> first rated match: p50 {statistics.median(latencies):.1f} s, "
            f"p99 {percentile(latencies, 0.99):.1f} s, max {max(latencies):.1f} s "
            "(target p50 <= 30, p99 <= 90)"
        )
    start = min((v.received_at for v in versions if v), default=None)
    matches = store.list_matches(competition.tournament_id)
    finished = [
        m for m in matches if m.status == "finished" and m.finished_at and start and m.finished_at >= start
    ]
    if start is None or not finished:
        return
    end = max(m.finished_at for m in finished if m.finished_at is not None)
    window = Window(start, end)
    # a match still running at the end (a staller's) keeps its slot busy from its start
    running = [m for m in matches if m.status == "running" and m.started_at is not None]
    busy = sum(window.busy(m) for m in finished + running)
    print(
        f"G4 real slot utilisation: {busy:.1f} busy worker-seconds of {workers} x {window.seconds:.1f} s "
        f"= {100 * busy / (workers * window.seconds):.1f} % ({len(finished)} matches finished, "
        f"mean {statistics.fmean(m.duration_s or 0.0 for m in finished):.2f} s; {len(running)} still running)"
    )
    fair_shares(store, [m for m in finished + running if m.key.startswith("m")], window)


@dataclass(frozen=True)
class Window:
    """From the first measured upload to the last result."""

    start: datetime
    end: datetime

    @property
    def seconds(self) -> float:
        return (self.end - self.start).total_seconds()

    def busy(self, match: MatchRow) -> float:
        """The seconds of the window a worker spent on `match` (a finished match started `duration_s`
        before it was recorded; a running one at its `started_at`)."""
        if match.status == "finished" and match.finished_at is not None:
            began, ended = match.finished_at - timedelta(seconds=match.duration_s or 0.0), match.finished_at
        elif match.started_at is not None:
            began, ended = match.started_at, self.end
        else:
            return 0.0
        return max(0.0, (min(ended, self.end) - max(began, self.start)).total_seconds())


def fair_shares(store: Store, rated: list[MatchRow], window: Window) -> None:
    """G3 real: each team's rated games in the window over its fair share, min(F, the window over its
    own mean match time): F is the mean of every team's games (every team has an active version
    for the whole window), and a version plays one match at a time, so one whose matches are long
    (a staller) can play no more than its own matches' length allows."""
    runs = ArenaRunStore(store)
    team_of: dict[int, int] = {}
    games: Counter[int] = Counter()
    seconds: Counter[int] = Counter()
    in_matches: Counter[int] = Counter()
    for match in rated:
        for seat in match.seats:
            version_id = seat_version(seat)
            if version_id is None:
                continue
            if version_id not in team_of:
                version = runs.get_version(version_id)
                team_of[version_id] = version.team_id if version is not None else -version_id
            team = team_of[version_id]
            games[team] += match.status == "finished"
            in_matches[team] += 1
            seconds[team] += window.busy(match)
    if not games:
        return
    fair = statistics.fmean(games.values())
    ratios = {}
    for team, count in games.items():
        own_mean = seconds[team] / in_matches[team]
        ratios[team] = count / min(fair, window.seconds / own_mean if own_mean else fair)
    ordered = sorted(ratios.values())
    slowest = max(ratios, key=lambda team: seconds[team] / in_matches[team])
    print(
        f"G3 real games per team over min(F, window / its own mean match time) (F {fair:.1f} rated games"
        f" in {window.seconds / 60:.1f} min, {len(games)} teams): min {ordered[0]:.2f}, "
        f"p10 {percentile(ordered, 0.1):.2f}, p50 {percentile(ordered, 0.5):.2f}, "
        f"p90 {percentile(ordered, 0.9):.2f}, max {ordered[-1]:.2f} (target every team in 0.5-3); the team"
        f" with the longest matches: {games[slowest]} games, {seconds[slowest] / in_matches[slowest]:.1f} s"
        f" a match, ratio {ratios[slowest]:.2f}"
    )


if __name__ == "__main__":
    os.environ.setdefault("PYTHONUNBUFFERED", "1")
    main()
