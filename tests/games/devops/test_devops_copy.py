"""Every Devops engine survives `copy.deepcopy` and `pickle` mid-game, and the copy plays on exactly as
the original (the engine is plain data: no lock, no handle; bonus codes wait in a plain queue)."""

from __future__ import annotations

import copy
import pickle
from typing import Any

from botarena.core.protocol import Reply
from botarena.core.status import Status
from botarena.games.devops import GAME
from botarena.games.devops.bots import LOGICS, FactionBot
from botarena.games.devops.engine import DevopsEngine


def start(engine: DevopsEngine, names: list[str]) -> list[FactionBot]:
    bots = [FactionBot(LOGICS[name]()) for name in names]
    for request in engine.start_requests():
        bots[request.seat].setup(request.payload)
    return bots


def turn(engine: DevopsEngine, bots: list[FactionBot]) -> dict[str, Any] | None:
    """One turn with the bots' answers; its step record (None once the game is over)."""
    requests = engine.next_requests()
    if not requests:
        return None
    replies = [Reply(r.seat, Status.OK, bots[r.seat].act(r.payload)) for r in requests]
    return engine.apply(replies).record


def finish(engine: DevopsEngine, bots: list[FactionBot]) -> tuple[list[dict[str, Any]], Any, Any]:
    records = []
    while (record := turn(engine, bots)) is not None:
        records.append(record)
    return records, engine.result(), engine.keyframe()


def test_deepcopy_and_pickle_mid_game_play_on_identically() -> None:
    config = GAME.config(
        "smoke",
        {
            "turn_limit": 40,
            "starting_bombs": 2,
            "bonus_codes_enabled": True,
            "starting_units": ["SAPPER", "PIONEER"],
        },
    )
    engine = DevopsEngine(config, 11, 3)
    bots = start(engine, ["expander", "random", "starter"])
    for _ in range(12):
        assert turn(engine, bots) is not None
    engine.queue_redemption(2, "RUSH_ATTACK", 30)  # waiting in the engine's queue while copied
    copies = [
        (copy.deepcopy(engine), copy.deepcopy(bots)),
        (pickle.loads(pickle.dumps(engine)), pickle.loads(pickle.dumps(bots))),
    ]
    expected = finish(engine, bots)
    records, result, _ = expected
    assert len(records) == 40 - 12 and any("redemptions" in r for r in records)
    assert result.details["turns"] == 40
    for twin, twin_bots in copies:
        assert twin is not engine and twin.state is not engine.state
        assert finish(twin, twin_bots) == expected
