"""What writing the replay as the game goes costs: `run_match` per step with and without a journal.

`botarena play --replay FILE` keeps a `ReplayJournal` (botarena.core.journal) among the match's
observers, so a killed host loses at most the step in flight. This script plays the same matches
through the real `run_match` (in-process starter bots, time limits armed, replay recorded) in
these variants, run by run in turn (A, B, C, D, A, B, C, D, ...) so that a change in the machine's
load hits them all alike:

- `none`:     no observers (what `play` without `--replay` does);
- `noop`:     an `on_step` observer that does nothing: the cost of calling an observer at all;
- `journal`:  `ReplayJournal(path).observers()` exactly as `play --replay` wires it, then `close()`
              (as `play` does before the final write), once with the file on tmpfs (/dev/shm, if
              present) and once in the normal temporary directory, since disks differ.

Cases: GameOfDrones default-config matches (starter pairings over several seeds: per-match costs,
such as opening the file, included), one long GameOfDrones match (many rounds of many turns: a large
journal), and Devops' default preset (starter factions, no pacing).

How to read the table: per variant, the median and the best run in microseconds per step (a step
is one turn: a request to every seat) of this process's CPU time (`--clock wall` for wall-clock
time: on a shared machine other processes' load then swamps the difference). The overhead is the
variant's median minus `none`'s median, in us/step and as a ratio of the two medians, and the same
for the best runs (on a loaded machine the best runs are the least disturbed; when the two
disagree, trust neither and run again with a higher --repeat). `noop - none` is the price of the
observer call; `journal - noop` is the journal's own. Bytes/step is the journal file's size (gzip
level 1) over the steps; flushes/s is how many sync flushes it made (at `begin`, every keyframe,
every `flush_every_s` seconds and at `close`) per second of wall-clock time. Below the table, the
time spent inside the journal's own calls (the best run's, wall clock: `sync` per step; `__init__`,
`begin` and `close` per match), the most direct figure of its cost. The final `write_replay` (the
complete replay, gzip level 6, replacing the journal) is timed apart: `play --replay` pays it with
or without the journal.

    .venv/bin/python benchmarks/journal_overhead.py [--repeat 5] [--seeds 10] [--long-rounds 200]
                                                    [--devops-turns 150] [--devops-factions 8] [--clock cpu]
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from botarena.bots.inprocess import PythonBot
from botarena.core.game import GameInfo
from botarena.core.journal import ReplayJournal
from botarena.core.registry import get_game
from botarena.core.replay import Replay, write_replay
from botarena.runner import run_match

DRONES_PAIRINGS = [
    ("randomonium", "adaptive"),
    ("zergy", "pacifist"),
    ("adaptive", "tactician"),
    ("tactician", "randomonium"),
    ("pacifist", "zergy"),
]


class CountingJournal(ReplayJournal):
    """A `ReplayJournal` that counts its sync flushes and the time spent inside it (two
    `perf_counter` calls, ~0.1 us, per call): per match in `__init__`, `begin` and `close`, per
    step in `sync`. Inside-the-journal time is the figure a loaded machine disturbs least."""

    flushes = 0
    match_s = 0.0
    step_s = 0.0

    def __init__(self, path: Path) -> None:
        started = time.perf_counter()
        super().__init__(path)
        self._per_match = False  # inside begin or close, whose own sync counts per match
        CountingJournal.match_s += time.perf_counter() - started

    def begin(self, replay: Replay) -> None:
        started = time.perf_counter()
        self._per_match = True
        super().begin(replay)
        self._per_match = False
        CountingJournal.match_s += time.perf_counter() - started

    def sync(self, force: bool = False) -> None:
        if self._per_match:
            super().sync(force)
            return
        started = time.perf_counter()
        super().sync(force)
        CountingJournal.step_s += time.perf_counter() - started

    def close(self) -> None:
        started = time.perf_counter()
        self._per_match = True
        super().close()
        self._per_match = False
        CountingJournal.match_s += time.perf_counter() - started

    def _flush(self, now: float) -> None:
        CountingJournal.flushes += 1
        super()._flush(now)

    @staticmethod
    def reset() -> None:
        CountingJournal.flushes = 0
        CountingJournal.match_s = CountingJournal.step_s = 0.0


@dataclass(frozen=True)
class Match:
    """One `run_match` call: the game, its config, the seed and the starter bots by seat."""

    game: GameInfo
    config: Any
    seed: int
    bots: tuple[str, ...]


@dataclass
class Sample:
    """The runs of one variant: seconds and steps per run, the journal's bytes and flushes, and
    the seconds spent inside the journal per run (begin and close, and sync)."""

    seconds: list[float] = field(default_factory=list)
    steps: int = 0
    bytes: int = 0
    flushes: int = 0
    wall: list[float] = field(default_factory=list)
    inside_match: list[float] = field(default_factory=list)
    inside_step: list[float] = field(default_factory=list)

    def us_per_step(self) -> list[float]:
        return [s / self.steps * 1e6 for s in self.seconds]


def _noop_step(index: int, record: Any, engine: Any) -> None:
    """The no-op observer: what calling any `on_step` costs."""


def play(match: Match, journal_path: Path | None, noop: bool) -> Replay:
    """One match as `botarena play` runs it: with the journal's observers if a path is given."""
    bots = [PythonBot(match.game.starter_bots[name], name) for name in match.bots]
    on_begin: Any = None
    on_step: Any = _noop_step if noop else None
    journal = CountingJournal(journal_path) if journal_path is not None else None
    if journal is not None:
        on_begin, on_step = journal.observers(on_begin, on_step)
    run = run_match(
        match.game, bots, config=match.config, seed=match.seed, on_begin=on_begin, on_step=on_step
    )
    if journal is not None:
        journal.close()
        if journal.failed:
            raise SystemExit(f"journal_overhead: {journal.failed}")
    return run.replay


