"""https URL entries (specs/arena.md "URL entries": scheme `http`/`https`, the host's addresses
checked at validation and at every match, the secure key sent only as `X-SECURE-KEY`).

An https entry is held to the same pinning as an http one, and to its certificate on top: the bot
connects only to the addresses the arena checked (`bots.urls.PinnedResolver`), while the TLS server
name (SNI), the certificate check and the Host header name the URL's host, never the address. Right
before each match the worker makes one TLS handshake with the checked address (`bots.urls.check_tls`,
with the context the calls use): a certificate not valid for the host, or from a CA the worker does
not trust, refuses the entry as an address would (`unreachable` at validation, the match failed as
the entry's fault alone later), and no request, so no secure key, ever crosses a failed handshake.

The services are real aiohttp servers with TLS on loopback addresses, their certificates from a
`trustme` test CA; host names come from the fake DNS of tests/arena/test_url_matches.py, whose
coordinator harness these tests share. The worker trusts the test CA by the system's mechanism,
`SSL_CERT_FILE`: the HTTP bots' one TLS context (`bots.http.tls_context`) reads the trust store on
first use, so the fixture sets the variable and lets that context be made again under it."""

from __future__ import annotations

import os
import signal
import socket
import ssl
import subprocess
import sys
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import trustme
from aiohttp import web

import botarena.bots.urls as urls
from botarena.bots.devops_http import DevopsHttpBot
from botarena.bots.http import HTTP_ERROR, HttpBot, tls_context
from botarena.bots.urls import PinnedResolver, UrlRejected, UrlRejection, check_tls, sealed_url_bot
from botarena.core.protocol import MessageType, Request
from botarena.core.registry import get_game
from botarena.core.status import Status
from botarena.store import Store
from waiting import wait_until

from . import test_url_matches as url_matches
from .arena_world import STARTER, World
from .test_url_matches import (
    KEY,
    LOOPBACK,
    LOOPBACK_NET,
    TEAM_ADDRESS,
    Names,
    Run,
    Service,
    config_of,
    devops_call,
    free_port,
    one_line,
    register,
    url_world,
    validation_matches,
)

HOST = "team.example"

# The harness of test_url_matches.py, shared: its store, fake DNS and stepped coordinator.
sqlite_store = url_matches.sqlite_store
names = url_matches.names
coordinated = url_matches.coordinated

# ------------------------------------------------------------------------------ certificates


@dataclass
class Tls:
    """The test CA the worker trusts, and one it does not."""

    trusted: trustme.CA
    untrusted: trustme.CA

    def server(self, host: str = HOST, *, trusted: bool = True) -> ssl.SSLContext:
        """A server's context presenting a certificate for `host` from one of the two CAs."""
        context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        self.present(context, host, trusted=trusted)
        return context

    def present(self, context: ssl.SSLContext, host: str, *, trusted: bool = True) -> None:
        """`context` presents a new certificate for `host` from its next handshake on."""
        (self.trusted if trusted else self.untrusted).issue_cert(host).configure_cert(context)


@pytest.fixture
def ca(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Tls]:
    """A test CA the worker trusts through `SSL_CERT_FILE` (the whole trust store, as a course's
    worker might be set up), the bots' TLS context made again under it (module docstring)."""
    tls = Tls(trustme.CA(), trustme.CA())
    bundle = tmp_path / "trusted-ca.pem"
    tls.trusted.cert_pem.write_to_path(str(bundle))
    monkeypatch.setenv("SSL_CERT_FILE", str(bundle))
    tls_context.cache_clear()
    yield tls
    tls_context.cache_clear()  # the next use reads the system's store again


# ------------------------------------------------------------------------------ services


@dataclass
class TlsService(Service):
    """A `Service` behind TLS with the server context `tls`; records the server name (SNI) of every
    handshake, finished or not, next to the requests its handler saw (`seen`)."""

    tls: ssl.SSLContext | None = None
    server_names: list[str | None] = field(default_factory=list)

    def __post_init__(self) -> None:
        assert self.tls is not None
        self.tls.sni_callback = self._server_name
        super().__post_init__()

    def _server_name(self, _socket: Any, name: str | None, _context: ssl.SSLContext) -> None:
        self.server_names.append(name)

    async def _start(self) -> web.AppRunner:
        app = web.Application()
        app.router.add_route("*", "/{tail:.*}", self.handle)
        runner = web.AppRunner(app)
        await runner.setup()
        await web.TCPSite(runner, self.host, self.port, ssl_context=self.tls).start()
        return runner


