"""The checks a URL entry passes (`specs/arena.md`: URL entries; goal G9, the URL zoo).

A team may register an HTTP service instead of uploading a bot when the policy has `allow_url`. The
server then calls that URL, so the URL must not make the server call itself, its neighbours or the
cloud's metadata service (server-side request forgery). `check_url` takes `http`/`https` only, with a
host and no user name or password, and resolves the host to **every** address it has; each must lie
outside loopback, link-local (169.254/16 with the metadata address 169.254.169.254, fe80::/10), the
private ranges (RFC 1918, RFC 4193 fc00::/7, CGNAT), unspecified, multicast and reserved space, in
whatever IPv6 form carries an IPv4 address (mapped, NAT64, 6to4), and must not be one of the server's
own addresses, unless it lies in one of the policy's `url_allow` networks (a course LAN). A numeric
host in any spelling but the dotted quad (`2130706433`, `0x7f.1`, `0177.0.0.1`, `127.1`) is refused:
resolvers read those spellings differently, so no check of one reading is a check of what is called.

Call it at registration **and before every match**: DNS can answer differently between the two (and
between any two lookups: DNS rebinding). So the caller never resolves the name again: a match
connects to `CheckedUrl.addresses` through `PinnedResolver`, which answers the checked host with the
checked addresses and nothing else, while the request still names the host (its `Host` header, TLS
server name and certificate check are the host's). The platform's HTTP clients never follow a
redirect (bots/http.py, bots/devops_http.py), so a 3xx cannot lead a call anywhere else.

    checked = check_url("https://team7.example.org/bot", policy)   # UrlRejected(code, detail)
    connector = aiohttp.TCPConnector(resolver=PinnedResolver(checked))

On a worker, `sealed_url_bot` does both for a URL entry right before its match, from the entry's
config artifact (`{"kind": "arena-url", "url", "secure_key"}`, arena/uploads.py) and the
competition's allow-list the task carries (`MatchTask.url_allow`), so the worker needs no store
beyond the artifact: the URL is checked again (for https, its certificate too), and the game's
HTTP bot is sealed (`botarena.bots.http.Sealable`): pinned to the checked addresses, its secure key
sent as `X-SECURE-KEY` and kept out of everything it describes or logs.

An `https` entry must also prove it is the host: before its match, `check_tls` makes one TLS
handshake with a checked address, naming the host (SNI) and checking the certificate for the host
with the context the bot's calls use (`bots.http.tls_context`). A certificate refused (another
host's, an untrusted CA's, expired) or a service that speaks no TLS refuses the entry as an address
would be (`unreachable`, the TLS error in one line): nothing is sent over that connection, so no
request and no secure key ever reaches a service whose certificate failed. A connection that cannot
be made at all is not refused here: the match's calls report it, as for `http`.
"""

from __future__ import annotations

import concurrent.futures
import functools
import ipaddress
import re
import socket
import ssl
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import TYPE_CHECKING, Any, Protocol
from urllib.parse import urlsplit

import orjson
from aiohttp.abc import AbstractResolver, ResolveResult

if TYPE_CHECKING:
    from botarena.bots.base import Bot
    from botarena.core.game import GameInfo


class UrlRejection(StrEnum):
    """Why a URL entry is refused, at registration or when a match is about to call it."""

    BAD_SCHEME = "bad_scheme"
    BAD_URL = "bad_url"
    FORBIDDEN_ADDRESS = "forbidden_address"
    UNRESOLVABLE = "unresolvable"
    URL_NOT_ALLOWED = "url_not_allowed"
    UNREACHABLE = "unreachable"


class UrlPolicy(Protocol):
    """What a check reads of a competition's policy (`arena.policy.ArenaPolicy` is one)."""

    @property
    def allow_url(self) -> bool: ...

    @property
    def url_allow(self) -> tuple[str, ...]: ...


@dataclass(frozen=True)
class MatchUrlPolicy:
    """The URL policy a worker checks an entry against: `url_allow` as the task carries it."""

    allow_url: bool
    url_allow: tuple[str, ...]


Resolver = Callable[[str, int], Sequence[str]]
"""How a host name becomes addresses: (host, port) -> every address, as strings."""
IpAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
IpNetwork = ipaddress.IPv4Network | ipaddress.IPv6Network

