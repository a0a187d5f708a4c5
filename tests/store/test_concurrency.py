"""Readers and writers at once: server threads and a separate `botarena serve` process read while a
tournament writes (SQLite in WAL mode, PostgreSQL)."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from types import SimpleNamespace

from sqlalchemy import text

from botarena.store import Store
from botarena.store.engine import WRITE

from .helpers import result, spec

MATCHES = 12

# Polls the finished count and prints it each time it changes, until every match is finished.
READER = """
import os, sys, time
from botarena.store import Store
store = Store.open(os.environ["BOTARENA_DB"], replay_dir=sys.argv[1], migrate=False)
tid, total, seen = int(sys.argv[2]), int(sys.argv[3]), -1
print("ready", flush=True)
deadline = time.monotonic() + 60
while seen < total and time.monotonic() < deadline:
    finished = store.count_matches(tid)["finished"]
    if finished != seen:
        seen = finished
        print(seen, flush=True)
    time.sleep(0.002)
"""


def test_a_reader_process_sees_each_result_as_it_is_committed(
    tournament: SimpleNamespace, tmp_path: Path
) -> None:
    store: Store = tournament.store
    tid = tournament.id
    store.add_matches(tid, [spec(f"m{i:02d}") for i in range(MATCHES)])
    reader = subprocess.Popen(
        [sys.executable, "-c", READER, str(tmp_path / "replays"), str(tid), str(MATCHES)],
        env={**os.environ, "BOTARENA_DB": store.connect_url},  # a password never on a command line
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert reader.stdout is not None
        assert reader.stdout.readline().strip() == "ready", reader.stderr.read() if reader.stderr else ""
        seen = int(reader.stdout.readline())
        assert seen == 0
        for done in range(1, MATCHES + 1):
            store.mark_running(tid, f"m{done - 1:02d}")
            assert store.record_result(tid, f"m{done - 1:02d}", **result(replay=f"{done}".encode()))
            # The writer goes on only once the other process has seen this very commit.
            seen = int(reader.stdout.readline())
            assert seen == done
        reader.wait(timeout=60)
        assert reader.returncode == 0
    finally:
        if reader.poll() is None:
            reader.kill()
            reader.wait()


def test_reader_threads_are_not_blocked_by_an_open_write_transaction(tournament: SimpleNamespace) -> None:
    store: Store = tournament.store
    tid = tournament.id
    store.add_matches(tid, [spec("m1"), spec("m2")])
    assert store.record_result(tid, "m1", **result())
    # A writer in the middle of its transaction (holding SQLite's write lock) ...
    with store._engine.execution_options(**{WRITE: True}).connect() as writer:
        transaction = writer.begin()
        writer.execute(text("UPDATE matches SET status = 'failed' WHERE key = 'm2'"))
        # ... does not stop other threads from reading the last committed state.
        with ThreadPoolExecutor(4) as pool:
            counts = list(pool.map(lambda _: store.count_matches(tid), range(8)))
        assert all(c["finished"] == 1 and c["scheduled"] == 1 and c["failed"] == 0 for c in counts)
        transaction.commit()
    assert store.count_matches(tid)["failed"] == 1


def test_readers_and_a_writer_at_once(tournament: SimpleNamespace) -> None:
    store: Store = tournament.store
    tid = tournament.id
    store.add_matches(tid, [spec(f"m{i:02d}") for i in range(MATCHES)])
    stop = threading.Event()
    errors: list[BaseException] = []
    progress: list[list[int]] = [[] for _ in range(3)]

    def read(n: int) -> None:
        try:
            while not stop.is_set():
                matches = store.list_matches(tid)
                progress[n].append(sum(m.status == "finished" for m in matches))
                for m in matches:  # a finished match is always whole: its players came with it
                    assert (m.ranks is None) == (m.status != "finished")
        except BaseException as error:
            errors.append(error)

    readers = [threading.Thread(target=read, args=(n,)) for n in range(3)]
    for thread in readers:
        thread.start()
    try:
        for i in range(MATCHES):
            store.mark_running(tid, f"m{i:02d}")
            assert store.record_result(tid, f"m{i:02d}", **result(replay=f"{i}".encode()))
    finally:
        stop.set()
        for thread in readers:
            thread.join()
    assert errors == []
    for seen in progress:
        assert seen == sorted(seen)  # never a step back
    assert store.count_matches(tid)["finished"] == MATCHES
