"""The arena's scheduler on a fake executor (specs/arena.md, goals G3, G4 and G6), beside today's wave
`Ladder` on the same executor.

The executor is an event queue of simulated time with C slots. Every version is its own team with a
hidden skill (a match's winner is drawn from the skill gap) and a mean match time (log-normal around
30 s); a match lasts a log-normal time of sigma 1 around the mean of its seats' means, except that any
match with the staller lasts 600 s. Results are rated with the arena's incremental OpenSkill
(`arena.rating`) and fed back to the scheduler, which is asked for matches whenever a result arrives.
The `Ladder` is driven as the tournament service drives it: a wave is scheduled once the previous one
has finished, its matches queue for the C slots.

Figures:

- G3: games per active version per hour over the run (after the first hour), as a multiple of
  min(F, 3600 / its own mean match time), where F = C x players x 3600 / (versions x D) is the fair
  share of the slots and D the mean expected match time over the pairs without the staller: min, p10,
  median, max, the staller's, and the lowest of any version in any single hour after the first.
- G4: slot utilisation while eligible matches exist: busy slot time over busy time plus the slot time
  left free while at least `players` versions were idle (8 and 32 slots).
- G6: CPU per scheduled match at `--versions` active versions after `--history` matches of history
  (the scheduler's `next_matches` and `match_finished`, process time), the `Ladder`'s per scheduled
  match from the same history, and CPU per rating update.

    python benchmarks/arena_sim.py [--sim-versions 80] [--hours 3] [--slots 8,32]
                                   [--versions 300] [--history 10000,30000] [--no-ladder]
    full sizes: --versions 1000 --history 10000,100000
"""

from __future__ import annotations

import argparse
import heapq
import math
import time
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from botarena.arena.policy import ArenaPolicy
from botarena.arena.rating import RatingBook
from botarena.arena.scheduler import MatchOutcome, MatchPlan, Scheduler
from botarena.arena.vocabulary import MatchKind, MatchReason
from botarena.core.formats import FinishedMatch, MatchSpec
from botarena.core.status import Status
from botarena.tournament.formats import Ladder

STALL_S = 600.0
MEAN_MATCH_S = 30.0
PLAYERS = 2
OK2 = (Status.OK, Status.OK)


@dataclass(frozen=True)
class Field:
    """The simulated entrants: skills and mean match times; version 0 stalls when `staller`."""

    skill: np.ndarray
    mean_s: np.ndarray
    staller: bool

    @classmethod
    def make(cls, versions: int, staller: bool, seed: int) -> Field:
        rng = np.random.default_rng(seed)
        skill = rng.normal(0.0, 1.0, versions)
        mean_s = MEAN_MATCH_S * np.exp(rng.normal(0.0, 0.5, versions))
        return cls(skill, mean_s, staller)

    def expected_s(self, seats: Sequence[int]) -> float:
        if self.staller and 0 in seats:
            return STALL_S
        return float(np.mean(self.mean_s[list(seats)]))

    def duration(self, seats: Sequence[int], rng: np.random.Generator) -> float:
        mean = self.expected_s(seats)
        if self.staller and 0 in seats:
            return mean
        return mean * math.exp(rng.normal() - 0.5)  # log-normal, sigma 1, mean `mean`

    def ranks(self, seats: Sequence[int], rng: np.random.Generator) -> tuple[int, int]:
        a, b = seats
        first_wins = rng.random() < 1.0 / (1.0 + math.exp(self.skill[b] - self.skill[a]))
        return (1, 2) if first_wins else (2, 1)

    def fair_share(self, slots: int) -> float:
        """F: games per version per hour if the slots were always busy and shared evenly, with D the
        mean expected time of the matches without the staller (so a staller does not lower F)."""
        n = len(self.skill)
        first = 1 if self.staller else 0
        pairs = [(u, v) for u in range(first, n) for v in range(u + 1, n)]
        mean = sum(self.expected_s(pair) for pair in pairs) / len(pairs)
        return slots * PLAYERS * 3600.0 / (n * mean)


