"""A real-time round and its replay (spec §7.5 "Replays of both drivers").

The real-time server is a second driver of the lockstep engine: `RoundDriver` wraps the server's
`Round` with `DatsPulseEngine.from_round`. Each transition is split in two so that the game lock is
held only for the state change: `advance()` takes every team's merged order slots and runs
`Round.transition()` (under the lock); `record()` then writes the step (after the lock is released):
one OK reply per team whose payload is `orders_body(slots)`, with the verdicts and spectator frame of
`engine.applied`, which is exactly the Step `engine.apply` gives when those bodies are re-submitted at
the same turn. So the replay has exactly the shape `runner/match.py` gives a lockstep match (start
exchange, one step per transition, keyframes every `GAME.keyframe_every` steps and the last, end
exchange, result) and `botarena replay --verify` re-runs it through the lockstep engine. While the round
runs, its steps are held as JSON bytes (`orjson.Fragment`); the replay as written or read back is the
usual one.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, cast

import orjson

from botarena import __version__
from botarena.core.config import config_to_dict
from botarena.core.protocol import Reply
from botarena.core.replay import Replay, exchange_entry, recorded_statuses
from botarena.core.status import Status

GENERATORS = ("scatter", "mirror", "zones")  # DP-47: the `cycle` list
KEYFRAME_EVERY_DEFAULT = 50


def replay_config(config: Any, round_number: int) -> dict[str, Any]:
    """The config a lockstep re-run needs: every key, with a `cycle` generator replaced by the one
    round `round_number` used (DP-47 draws nothing for either, so the map is the same)."""
    data = config_to_dict(config)
    if data.get("map_generator") == "cycle":
        data["map_generator"] = GENERATORS[(round_number - 1) % len(GENERATORS)]
    return data


class RoundDriver:
    """Runs the transitions of one real-time round through the lockstep engine and records them."""

    def __init__(
        self,
        round_: Any,
        *,
        round_number: int,
        preset: str,
        match_id: str,
        keyframe_every: int | None = None,
    ) -> None:
        from botarena.games.datspulse.actions import orders_body
        from botarena.games.datspulse.config import GAME_ID, RULES_VERSION
        from botarena.games.datspulse.engine import DatsPulseEngine

        self.round = round_
        self.engine = DatsPulseEngine.from_round(round_)
        self._orders_body = orders_body
        self.teams = len(round_.team_names)
        self.keyframe_every = keyframe_every or _keyframe_every()
        self.replay = Replay(
            game=GAME_ID,
            rules=RULES_VERSION,
            preset=preset,
            config=replay_config(round_.config, round_number),
            seed=int(round_.seed),
            players=[
                {"seat": seat, "name": name, "kind": "http"} for seat, name in enumerate(round_.team_names)
            ],
            match_id=match_id,
            created_by=f"botarena {__version__} datspulse server",
        )
        self.statuses: list[dict[str, int]] = [{} for _ in range(self.teams)]
        # The order slots a transition ran with, and its logs, until `record` writes its step.
        self._pending: list[Mapping[str, Sequence[tuple[int, int]]]] | None = None
        self._logs: dict[int, list[str]] = {}
        # §7.6: the start exchange. Real-time teams get no start request; the replay records the OK
        # reply every seat would have given, so the lockstep re-run sees the same exchange.
        self.engine.start_requests()
        replies = [Reply(seat, Status.OK, {}) for seat in range(self.teams)]
        verdicts = self.engine.apply_start(replies)
        self.replay.start = exchange_entry(replies, verdicts, statuses=self.statuses)
        first = self.engine.keyframe()
        self.replay.keyframes.append({"step": 0, "state": first})
        self._terrain: Any = _reusable_terrain(first, round_)

    @classmethod
    def resumed(cls, engine: Any, replay: Replay, *, keyframe_every: int | None = None) -> RoundDriver:
        """The driver of a round rebuilt after a restart: `engine` has re-run the recorded steps of
        `replay` (a journal's, see `resume.py`), whose start exchange and steps 1..N it keeps; the
        next `advance` plays step N + 1."""
        from botarena.games.datspulse.actions import orders_body

        driver = cls.__new__(cls)
        driver.round = engine.round
        driver.engine = engine
        driver._orders_body = orders_body
        driver.teams = len(driver.round.team_names)
        driver.keyframe_every = keyframe_every or _keyframe_every()
        driver.replay = replay
        driver.statuses = recorded_statuses([replay.start or {}, *replay.steps], driver.teams)
        driver._pending = None
        driver._logs = {}
        # The terrain of the step-0 keyframe (the re-run checked it against the engine's).
        first = replay.keyframes[0] if replay.keyframes else {}
        state = first.get("state") if first.get("step") == 0 else None
        shaped = isinstance(state, dict) and set(state) == {"terrain", "frame"}
        driver._terrain = state.get("terrain") if shaped and isinstance(state, dict) else None
        return driver

    def advance(self) -> dict[int, list[str]]:
        """The state change of one transition, the part that must hold the game lock: the teams'
        merged order slots are taken, then the round transitions. Returns the new §7.7 log lines per
        team index. `record()` must run before the next `advance` (it reads the state this one made)."""
        if self._pending is not None:  # (a caller that never recorded the last one: do it now)
            self.record()
        orders = self.round.order_slots()  # (no copy: see Round.order_slots)
        self._logs = self.round.transition()
        self._pending = orders
        return self._logs

    def record(self) -> dict[str, Any] | None:
        """Record the transition `advance` ran (None when there is none): the replies (each team's
        slots as a moves body), the verdicts and step record of `engine.applied`, a keyframe when one
        is due. It only reads the state, which nothing but the next transition changes, so the server
        runs it after releasing the game lock (requests meanwhile only touch the new turn's order
        slots). Returns the step's record (the spectator frame)."""
        orders, self._pending = self._pending, None
        if orders is None:
            return None
        replies = [Reply(seat, Status.OK, self._orders_body(slots)) for seat, slots in enumerate(orders)]
        step = self.engine.applied(replies, self._logs)
        entry = exchange_entry(replies, step.verdicts, step.record, self.statuses)
        # Kept as its JSON bytes (an orjson Fragment, written verbatim by Replay.dumps and the live
        # hub): with 50 teams a step is ~0.7 MB of JSON but ~3 MB as Python objects, and a round
        # holds hundreds of them for as long as it runs.
        self.replay.steps.append(cast(Any, orjson.Fragment(orjson.dumps(entry))))
        index = len(self.replay.steps)
        if index % self.keyframe_every == 0 or self.round.finished:
            self.replay.keyframes.append({"step": index, "state": self._keyframe(step.record)})
        return step.record

    def transition(self) -> tuple[dict[str, Any], dict[int, list[str]]]:
        """One transition, recorded: (the step's record, the new §7.7 log lines per team index)."""
        logs = self.advance()
        record = self.record()
        assert record is not None
        return record, dict(logs)

    def _keyframe(self, record: dict[str, Any]) -> Any:
        if self._terrain is None:
            return self.engine.keyframe()
        return {"terrain": self._terrain, "frame": record}

    def finish(self) -> Replay:
        """The end exchange and the result, once the round is over; returns the complete replay."""
        self.engine.end_requests()
        replies = [Reply(seat, Status.OK, {}) for seat in range(self.teams)]
        verdicts = self.engine.apply_end(replies)  # (not tallied: runner/match.py counts start and steps)
        self.replay.end = exchange_entry(replies, verdicts)
        self.replay.result = self.engine.result().to_json()
        self.replay.time_used_ms = [0.0] * self.teams
        self.replay.statuses = self.statuses
        self.replay.logs = [{"seat": seat, "text": "", "dropped_bytes": 0} for seat in range(self.teams)]
        return self.replay


def _reusable_terrain(first: Any, round_: Any) -> Any:
    """A keyframe is the terrain (fixed for the round) and the spectator frame, which is also the
    step's record: later keyframes reuse both rather than rebuild the terrain under the game lock
    (for 50 teams that is ~120k tiles, 150+ ms). Checked once, so a change of the engine's keyframe
    shape falls back to asking the engine (None)."""
    shaped = isinstance(first, dict) and set(first) == {"terrain", "frame"}
    if shaped and first["frame"] == round_.spectator_frame():
        return first["terrain"]
    return None


def _keyframe_every() -> int:
    try:
        from botarena.core.registry import get_game

        return int(get_game("datspulse").keyframe_every)
    except Exception:  # the game is not registered yet: the platform default
        return KEYFRAME_EVERY_DEFAULT
