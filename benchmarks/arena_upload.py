"""What checking and unpacking an upload costs the server (specs/arena.md, goal G5: a 10 MiB upload POST
p99 <= 1 s at the API; this is the checker's share of it).

    .venv/bin/python benchmarks/arena_upload.py [--mib 10] [--entries 2000] [--repeat 5] [--scratch DIR]

Three uploads are built in memory: a zip of `--mib` MiB of incompressible files (the largest body the
default policy takes), a zip of `--entries` small source files (the most entries it takes), and the
same small files as a tar.gz. Each is checked (`check_upload`: every entry inflated once, bounded),
unpacked into a fresh temporary folder (`unpack_checked`) and packed to its canonical artifact
(`bots.artifacts.pack_folder`); the median and the worst of `--repeat` runs are printed. Unpacking
many small files costs what the file system charges for creating them: each run is made under the
system's temporary folder and, where there is one, under /dev/shm (a tmpfs) for comparison.
"""

from __future__ import annotations

import argparse
import io
import os
import statistics
import tarfile
import tempfile
import time
import zipfile
from collections.abc import Callable
from pathlib import Path

from botarena.arena.archive import check_upload, unpack_checked
from botarena.arena.policy import ArenaPolicy
from botarena.bots.artifacts import pack_folder

BOT = b"def act(observation):\n    return {}\n"


def big_zip(mib: float) -> bytes:
    """A zip of about `mib` MiB of random bytes in 1 MiB files (it compresses to its own size)."""
    buffer = io.BytesIO()
    budget = int(mib * (1 << 20)) - 64 * 1024  # room for the headers under the cap
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_STORED) as archive:
        archive.writestr("bot.py", BOT)
        for i in range(0, budget, 1 << 20):
            archive.writestr(f"weights/{i >> 20:03d}.bin", os.urandom(min(1 << 20, budget - i)))
    return buffer.getvalue()


def source_files(count: int) -> dict[str, bytes]:
    files = {"bot.py": BOT}
    for i in range(count - 1):
        files[f"pkg/m{i // 100:02d}/f{i}.py"] = (
            f"VALUE_{i} = {i}\n\ndef f{i}(x):\n    return x + {i}\n".encode()
        )
    return files


def many_zip(count: int) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in source_files(count).items():
            archive.writestr(name, data)
    return buffer.getvalue()


def many_tar_gz(count: int) -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
        for name, data in source_files(count).items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            archive.addfile(info, io.BytesIO(data))
    return buffer.getvalue()


def timed(action: Callable[[], object]) -> float:
    started = time.perf_counter()
    action()
    return time.perf_counter() - started


def measure(data: bytes, policy: ArenaPolicy, repeat: int, scratch_root: str) -> dict[str, list[float]]:
    runs: dict[str, list[float]] = {"check": [], "unpack": [], "pack": []}
    for _ in range(repeat):
        started = time.perf_counter()
        checked = check_upload(data, "upload", policy)
        runs["check"].append(time.perf_counter() - started)
        with tempfile.TemporaryDirectory(dir=scratch_root) as scratch:
            started = time.perf_counter()
            unpack_checked(checked, Path(scratch), policy)
            runs["unpack"].append(time.perf_counter() - started)
            runs["pack"].append(timed(lambda folder=Path(scratch): pack_folder(folder)))
    return runs


def report(label: str, data: bytes, policy: ArenaPolicy, repeat: int, scratch_root: str) -> None:
    checked = check_upload(data, "upload", policy)
    runs = measure(data, policy, repeat, scratch_root)
    total = [sum(parts) for parts in zip(runs["check"], runs["unpack"], runs["pack"], strict=True)]
    mib = len(data) / (1 << 20)
    unpacked = checked.total_bytes / (1 << 20)
    print(f"{label:<24} {mib:7.2f} MiB, unpacked in {scratch_root}:")
    print(f"  {mib:7.2f} MiB {checked.files:5d} files {unpacked:7.2f} MiB unpacked")
    for step, times in [*runs.items(), ("check+unpack+pack", total)]:
        median = statistics.median(times)
        print(
            f"  {step:<20} median {median * 1000:8.1f} ms  worst {max(times) * 1000:8.1f} ms"
            f"  {mib / median:8.1f} MiB/s of upload"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mib", type=float, default=10, help="size of the large zip, MiB")
    parser.add_argument("--entries", type=int, default=2000, help="entries of the many-file uploads")
    parser.add_argument("--repeat", type=int, default=5, help="runs of each (median and worst printed)")
    parser.add_argument(
        "--scratch", help="the folder to unpack under (default: the temporary folder, then /dev/shm)"
    )
    args = parser.parse_args()
    policy = ArenaPolicy(max_upload_mb=max(args.mib, 1), max_entries=max(args.entries, 1))
    uploads = [
        (f"zip, {args.mib:g} MiB random", big_zip(args.mib)),
        (f"zip, {args.entries} entries", many_zip(args.entries)),
        (f"tar.gz, {args.entries} entries", many_tar_gz(args.entries)),
    ]
    roots = [tempfile.gettempdir()] + (["/dev/shm"] if os.path.isdir("/dev/shm") else [])
    for root in roots if args.scratch is None else [args.scratch]:
        for label, data in uploads:
            report(label, data, policy, args.repeat, root)


if __name__ == "__main__":
    main()
