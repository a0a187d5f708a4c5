"""One compile of each C++ kit player per test run (issue 28, item 8).

A Domains player costs a whole compile of the kit (seconds on a loaded CI box), and the same starter
players (AIDemo, AIDummy) and test players were compiled again by every test and parameter that plays
them. Tests that play a compiled player, rather than test the compile itself, take it from here:
`cppkit.compile_cached` (the product's own content-keyed cache: the source, the headers beside it, the
kit, the compiler) into one folder shared by every xdist worker of the run, with a lock per source so
that two workers wanting the same player wait for one compile instead of running two.

Tests of the compile itself (its errors, its cache, the sealed compile) keep compiling their players on
their own, each in a fresh cache; `with_kit_objects` puts in it the kit's own objects (`game/*.cc`,
the same for every player: `cppkit.kit_objects`), compiled once per run, so that each such test pays
for its player's compile, not for the kit's again.
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import shutil
from pathlib import Path

import pytest

from botarena.bots.cppkit import compile_cached, kit_objects


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


def with_kit_objects(env_folder: Path, shared: Path) -> Path:
    """Put the kit's objects, compiled once per run into `shared` (a compile cache, as `build_once`
    takes), into the fresh cache that BOTARENA_CACHE_DIR=`env_folder` names; returns `env_folder`.
    A stand-in compiler (another version, another key) still builds its own."""
    shared.mkdir(parents=True, exist_ok=True)
    with (shared / ".kit-objects.lock").open("w") as held:
        fcntl.flock(held, fcntl.LOCK_EX)  # one compile of the kit for every worker
        built = kit_objects(cache=shared)[0].parent
    shutil.copytree(built, env_folder / "domains-cpp" / built.name)
    return env_folder