@pytest.fixture
def services() -> Iterator[Callable[..., Service]]:
    """Start a service: a `TlsService` when given `tls`, else a plain-HTTP `Service`."""
    started: list[Service] = []

    def start(**kwargs: Any) -> Service:
        service = TlsService(**kwargs) if "tls" in kwargs else Service(**kwargs)
        started.append(service)
        return service

    yield start
    for service in started:
        service.stop()


def tls_service(services: Callable[..., Service], **kwargs: Any) -> TlsService:
    service = services(**kwargs)
    assert isinstance(service, TlsService)
    return service


@pytest.fixture
def system_lookups(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """What anyone who asks the system for a `*.example` name (not the arena's check) is told: the
    server's loopback, where a decoy listens. Returns the names so looked up."""
    real = socket.getaddrinfo
    looked_up: list[str] = []

    def getaddrinfo(host: Any, port: Any, *args: Any, **kwargs: Any) -> Any:
        if isinstance(host, str) and host.rstrip(".").endswith(".example"):
            looked_up.append(host)
            return real(LOOPBACK, port, *args, **kwargs)
        return real(host, port, *args, **kwargs)

    monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)
    return looked_up


# ------------------------------------------------------------------------------ validation


@pytest.mark.timeout(120)
def test_url_entries_an_https_entry_with_a_valid_certificate_validates_and_plays_pinned(
    ca: Tls,
    sqlite_store: Store,
    names: Names,
    services: Callable[..., Service],
    coordinated: Callable[[World], Run],
    system_lookups: list[str],
) -> None:
    """arena.md "URL entries": `https://team.example` with a certificate for the host from a CA the
    worker trusts becomes active; every call of its validation matches reached the checked address,
    named the host in SNI and Host and carried the key. A decoy on loopback, where the system's own
    lookup of the name points, holding a valid certificate for the host too, is never contacted."""
    team = tls_service(services, host=TEAM_ADDRESS, tls=ca.server())
    decoy = tls_service(services, host=LOOPBACK, port=team.port, tls=ca.server())
    names.table[HOST] = [TEAM_ADDRESS]
    world = url_world(sqlite_store)
    version = register(world, 0, f"https://{HOST}:{team.port}/bot", KEY)
    run = coordinated(world)
    run.until(run.settled(version))
    assert run.version(version).state == "active", run.version(version).reason
    matches = validation_matches(world, version)
    assert matches and {m.status for m in matches} == {"finished"}
    assert team.seen
    assert {(s.path, s.host, s.key) for s in team.seen} == {("/bot", f"{HOST}:{team.port}", KEY)}
    assert team.server_names and set(team.server_names) == {HOST}
    assert decoy.seen == [] and decoy.server_names == []
    assert system_lookups == []  # the name was only ever answered by the arena's check


@pytest.mark.timeout(120)
@pytest.mark.parametrize(
    ("presented", "because"),
    [
        ("other-host", "Hostname mismatch, certificate is not valid for 'team.example'"),
        ("untrusted-ca", "unable to get local issuer certificate"),
        ("no-tls", "the TLS handshake failed"),
    ],
)
def test_url_entries_an_https_entry_whose_certificate_is_refused_is_rejected_unreachable_unreached(
    ca: Tls,
    sqlite_store: Store,
    names: Names,
    services: Callable[..., Service],
    coordinated: Callable[[World], Run],
    presented: str,
    because: str,
) -> None:
    """arena.md "URL entries": the service presents another host's certificate (from the trusted CA),
    the host's certificate from a CA the worker does not trust, or speaks plain HTTP on the https
    port. The version is rejected `unreachable` with the TLS error in one line, the key nowhere in
    it, and the service's handler never saw a request (the handshake was tried: SNI named the host)."""
    if presented == "no-tls":
        service = services(host=TEAM_ADDRESS)
    else:
        tls = ca.server("other.example") if presented == "other-host" else ca.server(trusted=False)
        service = tls_service(services, host=TEAM_ADDRESS, tls=tls)
    names.table[HOST] = [TEAM_ADDRESS]
    world = url_world(sqlite_store)
    version = register(world, 0, f"https://{HOST}:{service.port}/bot", KEY)
    run = coordinated(world)
    run.until(run.settled(version))
    found = run.version(version)
    assert (found.state, found.reason_code) == ("rejected", "unreachable")
    reason = one_line(found.reason)
    assert reason.startswith(f"refused at match time: t0#1: {HOST}:{service.port}: "), reason
    assert because in reason and KEY not in reason
    assert service.seen == []
    if isinstance(service, TlsService):
        assert service.server_names and set(service.server_names) == {HOST}
    matches = validation_matches(world, version)
    assert matches and {m.status for m in matches} == {"failed"}
    assert run.coordinator.summary.platform_failures == 0  # the entry's fault, never retried