@dataclass
class Tally:
    """What a run measured: finish times and durations per version, and the slot-time integrals."""

    finishes: dict[int, list[float]] = field(default_factory=lambda: defaultdict(list))
    durations: dict[int, list[float]] = field(default_factory=lambda: defaultdict(list))
    busy: float = 0.0
    wasted: float = 0.0

    def integrate(self, dt: float, busy_slots: int, slots: int, idle_versions: int) -> None:
        self.busy += busy_slots * dt
        self.wasted += min(slots - busy_slots, idle_versions // PLAYERS) * dt

    def finished(self, seats: Sequence[int], start: float, end: float) -> None:
        for version in seats:
            self.finishes[version].append(end)
            self.durations[version].append(end - start)

    @property
    def utilisation(self) -> float:
        return self.busy / (self.busy + self.wasted) if self.busy + self.wasted else 0.0


def run_arena(entrants: Field, slots: int, hours: float, seed: int) -> Tally:
    """The arena scheduler on the fake executor for `hours` of simulated time."""
    rng = np.random.default_rng(seed + 1)
    scheduler = Scheduler(ArenaPolicy(), seed=seed, players=PLAYERS)
    book = RatingBook()
    n = len(entrants.skill)
    for version in range(n):
        start = book.activate(version)
        scheduler.version_activated(version, version, start.mu, start.sigma, 0, now=0.0)
    tally, queue, now, busy_versions = Tally(), [], 0.0, 0
    starts: dict[int, float] = {}

    def launch(plans: list[MatchPlan]) -> None:
        nonlocal busy_versions
        for plan in plans:
            starts[plan.number] = now
            busy_versions += len(plan.versions)
            end = now + entrants.duration(plan.versions, rng)
            heapq.heappush(queue, (end, plan.number, plan))

    launch(scheduler.next_matches(slots, now))
    while queue and now < hours * 3600.0:
        end, _, plan = heapq.heappop(queue)
        tally.integrate(end - now, len(queue) + 1, slots, n - busy_versions)
        now, busy_versions = end, busy_versions - len(plan.versions)
        ranks = entrants.ranks(plan.versions, rng)
        update = book.record(plan.number, plan.versions, ranks)
        changed = {version: (r.mu, r.sigma) for version, r in update.ratings.items()}
        scheduler.match_finished(plan, now, MatchOutcome.result(ranks, OK2), changed)
        tally.finished(plan.versions, starts.pop(plan.number), now)
        launch(scheduler.next_matches(slots - len(queue), now))
    return tally


def run_ladder(entrants: Field, slots: int, hours: float, seed: int) -> Tally:
    """Today's wave `Ladder` on the same executor: a wave once the previous one has finished, its
    matches started in order as slots free up."""
    rng = np.random.default_rng(seed + 1)
    n = len(entrants.skill)
    ladder = Ladder([str(v) for v in range(n)], seed=seed, players=PLAYERS, options={"matches": 1_000_000})
    scheduled: list[MatchSpec] = []
    finished: dict[str, FinishedMatch] = {}
    tally, running, waiting, now, busy_versions = Tally(), [], [], 0.0, 0
    while now < hours * 3600.0:
        if not running and not waiting:
            wave = ladder.schedule(scheduled, finished)
            scheduled.extend(wave)
            waiting = list(wave)
        while waiting and len(running) < slots:
            spec = waiting.pop(0)
            seats = tuple(int(name) for name in spec.seats)
            busy_versions += len(seats)
            heapq.heappush(running, (now + entrants.duration(seats, rng), spec.key, now, spec))
        end, _, start, spec = heapq.heappop(running)
        tally.integrate(end - now, len(running) + 1, slots, n - busy_versions)
        seats = tuple(int(name) for name in spec.seats)
        now, busy_versions = end, busy_versions - len(seats)
        ranks = entrants.ranks(seats, rng)
        finished[spec.key] = FinishedMatch(spec.key, spec.round, spec.seats, ranks, None)
        tally.finished(seats, start, now)
    return tally


def g3_ratios(entrants: Field, tally: Tally, slots: int, hours: float) -> tuple[list[float], float, float]:
    """Each version's games per hour after the first hour over min(F, 3600 / its mean match time); the
    staller's ratio; the lowest ratio of any version in any single hour."""
    fair = entrants.fair_share(slots)
    ratios: list[float] = []
    worst_hour = math.inf
    staller_ratio = math.nan
    whole_hours = int(hours)
    for version in range(len(entrants.skill)):
        times = tally.finishes.get(version, [])
        durations = tally.durations.get(version, [])
        own = float(np.mean(durations)) if durations else entrants.expected_s((version, version))
        share = min(fair, 3600.0 / own)
        per_hour = [sum(1 for t in times if h <= t / 3600.0 < h + 1) for h in range(1, whole_hours)]
        games = sum(per_hour) / max(1, len(per_hour))
        ratios.append(games / share)
        if per_hour:
            worst_hour = min(worst_hour, min(per_hour) / share)
        if entrants.staller and version == 0:
            staller_ratio = games / share
    return ratios, staller_ratio, worst_hour


def describe(ratios: list[float]) -> str:
    values = np.array(ratios)
    return (
        f"min {values.min():.2f}  p10 {np.percentile(values, 10):.2f}  "
        f"median {np.median(values):.2f}  max {values.max():.2f}"
    )


def print_g3_g4(args: argparse.Namespace) -> None:
    print(f"G3/G4: {args.sim_versions} versions, {args.hours} simulated hours, 2 players")
    for slots in args.slots:
        for staller in (False, True):
            entrants = Field.make(args.sim_versions, staller, args.seed)
            fair = entrants.fair_share(slots)
            runs = [("arena", run_arena)] + ([] if args.no_ladder else [("ladder", run_ladder)])
            for name, run in runs:
                tally = run(entrants, slots, args.hours, args.seed)
                ratios, staller_ratio, worst = g3_ratios(entrants, tally, slots, args.hours)
                label = "staller" if staller else "no staller"
                staller_text = f"  staller {staller_ratio:.2f}" if staller else ""
                usage = 100 * tally.utilisation
                print(
                    f"  {slots:2d} slots {label:10s} {name:6s}  G4 utilisation {usage:5.1f} %"
                    f"  G3 x min(F={fair:.1f}/h, own): {describe(ratios)}{staller_text}"
                    f"  worst hour {worst:.2f}"
                )


def preload(scheduler: Scheduler, versions: int, history: int, rng: np.random.Generator) -> float:
    """`history` finished matches fed through the resume path (`match_started` of a plan found
    running), spread over the hours before now; returns now."""
    spacing = 1.0
    for number in range(1, history + 1):
        a, b = (int(x) for x in rng.choice(versions, 2, replace=False))
        plan = MatchPlan(number, MatchKind.RATED, MatchReason.DEFICIT, (a, b), number)
        at = number * spacing
        scheduler.match_started(plan, at)
        scheduler.match_finished(plan, at + 0.5, MatchOutcome.result((1, 2), OK2))
    return history * spacing + 1.0


def arena_cost(versions: int, history: int, matches: int, seed: int) -> tuple[float, float]:
    """CPU ms per scheduled match (next_matches, match_finished) after `history` matches."""
    rng = np.random.default_rng(seed)
    scheduler = Scheduler(ArenaPolicy(), seed=seed, players=PLAYERS)
    for version in range(versions):
        scheduler.version_activated(version, version, float(rng.normal(25, 3)), 8.0, 50, now=0.0)
    now = preload(scheduler, versions, history, rng)
    slots = max(1, versions // 4)
    first = scheduler.next_matches(slots, now)
    running = [(now + float(rng.exponential(30.0)), plan.number, plan) for plan in first]
    heapq.heapify(running)
    decide = finish = 0.0
    made = 0
    while made < matches:
        end, _, plan = heapq.heappop(running)
        t0 = time.process_time()
        scheduler.match_finished(plan, end, MatchOutcome.result((1, 2), OK2))
        t1 = time.process_time()
        plans = scheduler.next_matches(slots - len(running), end)
        t2 = time.process_time()
        finish, decide, made = finish + t1 - t0, decide + t2 - t1, made + len(plans)
        for new in plans:
            heapq.heappush(running, (end + float(rng.exponential(30.0)), new.number, new))
    return 1000 * decide / made, 1000 * finish / made


def ladder_cost(versions: int, history: int, seed: int) -> float:
    """CPU ms per scheduled match of one `Ladder` wave after `history` finished matches."""
    rng = np.random.default_rng(seed)
    names = [str(v) for v in range(versions)]
    ladder = Ladder(names, seed=seed, players=PLAYERS, options={"matches": 1_000_000})
    width = len(str(history))
    scheduled: list[MatchSpec] = []
    finished: dict[str, FinishedMatch] = {}
    for i in range(history):
        a, b = (names[int(x)] for x in rng.choice(versions, 2, replace=False))
        key = f"w{i // (versions // 2) + 1:0{width}d}-m{i:0{width}d}"
        spec = MatchSpec(key, i // (versions // 2) + 1, (a, b), i)
        scheduled.append(spec)
        finished[key] = FinishedMatch(key, spec.round, spec.seats, (1, 2), None)
    t0 = time.process_time()
    wave = ladder.schedule(scheduled, finished)
    return 1000 * (time.process_time() - t0) / max(1, len(wave))


def rating_cost(updates: int) -> float:
    """CPU ms per incremental rating update of a 2-player match."""
    book = RatingBook()
    for version in range(100):
        book.activate(version)
    t0 = time.process_time()
    for i in range(updates):
        book.record(i, (i % 100, (i * 7 + 1) % 100), (1, 2) if i % 3 else (2, 1))
    return 1000 * (time.process_time() - t0) / updates


def print_g6(args: argparse.Namespace) -> None:
    print(f"G6: {args.versions} active versions, CPU per scheduled match")
    for history in args.history:
        decide, finish = arena_cost(args.versions, history, args.matches, args.seed)
        line = f"  history {history:7d}: arena next_matches {decide:.3f} ms + match_finished {finish:.3f} ms"
        if not args.no_ladder:
            line += f"   ladder {ladder_cost(args.versions, history, args.seed):.2f} ms"
        print(line)
    print(f"  rating update (2 players): {rating_cost(5000):.4f} ms")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sim-versions", type=int, default=80, help="versions in the G3/G4 simulations")
    parser.add_argument("--hours", type=float, default=3.0, help="simulated hours per G3/G4 run")
    parser.add_argument("--slots", type=lambda s: [int(x) for x in s.split(",")], default=[8, 32])
    parser.add_argument("--versions", type=int, default=300, help="active versions for G6")
    parser.add_argument("--history", type=lambda s: [int(x) for x in s.split(",")], default=[10000, 30000])
    parser.add_argument("--matches", type=int, default=2000, help="scheduled matches measured for G6")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--no-ladder", action="store_true", help="skip today's wave Ladder baseline")
    args = parser.parse_args()
    if args.sim_versions < 2 * max(args.slots):
        parser.error("--sim-versions must be at least twice the largest --slots (one match per version)")
    print_g3_g4(args)
    print_g6(args)


if __name__ == "__main__":
    main()
