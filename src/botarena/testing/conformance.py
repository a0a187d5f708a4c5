"""The conformance checks: what every game must satisfy to play on the platform (DESIGN, *Conventions*).

Each check is a function `check_<name>(game: GameInfo) -> None` that plays short matches of the game
with in-process bots (on the game's `test_overrides`) and raises AssertionError naming the check, the
rule it enforces and what broke it. `check_game(game)` runs them all, in `CHECKS` order.
"""

from __future__ import annotations

import copy
import functools
import itertools
import pickle
import re
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import orjson

from botarena.core.config import config_to_dict
from botarena.core.game import Dynamics, Engine, GameInfo, Information
from botarena.core.protocol import MessageType, Reply
from botarena.core.registry import UnknownGameError, get_game
from botarena.core.replay import Replay, read_replay, verdict_json, write_replay
from botarena.core.rng import bot_seed
from botarena.runner.verify import first_difference, verify_replay
from botarena.testing.play import (
    BIG_SEED,
    blanked,
    checks_config,
    exchanges,
    play,
    seat_counts,
    statuses_seen,
)
from botarena.testing.spies import NOT_ACTIONS, BadReplier, Log, recording, scribbling

Check = Callable[[GameInfo[Any]], None]

CHECKS: dict[str, Check] = {}
"""Every check by name, in the order `check_game` runs them."""
RULES: dict[str, str] = {}
"""The rule each check enforces, by check name."""


def require(condition: bool, message: str) -> None:
    """Raise AssertionError(message) unless `condition` (checks must not vanish under `python -O`)."""
    if not condition:
        raise AssertionError(message)


def conformance_check(rule: str) -> Callable[[Check], Check]:
    """Register a check with the rule it enforces; its AssertionError names the game, check and rule."""

    def register(function: Check) -> Check:
        name = function.__name__.removeprefix("check_")

        @functools.wraps(function)
        def run(game: GameInfo[Any]) -> None:
            try:
                function(game)
            except AssertionError as error:
                raise AssertionError(f"{game.id}: check {name} failed: {rule}\n  {error}") from error
            except Exception as error:  # the game's code raised: a failure of the check, named as such
                detail = f"the game raised {error!r}"
                raise AssertionError(f"{game.id}: check {name} failed: {rule}\n  {detail}") from error

        CHECKS[name] = run
        RULES[name] = rule
        return run

    return register


# -- what the game declares --------------------------------------------------------------------------


@conformance_check(
    "GameInfo is consistent: registered under its id, 1 <= min_players <= max_players, typed dynamics "
    "and information, a hidden_info_check when information is HIDDEN, starter bots, a config with "
    "overage_bank_ms for the default preset and the test overrides, secret_config_keys that are config keys"
)
def check_declaration(game: GameInfo[Any]) -> None:
    require(1 <= game.min_players <= game.max_players, "need 1 <= min_players <= max_players")
    require(isinstance(game.dynamics, Dynamics), f"dynamics {game.dynamics!r} is not a Dynamics")
    require(isinstance(game.information, Information), f"information {game.information!r} is no Information")
    if game.information is Information.HIDDEN:
        require(game.hidden_info_check is not None, "information is HIDDEN but there is no hidden_info_check")
    require(bool(game.starter_bots), "no starter_bots")
    require(game.keyframe_every >= 1, f"keyframe_every is {game.keyframe_every}")
    for what, config in (("default preset", game.config()), ("test_overrides", checks_config(game))):
        bank = getattr(config, "overage_bank_ms", None)
        require(isinstance(bank, int) and bank >= 0, f"the config of the {what} has no overage_bank_ms >= 0")
    # a misspelt secret key would be shown by the server while a tournament is played
    unknown = set(game.secret_config_keys) - set(config_to_dict(game.config()))
    require(not unknown, f"secret_config_keys {sorted(unknown)} are not config keys")
    # last: a replay is re-run (verify_replay) by the game id it names
    try:
        registered = get_game(game.id)
    except UnknownGameError as error:
        raise AssertionError(f"not registered in botarena.core.registry ({error})") from None
    require(registered is game, f"get_game({game.id!r}) returns another GameInfo")


# -- playing to the end ------------------------------------------------------------------------------


