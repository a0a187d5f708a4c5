"""URL entries sealed at match time (specs/arena.md: URL entries, Bad input, Security's URL zoo; goal
G9): a URL entry's host is checked again right before every match, on the worker (only there: the
coordinator looks no name up), against the competition's allow-list the task carries, and its bot
connects only to the addresses just checked
(never a lookup of its own: no DNS rebinding between the check and the call); its secure key goes
out as `X-SECURE-KEY` and nowhere else; a refusal fails the match as the entry's fault alone; a URL
entry that never answers at validation is rejected `unreachable`.

Every service is a real aiohttp server on a loopback address with an ephemeral port. Host names are
answered by a fake resolver (the arena's `system_resolver` replaced); the allow-list (`url_allow`)
lets a loopback address stand for a team's public one, and 127.0.0.1 outside it stands for the
server's own loopback that a rebinding attacker aims at. The coordinator runs in the test's thread
over an inline executor whose tasks run when the test says: every wait is on store state."""

from __future__ import annotations

import asyncio
import gzip
import socket
import threading
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Executor, Future
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

import pytest
from aiohttp import web

import botarena.bots.urls as urls
from botarena.arena.competitions import check_setup, create_competition, policy_of
from botarena.arena.coordinator import ArenaCoordinator, CoordinatorOptions
from botarena.arena.uploads import Sent, register_url
from botarena.arena.vocabulary import UrlRejection
from botarena.bots.devops_http import DevopsHttpBot
from botarena.bots.http import REDIRECT
from botarena.bots.resolve import Isolation
from botarena.bots.subprocess import block_thread_signals
from botarena.bots.urls import UrlRejected, sealed_url_bot
from botarena.core.protocol import MessageType, Request
from botarena.core.registry import get_game
from botarena.core.status import Status
from botarena.store import Store
from botarena.store.arena_versions import ArenaVersions
from botarena.tournament.executor import MatchFailure, MatchTask, play_batch
from waiting import wait_until

from .arena_world import World, open_world
from .conftest import ArenaApp
from .coordinating import drive

# A short drones match with limits far above a local call, so a loaded box never makes a TIMEOUT.
CONFIG: dict[str, Any] = {"rounds": 1, "turn_limit": 4, "turn_timeout_ms": 5000, "setup_timeout_ms": 5000}
FAST = CoordinatorOptions(poll_s=0.05, heartbeat_s=0.5)
NO_SANDBOX = Isolation(python_in_process=False, sandbox=None)  # only HTTP and starter bots play here
TEAM_ADDRESS = "127.0.0.2"  # stands for the team's public address: the only one allow-listed
TEAM_NET = f"{TEAM_ADDRESS}/32"
LOOPBACK = "127.0.0.1"  # the server's own loopback: outside the allow-list
KEY = "sk-0f7c1e9a-canary-4b2d"


# ------------------------------------------------------------------------------ services


@dataclass
class Seen:
    path: str
    host: str
    key: str | None


@dataclass
class Service:
    """A team's HTTP service on `host`:`port` (0: a free port) on its own loop thread. It answers the
    generic protocol (drones: a starter's move each turn) and Devops calls (`/moves/...`), or, with
    `redirect_to`, a 302 there for every call; it records each request's path, Host and key."""

    host: str = LOOPBACK
    port: int = 0
    redirect_to: str | None = None
    fail_status: int | None = None  # every call answered with this HTTP error status
    hang: bool = False  # every call accepted and never answered
    seen: list[Seen] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.released = asyncio.Event()
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
        app.router.add_route("*", "/{tail:.*}", self.handle)
        runner = web.AppRunner(app)
        await runner.setup()
        await web.TCPSite(runner, self.host, self.port).start()
        return runner

    async def handle(self, request: web.Request) -> web.StreamResponse:
        self.seen.append(
            Seen(request.path, request.headers.get("Host", ""), request.headers.get("X-SECURE-KEY"))
        )
        if self.redirect_to is not None:
            raise web.HTTPFound(self.redirect_to)
        if self.fail_status is not None:
            return web.Response(status=self.fail_status, text="the service is broken")
        if self.hang:
            await self.released.wait()  # set only when the service stops: the caller's deadline ends the call
            return web.Response(status=503)
        if "/moves/" in request.path:
            return web.json_response({})
        envelope = await request.json()
        payload: dict[str, Any] = {}
        if envelope.get("type") == "turn":
            observation = envelope.get("payload") or {}
            payload = {
                "newProducers": observation.get("producers", 0),
                "newSoldiers": 0,
                "launchAttack": False,
            }
        return web.json_response({"id": envelope["id"], "payload": payload})

    def stop(self) -> None:
        self.loop.call_soon_threadsafe(self.released.set)  # a hanging call ends, so cleanup does not wait
        asyncio.run_coroutine_threadsafe(self.runner.cleanup(), self.loop).result(10)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(5)


