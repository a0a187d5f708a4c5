"""Tournament throughput: matches per minute through the executor seam, and how it scales.

A GameOfDrones round robin of the five starter bots, every pair `--cycles` times, recorded in a fresh
SQLite store (replays written, ratings computed), run:

- inline (no executor: the coordinator plays each match itself),
- on a local process pool of 1 and of 2 workers,
- on a Dask LocalCluster of 2 single-threaded worker processes (`Client.get_executor()`).

Two workloads: `short` matches (the default 10-round config, about a millisecond of play each: the
figure is dominated by the per-match cost of the seam and the store) and `event` matches (the 2018
event config, 1000 rounds of up to 10 turns: play dominates). Times include starting the pool or the
cluster. The scaling ratio is 2 workers over 1 worker; this machine has 2 cores, so 2.0 is the ceiling.

    python benchmarks/tournament_throughput.py [--cycles N] [--event-cycles N] [--no-dask]
"""

from __future__ import annotations

import argparse
import contextlib
import tempfile
import time
from collections.abc import Callable, Iterator
from concurrent.futures import Executor
from pathlib import Path
from typing import Any

from botarena.store import Store
from botarena.tournament.executor import close_executor, make_executor
from botarena.tournament.service import Entrant, TournamentPlan, create_tournament, run_tournament

STARTERS = ("adaptive", "pacifist", "randomonium", "tactician", "zergy")


def plan(name: str, cycles: int, event: bool) -> TournamentPlan:
    return TournamentPlan(
        name=name,
        game="drones",
        format="drones_2018_event" if event else "round-robin",
        entrants=[Entrant(s, s) for s in STARTERS],
        seed=5,
        options={} if event else {"cycles": cycles},
    )


@contextlib.contextmanager
def pool(workers: int) -> Iterator[Executor]:
    executor = make_executor(workers)
    try:
        yield executor
    finally:
        close_executor(executor)


@contextlib.contextmanager
def dask_cluster(workers: int) -> Iterator[Executor]:
    from distributed import Client, LocalCluster

    cluster = LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=None)
    with cluster, Client(cluster) as client:
        yield client.get_executor(pure=False)


@contextlib.contextmanager
def inline() -> Iterator[None]:
    yield None


def measure(label: str, runner: Callable[[], Any], cycles: int, event: bool, repeat: int) -> float:
    best = 0.0
    for attempt in range(repeat):
        with tempfile.TemporaryDirectory() as tmp:
            store = Store.open(f"sqlite:///{Path(tmp) / 'bench.db'}", replay_dir=Path(tmp) / "replays")
            try:
                tournament = create_tournament(store, plan(f"{label}-{attempt}", cycles, event))
                started = time.perf_counter()
                with runner() as executor:
                    summary = run_tournament(store, tournament.id, executor)
                seconds = time.perf_counter() - started
            finally:
                store.close()
        assert summary.status == "finished" and summary.failed == 0, summary
        best = max(best, summary.played / seconds * 60.0)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cycles", type=int, default=20, help="short workload: each pair meets N times")
    parser.add_argument("--event", action=argparse.BooleanOptionalAction, default=True)
    parser.add_argument("--dask", action=argparse.BooleanOptionalAction, default=True)
    parser.add_argument("--repeat", type=int, default=2, help="best of N runs")
    args = parser.parse_args()

    setups: list[tuple[str, Callable[[], Any]]] = [
        ("inline", inline),
        ("pool, 1 worker", lambda: pool(1)),
        ("pool, 2 workers", lambda: pool(2)),
    ]
    if args.dask:
        setups.append(("dask LocalCluster, 2 workers", lambda: dask_cluster(2)))
    workloads = [("short", args.cycles * 10, False)]
    if args.event:
        workloads.append(("event (1000 rounds)", 10, True))
    for workload, matches, event in workloads:
        print(f"== drones round robin, {workload}: {matches} matches, 5 starter bots, SQLite store")
        figures: dict[str, float] = {}
        for label, runner in setups:
            figures[label] = measure(label, runner, args.cycles, event, args.repeat)
            print(f"  {label:32s} {figures[label]:10.0f} matches/min")
        ratio = figures["pool, 2 workers"] / figures["pool, 1 worker"]
        print(f"  scaling, pool 2 workers / 1 worker: {ratio:.2f}x")
        if args.dask:
            dask_ratio = figures["dask LocalCluster, 2 workers"] / figures["pool, 1 worker"]
            print(f"  scaling, dask 2 workers / pool 1 worker: {dask_ratio:.2f}x")


if __name__ == "__main__":
    main()
