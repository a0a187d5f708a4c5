"""Slowloris on the upload route (specs/arena.md, Uploads; "Bad input, everywhere"): a client that
opens `POST .../versions` with a large Content-Length and trickles its body is cut off once the
policy's `upload_timeout_s` has passed since the route began to read it, with 408 and no version;
while it trickles it holds no conversion slot and another team's upload goes through; and one team
holds at most `max_parallel_uploads` such bodies at once (the next is 429 before a byte is read).

A real server (`live_arena`: uvicorn over a SQLite store) and raw sockets: each slow client sends its
head and then one byte at a time from a thread of its own until it is answered. The tests wait on
the answers (a socket read with a generous bound) and on the server's own count of bodies being
read, never on a sleep.
"""

from __future__ import annotations

import json
import socket
import threading
import urllib.request
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest

from botarena.arena.competitions import add_team
from waiting import wait_until

from . import live
from .forms import multipart
from .live import LiveArena

ANSWER_WAIT_S = 60.0  # a bound for a loaded box: a read returns as soon as the answer is there
DECLARED = 5 * 1024 * 1024  # under the 10 MiB cap: no 413 before reading
TRICKLE_PAUSE_S = 0.05  # between two bytes of a slow client (its pace, not a wait of the test)


@dataclass
class Served:
    site: LiveArena
    app: Any

    @property
    def host_port(self) -> tuple[str, int]:
        host, port = self.site.url.removeprefix("http://").split(":")
        return host, int(port)

    def set_policy(self, **changes: Any) -> None:
        self.site.arena.update_competition(
            self.site.competition.id, actor="test", policy=lambda policy: {**policy, **changes}
        )

    def versions_path(self, team_id: int) -> str:
        return f"/api/competitions/{self.site.competition.id}/teams/{team_id}/versions"


@pytest.fixture
def served(monkeypatch: pytest.MonkeyPatch, request: pytest.FixtureRequest) -> Served:
    """`live_arena`, and the app it serves (to read its count of bodies being read)."""
    made: list[Any] = []

    def create_app(*args: Any, **kwargs: Any) -> Any:
        made.append(live_create_app(*args, **kwargs))
        return made[-1]

    live_create_app = live.create_app
    monkeypatch.setattr(live, "create_app", create_app)  # (what the fixture calls to build its app)
    site: LiveArena = request.getfixturevalue("live_arena")
    return Served(site, made[0])


@dataclass
class SlowClient:
    """A raw HTTP client that sends a multipart head with a large Content-Length, then trickles."""

    served: Served
    team_id: int
    token: str
    sock: socket.socket = field(init=False)
    stop: threading.Event = field(default_factory=threading.Event)
    sent: int = 0

    def __post_init__(self) -> None:
        self.sock = socket.create_connection(self.served.host_port, timeout=ANSWER_WAIT_S)
        boundary = uuid.uuid4().hex
        head = (
            f"POST {self.served.versions_path(self.team_id)} HTTP/1.1\r\n"
            f"Host: {self.served.host_port[0]}\r\n"
            f"Authorization: Bearer {self.token}\r\n"
            f"Content-Type: multipart/form-data; boundary={boundary}\r\n"
            f"Content-Length: {DECLARED}\r\n\r\n"
            f'--{boundary}\r\nContent-Disposition: form-data; name="file"; filename="bot.py"\r\n\r\n'
        )
        self.sock.sendall(head.encode())
        self.thread = threading.Thread(target=self._trickle, daemon=True)
        self.thread.start()

    def _trickle(self) -> None:
        while not self.stop.wait(TRICKLE_PAUSE_S):
            try:
                self.sock.sendall(b"#")
            except OSError:  # the server answered and closed: the trickle is over
                return
            self.sent += 1

    def answer(self) -> tuple[int, dict[str, Any]]:
        """The status and JSON body the server answered with (waits up to ANSWER_WAIT_S)."""
        data = b""
        while b"\r\n\r\n" not in data or len(data.partition(b"\r\n\r\n")[2]) < self._length(data):
            chunk = self.sock.recv(65536)
            if not chunk:
                break
            data += chunk
        self.close()
        head, _, body = data.partition(b"\r\n\r\n")
        assert head.startswith(b"HTTP/1.1 "), data[:200]
        return int(head.split()[1]), json.loads(body)

    @staticmethod
    def _length(data: bytes) -> int:
        for line in data.partition(b"\r\n\r\n")[0].split(b"\r\n")[1:]:
            name, _, value = line.partition(b":")
            if name.strip().lower() == b"content-length":
                return int(value)
        return 1 << 30

    def answered_yet(self) -> bool:
        """Whether the server has sent anything (a look, without waiting)."""
        self.sock.setblocking(False)
        try:
            return bool(self.sock.recv(1, socket.MSG_PEEK))
        except BlockingIOError:
            return False
        finally:
            self.sock.setblocking(True)
            self.sock.settimeout(ANSWER_WAIT_S)

    def close(self) -> None:
        self.stop.set()
        self.sock.close()
        self.thread.join(timeout=ANSWER_WAIT_S)