@pytest.fixture
def services() -> Iterator[Callable[..., Service]]:
    started: list[Service] = []

    def start(**kwargs: Any) -> Service:
        service = Service(**kwargs)
        started.append(service)
        return service

    yield start
    for service in started:
        service.stop()


def free_port() -> int:
    """A port nothing listens on (bound and released): a call to it is refused."""
    with socket.socket() as probe:
        probe.bind((LOOPBACK, 0))
        return int(probe.getsockname()[1])


# ------------------------------------------------------------------------------ names


class Names:
    """The fake DNS every check asks (`bots.urls.system_resolver` replaced): `table[host]`; a name
    it does not hold fails as a real lookup does (`unresolvable`)."""

    def __init__(self) -> None:
        self.table: dict[str, list[str]] = {}
        self.asked: list[str] = []

    def __call__(self, host: str, port: int) -> Sequence[str]:
        self.asked.append(host)
        if host not in self.table:
            raise UrlRejected(
                UrlRejection.UNRESOLVABLE, f"{host} does not resolve: [Errno -2] Name or service not known"
            )
        return self.table[host]


@pytest.fixture
def names(monkeypatch: pytest.MonkeyPatch) -> Names:
    fake = Names()
    monkeypatch.setattr(urls, "system_resolver", fake)
    monkeypatch.setattr(urls, "server_addresses", lambda: frozenset())
    return fake


@pytest.fixture
def rebinding_getaddrinfo(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """What a rebinding attacker's DNS gives anyone who looks `team.example` up *outside* the
    arena's check: the server's loopback. Returns the hosts so looked up."""
    real = socket.getaddrinfo
    looked_up: list[str] = []

    def getaddrinfo(host: Any, port: Any, *args: Any, **kwargs: Any) -> Any:
        if isinstance(host, str) and host.rstrip(".").endswith("team.example"):
            looked_up.append(host)
            return real(LOOPBACK, port, *args, **kwargs)
        return real(host, port, *args, **kwargs)

    monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)
    return looked_up


# ------------------------------------------------------------------------------ the coordinator


class InlineExecutor(Executor):
    """Tasks run only when the test runs them, in its thread; `on_worker` is set while one runs, so a
    resolver can answer the worker's check otherwise than the coordinator's."""

    slots = 2

    def __init__(self) -> None:
        self.pending: list[tuple[Future[Any], Callable[..., Any], tuple[Any, ...]]] = []
        self.on_worker = False
        self.tasks: list[MatchTask] = []

    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Future[Any]:
        future: Future[Any] = Future()
        self.pending.append((future, fn, args))
        self.tasks.extend(args[0])
        return future

    def run_first(self) -> None:
        future, fn, args = self.pending.pop(0)
        self.on_worker = True
        try:
            future.set_result(fn(*args))
        finally:
            self.on_worker = False


@dataclass
class Run:
    world: World
    coordinator: ArenaCoordinator
    executor: InlineExecutor

    def version(self, version: int) -> Any:
        found = self.world.runs.get_version(version)
        assert found is not None
        return found

    def until(self, what: Callable[[], bool]) -> None:
        drive(self.coordinator, self.executor, what)

    def settled(self, *versions: int) -> Callable[[], bool]:
        def look() -> bool:
            return all(self.version(v).state in ("active", "rejected") for v in versions)

        return look