@conformance_check("random legal play (the game's random_bot in every seat) ends with every verdict OK")
def check_random_play(game: GameInfo[Any]) -> None:
    for seats in seat_counts(game):
        for seed in (1, BIG_SEED):
            replay = play(game, [game.random_bot] * seats, seed=seed)
            where = f"{seats} seats, seed {seed}"
            require(bool(replay.steps), f"{where}: the game ended before any decision")
            for index, exchange in enumerate(exchanges(replay)):
                statuses = [verdict[0] for verdict in exchange["verdicts"]]
                require(statuses == ["OK"] * len(statuses), f"{where}: exchange {index} has {statuses}")
            require(len(replay.result["ranks"]) == seats, f"{where}: result ranks are not one per seat")
            require(min(replay.result["ranks"]) == 1, f"{where}: no seat ranks 1")
            first, last = replay.keyframes[0]["step"], replay.keyframes[-1]["step"]
            require(first == 0 and last == len(replay.steps), f"{where}: keyframes from {first} to {last}")


@conformance_check(
    "each seat gets exactly one start request first, then turn requests only, then one end request"
)
def check_exchange(game: GameInfo[Any]) -> None:
    seats = game.min_players
    logs: list[Log] = [[] for _ in range(seats)]
    replay = play(game, [recording(game.random_bot, logs[seat]) for seat in range(seats)])
    for seat, log in enumerate(logs):
        kinds = [kind for kind, _ in log]
        require(kinds[:1] == [MessageType.START], f"seat {seat}'s first request is {kinds[:1]}")
        require(kinds[-1:] == [MessageType.END], f"seat {seat}'s last request is {kinds[-1:]}")
        middle = set(kinds[1:-1])
        require(middle <= {MessageType.TURN}, f"seat {seat} gets {sorted(middle)} between start and end")
    require(any(len(log) > 2 for log in logs), "no seat was asked a single turn")
    for name in ("start", "end"):
        section = getattr(replay, name)
        replied = [reply["seat"] for reply in section["replies"]]
        require(replied == list(range(seats)), f"the {name} exchange has replies of seats {replied}")
        require(len(section["verdicts"]) == seats, f"the {name} exchange has not one verdict per seat")


@conformance_check("the starter bots play each other (every ordered pair) without one failed exchange")
def check_starter_bots(game: GameInfo[Any]) -> None:
    require(bool(game.starter_bots), "no starter_bots")
    replay = None
    for lineup in starter_lineups(game):
        replay = play(game, [game.starter_bots[name] for name in lineup], seed=7)
        require(statuses_seen(replay) == {"OK"}, f"{lineup}: statuses {sorted(statuses_seen(replay))}")
        require(len(replay.result["ranks"]) == len(lineup), f"{lineup}: result ranks not one per seat")
    report = verify_replay(replay) if replay is not None else None
    require(report is not None and report.identical, f"the last starter match does not re-run: {report}")


def starter_lineups(game: GameInfo[Any]) -> list[tuple[str, ...]]:
    """Every ordered pair of starter bots (filled up by rotation for games of more seats)."""
    names = sorted(game.starter_bots)
    lineups = []
    for first, second in itertools.product(names, repeat=2):
        rest = names[names.index(second) + 1 :] + names
        lineups.append((first, second, *rest)[: game.min_players])
    return lineups


@conformance_check(
    "a bad reply in any seat (junk, a wrong type, a bot's exception, at start, turns and end) becomes "
    "a recorded status: a turn's reply that is no action is not a silent OK, an exception is CRASHED; "
    "the match ends, the other seats stay OK, and the replay re-runs"
)
def check_bad_replies(game: GameInfo[Any]) -> None:
    seats = max(game.min_players, min(2, game.max_players))
    for bad in range(seats):
        factories = [BadReplier if seat == bad else game.random_bot for seat in range(seats)]
        try:
            replay = play(game, factories)
        except Exception as error:
            raise AssertionError(f"seat {bad} answering garbage crashes the match: {error!r}") from error
        require(len(replay.result["ranks"]) == seats, f"seat {bad} bad: result ranks not one per seat")
        for index, exchange in enumerate(exchanges(replay)):
            for reply, verdict in zip(exchange["replies"], exchange["verdicts"], strict=True):
                _judge_bad_reply(
                    reply,
                    verdict,
                    bad,
                    f"seat {bad} bad, exchange {index}",
                    turn=exchange.get("record") is not None,
                )
        report = verify_replay(replay)
        require(report.identical, f"seat {bad} answering garbage: the replay does not re-run: {report}")