RESOLVE_TIMEOUT_S = 5.0
TLS_CHECK_TIMEOUT_S = 5.0
SCHEMES = {"http": 80, "https": 443}
MAX_URL_LENGTH = 2048
_NUMERIC_LABEL = re.compile(r"(?:0x[0-9a-f]*|[0-9]+)", re.IGNORECASE)
_BAD_CHARACTERS = re.compile(r"[\x00-\x20\x7f\\]")
_NAT64 = ipaddress.IPv6Network("64:ff9b::/96")
_UNIQUE_LOCAL = ipaddress.IPv6Network("fc00::/7")
_METADATA = ipaddress.IPv4Address("169.254.169.254")
_resolver_pool = concurrent.futures.ThreadPoolExecutor(max_workers=4, thread_name_prefix="botarena-dns")


class UrlRejected(ValueError):
    """A URL entry refused: `code` is the spec's code, `detail` one line saying why."""

    def __init__(self, code: UrlRejection, detail: str) -> None:
        super().__init__(detail)
        self.code = code
        self.detail = detail


@dataclass(frozen=True)
class CheckedUrl:
    """A URL that passed, with the addresses it was checked at: connect to these, never look again."""

    url: str
    scheme: str
    host: str  # lower case, IDNA-encoded; an IPv6 literal without its brackets
    port: int
    addresses: tuple[str, ...]

    @property
    def connect_to(self) -> str:
        """The address a call connects to (the first the resolver gave)."""
        return self.addresses[0]


def check_url(
    url: str,
    policy: UrlPolicy,
    *,
    resolve: Resolver | None = None,
    own_addresses: Iterable[str] | None = None,
) -> CheckedUrl:
    """`url` checked against `policy` (module docstring): raises UrlRejected with the code and one
    line. `resolve` defaults to the system's resolver with a timeout; `own_addresses` to the
    addresses of this machine's names (`server_addresses`)."""
    if not policy.allow_url:
        raise UrlRejected(
            UrlRejection.URL_NOT_ALLOWED, "this competition takes uploads only, not URL entries"
        )
    scheme, host, port = _parse(url)
    addresses = _addresses(host, port, resolve or system_resolver)
    own = set(server_addresses() if own_addresses is None else own_addresses)
    allowed = [ipaddress.ip_network(cidr, strict=False) for cidr in policy.url_allow]
    for address in addresses:
        reason = _refusal(address, own, allowed)
        if reason is not None:
            shown = host if str(address) == host else f"{host} resolves to {address}, which"
            raise UrlRejected(
                UrlRejection.FORBIDDEN_ADDRESS, f"{shown} is {reason}; the server calls no such address"
            )
    return CheckedUrl(url, scheme, host, port, tuple(str(address) for address in addresses))


def _bad(detail: str) -> UrlRejected:
    return UrlRejected(UrlRejection.BAD_URL, detail)


def _parse(url: str) -> tuple[str, str, int]:
    """(scheme, host, port) of a well-formed http(s) URL with no user information."""
    if not isinstance(url, str) or not url or len(url) > MAX_URL_LENGTH:
        raise _bad(f"a URL is 1 to {MAX_URL_LENGTH} characters")
    if _BAD_CHARACTERS.search(url):
        raise _bad(f"{url[:200]!r} holds a space, a control character or a backslash")
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError as exc:
        raise _bad(f"{url[:200]!r} is not a URL: {exc}") from None
    scheme = parts.scheme.lower()
    if scheme not in SCHEMES:
        raise UrlRejected(UrlRejection.BAD_SCHEME, f"{url[:200]!r}: only http and https URLs are taken")
    if "@" in parts.netloc:
        raise _bad(f"{url[:200]!r} holds a user name or password ('@'); the host is what follows it")
    host = (parts.hostname or "").rstrip(".")
    if not host:
        raise _bad(f"{url[:200]!r} names no host")
    return scheme, _plain_host(host), port or SCHEMES[scheme]


def _plain_host(host: str) -> str:
    """The host in the form it is looked up: IDNA for a name, refused for a non-standard number."""
    if ":" in host:  # an IPv6 literal (urlsplit took off the brackets)
        try:
            ipaddress.IPv6Address(host)
        except ValueError:
            raise _bad(f"{host[:200]!r} is not an IPv6 address") from None
        return host
    if _NUMERIC_LABEL.fullmatch(host.rsplit(".", 1)[-1]):
        try:
            return str(ipaddress.IPv4Address(host))
        except ValueError:
            raise _bad(
                f"{host[:200]!r} is an IPv4 address in a non-standard spelling; write it as a dotted "
                "quad (e.g. 192.0.2.7)"
            ) from None
    try:
        return host.encode("idna").decode("ascii")
    except UnicodeError:
        raise _bad(f"{host[:200]!r} is not a valid host name") from None