def run_variant(
    matches: list[Match], journal_dir: Path | None, noop: bool, sample: Sample, clock: Callable[[], float]
) -> list[Replay]:
    """Play every match once; add the run's time (and the journals' bytes and flushes) to `sample`."""
    replays: list[Replay] = []
    size = 0
    CountingJournal.reset()
    wall = time.perf_counter()
    started = clock()
    for i, match in enumerate(matches):
        path = journal_dir / f"journal-{i}.json.gz" if journal_dir is not None else None
        replays.append(play(match, path, noop))
        if path is not None:
            size += path.stat().st_size  # outside the journal, but a stat is ~1 us per match
    sample.seconds.append(clock() - started)
    sample.wall.append(time.perf_counter() - wall)
    sample.steps = sum(len(r.steps) for r in replays)
    sample.bytes, sample.flushes = size, CountingJournal.flushes
    sample.inside_match.append(CountingJournal.match_s)
    sample.inside_step.append(CountingJournal.step_s)
    return replays


def time_final_write(replays: list[Replay], folder: Path) -> float:
    """Seconds to `write_replay` every replay into `folder` (what `play --replay` does at the end)."""
    started = time.perf_counter()
    for i, replay in enumerate(replays):
        write_replay(replay, folder / f"final-{i}.json.gz")
    return time.perf_counter() - started


def temp_dirs() -> list[tuple[str, str | None]]:
    """(label, dir) of the places to write journals: tmpfs when there is one, and the temp dir."""
    places: list[tuple[str, str | None]] = []
    if Path("/dev/shm").is_dir():
        places.append(("/dev/shm", "/dev/shm"))
    places.append((tempfile.gettempdir(), None))
    return places


def bench_case(label: str, matches: list[Match], repeat: int, clock: Callable[[], float]) -> None:
    places = temp_dirs()
    variants: list[tuple[str, str | None, bool, bool]] = [("none", None, False, False)]
    variants.append(("noop on_step", None, True, False))
    variants += [(f"journal {name}", where, False, True) for name, where in places]
    samples = {name: Sample() for name, *_ in variants}
    writes: dict[str, list[float]] = {name: [] for name, _ in places}
    with _TempDirs(places) as folders:
        play(matches[0], None, False)  # warm-up: imports, first-call caches
        for _ in range(repeat):
            for name, where, noop, journal in variants:
                folder = folders[where] if journal else None
                replays = run_variant(matches, folder, noop, samples[name], clock)
            for place, where in places:
                writes[place].append(time_final_write(replays, folders[where]))
    _print_case(label, matches, repeat, samples, writes)


class _TempDirs:
    """A fresh temporary directory in each place, removed afterwards."""

    def __init__(self, places: list[tuple[str, str | None]]) -> None:
        self._dirs = [
            (where, tempfile.TemporaryDirectory(prefix="journal-bench-", dir=where)) for _, where in places
        ]

    def __enter__(self) -> dict[str | None, Path]:
        return {where: Path(d.name) for where, d in self._dirs}

    def __exit__(self, *exc: object) -> None:
        for _, d in self._dirs:
            d.cleanup()


