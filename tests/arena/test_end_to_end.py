"""The arena end to end (specs/arena.md, part 1): teams upload through the real route, the coordinator
(`ArenaCoordinator`, what `botarena arena run` runs) validates and rates their versions in sealed
matches on a process pool, and what the API then answers: the versions' states and reasons, the
leaderboard, the match list, a replay with the caller's own logs only, and `rerate` equal to the
stored ratings. Every wait is on the API's own answers (tests/waiting.py)."""

from __future__ import annotations

import gzip
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import orjson
import pytest

from botarena.arena.coordinator import ArenaCoordinator, CoordinatorOptions
from botarena.arena.rerating import rebuild
from waiting import wait_until

from .arena_world import CONFIG, CRASHER, STARTER
from .conftest import ArenaApp, open_arena_app
from .coordinating import running_coordinator

CANARY = "E2E-LOG-CANARY-{team}"

LOGGING_STARTER = (
    STARTER
    + """
import sys

def setup(start):
    print("{canary}", file=sys.stderr, flush=True)
    return {}
"""
)


@pytest.fixture
def world(tmp_path: Path) -> Iterator[ArenaApp]:
    built = open_arena_app(tmp_path)
    try:
        yield built
    finally:
        built.client.close()
        built.store.close()


@contextmanager
def coordinating(app: ArenaApp, competition_id: int) -> Iterator[ArenaCoordinator]:
    options = CoordinatorOptions(poll_s=0.05, heartbeat_s=0.5)
    with running_coordinator(app.store, competition_id, options) as coordinator:
        yield coordinator


def versions_of(app: ArenaApp, cid: int, tid: int, token: Any) -> list[dict[str, Any]]:
    app.clock.advance(1.0)  # the rate limits' clock: a poller asks about once a second
    answer = app.call("GET", f"/api/competitions/{cid}/teams/{tid}/versions", token)
    assert answer.status == 200, answer.text
    body = answer.json()
    return list(body["versions"] if isinstance(body, dict) else body)


def test_arena_uploads_are_validated_rated_and_read_back_by_each_caller_as_theirs(world: ArenaApp) -> None:
    competition, organizer = world.open_competition("e2e-league")
    with world.store.write_session("test: short matches") as session:  # (config of the competition)
        from botarena.store.models import Competition

        row = session.get(Competition, competition.id)
        assert row is not None
        row.config = {**row.config, **CONFIG}
    teams = [world.team(competition.id, name) for name in ("alpha", "bravo", "crash")]
    sources = [
        LOGGING_STARTER.replace("{canary}", CANARY.format(team="alpha")),
        LOGGING_STARTER.replace("{canary}", CANARY.format(team="bravo")),
        CRASHER,
    ]
    for (team, token), source in zip(teams, sources, strict=True):
        answer = world.upload(competition.id, team.id, token, source.encode(), "bot.py")
        assert answer.status == 201, answer.text

    finished_rated = f"/api/competitions/{competition.id}/matches?kind=rated&status=finished"
    with coordinating(world, competition.id):

        def settled() -> bool:
            found = [versions_of(world, competition.id, t.id, tok)[0]["state"] for t, tok in teams]
            return found[:2] == ["active", "active"] and found[2] == "rejected"

        def seen() -> object:
            return [
                (v["state"], v.get("reason_code"), v.get("reason"))
                for t, tok in teams
                for v in versions_of(world, competition.id, t.id, tok)
            ]

        wait_until(settled, "alpha and bravo active, crash rejected", timeout=120, seen=seen)

        def rated() -> bool:
            world.clock.advance(1.0)
            answer = world.call("GET", finished_rated)
            return answer.status == 200 and len(answer.json()["matches"]) >= 2

        wait_until(rated, "two rated matches finished", timeout=240)

    rejected = versions_of(world, competition.id, teams[2][0].id, teams[2][1])[0]
    assert rejected["reason_code"] == "crashed" and "crasher gives up at turn 2" in (rejected["reason"] or "")

    board = world.call("GET", f"/api/competitions/{competition.id}/leaderboard").json()
    rows = board["rows"] if isinstance(board, dict) else board
    assert sorted(row["team"] for row in rows) == ["alpha", "bravo"]
    assert all(row["games"] >= 2 for row in rows)

    listed = world.call("GET", finished_rated).json()
    match_id = listed["matches"][0]["id"]
    alpha_token = teams[0][1]

    def replay_text(token: Any) -> str:
        answer = world.call("GET", f"/api/matches/{match_id}/replay", token)
        assert answer.status == 200, answer.text
        raw = answer.body
        return (gzip.decompress(raw) if raw[:2] == b"\x1f\x8b" else raw).decode()

    public, own, rival = replay_text(None), replay_text(alpha_token), replay_text(teams[1][1])
    alpha_canary, bravo_canary = CANARY.format(team="alpha"), CANARY.format(team="bravo")
    assert alpha_canary not in public and bravo_canary not in public
    assert alpha_canary in own and bravo_canary not in own
    assert bravo_canary in rival and alpha_canary not in rival
    assert orjson.loads(replay_text(organizer))["logs"][0]["text"] != ""

    report = rebuild(world.store, competition.id)  # `arena rerate`
    assert report.equal and report.results >= 2, report.differing
