"""Crafting Quest 2 scenario generation time (spec CQ-5 to CQ-25), per map size.

For each size, builds the generated scenario of several match seeds and prints the median, the best
and the worst wall time per scenario, the median CPU time (less disturbed on a shared machine), and the
median of each phase. Also times the CQ-26 JSON round trip (`to_bytes`, `from_json`) and, when the
original maps are available ($BOTARENA_CQ_MAPS or ../shared/fixtures/craftingquest/maps), the presets.

    .venv/bin/python benchmarks/craftingquest_scenario.py [--seeds 15] [--sizes 60x60,100x100]
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson

from botarena.core.config import build_config
from botarena.games.craftingquest import generate
from botarena.games.craftingquest.config import PRESETS, CraftingQuestConfig
from botarena.games.craftingquest.generate import build_scenario
from botarena.games.craftingquest.scenario import Scenario

PHASES = {
    "terrain+camps": "_generated_map",
    "deposits": "make_deposits",
    "attributes": "make_attributes",
    "vectors": "make_deposit_records",
    "blueprints": "make_blueprints",
    "stock": "_stocked_camps",
}


def _timed(store: dict[str, list[float]], name: str, fn: Callable[..., Any]) -> Callable[..., Any]:
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        started = time.perf_counter()
        try:
            return fn(*args, **kwargs)
        finally:
            store.setdefault(name, []).append(time.perf_counter() - started)

    return wrapper


def measure(cfg: CraftingQuestConfig, seeds: range, maps_dir: Path | None = None) -> dict[str, Any]:
    phases: dict[str, list[float]] = {}
    originals = {attr: getattr(generate, attr) for attr in PHASES.values()}
    for label, attr in PHASES.items():
        setattr(generate, attr, _timed(phases, label, originals[attr]))
    walls, cpus = [], []
    try:
        for seed in seeds:
            wall, cpu = time.perf_counter(), time.process_time()
            scenario = build_scenario(cfg, seed, maps_dir=maps_dir)
            walls.append(time.perf_counter() - wall)
            cpus.append(time.process_time() - cpu)
    finally:
        for attr, fn in originals.items():
            setattr(generate, attr, fn)
    started = time.perf_counter()
    data = scenario.to_bytes()
    dump = time.perf_counter() - started
    parsed = orjson.loads(data)
    started = time.perf_counter()
    Scenario.from_json(parsed)
    load = time.perf_counter() - started
    return {
        "median": statistics.median(walls),
        "best": min(walls),
        "worst": max(walls),
        "cpu": statistics.median(cpus),
        "phases": {k: statistics.median(v) for k, v in phases.items()},
        "deposits": len(scenario.deposits),
        "json_kb": len(data) / 1024,
        "to_bytes": dump,
        "from_json": load,
    }


def report(label: str, figures: dict[str, Any], count: int) -> None:
    ms = 1000.0
    print(
        f"{label:>9}: median {figures['median'] * ms:6.1f} ms  best {figures['best'] * ms:6.1f}  "
        f"worst {figures['worst'] * ms:6.1f}  cpu median {figures['cpu'] * ms:6.1f} ms  ({count} seeds)"
    )
    phases = "  ".join(f"{k} {v * ms:.1f}" for k, v in figures["phases"].items())
    print(f"{'':>9}  phases (median ms): {phases}")
    print(
        f"{'':>9}  last scenario: {figures['deposits']} deposit cells, {figures['json_kb']:.0f} KiB JSON, "
        f"to_bytes {figures['to_bytes'] * ms:.1f} ms, from_json {figures['from_json'] * ms:.1f} ms"
    )


def _maps_dir() -> Path | None:
    from botarena.games.craftingquest.maps import find_maps_directory

    return find_maps_directory(
        Path(__file__).resolve().parents[1] / ".." / "shared" / "fixtures" / "craftingquest" / "maps"
    )


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--seeds", type=int, default=15, help="match seeds per size (default 15)")
    parser.add_argument("--sizes", default="50x50,60x60,77x77,100x100,50x100", help="WxH list")
    args = parser.parse_args()
    seeds = range(1000, 1000 + args.seeds)
    print("Crafting Quest 2 scenario generation, per scenario:")
    for size in args.sizes.split(","):
        width, height = (int(v) for v in size.lower().split("x"))
        cfg = build_config(CraftingQuestConfig, PRESETS, "default", {"width": width, "height": height})
        build_scenario(cfg, 0)  # warm-up: imports and caches
        report(size, measure(cfg, seeds), len(seeds))
    maps = _maps_dir()
    if maps is None:
        print("presets: skipped (set BOTARENA_CQ_MAPS to the directory of the original maps)")
        return
    for name in ("map_v1", "map_v5", "map_v2"):
        cfg = build_config(CraftingQuestConfig, PRESETS, name)
        report(name, measure(cfg, seeds, maps), len(seeds))


if __name__ == "__main__":
    main()