def _print_case(
    label: str, matches: list[Match], repeat: int, samples: dict[str, Sample], writes: dict[str, list[float]]
) -> None:
    base = samples["none"]
    steps = base.steps
    base_med, base_best = statistics.median(base.us_per_step()), min(base.us_per_step())
    noop_med = statistics.median(samples["noop on_step"].us_per_step())
    print(f"\n{label}: {len(matches)} match(es), {steps:,} steps per run, {repeat} run(s) per variant")
    print(
        f"   {'variant':<22} {'median':>9} {'best':>9} {'overhead':>9} {'ratio':>6} {'overhead':>9} "
        f"{'ratio':>6} {'journal-noop':>12} {'bytes/step':>10} {'flushes/s':>9}"
    )
    print(
        f"   {'':<22} {'us/step':>9} {'us/step':>9} {'median':>9} {'median':>6} {'best':>9} {'best':>6} "
        f"{'median':>12}"
    )
    for name, sample in samples.items():
        per_step = sample.us_per_step()
        med, best = statistics.median(per_step), min(per_step)
        journal = name.startswith("journal")
        own = f"{med - noop_med:12.2f}" if journal else f"{'':>12}"
        size = f"{sample.bytes / sample.steps:10.1f}" if journal else f"{'':>10}"
        rate = f"{sample.flushes / statistics.median(sample.wall):9.1f}" if journal else f"{'':>9}"
        print(
            f"   {name:<22} {med:9.2f} {best:9.2f} {med - base_med:9.2f} {med / base_med:6.3f} "
            f"{best - base_best:9.2f} {best / base_best:6.3f} {own} {size} {rate}"
        )
    for name, sample in samples.items():
        if name.startswith("journal"):
            per_match, per_step = min(sample.inside_match), min(sample.inside_step)
            print(
                f"   inside the {name} (wall, best run): sync {per_step / steps * 1e6:.2f} us/step, "
                f"init+begin+close {per_match / len(matches) * 1e6:.0f} us/match; "
                f"in all {(per_match + per_step) / steps * 1e6:.2f} us/step"
            )
    for place, seconds in writes.items():
        med = statistics.median(seconds)
        print(
            f"   final write_replay {place}: {med / len(matches) * 1e3:.2f} ms per match, "
            f"{med / steps * 1e6:.2f} us/step (median; paid with or without the journal)"
        )


def drones_default(seeds: int) -> list[Match]:
    game = get_game("drones")
    config = game.config()
    return [Match(game, config, seed, pair) for seed in range(seeds) for pair in DRONES_PAIRINGS]


def drones_long(rounds: int, turns: int) -> list[Match]:
    game = get_game("drones")
    config = game.config(overrides={"rounds": rounds, "turn_limit": turns})
    return [Match(game, config, 1, ("adaptive", "tactician"))]


def devops_default(turns: int, factions: int) -> list[Match]:
    game = get_game("devops")
    config = game.config("default", {"turn_limit": turns, "turn_interval_ms": 0})
    return [Match(game, config, 1, ("starter",) * factions)]


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5, help="runs per variant (median and best reported)")
    parser.add_argument("--seeds", type=int, default=10, help="seeds per starter pairing, drones default")
    parser.add_argument("--long-rounds", type=int, default=200, help="rounds of the long drones match")
    parser.add_argument("--long-turns", type=int, default=50, help="turn limit per round, long drones match")
    parser.add_argument("--devops-turns", type=int, default=150, help="turns of the devops match")
    parser.add_argument("--devops-factions", type=int, default=8, help="starter factions, devops")
    parser.add_argument(
        "--clock",
        choices=("cpu", "wall"),
        default="cpu",
        help="time the runs in this process's CPU time (default: what other processes on a loaded "
        "machine disturb least) or wall-clock time",
    )
    args = parser.parse_args(argv)
    clock = time.process_time if args.clock == "cpu" else time.perf_counter
    cases: list[tuple[str, Callable[[], list[Match]]]] = [
        (
            f"drones default config, {len(DRONES_PAIRINGS)} starter pairings x {args.seeds} seeds",
            lambda: drones_default(args.seeds),
        ),
        (
            f"drones one long match ({args.long_rounds} rounds x <= {args.long_turns} turns, "
            "adaptive v tactician)",
            lambda: drones_long(args.long_rounds, args.long_turns),
        ),
        (
            f"devops default preset, {args.devops_factions} starter factions, {args.devops_turns} turns",
            lambda: devops_default(args.devops_turns, args.devops_factions),
        ),
    ]
    print(
        "run_match per step without and with the replay journal (in-process starters; "
        f"{args.clock} time; lower is better)"
    )
    for label, build in cases:
        bench_case(label, build(), args.repeat, clock)


if __name__ == "__main__":
    main()
