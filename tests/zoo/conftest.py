"""Fixtures of the hostile zoo, and its table.

The sandbox: `sandbox_policy` is the default SandboxPolicy when bots can be sandboxed here, else None
(the attacks only a sandbox stops are then skipped, with the reason). With BOTARENA_REQUIRE_SANDBOX=1
(CI, .ci/run) a missing sandbox fails them instead: the sandbox tests never skip in CI.

The table: with BOTARENA_ZOO_TABLE=<path>, the session writes the zoo table (attack, outcome, verdict)
as Markdown to that file when it finishes; benchmarks/zoo_table.py runs the zoo that way and prints it.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import pytest

from botarena.bots.sandbox import SandboxPolicy, SandboxUnavailable, check_sandbox
from botarena.bots.subprocess import block_thread_signals
from botarena.core.game import GameInfo
from botarena.core.registry import get_game

from .arena import OK, Arena, Played, Verdict, arena_for, play_and_observe, verdicts
from .attacks import WAITING, Attack, hostile_bot
from .breakout import HostGuard

REQUIRE_SANDBOX = "BOTARENA_REQUIRE_SANDBOX"
TABLE_ENV = "BOTARENA_ZOO_TABLE"


@pytest.fixture(scope="session")
def sandbox_policy() -> SandboxPolicy | str:
    """The policy every bot process runs under, or the one-line reason the sandbox is unavailable."""
    policy = SandboxPolicy()
    try:
        check_sandbox(policy)
    except SandboxUnavailable as exc:
        return str(exc)
    return policy


def require_sandbox(policy: SandboxPolicy | str) -> SandboxPolicy:
    """The policy, or skip (fail under BOTARENA_REQUIRE_SANDBOX=1) naming what is missing."""
    if isinstance(policy, SandboxPolicy):
        return policy
    if os.environ.get(REQUIRE_SANDBOX) == "1":
        pytest.fail(f"{REQUIRE_SANDBOX}=1 but the sandbox is unavailable: {policy}", pytrace=False)
    pytest.skip(f"no sandbox here: {policy}")


@pytest.fixture
def host_guard(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[HostGuard]:
    """Secrets in the coordinator's environment for the test; the host's core_pattern saved before and
    put back after, whatever happened (a breach never leaves the host changed)."""
    guard = HostGuard(tmp_path, monkeypatch)
    try:
        yield guard
    finally:
        guard.restore()


Baseline = Callable[[str, int], list[Verdict]]


@pytest.fixture(scope="session")
def quiet_baseline(tmp_path_factory: pytest.TempPathFactory, sandbox_policy: SandboxPolicy | str) -> Baseline:
    """quiet_baseline(opponent, seat): the opponent's verdicts when the other seat (`seat`) is a quiet,
    honest bot, same config and seed: what every hostile match must leave them at."""
    from botarena.core.registry import get_game

    game: GameInfo = get_game("drones")
    policy = sandbox_policy if isinstance(sandbox_policy, SandboxPolicy) else None
    cache: dict[tuple[str, int], list[Verdict]] = {}

    def baseline(opponent: str, seat: int) -> list[Verdict]:
        key = (opponent, seat)
        if key not in cache:
            with arena_for(tmp_path_factory.mktemp("quiet"), game, policy) as arena:
                run, _ = arena.play(arena.hostile_process("honest"), arena.opponent(opponent), seat)
            cache[key] = verdicts(run, 1 - seat)
        return cache[key]

    return baseline


def attack_policy(attack: Attack, sandbox_policy: SandboxPolicy | str) -> SandboxPolicy | None:
    """The policy the attack's bot runs under: the default one with the attack's own limits, None
    where no sandbox is available (an attack only a sandbox stops is then skipped)."""
    if attack.sandbox:
        return replace(require_sandbox(sandbox_policy), **dict(attack.policy))
    return sandbox_policy if isinstance(sandbox_policy, SandboxPolicy) else None


# -- the cases that only wait, played at once ------------------------------------------------------
CONCURRENT_MATCHES = 7
"""How many waiting matches a file plays at a time: the four hang cases (11 s each, all deadlines) in
four slots, and the six that wait on turns only (about 4 s each) two after another in the other three,
so all end with the hang cases (with 6 slots, a third round of them came after: 13.6 s -> 11.4 s);
few enough that the honest opponents' processes start at once on a loaded box."""

Case = tuple[str, int, str]
"""(attack id, hostile seat, opponent kind): one case of the matrix."""


@dataclass
class WaitedCases:
    """The file's `WAITING` cases, played: the guard whose secrets were in the environment while they
    played, and each case's arena (closed: its secrets and listeners' ports remain) with what its match
    left, or what the playing raised (the case's test raises it)."""

    guard: HostGuard
    played: dict[Case, tuple[Arena, Played | BaseException]]


def _waited_selection(request: pytest.FixtureRequest) -> list[tuple[Attack, int, str]]:
    """The WAITING cases among this module's selected tests (`-k` and the like respected), the
    longest first: those whose start times out too (the setup deadline) before those that wait on
    turns only. Under `--dist loadfile` (make test, CI) a worker runs all of a file's tests; under
    `--dist load` a worker would play cases another one judges: slower, never wrong."""
    chosen = []
    for item in request.session.items:
        params = getattr(item, "callspec", None)
        if getattr(item, "module", None) is not request.module or params is None:
            continue
        attack = params.params.get("attack")
        if isinstance(attack, Attack) and attack.id in WAITING:
            chosen.append((attack, int(params.params["seat"]), str(params.params["opponent"])))
    return sorted(chosen, key=lambda case: case[0].expect.start == OK)


