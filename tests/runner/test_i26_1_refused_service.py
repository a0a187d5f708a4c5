"""Issue 26, item 1: a Devops faction whose HTTP service refuses every connection (devops spec 5.2,
7.1). Its seat gets CRASHED `transport` verdicts that say the connection was refused, the game plays
to its last turn, and the other seat's calls are all OK, in either seat."""

from __future__ import annotations

import socket
from typing import Any

import pytest

from botarena.bots import devops_http
from botarena.bots.devops_http import TRANSPORT, DevopsHttpBot
from botarena.bots.inprocess import PythonBot
from botarena.core.replay import Replay
from botarena.games.devops import GAME
from botarena.runner import run_match
from botarena.runner.verify import verify_replay

TURNS = 6


def closed_port() -> int:
    """A port of 127.0.0.1 that nothing listens on once this returns."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def calls_of(replay: Replay, seat: int) -> list[tuple[list[Any], dict[str, Any]]]:
    """(verdict, reply) of every recorded call of `seat`, over all steps (a Devops step records one
    verdict per call, the seat in its reply)."""
    found = []
    for step in replay.steps:
        for verdict, reply in zip(step["verdicts"], step["replies"], strict=True):
            if reply["seat"] == seat:
                found.append((verdict, reply))
    return found


@pytest.mark.parametrize("client", ["lean", "aiohttp"])
@pytest.mark.parametrize("seat", [0, 1])
def test_i26_1_a_refused_service_crashes_its_own_seat_and_the_game_plays_on(
    seat: int, client: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Both HTTP clients of the host: the lean one (plain http:// with httptools) and aiohttp."""
    if client == "aiohttp":
        monkeypatch.setattr(devops_http, "HAVE_HTTPTOOLS", False)
    elif not devops_http.HAVE_HTTPTOOLS:
        pytest.skip("httptools is not installed: every scheme goes through aiohttp")
    refused = DevopsHttpBot(f"http://127.0.0.1:{closed_port()}", name="refused")
    starter = PythonBot(GAME.starter_bots["starter"], "starter")
    bots = [refused, starter] if seat == 0 else [starter, refused]
    config = GAME.config("smoke", {"turn_limit": TURNS})
    run = run_match(GAME, bots, config=config, seed=5)
    replay = run.replay

    assert len(replay.steps) == TURNS  # played to its end
    assert replay.end and run.result.ranks
    mine = calls_of(replay, seat)
    assert mine, "the refused seat was still asked"
    for verdict, reply in mine:
        assert (verdict[0], verdict[1]) == ("CRASHED", TRANSPORT)
        detail = " ".join(w.get("detail", "") for w in reply.get("warnings") or [])
        assert detail.startswith("connection refused by 127.0.0.1:"), reply
    other = calls_of(replay, 1 - seat)
    assert other and all(verdict[0] == "OK" for verdict, _reply in other)
    assert replay.statuses[1 - seat] == {"OK": len(other) + 1}  # its start, then every call
    assert "CRASHED" in replay.statuses[seat] and "OK" not in {v[0] for v, _r in mine}
    assert verify_replay(replay).identical
