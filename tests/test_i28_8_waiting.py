"""Issue 28, item 8: the suite's one way to wait for a state (tests/waiting.py) returns what it
waited for as soon as it holds, and a failure names what did not happen and what was seen last."""

from __future__ import annotations

import threading

import pytest

from waiting import NeverHappened, wait_until


def test_i28_8_wait_until_returns_what_it_saw_once_another_thread_makes_it_true() -> None:
    box: list[str] = []
    filled = threading.Event()

    def fill() -> None:
        box.append("row")
        filled.set()

    threading.Thread(target=fill).start()
    filled.wait()  # the state is there: the first look sees it
    assert wait_until(lambda: box, "the row") == ["row"]


def test_i28_8_a_wait_that_fails_names_what_did_not_happen_and_the_last_state() -> None:
    with pytest.raises(
        NeverHappened, match=r"^3 watchers did not happen within 0 s; last seen: '1 watcher'$"
    ):
        wait_until(lambda: False, "3 watchers", 0, seen=lambda: "1 watcher")
    assert issubclass(NeverHappened, AssertionError)  # pytest reports it as a test failure
