"""Issue 28 item 7: one record type for a played match, from the worker to the store."""

from __future__ import annotations

import dataclasses
import typing
from collections.abc import Sequence

import botarena.store.store as store_module
import botarena.tournament.executor as executor_module
from botarena.core.game import MatchResult
from botarena.runner.record import MatchRecord
from botarena.store.store import Store


def test_i28_7_the_tournament_and_the_store_speak_one_record_type() -> None:
    assert typing.get_type_hints(executor_module.play_task)["return"] is MatchRecord
    assert typing.get_type_hints(Store.record_results)["results"] == Sequence[MatchRecord]
    for gone in ("MatchOutcome", "MatchResultLike"):
        assert not hasattr(executor_module, gone) and not hasattr(store_module, gone)
    assert not hasattr(store_module, "MatchResult"), "the store's record is named like core.game's"


def test_i28_7_the_record_keeps_the_store_columns_and_does_not_clash_with_the_game_result() -> None:
    names = [f.name for f in dataclasses.fields(MatchRecord)]
    assert names == [
        "key",
        "ranks",
        "scores",
        "statuses",
        "time_used_ms",
        "steps",
        "duration_s",
        "replay_gz",
        "replay_hash",
        "failures",
    ]
    assert MatchRecord.__name__ != MatchResult.__name__
    record = MatchRecord("m1", [0, 1], [1.0, 0.0], [{"OK": 3}, {"OK": 3}], [1.0, 2.0], 3, 0.5)
    assert record.replay_gz == b"" and record.replay_hash is None and record.failures is None
    assert "replay_gz" not in repr(record)  # a replay's bytes never flood a log line
