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
from pathlib import Path
from typing import Any

import pytest

from botarena.bots.sandbox import SandboxPolicy, SandboxUnavailable, check_sandbox
from botarena.core.game import GameInfo

from .arena import Verdict, arena_for, verdicts
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
