"""G1 and G4 (real) of specs/arena.md: upload -> first rated match, and slot utilisation, on a real run of
`botarena arena run` (2 workers, drones default preset) with 20 teams already active.

    .venv/bin/python benchmarks/arena_latency.py [--teams 20] [--uploads 6] [--mean-gap 8] [--workers 2]
    .venv/bin/python benchmarks/arena_latency.py --uploads 20 --mean-gap 15     # the spec's full size

A competition of `--teams` teams, each with an active version (a drones bot in Python, uploaded as a
zip and packed as the upload route packs it, activated at the prior), is created in a SQLite store
under a temporary folder; then the coordinator starts as its own process (`botarena arena run`) and
`--uploads` new versions arrive at random intervals (exponential, mean `--mean-gap` s) for random
teams, written to the store the way the upload route writes them (the route itself is not on this
branch). When every upload has been judged and rated (or `--timeout` passes) the run is stopped
with Ctrl-C and the figures are read from the store:

- upload -> first rated match: `first_rated_match_at - received_at` of each upload, p50 and p99 (G1);
- slot utilisation: the workers' busy seconds (each match's own `duration_s`, from the worker: it
  started `duration_s` before it was recorded) over `workers` x the window from the first upload to
  the last rated result (G4 real). The figure is printed, never asserted.
"""

from __future__ import annotations

import argparse
import io
import os
import random
import signal
import statistics
import subprocess
import sys
import tempfile
import time
import zipfile
from pathlib import Path

from botarena.arena.archive import check_upload, pack_upload
from botarena.arena.competitions import add_team, check_setup, create_competition, policy_of
from botarena.arena.rating import MU0, SIGMA0
from botarena.store import Store
from botarena.store.arena import ArenaStore, CompetitionRow, TeamRow
from botarena.store.arena_runs import ArenaRunStore, RatingWrite

BOTS = [
    'def act(obs):\n    return {"newProducers": obs["producers"], "newSoldiers": 0, "launchAttack": False}\n',
    "def act(obs):\n"
    '    return {"newProducers": 0, "newSoldiers": obs["producers"], "launchAttack": obs["turn"] % 3 == 2}\n',
]


def upload(store: Store, competition: CompetitionRow, team: TeamRow, source: str, *, state: str) -> int:
    """A version of `team` whose bot.py is `source`, checked, packed and stored as an upload is."""
    policy = policy_of(competition)
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("bot.py", source)
    packed = pack_upload(check_upload(buffer.getvalue(), "bot.zip", policy), policy)
    store.put_artifact(packed.digest, packed.data)
    bot = store.register_bot(
        competition.game, f"arena-{competition.id}/{team.name}", f"arena:{packed.digest}", packed.digest,
        artifact=packed.digest, run_spec=packed.run_spec,
    )  # fmt: skip
    return ArenaRunStore(store).add_version(
        team.id, kind="upload", bot_version_id=bot.id, source_digest=packed.digest, state=state
    )


def build(store: Store, teams: int) -> tuple[CompetitionRow, list[TeamRow]]:
    """The competition, open, with `teams` teams and an active version each."""
    arena = ArenaStore(store)
    competition, _ = create_competition(arena, "latency", check_setup("drones"), actor="bench")
    made = [add_team(arena, competition.id, f"team{i}", actor="bench")[0] for i in range(teams)]
    competition = arena.update_competition(competition.id, actor="bench", phase="open")
    runs = ArenaRunStore(store)
    for i, team in enumerate(made):
        version = upload(store, competition, team, BOTS[i % 2] + f"# team {i}\n", state="ready")
        runs.activate(competition.id, version, None, RatingWrite(version, MU0, SIGMA0, 0))
    return competition, made


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
    args = parser.parse_args()
    rng = random.Random(args.seed)
    with tempfile.TemporaryDirectory(prefix="botarena-latency-") as root:
        db = f"sqlite:///{Path(root) / 'arena.db'}"
        store = Store.open(db)
        competition, teams = build(store, args.teams)
        runs = ArenaRunStore(store)
        command = [sys.executable, "-m", "botarena", "arena", "run", "--competition", str(competition.id)]
        process = subprocess.Popen(
            [*command, "--db", db, "--workers", str(args.workers)], cwd=root, start_new_session=True,
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        )  # fmt: skip
        uploaded: list[int] = []
        try:
            for n in range(args.uploads):
                time.sleep(rng.expovariate(1.0 / args.mean_gap))
                team = rng.choice(teams)
                uploaded.append(
                    upload(store, competition, team, BOTS[n % 2] + f"# upload {n}\n", state="received")
                )
            deadline = time.monotonic() + args.timeout
            while time.monotonic() < deadline and process.poll() is None:
                versions = [runs.get_version(v) for v in uploaded]
                if all(v is not None and (v.first_rated_match_at or v.state == "rejected") for v in versions):
                    break
                time.sleep(0.5)
        finally:
            process.send_signal(signal.SIGINT)
            out, err = process.communicate(timeout=120)
        report(store, competition, uploaded, args.workers, out, err)
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
    matches = store.list_matches(competition.tournament_id, status="finished")
    inside = [
        m for m in matches if start is not None and m.finished_at is not None and m.finished_at >= start
    ]
    if inside and start is not None:
        end = max(m.finished_at for m in inside if m.finished_at is not None)
        window = (end - start).total_seconds()
        busy = sum(m.duration_s or 0.0 for m in inside)
        print(
            f"G4 real slot utilisation: {busy:.1f} busy worker-seconds of {workers} x {window:.1f} s "
            f"= {100 * busy / (workers * window):.1f} % "
            f"({len(inside)} matches, mean {busy / len(inside):.2f} s)"
        )


if __name__ == "__main__":
    os.environ.setdefault("PYTHONUNBUFFERED", "1")
    main()
