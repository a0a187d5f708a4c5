"""An engine is plain data: `copy.deepcopy` and `pickle` at any point of a game give an engine that
plays on exactly like the original (architecture: every engine can be copied and pickled), and the
keyframes it stores render as text (`text.keyframe_text`) after a trip through a replay file."""

from __future__ import annotations

import copy
import pickle
from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson
import pytest

from botarena.bots.inprocess import PythonBot
from botarena.core.protocol import Reply
from botarena.core.replay import read_replay, write_replay
from botarena.core.status import Status
from botarena.games.craftingquest import GAME
from botarena.games.craftingquest.bots import Prospector, RandomBot
from botarena.games.craftingquest.engine import CraftingQuestEngine
from botarena.games.craftingquest.text import keyframe_text
from botarena.runner import run_match

OVERRIDES = {"width": 50, "height": 50, "rounds": 6, "turn_budget_ms": 0}


def _start(seed: int) -> tuple[CraftingQuestEngine, list[Any]]:
    engine = CraftingQuestEngine(GAME.config(overrides=OVERRIDES), seed, 2)
    bots: list[Any] = [Prospector(), RandomBot()]
    requests = engine.start_requests()
    engine.apply_start([Reply(r.seat, Status.OK, bots[r.seat].setup(r.payload)) for r in requests])
    return engine, bots


def _play(engine: CraftingQuestEngine, bots: list[Any], records: list[bytes], until: int | None) -> None:
    """Answer questions at once until `until` step records exist (None: to the end)."""
    while until is None or len(records) < until:
        requests = engine.next_requests()
        if not requests:
            return
        (request,) = requests
        answer = bots[request.seat].act(request.payload)
        step = engine.apply([Reply(request.seat, Status.OK, answer)])
        records.append(orjson.dumps(step.record) + orjson.dumps(engine.keyframe()))


def _finish(engine: CraftingQuestEngine, bots: list[Any], records: list[bytes]) -> bytes:
    _play(engine, bots, records, None)
    ends = [r.payload for r in engine.end_requests()]
    return orjson.dumps([engine.result().to_json(), ends, engine.keyframe(), engine.config.scenario])


def _pickled(value: Any) -> Any:
    return pickle.loads(pickle.dumps(value))


@pytest.mark.parametrize("at", [0, 20, 40])
@pytest.mark.parametrize("clone", [copy.deepcopy, _pickled], ids=["deepcopy", "pickle"])
def test_cq_engine_copied_mid_game_plays_on_identically(at: int, clone: Callable[[Any], Any]) -> None:
    engine, bots = _start(seed=5)
    records: list[bytes] = []
    _play(engine, bots, records, at)
    assert len(records) == at  # the game is still running at the copy
    twin, twin_bots = clone((engine, bots))
    twin_records = list(records)
    end = _finish(engine, bots, records)
    twin_end = _finish(twin, twin_bots, twin_records)
    assert len(records) > at
    assert twin_records == records
    assert twin_end == end


def test_text_keyframe_text_of_a_replayed_keyframe(tmp_path: Path) -> None:
    """The text view of the keyframes a replay file stores: the map's size, the camps, the six units
    where the keyframe puts them and both legend lines."""
    config = GAME.config(overrides=OVERRIDES)
    run = run_match(GAME, [PythonBot(Prospector, "p"), PythonBot(RandomBot, "r")], config=config, seed=3)
    replay = read_replay(write_replay(run.replay, tmp_path / "cq.json.gz"))
    for frame in replay.keyframes:
        keyframe = frame["state"]
        lines = keyframe_text(keyframe).splitlines()
        assert len(lines) == keyframe["height"] + 2
        assert all(len(line) == keyframe["width"] for line in lines[:-2])
        for camp in keyframe["camps"]:
            assert lines[camp["y"]][camp["x"]] == "M"
        for unit in keyframe["units"]:
            assert lines[unit["y"]][unit["x"]] in ("M", "T", *(str(i) for i in range(3, 9)))
        assert lines[-2].startswith(f"player 1: credit {keyframe['credits']['1']}, blueprints ")
        assert lines[-1].startswith(f"player 2: credit {keyframe['credits']['2']}, blueprints ")