@pytest.fixture(scope="module")
def waited_cases(
    request: pytest.FixtureRequest,
    tmp_path_factory: pytest.TempPathFactory,
    sandbox_policy: SandboxPolicy | str,
) -> Iterator[WaitedCases]:
    """Every selected `WAITING` case of the module, played `CONCURRENT_MATCHES` at a time before the
    first of their tests runs: their bots block or sleep, so their matches overlap without slowing each
    other, and each test still judges its own match, observed when it ended (`play_and_observe`).

    Not a shortcut of any limit: every deadline is the one the case played alone has (FAST)."""
    game = get_game("drones")
    selected = _waited_selection(request)
    folders = [tmp_path_factory.mktemp("waited") for _ in selected]  # mktemp is not for threads
    with pytest.MonkeyPatch.context() as monkeypatch:
        guard = HostGuard(tmp_path_factory.mktemp("waited-guard"), monkeypatch)

        def play(case: tuple[Attack, int, str], folder: Path) -> tuple[Arena, Played | BaseException]:
            attack, seat, opponent = case
            with arena_for(folder, game, attack_policy(attack, sandbox_policy), guard.marker) as arena:
                try:
                    hostile = hostile_bot(arena, attack)
                    return arena, play_and_observe(arena, hostile, arena.opponent(opponent), seat)
                except Exception as exc:  # the case's own test reports it, not all of them
                    return arena, exc

        try:
            with ThreadPoolExecutor(CONCURRENT_MATCHES, "zoo-waited", block_thread_signals) as pool:
                results = list(pool.map(play, selected, folders))
        finally:
            guard.restore()
    played = {(a.id, seat, kind): result for (a, seat, kind), result in zip(selected, results, strict=True)}
    yield WaitedCases(guard, played)


# -- the zoo table ----------------------------------------------------------------------------------
_ROWS: dict[str, dict[str, Any]] = {}


@pytest.fixture
def zoo_row(request: pytest.FixtureRequest) -> Iterator[dict[str, Any]]:
    """A dict the test fills with attack, seat, opponent, outcome and evidence for the table."""
    row: dict[str, Any] = {}
    _ROWS[request.node.nodeid] = row
    yield row


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Iterator[None]:
    outcome = yield
    report = outcome.get_result()
    row = _ROWS.get(item.nodeid)
    if row is None or (report.when != "call" and report.passed):
        return
    if hasattr(report, "wasxfail"):
        row["verdict"] = "XPASS" if report.passed else f"xfail ({report.wasxfail})"
    elif report.skipped:
        row["verdict"] = f"skipped ({_first_line(report.longrepr)})"
    elif report.failed:
        row.setdefault("verdict", f"FAILED: {_first_line(report.longrepr)}")
    else:
        row["verdict"] = "sealed"


def _first_line(longrepr: Any) -> str:
    if isinstance(longrepr, tuple):  # a skip: (file, line, reason)
        return str(longrepr[2]).removeprefix("Skipped: ")
    crash = getattr(longrepr, "reprcrash", None)
    text = str(crash.message if crash is not None else longrepr)
    return text.strip().splitlines()[0][:160] if text.strip() else "?"


def pytest_sessionfinish(session: pytest.Session) -> None:
    path = os.environ.get(TABLE_ENV)
    if path and _ROWS:
        Path(path).write_text(zoo_table(list(_ROWS.values())))


def zoo_table(rows: list[dict[str, Any]]) -> str:
    """One line per attack: what the hostile seat got in every seat and against every opponent, what
    stopped the attack, and the verdict (sealed only if every case passed)."""
    attacks: dict[str, list[dict[str, Any]]] = {}
    for row in rows:
        if "attack" in row:
            attacks.setdefault(row["attack"], []).append(row)
    lines = ["| attack | outcome (hostile seat; evidence) | verdict |", "|---|---|---|"]
    for attack, cases in attacks.items():
        outcomes = sorted({_outcome(case) for case in cases})
        verdicts_ = [case.get("verdict", "not run") for case in cases]
        sealed = sum(v == "sealed" for v in verdicts_)
        if sealed == len(cases):
            verdict = f"sealed ({sealed}/{len(cases)}: {_contexts(cases)})"
        else:
            broken = [
                f"{case['context']}: {case.get('verdict', 'not run')}"
                for case in cases
                if case.get("verdict") != "sealed"
            ]
            verdict = f"{sealed}/{len(cases)} sealed; " + "; ".join(broken)
        lines.append(f"| {attack} | {' / '.join(outcomes)} | {verdict} |")
    return "\n".join(lines) + "\n"


def _outcome(case: dict[str, Any]) -> str:
    text = case.get("outcome", "no match played")
    evidence = case.get("evidence")
    return f"{text}; {evidence}" if evidence else text


def _contexts(cases: list[dict[str, Any]]) -> str:
    opponents = sorted({case["opponent"] for case in cases})
    seats = sorted({case["seat"] for case in cases})
    return f"seats {', '.join(map(str, seats))} vs {', '.join(opponents)}"