def _addresses(host: str, port: int, resolve: Resolver) -> list[IpAddress]:
    """Every address of `host` (itself when it is one), in the resolver's order, without repeats."""
    try:
        return [ipaddress.ip_address(host)]
    except ValueError:
        pass
    found: list[IpAddress] = []
    for text in resolve(host, port):
        try:
            address = ipaddress.ip_address(text.split("%", 1)[0])  # an IPv6 scope id names no address
        except ValueError:
            raise UrlRejected(
                UrlRejection.UNRESOLVABLE, f"{host} resolves to {text!r}, not an address"
            ) from None
        if address not in found:
            found.append(address)
    if not found:
        raise UrlRejected(UrlRejection.UNRESOLVABLE, f"{host} has no address")
    return found


def system_resolver(host: str, port: int) -> list[str]:
    """Every address the system's resolver gives `host`, looked up in a thread with a timeout
    (`getaddrinfo` itself has none); UrlRejected `unresolvable` if it fails or takes too long."""
    future = _resolver_pool.submit(socket.getaddrinfo, host, port, type=socket.SOCK_STREAM)
    try:
        infos = future.result(timeout=RESOLVE_TIMEOUT_S)
    except concurrent.futures.TimeoutError:
        raise UrlRejected(
            UrlRejection.UNRESOLVABLE, f"{host} did not resolve within {RESOLVE_TIMEOUT_S:g} s"
        ) from None
    except (OSError, UnicodeError) as exc:
        raise UrlRejected(UrlRejection.UNRESOLVABLE, f"{host} does not resolve: {exc}") from None
    return [str(info[4][0]) for info in infos]


@functools.cache
def server_addresses() -> frozenset[str]:
    """The addresses this machine's own names resolve to (looked up once): a URL entry must not make
    the server call itself. A public address behind NAT is not seen here: list it in no allow-list."""
    found: set[str] = set()
    for name in {socket.gethostname(), socket.getfqdn()}:
        try:
            found.update(address.split("%", 1)[0] for address in system_resolver(name, 0))
        except UrlRejected:  # a machine whose own name does not resolve: nothing to add
            continue
    return frozenset(found)


def _refusal(address: IpAddress, own: set[str], allowed: Sequence[IpNetwork]) -> str | None:
    """Why the server must not call `address`, or None; an allow-listed address is always callable."""
    inner = _embedded_ipv4(address)
    if _allow_listed(address, allowed) or (inner is not None and _allow_listed(inner, allowed)):
        return None
    if inner is not None:
        reason = _refusal(inner, own, allowed)
        return None if reason is None else f"{reason} (as {address})"
    if str(address) in own:
        return "one of the server's own addresses"
    return _range_refusal(address)


def _allow_listed(address: IpAddress, allowed: Sequence[IpNetwork]) -> bool:
    return any(address.version == network.version and address in network for network in allowed)


def _embedded_ipv4(address: IpAddress) -> ipaddress.IPv4Address | None:
    """The IPv4 address an IPv6 address carries (IPv4-mapped, NAT64 64:ff9b::/96, 6to4), or None."""
    if not isinstance(address, ipaddress.IPv6Address):
        return None
    if address.ipv4_mapped is not None:
        return address.ipv4_mapped
    if address in _NAT64:
        return ipaddress.IPv4Address(int(address) & 0xFFFFFFFF)
    return address.sixtofour


def _range_refusal(address: IpAddress) -> str | None:
    checks: tuple[tuple[bool, str], ...] = (
        (address.is_unspecified, "the unspecified address"),
        (address.is_loopback, "a loopback address"),
        (address == _METADATA, "the cloud metadata address (link-local)"),
        (address.is_link_local, "a link-local address"),
        (address.is_multicast, "a multicast address"),
        (
            isinstance(address, ipaddress.IPv6Address) and address in _UNIQUE_LOCAL,
            "a unique local address (RFC 4193)",
        ),
        (address.is_private, "a private address (RFC 1918)"),
        (address.is_reserved, "a reserved address"),
        (not address.is_global, "not a public address"),
    )
    return next((reason for failed, reason in checks if failed), None)


def check_tls(
    checked: CheckedUrl, context: ssl.SSLContext, *, timeout_s: float = TLS_CHECK_TIMEOUT_S
) -> None:
    """For an https URL: one TLS handshake with the first checked address that takes a connection,
    its certificate checked for `checked.host` with `context`; UrlRejected `unreachable` with the TLS
    error in one line if it is refused (module docstring). Sends nothing; an http URL is not touched."""
    if checked.scheme != "https":
        return
    deadline = time.monotonic() + timeout_s
    for address in checked.addresses:
        try:
            sock = socket.create_connection((address, checked.port), timeout=_left(deadline))
        except OSError:  # not taking connections: the match's calls say so (module docstring)
            continue
        with sock:
            sock.settimeout(_left(deadline))
            try:
                with context.wrap_socket(sock, server_hostname=checked.host):
                    return  # verified; closed at once, nothing written
            except ssl.SSLEOFError:  # closed mid-handshake: a connection failure, not a certificate
                return
            except ssl.SSLError as exc:
                raise UrlRejected(UrlRejection.UNREACHABLE, _tls_refusal(checked, exc)) from None
            except OSError:  # a reset or a timeout mid-handshake: as a refused connection
                return


