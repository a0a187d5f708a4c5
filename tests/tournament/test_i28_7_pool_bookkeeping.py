"""Issue 28 item 7: the tournament's process pool keeps its own record of its workers, and the
executor seam reads no private attribute of the standard library's pool or of Dask's executor."""

from __future__ import annotations

import os
import re
import signal
from concurrent.futures import CancelledError
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path

import pytest

import botarena.tournament.executor as executor_module
from botarena.tournament.executor import WorkerPool, close_executor, executor_slots, make_executor

WAIT_S = 120  # a generous bound on a loaded machine, never a measure of its speed


def gone(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    return False


@pytest.mark.timeout(300)
def test_i28_7_the_pool_knows_every_worker_that_played_and_its_slots() -> None:
    pool = make_executor(2)
    assert isinstance(pool, WorkerPool) and executor_slots(pool) == 2
    try:
        played = {pool.submit(os.getpid).result(timeout=WAIT_S) for _ in range(6)}
        assert played <= set(pool.worker_pids())  # a worker reports itself before its first task
        assert 1 <= len(pool.worker_pids()) <= 2
    finally:
        close_executor(pool)
    assert all(gone(pid) for pid in played)


@pytest.mark.timeout(300)
def test_i28_7_a_cancelled_pool_ends_workers_that_never_return() -> None:
    pool = make_executor(1)
    assert isinstance(pool, WorkerPool)
    up = pool.submit(os.getpid).result(timeout=WAIT_S)
    stuck = pool.submit(signal.pause)  # returns only on a signal: only the pool's stop ends it
    close_executor(pool, cancel=True)
    with pytest.raises((BrokenProcessPool, CancelledError)):
        stuck.result(timeout=WAIT_S)
    assert pool.worker_pids() == [] and gone(up)  # its handles are closed, its worker is gone


def test_i28_7_the_executor_seam_reads_no_private_attribute_of_other_objects() -> None:
    source = Path(executor_module.__file__).read_text(encoding="utf-8")
    probes = re.findall(r"getattr\([^)]*[\"']_[a-z]\w*[\"']", source)
    private = r"_(?:processes|max_workers|client|pool|broken)\b"
    foreign = re.findall(r"\b(?!self\b|cls\b)[a-z_]\w*\." + private, source)
    assert probes == [] and foreign == []
