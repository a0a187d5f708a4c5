"""Store write throughput on SQLite and PostgreSQL (issue 3, item 7).

For each database, in a fresh store (a temporary SQLite file in WAL mode; a scratch PostgreSQL
database created for the run and dropped after it):

- `add_matches`: scheduling matches in batches of `--batch` (a tournament adding a round or wave),
  as matches/s;
- `record_result`: recording finished two-player matches, each with its own ~20 KB gzip replay
  (written as a new content-addressed file, then one transaction for the match and its players), as
  results/s; and the coordinator's whole cycle per match, `mark_running` then `record_result`;
- `record_result` of an already-finished match (the idempotent no-op of a retried task);
- reading: `list_matches` of the whole tournament, as rows/s.

Each phase stops at its count or after `--seconds`, whichever comes first, so the script stays well
under a minute. Each line gives the rate over the whole phase and in its best chunk (50 calls, 500
matches added, one listing): on a shared machine, the least disturbed stretch.

PostgreSQL comes from `$BOTARENA_TEST_POSTGRES_URL`, else the local default
`postgresql+psycopg://botarena:botarena@127.0.0.1:5432/botarena_test` (the role needs CREATEDB); an
unreachable server is skipped with a message.

    .venv/bin/python benchmarks/store_writes.py [--matches 2000] [--batch 100] [--seconds 6]
"""

from __future__ import annotations

import argparse
import contextlib
import gzip
import os
import random
import time
from collections.abc import Callable
from types import SimpleNamespace

import orjson
from sqlalchemy.engine import make_url

from botarena.store import Store, StoreError
from scratch_stores import postgres_store, sqlite_store

LOCAL_POSTGRES = "postgresql+psycopg://botarena:botarena@127.0.0.1:5432/botarena_test"
REPLAY_KB = 20
ENTRANTS = [f"bot{i}" for i in range(8)]
CHUNK = 50


def replays(count: int, seed: int = 1) -> list[bytes]:
    """`count` distinct gzip replays of about REPLAY_KB KB each, shaped like a drones replay (steps
    of replies and records with small numbers: it compresses like one). Each is a gzip member of its
    own (the match number) followed by one shared member of steps: valid gzip, distinct bytes, and
    made in microseconds."""
    rng = random.Random(seed)
    steps: list[dict[str, object]] = []
    body = b""
    while len(body) < REPLAY_KB * 1024:
        for _ in range(50):
            steps.append(
                {
                    "replies": [
                        {"seat": s, "status": "OK", "payload": {"move": rng.randrange(64)}, "ms": 0.1}
                        for s in range(2)
                    ],
                    "record": {"planets": [rng.randrange(100) for _ in range(12)], "turn": len(steps)},
                }
            )
        body = gzip.compress(orjson.dumps(steps)[1:] + b"}", compresslevel=6, mtime=0)
    return [gzip.compress(b'{"match": %d, "steps": [' % i, mtime=0) + body for i in range(count)]


def timed(
    label: str,
    unit: str,
    items: list[Callable[[], object]],
    seconds: float,
    per_item: int = 1,
    chunk: int = CHUNK,
) -> float:
    """Run the callables in order until done or `seconds` passed; print items/s over the whole run
    and in the best chunk of `chunk` calls (the least disturbed one on a shared machine). Returns the
    overall rate."""
    start = time.perf_counter()
    done = 0
    best = 0.0
    chunk_start = start
    for call in items:
        call()
        done += 1
        now = time.perf_counter()
        if done % chunk == 0:
            best = max(best, chunk * per_item / (now - chunk_start))
            chunk_start = now
        if now - start > seconds:
            break
    elapsed = time.perf_counter() - start
    rate = done * per_item / elapsed
    best_text = f"best {best:>8,.0f}" if best else ""
    print(f"  {label:<44} {rate:>8,.0f} {unit}/s  {best_text:<13}   ({done * per_item} in {elapsed:.2f} s)")
    return rate


def spec(key: str, round_: int, rng: random.Random) -> SimpleNamespace:
    return SimpleNamespace(
        key=key, round=round_, seats=tuple(rng.sample(ENTRANTS, 2)), seed=rng.getrandbits(32)
    )