def _left(deadline: float) -> float:
    return max(0.01, deadline - time.monotonic())


def _tls_refusal(checked: CheckedUrl, exc: ssl.SSLError) -> str:
    """One line: the host, and why its TLS handshake failed."""
    if isinstance(exc, ssl.SSLCertVerificationError):
        why = f"its certificate is refused: {exc.verify_message or exc.reason}"
    else:
        why = f"the TLS handshake failed: {exc.reason or exc}"
    line = f"{checked.host}:{checked.port}: {why}"
    return " ".join(line.split())[:300]


class PinnedResolver(AbstractResolver):
    """An aiohttp resolver that answers only the checked host, with only its checked addresses: a
    match's connector uses it so the address called is the address checked (no second lookup)."""

    def __init__(self, checked: CheckedUrl) -> None:
        self.checked = checked

    async def resolve(
        self, host: str, port: int = 0, family: socket.AddressFamily = socket.AF_INET
    ) -> list[ResolveResult]:
        if host.rstrip(".").lower() != self.checked.host:
            raise OSError(f"{host} is not the checked host {self.checked.host}")
        return [
            ResolveResult(
                hostname=host,
                host=address,
                port=port,
                family=socket.AF_INET6 if ":" in address else socket.AF_INET,
                proto=0,
                flags=socket.AI_NUMERICHOST,
            )
            for address in self.checked.addresses
        ]

    async def close(self) -> None:
        return None


def match_policy(url_allow: Sequence[str] | None) -> MatchUrlPolicy:
    """The URL policy a worker checks an entry against: `url_allow` as the task carries it (None:
    the competition takes no URL entries now, so every one is refused)."""
    return MatchUrlPolicy(allow_url=url_allow is not None, url_allow=tuple(url_allow or ()))


URL_CONFIG_KIND = "arena-url"


def read_url_config(data: bytes) -> dict[str, Any]:
    """A URL entry's config as `arena.uploads.url_config` wrote it (ValueError if these bytes are none)."""
    parsed = orjson.loads(data)
    if not isinstance(parsed, dict) or parsed.get("kind") != URL_CONFIG_KIND:
        raise ValueError("not an arena URL entry's config")
    return parsed


def sealed_url_bot(
    config: bytes,
    game: GameInfo[Any],
    url_allow: Sequence[str] | None,
    *,
    resolve: Resolver | None = None,
    own_addresses: Iterable[str] | None = None,
) -> Bot:
    """The bot of a URL entry whose config artifact is `config`, checked now (UrlRejected with its
    code and one line: its address, and for https its certificate) and sealed: it connects only to
    the addresses just checked and sends the entry's secure key as `X-SECURE-KEY` (module
    docstring). ValueError for a config that is none."""
    from botarena.bots.http import HttpBot, Sealable, tls_context
    from botarena.bots.resolve import url_bot_factory

    entry = read_url_config(config)
    url, key = entry.get("url"), entry.get("secure_key")
    if not isinstance(url, str) or not (key is None or isinstance(key, str)):
        raise ValueError("an arena URL entry's config names no URL")
    checked = check_url(url, match_policy(url_allow), resolve=resolve, own_addresses=own_addresses)
    check_tls(checked, tls_context())  # the key goes only where the certificate names the host
    native = url_bot_factory(game)
    bot = native(checked.url) if native is not None else HttpBot(checked.url)
    if not isinstance(bot, Sealable):  # it would look the host up itself: never played unpinned
        raise ValueError(f"{game.id}'s HTTP bot cannot be pinned to a checked address")
    bot.seal(PinnedResolver(checked), key or None)
    return bot


__all__ = [
    "URL_CONFIG_KIND",
    "CheckedUrl",
    "MatchUrlPolicy",
    "PinnedResolver",
    "Resolver",
    "UrlPolicy",
    "UrlRejected",
    "UrlRejection",
    "check_tls",
    "check_url",
    "match_policy",
    "read_url_config",
    "sealed_url_bot",
    "server_addresses",
    "system_resolver",
]
