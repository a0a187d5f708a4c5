"""Fair clocks (DESIGN principle 7, issue 12 item 1): a seat's verdict depends only on its own replies.

A saboteur that stalls past the deadline on one turn (or on every turn) sits next to an instant bot,
in both seat orders, each of them as a subprocess, an HTTP bot or an in-process bot: the instant bot
gets no TIMEOUT and the same statuses as next to a quiet bot. The old runner read seats in order and
checked a seat's deadline before reading the reply already waiting in its pipe, so a saboteur in seat
0 made an instant wire bot in seat 1 TIMEOUT (its reply written before its deadline, read after it).

No test depends on the machine's speed: a saboteur never answers the stalled request (it answers the
next one; its late answer never comes), and where a reply must arrive after its deadline the bot
waits for a FIFO that the test opens only once the deadline has passed.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from aiohttp import web

from botarena.bots.base import Bot
from botarena.bots.devops_http import DevopsHttpBot
from botarena.bots.http import HttpBot, shared_loop
from botarena.bots.inprocess import PythonBot
from botarena.bots.node import MIN_NODE, find_node, node_bot, node_version
from botarena.bots.subprocess import SubprocessBot, block_thread_signals
from botarena.core.protocol import MessageType, Request
from botarena.core.registry import get_game
from botarena.core.status import Status
from botarena.runner import run_match
from waiting import wait_until

from .aiohttp_server import LoopServer

DRONES = get_game("drones")
CONFIG = DRONES.config(overrides={"rounds": 1, "turn_limit": 3, "turn_timeout_ms": 1000})
STALL_TURN = 2

# One script for every subprocess bot of this module: `instant` answers every request at once; `stall`
# does not answer the first request of turn 2 (it reads the next one and answers that); `mute`
# answers the start and then nothing. Turn actions: everything into producers, no attack.
BOT_SCRIPT = r"""
import json, sys
mode = sys.argv[1]
STALL_TURN = int(sys.argv[2])
stalled = False
for line in sys.stdin:
    request = json.loads(line)
    payload = {}
    if request["type"] == "turn":
        obs = request["payload"]
        if mode == "mute":
            continue
        if mode == "stall" and obs["turn"] == STALL_TURN and not stalled:
            stalled = True
            continue
        payload = {"newProducers": obs["producers"], "newSoldiers": 0, "launchAttack": False}
    sys.stdout.write(json.dumps({"id": request["id"], "payload": payload}) + "\n")
    sys.stdout.flush()
"""


def _action(obs: dict[str, Any]) -> dict[str, Any]:
    return {"newProducers": obs["producers"], "newSoldiers": 0, "launchAttack": False}


class _InProcess:
    """An in-process bot: `stall` blocks on its turn-2 call until preempted, `mute` on every turn."""

    def __init__(self, mode: str) -> None:
        self.mode = mode
        self.stalled = False

    def act(self, obs: dict[str, Any]) -> dict[str, Any]:
        stall = self.mode == "mute" or (self.mode == "stall" and obs["turn"] == STALL_TURN)
        if stall and not self.stalled:
            self.stalled = self.mode == "stall"
            threading.Event().wait()  # forever: only the deadline's BotTimeout ends it
        return _action(obs)


class _HttpBots(LoopServer):
    """`POST /instant`, `/stall` and `/mute`, the HTTP versions of the script's modes."""

    def __init__(self) -> None:
        self.stalled = False
        self.forever: asyncio.Event | None = None  # set only when the server stops
        super().__init__()

    def stop(self) -> None:
        if self.forever is not None:
            self.loop.call_soon_threadsafe(self.forever.set)
        super().stop()

    async def handle(self, request: web.Request) -> web.StreamResponse:
        if self.forever is None:
            self.forever = asyncio.Event()
        mode = request.match_info["kind"]
        envelope = await request.json()
        payload: dict[str, Any] = {}
        if envelope["type"] == "turn":
            obs = envelope["payload"]
            stall = mode == "mute" or (mode == "stall" and obs["turn"] == STALL_TURN and not self.stalled)
            if stall:
                self.stalled = self.stalled or mode == "stall"
                await self.forever.wait()  # no answer while the match runs
            payload = _action(obs)
        return web.json_response({"id": envelope["id"], "payload": payload})


@pytest.fixture
def script(tmp_path: Path) -> Path:
    path = tmp_path / "bot.py"
    path.write_text(BOT_SCRIPT)
    return path


