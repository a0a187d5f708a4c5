"""One compile of each C++ kit player per test run (issue 28, item 8).

A Domains player costs a whole compile of the kit (seconds on a loaded CI box), and the same starter
players (AIDemo, AIDummy) and test players were compiled again by every test and parameter that plays
them. Tests that play a compiled player, rather than test the compile itself, take it from here:
`cppkit.compile_cached` (the product's own content-keyed cache: the source, the headers beside it, the
kit, the compiler) into one folder shared by every xdist worker of the run, with a lock per source so
that two workers wanting the same player wait for one compile instead of running two.

Tests of the compile itself (its errors, its cache, the sealed compile) keep compiling on their own.
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import shutil
from pathlib import Path

import pytest

from botarena.bots.cppkit import compile_cached


def run_folder(factory: pytest.TempPathFactory) -> Path:
    """A folder of this test run that every xdist worker shares: the workers' base temp folders are
    `pytest-N/popen-gwK`, siblings in the run's `pytest-N` (without xdist, the base temp itself)."""
    base = factory.getbasetemp()
    return base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base


def build_once(source: Path, cache: Path) -> Path:
    """The executable of `source` (one C++ player file) compiled once per content for the whole run;
    raises CppKitError as `compile_cached` does."""
    cache.mkdir(parents=True, exist_ok=True)
    lock = cache / f".{hashlib.sha256(str(source.resolve()).encode()).hexdigest()[:16]}.lock"
    with lock.open("w") as held:
        fcntl.flock(
            held, fcntl.LOCK_EX
        )  # released when the file closes; the second worker then hits the cache
        return compile_cached(source, cache=cache)


def copy_into(binary: Path, folder: Path, name: str) -> Path:
    """A copy of a shared `binary` as `folder/name`: an entrant that must sit in a folder of its own
    (the sandbox shows a bot its folder) gets one without a compile."""
    folder.mkdir(parents=True, exist_ok=True)
    target = folder / name
    shutil.copy2(binary, target)
    return target
