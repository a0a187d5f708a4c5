"""A team's HTTP client for a DatsPulse server (spec §7.1-§7.4, §10): plays a bot over the REST API.

    botarena datspulse client --url http://127.0.0.1:8080 --bot forager [--seed N]
    botarena datspulse client --url http://127.0.0.1:8080 --bot my_bot.py
    botarena datspulse client --url http://127.0.0.1:8080 --bot "python3 -m botarena.kit my_bot.py"

`--bot` takes any bot spec `botarena play` takes (`botarena.bots.resolve`): a starter's name, a Python
file, a folder, a command line, ... A starter is called directly; any other spec runs as a lockstep
bot does (`SpecBot`): a `start` message once, a `turn` message per turn with the arena and the last
move's `errors`, each within the time left to the next turn, and an `end` message when the client
stops. So a team puts its own lockstep bot on the server unchanged.

It does what a public client does, given only a base URL and a token: it registers during the lobby
(`POST /api/register`), then each turn reads `GET /api/arena`, asks the bot, posts `POST /api/move` and
sleeps the reply's `nextTurnIn` (§7.3 guarantees the next turn after that sleep). It keeps to the rate
limit itself (at most 2 x `rate_limit` requests in any sliding 2 seconds, §7.1) and handles every error
code of §7.1:

| code | what the client does |
|---|---|
| 1 no active game, 2 lobby ended, 8 registration full | waits and registers again (for the next round) |
| 3 not registered in the current round | registers again |
| 4 invalid request body | counts it and goes on (the bot's body was rejected; the turn is lost) |
| 5 bad token (401), 7 not found / method not allowed | stops: retrying cannot help |
| 6 rate limited (429) | sleeps `Retry-After`, then goes on |
| 0 internal error (500), a non-JSON reply, a network error | waits a little and retries |

Every request runs inside a total deadline (`request_timeout_s`), and the whole run inside `max_seconds`.
The bot's randomness comes from `seed` (there is no `start` payload over HTTP, §10).
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections import deque
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from botarena.games.datspulse.bots import STARTERS

log = logging.getLogger(__name__)

ARENA, MOVE, REGISTER = "/api/arena", "/api/move", "/api/register"
#: §7.1 codes after which retrying cannot help.
FATAL_CODES = {5: "invalid or missing token", 7: "no DatsPulse API at this URL"}
RATE_WINDOW_S = 2.0
#: Time added to every rate-limit wait: the server counts arrivals, which trail our sends by the latency.
RATE_MARGIN_S = 0.05
RETRY_PAUSE_S = 1.0
#: The longest pause between arena polls while the round has not started yet.
LOBBY_POLL_S = 0.5


class ClientError(ValueError):
    """The run cannot go on (bad token, wrong URL); the message says why in one line."""


@dataclass
class ClientOptions:
    """How to reach the server and what to play. `rate_limit` is the server's `rate_limit_per_second`."""

    url: str
    token: str
    bot: str = "forager"
    seed: int = 0
    rounds: int = 1
    rate_limit: int = 3
    request_timeout_s: float = 10.0
    max_seconds: float = 3600.0


@dataclass
class ClientReport:
    """What happened: per round played, the turns with an accepted move, and every HTTP status seen."""

    rounds_played: int = 0
    realms: list[str] = field(default_factory=list)
    moved_turns: list[int] = field(default_factory=list)
    final_turn: int | None = None
    final_score: int | None = None
    move_errors: int = 0
    statuses: dict[int, int] = field(default_factory=dict)
    rate_limited: int = 0
    bot_failures: int = 0

    def count(self, status: int) -> None:
        self.statuses[status] = self.statuses.get(status, 0) + 1
        if status == 429:
            self.rate_limited += 1


@dataclass
class Answer:
    """One HTTP exchange: status, the parsed JSON body (None if it was not JSON), Retry-After."""

    status: int
    body: Any
    retry_after: float = 0.0

    @property
    def code(self) -> int | None:
        """The §7.1 `PublicError` code of a non-200 reply."""
        if isinstance(self.body, Mapping) and isinstance(self.body.get("code"), int):
            return int(self.body["code"])
        return None