@pytest.fixture
def http_bots() -> Iterator[_HttpBots]:
    server = _HttpBots()
    yield server
    server.stop()


Maker = Callable[[str], Bot]


def _build(spec: str, script: Path, http_bots: _HttpBots) -> Bot:
    """A bot of transport kind subprocess/http/python in mode instant/stall/mute ("<kind>:<mode>")."""
    kind, mode = spec.split(":")
    if kind == "subprocess":
        return SubprocessBot([sys.executable, str(script), mode, str(STALL_TURN)], name=spec)
    if kind == "http":
        http_bots.stalled = False
        return HttpBot(http_bots.url(mode), name=spec)
    return PythonBot(lambda: _InProcess(mode), name=spec)


@pytest.fixture
def make(script: Path, http_bots: _HttpBots) -> Maker:
    """make("<kind>:<mode>"): `_build` with this test's script and HTTP server."""
    return lambda spec: _build(spec, script, http_bots)


def _statuses(bots: list[Bot], seat: int) -> dict[str, int]:
    run = run_match(DRONES, bots, config=CONFIG, seed=5)
    return run.replay.statuses[seat]


KINDS = ["subprocess", "http", "python"]
# every stalling saboteur next to every instant bot (in-process next to in-process is one thread,
# nothing to race); the saboteur that never answers again (the zoo's never_answers) as a subprocess
CASES = [(i, s, "stall") for i in KINDS for s in KINDS if (i, s) != ("python", "python")]
CASES += [(i, "subprocess", "mute") for i in KINDS]
_BASELINES: dict[tuple[str, int], dict[str, int]] = {}


def _baseline(make: Maker, kind: str, seat: int) -> dict[str, int]:
    """The instant bot's statuses next to a quiet (instant, in-process) bot."""
    if (kind, seat) not in _BASELINES:
        quiet = [make(f"{kind}:instant"), make("python:instant")]
        if seat == 1:
            quiet.reverse()
        _BASELINES[kind, seat] = _statuses(quiet, seat)
    return _BASELINES[kind, seat]


Case = tuple[str, str, str, int]
"""(instant kind, saboteur kind, saboteur mode, instant seat)."""
AHEAD_AT_ONCE = 6
"""How many wire-only matches `played_ahead` plays at a time, the mute ones (a deadline on every turn)
first. Their bots are idle but for the saboteur's deadlines (1 s each), so they overlap; six keeps
the instant bots' millisecond replies far inside their 1 s limit on a loaded box (the four mute
cases in four slots, the eight stalled ones two slots after another beside them)."""


def _seated(instant: Bot, saboteur: Bot, instant_seat: int) -> list[Bot]:
    return [instant, saboteur] if instant_seat == 0 else [saboteur, instant]


def _wire_only(case: Case) -> bool:
    """Whether the case may play in a helper thread: an in-process bot's stall is ended by SIGALRM,
    which Python delivers to the main thread only, so a case with one plays in its test."""
    return "python" not in case[:2]