def bench(store: Store, args: argparse.Namespace, blobs: list[bytes]) -> None:
    versions = [store.register_bot("drones", name, f"pkg:{name}") for name in ENTRANTS]
    tournament = store.create_tournament(
        name="bench", game="drones", format="round-robin", preset="default", config={}, seed=1, options={},
        entrants=[(v.name, v.id) for v in versions],
    )  # fmt: skip
    tid = tournament.id
    rng = random.Random(7)
    keys = [f"r{i // args.batch + 1:03d}-m{i % args.batch:04d}" for i in range(args.matches)]
    batches = [keys[i : i + args.batch] for i in range(0, len(keys), args.batch)]
    timed(
        f"add_matches (batches of {args.batch})",
        "matches",
        [lambda b=b: store.add_matches(tid, [spec(k, 1, rng) for k in b]) for b in batches],
        args.seconds,
        per_item=args.batch,
        chunk=max(1, 500 // args.batch),
    )
    keys = [m.key for m in store.list_matches(tid)]
    fields = {
        "ranks": [0, 1], "scores": [1.0, 0.0], "statuses": [{"OK": 200}, {"OK": 199, "TIMEOUT": 1}],
        "time_used_ms": [35.5, 80.25], "steps": 200, "duration_s": 0.4,
    }  # fmt: skip
    half = len(keys) // 2
    timed(
        f"record_result (~{REPLAY_KB} KB gzip replay each)",
        "results",
        [
            lambda k=k, b=b: store.record_result(tid, k, **fields, replay_gz=b)
            for k, b in zip(keys[:half], blobs, strict=False)
        ],
        args.seconds,
    )

    def cycle(key: str, blob: bytes) -> None:
        store.mark_running(tid, key)
        store.record_result(tid, key, **fields, replay_gz=blob)

    timed(
        "mark_running + record_result",
        "matches",
        [lambda k=k, b=b: cycle(k, b) for k, b in zip(keys[half:], blobs[half:], strict=False)],
        args.seconds,
    )
    finished = [m.key for m in store.list_matches(tid, status="finished")]
    timed(
        "record_result of a finished match (no-op)",
        "calls",
        [lambda k=k: store.record_result(tid, k, **fields, replay_gz=blobs[0]) for k in finished[:500]],
        args.seconds,
    )
    rows = len(store.list_matches(tid))
    timed(
        f"list_matches ({rows} rows, players included)",
        "rows",
        [lambda: store.list_matches(tid)] * 5,
        args.seconds,
        per_item=rows,
        chunk=1,
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=2000, help="matches to schedule")
    parser.add_argument("--batch", type=int, default=100, help="matches per add_matches call")
    parser.add_argument("--seconds", type=float, default=6.0, help="time limit per phase")
    args = parser.parse_args()
    start = time.perf_counter()
    blobs = replays(args.matches)
    mean_kb = sum(map(len, blobs)) / len(blobs) / 1024
    made_s = time.perf_counter() - start
    print(f"{len(blobs)} replays of {mean_kb:.1f} KB gzip on average, made in {made_s:.1f} s")

    print("SQLite (WAL, synchronous=NORMAL, temporary file)")
    with sqlite_store() as store:
        bench(store, args, blobs)

    url = os.environ.get("BOTARENA_TEST_POSTGRES_URL") or LOCAL_POSTGRES
    shown = make_url(url).render_as_string(hide_password=True)
    try:
        stack = contextlib.ExitStack()
        store = stack.enter_context(postgres_store(url, replay_files=True))
    except Exception as error:  # any reason the server cannot be used: say it and go on
        reason = str(getattr(error, "orig", error)).strip().splitlines()[0]
        print(f"PostgreSQL at {shown}: skipped ({reason})")
    else:
        with stack:
            print(f"PostgreSQL {store._engine.dialect.server_version_info} at {shown} (scratch database)")
            bench(store, args, blobs)
    print(f"total {time.perf_counter() - start:.1f} s")


if __name__ == "__main__":
    try:
        main()
    except StoreError as error:
        raise SystemExit(f"store_writes: {error}") from None