# ------------------------------------------------------------------------------ at match time


@pytest.mark.timeout(120)
def test_url_entries_a_certificate_changed_after_validation_refuses_the_seat_not_its_opponent(
    ca: Tls,
    sqlite_store: Store,
    names: Names,
    services: Callable[..., Service],
    coordinated: Callable[[World], Run],
) -> None:
    """arena.md "URL entries", checked at every match: two active https entries; one's service then
    presents another host's certificate. Its rated matches fail before any call (EntryRefused: its
    seat, never rated), it alone counts CRASHED (crash_streak 1 pauses it), its opponent stays
    active and unrated, and the changed service's handler receives nothing after the change."""
    good_tls, bad_tls = ca.server("good.example"), ca.server("bad.example")
    good_service = tls_service(services, host=TEAM_ADDRESS, tls=good_tls)
    bad_service = tls_service(services, host=TEAM_ADDRESS, tls=bad_tls)
    names.table["good.example"] = [TEAM_ADDRESS]
    names.table["bad.example"] = [TEAM_ADDRESS]
    world = url_world(sqlite_store, 2, crash_streak=1, crash_window=1)
    good = register(world, 0, f"https://good.example:{good_service.port}/bot", KEY)
    bad = register(world, 1, f"https://bad.example:{bad_service.port}/bot", KEY)
    run = coordinated(world)
    run.until(run.settled(good, bad))
    assert (run.version(good).state, run.version(bad).state) == ("active", "active")
    calls_before = len(bad_service.seen)
    assert calls_before > 0  # it did play while its certificate was right
    ca.present(bad_tls, "elsewhere.example")
    run.until(lambda: run.version(bad).state == "paused")
    assert run.version(good).state == "active"
    rated = world.runs.matches(world.competition.tournament_id, kind="rated")
    assert rated and {m.status for m in rated} == {"failed"}
    errors = [one_line(sqlite_store.get_match(m.id).error) for m in rated]  # type: ignore[union-attr]
    assert all("bad.example" in e and "certificate is refused" in e for e in errors), errors
    assert all("good.example" not in e and KEY not in e for e in errors)
    assert world.runs.ratings(world.competition.id)[good].games == 0
    assert world.runs.ratings(world.competition.id)[bad].games == 0
    assert len(bad_service.seen) == calls_before


# ------------------------------------------------------------------------------ the key and the client


def turn_request() -> Request:
    envelope = {"producers": 1}
    return Request(seat=0, payload=envelope, timeout_ms=5000, type=MessageType.TURN, turn=1)


def pinned_http_bot(url: str) -> HttpBot:
    """The generic HttpBot sealed as a URL entry's, without the pre-match TLS check: what its own
    calls do over a handshake that fails."""
    checked = urls.check_url(url, urls.match_policy((LOOPBACK_NET,)), own_addresses=())
    bot = HttpBot(checked.url)
    bot.seal(PinnedResolver(checked), KEY)
    return bot


