"""The lockstep driver (spec §7.5, §7.6): payloads, the §5 statuses, results, keyframes, and the seam the
real-time server uses (`from_round`, `orders_body`)."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from botarena.core.protocol import MessageType, Reply, Request
from botarena.core.rng import bot_seed
from botarena.core.status import Reason, Status
from botarena.games.datspulse import GAME
from botarena.games.datspulse.actions import orders_body
from botarena.games.datspulse.config import REALTIME_ONLY_KEYS
from botarena.games.datspulse.engine import EXCEPTION, INVALID_BODY, MOVE_REJECTED, DatsPulseEngine, Round
from botarena.games.datspulse.hexgrid import neighbours

SEED = 11
SMALL = {"turns": 4, "map_radius": 16, "turn_timeout_ms": 750}


def small_config(**extra: Any) -> Any:
    return GAME.config(overrides={**SMALL, **extra})


def started(
    teams: int = 2, names: list[str] | None = None, **extra: Any
) -> tuple[DatsPulseEngine, list[Request]]:
    engine = DatsPulseEngine(small_config(**extra), SEED, teams)
    engine.set_player_names(names or [f"bot{i}" for i in range(teams)])
    starts = engine.start_requests()
    engine.apply_start([Reply(s, Status.OK, {}) for s in range(teams)])
    return engine, starts


def ok(seat: int, payload: Any) -> Reply:
    return Reply(seat, Status.OK, payload)


def scout_step(request: Request) -> tuple[dict[str, Any], tuple[int, int], dict[str, Any]]:
    """A seat's first scout, a passable neighbour of it, and the moves body sending it there."""
    scout = next(a for a in request.payload["ants"] if a["type"] == 2)
    tiles = {(t["q"], t["r"]): t["type"] for t in request.payload["map"]}
    step_to = next(n for n in neighbours(scout["q"], scout["r"]) if tiles.get(n) in (1, 2, 3, 4))
    body = {"moves": [{"ant": scout["id"], "path": [{"q": step_to[0], "r": step_to[1]}]}]}
    return scout, step_to, body


def first_ant(request: Request) -> dict[str, Any]:
    ants: list[dict[str, Any]] = request.payload["ants"]
    return ants[0]


def test_dp76_start_payload_names_the_team_its_seed_and_the_lockstep_config() -> None:
    engine, starts = started(3, ["ants", "bees", "wasps"])
    assert [r.type for r in starts] == [MessageType.START] * 3
    assert {r.timeout_ms for r in starts} == {engine.config.setup_timeout_ms}
    for seat, request in enumerate(starts):
        payload = request.payload
        assert list(payload) == ["game", "ruleset", "team", "teams", "bot_seed", "config"]
        assert payload["game"] == "datspulse" and payload["ruleset"] == "datspulse_v1"
        assert payload["team"] == {"index": seat, "name": ["ants", "bees", "wasps"][seat]}
        assert payload["teams"] == 3
        assert payload["bot_seed"] == bot_seed(SEED, "datspulse", seat)
        config = payload["config"]
        assert not set(config) & REALTIME_ONLY_KEYS
        assert config["turns"] == 4 and config["turn_timeout_ms"] == 750 and config["map_radius"] == 16
        assert set(config) | REALTIME_ONLY_KEYS == {f.name for f in dataclasses.fields(engine.config)}
    # each seat gets its own objects: a bot scribbling on its config changes nobody else's
    starts[0].payload["config"]["place_points"].append(-1)
    assert starts[1].payload["config"]["place_points"][-1] != -1


def test_dp75_turn_payload_is_the_arena_with_next_turn_in_and_errors() -> None:
    engine, _ = started()
    requests = engine.next_requests()
    assert [r.seat for r in requests] == [0, 1]
    for request in requests:
        payload = request.payload
        assert request.timeout_ms == 750 and request.type is MessageType.TURN and request.turn == 0
        assert list(payload) == [
            "ants", "enemies", "map", "food", "turnNo", "nextTurnIn", "home", "score", "spot", "errors"
        ]  # fmt: skip
        assert payload["nextTurnIn"] == 0.75
        assert payload["errors"] == []
        assert payload == {**engine.round.arena(request.seat, 0.75), "errors": []}


def test_dp5_rejections_are_ok_with_warnings_and_come_back_as_errors_next_turn() -> None:
    engine, _ = started()
    requests = engine.next_requests()
    ant = first_ant(requests[0])
    body = {"moves": [{"ant": "zzz", "path": []}, {"ant": ant["id"], "path": [{"q": 99, "r": 99}]}]}
    step = engine.apply([ok(0, body), ok(1, {})])
    expected = [
        "ant zzz is dead",
        f"ant {ant['id']} cannot move from {{{ant['q']} {ant['r']}}} to {{99 99}}, not adjacent coordinates",
    ]
    assert step.verdicts[0].status is Status.OK and step.verdicts[0].reason is None
    assert step.verdicts[0].warnings == [{"code": MOVE_REJECTED, "detail": text} for text in expected]
    assert step.verdicts[1].status is Status.OK and step.verdicts[1].warnings == []
    following = engine.next_requests()
    assert following[0].payload["errors"] == expected
    assert following[1].payload["errors"] == []
    assert following[0].payload["turnNo"] == 1


