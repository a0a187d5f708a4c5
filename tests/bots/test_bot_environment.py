"""No bot process inherits a secret of the platform (issue 25, item 1; DESIGN principle 7).

The runner's environment holds the secrets an organizer's really does (the store's URL with its
password, the live token, libpq's password, the files that hold them, a DatsPulse team token, a
cloud key); every bot prints its whole environment into its log at the start of the match, and
the replay, logs included, must hold none of them. One bot of each process kind does it, in both
seats, sandboxed and unsandboxed: a command-line bot speaking the protocol itself, an entrant's
Python file run by the Python kit, and a 2018 JavaScript module run by the Node kit; against each
other, an in-process starter and an HTTP bot. A variable that is no secret is planted too: the
unsandboxed bots must see it (their environment is the runner's, without the secrets), the
sandboxed ones must not (theirs is a clean one). The compiler of an unsandboxed C++ entrant gets
the same environment as its bots (a source can `#include "/proc/self/environ"` into its errors).
"""

from __future__ import annotations

import os
import secrets
import textwrap
from collections.abc import Iterator
from pathlib import Path

import orjson
import pytest

from botarena.bots.base import Bot
from botarena.bots.http import HttpBot
from botarena.bots.inprocess import PythonBot
from botarena.bots.node import NodeUnavailableError, check_node
from botarena.bots.resolve import Isolation, resolve_bot, untrusted
from botarena.bots.sandbox import SandboxPolicy, SandboxUnavailable, check_sandbox
from botarena.core.registry import get_game
from botarena.runner import run_match

pytest.importorskip("aiohttp", reason="the http extra (aiohttp) is not installed")
from zoo.http_bots import HonestHttp  # after the importorskip: it needs aiohttp

DRONES = get_game("drones")
CONFIG = {"rounds": 1, "turn_limit": 2, "setup_timeout_ms": 30_000, "turn_timeout_ms": 5_000}
REQUIRE_SANDBOX_ENV = "BOTARENA_REQUIRE_SANDBOX"
DUMP = "ENV-DUMP "
"""What every dumping bot's log line starts with, before the JSON of its environment."""

COMMAND_BOT = textwrap.dedent(
    """\
    #!/usr/bin/env python3
    # A protocol bot written without botarena: prints its environment, then builds one producer a turn.
    import json, os, sys
    sys.stderr.write("ENV-DUMP " + json.dumps(dict(os.environ)) + "\\n")
    sys.stderr.flush()
    for line in sys.stdin:
        envelope = json.loads(line)
        payload = {"newProducers": 1} if envelope["type"] == "turn" else {}
        sys.stdout.write(json.dumps({"id": envelope["id"], "payload": payload}) + "\\n")
        sys.stdout.flush()
    """
)
KIT_BOT = textwrap.dedent(
    """
    # An entrant's Python file (run by `python -m botarena.kit`): prints its environment on import.
    import json, os, sys
    sys.stderr.write("ENV-DUMP " + json.dumps(dict(os.environ)) + "\\n")


    def act(payload):
        return {"newProducers": 1}
    """
)
NODE_BOT = textwrap.dedent(
    """
    // A 2018 JavaScript module (run by the Node kit's adapter): prints its environment at the start.
    export default () => ({
      meta: { name: "env dumper", author: "botarena tests" },
      onMatchStart() {
        console.error("ENV-DUMP " + JSON.stringify(process.env));
      },
      playTurn(state) {
        return { newProducers: 1, newSoldiers: 0, launchAttack: false };
      },
    });
    """
)
KINDS = {
    "cmd": ("dump_env.py", COMMAND_BOT),
    "kit": ("kit_dump_env.py", KIT_BOT),
    "node": ("dump_env.js", NODE_BOT),
}

# (seat 0, seat 1); a dumper is "<kind>/<S or U>" (sandboxed or not). Every kind is in both seats
# both ways, and dumpers meet each other, an in-process starter and an HTTP bot.
MATCHES = [
    ("cmd/U", "kit/S"),
    ("kit/U", "node/S"),
    ("node/U", "cmd/S"),
    ("cmd/S", "kit/U"),
    ("kit/S", "node/U"),
    ("node/S", "cmd/U"),
    ("inprocess", "kit/U"),
    ("cmd/U", "http"),
]


@pytest.fixture
def policy() -> SandboxPolicy:
    sandbox = SandboxPolicy()
    try:
        check_sandbox(sandbox)
    except SandboxUnavailable as exc:
        if os.environ.get(REQUIRE_SANDBOX_ENV) == "1":
            pytest.fail(f"{REQUIRE_SANDBOX_ENV}=1 but the sandbox is unavailable: {exc}", pytrace=False)
        pytest.skip(str(exc))
    return sandbox


