"""The hostile zoo (issue 12, item 7; DESIGN principles 3 and 7): every hostile bot plays a whole
GameOfDrones match in both seats, against an honest subprocess opponent and an honest HTTP one.

For every case: the match completes, every round played (drones GD-24, GD-26: a failing bot never
stops the match; a dead process gets CRASHED process_exited for the rest, the start exchange
included, spec 5.4); the hostile seat gets its status on every exchange; the
opponent's verdicts are exactly those it gets against a quiet bot (same config, same seed), all OK;
and the attack failed: no secret in the replay (logs included), no connection to a local listener
(nor to the target of a redirect), no file outside the bot's folder changed or created, no process of
the bot left after the match, and the runner's memory did not grow with the bot's.
"""

from __future__ import annotations

from typing import Any

import orjson
import pytest

from botarena.bots.sandbox import SandboxPolicy
from botarena.core.game import GameInfo
from botarena.core.registry import get_game

from .arena import (
    OK,
    OPPONENTS,
    RSS_BOUND_KIB,
    TURNS,
    Arena,
    Played,
    Verdict,
    arena_for,
    failure_context,
    play_and_observe,
    summarize,
    verdicts,
)
from .attacks import ATTACKS, WAITING, Attack, hostile_bot
from .breakout import HostGuard
from .conftest import Baseline, WaitedCases, attack_policy, require_sandbox


def cases(opponents: tuple[str, ...]) -> list[Any]:
    """Every attack in both seats against each of `opponents`.

    The matrix is shared by two files, one per opponent (this one: the subprocess opponent;
    test_hostile_zoo_http.py: the HTTP one), so that `--dist loadfile` can give its two halves to
    the two workers instead of keeping one busy with all of it (issue 28, item 8)."""
    return [
        pytest.param(attack, seat, opponent, id=f"{attack.id}-seat{seat}-vs-{opponent}")
        for attack in ATTACKS
        for opponent in opponents
        for seat in (0, 1)
    ]


HERE = ("subprocess",)
assert set(HERE) | {"http"} == set(OPPONENTS)  # the other file plays the rest


def assert_sealed(
    arena: Arena,
    played: Played,
    attack: Attack,
    seat: int,
    baseline: list[Verdict],
    guard: HostGuard,
) -> None:
    run = played.run
    replay = run.replay
    context = failure_context(run, seat)  # every message below carries the statuses and the logs
    # the match completed, with every turn played
    assert run.result is not None and replay.result is not None, f"the match has no result\n{context}"
    assert len(replay.steps) == TURNS, f"{len(replay.steps)} steps played of {TURNS}\n{context}"
    # the hostile seat got its status on every exchange (before any other check: a wrong status is
    # the likeliest cause of what else fails, and names it)
    got = verdicts(run, seat)
    expected = attack.expect.sequence(TURNS)
    assert got == expected, f"hostile seat: {summarize(got)}, expected {summarize(expected)}\n{context}"
    # the opponent is untouched: as against a quiet bot, all OK
    opponent = verdicts(run, 1 - seat)
    assert opponent == baseline, (
        f"opponent: {summarize(opponent)}, against a quiet bot: {summarize(baseline)}\n{context}"
    )
    assert set(opponent) == {OK}, context
    # no secret anywhere in the replay (replies, records, both seats' logs)
    dump = orjson.dumps(replay.to_json())
    assert arena.secret_rival.encode() not in dump, f"a rival's source leaked into the replay\n{context}"
    assert arena.secret_db.encode() not in dump, f"the database leaked into the replay\n{context}"
    guard.assert_untouched(dump)  # nor the coordinator's secrets; the host's core_pattern as it was
    # nothing reached the network
    assert played.connections == 0, f"the bot connected to a local listener\n{context}"
    assert played.redirected == 0, f"the runner followed the bot's redirect\n{context}"
    # nothing outside the bot's folder (nor in it) changed
    assert played.changed == [], f"files changed: {played.changed}\n{context}"
    # no process of the bot outlives its match
    assert played.left == [], f"a process of the bot outlived the match: {played.left}\n{context}"
    # the runner's memory did not grow with the bot's
    assert played.growth_kib < RSS_BOUND_KIB, f"the runner grew by {played.growth_kib} KiB\n{context}"


