"""`Engine.clone()` (issue 17, deliverable 3): a copy of a match that diverges on its own, for tree search.

Parametrized over the game registry. Each test drives engines directly (no runner, no clock) with the
game's random bot answering every request, on the game's `test_overrides`: a few steps, then a clone,
then

(a) the clone and the original fed the same replies, batch by batch in lockstep, make the same
    requests, step records, verdicts, keyframes and result;
(b) the clone fed other replies diverges, and the original then plays on exactly as a third engine
    re-run from scratch on the same seed and the original's replies;
(c) the clone's random streams are its own: drawing from them leaves the original's untouched.

Late replies (Crafting Quest's unawaited `result`, CQ-31) are handed over as the runner does when the
answer arrives at once: before the next batch, through `Engine.late_reply`.
"""

from __future__ import annotations

import copy
import enum
import types
from collections.abc import Callable, Collection, Iterator
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import orjson
import pytest

from botarena.core.game import Engine, GameInfo
from botarena.core.protocol import NOT_AWAITED, Reply, Request
from botarena.core.registry import all_games
from botarena.core.status import Status
from botarena.testing.play import BIG_SEED, checks_config

GAMES = all_games()
PREFIX = 2
"""Batches played before the clone is made."""


def game_id(game: GameInfo) -> str:
    return game.id


parametrize_games = pytest.mark.parametrize("game", GAMES, ids=game_id)


def as_json(value: Any) -> Any:
    """`value` as it would be written to a replay (tuples as lists, numpy scalars refused)."""
    return orjson.loads(orjson.dumps(value))


def bot_method(bot: Any, name: str) -> Callable[[Any], Any] | None:
    """An in-process bot's `setup`/`act`/`end`, as the runner finds them (a plain function acts)."""
    method = getattr(bot, name, None)
    if method is None and name == "act" and callable(bot):
        return bot  # type: ignore[no-any-return]
    return method  # type: ignore[no-any-return]


@dataclass
class Batch:
    """One batch as an engine was fed it: late answers handed over first, then the replies."""

    late: list[Reply]
    replies: list[Reply]
    requests: list[Request] = field(default_factory=list)
    """What the engine asked (when it was played live)."""


@dataclass
class Trace:
    """What an engine did, as JSON: per batch its requests, step record, verdicts and keyframe."""

    steps: list[Any] = field(default_factory=list)
    final: Any = None


class Seats:
    """The game's random bot in every seat, answering an engine's requests at once.

    `bot_seed_shift` changes the bot seeds the start payloads carry, so two `Seats` on the same
    match give different replies."""

    def __init__(self, game: GameInfo, start: list[Request], bot_seed_shift: int = 0) -> None:
        self.bots = [game.random_bot() for _ in start]
        self.owed: list[Reply] = []
        self.start_replies: list[Reply] = []
        for request in start:
            payload = copy.deepcopy(request.payload)
            if bot_seed_shift and isinstance(payload, dict) and "bot_seed" in payload:
                payload["bot_seed"] = (payload["bot_seed"] + bot_seed_shift) % 2**32
            setup = bot_method(self.bots[request.seat], "setup")
            answer = {} if setup is None else setup(payload)
            self.start_replies.append(Reply(request.seat, Status.OK, answer))

    def answer(self, requests: list[Request]) -> list[Reply]:
        """Replies to a batch; an unawaited request's answer is owed, handed over before the next."""
        replies = []
        for request in requests:
            act = bot_method(self.bots[request.seat], "act")
            assert act is not None
            answer = act(copy.deepcopy(request.payload))
            if request.await_reply:
                replies.append(Reply(request.seat, Status.OK, answer))
            else:
                replies.append(Reply(request.seat, Status.TIMEOUT, None, NOT_AWAITED))
                self.owed.append(Reply(request.seat, Status.OK, answer))
        return replies

    def take_owed(self) -> list[Reply]:
        owed, self.owed = self.owed, []
        return owed


def new_engine(game: GameInfo, **overrides: Any) -> Engine:
    config = checks_config(game, **overrides)
    engine = game.new_engine(config, BIG_SEED, game.min_players)
    engine.set_player_names([f"seat{seat}" for seat in range(game.min_players)])
    return engine


def started(game: GameInfo, bot_seed_shift: int = 0, **overrides: Any) -> tuple[Engine, Seats]:
    engine = new_engine(game, **overrides)
    seats = Seats(game, engine.start_requests(), bot_seed_shift)
    engine.apply_start(copy.deepcopy(seats.start_replies))
    return engine, seats


def feed(engine: Engine, batch: Batch, trace: Trace) -> bool:
    """Feed one batch (False, feeding nothing, once the engine has nothing more to ask)."""
    for reply in batch.late:
        engine.late_reply(copy.deepcopy(reply))
    requests = engine.next_requests()
    if not requests:
        assert not batch.replies, "the engine ended the game before a recorded batch"
        return False
    step = engine.apply(copy.deepcopy(batch.replies))
    trace.steps.append(
        as_json(
            {
                "requests": [[r.seat, r.type.value, r.payload] for r in requests],
                "record": step.record,
                "verdicts": [[v.seat, v.status.value, v.reason, v.warnings] for v in step.verdicts],
                "keyframe": keyframe_now(engine, len(trace.steps)),
            }
        )
    )
    return True