@pytest.fixture
def sqlite_store(tmp_path: Any) -> Iterator[Store]:
    opened = Store.open(f"sqlite:///{tmp_path / 'arena.db'}", replay_dir=tmp_path / "replays")
    try:
        yield opened
    finally:
        opened.close()


def url_world(
    store: Store,
    teams: int = 1,
    url_allow: Sequence[str] = (TEAM_NET,),
    config: dict[str, Any] | None = None,
    **policy: Any,
) -> World:
    allowed = list(url_allow)
    return open_world(store, teams, config=config or CONFIG, allow_url=True, url_allow=allowed, **policy)


def register(world: World, team: int, url: str, key: str | None = None) -> int:
    """A `received` URL version of team `team`, registered as the route registers it (checked)."""
    row, created = register_url(
        ArenaVersions(world.arena), world.teams[team], url, key, policy_of(world.competition), Sent(),
        at=datetime.now(UTC),
    )  # fmt: skip
    assert created
    return row.id


@pytest.fixture
def coordinated(sqlite_store: Store) -> Iterator[Callable[[World], Run]]:
    made: list[ArenaCoordinator] = []

    def start(world: World) -> Run:
        executor = InlineExecutor()
        coordinator = ArenaCoordinator(
            world.store, world.competition.id, executor, isolation=NO_SANDBOX, options=FAST
        )
        coordinator.start()
        made.append(coordinator)
        return Run(world, coordinator, executor)

    yield start
    for coordinator in made:
        coordinator.close()


def validation_matches(world: World, version: int) -> list[Any]:
    found = world.runs.matches(world.competition.tournament_id, kind="validation")
    return [m for m in found if version in m.versions.values()]


def one_line(text: str | None) -> str:
    assert text, "no reason"
    assert "\n" not in text and len(text) <= 300, text
    return text


# ------------------------------------------------------------------------------ (a) rebinding


@pytest.mark.timeout(120)
def test_g9_a_name_rebound_to_loopback_after_registration_is_refused_at_match_time(
    sqlite_store: Store, names: Names, services: Callable[..., Service], coordinated: Callable[[World], Run]
) -> None:
    """Registered while `team.example` answered the team's address; it now answers loopback: no
    match calls anything, the version is rejected `unreachable` with the refusal in one line, and
    neither the loopback service nor the team's ever sees a request."""
    team = services(host=TEAM_ADDRESS)
    loopback = services(host=LOOPBACK, port=team.port)  # what a rebinding attacker points the name at
    names.table["team.example"] = [TEAM_ADDRESS]
    world = url_world(sqlite_store)
    version = register(world, 0, f"http://team.example:{team.port}/bot", KEY)
    names.table["team.example"] = [LOOPBACK]
    run = coordinated(world)
    run.until(run.settled(version))
    found = run.version(version)
    assert (found.state, found.reason_code) == ("rejected", "unreachable")
    assert "team.example resolves to 127.0.0.1" in one_line(found.reason)
    assert "loopback" in found.reason
    assert KEY not in found.reason
    assert loopback.seen == [] and team.seen == []
    matches = validation_matches(world, version)
    assert matches and {m.status for m in matches} == {"failed"}


