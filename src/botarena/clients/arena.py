"""A team's HTTP client for a botarena arena server (`specs/arena.md`): upload a version, follow its
state, fetch a match's replay with the team's own logs. `botarena submit` and `botarena fetch` use it.

    client = ArenaClient("https://arena.example.org", token)
    me = await client.me()                                   # {role, competition, team}
    version = await client.upload(data, "bot.zip", note="v2")  # 201 a new version, 200 the same one
    final = await client.follow(version, on_state=print)     # until ready, active or rejected
    replay = await client.replay(match_id)                   # gzip JSON, the team's own logs in it

Every request runs inside a total deadline (`request_timeout_s`), and `follow` inside its own. An upload
carries an `Idempotency-Key`: a request whose answer was lost (a broken connection, a gateway's 502, 503
or 504) is sent again with the same key, and the server answers with the version it already made, so a
retry never makes a second version. The token is sent as `Authorization: Bearer ...` and never
appears in an error message.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import aiohttp
import orjson

from botarena.arena.vocabulary import VersionState

# The states a version does not leave by itself: `submit --wait` stops at these.
SETTLED_STATES = frozenset(
    {
        VersionState.READY,
        VersionState.ACTIVE,
        VersionState.REJECTED,
        VersionState.SUPERSEDED,
        VersionState.DISABLED,
        VersionState.RETIRED,
        VersionState.PAUSED,
    }
)
UPLOAD_ATTEMPTS = 3
# Answers that may have been lost on the way (a gateway that gave up, a server restarting): an upload is
# sent again, with its key, after these or a broken connection.
RETRIED_STATUSES = frozenset({502, 503, 504})
RETRY_PAUSE_S = 1.0


class ArenaClientError(RuntimeError):
    """A request the server refused or could not answer, in one line (`status`, the server's
    `code` when it gave one)."""

    def __init__(self, message: str, status: int | None = None, code: str | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.code = code


@dataclass(frozen=True)
class Uploaded:
    """The server's answer to an upload: the version, and whether it was made now (201) or is one
    this team already had (200: the same bytes, or the same idempotency key)."""

    version: dict[str, Any]
    created: bool


class ArenaClient:
    def __init__(self, server: str, token: str, *, request_timeout_s: float = 60.0) -> None:
        if not server.startswith(("http://", "https://")):
            raise ArenaClientError(f"the server must be an http:// or https:// URL, not {server!r}")
        self.server = server.rstrip("/")
        self._headers = {"Authorization": f"Bearer {token}"}
        self.request_timeout_s = request_timeout_s
        self._me: dict[str, Any] | None = None

    # -- reads ---------------------------------------------------------------------------------

    async def me(self) -> dict[str, Any]:
        """`{role, competition, team?}` of this token (cached: the token's team does not change)."""
        if self._me is None:
            self._me = await self._json("GET", "/api/me")
        return self._me

    async def competition(self) -> dict[str, Any]:
        """This token's competition as anyone sees it (phase, game, preset, public policy, counts)."""
        me = await self.me()
        competition = me.get("competition")
        if not isinstance(competition, Mapping):
            raise ArenaClientError("the server did not say which competition this token belongs to")
        return await self._json("GET", f"/api/competitions/{competition['id']}")

    async def version(self, version_id: int) -> dict[str, Any]:
        return await self._json("GET", await self._team_path(f"/versions/{version_id}"))

    async def replay(self, match_id: int) -> bytes:
        """The match's replay as the server sends it (gzip JSON), with this team's own logs."""
        timeout = aiohttp.ClientTimeout(total=self.request_timeout_s)
        url = f"{self.server}/api/matches/{match_id}/replay"
        async with aiohttp.ClientSession(timeout=timeout, headers=self._headers, auto_decompress=False) as s:
            try:
                async with s.get(url, allow_redirects=False) as response:
                    body = await response.read()
                    if response.status != 200:
                        raise _refusal(response.status, body, f"match {match_id}")
                    return body
            except (aiohttp.ClientError, TimeoutError) as exc:
                raise _unreachable(self.server, exc) from None

    # -- writes --------------------------------------------------------------------------------

    async def upload(self, data: bytes, filename: str, *, note: str | None = None) -> Uploaded:
        """Send a file, zip or tar.gz as a new version (multipart `file`, `note`)."""

        def form() -> aiohttp.FormData:
            body = aiohttp.FormData()
            body.add_field("file", data, filename=filename, content_type="application/octet-stream")
            if note:
                body.add_field("note", note)
            return body

        return await self._create(form)

    async def register_url(
        self, url: str, *, secure_key: str | None = None, note: str | None = None
    ) -> Uploaded:
        """Register an HTTP service as a new version (its `secure_key` is write-only on the server)."""
        body = {
            "url": url,
            **({"secure_key": secure_key} if secure_key else {}),
            **({"note": note} if note else {}),
        }
        return await self._create(lambda: body)

    async def follow(
        self,
        version: Mapping[str, Any],
        *,
        on_state: Callable[[dict[str, Any]], None] | None = None,
        timeout_s: float = 900.0,
    ) -> dict[str, Any]:
        """Follow a version's state changes (its SSE stream) until it settles (`SETTLED_STATES`), and
        return it as it is then. A dropped stream is opened again with `Last-Event-ID`."""
        path = await self._team_path(f"/versions/{version['id']}/events")
        current = dict(version)
        try:
            async with asyncio.timeout(timeout_s):
                last_id: str | None = None
                while current.get("state") not in SETTLED_STATES:
                    last_id, current = await self._read_events(path, last_id, current, on_state)
        except TimeoutError:
            raise ArenaClientError(
                f"version {current.get('number', current.get('id'))} is still {current.get('state')}"
                f" after {timeout_s:.0f} s; see it with the team page or submit --wait again"
            ) from None
        return current

    # -- the parts -----------------------------------------------------------------------------

    async def _create(self, body: Callable[[], Any]) -> Uploaded:
        path = await self._team_path("/versions")
        headers = {"Idempotency-Key": uuid.uuid4().hex}
        for attempt in range(1, UPLOAD_ATTEMPTS + 1):
            try:
                status, answer = await self._send("POST", path, body(), headers)
            except ArenaClientError as exc:
                if (
                    exc.status is not None and exc.status not in RETRIED_STATUSES
                ) or attempt == UPLOAD_ATTEMPTS:
                    raise
                await asyncio.sleep(
                    RETRY_PAUSE_S
                )  # the answer was lost: the same key makes no second version
                continue
            return Uploaded(answer, created=status == 201)
        raise AssertionError("unreachable")  # the loop returns or raises

    async def _team_path(self, tail: str) -> str:
        me = await self.me()
        team, competition = me.get("team"), me.get("competition")
        if not isinstance(team, Mapping) or not isinstance(competition, Mapping):
            raise ArenaClientError("this token is not a team's token (an organizer's cannot upload)")
        return f"/api/competitions/{competition['id']}/teams/{team['id']}{tail}"

    async def _json(self, method: str, path: str) -> dict[str, Any]:
        _, answer = await self._send(method, path, None, {})
        return answer

    async def _send(
        self, method: str, path: str, body: Any, headers: Mapping[str, str]
    ) -> tuple[int, dict[str, Any]]:
        timeout = aiohttp.ClientTimeout(total=self.request_timeout_s)
        kwargs: dict[str, Any] = {"data": body} if isinstance(body, aiohttp.FormData) else {"json": body}
        async with aiohttp.ClientSession(timeout=timeout, headers=self._headers) as session:
            try:
                async with session.request(
                    method, self.server + path, headers=dict(headers), allow_redirects=False, **kwargs
                ) as response:
                    raw = await response.read()
                    if response.status not in (200, 201):
                        raise _refusal(response.status, raw, f"{method} {path}")
                    return response.status, _object(raw, f"{method} {path}")
            except (aiohttp.ClientError, TimeoutError) as exc:
                raise _unreachable(self.server, exc) from None

    async def _read_events(
        self,
        path: str,
        last_id: str | None,
        current: dict[str, Any],
        on_state: Callable[[dict[str, Any]], None] | None,
    ) -> tuple[str | None, dict[str, Any]]:
        """Read the stream until it ends or the version settles: (the last event id, the version)."""
        headers = {"Accept": "text/event-stream", **({"Last-Event-ID": last_id} if last_id else {})}
        timeout = aiohttp.ClientTimeout(total=None, sock_connect=self.request_timeout_s)
        async with aiohttp.ClientSession(timeout=timeout, headers=self._headers) as session:
            try:
                async with session.get(
                    self.server + path, headers=headers, allow_redirects=False
                ) as response:
                    if response.status != 200:
                        raise _refusal(response.status, await response.read(), f"GET {path}")
                    async for event_id, data in _events(response.content):
                        last_id = event_id or last_id
                        current = data
                        if on_state:
                            on_state(data)
                        if data.get("state") in SETTLED_STATES:
                            break
            except (aiohttp.ClientError, TimeoutError) as exc:
                if isinstance(exc, TimeoutError):
                    raise
                await asyncio.sleep(RETRY_PAUSE_S)  # a dropped stream: open it again from last_id
        return last_id, current


async def _events(stream: aiohttp.StreamReader) -> Any:
    """(id, JSON data) of each event of a text/event-stream (comments and other fields skipped)."""
    event_id: str | None = None
    data: list[str] = []
    async for raw in stream:
        line = raw.decode("utf-8", errors="replace").rstrip("\r\n")
        if not line:
            if data:
                parsed = orjson.loads("\n".join(data))
                if isinstance(parsed, dict):
                    yield event_id, parsed
            event_id, data = None, []
        elif line.startswith("id:"):
            event_id = line[3:].strip()
        elif line.startswith("data:"):
            data.append(line[5:].lstrip(" "))


def _object(raw: bytes, what: str) -> dict[str, Any]:
    try:
        parsed = orjson.loads(raw)
    except orjson.JSONDecodeError:
        raise ArenaClientError(f"{what}: the server's answer is not JSON") from None
    if not isinstance(parsed, dict):
        raise ArenaClientError(f"{what}: the server's answer is not a JSON object")
    return parsed


def _refusal(status: int, raw: bytes, what: str) -> ArenaClientError:
    """The server's `{"detail": ..., "code"?: ...}` as one line."""
    detail, code = "", None
    try:
        parsed = orjson.loads(raw)
        if isinstance(parsed, dict):
            detail = str(parsed.get("detail") or "")
            code = parsed.get("code") if isinstance(parsed.get("code"), str) else None
    except orjson.JSONDecodeError:
        pass
    words = " ".join(detail.split())[:300] or f"HTTP {status}"
    prefix = f"{code}: " if code else ""
    return ArenaClientError(f"{what}: {status} {prefix}{words}", status=status, code=code)


def _unreachable(server: str, exc: BaseException) -> ArenaClientError:
    reason = " ".join(str(exc).split()) or type(exc).__name__
    if isinstance(exc, TimeoutError):
        reason = "no answer within the deadline"
    return ArenaClientError(f"cannot reach {server}: {reason}")
