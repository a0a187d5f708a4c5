"""The teams' HTTP client (spec §7.1-§7.4, §10): its rate limiter, its handling of the §7.1 error codes,
and whole rounds against the real DatsPulse server (uvicorn on 127.0.0.1, `ci` preset, 0.2 s turns)."""

from __future__ import annotations

import asyncio
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from waiting import wait_until

aiohttp = pytest.importorskip("aiohttp", reason="the client needs aiohttp (botarena[http])")

from botarena.clients.datspulse import (  # noqa: E402 - after importorskip: skipped without the extra
    RATE_MARGIN_S,
    ClientError,
    ClientOptions,
    DatsPulseClient,
    RateLimiter,
    make_bot,
)

TEAMS = {"tok-forager": "Forager Team", "tok-walker": "Walker Team"}
TURNS = 20
#: 0.2 s turns and two requests per turn need 10 per second: the server and the clients share this limit.
RATE = 12


class FakeClock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_dp71_rate_limiter_allows_twice_the_rate_in_any_two_seconds() -> None:
    """§7.1: at most 2 x rate accepted requests in any sliding 2 s window; the client waits, never bursts."""
    clock = FakeClock()
    limiter = RateLimiter(3, clock)
    for _ in range(6):
        assert limiter.delay() == 0.0
        limiter.note()
        clock.now += 0.1
    # the 7th would be the 7th in 2 s: it waits until the first one leaves the window (plus the margin)
    assert limiter.delay() == pytest.approx(100.0 + 2.0 + RATE_MARGIN_S - clock.now)
    clock.now = 100.0 + 2.0 + RATE_MARGIN_S + 0.001
    assert limiter.delay() == 0.0
    limiter.note()
    assert limiter.delay() > 0.0  # the 2nd to 6th sends are still inside the window


def test_dp10_make_bot_takes_a_starter_by_name_and_rejects_others() -> None:
    bot = make_bot("forager", 5)
    assert bot.rng.random() == make_bot("forager", 5).rng.random()
    with pytest.raises(ClientError, match="unknown bot 'nope'"):
        make_bot("nope", 0)


# -- against a scripted server: every §7.1 error code ------------------------------------------------


@pytest.fixture(autouse=True)
def quick_retries(monkeypatch: pytest.MonkeyPatch) -> None:
    """The client's pauses between retries, shortened (they are what is tested, not their length)."""
    from botarena.clients import datspulse as client

    monkeypatch.setattr(client, "RETRY_PAUSE_S", 0.05)
    monkeypatch.setattr(client, "LOBBY_POLL_S", 0.05)


def scripted_app(script: dict[str, list[tuple[int, Any, dict[str, str]]]], calls: list[str]) -> Any:
    """An aiohttp app that answers each path from its script (the last answer repeats)."""
    from aiohttp import web

    async def handle(request: Any) -> Any:
        path = request.path
        calls.append(f"{request.method} {path}")
        answers = script.get(path) or [(404, {"code": 7, "message": "not found"}, {})]
        status, body, headers = answers.pop(0) if len(answers) > 1 else answers[0]
        if isinstance(body, bytes):
            return web.Response(status=status, body=body, headers=headers)
        return web.json_response(body, status=status, headers=headers)

    app = web.Application()
    app.router.add_route("*", "/{tail:.*}", handle)
    return app


def arena(turn: int, next_turn_in: float, home: bool = True) -> dict[str, Any]:
    spot = {"q": 0, "r": 0}
    return {
        "ants": [],
        "enemies": [],
        "map": [{"q": 0, "r": 0, "cost": 1, "type": 1}],
        "food": [],
        "turnNo": turn,
        "nextTurnIn": next_turn_in,
        "home": [spot, {"q": 0, "r": -1}, {"q": -1, "r": -1}] if home else [],
        "score": 40 if turn == 3 else 0,
        "spot": spot,
    }


def play_scripted(
    script: dict[str, list[tuple[int, Any, dict[str, str]]]], **options: Any
) -> tuple[Any, list[str]]:
    from aiohttp.test_utils import TestServer

    calls: list[str] = []

    async def main() -> Any:
        server = TestServer(scripted_app(script, calls), host="127.0.0.1")
        await server.start_server()
        try:
            url = f"http://127.0.0.1:{server.port}"
            client = DatsPulseClient(
                ClientOptions(url=url, token="t", rate_limit=50, max_seconds=20, **options)
            )
            return await client.run()
        finally:
            await server.close()

    return asyncio.run(main()), calls