KEYFRAME_EVERY = 8
"""Traces hold a keyframe every this many batches (Crafting Quest's are big; the result's is last)."""


def keyframe_now(engine: Engine, index: int) -> Any:
    return engine.keyframe() if index % KEYFRAME_EVERY == 0 else None


def live_batch(engine: Engine, seats: Seats) -> Batch | None:
    """The next batch the seats' bots answer (late answers first), or None once the game is over."""
    late = seats.take_owed()
    for reply in late:
        engine.late_reply(copy.deepcopy(reply))
    requests = engine.next_requests()
    if not requests:
        return None
    return Batch(late, seats.answer(requests), requests)


def play_live(engine: Engine, seats: Seats, trace: Trace, limit: int | None = None) -> list[Batch]:
    """Play up to `limit` batches (to the end if None) with live bots; the batches fed, in order."""
    batches: list[Batch] = []
    while limit is None or len(batches) < limit:
        batch = live_batch(engine, seats)
        if batch is None:
            break
        step = engine.apply(copy.deepcopy(batch.replies))
        keyframe = keyframe_now(engine, len(trace.steps))
        trace.steps.append(as_json({"record": step.record, "keyframe": keyframe}))
        batches.append(batch)
    return batches


def finish(engine: Engine) -> Any:
    """The end exchange (answered `{}`), the last keyframe and the result, as JSON."""
    assert not engine.next_requests()
    ends = engine.end_requests()
    verdicts = engine.apply_end([Reply(r.seat, Status.OK, {}) for r in ends])
    return as_json(
        {
            "end": [[r.seat, r.payload] for r in ends],
            "end_verdicts": [[v.seat, v.status.value] for v in verdicts],
            "keyframe": engine.keyframe(),
            "result": engine.result().to_json(),
        }
    )


# -- (a) the same replies: the same match -------------------------------------------------------------


@parametrize_games
def test_clone_fed_the_same_replies_plays_the_same_match(game: GameInfo) -> None:
    original, seats = started(game)
    play_live(original, seats, Trace(), PREFIX)
    clone = original.clone()
    assert type(clone) is type(original) and clone is not original
    ours, theirs = Trace(), Trace()
    batches = 0
    while True:  # lockstep: a shared random stream would make the second engine draw other numbers
        batch = live_batch(original, seats)
        late = batch.late if batch else seats.take_owed()
        for reply in late:
            clone.late_reply(copy.deepcopy(reply))
        if batch is None:
            assert not clone.next_requests(), "the clone asks on after the original's game is over"
            break
        requests = clone.next_requests()
        assert as_json([[r.seat, r.payload] for r in requests]) == as_json(
            [[r.seat, r.payload] for r in batch.requests]
        ), f"batch {batches}: the clone asks other questions"
        for engine, trace in ((original, ours), (clone, theirs)):
            step = engine.apply(copy.deepcopy(batch.replies))
            trace.steps.append(
                as_json(
                    {
                        "record": step.record,
                        "verdicts": [[v.seat, v.status.value, v.reason] for v in step.verdicts],
                        "keyframe": keyframe_now(engine, batches),
                    }
                )
            )
        assert theirs.steps[-1] == ours.steps[-1], f"batch {batches} after the clone differs"
        batches += 1
    assert batches > 0, "the game ended before the clone could play"
    assert finish(clone) == finish(original)


# -- (b) other replies: the clone diverges, the original is unaffected --------------------------------


@parametrize_games
def test_clone_fed_other_replies_diverges_and_leaves_the_original_alone(game: GameInfo) -> None:
    original, seats = started(game)
    prefix = play_live(original, seats, Trace(), PREFIX)
    clone = original.clone()

    # The clone plays to the end first, on bots seeded otherwise, so any state it shared with the
    # original would have moved on before the original plays another batch.
    _, other_seats = started(game, bot_seed_shift=1)
    other_seats.owed = copy.deepcopy(seats.owed)  # the owed answers belong to the match, not the bots
    theirs = Trace()
    play_live(clone, other_seats, theirs)
    theirs.final = finish(clone)

    ours = Trace()
    rest = play_live(original, seats, ours)
    ours.final = finish(original)
    assert rest, "the game ended before the clone could play"

    rerun, _ = started(game)
    replayed = Trace()
    for batch in prefix:
        feed(rerun, batch, Trace())
    for batch in rest:
        assert feed(rerun, batch, replayed)
    feed(rerun, Batch(seats.take_owed(), []), Trace())
    replayed.final = finish(rerun)

    assert [step["record"] for step in replayed.steps] == [step["record"] for step in ours.steps]
    assert [step["keyframe"] for step in replayed.steps] == [step["keyframe"] for step in ours.steps]
    assert replayed.final == ours.final, "the original's result is not the re-run's"
    assert theirs.steps != ours.steps, "other replies, yet the clone played the original's match"


