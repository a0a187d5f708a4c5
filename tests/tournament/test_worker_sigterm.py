"""A pool worker's SIGTERM unwinds its match even when it lands where Python cannot raise (issue 12, item 4).

CI stop 36 caught one: the SIGTERM of `serve --demo`'s Ctrl-C arrived while a worker forked a bot,
inside logging's at-fork lock release. Python printed "Exception ignored ... WorkerTerminated" and
the match went on. The script below stages exactly that: its SIGTERM is delivered inside an at-fork
callback of a worker set up by the real `_init_worker`.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap

WORKER = textwrap.dedent(
    """
    import os, signal, sys
    from botarena.tournament import executor

    executor._init_worker(live_queue=None)
    # the callback runs Python code after the signal, so the handler fires inside the callback
    os.register_at_fork(after_in_parent=lambda: (os.kill(os.getpid(), signal.SIGTERM), sum(range(100))))
    executor._in_task = True
    try:
        pid = os.fork()
        if pid == 0:
            os._exit(0)
        os.waitpid(pid, 0)
        print("the match goes on", flush=True)
        while True:  # the rest of the match: only the unwinding stops it (the test's timeout fails it)
            pass
    except executor.WorkerTerminated:
        print("unwound", flush=True)
    """
)


def test_a_sigterm_inside_an_at_fork_callback_still_unwinds_the_match_and_prints_no_traceback() -> None:
    try:
        done = subprocess.run([sys.executable, "-c", WORKER], capture_output=True, text=True, timeout=60)
    except subprocess.TimeoutExpired as stuck:
        raise AssertionError(f"the SIGTERM was lost: the match never unwound\n{stuck.stderr!r}") from None
    assert done.stdout.strip().splitlines()[-1] == "unwound", (done.stdout, done.stderr)
    assert "Exception ignored" not in done.stderr and "Traceback" not in done.stderr, done.stderr


def test_other_unraisable_errors_are_still_reported() -> None:
    script = WORKER.split("os.register_at_fork")[0] + textwrap.dedent(
        """
        class Leaky:
            def __del__(self):
                raise ValueError("a __del__ that fails")
        Leaky()
        print("alive", flush=True)
        """
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)
    assert done.stdout.strip() == "alive", (done.stdout, done.stderr)
    assert "a __del__ that fails" in done.stderr
