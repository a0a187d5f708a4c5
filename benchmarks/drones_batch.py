"""GameOfDrones batched throughput: `BatchDrones` matches/s next to the original JavaScript engine's.

Single core: the thread variables of numpy's math libraries (OMP/OPENBLAS/MKL_NUM_THREADS) are set
to 1 before numpy is imported, and the engine itself is plain elementwise numpy (one thread).

For each example pairing (the pairings of benchmarks/drones_throughput.py) and batch size, the
figure is the best of `--repeat` runs of a whole batch, set-up included: `BatchDrones(config,
seeds)` (the match streams derived from the seeds), the vectorised starters of
`games/drones/bots/batch.py`, and `run` to the last round. Default config: 10 rounds of 10 turns.

When a checkout of the original 2018 engine is given (`--original PATH` or $BOTARENA_DRONES_ORIGINAL,
BravoLT/code-challenge-2018 at 3df84bb87c12561287d01ba4eadbcc166d673503), the same pairings are
played IN THE SAME RUN by the original engine in process (kits/drones-js/throughput.mjs with the
checkout's own example bots), and the ratio batched / original is printed. The scalar botarena path
(the engine driving the starters directly, `drones_throughput.bench_direct`) is printed for reference.

    .venv/bin/python benchmarks/drones_batch.py [--original PATH] [--sizes 1000,10000,100000]
"""

from __future__ import annotations

import os

for _name in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_name] = "1"  # before numpy is imported: one core

import argparse  # noqa: E402
import json  # noqa: E402
import shutil  # noqa: E402
import subprocess  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402

from botarena.core.registry import get_game  # noqa: E402
from botarena.games.drones.batch import BatchDrones  # noqa: E402
from botarena.games.drones.bots.batch import BATCH_STARTERS  # noqa: E402
from drones_throughput import PAIRINGS, bench_direct  # noqa: E402

ORIGINAL_ENV = "BOTARENA_DRONES_ORIGINAL"
THROUGHPUT_JS = Path(__file__).resolve().parents[1] / "kits" / "drones-js" / "throughput.mjs"
KIT_BOTS = Path(__file__).resolve().parents[1] / "kits" / "drones-js" / "bots"
ORIGINAL_BOTS = {  # the checkout's example bots, else the kit's JavaScript twins of them
    "randomonium": ("random-choices.js", "randomonium.js"),
    "zergy": ("zerg-rush.js", "zergy.js"),
    "pacifist": ("hard-hitting-pacifist.js", "pacifist.js"),
    "adaptive": ("adaptive-defender.js", "adaptive-defender.js"),
}


def bench_batch(pair: tuple[str, str], size: int, repeat: int) -> float:
    """Best matches/s over `repeat` whole batches of `size` matches (set-up included)."""
    config = get_game("drones").config()
    best = 0.0
    for attempt in range(repeat):
        seeds = np.arange(attempt * size, (attempt + 1) * size, dtype=np.uint64)
        started = time.perf_counter()
        engine = BatchDrones(config, seeds)
        engine.run(BATCH_STARTERS[pair[0]](), BATCH_STARTERS[pair[1]]())
        best = max(best, size / (time.perf_counter() - started))
    return best


def bot_file(original: Path, name: str) -> str:
    checkout_name, kit_name = ORIGINAL_BOTS[name]
    path = original / "example-bots" / checkout_name
    return str(path if path.exists() else KIT_BOTS / kit_name)


def bench_original(original: Path, seconds: float) -> dict[str, float] | str:
    """matches/s per pairing of the original engine, or why it could not be measured."""
    node = shutil.which("node")
    if node is None:
        return "node not found"
    pairs = [f"{bot_file(original, a)}:{bot_file(original, b)}" for a, b in PAIRINGS]
    command = [node, str(THROUGHPUT_JS), "--original", str(original), "--seconds", str(seconds), *pairs]
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        return f"throughput.mjs failed: {done.stderr.strip().splitlines()[-1:]}"
    report = json.loads(done.stdout)
    measured = zip(PAIRINGS, report["pairings"], strict=True)
    return {f"{a} v {b}": p["matchesPerSecond"] for (a, b), p in measured}


def harmonic(values: list[float]) -> float:
    """Matches/s when each pairing is played equally often."""
    return len(values) / sum(1 / v for v in values)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--original", default=os.environ.get(ORIGINAL_ENV), help="original checkout")
    parser.add_argument("--sizes", default="1000,10000,100000", help="batch sizes, comma-separated")
    parser.add_argument("--repeat", type=int, default=3, help="batches per figure (the best is kept)")
    parser.add_argument("--seconds", type=float, default=2.0, help="time per pairing, original and scalar")
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    game = get_game("drones")
    bench_batch(PAIRINGS[0], 1000, 1)  # warm up imports and caches

    original: dict[str, float] | str = "not measured: pass --original PATH or set " + ORIGINAL_ENV
    if args.original:
        original = bench_original(Path(args.original), args.seconds)
    batched = {size: [bench_batch(pair, size, args.repeat) for pair in PAIRINGS] for size in sizes}
    scalar = [bench_direct(game, pair, args.seconds / 2)[0] for pair in PAIRINGS]

    print("GameOfDrones, default config (10 rounds x 10 turns), one core (OMP/OPENBLAS/MKL_NUM_THREADS=1)")
    print(f"batched: best of {args.repeat} whole batches per figure, set-up included; matches/s")
    header = f"{'pairing':<26}" + "".join(f"{'batch ' + format(s, ','):>14}" for s in sizes)
    header += f"{'scalar py':>11}{'original JS':>13}{'batch/JS':>10}"
    print(header)
    names = [f"{a} v {b}" for a, b in PAIRINGS]
    best_size = max(sizes, key=lambda s: harmonic(batched[s]))  # the batch size that runs fastest here
    for i, name in enumerate(names):
        row = f"{name:<26}" + "".join(f"{batched[s][i]:>14,.0f}" for s in sizes) + f"{scalar[i]:>11,.0f}"
        if isinstance(original, dict):
            row += f"{original[name]:>13,.0f}{batched[best_size][i] / original[name]:>9.1f}x"
        print(row)
    row = f"{'all pairings':<26}" + "".join(f"{harmonic(batched[s]):>14,.0f}" for s in sizes)
    row += f"{harmonic(scalar):>11,.0f}"
    if isinstance(original, dict):
        js = harmonic(list(original.values()))
        row += f"{js:>13,.0f}{harmonic(batched[best_size]) / js:>9.1f}x"
    print(row)
    if isinstance(original, dict):
        for size in sizes:
            ratio = harmonic(batched[size]) / harmonic(list(original.values()))
            print(f"batched ({size:,} per batch) / original JS engine, per core: {ratio:.1f}x (goal 10x)")
    else:
        print(f"original JavaScript engine: {original}")
    speedup = harmonic(batched[best_size]) / harmonic(scalar)
    print(f"batched ({best_size:,} per batch) / scalar botarena: {speedup:.0f}x")
    print(f"batch/JS column: at the fastest batch size here, {best_size:,}")


if __name__ == "__main__":
    main()