def test_dp71_client_waits_through_lobby_errors_429_and_500_then_plays_to_the_end() -> None:
    lobby = arena(0, 0, home=False)
    script = {
        "/api/register": [
            (
                400,
                {"code": 1, "message": "no active game: you are too late to register; next rounds: []"},
                {},
            ),
            (500, {"code": 0, "message": "internal error"}, {}),
            (200, {"lobbyEndsIn": 0, "name": "x", "nextTurn": 0.01, "realm": "antprotocol-test-1"}, {}),
        ],
        "/api/arena": [
            (200, lobby, {}),
            (429, {"code": 6, "message": "too many requests: limit is 3 per second"}, {"Retry-After": "0"}),
            (200, arena(1, 0.01), {}),
            (200, arena(2, 0.01), {}),
            (200, arena(3, 0), {}),
        ],
        "/api/move": [
            (200, {**arena(1, 0.01), "errors": []}, {}),
            (400, {"code": 4, "message": "invalid request body: bad"}, {}),
        ],
    }
    report, calls = play_scripted(script)
    assert report.rounds_played == 1
    assert report.realms == ["antprotocol-test-1"]
    assert report.moved_turns == [1]  # turn 2's move was refused (code 4): counted, and the client went on
    assert (report.final_turn, report.final_score) == (3, 40)
    assert report.rate_limited == 1 and report.statuses[500] == 1 and report.statuses[400] == 2
    assert calls.count("POST /api/register") == 3
    assert calls[-1] == "GET /api/arena"


@pytest.mark.parametrize(
    ("status", "code", "words"),
    [
        (401, 5, "invalid or missing token"),
        (404, 7, "no DatsPulse API at this URL"),
        (405, 7, "no DatsPulse"),
    ],
)
def test_dp71_client_stops_on_a_bad_token_or_a_wrong_url(status: int, code: int, words: str) -> None:
    script = {"/api/register": [(status, {"code": code, "message": "x"}, {})]}
    with pytest.raises(ClientError, match=words):
        play_scripted(script)


def test_dp71_client_survives_a_non_json_reply_and_registers_again_when_not_in_the_round() -> None:
    script = {
        "/api/register": [(200, {"lobbyEndsIn": 0, "name": "x", "nextTurn": 0, "realm": "r"}, {})],
        "/api/arena": [
            (502, b"<html>bad gateway</html>", {}),
            (400, {"code": 3, "message": "you are not registered in the current round"}, {}),
            (200, arena(1, 0.01), {}),
            (200, arena(3, 0), {}),
        ],
        "/api/move": [(200, {**arena(1, 0.01), "errors": ["round is over"]}, {})],
    }
    report, calls = play_scripted(script)
    assert report.rounds_played == 1
    assert calls.count("POST /api/register") == 2  # once more after code 3
    assert report.final_turn == 1  # "round is over" on its move ends the round


# -- against the real server ---------------------------------------------------------------------------


SERVER_TOML = """
preset = "ci"
seed = 3
[game]
turns = {turns}
rate_limit_per_second = {rate}
[[teams]]
name = "Forager Team"
token = "tok-forager"
[[teams]]
name = "Walker Team"
token = "tok-walker"
"""


