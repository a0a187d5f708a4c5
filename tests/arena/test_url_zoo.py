"""The URL zoo (specs/arena.md: URL entries, Security, proven; goal G9): every address the server must
never call is refused, however it is spelled or resolved, a redirect to loopback is never followed by
the platform's own HTTP client, and a match connects to the address that was checked."""

from __future__ import annotations

import asyncio
import http.server
import threading
from collections.abc import Iterator, Sequence

import aiohttp
import pytest

from botarena.arena.policy import ArenaPolicy
from botarena.arena.vocabulary import UrlRejection as Code
from botarena.bots.http import REDIRECT, HttpBot
from botarena.bots.urls import CheckedUrl, PinnedResolver, Resolver, UrlRejected, check_url
from botarena.core.protocol import MessageType, Request
from botarena.core.status import Status

OPEN = ArenaPolicy(allow_url=True)
PUBLIC = "93.184.215.14"  # a public address (no packet is sent to it: the resolver is faked)


def fake_resolver(table: dict[str, Sequence[str]]) -> Resolver:
    def resolve(host: str, port: int) -> Sequence[str]:
        return table[host]

    return resolve


NEVER = fake_resolver({})  # for literals: a lookup would be a bug (KeyError)


def refused(
    url: str, policy: ArenaPolicy = OPEN, resolve: Resolver = NEVER, own: Sequence[str] = ()
) -> UrlRejected:
    with pytest.raises(UrlRejected) as caught:
        check_url(url, policy, resolve=resolve, own_addresses=own)
    assert "\n" not in caught.value.detail
    return caught.value


@pytest.mark.parametrize(
    "url",
    [
        "http://127.0.0.1/",
        "http://127.8.9.10:8080/bot",
        "http://[::1]/",
        "http://169.254.169.254/latest/meta-data/",
        "http://169.254.1.1/",
        "http://[fe80::1]/",
        "http://10.0.0.1/",
        "http://192.168.1.1/",
        "http://172.16.0.1/",
        "http://172.31.255.254/",
        "http://[fd00::1]/",
        "http://[fc00::5]/",
        "http://[::ffff:127.0.0.1]/",
        "http://[::ffff:169.254.169.254]/",
        "http://[64:ff9b::7f00:1]/",
        "http://[2002:7f00:1::]/",
        "http://0.0.0.0/",
        "http://[::]/",
        "http://224.0.0.1/",
        "http://240.0.0.1/",
        "http://100.64.0.1/",
        "http://255.255.255.255/",
    ],
)
def test_g9_forbidden_addresses_are_refused(url: str) -> None:
    assert refused(url).code == Code.FORBIDDEN_ADDRESS


def test_g9_the_metadata_address_is_named() -> None:
    assert "metadata" in refused("http://169.254.169.254/").detail


@pytest.mark.parametrize(
    "url",
    [
        "http://2130706433/",
        "http://0x7f.1/",
        "http://0x7f000001/",
        "http://0177.0.0.1/",
        "http://127.1/",
        "http://017700000001/",
    ],
)
def test_g9_numeric_ipv4_spellings_are_refused(url: str) -> None:
    assert refused(url).code == Code.BAD_URL


@pytest.mark.parametrize(
    "url",
    [
        "http://example.com@127.0.0.1/",
        "http://user:pass@example.com/",
        "http://127.0.0.1#@example.com/",
        "http://example.com\\@127.0.0.1/",
        "http:///path-only",
        "http://exa mple.com/",
        "http://[::1/",
        "http://example.com:99999/",
    ],
)
def test_g9_userinfo_and_malformed_urls_are_refused(url: str) -> None:
    # `127.0.0.1#@example.com` parses as host 127.0.0.1: it is refused for that address instead
    assert refused(url, resolve=fake_resolver({"example.com": [PUBLIC]})).code in (
        Code.BAD_URL,
        Code.FORBIDDEN_ADDRESS,
    )


def test_g9_a_url_with_userinfo_names_the_reason() -> None:
    assert "user name or password" in refused("http://example.com@127.0.0.1/").detail


@pytest.mark.parametrize(
    "url", ["ftp://example.com/", "file:///etc/passwd", "gopher://127.0.0.1:6379/", "javascript:alert(1)"]
)
def test_g9_other_schemes_are_refused(url: str) -> None:
    assert refused(url).code == Code.BAD_SCHEME


def test_g9_a_name_resolving_to_loopback_is_refused() -> None:
    rejected = refused(
        "https://bot.team7.example/", resolve=fake_resolver({"bot.team7.example": ["127.0.0.1"]})
    )
    assert rejected.code == Code.FORBIDDEN_ADDRESS
    assert "bot.team7.example resolves to 127.0.0.1" in rejected.detail


def test_g9_localhost_through_the_systems_own_resolver_is_refused() -> None:
    with pytest.raises(UrlRejected) as caught:
        check_url("http://localhost:8080/", OPEN)
    assert caught.value.code == Code.FORBIDDEN_ADDRESS


def test_g9_one_forbidden_address_among_public_ones_is_refused() -> None:
    resolve = fake_resolver({"mixed.example": [PUBLIC, "::ffff:10.0.0.7"]})
    assert refused("http://mixed.example/", resolve=resolve).code == Code.FORBIDDEN_ADDRESS


def test_g9_the_servers_own_address_is_refused() -> None:
    resolve = fake_resolver({"me.example": [PUBLIC]})
    assert "server's own" in refused("http://me.example/", resolve=resolve, own=[PUBLIC]).detail


