"""The replay file: round trips, and one-line errors for files that are not replays (core/replay.py)."""

from __future__ import annotations

import gzip
from pathlib import Path

import orjson
import pytest

from botarena.bots.inprocess import PythonBot
from botarena.core.game import GameInfo
from botarena.core.protocol import Verdict
from botarena.core.replay import (
    REPLAY_FORMAT,
    REPLAY_FORMAT_VERSION,
    Replay,
    ReplayError,
    read_replay,
    verdict_json,
    write_replay,
)
from botarena.core.status import Status
from botarena.runner import run_match


@pytest.fixture
def replay(drones: GameInfo) -> Replay:
    bots = [PythonBot(drones.starter_bots["randomonium"]), PythonBot(drones.starter_bots["adaptive"])]
    return run_match(drones, bots, seed=5, config=drones.config(overrides={"rounds": 3})).replay


def test_gzip_round_trip(replay: Replay, tmp_path: Path) -> None:
    path = write_replay(replay, tmp_path / "sub" / "m.json.gz")
    assert path.read_bytes()[:2] == b"\x1f\x8b"
    assert not list(path.parent.glob("*.tmp"))
    back = read_replay(path)
    assert back == replay
    assert back.dumps() == replay.dumps()


def test_gzip_file_is_reproducible(replay: Replay, tmp_path: Path) -> None:
    """No timestamp in the gzip header: the same replay gives the same bytes (content hashing)."""
    one = write_replay(replay, tmp_path / "a.gz").read_bytes()
    two = write_replay(replay, tmp_path / "b.gz").read_bytes()
    assert one == two


def test_plain_json_round_trip(replay: Replay, tmp_path: Path) -> None:
    path = tmp_path / "m.json"
    path.write_bytes(replay.dumps())
    assert read_replay(path).dumps() == replay.dumps()
    assert read_replay(str(path)) == replay


def test_header_fields(replay: Replay) -> None:
    data = orjson.loads(replay.dumps())
    assert data["format"] == REPLAY_FORMAT and data["format_version"] == REPLAY_FORMAT_VERSION
    assert data["game"] == "drones" and data["seed"] == 5 and data["rules"] == "drones_v1"
    assert [p["seat"] for p in data["players"]] == [0, 1]
    assert data["keyframes"][0]["step"] == 0 and data["keyframes"][-1]["step"] == len(data["steps"])
    assert len(data["logs"]) == 2 and len(data["time_used_ms"]) == 2


def test_verdict_json() -> None:
    assert verdict_json(Verdict(0, Status.OK)) == ["OK", None]
    assert verdict_json(Verdict(1, Status.INVALID, "bad_field", [], "x")) == ["INVALID", "bad_field", "x", []]
    warning = {"code": "C", "detail": "d"}
    assert verdict_json(Verdict(1, Status.OK, None, [warning])) == ["OK", None, None, [warning]]  # type: ignore[list-item]


def one_line_error(path: Path | str) -> str:
    with pytest.raises(ReplayError) as info:
        read_replay(path)
    message = str(info.value)
    assert message and "\n" not in message, message
    return message


def test_missing_file(tmp_path: Path) -> None:
    message = one_line_error(tmp_path / "nope.json.gz")
    assert "cannot read" in message and "nope.json.gz" in message


def test_directory(tmp_path: Path) -> None:
    assert "cannot read" in one_line_error(tmp_path)


def test_not_gzip_and_not_json(tmp_path: Path) -> None:
    path = tmp_path / "x.gz"
    path.write_bytes(b"this is not a replay")
    assert "not valid JSON" in one_line_error(path)


def test_corrupt_gzip(tmp_path: Path) -> None:
    path = tmp_path / "x.gz"
    good = gzip.compress(b'{"format": "botarena.replay"}' * 50)
    path.write_bytes(good[:20])
    assert "corrupt gzip" in one_line_error(path)
    path.write_bytes(good[:10] + b"\xff" * 40 + good[50:])
    assert "corrupt gzip" in one_line_error(path)
    path.write_bytes(b"\x1f\x8b" + b"garbage")
    assert "corrupt gzip" in one_line_error(path)


def test_gzip_of_not_json(tmp_path: Path) -> None:
    path = tmp_path / "x.gz"
    path.write_bytes(gzip.compress(b"\x00\x01 binary"))
    assert "not valid JSON" in one_line_error(path)


@pytest.mark.parametrize(
    "data",
    [[], "replay", 3, None, {"game": "drones"}, {"format": "other.replay", "format_version": 1}],
)
def test_wrong_format_marker(tmp_path: Path, data: object) -> None:
    path = tmp_path / "x.json"
    path.write_bytes(orjson.dumps(data))
    assert "not a botarena replay" in one_line_error(path)


@pytest.mark.parametrize("version", [0, 2, "1", None])
def test_wrong_version(replay: Replay, tmp_path: Path, version: object) -> None:
    data = orjson.loads(replay.dumps())
    data["format_version"] = version
    path = tmp_path / "x.json.gz"
    path.write_bytes(gzip.compress(orjson.dumps(data)))
    assert "unsupported replay format version" in one_line_error(path)


def test_missing_required_field(replay: Replay, tmp_path: Path) -> None:
    data = orjson.loads(replay.dumps())
    del data["seed"]
    path = tmp_path / "x.json"
    path.write_bytes(orjson.dumps(data))
    assert "malformed replay" in one_line_error(path)


def test_unknown_fields_are_ignored(replay: Replay, tmp_path: Path) -> None:
    """A newer writer's extra top-level key does not stop an older reader."""
    data = orjson.loads(replay.dumps())
    data["added_later"] = {"x": 1}
    path = tmp_path / "x.json"
    path.write_bytes(orjson.dumps(data))
    assert read_replay(path) == replay