# -- (c) independent random streams -------------------------------------------------------------------


def _attributes(value: Any) -> Iterator[tuple[str, Any]]:
    if isinstance(value, dict):
        for key, item in value.items():
            yield f"[{key!r}]", key
            yield f"[{key!r}]", item
    elif isinstance(value, list | tuple | set | frozenset):
        for index, item in enumerate(value):
            yield f"[{index}]", item
    else:
        names = set(getattr(value, "__dict__", {}))
        for klass in type(value).__mro__:
            names.update(getattr(klass, "__slots__", ()))
        for name in sorted(names):
            if hasattr(value, name):
                yield f".{name}", getattr(value, name)


IGNORED = (type, types.FunctionType, types.BuiltinFunctionType, types.MethodType, types.ModuleType)


def reachable(root: Any, stop: Collection[int] = ()) -> dict[str, Any]:
    """Every object reachable from `root` through attributes and containers, by its first path;
    the objects whose id is in `stop` are listed but not entered."""
    found: dict[str, Any] = {}
    seen: set[int] = set()
    todo: list[tuple[str, Any]] = [("engine", root)]
    while todo:
        path, value = todo.pop()
        if id(value) in seen or value is None or isinstance(value, (*IGNORED, enum.Enum, str, bytes)):
            continue
        if isinstance(value, int | float | bool | np.ndarray | np.generic):
            if isinstance(value, np.ndarray):
                seen.add(id(value))
                found[path] = value
            continue
        seen.add(id(value))
        found[path] = value
        if id(value) in stop or isinstance(value, np.random.Generator):
            continue
        todo.extend((path + name, item) for name, item in _attributes(value))
    return found


STREAMS_IN_PLAY: dict[str, dict[str, Any]] = {"drones": {"turn_limit_range": [6, 12]}}
"""Config overrides under which a game draws during play (drones' GD-7 draws each round's turn
limit from `drones.turns` only when given a range)."""


def generators(engine: Engine) -> dict[str, np.random.Generator]:
    return {p: v for p, v in reachable(engine).items() if isinstance(v, np.random.Generator)}


@parametrize_games
def test_clone_draws_from_streams_of_its_own(game: GameInfo) -> None:
    original, seats = started(game, **STREAMS_IN_PLAY.get(game.id, {}))
    play_live(original, seats, Trace(), PREFIX)
    streams = generators(original)
    if not streams:
        pytest.skip(f"{game.id}'s engine holds no random stream during play")
    clone = original.clone()
    copies = generators(clone)
    assert sorted(copies) == sorted(streams), "the clone holds other streams"
    for path, generator in streams.items():
        assert copies[path] is not generator, f"{path} is the original's own Generator"
        assert copies[path].bit_generator.state == generator.bit_generator.state, f"{path} moved"
    before = {path: copy.deepcopy(g.bit_generator.state) for path, g in streams.items()}
    for generator in copies.values():
        generator.integers(0, 2**62, size=1000)
    assert {path: g.bit_generator.state for path, g in streams.items()} == before


@parametrize_games
def test_clone_shares_nothing_mutable_but_what_it_declares(game: GameInfo) -> None:
    """The docstring of `clone` holds: apart from `clone_shared()` (and what those objects hold),
    no list, dict, set, array or object of the clone is the original's."""
    original, seats = started(game)
    play_live(original, seats, Trace(), PREFIX)
    shared = list(original.clone_shared())
    clone = original.clone()
    stop = {id(item) for item in shared}
    mine = reachable(original, stop)
    theirs = reachable(clone, stop)
    held = {id(item) for item in shared}
    for item in shared:
        assert any(value is item for value in theirs.values()), f"the clone lost shared {item!r:.60}"
    ids = {id(value) for value in mine.values()} - held
    overlap = [
        path
        for path, value in theirs.items()
        if id(value) in ids and not isinstance(value, tuple | frozenset)  # immutable: may be shared
    ]
    assert not overlap, f"the clone shares undeclared mutable objects: {sorted(overlap)[:5]}"


@parametrize_games
def test_clone_of_a_fresh_engine_and_a_finished_one(game: GameInfo) -> None:
    """A clone taken before the start exchange plays the whole match like its original; one taken
    after the last step ends the same way."""
    fresh = new_engine(game)
    twin = fresh.clone()
    first, first_seats = started_from(fresh, game)
    second, _ = started_from(twin, game)
    batches = play_live(first, first_seats, Trace())
    twin_trace = Trace()
    for batch in batches:
        assert feed(second, batch, twin_trace)
    feed(second, Batch(first_seats.take_owed(), []), Trace())
    finished = second.clone()
    assert finish(first) == finish(second) == finish(finished)


def started_from(engine: Engine, game: GameInfo) -> tuple[Engine, Seats]:
    seats = Seats(game, engine.start_requests())
    engine.apply_start(copy.deepcopy(seats.start_replies))
    return engine, seats