def test_g9_an_unresolvable_name_is_its_own_code() -> None:
    def fails(host: str, port: int) -> Sequence[str]:
        raise UrlRejected(Code.UNRESOLVABLE, f"{host} does not resolve")

    assert refused("http://nowhere.invalid/", resolve=fails).code == Code.UNRESOLVABLE
    assert (
        refused("http://empty.example/", resolve=fake_resolver({"empty.example": []})).code
        == Code.UNRESOLVABLE
    )


def test_g9_url_entries_off_by_policy() -> None:
    assert refused("https://example.com/", policy=ArenaPolicy()).code == Code.URL_NOT_ALLOWED


def test_g9_an_allow_listed_lan_is_accepted_and_nothing_else_of_it() -> None:
    lan = ArenaPolicy(allow_url=True, url_allow=("10.1.0.0/16",))
    checked = check_url("http://10.1.2.3:8080/bot", lan, resolve=NEVER, own_addresses=())
    assert (checked.host, checked.port, checked.addresses) == ("10.1.2.3", 8080, ("10.1.2.3",))
    named = check_url(
        "http://lab7.course/", lan, resolve=fake_resolver({"lab7.course": ["10.1.9.9"]}), own_addresses=()
    )
    assert named.connect_to == "10.1.9.9"
    assert refused("http://10.2.0.1/", policy=lan).code == Code.FORBIDDEN_ADDRESS
    assert refused("http://127.0.0.1/", policy=lan).code == Code.FORBIDDEN_ADDRESS


def test_g9_a_public_name_is_accepted_with_every_address_to_connect_to() -> None:
    resolve = fake_resolver({"bot.example.org": [PUBLIC, PUBLIC, "2606:2800:21f:cb07:6820:80da:af6b:8b2c"]})
    checked = check_url("HTTPS://Bot.Example.org./play", OPEN, resolve=resolve, own_addresses=())
    assert (checked.scheme, checked.host, checked.port) == ("https", "bot.example.org", 443)
    assert checked.addresses == (PUBLIC, "2606:2800:21f:cb07:6820:80da:af6b:8b2c")


# -- at match time: no redirect followed, no second lookup ---------------------------------------------


class _Counting(http.server.BaseHTTPRequestHandler):
    hits: list[str]
    location = ""

    def do_POST(self) -> None:
        self.hits.append(self.path)
        length = int(self.headers.get("Content-Length", 0))
        self.rfile.read(length)
        if self.location:
            self.send_response(302)
            self.send_header("Location", self.location)
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        body = b'{"id": 1, "payload": {}}'
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: object) -> None:
        return


def _serve(location: str = "") -> tuple[http.server.ThreadingHTTPServer, list[str]]:
    hits: list[str] = []
    handler = type("Handler", (_Counting,), {"hits": hits, "location": location})
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, hits


@pytest.fixture
def loopback_target() -> Iterator[tuple[str, list[str]]]:
    server, hits = _serve()
    yield f"http://127.0.0.1:{server.server_address[1]}/secret", hits
    server.shutdown()
    server.server_close()


def test_g9_a_302_to_loopback_is_not_followed_by_the_platforms_http_client(
    loopback_target: tuple[str, list[str]],
) -> None:
    target, target_hits = loopback_target
    redirector, redirector_hits = _serve(location=target)
    try:
        bot = HttpBot(f"http://127.0.0.1:{redirector.server_address[1]}/bot")
        bot.open("zoo-match", 0)
        bot.send(Request(seat=0, payload={}, timeout_ms=5000, type=MessageType.TURN), 1, 5.0)
        reply = bot.receive()
        bot.close()
    finally:
        redirector.shutdown()
        redirector.server_close()
    assert (reply.status, reply.reason) == (Status.CRASHED, REDIRECT)
    assert redirector_hits == ["/bot"]
    assert target_hits == []  # the loopback service behind the redirect saw nothing


def test_g9_a_match_connects_to_the_checked_address_without_looking_the_name_up_again(
    loopback_target: tuple[str, list[str]],
) -> None:
    """A name that no resolver knows (`.invalid`) reaches the checked address: the connection uses
    the pinned address, and any other host is refused by the pinned resolver."""
    target, hits = loopback_target
    port = int(target.rsplit(":", 1)[1].split("/")[0])
    lan = ArenaPolicy(allow_url=True, url_allow=("127.0.0.0/8",))  # the test's service is on loopback
    checked = check_url(
        f"http://team7.invalid:{port}/secret",
        lan,
        resolve=fake_resolver({"team7.invalid": ["127.0.0.1"]}),
        own_addresses=(),
    )

    async def call(url: str) -> int:
        connector = aiohttp.TCPConnector(resolver=PinnedResolver(checked))
        async with (
            aiohttp.ClientSession(connector=connector) as session,
            session.post(url, data=b"{}", allow_redirects=False) as response,
        ):
            return response.status

    assert asyncio.run(call(checked.url)) == 200
    assert hits == ["/secret"]
    with pytest.raises(aiohttp.ClientError):
        asyncio.run(call(f"http://other.invalid:{port}/secret"))
    assert hits == ["/secret"]


def test_checked_url_is_plain_data() -> None:
    checked = CheckedUrl("http://h/", "http", "h", 80, ("203.0.113.9",))
    assert checked.connect_to == "203.0.113.9"


def test_g9_the_servers_own_addresses_are_looked_up_when_not_given(monkeypatch: pytest.MonkeyPatch) -> None:
    import botarena.bots.urls as urls

    monkeypatch.setattr(urls, "server_addresses", lambda: frozenset({PUBLIC}))
    with pytest.raises(UrlRejected) as caught:
        check_url("http://me.example/", OPEN, resolve=fake_resolver({"me.example": [PUBLIC]}))
    assert "server's own" in caught.value.detail