@pytest.fixture
def dp_server(tmp_path: Path) -> Iterator[tuple[str, str]]:
    """`botarena datspulse serve` in its own process (so its clock does not share a GIL with the bots),
    on 127.0.0.1; yields (API base URL, store URL). Stopped with SIGINT, which finishes the store's writes."""
    pytest.importorskip("fastapi", reason="the server extra (fastapi) is not installed")
    pytest.importorskip("uvicorn", reason="the server extra (uvicorn) is not installed")
    config = tmp_path / "server.toml"
    config.write_text(SERVER_TOML.format(turns=TURNS, rate=RATE), encoding="utf-8")
    db = f"sqlite:///{tmp_path / 'dp.db'}"
    command = [sys.executable, "-m", "botarena", "datspulse", "serve", "--config", str(config), "--port", "0"]
    process = subprocess.Popen(
        [*command, "--db", db], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, cwd=tmp_path
    )
    try:
        assert process.stdout is not None
        url = None
        lines = []
        for _ in range(50):  # a counted read: the server prints a few lines, then its URLs
            line = process.stdout.readline()
            lines.append(line)
            if line.startswith("API:"):
                url = line.split()[1]
                break
            if not line:
                break
        assert url is not None, "".join(lines)
        yield url, db
    finally:
        process.send_signal(signal.SIGINT)
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def test_dp10_http_client_plays_a_whole_round_against_the_server(
    dp_server: tuple[str, str], tmp_path: Path
) -> None:
    """§10: the forager (and the random walker) play a `ci` round over HTTP, each with a move accepted
    (HTTP 200) in every turn from its first to turns-1 and never a 429; the recorded result shows their
    scores."""
    url, db = dp_server

    async def both() -> list[Any]:
        clients = [
            DatsPulseClient(ClientOptions(url=url, token=token, bot=bot, rate_limit=RATE, max_seconds=60))
            for token, bot in (("tok-forager", "forager"), ("tok-walker", "random_walker"))
        ]
        return list(await asyncio.gather(*(client.run() for client in clients)))

    forager, walker = asyncio.run(both())
    for report in (forager, walker):
        assert report.rounds_played == 1
        assert report.rate_limited == 0 and 429 not in report.statuses
        # §11's measure: a move accepted in every turn from its first one to turns - 1 (turn 0 can be
        # over before the first arena comes back: the server publishes it after generating the map,
        # and its slot ends one 0.2 s turn after the lobby; on a loaded machine the clients may start
        # a few turns late: what must hold is that from its first move on, no turn is missed)
        first = report.moved_turns[0]
        assert first < TURNS // 2 and report.moved_turns == list(range(first, TURNS))
        assert report.final_turn == TURNS
        assert report.bot_failures == 0
    assert forager.realms[-1] == walker.realms[-1]
    from botarena.store import Store

    def recorded() -> list[Any]:  # the server records the round in its break
        store = Store.open(db, replay_dir=tmp_path / "read-replays")
        try:
            tournament = store.find_tournament("antprotocol-test")
            matches = store.list_matches(tournament.id) if tournament is not None else []
            return [m for m in matches if m.key == forager.realms[-1] and m.status == "finished"]
        finally:
            store.close()

    played = wait_until(recorded, f"the round {forager.realms[-1]} recorded as finished", pause=0.1)
    scores = dict(zip(played[0].seats, played[0].scores, strict=True))
    assert scores["Forager Team"] == forager.final_score
    assert scores["Walker Team"] == walker.final_score
    assert forager.final_score is not None and forager.final_score > 0


