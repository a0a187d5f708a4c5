"""`botarena replay FILE --feed STEP --seat SEAT --bot SPEC` (issue 15, item 7).

For every game a short match of in-process starter bots writes a replay; a step's recorded request of
each seat is then fed (a) to the same starter bot, whose reply must equal the recorded one, (b) to a
subprocess bot and (c) to an HTTP bot, which write what they receive to a file: it must be exactly the
requests the engine regenerates from the replay (the seat's start request, with `--history` every
earlier one, then the step's). Bad arguments are one line on stderr and exit code 2.
"""

from __future__ import annotations

import asyncio
import json
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson
import pytest
from aiohttp import web

from botarena.bots.inprocess import PythonBot
from botarena.bots.subprocess import block_thread_signals
from botarena.cli import main
from botarena.core.protocol import Request
from botarena.core.registry import all_games, game_ids, get_game
from botarena.core.replay import Replay, read_replay, write_replay
from botarena.runner import run_match
from botarena.runner.verify import ReplayRerun

# The games are the registry's: a game registered anywhere (an entry point, BOTARENA_EXTRA_GAMES) is
# fed too, with its `test_overrides` and its first starter bot. The two tables below only make the
# built-in games' matches shorter and pick a more talkative starter: a new game needs no line here.
SHORTER: dict[str, dict[str, Any]] = {
    "craftingquest": {"width": 50, "height": 50, "rounds": 2},
    "datspulse": {"turns": 3, "map_hexes_per_team": 300},
    "devops": {"turn_limit": 4},
    "domains": {"number_of_rounds": 4, "board_height": 20, "board_width": 20},
    "drones": {"rounds": 2, "turn_limit": 3},
    "rps": {"rounds": 3},
}
PREFERRED_STARTER = {
    "craftingquest": "wanderer",
    "datspulse": "forager",
    "devops": "starter",
    "domains": "surveyor",
    "drones": "zergy",
    "rps": "cycler",
}
GAMES = game_ids()


def starter_of(game_id: str) -> str:
    """The starter bot that plays (and is fed) `game_id`'s replay."""
    return PREFERRED_STARTER.get(game_id) or next(iter(get_game(game_id).starter_bots))


# A JSON-lines bot that appends every line it receives to the file named by its argument and answers
# with an empty payload (what it answers does not matter here: what it receives does).
RECORDING_BOT = """
import json, sys
out = open(sys.argv[1], "a", encoding="utf-8")
for line in sys.stdin:
    out.write(line if line.endswith("\\n") else line + "\\n")
    out.flush()
    print(json.dumps({"id": json.loads(line)["id"], "payload": {}}), flush=True)
"""


