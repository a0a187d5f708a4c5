"""The starter logic service (spec 7.6, 7.4), served for real by uvicorn and played against."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import urllib.error
import urllib.request
from collections.abc import Iterator
from typing import Any

import pytest

from botarena.bots.devops_http import DevopsHttpBot
from botarena.bots.inprocess import PythonBot
from botarena.games.devops import GAME
from botarena.runner import run_match
from waiting import wait_until


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def call(url: str, body: bytes | None = None, key: str | None = None) -> tuple[int, Any]:
    headers = {"Content-Type": "application/json"}
    if key is not None:
        headers["X-SECURE-KEY"] = key
    request = urllib.request.Request(
        url, data=body, headers=headers, method="POST" if body is not None else "GET"
    )
    try:
        with urllib.request.urlopen(request, timeout=5) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read().decode()


def start_service(env: dict[str, str] | None = None) -> tuple[subprocess.Popen[bytes], str]:
    port = _free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "botarena", "devops-service", "--port", str(port), "--bot", "expander"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env={**os.environ, **(env or {})},
    )
    url = f"http://127.0.0.1:{port}"

    def answers() -> bool:
        assert proc.poll() is None, f"the devops service exited with {proc.returncode}"
        try:
            urllib.request.urlopen(url + "/logs", timeout=2).close()
        except (urllib.error.URLError, OSError):
            return False
        return True

    wait_until(answers, f"the devops service answering on {url}/logs")
    return proc, url


@pytest.fixture
def service() -> Iterator[str]:
    proc, url = start_service()
    try:
        yield url
    finally:
        proc.terminate()
        proc.wait(10)


def test_the_service_command_plays_a_game_against_in_process_logic(service: str) -> None:
    config = GAME.config("smoke", {"turn_limit": 20})
    bots = [DevopsHttpBot(service, name="team"), PythonBot(GAME.starter_bots["starter"], "starter")]
    run = run_match(GAME, bots, config=config, seed=4)
    statuses = run.replay.statuses[0]
    assert set(statuses) == {"OK"}, statuses
    logs = call(service + "/logs")[1]
    assert any(line.startswith("new game devops-") for line in logs)
    assert call(service + "/logs")[1] == []  # cleared on read


def test_service_errors_and_security() -> None:
    proc, url = start_service({"SECURE_ENDPOINTS": "true", "SECURE_KEY": "k"})
    try:
        assert call(url + "/moves/base", b"{}")[0] == 401
        assert call(url + "/moves/base", b"{}", key="wrong")[0] == 401
        assert call(url + "/moves/base", b"{nope", key="k")[0] == 400
        assert call(url + "/elsewhere", b"{}", key="k")[0] == 404
        bot = DevopsHttpBot(url + "#key=k")
        config = GAME.config("smoke", {"turn_limit": 3})
        run = run_match(GAME, [bot, PythonBot(GAME.starter_bots["idle"], "idle")], config=config, seed=1)
        assert set(run.replay.statuses[0]) == {"OK"}
    finally:
        proc.terminate()
        proc.wait(10)