@pytest.fixture
def planted(monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    """The secrets planted in the runner's environment (name -> value, each value unique)."""
    tag = secrets.token_hex(8)
    found = {
        "BOTARENA_DB": f"postgresql+psycopg://arena:db-pw-{tag}@db-host/arena",
        "BOTARENA_DB_FILE": f"/etc/botarena/db-url-{tag}",
        "BOTARENA_LIVE_TOKEN": f"live-token-{tag}",
        "BOTARENA_LIVE_TOKEN_FILE": f"/etc/botarena/live-token-{tag}",
        "BOTARENA_DATSPULSE_TOKEN": f"team-token-{tag}",
        "PGPASSWORD": f"pg-pw-{tag}",
        "PGPASSFILE": f"/etc/botarena/pgpass-{tag}",
        "AWS_SECRET_ACCESS_KEY": f"aws-key-{tag}",
        "SSH_AUTH_SOCK": f"/tmp/ssh-agent-{tag}",
    }
    for name, value in found.items():
        monkeypatch.setenv(name, value)
    return found


@pytest.fixture
def http_bots() -> Iterator[list[HonestHttp]]:
    servers: list[HonestHttp] = []
    yield servers
    for server in servers:
        server.stop()


def _bot(label: str, folder: Path, policy: SandboxPolicy, servers: list[HonestHttp]) -> Bot:
    if label == "inprocess":
        return PythonBot(DRONES.starter_bots["zergy"], name="zergy")
    if label == "http":
        server = HonestHttp()
        servers.append(server)
        return HttpBot(server.url("bot"), name="honest-http")
    kind, how = label.split("/")
    isolation: Isolation = untrusted(policy if how == "S" else None)  # a tournament's, or --unsandboxed
    name, source = KINDS[kind]
    folder.mkdir(parents=True)  # each bot's files in a folder of its own, as an entrant's are
    path = folder / name
    path.write_text(source)
    if kind == "cmd":
        path.chmod(0o755)  # an executable of any language: here a script for whatever python3 is there
    return resolve_bot(str(path), DRONES, isolation=isolation)


def _dumped(log: str) -> dict[str, str]:
    """The environment a bot printed into its log."""
    for line in log.splitlines():
        if DUMP in line:
            found: dict[str, str] = orjson.loads(line[line.index(DUMP) + len(DUMP) :])
            return found
    raise AssertionError(f"the bot printed no environment; its log: {log[:500]!r}")


def test_no_bot_process_inherits_a_secret(
    policy: SandboxPolicy,
    planted: dict[str, str],
    http_bots: list[HonestHttp],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    try:
        check_node()
    except NodeUnavailableError as exc:
        pytest.skip(f"the Node kit's bots need node: {exc}")
    visible = f"not-a-secret-{secrets.token_hex(8)}"
    monkeypatch.setenv("BOTARENA_ENV_PROBE", visible)
    config = DRONES.config("default", CONFIG)
    checked: list[str] = []
    for number, labels in enumerate(MATCHES):
        folder = tmp_path / f"match{number}"
        bots = [_bot(label, folder / f"seat{seat}", policy, http_bots) for seat, label in enumerate(labels)]
        run = run_match(DRONES, bots, config=config, seed=number)
        replay = run.replay
        dump = orjson.dumps(replay.to_json()).decode()
        for name, value in planted.items():
            assert value not in dump, f"match {labels}: {name} reached the replay"
        for seat, label in enumerate(labels):
            if "/" not in label:
                continue
            assert set(replay.statuses[seat]) == {"OK"}, (label, replay.statuses)  # it played throughout
            env = _dumped(replay.logs[seat]["text"])
            leaked = sorted(set(planted) & set(env))
            assert not leaked, f"{label} in seat {seat} inherited {leaked}"
            # the control: unsandboxed, the runner's environment without its secrets; sandboxed, a clean one
            assert (env.get("BOTARENA_ENV_PROBE") == visible) == label.endswith("/U"), (label, sorted(env))
            checked.append(f"{label}@{seat}")
    # every kind, in both seats, both ways; and twice against the other kinds of opponent
    everywhere = [f"{kind}/{how}@{seat}" for kind in KINDS for how in "SU" for seat in (0, 1)]
    assert sorted(checked) == sorted([*everywhere, "kit/U@1", "cmd/U@0"])


FAKE_COMPILER = textwrap.dedent(
    """\
    #!/bin/sh
    # A stand-in for g++: writes its environment where the executable should go.
    while [ $# -gt 0 ]; do
      if [ "$1" = "-o" ]; then env > "$2"; chmod +x "$2"; exit 0; fi
      shift
    done
    exit 1
    """
)


def test_an_unsandboxed_compilers_environment_has_no_secret(
    planted: dict[str, str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from botarena.bots.cppkit import build_player

    compiler = tmp_path / "bin" / "fake-gxx"
    compiler.parent.mkdir()
    compiler.write_text(FAKE_COMPILER)
    compiler.chmod(0o755)
    monkeypatch.setenv("PATH", f"{compiler.parent}{os.pathsep}{os.environ['PATH']}")
    source = tmp_path / "AIPlayer.cc"
    source.write_text("int main() { return 0; }\n")
    built = build_player(source, tmp_path / "player", compiler="fake-gxx")
    environment = dict(line.split("=", 1) for line in built.read_text().splitlines() if "=" in line)
    assert environment.get("LC_ALL") == "C"  # it ran, with the kit's own setting
    leaked = sorted(name for name in planted if name in environment)
    assert not leaked, f"the compiler inherited {leaked}"
    assert not any(value in built.read_text() for value in planted.values())
