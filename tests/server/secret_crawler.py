"""A crawler that reads everything a spectator or a team can read of a server, and collects every
number in it that could be a seed (DESIGN principle 7; issue 25, item 4).

It walks the app's own route table, so a route added later is crawled without anyone remembering
to: every GET route with its path parameters filled from what the server lists (tournaments,
matches, live keys, DatsPulse rounds; a made-up value too, for the error reply), every other
method with `{}` and a malformed body, the static pages and scripts, and each live stream (SSE) up
to what the hub holds (its listing says how many steps: no waiting on time), or to its "held"
notice for a match the spectator policy holds back. A route whose parameter it cannot fill fails
the crawl: teach it (`fills`).

From every reply (status line aside) it takes the headers and the body: each JSON integer, each
run of decimal digits and each run of 8 to 16 hex digits in any string (a seed in a name, a
timestamp-like id, a hex dump), as candidates in 0..2**64-1, remembering where each was seen.
The tests then try each candidate as a seed (and through the server's seed derivations) and assert
that none rebuilds the hidden state. Every JSON document read (a body, an SSE event's data) is kept
too (`Crawl.documents`), for tests that look for the hidden state itself.
"""

from __future__ import annotations

import gzip
import http.client
import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from botarena.server.viewer import web_root

MAX_SEED = 2**64 - 1
_DECIMAL = re.compile(r"\d+")
_HEX = re.compile(r"(?<![0-9a-fA-F])[0-9a-fA-F]{8,16}(?![0-9a-fA-F])")
_PARAM = re.compile(r"{([a-z_]+)(?::path)?}")
MADE_UP = {
    "tournament_id": "987654",
    "match_id": "987654",
    "key": "t1/no-such-match",
    "round_name": "no-round",
    # the arena's (tests/arena/test_isolation.py checks who may read them; here, no seed in them)
    "cid": "987654",
    "tid": "987654",
    "kid": "nosuchkid",
    "vid": "987654",
    "seat": "0",
}


@dataclass(frozen=True)
class Reader:
    """Who reads: a name for messages and the headers it sends (a team's token, or none)."""

    name: str
    headers: Mapping[str, str] = field(default_factory=dict)


@dataclass
class Crawl:
    """What a crawl read: every candidate with the places it was seen, and the replies."""

    seen: dict[int, list[str]] = field(default_factory=dict)  # candidate -> where (at most 8 places)
    replies: list[tuple[str, str, int]] = field(default_factory=list)  # (reader, method path, status)
    documents: list[tuple[str, Any]] = field(default_factory=list)  # (where, a JSON value read)

    @property
    def candidates(self) -> set[int]:
        return set(self.seen)

    def take_text(self, text: str, where: str) -> None:
        for run in _DECIMAL.findall(text):
            self._add(int(run), where)
        for run in _HEX.findall(text):
            self._add(int(run, 16), where)

    def take_json(self, value: Any, where: str) -> None:
        if isinstance(value, bool) or value is None:
            return
        if isinstance(value, int):
            self._add(value, where)
        elif isinstance(value, float):
            if value.is_integer():
                self._add(int(value), where)
        elif isinstance(value, str):
            self.take_text(value, where)
        elif isinstance(value, Mapping):
            for key, item in value.items():
                self.take_text(str(key), where)
                self.take_json(item, where)
        elif isinstance(value, list | tuple):
            for item in value:
                self.take_json(item, where)

    def take_document(self, value: Any, where: str) -> None:
        self.documents.append((where, value))
        self.take_json(value, where)

    def take_body(self, body: bytes, where: str) -> None:
        text = body.decode("utf-8", "replace")
        try:
            value = json.loads(text)
        except ValueError:
            self.take_text(text, where)
        else:
            self.take_document(value, where)

    def _add(self, value: int, where: str) -> None:
        if 0 <= value <= MAX_SEED:
            places = self.seen.setdefault(value, [])
            if len(places) < 8 and where not in places:
                places.append(where)


def _routes(routes: Iterable[Any], prefix: str) -> list[tuple[str, set[str], bool]]:
    from starlette.routing import Mount, Route

    found: list[tuple[str, set[str], bool]] = []
    for route in routes:
        included = getattr(route, "original_router", None)  # FastAPI >= 0.165 keeps included routers
        if included is not None:
            found += _routes(included.routes, prefix + route.include_context.prefix)
        elif isinstance(route, Mount):  # the static pages: every file of the web folder
            root = web_root()
            files = sorted(p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file())
            found += [(prefix + route.path.rstrip("/") + "/" + name, {"GET"}, True) for name in ["", *files]]
        elif isinstance(route, Route):
            found.append((prefix + route.path, set(route.methods or {"GET"}), False))
    return found


