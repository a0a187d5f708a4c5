"""Re-running replays: identical for real matches; an edited or truncated file names the difference."""

from __future__ import annotations

import gzip
from pathlib import Path

import orjson
import pytest

from botarena.bots.inprocess import PythonBot
from botarena.core.game import GameInfo
from botarena.core.replay import Replay, read_replay, write_replay
from botarena.runner import run_match
from botarena.runner.verify import first_difference, verify_replay


def real_match(game: GameInfo, a: str, b: str, seed: int = 11, **overrides: object) -> Replay:
    bots = [PythonBot(game.starter_bots[a], a), PythonBot(game.starter_bots[b], b)]
    config = game.config(overrides=overrides) if overrides else None
    return run_match(game, bots, config=config, seed=seed).replay


def rewrite(path: Path, edit: object) -> None:
    data = orjson.loads(gzip.decompress(path.read_bytes()))
    edit(data)  # type: ignore[operator]
    path.write_bytes(gzip.compress(orjson.dumps(data)))


@pytest.mark.parametrize(
    ("a", "b", "overrides"),
    [
        ("randomonium", "adaptive", {}),
        ("zergy", "pacifist", {}),
        ("adaptive", "randomonium", {"rules": "bravolt2018", "rounds": 30}),
        ("randomonium", "randomonium", {"turn_limit_range": [1, 12], "rounds": 20}),
    ],
)
def test_real_matches_verify_identical(
    drones: GameInfo, tmp_path: Path, a: str, b: str, overrides: dict[str, object]
) -> None:
    replay = real_match(drones, a, b, **overrides)
    report = verify_replay(read_replay(write_replay(replay, tmp_path / "r.json.gz")))
    assert report.identical, str(report)
    assert report.steps_checked == len(replay.steps)
    assert str(report).startswith("identical")


@pytest.mark.parametrize("change", ["more", "zero"])
def test_an_edited_action_is_found_at_its_step(drones: GameInfo, tmp_path: Path, change: str) -> None:
    replay = real_match(drones, "randomonium", "adaptive")
    # the first step after step 10 where seat 0 (randomonium) asked for soldiers
    k = next(i for i, s in enumerate(replay.steps) if i >= 10 and s["replies"][0]["payload"]["newSoldiers"])
    record = replay.steps[k]["record"]
    path = write_replay(replay, tmp_path / "r.json.gz")
    original = replay.steps[k]["replies"][0]["payload"]["newSoldiers"]
    edited = original + 5 if change == "more" else 0

    def edit(data: dict) -> None:  # type: ignore[type-arg]
        data["steps"][k]["replies"][0]["payload"]["newSoldiers"] = edited

    rewrite(path, edit)
    report = verify_replay(read_replay(path))
    assert not report.identical
    assert report.where == f"step {k + 1} (round {record['round']}, turn {record['turn']})"
    assert report.steps_checked == 0  # nothing counted as checked once a difference is found
    assert str(report).startswith(f"differs at step {k + 1} (round ")
    if change == "more":  # over capacity: the re-run clamps it, with a warning the replay lacks
        assert report.detail == "record.players[0].warnings: replay has 0 items, re-run gives 1"
    else:
        assert report.detail == (
            f"record.players[0].requested.newSoldiers: replay has {original}, re-run gives 0"
        )


def test_an_edited_verdict_is_found(drones: GameInfo, tmp_path: Path) -> None:
    replay = real_match(drones, "zergy", "pacifist")
    path = write_replay(replay, tmp_path / "r.json.gz")

    def edit(data: dict) -> None:  # type: ignore[type-arg]
        data["steps"][3]["verdicts"][1] = ["TIMEOUT", "deadline"]

    rewrite(path, edit)
    report = verify_replay(read_replay(path))
    assert report.where.startswith("step 4 (round ") and "verdict" not in report.where
    assert "TIMEOUT" in report.detail


def test_a_truncated_replay_ends_before(drones: GameInfo, tmp_path: Path) -> None:
    replay = real_match(drones, "randomonium", "adaptive")
    path = write_replay(replay, tmp_path / "r.json.gz")
    keep = len(replay.steps) - 3

    def edit(data: dict) -> None:  # type: ignore[type-arg]
        del data["steps"][keep:]

    rewrite(path, edit)
    report = verify_replay(read_replay(path))
    assert not report.identical
    assert "ends before" in report.detail
    assert report.where == f"step {keep + 1}"


def test_an_edited_result(drones: GameInfo) -> None:
    replay = real_match(drones, "randomonium", "adaptive")
    replay.result["ranks"] = [9, 9]
    report = verify_replay(replay)
    assert report.where == "result" and report.detail.startswith("result.ranks[0]: replay has 9")


def test_another_seed_is_found_where_the_engine_draws(drones: GameInfo) -> None:
    replay = real_match(drones, "zergy", "pacifist", turn_limit_range=[1, 50])
    replay.seed += 1
    report = verify_replay(replay)
    assert not report.identical and "turnLimit" in report.detail


def test_wrong_rules_version(drones: GameInfo) -> None:
    replay = real_match(drones, "zergy", "pacifist")
    replay.rules = "drones_v0"
    report = verify_replay(replay)
    assert not report.identical and report.where == "header" and "drones_v0" in report.detail


def test_first_difference() -> None:
    assert first_difference({"a": [1, 2]}, {"a": [1, 2]}) is None
    assert first_difference({"a": [1, 2]}, {"a": [1, 3]}) == "a[1]: replay has 2, re-run gives 3"
    assert first_difference({"a": 1}, {"a": 1, "b": 2}) == ".b: present in re-run only"
    assert first_difference([1], [1, 2]) == ": replay has 1 items, re-run gives 2"
    assert first_difference(1, 1.0) is None
    assert first_difference("x", None) == 'value: replay has "x", re-run gives null'


def test_an_engine_with_external_inputs_is_given_each_step_record_first(
    drones: GameInfo, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The generic hook: `restore_external_inputs(record)` before the step's `next_requests()`."""
    replay = real_match(drones, "zergy", "pacifist")
    engine_class = type(drones.new_engine(drones.config(), 1, 2))
    original = engine_class.next_requests
    seen: list[tuple[str, object]] = []

    def restore(self: object, record: object) -> None:
        seen.append(("restore", record))

    def next_requests(self: object) -> object:
        seen.append(("next", None))
        return original(self)  # type: ignore[arg-type]

    monkeypatch.setattr(engine_class, "restore_external_inputs", restore, raising=False)
    monkeypatch.setattr(engine_class, "next_requests", next_requests)
    report = verify_replay(replay)
    assert report.identical, str(report)
    expected = [item for step in replay.steps for item in (("restore", step["record"]), ("next", None))]
    assert seen == [*expected, ("next", None)]