class RateLimiter:
    """At most `per_second` x 2 sends in any sliding 2 seconds (§7.1), waiting before a send if needed."""

    def __init__(self, per_second: int, clock: Callable[[], float] = time.monotonic) -> None:
        self.limit = max(1, 2 * per_second)
        self.sent: deque[float] = deque()
        self.clock = clock

    def delay(self) -> float:
        """How long to wait before the next send may go."""
        now = self.clock()
        while self.sent and now - self.sent[0] >= RATE_WINDOW_S + RATE_MARGIN_S:
            self.sent.popleft()
        if len(self.sent) < self.limit:
            return 0.0
        return self.sent[0] + RATE_WINDOW_S + RATE_MARGIN_S - now

    def note(self) -> None:
        self.sent.append(self.clock())

    async def wait(self) -> None:
        while (pause := self.delay()) > 0:
            await asyncio.sleep(pause)
        self.note()


#: What a `SpecBot`'s turn leaves to the move request: its deadline is the time to the next turn less this.
MOVE_MARGIN_S = 0.1
#: The shortest and the longest time a `SpecBot` is given for a turn (seconds).
MIN_TURN_S, MAX_TURN_S = 0.05, 10.0
SETUP_TIMEOUT_S = 10.0
END_TIMEOUT_S = 2.0


class BotFailed(RuntimeError):
    """A bot's reply to one turn that the client cannot send (it timed out, crashed or was unreadable)."""


def make_bot(spec: str, seed: int) -> Any:
    """The bot `spec` names, set up with `seed` (its `bot_seed`; no config over HTTP, so spec defaults).

    A starter's name gives the starter itself; any other spec `botarena play` takes (a Python file, a
    folder, a command line, ...) is resolved by `botarena.bots.resolve` and driven as a `SpecBot`.
    A spec that names nothing playable is a ClientError (one line)."""
    factory = STARTERS.get(spec)
    if factory is not None:
        bot = factory()
        bot.setup({"bot_seed": seed})
        return bot
    from botarena.bots.resolve import TRUSTED, BotSpecError, resolve_bot
    from botarena.core.registry import get_game

    try:  # the team's own code on its own machine: trusted, as `play` trusts it
        transport = resolve_bot(spec, get_game("datspulse"), isolation=TRUSTED)
    except BotSpecError as exc:
        raise ClientError(str(exc)) from None
    return SpecBot(transport, seed)


def http_start_payload(seed: int) -> dict[str, Any]:
    """The `start` message of a bot playing over HTTP: the game, its ruleset, `bot_seed` and the
    spec's default config. The server tells a team nothing more (§10): no team index, name or count."""
    from botarena.games.datspulse.config import RULES_VERSION, datspulse_config

    config = datspulse_config("default", {}).lockstep_dict()
    return {"game": "datspulse", "ruleset": RULES_VERSION, "bot_seed": seed, "config": dict(config)}


class SpecBot:
    """A `botarena.bots` transport (a subprocess, an in-process Python file, ...) as the client's bot:
    `setup`, `act` and `close` become the lockstep protocol's start, turn and end messages."""

    def __init__(self, transport: Any, seed: int) -> None:
        self.transport = transport
        self.seed = seed
        self.name = str(getattr(transport, "name", "bot"))
        self._ids = 0
        self._opened = False
        self.last: Any = None  # the last arena it was shown (for its end message)

    def _ask(self, kind: Any, payload: Any, timeout_s: float, turn: int = 0) -> Any:
        from botarena.core.protocol import Request
        from botarena.core.status import Status

        self._ids += 1
        request = Request(seat=0, payload=payload, timeout_ms=int(timeout_s * 1000), type=kind, turn=turn)
        self.transport.send(request, self._ids, timeout_s)
        reply = self.transport.receive()
        if reply.status is not Status.OK:
            raise BotFailed(f"bot {self.name}: {reply.status.value} ({reply.reason or 'no reason'})")
        return reply.payload

    def setup(self, start: Any) -> Any:
        """Start the bot (its process, its instance) and send it the start message."""
        from botarena.core.protocol import MessageType

        self.transport.open("datspulse-http", 0)
        self._opened = True
        return self._ask(MessageType.START, start, SETUP_TIMEOUT_S)

    def act(self, observation: Mapping[str, Any]) -> Any:
        """One turn: the arena (with `errors`) in, the moves body out, within the time to the next turn."""
        from botarena.core.protocol import MessageType

        self.last = observation
        left = _seconds(observation.get("nextTurnIn")) - MOVE_MARGIN_S
        timeout = min(MAX_TURN_S, max(MIN_TURN_S, left))
        return self._ask(MessageType.TURN, dict(observation), timeout, _int(observation.get("turnNo")))

    def close(self, score: int | None = None) -> None:
        """Send the end message (the last arena and score seen) and stop the bot; never raises."""
        from botarena.core.protocol import MessageType

        if not self._opened:
            return
        self._opened = False
        try:
            self._ask(MessageType.END, {"observation": self.last, "score": score}, END_TIMEOUT_S)
        except Exception as exc:  # its end does not matter any more: only its process must go
            log.info("the bot's end message: %s", exc)
        finally:
            log_text = self.transport.close().text
            if log_text:
                log.info("the bot's log (last lines):\n%s", "\n".join(log_text.splitlines()[-20:]))


