"""The conformance suite: what every registered game must satisfy (DESIGN, *Conventions*).

Parametrized over `botarena.core.registry.all_games()`, so a game is covered as soon as it registers:

- random legal play (`game.random_bot` in every seat) runs to the end with every verdict OK, for the
  smallest and the largest number of seats;
- the same seed gives the byte-identical replay (match id, timings and logs aside), and a written
  replay re-runs identically through `verify_replay`;
- the starter bots play each other without a single failed exchange;
- observations hide what the spec hides: no request carries the match seed, each seat's `start` has
  its own `bot_seed` and no request to a seat carries another seat's; an engine never reads back a
  payload it handed out (a bot that scribbles over its observations changes nothing); and the game's
  own check, `game.hidden_info_check` (a callable taking the GameInfo), when it has one.
  GameOfDrones' check lives here until the drones package registers it (`DRONES_HIDDEN_INFO_CHECK`).

A game may shrink its matches for this suite with `game.test_overrides`, a dict of
config overrides (the default preset is used otherwise).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import orjson
import pytest

from botarena.bots.inprocess import PythonBot
from botarena.core.game import GameInfo
from botarena.core.protocol import MessageType
from botarena.core.registry import all_games
from botarena.core.replay import Replay, read_replay, write_replay
from botarena.core.rng import bot_seed
from botarena.runner import run_match
from botarena.runner.verify import verify_replay

GAMES = all_games()
BIG_SEED = 0xA5C3_9E37_79B9_7F4B  # 64 bits, so it cannot turn up in a payload by accident


def seat_counts(game: GameInfo) -> list[int]:
    return sorted({game.min_players, game.max_players})


def game_config(game: GameInfo, **extra: Any) -> Any:
    overrides = {**game.test_overrides, **extra}
    return game.config(overrides=overrides or None)


def play(
    game: GameInfo, factories: list[Callable[[], Any]], seed: int = BIG_SEED, config: Any = None
) -> Replay:
    bots = [PythonBot(factory, f"seat{seat}") for seat, factory in enumerate(factories)]
    return run_match(game, bots, config=config or game_config(game), seed=seed).replay


def exchanges(replay: Replay) -> Iterator[dict[str, Any]]:
    yield replay.start
    yield from replay.steps
    yield replay.end


def statuses_seen(replay: Replay) -> set[str]:
    return {verdict[0] for exchange in exchanges(replay) for verdict in exchange["verdicts"]}


def blanked(replay: Replay) -> bytes:
    """The replay's JSON with what may differ between two runs blanked: the match id, timings, logs."""
    data = orjson.loads(replay.dumps())
    data["match_id"] = ""
    data["time_used_ms"] = []
    data["logs"] = []
    for section in [data["start"], *data["steps"], data["end"]]:
        for reply in section["replies"]:
            reply["ms"] = 0
    return orjson.dumps(data)


def game_ids(game: GameInfo) -> str:
    return game.id


parametrize_games = pytest.mark.parametrize("game", GAMES, ids=game_ids)


# -- random legal play ---------------------------------------------------------------------------------


@parametrize_games
def test_random_legal_play_to_the_end(game: GameInfo) -> None:
    for seats in seat_counts(game):
        for seed in (1, BIG_SEED):
            replay = play(game, [game.random_bot] * seats, seed=seed)
            assert replay.steps, "the game ended before any decision"
            for index, step in enumerate(replay.steps, start=1):
                assert [v[0] for v in step["verdicts"]] == ["OK"] * len(step["verdicts"]), f"step {index}"
            assert statuses_seen(replay) == {"OK"}
            assert len(replay.result["ranks"]) == seats
            assert sorted(replay.result["ranks"])[0] == 1
            assert replay.keyframes[0]["step"] == 0 and replay.keyframes[-1]["step"] == len(replay.steps)


@parametrize_games
def test_same_seed_same_replay(game: GameInfo) -> None:
    for seats in seat_counts(game):
        one = play(game, [game.random_bot] * seats)
        two = play(game, [game.random_bot] * seats)
        assert one.match_id != two.match_id
        assert blanked(one) == blanked(two)
        other = play(game, [game.random_bot] * seats, seed=BIG_SEED + 1)
        assert blanked(other) != blanked(one)  # and the seed matters (at least to the bots)


