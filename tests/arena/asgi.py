"""A small in-process HTTP client for the app: requests go straight to its ASGI callable on an event
loop of the client's own (no port, no thread of a server), with the client address of our choosing
(the rate limits are per address)."""

from __future__ import annotations

import asyncio
import json as jsonlib
from dataclasses import dataclass, field
from http.cookies import SimpleCookie
from typing import Any
from urllib.parse import urlsplit


@dataclass
class Answer:
    status: int
    headers: dict[str, str]
    body: bytes
    set_cookies: list[str] = field(default_factory=list)

    def json(self) -> Any:
        return jsonlib.loads(self.body)

    @property
    def text(self) -> str:
        return self.body.decode("utf-8", "replace")


class AsgiClient:
    def __init__(self, app: Any, address: str = "127.0.0.1") -> None:
        self.app = app
        self.address = address
        self.loop = asyncio.new_event_loop()

    def close(self) -> None:
        self.loop.close()

    def request(
        self,
        method: str,
        url: str,
        *,
        headers: dict[str, str] | None = None,
        json: Any = None,
        body: bytes | None = None,
        address: str | None = None,
    ) -> Answer:
        data = body if body is not None else (jsonlib.dumps(json).encode() if json is not None else b"")
        sent = {k.lower(): v for k, v in (headers or {}).items()}
        if json is not None:
            sent.setdefault("content-type", "application/json")
        sent["content-length"] = str(len(data))
        sent.setdefault("host", "testserver")
        return self.loop.run_until_complete(self._call(method, url, sent, data, address or self.address))

    async def _call(
        self, method: str, url: str, headers: dict[str, str], data: bytes, address: str
    ) -> Answer:
        parts = urlsplit(url)
        scope = {
            "type": "http",
            "asgi": {"version": "3.0"},
            "http_version": "1.1",
            "method": method,
            "scheme": "http",
            "path": parts.path,
            "raw_path": parts.path.encode(),
            "query_string": parts.query.encode(),
            "root_path": "",
            "headers": [(k.encode("latin-1"), v.encode("latin-1")) for k, v in headers.items()],
            "client": (address, 50000),
            "server": ("testserver", 80),
            "state": {},
        }
        sent_body = False
        status = 0
        out_headers: list[tuple[bytes, bytes]] = []
        chunks: list[bytes] = []
        finished = asyncio.Event()

        async def receive() -> dict[str, Any]:
            nonlocal sent_body
            if not sent_body:
                sent_body = True
                return {"type": "http.request", "body": data, "more_body": False}
            await finished.wait()
            return {"type": "http.disconnect"}

        async def send(message: dict[str, Any]) -> None:
            nonlocal status, out_headers
            if message["type"] == "http.response.start":
                status = message["status"]
                out_headers = list(message.get("headers", []))
            elif message["type"] == "http.response.body":
                chunks.append(message.get("body", b""))
                if not message.get("more_body", False):
                    finished.set()

        try:
            await self.app(scope, receive, send)
        except Exception:
            # Starlette's outermost middleware re-raises after it sent its 500 (for the server's
            # log): the answer stands, a failure before any answer is the test's to see
            if status == 0:
                raise
        decoded = [(k.decode("latin-1").lower(), v.decode("latin-1")) for k, v in out_headers]
        return Answer(
            status,
            dict(decoded),
            b"".join(chunks),
            [v for k, v in decoded if k == "set-cookie"],
        )


def cookie_value(answer: Answer, name: str) -> str | None:
    """The value a Set-Cookie of `answer` gives the cookie `name` (None: none set)."""
    for header in answer.set_cookies:
        jar: SimpleCookie = SimpleCookie()
        jar.load(header)
        if name in jar:
            return jar[name].value
    return None