def _judge_bad_reply(reply: dict[str, Any], verdict: list[Any], bad: int, where: str, turn: bool) -> None:
    """One reply of `check_bad_replies`' match and its verdict."""
    if reply["seat"] != bad:
        require(verdict[0] == "OK", f"{where}: seat {reply['seat']}, which plays well, is {verdict}")
    elif reply["status"] == "CRASHED":
        require(verdict[0] == "CRASHED", f"{where}: a bot's exception is judged {verdict}")
    elif turn and reply["status"] == "OK" and reply["payload"] in NOT_ACTIONS:
        silent = verdict[0] == "OK" and (len(verdict) < 4 or not verdict[3])
        require(not silent, f"{where}: the reply {reply['payload']!r} is judged OK without a warning")


# -- determinism and replays -------------------------------------------------------------------------


@conformance_check(
    "the same seed gives the byte-identical replay (match id, timings and logs aside), another seed "
    "another one"
)
def check_determinism(game: GameInfo[Any]) -> None:
    for seats in seat_counts(game):
        one = play(game, [game.random_bot] * seats)
        two = play(game, [game.random_bot] * seats)
        difference = first_difference(orjson.loads(blanked(one)), orjson.loads(blanked(two)))
        require(difference is None, f"{seats} seats, the same seed twice: {difference}")
        other = play(game, [game.random_bot] * seats, seed=BIG_SEED + 1)
        require(blanked(other) != blanked(one), f"{seats} seats: seeds {BIG_SEED} and {BIG_SEED + 1} agree")


@conformance_check("a replay written to a file reads back unchanged and re-runs identically (verify_replay)")
def check_replay_reruns(game: GameInfo[Any]) -> None:
    with tempfile.TemporaryDirectory() as folder:
        for seats in seat_counts(game):
            replay = play(game, [game.random_bot] * seats)
            back = read_replay(write_replay(replay, Path(folder) / f"{game.id}-{seats}.json.gz"))
            require(back.dumps() == replay.dumps(), f"{seats} seats: the replay file reads back changed")
            report = verify_replay(back)
            require(report.identical, f"{seats} seats: {report}")
            require(report.steps_checked == len(replay.steps), f"{seats} seats: {report}")