def test_dp10_cli_client_command_reports_and_exits(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """`botarena datspulse client`: a bad bot name is a one-line error (exit 2); a server that never
    answers ends the run at --max-seconds with a summary and exit code 1. The team's token comes
    from the environment (on the command line it is refused: every local user could read it)."""
    pytest.importorskip("fastapi", reason="the datspulse commands live with the server extra")
    from botarena.cli import main

    monkeypatch.setenv("BOTARENA_DATSPULSE_TOKEN", "t")
    assert main(["datspulse", "client", "--url", "http://127.0.0.1:9", "--bot", "nope"]) == 2
    assert "unknown bot 'nope'" in capsys.readouterr().err
    code = main(["datspulse", "client", "--url", "http://127.0.0.1:9", "--max-seconds", "0.5"])
    assert code == 1
    assert "0 round(s) played" in capsys.readouterr().out


# -- issue 26, item 7: `--bot` takes any spec `botarena play` takes ----------------------------------

SPEC_BOT = """
import json

LOG = {log!r}


def note(entry):
    with open(LOG, "a", encoding="utf-8") as out:
        out.write(json.dumps(entry) + "\\n")


class Bot:
    def setup(self, start):
        note({{"start": start["bot_seed"], "speed": start["config"]["worker_speed"]}})
        return {{}}

    def act(self, arena):
        note({{"turn": arena["turnNo"], "errors": arena["errors"]}})
        # a command for an ant nobody has: the server rejects it, so its reply shows the body arrived
        return {{"moves": [{{"ant": "no-such-ant", "path": []}}]}}

    def end(self, final):
        note({{"end": final["score"]}})
        return {{}}


def create_bot():
    return Bot()
"""


def spec_bot(tmp_path: Path, name: str) -> tuple[Path, Path]:
    """A lockstep bot file that logs what it is sent to a file of its own; (the bot, its log)."""
    log = tmp_path / f"{name}.log"
    bot = tmp_path / f"{name}.py"
    bot.write_text(SPEC_BOT.format(log=str(log)), encoding="utf-8")
    return bot, log


def test_i26_7_client_plays_a_python_file_and_a_command_line_bot_against_the_server(
    dp_server: tuple[str, str], tmp_path: Path
) -> None:
    """Issue 26 item 7: `--bot` resolves any spec `play` takes (botarena.bots.resolve): a Python file
    (in-process) and a command line (a subprocess speaking the JSON-lines protocol through the kit)
    each play a whole `ci` round on a server on 127.0.0.1: a start message with the seed and the
    default config, a turn per move sent with the previous move's rejections, an end message."""
    url, _db = dp_server
    file_bot, file_log = spec_bot(tmp_path, "file_bot")
    command_bot, command_log = spec_bot(tmp_path, "command_bot")
    specs = {
        "tok-forager": str(file_bot),
        "tok-walker": f"{sys.executable} -m botarena.kit {command_bot}",
    }

    async def both() -> list[Any]:
        clients = [
            DatsPulseClient(
                ClientOptions(url=url, token=token, bot=spec, seed=41, rate_limit=RATE, max_seconds=60)
            )
            for token, spec in specs.items()
        ]
        assert type(clients[0].bot.transport).__name__ == "PythonBot"
        assert type(clients[1].bot.transport).__name__ == "SubprocessBot"
        return list(await asyncio.gather(*(client.run() for client in clients)))

    reports = asyncio.run(both())
    for report, log in zip(reports, (file_log, command_log), strict=True):
        import json

        assert report.rounds_played == 1 and report.bot_failures == 0 and report.final_turn == TURNS
        entries = [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()]
        assert entries[0] == {"start": 41, "speed": 5}  # (the spec's worker speed: the default config)
        assert entries[-1] == {"end": report.final_score}
        turns = entries[1:-1]
        # one message per move sent; a move posted just after a transition is answered for the next
        # turn (§7.3), so the turn it was accepted in is the bot's, or later
        assert len(turns) == len(report.moved_turns)
        assert all(e["turn"] <= moved for e, moved in zip(turns, report.moved_turns, strict=True))
        assert report.move_errors == len(report.moved_turns)  # every body reached the server ...
        assert all(e["errors"] for e in turns[1:])  # ... and its rejection came back next turn
        assert turns[0]["errors"] == []


def test_i26_7_client_bot_specs_fail_in_one_line(tmp_path: Path) -> None:
    """Issue 26 item 7: a spec that names nothing is the resolver's one-line error; a bot that fails
    its start message stops the client before it registers, saying why."""
    with pytest.raises(ClientError, match="unknown bot 'nope': not a starter bot of datspulse"):
        make_bot("nope", 0)
    broken = tmp_path / "broken.py"
    broken.write_text("def create_bot():\n    raise RuntimeError('no bot today')\n", encoding="utf-8")
    with pytest.raises(ClientError, match="the bot did not start: bot broken: CRASHED"):
        DatsPulseClient(ClientOptions(url="http://127.0.0.1:9", token="t", bot=str(broken)))


def test_i26_7_cli_client_takes_a_bot_file_and_says_when_it_cannot_start(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 26 item 7: `botarena datspulse client --bot FILE` resolves the file as `play` would; a
    bot whose start fails is a one-line error and exit code 2, before any request is sent."""
    pytest.importorskip("fastapi", reason="the datspulse commands live with the server extra")
    from botarena.cli import main

    monkeypatch.setenv("BOTARENA_DATSPULSE_TOKEN", "t")
    broken = tmp_path / "broken.py"
    broken.write_text("def create_bot():\n    raise RuntimeError('no bot today')\n", encoding="utf-8")
    assert main(["datspulse", "client", "--url", "http://127.0.0.1:9", "--bot", str(broken)]) == 2
    err = capsys.readouterr().err
    assert "the bot did not start: bot broken: CRASHED" in err and len(err.strip().splitlines()) == 1
