"""What shipping bots as artifacts costs (issue 18, item 1): packing a bot folder on the
coordinator, a worker's first fetch + check + unpack, and the per-match cost on a cache hit (what
every match after the first pays, the figure that matters for short matches).

    .venv/bin/python benchmarks/artifacts.py [--files 200] [--kib 8] [--hits 20000] [--packs 5]

Packing is timed `--packs` times and the fastest is printed (the least disturbed by other load), with
the share of it that reads the folder (by descriptor, following no link: bots/nofollow.py) rather
than compressing.
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from pathlib import Path

from botarena.bots.artifacts import ArtifactCache, materialize_specs, pack_spec
from botarena.core.registry import get_game


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=200, help="files in the bot's folder")
    parser.add_argument("--kib", type=int, default=8, help="size of each file, KiB")
    parser.add_argument("--hits", type=int, default=20000, help="cache-hit lookups to time")
    parser.add_argument("--packs", type=int, default=5, help="times to pack (the fastest is printed)")
    args = parser.parse_args()
    game = get_game("drones")
    with tempfile.TemporaryDirectory() as scratch:
        folder = Path(scratch) / "bot"
        (folder / "lib").mkdir(parents=True)
        (folder / "bot.py").write_text("def act(obs):\n    return {}\n")
        for i in range(args.files):
            (folder / "lib" / f"m{i}.py").write_bytes(os.urandom(args.kib * 512).hex().encode())
        pack_s = read_s = float("inf")
        for _ in range(args.packs):
            started = time.perf_counter()
            packed = pack_spec(str(folder), game)
            pack_s = min(pack_s, time.perf_counter() - started)
            read_s = min(read_s, _read_time(folder))
        assert packed is not None
        cache = ArtifactCache(Path(scratch) / "cache")
        started = time.perf_counter()
        cache.unpacked(packed.digest, lambda _: packed.data)
        unpack_s = time.perf_counter() - started
        specs, seats = (packed.run_spec, "tactician"), (packed.digest, None)
        started = time.perf_counter()
        for _ in range(args.hits):
            materialize_specs(specs, seats, "unused", cache=cache)
        hit_us = (time.perf_counter() - started) / args.hits * 1e6
    size = args.files * args.kib
    print(f"bot folder: {args.files + 1} files, {size} KiB; archive {len(packed.data) / 1024:.0f} KiB")
    print(f"pack (coordinator, once per entrant):        {pack_s * 1000:8.1f} ms")
    print(f"  of which reading the folder:               {read_s * 1000:8.1f} ms")
    print(f"check + unpack (worker, once per digest):    {unpack_s * 1000:8.1f} ms")
    print(f"materialize on a cache hit (every match):    {hit_us:8.1f} us")


def _read_time(folder: Path) -> float:
    """Seconds to walk and read `folder` as packing does, without archiving it."""
    from botarena.bots import artifacts

    started = time.perf_counter()
    with artifacts.Folder.open_root(folder) as top:
        artifacts._Packer(folder).add_named(top, ())
    return time.perf_counter() - started


if __name__ == "__main__":
    main()