def call(
    served: Served, method: str, path: str, token: str, body: bytes | None = None, **headers: str
) -> Any:
    request = urllib.request.Request(served.site.url + path, method=method, data=body)
    request.add_header("Authorization", f"Bearer {token}")
    for name, value in headers.items():
        request.add_header(name, value)
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    with opener.open(request, timeout=ANSWER_WAIT_S) as answer:
        return answer.status, json.loads(answer.read())


def reading(served: Served) -> int:
    now: int = served.app.state.arena_reading.now
    return now


@pytest.fixture
def slow_clients() -> Iterator[list[SlowClient]]:
    clients: list[SlowClient] = []
    yield clients
    for client in clients:
        client.close()


def test_uploads_slowloris_is_cut_off_with_408_and_no_version(
    served: Served, slow_clients: list[SlowClient]
) -> None:
    served.set_policy(upload_timeout_s=2)
    site = served.site
    client = SlowClient(served, site.team.id, site.token.text)
    slow_clients.append(client)
    status, body = client.answer()
    assert status == 408, body
    assert "did not arrive within 2 s" in body["detail"] and "\n" not in body["detail"]
    assert client.sent > 0  # it was trickling when it was cut off, not refused at the door
    assert site.versions.versions(site.team.id) == []
    assert reading(served) == 0
    # the server goes on: the same team's real upload is taken
    data, headers = multipart(b"print('hello')\n", "bot.py")
    status, version = call(
        served, "POST", served.versions_path(site.team.id), site.token.text, data, **headers
    )
    assert (status, version["state"], version["number"]) == (201, "received", 1)


def test_uploads_slowloris_holds_no_conversion_slot_and_never_stops_another_team(
    served: Served, slow_clients: list[SlowClient]
) -> None:
    # a deadline far beyond the test's own work: the slow clients are still trickling while the other
    # team uploads (the first test proves the cut-off itself)
    served.set_policy(upload_timeout_s=300, max_conversions=2, max_parallel_uploads=3)
    site = served.site
    beta, beta_token = add_team(site.arena, site.competition.id, "beta", actor="test")
    for _ in range(3):  # more slow bodies than there are conversion slots
        slow_clients.append(SlowClient(served, site.team.id, site.token.text))
    wait_until(lambda: reading(served) == 3, "the three slow bodies being read by the upload route")
    assert served.app.state.arena_conversions.running == 0
    data, headers = multipart(b"print('beta')\n", "bot.py")
    status, version = call(served, "POST", served.versions_path(beta.id), beta_token.text, data, **headers)
    assert (status, version["state"]) == (201, "received")
    assert reading(served) == 3 and not any(client.answered_yet() for client in slow_clients)
    for client in slow_clients:
        client.close()
    wait_until(lambda: reading(served) == 0, "the slow bodies given up once their clients left")
    assert site.versions.versions(site.team.id) == []
    assert [v.number for v in site.versions.versions(beta.id)] == [1]


def test_uploads_one_team_sends_at_most_max_parallel_uploads_bodies_at_once(
    served: Served, slow_clients: list[SlowClient]
) -> None:
    """Many slow clients of one team (a hostile team holding sockets open until the server runs out of
    file descriptors): past `max_parallel_uploads` its next upload is 429 at the door, not a byte of
    it read, while another team uploads as usual; a slot comes back when a slow body ends."""
    served.set_policy(upload_timeout_s=300, max_parallel_uploads=2)
    site = served.site
    beta, beta_token = add_team(site.arena, site.competition.id, "beta", actor="test")
    slow_clients.extend(SlowClient(served, site.team.id, site.token.text) for _ in range(2))
    wait_until(lambda: reading(served) == 2, "the team's two slow bodies being read")
    refused = SlowClient(served, site.team.id, site.token.text)
    slow_clients.append(refused)
    status, body = refused.answer()
    assert status == 429, body
    assert "already sending 2 uploads (policy max_parallel_uploads)" in body["detail"]
    assert "\n" not in body["detail"]
    assert reading(served) == 2 and served.app.state.arena_reading.by_team == {site.team.id: 2}
    data, headers = multipart(b"print('beta')\n", "bot.py")
    status, version = call(served, "POST", served.versions_path(beta.id), beta_token.text, data, **headers)
    assert (status, version["state"]) == (201, "received")
    assert not any(client.answered_yet() for client in slow_clients[:2])
    slow_clients[0].close()
    wait_until(lambda: reading(served) == 1, "a slow body given up once its client left")
    data, headers = multipart(b"print('alpha')\n", "bot.py")
    status, version = call(
        served, "POST", served.versions_path(site.team.id), site.token.text, data, **headers
    )
    assert (status, version["state"], version["number"]) == (201, "received", 1)
