"""Property tests (hypothesis) for serialization: replies, and whole replays of random matches."""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

import orjson
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from botarena.bots.inprocess import PythonBot
from botarena.core.protocol import Reply
from botarena.core.registry import get_game
from botarena.core.replay import read_replay, write_replay
from botarena.core.status import Reason, Status
from botarena.runner import run_match

text = st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=12)
json_scalars = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**63), max_value=2**64 - 1)
    | st.floats(allow_nan=False, allow_infinity=False)
    | text
)
json_values = st.recursive(
    json_scalars,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(text, inner, max_size=4),
    max_leaves=20,
)
warnings = st.lists(st.fixed_dictionaries({"code": text, "detail": text}), max_size=3)
reasons = st.none() | st.sampled_from([Reason.DEADLINE, Reason.BOT_ERROR, Reason.BAD_JSON, "game_code"])


@st.composite
def replies(draw: st.DrawFn) -> Reply:
    return Reply(
        seat=draw(st.integers(0, 7)),
        status=draw(st.sampled_from(list(Status))),
        payload=draw(json_values),
        reason=draw(reasons),
        time_ms=round(draw(st.floats(0, 1e7, allow_nan=False)), 3),
        warnings=draw(warnings),  # type: ignore[arg-type]
    )


@given(replies())
def test_reply_round_trip(reply: Reply) -> None:
    data = reply.to_json()
    assert Reply.from_json(data) == reply
    wire = orjson.loads(orjson.dumps(data))
    assert Reply.from_json(wire) == reply
    assert orjson.dumps(Reply.from_json(wire).to_json()) == orjson.dumps(data)


@given(replies(), st.floats(0, 1e6, allow_nan=False))
def test_reply_time_is_rounded_to_microseconds(reply: Reply, ms: float) -> None:
    reply.time_ms = ms
    again = Reply.from_json(reply.to_json())
    assert abs(again.time_ms - ms) <= 0.0005 + 1e-9
    assert Reply.from_json(again.to_json()) == again


def test_reply_json_omits_empty_optional_fields() -> None:
    assert Reply(1, Status.OK, {"a": 1}, time_ms=1.23456).to_json() == {
        "seat": 1,
        "status": "OK",
        "payload": {"a": 1},
        "ms": 1.235,
    }
    assert type(Reply(0, Status.TIMEOUT).to_json()["status"]) is str


DRONES = get_game("drones")
BOT_NAMES = sorted(DRONES.starter_bots)


@st.composite
def match_setups(draw: st.DrawFn) -> dict[str, Any]:
    overrides: dict[str, Any] = {
        "rules": draw(st.sampled_from(["seed", "bravolt2018"])),
        "rounds": draw(st.integers(1, 4)),
        "defender_bonus": draw(st.integers(0, 3)),
    }
    if draw(st.booleans()):
        lo = draw(st.integers(1, 6))
        overrides["turn_limit_range"] = [lo, draw(st.integers(lo, 8))]
    else:
        overrides["turn_limit"] = draw(st.integers(1, 8))
    players = [draw(st.sampled_from([*BOT_NAMES, "random"])) for _ in range(2)]
    return {"overrides": overrides, "players": players, "seed": draw(st.integers(0, 2**64 - 1))}


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(match_setups(), st.booleans())
def test_replays_of_random_matches_survive_write_and_read(setup: dict[str, Any], gzipped: bool) -> None:
    factories = {**DRONES.starter_bots, "random": DRONES.random_bot}
    bots = [PythonBot(factories[name], name) for name in setup["players"]]
    config = DRONES.config(overrides=setup["overrides"])
    replay = run_match(DRONES, bots, config=config, seed=setup["seed"]).replay
    original = replay.dumps()
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "r.json"
        if gzipped:
            write_replay(replay, path)
        else:
            path.write_bytes(original)
        back = read_replay(path)
    assert back.dumps() == original
    assert back.to_json() == orjson.loads(original)