@pytest.mark.timeout(60)
def test_url_entries_the_secure_key_never_crosses_a_failed_handshake(
    ca: Tls, names: Names, services: Callable[..., Service]
) -> None:
    """arena.md "URL entries" (the key sent only to the service): a sealed bot's own calls over
    https to a certificate for another host, past any earlier check, each end CRASHED with the
    transport's warning (so validation counts the service as never reached), while the service
    saw handshakes naming the host and not one request: no key was ever sent."""
    service = tls_service(services, host=LOOPBACK, tls=ca.server("other.example"))
    names.table[HOST] = [LOOPBACK]
    bot = pinned_http_bot(f"https://{HOST}:{service.port}/bot")
    bot.open("https-key", 0)
    try:
        replies = []
        for request_id in (1, 2):
            bot.send(turn_request(), request_id, 5.0)
            replies.append(bot.receive())
    finally:
        bot.close()
    assert [(r.status, r.reason) for r in replies] == [(Status.CRASHED, HTTP_ERROR)] * 2
    for reply in replies:
        (warning,) = reply.warnings
        assert warning["code"] == "HTTP_ERROR" and "certificate verify failed" in warning["detail"]
        assert KEY not in warning["detail"]
    assert service.seen == []
    assert len(service.server_names) >= 2 and set(service.server_names) == {HOST}


@pytest.mark.timeout(60)
def test_url_entries_a_sealed_devops_bot_over_https_names_the_host_and_sends_the_key(
    ca: Tls, names: Names, services: Callable[..., Service]
) -> None:
    """arena.md "URL entries" for the Devops course's services (spec 7.1, over aiohttp for https):
    the worker's TLS check and the call both reach the checked address, name the host in SNI and
    Host, and the call carries the key."""
    service = tls_service(services, host=LOOPBACK, tls=ca.server())
    names.table[HOST] = [LOOPBACK]
    bot = sealed_url_bot(
        config_of(f"https://{HOST}:{service.port}/svc", KEY), get_game("devops"), (LOOPBACK_NET,)
    )
    assert isinstance(bot, DevopsHttpBot)
    reply = devops_call(bot)
    assert reply.status is Status.OK, reply
    assert [(s.path, s.host, s.key) for s in service.seen] == [
        ("/svc/moves/base", f"{HOST}:{service.port}", KEY)
    ]
    assert len(service.server_names) == 2 and set(service.server_names) == {HOST}  # the check, the call


@pytest.mark.timeout(60)
def test_url_entries_a_devops_service_with_another_hosts_certificate_is_refused_before_any_call(
    ca: Tls, names: Names, services: Callable[..., Service]
) -> None:
    """arena.md "URL entries": the worker's check refuses the entry (`unreachable`, one line) and
    no bot is made, so nothing reaches the handler; the Devops bot's own calls, were they made past
    the check, fail as a transport error with the handler still at 0 requests."""
    service = tls_service(services, host=LOOPBACK, tls=ca.server("other.example"))
    names.table[HOST] = [LOOPBACK]
    config = config_of(f"https://{HOST}:{service.port}/svc", KEY)
    with pytest.raises(UrlRejected) as refused:
        sealed_url_bot(config, get_game("devops"), (LOOPBACK_NET,))
    assert refused.value.code is UrlRejection.UNREACHABLE
    assert "certificate is refused" in one_line(refused.value.detail) and KEY not in refused.value.detail
    checked = urls.check_url(f"https://{HOST}:{service.port}/svc", urls.match_policy((LOOPBACK_NET,)))
    bot = DevopsHttpBot(checked.url)
    bot.seal(PinnedResolver(checked), KEY)
    reply = devops_call(bot)
    assert (reply.status, reply.reason) == (Status.CRASHED, "transport")
    assert "certificate verify failed" in reply.warnings[0]["detail"]
    assert service.seen == []
    assert set(service.server_names) == {HOST}


# ------------------------------------------------------------------------------ check_tls itself


def checked_at(url: str, addresses: Sequence[str]) -> urls.CheckedUrl:
    scheme, _, rest = url.partition("://")
    host, _, port = rest.split("/", 1)[0].partition(":")
    return urls.CheckedUrl(url, scheme, host, int(port), tuple(addresses))


def test_url_entries_the_tls_check_leaves_http_and_unreachable_services_to_the_calls(ca: Tls) -> None:
    """arena.md "URL entries": `check_tls` judges certificates only. An http URL is never touched
    (no TLS on the wire), and an https address that takes no connection is not refused here: the
    match's calls report it as for http, and validation rejects it `unreachable` from them."""
    port = free_port()
    context = tls_context()
    check_tls(checked_at(f"http://{HOST}:{port}/bot", [LOOPBACK]), context)
    check_tls(checked_at(f"https://{HOST}:{port}/bot", [LOOPBACK]), context, timeout_s=5.0)