@pytest.fixture(scope="module")
def replays(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """A short match of each game between two in-process starter bots, written as a replay."""
    folder = tmp_path_factory.mktemp("feed-replays")
    made: dict[str, Path] = {}
    for game in all_games():
        overrides = {**game.test_overrides, **SHORTER.get(game.id, {})}
        name = starter_of(game.id)
        bots = [PythonBot(game.starter_bots[name], name=name) for _ in range(2)]
        run = run_match(game, bots, config=game.config("default", overrides), seed=11)
        made[game.id] = write_replay(run.replay, folder / f"{game.id}.json.gz")
    return made


def step_of(replay: Replay, seat: int) -> int:
    """The second step that asks `seat` (the first if only one does): earlier requests exist."""
    steps = [
        index
        for index, step in enumerate(replay.steps, start=1)
        if any(reply["seat"] == seat for reply in step["replies"])
    ]
    assert steps, f"seat {seat} was never asked"
    return steps[1] if len(steps) > 1 else steps[0]


def regenerated(replay: Replay, step: int, seat: int, history: bool) -> list[Request]:
    """The requests the seat's bot gets for `--feed step`, regenerated from the replay by the engine."""
    rerun = ReplayRerun(replay)
    sent = [r for r in rerun.start_requests() if r.seat == seat]
    rerun.apply_start()
    for _ in range(step - 1):
        pending = rerun.next_step()
        if history:
            sent += [r for r in pending.requests if r.seat == seat]
        rerun.apply_step()
    sent += [r for r in rerun.next_step().requests if r.seat == seat]
    return sent


def canon(value: Any) -> Any:
    return orjson.loads(orjson.dumps(value, option=orjson.OPT_SERIALIZE_NUMPY))


def assert_exact(envelopes: list[dict[str, Any]], expected: list[Request], replay: Replay, seat: int) -> None:
    """Each envelope is its regenerated request, for the recorded match and seat."""
    assert len(envelopes) == len(expected)
    for envelope, request in zip(envelopes, expected, strict=True):
        assert envelope["type"] == request.type.value
        assert envelope["match"] == replay.match_id
        assert envelope["seat"] == seat
        assert envelope["turn"] == request.turn
        assert envelope["payload"] == canon(request.payload)
    assert [e["id"] for e in envelopes] == list(range(1, len(envelopes) + 1))


def feed(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(["replay", *args])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("seat", [0, 1])
@pytest.mark.parametrize("game_id", GAMES)
def test_the_same_starter_bot_gives_the_recorded_reply(
    replays: dict[str, Path], capsys: pytest.CaptureFixture[str], game_id: str, seat: int
) -> None:
    """(a) With its history the same deterministic bot is where it was in the match: same replies,
    and the engine gives them the same verdicts."""
    replay = read_replay(replays[game_id])
    step = step_of(replay, seat)
    asked = sum(1 for reply in replay.steps[step - 1]["replies"] if reply["seat"] == seat)
    code, out, err = feed(
        capsys,
        str(replays[game_id]),
        *("--feed", str(step), "--seat", str(seat), "--bot", starter_of(game_id), "--history"),
    )
    assert code == 0, err
    assert out.count("same reply: yes · same verdict: yes") == asked
    assert "NO" not in out
    assert f"seat {seat} · bot {starter_of(game_id)} · step {step}" in out
    assert "recorded reply: " in out and f"new reply ({starter_of(game_id)}): " in out


def test_the_feed_api_compares_payloads_and_verdicts(replays: dict[str, Path]) -> None:
    """The report's fields behind the printed comparison (devops: several requests in one step)."""
    from botarena.bots.resolve import resolve_bot
    from botarena.runner.feed import feed_replay

    replay = read_replay(replays["devops"])
    game = get_game("devops")
    report = feed_replay(replay, resolve_bot("starter", game), step=3, seat=1, history=True)
    mine = [reply for reply in replay.steps[2]["replies"] if reply["seat"] == 1]
    assert len(report.fed) == len(mine) > 1  # a base call and one per unit
    for fed, recorded in zip(report.fed, mine, strict=True):
        assert fed.new.status.value == recorded["status"] == "OK"
        assert canon(fed.new.payload) == recorded["payload"]
        assert fed.same_payload and fed.same_verdict
    assert report.history == sum(
        1 for step in replay.steps[:2] for reply in step["replies"] if reply["seat"] == 1
    )
    # --request K picks one of them
    only = feed_replay(replay, resolve_bot("starter", game), step=3, seat=1, request=2, history=True)
    assert [fed.label for fed in only.fed] == [report.fed[1].label]
    assert canon(only.fed[0].new.payload) == mine[1]["payload"]


@pytest.mark.parametrize("seat", [0, 1])
@pytest.mark.parametrize("game_id", GAMES)
def test_a_subprocess_bot_receives_the_exact_requests(
    replays: dict[str, Path], capsys: pytest.CaptureFixture[str], tmp_path: Path, game_id: str, seat: int
) -> None:
    """(b) A command-line bot gets the seat's recorded start request, then the step's requests,
    exactly as the engine regenerates them."""
    replay = read_replay(replays[game_id])
    step = step_of(replay, seat)
    script = tmp_path / "recording_bot.py"
    script.write_text(RECORDING_BOT, encoding="utf-8")
    received = tmp_path / "received.jsonl"
    spec = f"cmd:{sys.executable} {script} {received}"
    code, out, err = feed(
        capsys, str(replays[game_id]), "--feed", str(step), "--seat", str(seat), "--bot", spec
    )
    assert code == 0, err
    envelopes = [json.loads(line) for line in received.read_text(encoding="utf-8").splitlines()]
    assert_exact(envelopes, regenerated(replay, step, seat, history=False), replay, seat)
    assert "new reply (received.jsonl): OK" in out  # named after its last argument, as `play` names it


class RecordingServer:
    """An HTTP bot on 127.0.0.1 that records what it is POSTed: generic envelopes at `/bot`, the
    Devops course's calls at `/moves/{base,unit}` (their bodies are the calls' inputs)."""

    def __init__(self) -> None:
        self.received: list[tuple[str, Any]] = []
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()
        self.runner = asyncio.run_coroutine_threadsafe(self._start(), self.loop).result(10)
        self.port = self.runner.addresses[0][1]

    def _run(self) -> None:
        block_thread_signals()
        self.loop.run_forever()

    async def _start(self) -> web.AppRunner:
        app = web.Application()
        app.router.add_post("/bot", self._envelope)
        app.router.add_post("/moves/{kind}", self._course_call)
        runner = web.AppRunner(app)
        await runner.setup()
        await web.TCPSite(runner, "127.0.0.1", 0).start()
        return runner

    async def _envelope(self, request: web.Request) -> web.Response:
        envelope = await request.json()
        self.received.append(("bot", envelope))
        return web.json_response({"id": envelope["id"], "payload": {}})

    async def _course_call(self, request: web.Request) -> web.Response:
        self.received.append((request.match_info["kind"], await request.json()))
        return web.json_response({})

    def stop(self) -> None:
        asyncio.run_coroutine_threadsafe(self.runner.cleanup(), self.loop).result(10)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(5)


@pytest.fixture
def server() -> Iterator[RecordingServer]:
    running = RecordingServer()
    yield running
    running.stop()


@pytest.mark.parametrize("seat", [0, 1])
@pytest.mark.parametrize("game_id", GAMES)
def test_an_http_bot_receives_the_exact_requests(
    replays: dict[str, Path],
    capsys: pytest.CaptureFixture[str],
    server: RecordingServer,
    game_id: str,
    seat: int,
) -> None:
    """(c) An HTTP bot, with `--history`: the start request, every earlier request of the seat, then
    the step's. A devops URL is the course's own HTTP contract (a batch transport): it is POSTed each
    call's input, and answers start and end locally."""
    replay = read_replay(replays[game_id])
    step = step_of(replay, seat)
    url = f"http://127.0.0.1:{server.port}" + ("" if game_id == "devops" else "/bot")
    code, out, err = feed(
        capsys,
        str(replays[game_id]),
        *("--feed", str(step), "--seat", str(seat), "--bot", url, "--history"),
    )
    assert code == 0, err
    expected = regenerated(replay, step, seat, history=True)
    if game_id == "devops":
        calls = [r for r in expected if r.type.value == "turn"]
        assert len(server.received) == len(calls)
        # a faction's unit calls run concurrently: compare them as a multiset
        key = orjson.dumps
        assert sorted(key(body) for _kind, body in server.received) == sorted(
            key(canon(r.payload["input"])) for r in calls
        )
        assert [kind for kind, _body in server.received].count("base") == sum(
            1 for r in calls if r.payload["call"] == "base"
        )
    else:
        assert {kind for kind, _body in server.received} == {"bot"}
        assert_exact([body for _kind, body in server.received], expected, replay, seat)
    assert "same verdict:" in out


def test_a_bot_that_crashes_is_shown_with_its_log(
    replays: dict[str, Path], capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """A bot that dies at once: its start and step replies are CRASHED, the verdict differs from the
    recorded OK, and its stderr is printed."""
    script = tmp_path / "dies.py"
    script.write_text("import sys\nprint('boom: no model file', file=sys.stderr)\nsys.exit(3)\n")
    code, out, err = feed(
        capsys,
        str(replays["drones"]),
        *("--feed", "2", "--seat", "1", "--bot", f"cmd:{sys.executable} {script}"),
    )
    assert code == 0, err
    assert "start exchange: new reply CRASHED" in out
    assert "new reply (dies.py): CRASHED process_exited" in out
    assert "same reply: NO · same verdict: NO" in out
    assert "boom: no model file" in out.split("bot log")[1]


def test_feed_zero_is_the_start_exchange(
    replays: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = feed(capsys, str(replays["domains"]), "--feed", "0", "--seat", "0", "--bot", "surveyor")
    assert code == 0, err
    assert "== start ==" in out and '"type": "start"' in out
    assert out.count("same reply: yes · same verdict: yes") == 1


def test_long_requests_are_trimmed_unless_full(
    replays: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    args = (str(replays["datspulse"]), "--feed", "1", "--seat", "0", "--bot", "forager")
    _code, trimmed, _err = feed(capsys, *args)
    _code, full, _err = feed(capsys, *args, "--full")
    assert "more lines (--full shows all)" in trimmed
    assert "more lines" not in full and len(full.splitlines()) > len(trimmed.splitlines())


def first_step_without(replay: Replay, seat: int) -> int:
    return next(
        index
        for index, step in enumerate(replay.steps, start=1)
        if all(reply["seat"] != seat for reply in step["replies"])
    )


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--feed", "999", "--seat", "0", "--bot", "zergy"], "no step 999: this replay has steps 1-"),
        (["--feed", "-1", "--seat", "0", "--bot", "zergy"], "no step -1"),
        (["--feed", "1", "--seat", "2", "--bot", "zergy"], "no seat 2: this replay has seats 0-1"),
        (["--feed", "1", "--seat", "0", "--bot", "nosuchbot"], "unknown bot 'nosuchbot'"),
        (["--feed", "1", "--seat", "0", "--bot", "./missing.py"], "unknown bot './missing.py'"),
        (["--feed", "1", "--seat", "0", "--bot", "zergy", "--request", "2"], "no request 2: seat 0 has 1"),
        (["--feed", "1", "--seat", "0"], "--feed STEP needs --seat SEAT and --bot SPEC"),
        (["--seat", "0", "--bot", "zergy"], "--feed STEP needs --seat SEAT and --bot SPEC"),
        (["--feed", "1", "--seat", "0", "--bot", "zergy", "--verify"], "--verify and --feed are separate"),
        (["--feed", "x", "--seat", "0", "--bot", "zergy"], "Invalid value for '--feed'"),
    ],
)
def test_bad_arguments_are_one_line_and_exit_2(
    replays: dict[str, Path], capsys: pytest.CaptureFixture[str], args: list[str], message: str
) -> None:
    code, out, err = feed(capsys, str(replays["drones"]), *args)
    assert code == 2
    assert out == ""
    assert len(err.strip().splitlines()) == 1 and message in err, err


def test_a_seat_not_asked_at_the_step_names_the_nearest_steps_that_ask_it(
    replays: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    """Crafting Quest asks one seat per step (CQ turns alternate)."""
    replay = read_replay(replays["craftingquest"])
    step = first_step_without(replay, 0)
    code, out, err = feed(
        capsys, str(replays["craftingquest"]), "--feed", str(step), "--seat", "0", "--bot", "wanderer"
    )
    assert code == 2 and out == ""
    assert f"botarena: error: seat 0 has no request at step {step} (nearest steps that do: " in err


def test_a_file_that_is_not_a_replay_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    broken = tmp_path / "broken.json"
    broken.write_text("{not json", encoding="utf-8")
    code, out, err = feed(capsys, str(broken), "--feed", "1", "--seat", "0", "--bot", "zergy")
    assert code == 2 and out == "" and len(err.strip().splitlines()) == 1