@conformance_check(
    "every engine survives copy.deepcopy and pickle at any point of a game, and the copy plays on "
    "identically (same records, verdicts, keyframes and result)"
)
def check_engine_copies(game: GameInfo[Any]) -> None:
    seats = game.min_players
    replay = play(game, [game.random_bot] * seats)
    steps = len(replay.steps)
    points = sorted({0, steps // 2, max(steps - 1, 0)})
    engine = _started_engine(game, replay)
    for index, recorded in enumerate(replay.steps, start=1):
        if index - 1 in points:
            for how, clone in _clones(engine):
                _play_on(clone, replay, index, f"{how} after step {index - 1}")
        _play_step(engine, replay, index, recorded, "the original")
    _finish(engine, replay, "the original")


@conformance_check(
    "next_requests() is a query: asked twice before apply() it gives the same requests, and the game "
    "plays on as if asked once (same records, verdicts, keyframes and result)"
)
def check_requests_are_queries(game: GameInfo[Any]) -> None:
    seats = game.min_players
    replay = play(game, [game.random_bot] * seats)
    engine = _started_engine(game, replay)
    for index, recorded in enumerate(replay.steps, start=1):
        _play_step(engine, replay, index, recorded, "asked twice", ask_twice=True)
    _finish(engine, replay, "asked twice")


def _ask_twice(engine: Engine[Any], who: str) -> None:
    """`next_requests()` twice in a row: the second answer must be the first's."""
    first, second = (orjson.loads(orjson.dumps(engine.next_requests())) for _ in range(2))
    found = first_difference(first, second)
    require(found is None, f"{who}: next_requests() asked again answers differently: {found}")


def _clones(engine: Engine[Any]) -> Iterator[tuple[str, Engine[Any]]]:
    try:
        yield "copy.deepcopy", copy.deepcopy(engine)
    except Exception as error:
        raise AssertionError(f"copy.deepcopy(engine) raises {error!r}") from error
    try:
        yield "pickle", pickle.loads(pickle.dumps(engine))
    except Exception as error:
        raise AssertionError(f"pickle.dumps(engine) raises {error!r}") from error


def _started_engine(game: GameInfo[Any], replay: Replay) -> Engine[Any]:
    """A fresh engine of the replay's match, through its start exchange."""
    engine = game.new_engine(game.config("default", replay.config), replay.seed, len(replay.players))
    engine.set_player_names([str(player.get("name", "")) for player in replay.players])
    engine.start_requests()
    engine.apply_start([Reply.from_json(reply) for reply in replay.start["replies"]])
    return engine


def _play_step(
    engine: Engine[Any],
    replay: Replay,
    index: int,
    recorded: dict[str, Any],
    who: str,
    ask_twice: bool = False,
) -> None:
    """Feed step `index`'s recorded replies to `engine`; its record and verdicts must be the replay's.
    With `ask_twice`, the step's requests are asked for twice more before the replies go in."""
    engine.restore_external_inputs(recorded.get("record"))
    for entry in replay.late:
        if entry["after_step"] == index - 1:
            engine.late_reply(Reply.from_json(entry["reply"]))
    if ask_twice:
        _ask_twice(engine, f"{who}, step {index}")
    require(bool(engine.next_requests()), f"{who}: the game is over before step {index}")
    step = engine.apply([Reply.from_json(reply) for reply in recorded["replies"]])
    found = first_difference(recorded["record"], orjson.loads(orjson.dumps(step.record)))
    require(found is None, f"{who}, step {index}: record {found}")
    verdicts = [verdict_json(verdict) for verdict in step.verdicts]
    found = first_difference(recorded["verdicts"], orjson.loads(orjson.dumps(verdicts)))
    require(found is None, f"{who}, step {index}: verdicts {found}")


def _play_on(engine: Engine[Any], replay: Replay, first: int, who: str) -> None:
    """Play `engine` from step `first` to the end of the replay, checking every step and the result."""
    for index in range(first, len(replay.steps) + 1):
        _play_step(engine, replay, index, replay.steps[index - 1], who)
    _finish(engine, replay, who)


def _finish(engine: Engine[Any], replay: Replay, who: str) -> None:
    for entry in replay.late:
        if entry["after_step"] == len(replay.steps):
            engine.late_reply(Reply.from_json(entry["reply"]))
    require(not engine.next_requests(), f"{who}: the game goes on after the replay's last step")
    found = first_difference(replay.keyframes[-1]["state"], orjson.loads(orjson.dumps(engine.keyframe())))
    require(found is None, f"{who}: last keyframe {found}")
    found = first_difference(replay.result, orjson.loads(orjson.dumps(engine.result().to_json())))
    require(found is None, f"{who}: result {found}")


@conformance_check(
    "every keyframe (engine.keyframe() after the start and after every step) is JSON: orjson writes "
    "it and reads back what it wrote"
)
def check_keyframes_json(game: GameInfo[Any]) -> None:
    for step, keyframe in _every_keyframe(game):
        try:
            text = orjson.dumps(keyframe)
        except TypeError as error:
            raise AssertionError(f"the keyframe after step {step} is not JSON: {error}") from None
        require(orjson.dumps(orjson.loads(text)) == text, f"the keyframe after step {step} changes in JSON")


@conformance_check("text_renderer draws every keyframe, as the replay stores it, as a str")
def check_text_renderer(game: GameInfo[Any]) -> None:
    render = game.text_renderer
    for step, keyframe in _every_keyframe(game):
        try:
            text = render(orjson.loads(orjson.dumps(keyframe)))
        except Exception as error:
            raise AssertionError(f"the keyframe after step {step}: {error!r}") from error
        require(isinstance(text, str) and bool(text), f"the keyframe after step {step} gives {type(text)}")


def _every_keyframe(game: GameInfo[Any]) -> list[tuple[int, Any]]:
    """(step, engine.keyframe()) after the start and after every step of a random game."""
    frames: list[tuple[int, Any]] = []
    replay = play(
        game,
        [game.random_bot] * game.min_players,
        on_step=lambda index, _record, engine: frames.append((index, engine.keyframe())),
    )
    return [(0, replay.keyframes[0]["state"]), *frames]


@conformance_check(
    "dynamics matches the engine's batches: ALTERNATING asks one seat per batch, SIMULTANEOUS asks "
    "several seats in a batch"
)
def check_dynamics(game: GameInfo[Any]) -> None:
    seats = max(game.min_players, min(2, game.max_players))
    replay = play(game, [game.random_bot] * seats)
    asked = [{reply["seat"] for reply in step["replies"]} for step in replay.steps]
    if game.dynamics is Dynamics.ALTERNATING:
        several = next((index for index, group in enumerate(asked, 1) if len(group) > 1), None)
        require(several is None, f"ALTERNATING, but step {several} asks seats {sorted(asked[several or 1])}")
    elif seats > 1:
        require(any(len(group) > 1 for group in asked), "SIMULTANEOUS, but every batch asks a single seat")


# -- what a seat may see -----------------------------------------------------------------------------


_DIGITS = re.compile(r"\d+")


class NumbersShown:
    """The numbers a JSON value shows: its integers, and the digit runs of its strings (dict keys
    included). Built in one walk, so checking many numbers against one payload stays cheap."""

    def __init__(self, value: Any) -> None:
        self.integers: set[int] = set()
        self.digit_runs: list[str] = []
        stack = [value]
        while stack:
            item = stack.pop()
            if isinstance(item, dict):
                stack.extend(item)
                stack.extend(item.values())
            elif isinstance(item, list):
                stack.extend(item)
            elif type(item) is int:
                self.integers.add(item)
            elif isinstance(item, str):
                self.digit_runs.extend(_DIGITS.findall(item))

    def shows(self, number: int) -> bool:
        """Whether `number` is one of the integers, or its digits are inside a string."""
        if number in self.integers:
            return True
        text = str(number)
        return any(text in run for run in self.digit_runs)


@conformance_check(
    "bot seeds never leak: each seat's start carries its own bot_seed, and no request carries the "
    "match seed or another seat's bot_seed"
)
def check_seeds_private(game: GameInfo[Any]) -> None:
    secrets = [BIG_SEED, BIG_SEED & 0xFFFFFFFF, BIG_SEED >> 32]
    for seats in seat_counts(game):
        logs: list[Log] = [[] for _ in range(seats)]
        play(game, [recording(game.random_bot, logs[seat]) for seat in range(seats)])
        seeds = [bot_seed(BIG_SEED, game.id, seat) for seat in range(seats)]
        for seat, log in enumerate(logs):
            start = log[0][1]
            own = start.get("bot_seed") if isinstance(start, dict) else None
            require(own == seeds[seat], f"seat {seat}'s start has bot_seed {own}, not {seeds[seat]}")
            others = [(other, other_seed) for other, other_seed in enumerate(seeds) if other != seat]
            for kind, payload in log:
                shown = NumbersShown(payload)
                if any(shown.shows(secret) for secret in secrets):
                    raise AssertionError(f"seat {seat}'s {kind} shows the match seed")
                leaked = next((other for other, other_seed in others if shown.shows(other_seed)), None)
                require(leaked is None, f"seat {seat}'s {kind} shows seat {leaked}'s bot_seed")


@conformance_check(
    "payloads are fresh: in-process bots get the engine's payloads without a copy, so an engine never "
    "reads back what it handed out (bots that scribble over their requests change nothing)"
)
def check_payloads_fresh(game: GameInfo[Any]) -> None:
    for seats in seat_counts(game):
        clean = play(game, [game.random_bot] * seats)
        messy = play(game, [scribbling(game.random_bot)] * seats)
        difference = first_difference(orjson.loads(blanked(clean)), orjson.loads(blanked(messy)))
        require(difference is None, f"{seats} seats, scribbling bots change the match: {difference}")


@conformance_check("the game's own hidden_info_check (when declared): no payload shows what the rules hide")
def check_hidden_info(game: GameInfo[Any]) -> None:
    if game.hidden_info_check is not None:
        game.hidden_info_check(game)


def check_game(game: GameInfo[Any], skip: tuple[str, ...] = ()) -> None:
    """Run every check of `CHECKS` on `game` (but those named in `skip`), in order; the first that
    fails raises AssertionError naming the game, the check, its rule and what broke it."""
    unknown = set(skip) - set(CHECKS)
    if unknown:
        raise ValueError(f"no such checks: {', '.join(sorted(unknown))} (known: {', '.join(CHECKS)})")
    for name, check in CHECKS.items():
        if name not in skip:
            check(game)