def play_hostile_case(
    attack: Attack,
    seat: int,
    opponent: str,
    tmp_path: Any,
    sandbox_policy: SandboxPolicy | str,
    quiet_baseline: Baseline,
    zoo_row: dict[str, Any],
    request: pytest.FixtureRequest,
) -> None:
    """One case of the matrix: the attack's bot in `seat` against `opponent`, then `assert_sealed`.

    A case of the attacks that only wait out deadlines (`WAITING`) was played ahead, with the file's
    other such cases at the same time (`waited_cases`); every other case plays here, alone."""
    zoo_row.update(attack=attack.title, seat=seat, opponent=opponent, context=f"seat {seat} vs {opponent}")
    baseline = quiet_baseline(opponent, seat)
    if attack.id in WAITING:
        waited: WaitedCases = request.getfixturevalue("waited_cases")
        arena, played_or_error = waited.played[(attack.id, seat, opponent)]
        if isinstance(played_or_error, BaseException):
            raise played_or_error
        played = played_or_error
        zoo_row["outcome"] = summarize(verdicts(played.run, seat))
        assert_sealed(arena, played, attack, seat, baseline, waited.guard)
        return
    guard: HostGuard = request.getfixturevalue("host_guard")
    policy = attack_policy(attack, sandbox_policy)
    with arena_for(tmp_path, get_game("drones"), policy, guard.marker) as arena:
        played = play_and_observe(arena, hostile_bot(arena, attack), arena.opponent(opponent), seat)
        zoo_row["outcome"] = summarize(verdicts(played.run, seat))
        assert_sealed(arena, played, attack, seat, baseline, guard)
        if attack.check is not None:
            zoo_row["evidence"] = attack.check(arena, played.run)


@pytest.mark.parametrize(("attack", "seat", "opponent"), cases(HERE))
def test_hostile_bot(
    attack: Attack,
    seat: int,
    opponent: str,
    tmp_path: Any,
    sandbox_policy: SandboxPolicy | str,
    quiet_baseline: Baseline,
    zoo_row: dict[str, Any],
    request: pytest.FixtureRequest,
) -> None:
    play_hostile_case(attack, seat, opponent, tmp_path, sandbox_policy, quiet_baseline, zoo_row, request)


@pytest.mark.parametrize("seat", [0, 1])
def test_entrant_cannot_touch_an_in_process_opponent(
    seat: int,
    drones: GameInfo,
    tmp_path: Any,
    sandbox_policy: SandboxPolicy | str,
    quiet_baseline: Baseline,
    zoo_row: dict[str, Any],
    host_guard: HostGuard,
) -> None:
    """The gc attack needs a victim in its process: a built-in starter bot stays in-process, the
    entrant does not, so its patches and its `act` replacement reach nobody."""
    attack = next(a for a in ATTACKS if a.id == "patch_engine")
    zoo_row.update(attack=attack.title, seat=seat, opponent="inprocess", context=f"seat {seat} vs inprocess")
    policy = require_sandbox(sandbox_policy)
    baseline = quiet_baseline("inprocess", seat)
    with arena_for(tmp_path, drones, policy, host_guard.marker) as arena:
        played = play_and_observe(arena, hostile_bot(arena, attack), arena.opponent("inprocess"), seat)
        zoo_row["outcome"] = summarize(verdicts(played.run, seat))
        assert_sealed(arena, played, attack, seat, baseline, host_guard)
        assert attack.check is not None
        zoo_row["evidence"] = attack.check(arena, played.run)