class DatsPulseClient:
    """Plays `options.rounds` rounds with one bot. Use `await client.run()` (or `run_client`)."""

    def __init__(self, options: ClientOptions, bot: Any | None = None) -> None:
        self.options = options
        self.base = options.url.rstrip("/")
        if self.base.endswith("/api"):
            self.base = self.base[: -len("/api")]
        if bot is None:
            bot = make_bot(options.bot, options.seed)
            if isinstance(bot, SpecBot):
                try:
                    bot.setup(http_start_payload(options.seed))
                except BotFailed as exc:  # it cannot play: say so now, before registering
                    bot.close()
                    raise ClientError(f"the bot did not start: {exc}") from None
        self.bot = bot
        self.limiter = RateLimiter(options.rate_limit)
        self.report = ClientReport()
        self._session: Any = None

    async def run(self) -> ClientReport:
        aiohttp = _aiohttp()
        timeout = aiohttp.ClientTimeout(total=self.options.request_timeout_s)
        headers = {"X-Auth-Token": self.options.token, "Content-Type": "application/json"}
        async with aiohttp.ClientSession(timeout=timeout, headers=headers) as session:
            self._session = session
            try:
                await asyncio.wait_for(self._rounds(), self.options.max_seconds)
            except TimeoutError:
                log.warning("stopped after max_seconds=%s", self.options.max_seconds)
            finally:
                self._session = None
                if isinstance(self.bot, SpecBot):  # its process ends with the client
                    await asyncio.to_thread(self.bot.close, self.report.final_score)
        return self.report

    async def _rounds(self) -> None:
        while self.report.rounds_played < self.options.rounds:
            await self._register()
            if await self._play_round():
                self.report.rounds_played += 1

    # -- HTTP ----------------------------------------------------------------------------------
    async def request(self, method: str, path: str, body: Any = None) -> Answer:
        """One request within the rate limit and the total deadline; network failures become status 0."""
        import orjson

        aiohttp = _aiohttp()

        await self.limiter.wait()
        data = orjson.dumps(body) if body is not None else None
        try:
            async with self._session.request(method, self.base + path, data=data) as response:
                raw = await response.read()
                retry_after = _seconds(response.headers.get("Retry-After"))
                status = response.status
        except (aiohttp.ClientError, TimeoutError, OSError) as exc:
            log.warning("%s %s failed: %s", method, path, exc or type(exc).__name__)
            self.report.count(0)
            return Answer(0, None)
        self.report.count(status)
        try:
            parsed = orjson.loads(raw)
        except orjson.JSONDecodeError:
            parsed = None
        return Answer(status, parsed, retry_after)

    async def _on_error(self, answer: Answer, what: str) -> None:
        """The common handling of a non-200 answer (see the module docstring's table)."""
        code = answer.code
        if code in FATAL_CODES:
            message = answer.body.get("message", "") if isinstance(answer.body, Mapping) else ""
            raise ClientError(f"{what}: HTTP {answer.status} code {code}: {FATAL_CODES[code]} ({message})")
        if answer.status == 429:
            await asyncio.sleep(max(answer.retry_after, 0.1))
        elif answer.status == 0 or answer.status >= 500 or answer.body is None:
            await asyncio.sleep(RETRY_PAUSE_S)

    # -- lobby ---------------------------------------------------------------------------------
    async def _register(self) -> None:
        """§7.2 register, until the server lists this team for the coming (or running) round."""
        while True:
            answer = await self.request("POST", REGISTER)
            if answer.status == 200 and isinstance(answer.body, Mapping):
                realm = str(answer.body.get("realm", ""))
                log.info("registered for %s", realm)
                self.report.realms.append(realm)
                lobby_ends_in = _seconds(answer.body.get("lobbyEndsIn"))
                if lobby_ends_in > 0:
                    await asyncio.sleep(
                        min(lobby_ends_in, _seconds(answer.body.get("nextTurn")) or lobby_ends_in)
                    )
                return
            await self._on_error(answer, "register")
            if answer.code in (1, 2, 8):  # no lobby open now: try again later
                await asyncio.sleep(RETRY_PAUSE_S)

    # -- the round -----------------------------------------------------------------------------
    async def _play_round(self) -> bool:
        """Turns until the final state. True when the round ended, False to register again."""
        last_moved = -1
        errors: list[str] = []
        while True:
            answer = await self.request("GET", ARENA)
            if answer.status != 200 or not isinstance(answer.body, Mapping):
                if answer.code in (1, 3):  # not (or no longer) in a round
                    return last_moved >= 0
                await self._on_error(answer, "arena")
                continue
            arena = answer.body
            turn = _int(arena.get("turnNo"))
            next_turn_in = _seconds(arena.get("nextTurnIn"))
            if not arena.get("home"):  # the lobby arena: the round has not started yet
                # at most half the rate limit, so the first arena and move of the round still fit
                await asyncio.sleep(min(LOBBY_POLL_S, 2.0 / self.options.rate_limit))
                continue
            if next_turn_in <= 0 and turn > 0:  # the final state (§4)
                self._finish(arena)
                return True
            if turn <= last_moved:  # already played this turn
                await asyncio.sleep(max(next_turn_in, 0.01))
                continue
            reply = await self._move(arena, errors)
            if reply is None:
                await asyncio.sleep(max(next_turn_in, 0.01))
                continue
            last_moved = turn
            errors = [str(e) for e in reply.get("errors") or []]
            if errors == ["round is over"]:
                self._finish(reply)
                return True
            await asyncio.sleep(max(_seconds(reply.get("nextTurnIn")), 0.01))

    async def _move(self, arena: Mapping[str, Any], errors: list[str]) -> Mapping[str, Any] | None:
        """Ask the bot and post its moves; the move reply (arena plus `errors`), or None if none was taken."""
        observation = {**arena, "errors": errors}
        try:  # in a worker thread: a slow bot does not hold up other clients' requests in this loop
            body = await asyncio.to_thread(self.bot.act, observation)
        except BotFailed as exc:  # a lockstep bot's timeout, crash or unreadable reply: this turn is lost
            log.warning("turn %s: %s", arena.get("turnNo"), exc)
            self.report.bot_failures += 1
            return None
        except Exception:  # a bot's own bug must not stop the client
            log.exception("the bot failed at turn %s", arena.get("turnNo"))
            self.report.bot_failures += 1
            return None
        answer = await self.request("POST", MOVE, body)
        if answer.status == 200 and isinstance(answer.body, Mapping):
            self.report.moved_turns.append(_int(answer.body.get("turnNo")))
            self.report.move_errors += len(answer.body.get("errors") or [])
            return answer.body
        if answer.code == 4:
            log.warning("move body rejected: %s", answer.body)
        await self._on_error(answer, "move")
        return None

    def _finish(self, arena: Mapping[str, Any]) -> None:
        self.report.final_turn = _int(arena.get("turnNo"))
        self.report.final_score = _int(arena.get("score"))
        log.info("round over at turn %s, score %s", self.report.final_turn, self.report.final_score)


def _aiohttp() -> Any:
    try:
        import aiohttp
    except ImportError as exc:  # an optional dependency (DESIGN, *Conventions*)
        raise ClientError("the DatsPulse client needs aiohttp: pip install 'botarena[http]'") from exc
    return aiohttp


def _seconds(value: Any) -> float:
    try:
        return max(0.0, float(value))
    except (TypeError, ValueError):
        return 0.0


def _int(value: Any) -> int:
    return int(value) if isinstance(value, int | float) and not isinstance(value, bool) else 0


def run_client(options: ClientOptions) -> ClientReport:
    """Run a client to the end of its rounds (blocking)."""
    return asyncio.run(DatsPulseClient(options).run())