@parametrize_games
def test_written_replay_reruns_identically(game: GameInfo, tmp_path: Path) -> None:
    for seats in seat_counts(game):
        replay = play(game, [game.random_bot] * seats)
        back = read_replay(write_replay(replay, tmp_path / f"{game.id}-{seats}.json.gz"))
        assert back.dumps() == replay.dumps()
        report = verify_replay(back)
        assert report.identical, str(report)
        assert report.steps_checked == len(replay.steps)


# -- starter bots --------------------------------------------------------------------------------------


def starter_lineups(game: GameInfo) -> list[tuple[str, ...]]:
    """Every ordered pair of starter bots (filled up by rotation for games of more seats)."""
    names = sorted(game.starter_bots)
    lineups = []
    for first, second in itertools.product(names, repeat=2):
        rest = names[names.index(second) + 1 :] + names
        lineup = (first, second, *rest)[: game.min_players]
        lineups.append(lineup)
    return lineups


@parametrize_games
def test_starter_bots_play_each_other(game: GameInfo) -> None:
    assert game.starter_bots, f"{game.id} has no starter bots"
    for lineup in starter_lineups(game):
        replay = play(game, [game.starter_bots[name] for name in lineup], seed=7)
        assert statuses_seen(replay) == {"OK"}, lineup
        assert len(replay.result["ranks"]) == len(lineup)
    # one of them re-runs identically too
    assert verify_replay(replay).identical


# -- hidden information --------------------------------------------------------------------------------


class Recorder:
    """Wraps a bot and records (type, payload) of every request, as sent (before the bot sees it)."""

    def __init__(self, inner: Any, log: list[tuple[MessageType, Any]]) -> None:
        self.inner = inner
        self.log = log

    def _inner(self, name: str) -> Callable[[Any], Any] | None:
        method = getattr(self.inner, name, None)
        if method is None and name == "act" and callable(self.inner):
            return self.inner  # type: ignore[no-any-return]
        return method  # type: ignore[no-any-return]

    def _ask(self, kind: MessageType, name: str, payload: Any) -> Any:
        self.log.append((kind, orjson.loads(orjson.dumps(payload))))
        method = self._inner(name)
        return {} if method is None else method(payload)

    def setup(self, payload: Any) -> Any:
        return self._ask(MessageType.START, "setup", payload)

    def act(self, payload: Any) -> Any:
        return self._ask(MessageType.TURN, "act", payload)

    def end(self, payload: Any) -> Any:
        return self._ask(MessageType.END, "end", payload)


def recording(factory: Callable[[], Any], log: list[tuple[MessageType, Any]]) -> Callable[[], Any]:
    return lambda: Recorder(factory(), log)


def all_values(value: Any) -> Iterator[Any]:
    """Every scalar in a JSON value, dict keys included."""
    if isinstance(value, dict):
        for key, item in value.items():
            yield key
            yield from all_values(item)
    elif isinstance(value, list):
        for item in value:
            yield from all_values(item)
    else:
        yield value


def contains_number(payload: Any, number: int) -> bool:
    text = str(number)
    for value in all_values(payload):
        if type(value) is int and value == number:
            return True
        if isinstance(value, str) and text in value:
            return True
    return False


@parametrize_games
def test_no_request_carries_the_match_seed_or_another_seats_bot_seed(game: GameInfo) -> None:
    for seats in seat_counts(game):
        logs: list[list[tuple[MessageType, Any]]] = [[] for _ in range(seats)]
        play(game, [recording(game.random_bot, logs[s]) for s in range(seats)])
        seeds = [bot_seed(BIG_SEED, game.id, seat) for seat in range(seats)]
        secrets = [BIG_SEED, BIG_SEED & 0xFFFFFFFF, BIG_SEED >> 32]
        for seat, log in enumerate(logs):
            kinds = [kind for kind, _ in log]
            assert kinds[0] is MessageType.START and kinds.count(MessageType.START) == 1
            start = log[0][1]
            assert start["bot_seed"] == seeds[seat]
            for kind, payload in log:
                for secret in secrets:
                    assert not contains_number(payload, secret), f"seat {seat} {kind}: the match seed"
                for other, other_seed in enumerate(seeds):
                    if other != seat:
                        assert not contains_number(payload, other_seed), (
                            f"seat {seat} sees seat {other}'s bot_seed"
                        )