def test_url_entries_the_tls_check_tries_the_next_checked_address_and_names_the_host(
    ca: Tls, services: Callable[..., Service]
) -> None:
    """The first checked address takes no connection, the second holds the service: the check
    verifies there, naming the host (SNI), and sends no request."""
    service = tls_service(services, host=TEAM_ADDRESS, tls=ca.server())
    with socket.socket() as closed:  # bound, never listening: a connection to it is refused
        closed.bind((LOOPBACK, service.port))
        check_tls(checked_at(f"https://{HOST}:{service.port}/", [LOOPBACK, TEAM_ADDRESS]), tls_context())
    assert service.server_names == [HOST] and service.seen == []


# ------------------------------------------------------------------------------ in `arena run`


@pytest.mark.timeout(300)
def test_url_entries_arena_runs_pool_workers_trust_the_ca_of_ssl_cert_file(
    ca: Tls, sqlite_store: Store, services: Callable[..., Service], tmp_path: Path
) -> None:
    """The real command: `botarena arena run` in its own process, its matches in pool worker
    processes, started with `SSL_CERT_FILE` naming the test CA (how an organizer makes a course's
    own CA trusted). An https entry whose certificate comes from that CA becomes active and plays a
    rated match with its key; one from a CA outside the bundle is rejected `unreachable` with the TLS
    error, and its service never receives a request. (In-process tests cannot show this: a pool's
    forkserver keeps the environment it was first started with.) The certificates name the address
    itself, so nothing here depends on a resolver."""
    trusted = tls_service(services, host=LOOPBACK, tls=ca.server(LOOPBACK))
    untrusted = tls_service(services, host=LOOPBACK, tls=ca.server(LOOPBACK, trusted=False))
    world = url_world(sqlite_store, 3, url_allow=(LOOPBACK_NET,))
    with pytest.MonkeyPatch.context() as patch:  # registration only: the command looks for itself
        patch.setattr(urls, "server_addresses", lambda: frozenset())
        good = register(world, 0, f"https://{LOOPBACK}:{trusted.port}/bot", KEY)
        bad = register(world, 1, f"https://{LOOPBACK}:{untrusted.port}/bot", KEY)
    starter = world.upload(world.teams[2], STARTER)
    command = [sys.executable, "-m", "botarena", "arena", "run", "--competition", str(world.competition.id)]
    process = subprocess.Popen(
        [*command, "--db", sqlite_store.connect_url, "--workers", "1"],
        cwd=tmp_path, env={**os.environ, "PYTHONUNBUFFERED": "1"}, start_new_session=True,
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip

    def rated_between(first: int, second: int) -> list[Any]:
        finished = world.runs.matches(world.competition.tournament_id, statuses=["finished"], kind="rated")
        return [m for m in finished if {first, second} <= set(m.versions.values())]

    def settled() -> bool:
        assert process.poll() is None, f"arena run ended early: {process.communicate()}"
        return world.version(bad).state == "rejected" and bool(rated_between(good, starter))

    try:
        wait_until(settled, "the untrusted entry rejected and a rated match of the trusted one",
                   seen=lambda: (world.version(good).state, world.version(bad).state))  # fmt: skip
    finally:
        process.send_signal(signal.SIGINT)
        _, err = process.communicate(timeout=120)
    assert process.returncode == 0, err
    assert world.version(good).state == "active"
    rated = rated_between(good, starter)[0]
    seat = next(seat for seat, version in rated.versions.items() if version == good)
    assert rated.statuses is not None and set(rated.statuses[seat]) == {"OK"}, rated.statuses
    refused = world.version(bad)
    assert refused.reason_code == "unreachable"
    assert "unable to get local issuer certificate" in one_line(refused.reason) and KEY not in refused.reason
    assert untrusted.seen == []  # handshakes were tried (naming no server: the URL is an address)
    assert untrusted.server_names and set(untrusted.server_names) == {None}
    assert trusted.seen and {(s.host, s.key) for s in trusted.seen} == {(f"{LOOPBACK}:{trusted.port}", KEY)}