def test_dp60_an_accepted_order_is_carried_out_by_the_transition() -> None:
    engine, _ = started()
    requests = engine.next_requests()
    scout, step_to, body = scout_step(requests[0])
    step = engine.apply([ok(0, body), ok(1, {"moves": []})])
    unit = next(u for u in step.record["units"] if u["id"] == scout["id"])
    assert (unit["q"], unit["r"]) == step_to
    assert step.record["turnNo"] == 1


@pytest.mark.parametrize(
    ("reply", "status", "reason"),
    [
        (ok(0, {"moves": 5}), Status.INVALID, INVALID_BODY),
        (ok(0, [1, 2]), Status.INVALID, INVALID_BODY),
        (ok(0, "moves"), Status.INVALID, INVALID_BODY),
        (
            ok(0, {"moves": [{"ant": "x" * 64, "path": [{"q": 0, "r": 0}] * 90000}]}),
            Status.INVALID,
            INVALID_BODY,
        ),
        (Reply(0, Status.INVALID, None, Reason.BAD_JSON), Status.INVALID, INVALID_BODY),
        (Reply(0, Status.TIMEOUT, None, Reason.DEADLINE), Status.TIMEOUT, Reason.DEADLINE),
        (Reply(0, Status.CRASHED, None, Reason.PROCESS_EXITED), Status.CRASHED, Reason.PROCESS_EXITED),
        (Reply(0, Status.CRASHED, None, Reason.BOT_ERROR), Status.CRASHED, EXCEPTION),
        (ok(0, {"error": "act: ValueError: boom"}), Status.CRASHED, EXCEPTION),
        (ok(0, None), Status.INVALID, INVALID_BODY),
        (ok(0, {}), Status.OK, None),
    ],
    ids=[
        "moves-not-array",
        "top-level-array",
        "top-level-string",
        "over-1MiB",
        "unreadable-line",
        "timeout",
        "process-exited",
        "in-process-exception",
        "kit-error-payload",
        "null-body",
        "empty-body",
    ],
)
def test_dp5_missing_and_late_input_statuses(reply: Reply, status: Status, reason: str | None) -> None:
    """§5 "Missing and late input": every failed reply means no orders that turn, and the game goes on."""
    engine, _ = started()
    requests = engine.next_requests()
    before = {a["id"]: (a["q"], a["r"]) for a in requests[0].payload["ants"]}
    step = engine.apply([reply, ok(1, {})])
    verdict = step.verdicts[0]
    assert (verdict.status, verdict.reason) == (status, reason)
    after = {u["id"]: (u["q"], u["r"]) for u in step.record["units"] if u["team"] == 0}
    assert {ant: after[ant] for ant in before} == before  # no orders that turn
    assert engine.next_requests()[0].payload["errors"] == []


def test_dp5_a_failed_reply_leaves_the_other_teams_orders_alone() -> None:
    engine, _ = started()
    requests = engine.next_requests()
    scout, step_to, body = scout_step(requests[1])
    step = engine.apply([Reply(0, Status.TIMEOUT, None, Reason.DEADLINE), ok(1, body)])
    unit = next(u for u in step.record["units"] if u["id"] == scout["id"])
    assert (unit["q"], unit["r"]) == step_to


def play_out(engine: DatsPulseEngine) -> int:
    steps = 0
    while requests := engine.next_requests():
        engine.apply([ok(r.seat, {}) for r in requests])
        steps += 1
    return steps


def test_dp76_end_payload_has_the_final_arena_place_points_and_results() -> None:
    engine, _ = started(3, ["a", "b", "c"])
    assert play_out(engine) == 4
    ends = engine.end_requests()
    results = engine.round.results()
    assert [r.type for r in ends] == [MessageType.END] * 3
    for seat, request in enumerate(ends):
        payload = request.payload
        assert request.timeout_ms == 750
        assert list(payload) == ["observation", "score", "place", "points", "results"]
        assert payload["observation"] == engine.round.arena(seat, 0)
        assert payload["observation"]["turnNo"] == 4 and payload["observation"]["nextTurnIn"] == 0
        own = results[seat]
        assert (payload["score"], payload["place"], payload["points"]) == (
            own["score"],
            own["place"],
            own["points"],
        )
        assert payload["results"] == [
            {k: row[k] for k in ("index", "name", "score", "place", "unitsLost")} for row in results
        ]
        assert [row["name"] for row in payload["results"]] == ["a", "b", "c"]
    verdicts = engine.apply_end([ok(0, {}), Reply(1, Status.TIMEOUT, None, Reason.DEADLINE), ok(2, "x")])
    assert [v.status for v in verdicts] == [Status.OK, Status.TIMEOUT, Status.OK]