@pytest.fixture(scope="module")
def played_ahead(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[dict[Case, list[dict[str, int]]]]:
    """The selected wire-only cases' statuses, their matches played `AHEAD_AT_ONCE` at a time before
    the first of their tests (each with its own HTTP server: the stall is once per server); the
    saboteurs' deadlines are what cost the time, so waiting them out together saves it."""
    selected: list[Case] = []
    for item in request.session.items:
        params = getattr(getattr(item, "callspec", None), "params", {})
        if getattr(item, "module", None) is request.module and "saboteur_mode" in params:
            case = (
                params["instant_kind"],
                params["saboteur_kind"],
                params["saboteur_mode"],
                params["instant_seat"],
            )
            if _wire_only(case):
                selected.append(case)
    selected.sort(key=lambda case: case[2] != "mute")  # the longest first (a stable sort)
    script = tmp_path_factory.mktemp("ahead") / "bot.py"
    script.write_text(BOT_SCRIPT)
    servers = [_HttpBots() for _ in selected]

    def play(case: Case, server: _HttpBots) -> list[dict[str, int]]:
        instant_kind, saboteur_kind, mode, seat = case
        instant = _build(f"{instant_kind}:instant", script, server)
        saboteur = _build(f"{saboteur_kind}:{mode}", script, server)
        return run_match(DRONES, _seated(instant, saboteur, seat), config=CONFIG, seed=5).replay.statuses

    try:
        with ThreadPoolExecutor(AHEAD_AT_ONCE, initializer=block_thread_signals) as pool:
            results = list(pool.map(play, selected, servers))
    finally:
        for server in servers:
            server.stop()
    yield dict(zip(selected, results, strict=True))


@pytest.mark.parametrize(("instant_kind", "saboteur_kind", "saboteur_mode"), CASES)
@pytest.mark.parametrize("instant_seat", [0, 1])
def test_an_instant_bot_is_never_timed_out_by_its_neighbour(
    make: Maker,
    instant_kind: str,
    saboteur_kind: str,
    instant_seat: int,
    saboteur_mode: str,
    request: pytest.FixtureRequest,
) -> None:
    """The instant bot's statuses next to a saboteur equal those next to a quiet bot: all OK."""
    baseline = _baseline(make, instant_kind, instant_seat)
    assert baseline == {"OK": sum(baseline.values())}

    case = (instant_kind, saboteur_kind, saboteur_mode, instant_seat)
    if _wire_only(case):
        statuses = request.getfixturevalue("played_ahead")[case]
    else:
        bots = _seated(
            make(f"{instant_kind}:instant"), make(f"{saboteur_kind}:{saboteur_mode}"), instant_seat
        )
        statuses = run_match(DRONES, bots, config=CONFIG, seed=5).replay.statuses
    assert statuses[instant_seat] == baseline, statuses
    assert statuses[1 - instant_seat].get("TIMEOUT", 0) >= 1  # the attack happened


# -- the transport: read before the deadline is checked, stamped on arrival ------------------------
FIFO_BOT = r"""
import json, sys
fifo, written = sys.argv[1], sys.argv[2]
for line in sys.stdin:
    request = json.loads(line)
    if request["type"] == "turn":
        with open(fifo) as gate:  # blocks until the test opens the FIFO: after the deadline
            gate.read()
    sys.stdout.write(json.dumps({"id": request["id"], "payload": {"late": True}}) + "\n")
    sys.stdout.flush()
    if request["type"] == "turn":
        open(written, "w").close()
"""


def _turn(seat: int = 0) -> Request:
    return Request(seat=seat, type=MessageType.TURN, turn=1, payload={}, timeout_ms=30)


def _wait_for(predicate: Callable[[], bool], what: str) -> None:
    """Wait for an event (a file appearing, a deadline passing); looked at every 2 ms, so a deadline
    that passes is seen at once; the bound only catches hangs."""
    wait_until(predicate, what, pause=0.002)


def _late_fifo_exchange(tmp_path: Path, keep_late: bool) -> tuple[SubprocessBot, Any]:
    """A turn request whose reply the bot writes only after its deadline has passed, then read."""
    script = tmp_path / "fifo_bot.py"
    script.write_text(FIFO_BOT)
    fifo, written = tmp_path / "gate", tmp_path / "written"
    os.mkfifo(fifo)
    bot = SubprocessBot([sys.executable, str(script), str(fifo), str(written)], name="fifo")
    bot.keep_late_replies(keep_late)
    bot.open("fair", 0)
    start = Request(seat=0, type=MessageType.START, turn=0, payload={}, timeout_ms=20_000)
    bot.send(start, 1, 20.0)
    assert bot.receive().status is Status.OK
    bot.send(_turn(), 2, 0.03)
    sent = time.perf_counter()
    _wait_for(lambda: time.perf_counter() > sent + 0.05, "the deadline to pass")
    with open(fifo, "w") as gate:  # only now may the bot write its reply
        gate.write("go")
    _wait_for(written.exists, "the bot to write its reply")
    return bot, bot.receive()


def test_a_reply_written_after_its_deadline_is_timeout_with_its_real_time(tmp_path: Path) -> None:
    bot, reply = _late_fifo_exchange(tmp_path, keep_late=False)
    try:
        assert (reply.status, reply.reason) == (Status.TIMEOUT, "deadline")
        assert reply.time_ms > 30.0  # when it came, not when the deadline was
    finally:
        bot.close()


def test_a_reply_written_after_its_deadline_is_the_owed_late_answer(tmp_path: Path) -> None:
    """With late replies kept (CQ-31 to CQ-35) the past-deadline line is the owed answer."""
    bot, reply = _late_fifo_exchange(tmp_path, keep_late=True)
    try:
        assert reply.status is Status.TIMEOUT
        late = bot.poll_late()
        assert late is not None and late.status is Status.OK and late.payload == {"late": True}
        assert late.time_ms >= reply.time_ms - 1e-6
        assert bot.poll_late() is None
    finally:
        bot.close()


def test_a_reply_waiting_in_the_pipe_is_read_before_the_deadline_is_checked(script: Path) -> None:
    """Seat 0 never answers; seat 1's reply, written at once, waits in its pipe while the runner
    awaits seat 0: it is OK, with the time it took to arrive (the old runner timed it out)."""
    bots: list[Bot] = [
        SubprocessBot([sys.executable, str(script), "mute", str(STALL_TURN)], name="mute"),
        SubprocessBot([sys.executable, str(script), "instant", str(STALL_TURN)], name="instant"),
    ]
    run = run_match(DRONES, bots, config=CONFIG, seed=1)
    assert set(run.replay.statuses[1]) == {"OK"}
    assert run.replay.statuses[0]["TIMEOUT"] >= 1


# -- HTTP: never follow a redirect ------------------------------------------------------------------
class _Redirector(LoopServer):
    """Redirects every POST to `target` (307 keeps the method and body)."""

    target = ""

    async def _start(self) -> web.AppRunner:
        app = web.Application()
        app.router.add_post("/{tail:.*}", self.handle)  # any path, /moves/base included
        runner = web.AppRunner(app)
        await runner.setup()
        await web.TCPSite(runner, "127.0.0.1", 0).start()
        return runner

    async def handle(self, request: web.Request) -> web.StreamResponse:
        raise web.HTTPTemporaryRedirect(self.target)


class _Counter(LoopServer):
    """Counts the requests it gets and answers each properly."""

    def __init__(self) -> None:
        self.hits = 0
        super().__init__()

    async def handle(self, request: web.Request) -> web.StreamResponse:
        self.hits += 1
        envelope = await request.json()
        return web.json_response({"id": envelope.get("id"), "payload": {}, "type": "IDLE"})


@pytest.fixture
def redirect_pair() -> Iterator[tuple[_Redirector, _Counter]]:
    counter = _Counter()
    redirector = _Redirector()
    redirector.target = counter.url("elsewhere")
    yield redirector, counter
    redirector.stop()
    counter.stop()


@pytest.mark.parametrize("seat", [0, 1])
def test_an_http_bot_never_follows_a_redirect(
    redirect_pair: tuple[_Redirector, _Counter], script: Path, seat: int
) -> None:
    redirector, counter = redirect_pair
    bots: list[Bot] = [
        HttpBot(redirector.url("bot"), name="redirector"),
        SubprocessBot([sys.executable, str(script), "instant", str(STALL_TURN)], name="instant"),
    ]
    if seat == 1:
        bots.reverse()
    run = run_match(DRONES, bots, config=CONFIG, seed=3)
    assert counter.hits == 0  # the runner only ever called the address it was given
    assert run.replay.statuses[1 - seat] == {"OK": sum(run.replay.statuses[1 - seat].values())}
    replies = [step["replies"][seat] for step in run.replay.steps]
    assert replies and all(r["status"] == "CRASHED" and r["reason"] == "redirect" for r in replies)
    assert any(counter.url("elsewhere") in w["detail"] for w in replies[0]["warnings"])


def test_the_devops_host_never_follows_a_redirect(redirect_pair: tuple[_Redirector, _Counter]) -> None:
    redirector, counter = redirect_pair
    bot = DevopsHttpBot(f"http://127.0.0.1:{redirector.port}", name="redirector")
    bot.open("fair", 0)
    try:
        request = Request(
            seat=0, type=MessageType.TURN, turn=1, payload={"call": "base", "input": {}}, timeout_ms=5000
        )
        bot.send_batch([request])
        (reply,) = bot.receive_batch()
    finally:
        bot.close()
    assert counter.hits == 0
    assert (reply.status, reply.reason) == (Status.CRASHED, "http_status")  # devops spec 5.2
    assert reply.warnings and reply.warnings[0]["code"] == "HTTP_REDIRECT"
    assert counter.url("elsewhere") in reply.warnings[0]["detail"]


# -- the Devops host under load: a reply that arrives after its deadline is TIMEOUT --------------
class _LateService(LoopServer):
    """Answers `POST /moves/base` only when `release()` is called; `written` is set once the whole
    response is in the socket."""

    def __init__(self) -> None:
        self.got = threading.Event()
        self.written = threading.Event()
        self.gate: asyncio.Event | None = None
        super().__init__()

    async def _start(self) -> web.AppRunner:
        self.gate = asyncio.Event()
        app = web.Application()
        app.router.add_post("/moves/{kind}", self.handle)
        runner = web.AppRunner(app)
        await runner.setup()
        await web.TCPSite(runner, "127.0.0.1", 0).start()
        return runner

    async def handle(self, request: web.Request) -> web.StreamResponse:
        await request.read()
        self.got.set()
        assert self.gate is not None
        await self.gate.wait()
        body = json.dumps({"type": "IDLE"}).encode()
        response = web.StreamResponse(headers={"Content-Type": "application/json"})
        response.content_length = len(body)
        await response.prepare(request)
        await response.write(body)
        await response.write_eof()
        self.written.set()
        return response

    def release(self) -> None:
        assert self.gate is not None
        self.loop.call_soon_threadsafe(self.gate.set)


def test_the_devops_host_times_out_a_reply_that_arrived_late_while_its_loop_was_busy() -> None:
    """The host's loop is held busy past the call's deadline while the service answers: when the
    loop runs again the response and the deadline's timer are both due. It is TIMEOUT (the penalty
    follows in the engine), with its real time, not OK at 1,004 ms."""
    service = _LateService()
    bot = DevopsHttpBot(f"http://127.0.0.1:{service.port}", name="late")
    bot.open("fair", 0)
    busy, unblock = threading.Event(), threading.Event()

    def hold_the_loop() -> None:
        busy.set()
        unblock.wait(60.0)

    try:
        request = Request(
            seat=0, type=MessageType.TURN, turn=1, payload={"call": "base", "input": {}}, timeout_ms=100
        )
        sent = time.perf_counter()
        bot.send_batch([request])
        assert service.got.wait(60.0)
        shared_loop().call_soon_threadsafe(hold_the_loop)
        assert busy.wait(60.0)
        _wait_for(lambda: time.perf_counter() > sent + 0.15, "the deadline to pass")
        service.release()
        assert service.written.wait(60.0)
        unblock.set()
        (reply,) = bot.receive_batch()
    finally:
        unblock.set()
        bot.close()
        service.stop()
    assert (reply.status, reply.reason) == (Status.TIMEOUT, "deadline")
    assert reply.time_ms > 100.0


# -- JavaScript: the attack (a 2018 bot that sleeps 1.1 s on the last turn of each round) ---
SLEEPY_JS = """
class Sleepy {
  constructor() { this.turns = 10; this.turn = 0; }
  onRoundStart(rules) { this.turns = rules.turns; this.turn = 0; }
  playTurn(state) {
    this.turn += 1;
    if (this.turn === this.turns) {  // 1.1 s, past the 1 s deadline: its answer always comes late
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 1100);
    }
    return { newProducers: state.producers, newSoldiers: 0, launchAttack: false };
  }
}
export default function () { return new Sleepy(); }
"""


def _has_node() -> bool:
    node = find_node()
    version = None if node is None else node_version(node)
    return version is not None and version >= MIN_NODE


PACIFIST_JS = Path(__file__).resolve().parents[2] / "kits" / "drones-js" / "bots" / "pacifist.js"


@pytest.mark.skipif(
    not _has_node(), reason="Node.js >= 20.19 is not installed: the JavaScript case is skipped"
)
@pytest.mark.parametrize("pacifist_seat", [0, 1])
def test_a_sleeping_javascript_bot_cannot_time_out_the_pacifist(tmp_path: Path, pacifist_seat: int) -> None:
    sleepy = tmp_path / "sleepy.js"
    sleepy.write_text(SLEEPY_JS)
    bots = [node_bot(PACIFIST_JS, name="pacifist"), node_bot(sleepy, name="sleepy")]
    if pacifist_seat == 1:
        bots.reverse()
    config = DRONES.config(overrides={"rounds": 2, "turn_limit": 3, "turn_timeout_ms": 1000})
    run = run_match(DRONES, bots, config=config, seed=4)
    statuses = run.replay.statuses
    assert set(statuses[pacifist_seat]) == {"OK"}, statuses
    assert statuses[1 - pacifist_seat]["TIMEOUT"] == 2  # one per round: the attack happened