def scribble(value: Any) -> None:
    """Overwrite a JSON value in place, as a careless bot might."""
    if isinstance(value, dict):
        for key in list(value):
            if isinstance(value[key], dict | list):
                scribble(value[key])
            else:
                value[key] = "scribbled"
        value["scribbled"] = True
    elif isinstance(value, list):
        for item in value:
            scribble(item)
        value.append("scribbled")


class Scribbler(Recorder):
    """Answers as the inner bot does, then scribbles over the request it was given."""

    def _ask(self, kind: MessageType, name: str, payload: Any) -> Any:
        method = self._inner(name)
        reply = {} if method is None else method(payload)
        reply = orjson.loads(orjson.dumps(reply))
        scribble(payload)
        return reply


@parametrize_games
def test_engines_never_read_back_a_payload(game: GameInfo) -> None:
    """In-process bots get the engine's payload objects without a copy; changing them must change
    nothing in the match (so they must not be the engine's state)."""
    for seats in seat_counts(game):
        clean = play(game, [game.random_bot] * seats)
        messy = play(game, [lambda: Scribbler(game.random_bot(), [])] * seats)
        assert blanked(messy) == blanked(clean)


@parametrize_games
def test_game_hidden_information_check(game: GameInfo) -> None:
    check = game.hidden_info_check
    if check is None:
        check = LOCAL_HIDDEN_INFO_CHECKS.get(game.id)
    if check is None:
        pytest.skip(f"{game.id} registers no hidden_info_check")
    assert callable(check)
    check(game)


# -- GameOfDrones' check (spec 4.5), until the drones package registers it ------------------------------


class _NeverAttacks:
    """Round-1 opponents for the drones check: each plays its own way and never attacks."""

    def __init__(self, style: str) -> None:
        self.style = style

    def act(self, obs: dict[str, Any]) -> Any:
        capacity = obs["producers"]
        if self.style == "producers":
            return {"newProducers": capacity}
        if self.style == "soldiers":
            return {"newSoldiers": capacity}
        if self.style == "split":
            return {"newProducers": capacity // 2, "newSoldiers": capacity - capacity // 2}
        if self.style == "overask":
            return {"newProducers": 10 * capacity + 3, "newSoldiers": 7}
        if self.style == "garbage":
            return "not an action"
        return {"error": "I give up"}


class _Peaceful:
    """The drones subject: the game's random bot, with its attacks taken out (so round 1 runs to its
    turn limit whatever happens)."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner

    def setup(self, payload: Any) -> Any:
        return self.inner.setup(payload)

    def act(self, obs: dict[str, Any]) -> Any:
        return {**self.inner.act(obs), "launchAttack": False}


def drones_hidden_info_check(game: GameInfo) -> None:
    """Spec 4.5: during a round a bot sees nothing of the other side. Seat `s` plays the same bot
    with the same seed against opponents that play very differently (and never attack, so round 1
    runs to its turn limit); its turn observations in round 1 must be identical turn by turn."""
    config = game.config(overrides={"rounds": 2, "turn_limit": 8})
    styles = ["producers", "soldiers", "split", "overask", "garbage", "error"]
    for seat in (0, 1):
        views: list[list[Any]] = []
        for style in styles:
            log: list[tuple[MessageType, Any]] = []
            subject = recording(lambda: _Peaceful(game.random_bot()), log)
            opponent = lambda s=style: _NeverAttacks(s)  # noqa: E731
            factories = [subject, opponent] if seat == 0 else [opponent, subject]
            play(game, factories, seed=12345, config=config)
            views.append([payload for kind, payload in log if kind is MessageType.TURN])
        reference = [obs for obs in views[0] if obs["round"] == 1]
        assert len(reference) == 8
        for style, view in zip(styles, views, strict=True):
            round_one = [obs for obs in view if obs["round"] == 1]
            assert len(round_one) == len(reference), style
            for turn, (seen, expected) in enumerate(zip(round_one, reference, strict=True), start=1):
                assert seen == expected, f"seat {seat}, round 1 turn {turn}, opponent {style}"
        # after the round the opponent's counts do show (4.3): the check can see a difference
        round_two = [next(obs for obs in view if obs["round"] == 2) for view in views]
        assert any(first != round_two[0] for first in round_two[1:])


DRONES_HIDDEN_INFO_CHECK = drones_hidden_info_check
LOCAL_HIDDEN_INFO_CHECKS: dict[str, Callable[[GameInfo], None]] = {"drones": drones_hidden_info_check}
