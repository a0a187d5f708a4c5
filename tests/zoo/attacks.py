"""The hostile zoo's attacks: what each bot does, the status its seat must get, and the attack's own
checks (on top of the ones every match gets, in test_hostile_zoo.py)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

import orjson

from botarena.bots.base import Bot
from botarena.bots.http import REDIRECT
from botarena.core.status import Reason
from botarena.games.drones import rules
from botarena.runner import MatchRun

from .arena import OK, STDERR_CAP, Arena, Check, Expect, every, turns_only
from .breakout import check_breakout

Transport = Literal["subprocess", "http", "entrant"]

TIMEOUT = ("TIMEOUT", Reason.DEADLINE)
EXITED = ("CRASHED", Reason.PROCESS_EXITED)
HTTP_ERROR = ("CRASHED", "http_error")
ORIGINAL_RESOLVE = rules.resolve_clash


@dataclass(frozen=True)
class Attack:
    """One hostile bot: `bot` is its file under bots/ (subprocess, entrant) or its HTTP mode."""

    id: str
    title: str
    transport: Transport
    bot: str
    expect: Expect
    sandbox: bool = False
    """Only the sandbox stops it: without one (bwrap missing, locally) the case is skipped."""
    check: Check | None = None
    policy: tuple[tuple[str, int], ...] = ()
    """SandboxPolicy fields this attack runs under instead of the defaults."""


def hostile_log(arena: Arena, run: MatchRun) -> tuple[str, int]:
    log = run.replay.logs[arena.hostile_seat]
    return str(log["text"]), int(log["dropped_bytes"])


def check_stderr(arena: Arena, run: MatchRun) -> str:
    text, dropped = hostile_log(arena, run)
    flood = text.split("[botarena]")[0]  # the runner's own notes follow the bot's capped stderr
    assert len(flood.encode()) <= STDERR_CAP
    # 8 MiB were written before the first answer: all but a pipe's worth went through the runner.
    assert dropped >= (8 << 20) - STDERR_CAP - (1 << 20)
    return f"log capped at {STDERR_CAP >> 10} KiB, the rest (8 MiB or more) counted and dropped"


def check_memory(arena: Arena, run: MatchRun) -> str:
    text, _ = hostile_log(arena, run)
    assert "held 4 GiB" not in text, "the bot held 4 GiB"
    limit = f"{arena.policy.memory_mb} MiB tree limit" if arena.policy else "address-space limit"
    return f"stopped by the {limit}"


def check_memory_tree(arena: Arena, run: MatchRun) -> str:
    text, _ = hostile_log(arena, run)
    found = re.search(r"(\d+) of 5 workers hold 100 MiB each", text)
    assert found, f"the workers' report is missing: {text[-300:]!r}"
    held = int(found.group(1))
    assert arena.policy is not None
    assert held * 100 < arena.policy.memory_mb, f"{held} workers held {held * 100} MiB at once"
    return f"{held} of 5 workers held 100 MiB at once, tree limit {arena.policy.memory_mb} MiB"


def check_fork_bomb(arena: Arena, run: MatchRun) -> str:
    text, _ = hostile_log(arena, run)
    found = re.search(r"forked (\d+)", text)
    assert found, f"the bomb did not report: {text[-300:]!r}"
    made = int(found.group(1))
    assert arena.policy is not None
    assert made < arena.policy.pids, f"{made} children made under a pids limit of {arena.policy.pids}"
    return f"fork refused after fewer than {arena.policy.pids} children (500 tried): the pids limit"


def check_daemon(arena: Arena, run: MatchRun) -> str:
    text, _ = hostile_log(arena, run)
    assert "daemon started" in text, "the attack did not run"
    return "the setsid daemon died with the match"


def check_connect(arena: Arena, run: MatchRun) -> str:
    text, _ = hostile_log(arena, run)
    found = re.search(r"no connection: (.*)", text)
    assert found, f"the bot connected: {text[-300:]!r}"
    return f"connect failed inside ({found.group(1)[:40]})"


def check_secrets(arena: Arena, run: MatchRun) -> str:
    text, _ = hostile_log(arena, run)
    refused = text.count("cannot read")
    assert refused >= 2, f"the bot read a file: {text[-300:]!r}"
    return f"{refused} reads refused"


def check_writes(arena: Arena, run: MatchRun) -> str:
    """The files themselves are checked for every attack (Arena.changed_files); a write the bot saw
    succeed went to its private /tmp or a throwaway folder inside its sandbox, never to the real file."""
    text, _ = hostile_log(arena, run)
    assert text.count("cannot write") + text.count("wrote ") == 4, f"the attack did not run: {text[-300:]!r}"
    refused = text.count("cannot write")
    landed = "" if refused == 4 else f", {4 - refused} landed in the sandbox's own throwaway folders"
    return f"{refused} of 4 writes refused{landed}"


def check_patch(arena: Arena, run: MatchRun) -> str:
    assert rules.resolve_clash is ORIGINAL_RESOLVE, "the engine was patched in the runner"
    assert b"PATCHED-BY-ENTRANT" not in orjson.dumps(run.replay.to_json())
    player = next(p for p in run.replay.players if p["name"] == "patch_engine")
    assert player["kind"] != "python", "the entrant ran in-process"
    return f"ran as a {player['kind']} bot: engine and opponent untouched"


def check_escape(arena: Arena, run: MatchRun) -> str:
    """The breakout bot (issue 25): every attempt to act as root on the host was refused."""
    text, _ = hostile_log(arena, run)
    evidence = check_breakout(text, where="zoo")
    assert arena.host_marker is not None and not arena.host_marker.exists(), "the core_pattern script ran"
    return evidence


ATTACKS = [
    Attack("hang", "hang (never answers)", "subprocess", "hang", every(TIMEOUT)),
    Attack("late", "sleep past the deadline", "subprocess", "late", turns_only(TIMEOUT)),
    Attack("crash_start", "crash at start", "subprocess", "crash_start", every(EXITED)),
    Attack("crash_mid", "crash mid-game", "subprocess", "crash_mid", Expect(OK, (OK, EXITED), EXITED)),
    Attack("garbage", "garbage", "subprocess", "garbage", every(("INVALID", Reason.BAD_JSON))),
    Attack("wrong_id", "wrong id (stale and guessed)", "subprocess", "wrong_id", turns_only(TIMEOUT)),
    Attack("huge_line", "a 100 MB line", "subprocess", "huge_line", every(("INVALID", Reason.LINE_TOO_LONG))),
    Attack("stderr_gb", "1 GiB of stderr", "subprocess", "stderr_gb", every(OK), check=check_stderr),
    Attack(
        "mem_4gb",
        "4 GiB allocation",
        "subprocess",
        "mem_4gb",
        Expect(OK, (EXITED,), EXITED),
        sandbox=True,
        check=check_memory,
        policy=(("memory_mb", 256),),  # dies after touching 256 MiB: well within the turn on any machine
    ),
    Attack(
        "mem_tree",
        "memory across 5 processes (5 x 100 MiB, 128 MiB limit)",
        "subprocess",
        "mem_tree",
        every(OK),
        sandbox=True,
        check=check_memory_tree,
        policy=(("memory_mb", 128),),
    ),
    Attack(
        "fork_bomb", "fork bomb", "subprocess", "fork_bomb", every(OK), sandbox=True, check=check_fork_bomb
    ),
    Attack("daemon", "setsid double-fork daemon", "subprocess", "daemon", every(OK), True, check_daemon),
    Attack(
        "tcp", "TCP connect to a local listener", "subprocess", "tcp_connect", every(OK), True, check_connect
    ),
    Attack(
        "read_secrets",
        "read a rival's file and the database",
        "subprocess",
        "read_secrets",
        every(OK),
        sandbox=True,
        check=check_secrets,
    ),
    Attack(
        "write_outside",
        "write outside its folder",
        "subprocess",
        "write_outside",
        every(OK),
        sandbox=True,
        check=check_writes,
    ),
    Attack(
        "breakout",
        "act as root on the host (breakout): core_pattern pipe, every sysctl, filtered calls, environs",
        "subprocess",
        "breakout",
        every(OK),
        sandbox=True,
        check=check_escape,
    ),
    Attack(
        "patch_engine",
        "patch the engine (entrant file)",
        "entrant",
        "patch_engine",
        every(OK),
        True,
        check_patch,
    ),
    Attack("http_hang", "HTTP never answers", "http", "never_answers", every(TIMEOUT)),
    Attack("http_drip", "HTTP drip past the deadline", "http", "drip", turns_only(TIMEOUT)),
    Attack(
        "http_huge", "HTTP huge body (100 MB)", "http", "huge_body", every(("INVALID", Reason.LINE_TOO_LONG))
    ),
    Attack(
        "http_redirect", "HTTP 307 to another local port", "http", "redirect", every(("CRASHED", REDIRECT))
    ),
    Attack("http_close", "HTTP close mid-response", "http", "close_mid", every(HTTP_ERROR)),
]


WAITING = frozenset({"hang", "late", "wrong_id", "http_hang", "http_drip"})
"""The attacks whose whole cost is waiting out deadlines (the bot blocks, sleeps or answers what
nobody asked; no CPU, no memory, no check of their own): ~70 of a file's ~80 s alone. A file plays its
cases of them at once (tests/zoo/conftest.py `waited_cases`); each test then judges its own match."""
assert all(attack.check is None and not attack.sandbox for attack in ATTACKS if attack.id in WAITING)
assert {attack.id for attack in ATTACKS} >= WAITING


def hostile_bot(arena: Arena, attack: Attack) -> Bot:
    """The attack's bot, in `arena`, as its transport runs it."""
    if attack.transport == "subprocess":
        return arena.hostile_process(attack.bot)
    if attack.transport == "entrant":
        return arena.hostile_entrant(attack.bot)
    return arena.hostile_http(attack.bot)