@pytest.mark.timeout(120)
def test_g9_only_the_worker_looks_a_url_entry_up_so_a_stalling_name_never_holds_the_coordinator(
    sqlite_store: Store,
    names: Names,
    services: Callable[..., Service],
    coordinated: Callable[[World], Run],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Every lookup of the entry's name happens on the worker, right before its match (none in the
    coordinator's loop, where a team's slow resolver would hold every competition's scheduling up to
    the lookup's timeout); here the worker's lookup sees loopback and refuses: the match fails as the
    entry's fault (`unreachable`, never a platform retry) and the loopback service receives nothing."""
    team = services(host=TEAM_ADDRESS)
    loopback = services(host=LOOPBACK, port=team.port)
    names.table["team.example"] = [TEAM_ADDRESS]
    world = url_world(sqlite_store)
    version = register(world, 0, f"http://team.example:{team.port}/bot", KEY)
    run = coordinated(world)
    lookups: list[bool] = []  # for each lookup: whether a worker made it

    def worker_sees_loopback(host: str, port: int) -> Sequence[str]:
        lookups.append(run.executor.on_worker)
        return [LOOPBACK]

    monkeypatch.setattr(urls, "system_resolver", worker_sees_loopback)
    run.until(run.settled(version))
    found = run.version(version)
    assert (found.state, found.reason_code) == ("rejected", "unreachable")
    assert one_line(found.reason).startswith(
        "refused at match time: t0#1: team.example resolves to 127.0.0.1"
    )
    assert lookups and all(lookups), lookups
    assert run.coordinator.summary.platform_failures == 0
    assert run.executor.tasks and all(t.url_allow == (TEAM_NET,) for t in run.executor.tasks)
    assert loopback.seen == [] and team.seen == []


@pytest.mark.timeout(120)
def test_g9_a_sealed_bot_never_looks_its_host_up_so_rebinding_after_the_check_reaches_nothing(
    sqlite_store: Store,
    names: Names,
    services: Callable[..., Service],
    coordinated: Callable[[World], Run],
    rebinding_getaddrinfo: list[str],
) -> None:
    """DNS rebinding proper: every arena check sees the team's address, while any other lookup of
    the name (the system's, as an unpinned HTTP client would make) answers loopback. The match plays
    against the team's service only: the loopback service on the same port receives 0 requests."""
    team = services(host=TEAM_ADDRESS)
    loopback = services(host=LOOPBACK, port=team.port)
    names.table["team.example"] = [TEAM_ADDRESS]
    world = url_world(sqlite_store)
    version = register(world, 0, f"http://team.example:{team.port}/bot", KEY)
    run = coordinated(world)
    run.until(run.settled(version))
    assert run.version(version).state == "active", run.version(version).reason
    assert team.seen and {seen.host for seen in team.seen} == {f"team.example:{team.port}"}
    assert loopback.seen == []
    assert rebinding_getaddrinfo == []  # nothing but the arena's check ever asked for the name


def test_g9_play_task_refuses_a_rebound_url_entry_before_any_call(
    sqlite_store: Store, names: Names, services: Callable[..., Service]
) -> None:
    """The worker alone (as a Dask worker would run it): the task carries the allow-list and the
    config's digest, never the key; a name now on loopback is EntryRefused for its seat only."""
    loopback = services(host=LOOPBACK)
    names.table["team.example"] = [TEAM_ADDRESS]
    world = url_world(sqlite_store)
    version = register(world, 0, f"http://team.example:{loopback.port}/bot", KEY)
    view = world.runs.get_version(version)
    assert view is not None and view.artifact is not None and view.spec is not None
    names.table["team.example"] = [LOOPBACK]
    from botarena.store.artifacts import artifact_source

    task = MatchTask(
        tournament_id=world.competition.tournament_id, key="m1", game="drones", preset="default",
        overrides=dict(CONFIG), seed=7, seats=("starter:zergy", "t0#1"), specs=("zergy", view.spec),
        isolation=NO_SANDBOX, artifacts=(None, view.artifact),
        artifact_source=artifact_source(sqlite_store.connect_url), url_allow=(TEAM_NET,),
    )  # fmt: skip
    assert KEY not in repr(task)
    (failure,) = play_batch([task])
    assert isinstance(failure, MatchFailure)
    assert failure.refused_seats == (1,) and not failure.platform and not failure.retry
    assert "t0#1: team.example resolves to 127.0.0.1" in one_line(failure.error)
    assert loopback.seen == []
    refused_by_policy = play_batch([MatchTask(**{**task.__dict__, "url_allow": None})])[0]
    assert isinstance(refused_by_policy, MatchFailure) and refused_by_policy.refused_seats == (1,)
    assert "URL entries" in refused_by_policy.error or "uploads only" in refused_by_policy.error


@pytest.mark.timeout(120)
def test_g9_a_rated_match_refused_at_match_time_is_the_entrys_fault_alone(
    sqlite_store: Store, names: Names, services: Callable[..., Service], coordinated: Callable[[World], Run]
) -> None:
    """Two active URL entries; one's name then rebinds to loopback. Its rated matches fail (recorded
    failed, never rated), it alone counts CRASHED (crash_streak 1 pauses it), and its innocent
    opponent is neither paused nor rated for a match that was never played."""
    good_service = services(host=TEAM_ADDRESS)
    bad_service = services(host=TEAM_ADDRESS)
    names.table["good.example"] = [TEAM_ADDRESS]
    names.table["bad.example"] = [TEAM_ADDRESS]
    world = url_world(sqlite_store, 2, crash_streak=1, crash_window=1)
    good = register(world, 0, f"http://good.example:{good_service.port}/bot")
    bad = register(world, 1, f"http://bad.example:{bad_service.port}/bot")
    run = coordinated(world)
    run.until(run.settled(good, bad))
    assert (run.version(good).state, run.version(bad).state) == ("active", "active")
    calls_before = len(bad_service.seen)
    names.table["bad.example"] = [LOOPBACK]
    run.until(lambda: run.version(bad).state == "paused")
    assert run.version(good).state == "active"
    rated = world.runs.matches(world.competition.tournament_id, kind="rated")
    assert rated and {m.status for m in rated} == {"failed"}
    errors = [one_line(sqlite_store.get_match(m.id).error) for m in rated]  # type: ignore[union-attr]
    assert all("resolves to 127.0.0.1" in e for e in errors)
    assert world.runs.ratings(world.competition.id)[good].games == 0
    assert len(bad_service.seen) == calls_before


# ------------------------------------------------------------------------------ (b) pinned, Host kept


LOOPBACK_NET = "127.0.0.0/8"  # a course LAN on loopback: the test's services are allowed


def devops_call(bot: DevopsHttpBot) -> Any:
    """One Devops base call through the bot's batch path; its reply."""
    request = Request(
        seat=0, payload={"call": "base", "input": {"context": {"gameId": "g"}}}, timeout_ms=5000,
        type=MessageType.TURN, turn=1,
    )  # fmt: skip
    bot.open("url-match", 0)
    try:
        bot.send_batch([request])
        (reply,) = bot.receive_batch()
    finally:
        bot.close()
    return reply


def config_of(url: str, key: str | None) -> bytes:
    from botarena.arena.uploads import url_config

    checked = urls.check_url(url, urls.match_policy((LOOPBACK_NET,)), own_addresses=())
    return url_config(checked, key)


@pytest.mark.parametrize("lean", [True, False], ids=["lean-pool", "aiohttp"])
def test_g9_a_pinned_devops_call_connects_to_the_checked_address_and_names_the_host(
    names: Names, services: Callable[..., Service], monkeypatch: pytest.MonkeyPatch, lean: bool
) -> None:
    """The arena's check maps `team.example` to 127.0.0.1; the system's lookup of the name (what an
    unpinned client would make) answers the attacker's 127.0.0.2, where another service listens on
    the same port. The sealed Devops bot, through either of its clients, reaches the checked address
    only, its Host header names the host, its key arrives as X-SECURE-KEY, and nobody looked the
    name up."""
    import botarena.bots.devops_http as devops_http

    if not lean:
        monkeypatch.setattr(devops_http, "HAVE_HTTPTOOLS", False)
    service = services(host=LOOPBACK)
    elsewhere = services(host=TEAM_ADDRESS, port=service.port)
    names.table["team.example"] = [LOOPBACK]
    real = socket.getaddrinfo
    looked_up: list[str] = []

    def attacker(host: Any, port: Any, *args: Any, **kwargs: Any) -> Any:
        if isinstance(host, str) and host.endswith("team.example"):
            looked_up.append(host)
            return real(TEAM_ADDRESS, port, *args, **kwargs)
        return real(host, port, *args, **kwargs)

    monkeypatch.setattr(socket, "getaddrinfo", attacker)
    url = f"http://team.example:{service.port}/svc"
    bot = sealed_url_bot(config_of(url, KEY), get_game("devops"), (LOOPBACK_NET,))
    assert isinstance(bot, DevopsHttpBot)
    reply = devops_call(bot)
    assert reply.status is Status.OK, reply
    seen = [(s.path, s.host, s.key) for s in service.seen]
    assert seen == [("/svc/moves/base", f"team.example:{service.port}", KEY)]
    assert elsewhere.seen == [] and looked_up == []
    assert KEY not in repr(bot.describe())


@pytest.mark.timeout(120)
def test_g9_a_pinned_http_bot_match_connects_to_the_checked_address_and_names_the_host(
    sqlite_store: Store, names: Names, services: Callable[..., Service], coordinated: Callable[[World], Run]
) -> None:
    """Through the coordinator and the worker (drones, the generic HttpBot): `team.example` is
    nothing to the system, yet its match plays against 127.0.0.1, every request naming the host and
    carrying the key."""
    service = services(host=LOOPBACK)
    names.table["team.example"] = [LOOPBACK]
    world = url_world(sqlite_store, url_allow=(LOOPBACK_NET,))
    version = register(world, 0, f"http://team.example:{service.port}/bot", KEY)
    run = coordinated(world)
    run.until(run.settled(version))
    assert run.version(version).state == "active", run.version(version).reason
    assert service.seen
    assert {(s.path, s.host, s.key) for s in service.seen} == {("/bot", f"team.example:{service.port}", KEY)}


# ------------------------------------------------------------------------------ (c) no redirect


@pytest.mark.timeout(120)
def test_g9_a_302_to_loopback_is_never_followed_in_a_match(
    sqlite_store: Store, names: Names, services: Callable[..., Service], coordinated: Callable[[World], Run]
) -> None:
    """The team's service answers every call with a 302 to the server's loopback: the seat is
    CRASHED `redirect`, the version rejected, and the loopback target receives 0 requests."""
    target = services(host=LOOPBACK)
    team = services(host=TEAM_ADDRESS, redirect_to=f"http://{LOOPBACK}:{target.port}/secret")
    names.table["team.example"] = [TEAM_ADDRESS]
    world = url_world(sqlite_store)
    version = register(world, 0, f"http://team.example:{team.port}/bot", KEY)
    run = coordinated(world)
    run.until(run.settled(version))
    found = run.version(version)
    assert found.state == "rejected" and found.reason_code != "unreachable"  # it answered: a redirect
    assert f"({REDIRECT})" in one_line(found.reason)
    assert team.seen and target.seen == []


def test_g9_a_302_to_loopback_is_never_followed_by_a_sealed_devops_bot(
    names: Names, services: Callable[..., Service]
) -> None:
    target = services(host=LOOPBACK)
    team = services(host=LOOPBACK, redirect_to=f"http://{LOOPBACK}:{target.port}/secret")
    names.table["team.example"] = [LOOPBACK]
    bot = sealed_url_bot(
        config_of(f"http://team.example:{team.port}", KEY), get_game("devops"), (LOOPBACK_NET,)
    )
    assert isinstance(bot, DevopsHttpBot)
    reply = devops_call(bot)
    assert reply.status is Status.CRASHED and reply.warnings[0]["code"] == "HTTP_REDIRECT"
    assert len(team.seen) == 1 and target.seen == []


# ------------------------------------------------------------------------------ (e) unreachable


@pytest.mark.timeout(120)
def test_bad_input_a_url_refusing_connections_at_validation_is_rejected_unreachable_once(
    sqlite_store: Store, names: Names, coordinated: Callable[[World], Run]
) -> None:
    """Nothing listens at the entry's port: every call is refused. The version is rejected
    `unreachable` with the host error in one line, and never tried again."""
    names.table["team.example"] = [LOOPBACK]
    world = url_world(sqlite_store, url_allow=(LOOPBACK_NET,))
    port = free_port()
    version = register(world, 0, f"http://team.example:{port}/bot", KEY)
    run = coordinated(world)
    run.until(run.settled(version))
    found = run.version(version)
    assert (found.state, found.reason_code) == ("rejected", "unreachable")
    reason = one_line(found.reason)
    assert "never reached" in reason and f"team.example:{port}" in reason and KEY not in reason
    played = len(validation_matches(world, version))
    for _ in range(20):  # the coordinator goes on: the rejected version gets no further match
        run.coordinator.tick()
        if run.executor.pending:
            run.executor.run_first()
    assert len(validation_matches(world, version)) == played
    assert run.version(version).state == "rejected"


@pytest.mark.timeout(120)
def test_bad_input_a_url_whose_name_stops_resolving_is_rejected_unreachable(
    sqlite_store: Store, names: Names, coordinated: Callable[[World], Run]
) -> None:
    names.table["gone.example"] = [TEAM_ADDRESS]
    world = url_world(sqlite_store)
    version = register(world, 0, "http://gone.example/bot")
    del names.table["gone.example"]
    run = coordinated(world)
    run.until(run.settled(version))
    found = run.version(version)
    assert (found.state, found.reason_code) == ("rejected", "unreachable")
    assert "gone.example does not resolve" in one_line(found.reason)


@pytest.mark.timeout(120)
def test_bad_input_a_url_service_that_answers_errors_is_crashed_not_unreachable(
    sqlite_store: Store, names: Names, services: Callable[..., Service], coordinated: Callable[[World], Run]
) -> None:
    """An HTTP 500 is an answer: the service was reached, so its code is not `unreachable`."""
    service = services(host=LOOPBACK, fail_status=500)
    names.table["team.example"] = [LOOPBACK]
    world = url_world(sqlite_store, url_allow=(LOOPBACK_NET,))
    version = register(world, 0, f"http://team.example:{service.port}/bot")
    run = coordinated(world)
    run.until(run.settled(version))
    found = run.version(version)
    assert found.state == "rejected" and found.reason_code in ("crashed_at_start", "crashed")
    assert "HTTP 500" in one_line(found.reason)


# ------------------------------------------------------------------------------ (d) the secure key


def opened(answer: Any) -> str:
    """An answer's body as text, a gzipped replay unpacked."""
    body = answer.body
    return (gzip.decompress(body) if body[:2] == b"\x1f\x8b" else body).decode("utf-8", "replace")


@pytest.mark.timeout(120)
def test_g9_the_secure_key_reaches_the_service_and_no_replay_row_log_or_route_answer(
    arena_app: ArenaApp,
    names: Names,
    services: Callable[..., Service],
    caplog: pytest.LogCaptureFixture,
) -> None:
    """Registered through the route with its secure key: every call of its matches carries the key
    as X-SECURE-KEY, while no route answer (the team's, the public's, the organizer's), no stored
    replay, no match row and no log line holds it."""
    caplog.set_level("DEBUG")
    service = services(host=LOOPBACK)
    names.table["team.example"] = [LOOPBACK]
    setup = check_setup("drones", config=CONFIG)
    policy = {"allow_url": True, "url_allow": [LOOPBACK_NET]}
    competition, organizer = create_competition(arena_app.arena, "keys", setup, policy=policy, actor="test")
    cid = competition.id
    assert (
        arena_app.call("PATCH", f"/api/competitions/{cid}", organizer, json={"phase": "open"}).status == 200
    )
    team, token = arena_app.team(cid, "t0")
    url = f"http://team.example:{service.port}/bot"
    sent = arena_app.call(
        "POST",
        f"/api/competitions/{cid}/teams/{team.id}/versions",
        token,
        json={"url": url, "secure_key": KEY},
    )
    assert sent.status == 201, sent.text
    assert KEY not in sent.text
    version = sent.json()["id"]
    executor = InlineExecutor()
    coordinator = ArenaCoordinator(arena_app.store, cid, executor, isolation=NO_SANDBOX, options=FAST)
    coordinator.start()
    runs = coordinator.runs
    try:
        drive(coordinator, executor, lambda: runs.get_version(version).state == "active")  # type: ignore[union-attr]
    finally:
        coordinator.close()
    assert service.seen and {s.key for s in service.seen} == {KEY}
    matches = runs.matches(competition.tournament_id)
    assert matches and all(m.status == "finished" for m in matches)
    team_routes = [
        f"/api/competitions/{cid}/teams/{team.id}/versions",
        f"/api/competitions/{cid}/teams/{team.id}/versions/{version}",
        f"/api/competitions/{cid}/teams/{team.id}/pairs",
        f"/api/competitions/{cid}/matches",
        f"/api/competitions/{cid}/leaderboard",
        f"/api/competitions/{cid}/stats",
        "/api/me",
    ]
    for match in matches:
        team_routes += [f"/api/matches/{match.id}", f"/api/matches/{match.id}/replay"]
        team_routes += [f"/api/matches/{match.id}/logs/{seat}" for seat in match.versions]
    answers = []
    for who in (token, organizer, None):
        for route in team_routes:
            answer = arena_app.call("GET", route, who)
            if who is token:  # the team may read all of these; the others get what they may
                assert answer.status == 200, (route, answer.status, answer.text[:200])
            answers.append((route, opened(answer)))
    public_replays = [arena_app.call("GET", f"/api/matches/{m.id}/replay").status for m in matches]
    assert public_replays == [200] * len(matches)
    for route in (f"/api/competitions/{cid}", f"/api/competitions/{cid}/audit"):
        answer = arena_app.call("GET", route, organizer)
        assert answer.status == 200, (route, answer.text[:200])
        answers.append((route, opened(answer)))
    assert any(url in text for _, text in answers)  # the grep reads real answers
    assert [route for route, text in answers if KEY in text] == []
    for match in matches:
        row = arena_app.store.get_match(match.id)
        assert row is not None and row.replay_hash
        assert KEY not in repr(row)
        assert KEY not in arena_app.store.load_replay(row.replay_hash).dumps().decode()
    view = runs.get_version(version)
    assert view is not None and KEY not in repr(view)
    assert KEY not in caplog.text


@pytest.mark.timeout(120)
def test_bad_input_a_url_service_that_never_answers_is_rejected_unreachable(
    sqlite_store: Store, names: Names, services: Callable[..., Service], coordinated: Callable[[World], Run]
) -> None:
    """Every call accepted and never answered: TIMEOUT on every call (whatever the machine's load, a
    reply that never comes is late), so the service was never reached: `unreachable`, not `timeout`."""
    service = services(host=LOOPBACK, hang=True)
    names.table["team.example"] = [LOOPBACK]
    quick = {**CONFIG, "turn_limit": 2, "turn_timeout_ms": 100, "setup_timeout_ms": 100}
    world = url_world(sqlite_store, url_allow=(LOOPBACK_NET,), config=quick)
    version = register(world, 0, f"http://team.example:{service.port}/bot")
    run = coordinated(world)
    run.until(run.settled(version))
    found = run.version(version)
    assert (found.state, found.reason_code) == ("rejected", "unreachable")
    assert one_line(found.reason).startswith("the service was never reached: TIMEOUT")
    assert service.seen


@pytest.mark.timeout(180)
def test_g9_a_url_entry_plays_in_a_real_pool_worker_with_its_key_and_the_tasks_allow_list(
    sqlite_store: Store, services: Callable[..., Service]
) -> None:
    """The same path in a worker process of the pool (`arena run`'s executor): the pickled task
    carries the allow-list and the config's digest, the worker fetches the config from the store,
    checks the URL and plays it pinned, sending the key."""
    from botarena.core.credentials import WorkerSecrets
    from botarena.tournament.executor import close_executor, make_executor

    service = services(host=LOOPBACK)
    world = url_world(sqlite_store, url_allow=(LOOPBACK_NET,))
    with pytest.MonkeyPatch.context() as patch:  # registration only: the worker uses no fake
        patch.setattr(urls, "server_addresses", lambda: frozenset())
        version = register(world, 0, f"http://{LOOPBACK}:{service.port}/bot", KEY)
    executor = make_executor(1, credentials=WorkerSecrets.of(sqlite_store.connect_url))
    coordinator = ArenaCoordinator(
        sqlite_store, world.competition.id, executor, isolation=NO_SANDBOX, options=FAST
    )
    coordinator.start()
    try:

        def settled() -> bool:
            coordinator.tick()
            found = world.runs.get_version(version)
            return found is not None and found.state in ("active", "rejected")

        wait_until(settled, "the URL entry's validation to end")
    finally:
        coordinator.close()
        close_executor(executor, cancel=True)
    found = world.runs.get_version(version)
    assert found is not None and found.state == "active", found
    assert service.seen and {(s.host, s.key) for s in service.seen} == {(f"{LOOPBACK}:{service.port}", KEY)}
