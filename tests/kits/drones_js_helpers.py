"""Helpers for the drones JavaScript kit tests: node detection, envelopes, piping lines to the adapter."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from botarena.bots.node import MIN_NODE, find_adapter, find_node, node_version

KIT_BOTS = Path(__file__).resolve().parents[2] / "kits" / "drones-js" / "bots"


def node_skip_reason() -> str | None:
    """Why the node tests cannot run here, or None if they can."""
    node = find_node()
    wanted = ".".join(map(str, MIN_NODE))
    if node is None:
        return f"Node.js >= {wanted} is not installed (no `node` on PATH): JavaScript kit tests skipped"
    version = node_version(node)
    if version is None or version < MIN_NODE:
        found = "unknown" if version is None else ".".join(map(str, version))
        return f"Node.js {found} is older than {wanted}: JavaScript kit tests skipped"
    return None


needs_node = pytest.mark.skipif(node_skip_reason() is not None, reason=str(node_skip_reason()))
"""Marks a test (or, as `pytestmark`, a module) that runs Node.js: skipped with the reason without it."""


def kit_bot(name: str) -> Path:
    """A JavaScript test bot of kits/drones-js/bots."""
    return KIT_BOTS / name


def start(request_id: int, *, rules: str = "seed", seed: int = 1, rounds: int = 3) -> dict[str, Any]:
    payload = {"rules": rules, "rounds": rounds, "drawAllowed": True, "playerSeed": seed, "bot_seed": seed}
    return {
        "type": "start",
        "id": request_id,
        "match": "m",
        "seat": 0,
        "turn": 0,
        "deadline_ms": 10000,
        "payload": payload,
    }


def turn(
    request_id: int,
    *,
    turn: int = 1,
    round: int = 1,
    producers: Any = 1,
    soldiers: Any = 0,
    turn_limit: int = 10,
    defender_bonus: int = 1,
    previous_round: Any = None,
) -> dict[str, Any]:
    payload = {
        "round": round,
        "rounds": 3,
        "turn": turn,
        "turnLimit": turn_limit,
        "defenderBonus": defender_bonus,
        "producers": producers,
        "soldiers": soldiers,
        "roundWins": 0,
        "roundLosses": 0,
        "roundDraws": 0,
        "previousRound": previous_round,
    }
    return {
        "type": "turn",
        "id": request_id,
        "match": "m",
        "seat": 0,
        "turn": turn,
        "deadline_ms": 1000,
        "payload": payload,
    }


def end(request_id: int, *, last_round: Any = None) -> dict[str, Any]:
    payload = {"lastRound": last_round, "outcome": "WIN", "roundWins": 1, "roundLosses": 0, "roundDraws": 0}
    return {
        "type": "end",
        "id": request_id,
        "match": "m",
        "seat": 0,
        "turn": 1,
        "deadline_ms": 1000,
        "payload": payload,
    }


ROUND_RESULT = {
    "outcome": "WIN",
    "turnsPlayed": 2,
    "you": {"producers": 1, "soldiers": 2, "launchedAttack": True},
    "them": {"producers": 4, "soldiers": 0, "launchedAttack": False},
}


@dataclass
class Piped:
    """What the adapter printed for a batch of request lines."""

    lines: list[str]
    stderr: str
    returncode: int

    @property
    def replies(self) -> list[dict[str, Any]]:
        return [json.loads(line) for line in self.lines]

    @property
    def payloads(self) -> list[Any]:
        return [reply["payload"] for reply in self.replies]


def pipe(
    bot: str | Path,
    requests: Sequence[Mapping[str, Any] | str],
    *,
    env: Mapping[str, str] | None = None,
    timeout: float = 30.0,
) -> Piped:
    """Run `node adapter.mjs <bot>`, write all request lines, close stdin, collect the output."""
    node = find_node()
    assert node is not None
    text = "".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in requests)
    done = subprocess.run(
        [node, str(find_adapter()), str(bot)],
        input=text,
        capture_output=True,
        text=True,
        timeout=timeout,
        env=None if env is None else dict(env),
        check=False,
    )
    return Piped(done.stdout.splitlines(), done.stderr, done.returncode)


def write_bot(folder: Path, name: str, source: str) -> Path:
    """Write a JavaScript bot file (typeless .js, no package.json) and return its path."""
    path = folder / name
    path.write_text(source, encoding="utf-8")
    return path


class Session:
    """An adapter process spoken to one request at a time: `ask` writes a line and reads the reply."""

    def __init__(self, bot: str | Path, env: Mapping[str, str] | None = None) -> None:
        node = find_node()
        assert node is not None
        self.proc = subprocess.Popen(
            [node, str(find_adapter()), str(bot)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=None if env is None else dict(env),
        )

    def ask(self, request: Mapping[str, Any]) -> Any:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write(json.dumps(request) + "\n")
        self.proc.stdin.flush()
        reply = json.loads(self.proc.stdout.readline())
        assert reply["id"] == request["id"]
        return reply["payload"]

    def close(self) -> str:
        """Close stdin, wait for the exit, and return the stderr text."""
        _, stderr = self.proc.communicate(timeout=30)
        assert self.proc.returncode == 0
        return stderr

    def __enter__(self) -> Session:
        return self

    def __exit__(self, *exc: object) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.communicate()


# Spec E16: Randomonium (playerSeed 1) in round 1 against the Pacifist, turn by turn: the state at the
# start of each turn, the action (newProducers, newSoldiers, launchAttack), and the state after it.
E16_START_STATES = [(1, 0), (2, 0), (3, 1), (3, 4), (3, 7), (5, 8), (7, 11)]
E16_ACTIONS = [
    (1, 0, False),
    (1, 1, False),
    (0, 3, False),
    (0, 3, False),
    (2, 1, False),
    (2, 3, False),
    (2, 5, True),
]
E16_END_STATES = [*E16_START_STATES[1:], (9, 16)]