def test_dp62_result_ranks_are_places_and_scores_are_round_scores() -> None:
    engine, _ = started(2)
    play_out(engine)
    result = engine.result()
    rows = engine.round.results()
    assert result.ranks == [row["place"] for row in rows]
    assert result.scores == [float(row["score"]) for row in rows]
    assert result.details["results"] == rows
    assert result.details["turns"] == 4


def test_dp95_keyframe_is_terrain_and_spectator_frame() -> None:
    engine, _ = started()
    frame = engine.keyframe()
    assert list(frame) == ["terrain", "frame"]
    assert frame["terrain"] == engine.round.terrain()
    assert frame["frame"] == engine.round.spectator_frame()
    assert frame["terrain"]["radius"] == 16
    assert [t["name"] for t in frame["frame"]["teams"]] == ["bot0", "bot1"]


def test_dp75_from_round_wraps_a_round_made_elsewhere() -> None:
    round_ = Round.create(small_config(), SEED, ["north", "south"])
    engine = DatsPulseEngine.from_round(round_)
    assert engine.round is round_
    engine.set_player_names(["x", "y"])  # the round keeps its teams' names
    assert [r.payload["team"]["name"] for r in engine.start_requests()] == ["north", "south"]
    assert engine.next_requests()[0].payload["turnNo"] == 0


def random_orders(round_: Round, team: int, turn: int) -> dict[str, Any]:
    """A body with one step for every living ant, some of them invalid."""
    arena = round_.arena(team, 1.0)
    moves = []
    for index, ant in enumerate(arena["ants"]):
        if ant["health"] <= 0:
            continue
        options = neighbours(ant["q"], ant["r"])
        q, r = options[(index + turn) % 6]
        moves.append({"ant": ant["id"], "path": [{"q": q, "r": r}]})
    moves.append({"ant": "nobody", "path": []})
    return {"moves": moves}


def test_dp75_orders_body_resubmitted_reproduces_the_merged_orders() -> None:
    """§7.5 "Replays of both drivers": the real-time driver records merged slots as `orders_body`, and
    submitting that body again (same turn, or a fresh round of the same seed) gives the same orders."""
    config = small_config()
    live = Round.create(config, SEED, ["a", "b"])
    fresh = Round.create(config, SEED, ["a", "b"])
    for team in (0, 1):
        live.submit(team, random_orders(live, team, 0))
        live.submit(team, random_orders(live, team, 1))  # a second call merges (§7.2)
        slots = live.orders(team)
        assert slots
        body = orders_body(slots)
        assert live.submit(team, body) == []
        assert live.orders(team) == slots
        assert fresh.submit(team, body) == []
        assert fresh.orders(team) == slots
    assert orders_body({}) == {"moves": []}


def test_dp75_real_time_driving_through_apply_matches_lockstep() -> None:
    """The real-time server's way (merged slots -> `orders_body` -> `apply`) and the lockstep way (each
    bot's bodies through `apply`) give identical frames for the same seed and orders."""
    config = small_config()
    lockstep, _ = started(2, ["a", "b"])
    live_round = Round.create(config, SEED, ["a", "b"])
    live = DatsPulseEngine.from_round(live_round)
    assert lockstep.keyframe() == live.keyframe()
    for turn in range(config.turns):
        replies = []
        for team in (0, 1):
            body = random_orders(live_round, team, turn)
            live_round.submit(team, body)
            replies.append(ok(team, body))
        live_step = live.apply([ok(team, orders_body(live_round.orders(team))) for team in (0, 1)])
        lock_step = lockstep.apply(replies)
        assert live_step.record == lock_step.record
        assert all(v.status is Status.OK and not v.warnings for v in live_step.verdicts)
        assert live.last_logs == lockstep.last_logs
    assert lockstep.next_requests() == [] and live.next_requests() == []
    assert live.result().to_json() == lockstep.result().to_json()


def test_dp76_start_exchange_records_its_own_status() -> None:
    """§7.6: whatever the start exchange's status, it is recorded (an in-process exception as
    `exception`), and every seat is asked at turn 0 all the same."""
    engine = DatsPulseEngine(small_config(), SEED, 3)
    engine.start_requests()
    verdicts = engine.apply_start(
        [
            Reply(0, Status.CRASHED, None, Reason.BOT_ERROR),
            Reply(1, Status.INVALID, None, Reason.BAD_JSON),
            Reply(2, Status.TIMEOUT, None, Reason.DEADLINE),
        ]
    )
    assert [(v.status, v.reason) for v in verdicts] == [
        (Status.CRASHED, EXCEPTION),
        (Status.INVALID, Reason.BAD_JSON),
        (Status.TIMEOUT, Reason.DEADLINE),
    ]
    assert [r.seat for r in engine.next_requests()] == [0, 1, 2]