class Crawler:
    """Reads every route of `app` served at `base_url` as each of `readers` (see the module docstring)."""

    def __init__(self, app: Any, base_url: str, readers: Iterable[Reader]) -> None:
        self.app = app
        host, port = base_url.removeprefix("http://").split(":")
        self.host, self.port = host, int(port)
        self.readers = list(readers)
        self._conn: http.client.HTTPConnection | None = None

    # ---------------------------------------------------------------------------------- HTTP

    def request(
        self, reader: Reader, method: str, path: str, body: bytes | None = None
    ) -> tuple[int, list[tuple[str, str]], bytes]:
        """One request on a kept-alive connection (a new one if the server closed it)."""
        headers = dict(reader.headers)
        if body is not None:
            headers["Content-Type"] = "application/json"
        for attempt in (1, 2):
            if self._conn is None:
                self._conn = http.client.HTTPConnection(self.host, self.port, timeout=20)
            try:
                self._conn.request(method, path, body=body, headers=headers)
                response = self._conn.getresponse()
                raw = response.read()
            except (http.client.HTTPException, ConnectionError):
                self._conn.close()
                self._conn = None
                if attempt == 2:
                    raise
                continue
            if response.will_close:
                self._conn.close()
                self._conn = None
            return response.status, response.getheaders(), raw
        raise AssertionError("unreachable")

    def stream(self, reader: Reader, path: str, steps: int) -> tuple[int, list[tuple[str, str]], bytes]:
        """An SSE stream read up to the end event, or until it has given its header and `steps`
        steps (what the hub holds: the crawl never waits for news). A refused stream is its reply."""
        conn = http.client.HTTPConnection(self.host, self.port, timeout=20)
        try:
            conn.request("GET", path, headers={**reader.headers, "Accept": "text/event-stream"})
            response = conn.getresponse()
            if response.status != 200:
                return response.status, response.getheaders(), response.read()
            data: list[bytes] = []
            header, got, event = False, 0, ""
            while not (header and got >= steps):
                line = response.readline()
                if not line:
                    break
                data.append(line)
                text = line.decode().rstrip("\r\n")
                if text.startswith("event:"):
                    event = text[6:].strip()
                elif text.startswith("data:"):
                    payload = json.loads(text[5:])
                    header = header or event == "header"
                    got += len(payload.get("steps", [])) if event == "steps" else 0
                    if event in ("end", "held"):  # (held: nothing more until the policy lets it out)
                        break
            return response.status, response.getheaders(), b"".join(data)
        finally:
            conn.close()

    # ---------------------------------------------------------------------------------- crawl

    def discover(self) -> tuple[dict[str, list[str]], dict[str, int]]:
        """The values of each path parameter and the steps of each live stream, as the server lists
        them to its readers."""
        fills: dict[str, set[str]] = {name: {value} for name, value in MADE_UP.items()}
        fills["path"] = {"no/such/route"}
        steps: dict[str, int] = {}
        for reader in self.readers:
            status, _, body = self.request(reader, "GET", "/api/tournaments")
            tournaments = json.loads(body) if status == 200 else []
            for tournament in tournaments:
                fills["tournament_id"].add(str(tournament["id"]))
                _, _, page = self.request(
                    reader, "GET", f"/api/tournaments/{tournament['id']}/matches?limit=1000"
                )
                for match in json.loads(page)["matches"]:
                    fills["match_id"].add(str(match["id"]))
            status, _, body = self.request(reader, "GET", "/api/live")
            for live in json.loads(body) if status == 200 else []:
                fills["key"].add(live["key"])
                steps[live["key"]] = int(live["steps"])
            status, _, body = self.request(reader, "GET", "/api/competitions")  # (the arena's)
            for competition in json.loads(body) if status == 200 else []:
                fills["cid"].add(str(competition["id"]))
            status, _, body = self.request(reader, "GET", "/api/rounds")  # (DatsPulse: a team's listing)
            if status == 200:
                fills["round_name"].update(r["name"] for r in json.loads(body)["rounds"])
        return {name: sorted(values) for name, values in fills.items()}, steps

    def paths(self, route_path: str, fills: Mapping[str, list[str]]) -> list[str]:
        """`route_path` with every combination of its parameters' values."""
        names = _PARAM.findall(route_path)
        missing = [name for name in names if name not in fills]
        assert not missing, f"the crawler cannot fill {missing} of {route_path}: teach it (fills)"
        paths = [route_path]
        for name in names:
            pattern = re.compile(r"{" + name + r"(?::path)?}")
            paths = [pattern.sub(value, path, count=1) for path in paths for value in fills[name]]
        return paths

    def routes(self) -> list[tuple[str, set[str], bool]]:
        """(path, methods, static) of every route of the app, the files of the web mount included."""
        return _routes(self.app.router.routes, "")

    def crawl(self) -> Crawl:
        """Everything every reader can read (see the module docstring). A static file is the same
        for everyone: it is read once."""
        crawl = Crawl()
        fills, steps = self.discover()
        try:
            for route_path, methods, static in self.routes():
                readers = self.readers[:1] if static else self.readers
                for path in self.paths(route_path, fills):
                    for reader in readers:
                        for method in sorted(methods - {"HEAD"}):
                            self._read(crawl, reader, method, path, steps)
        finally:
            if self._conn is not None:
                self._conn.close()
                self._conn = None
        return crawl

    def _read(self, crawl: Crawl, reader: Reader, method: str, path: str, steps: Mapping[str, int]) -> None:
        bodies: list[bytes | None] = [None] if method == "GET" else [b"{}", b"{"]
        for body in bodies:
            where = f"{reader.name}: {method} {path}"
            if method == "GET" and path.endswith("/events"):
                key = path.removeprefix("/api/live/").removesuffix("/events")
                status, headers, raw = self.stream(reader, path, steps.get(key, 0))
            else:
                status, headers, raw = self.request(reader, method, path, body)
            crawl.replies.append((reader.name, f"{method} {path}", status))
            for name, value in headers:
                crawl.take_text(f"{name}: {value}", f"{where} (header {name})")
            if path.endswith("/events") and status == 200:
                for line in raw.decode().splitlines():
                    if line.startswith("data:"):
                        crawl.take_document(json.loads(line[5:]), f"{where} (SSE)")
            else:
                encoded = dict((name.lower(), value) for name, value in headers).get("content-encoding")
                crawl.take_body(gzip.decompress(raw) if encoded == "gzip" else raw, where)
