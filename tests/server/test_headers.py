"""Request heads are bounded on every HTTP server the project runs (issue 12, item 6; issue 25,
item 5): the organizer's server (`botarena serve`, which `play --live` also runs), the DatsPulse
server (`botarena datspulse serve`), the replay viewer (`botarena view`) and the Devops starter
service (`botarena devops-service`). Each is started as its command in a subprocess on 127.0.0.1
(with a 1 s header timeout from the environment, as an organizer would set it) and attacked with raw
sockets: a head of exactly 32 KiB gets 200 and one byte more 431 (a 64 KiB one sent at once used
to pass); a half-sent head is answered 408 once the header timeout passes; a 10 MiB header is
refused (a 4xx status or a closed connection, never 200), twenty 25 MiB headers leave the server's
memory within tens of MiB, and an ordinary request with a 4 KiB header still gets 200. The rest of
the HTTP layer's limits are attacked in test_http_limits.py."""

from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from waiting import wait_until

pytest.importorskip("uvicorn", reason="the server extra (uvicorn) is not installed")

from botarena.cli import main
from botarena.server.httpconfig import MAX_HEADER_BYTES
from botarena.server.viewer import bind_socket

ROOT = Path(__file__).resolve().parents[2]
DATSPULSE_CONFIG = ROOT / "examples" / "datspulse" / "server.toml"
MiB = 1 << 20
CHUNK = 256 * 1024
HEADER_TIMEOUT_S = 1.0


def rss_mib(pid: int) -> float:
    found = re.search(r"VmRSS:\s+(\d+) kB", Path(f"/proc/{pid}/status").read_text())
    assert found is not None
    return int(found.group(1)) / 1024


def request_with_header(port: int, path: str, header_bytes: int) -> bytes:
    """Send GET `path` with one header of `header_bytes` bytes; return the reply's first bytes, or b""
    when the server closed (or reset) the connection instead of answering."""
    with socket.create_connection(("127.0.0.1", port), timeout=30) as sock:
        try:
            sock.sendall(f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Padding: ".encode())
            block = b"a" * CHUNK
            left = header_bytes
            while left > 0:
                sock.sendall(block[: min(left, CHUNK)])
                left -= CHUNK
            sock.sendall(b"\r\nConnection: close\r\n\r\n")
        except (BrokenPipeError, ConnectionResetError):
            pass  # the server stopped reading and closed: what we want; see whether it said why
        try:
            return sock.recv(64)
        except ConnectionResetError:
            return b""


def assert_refused(reply: bytes) -> None:
    assert reply == b"" or reply.startswith((b"HTTP/1.1 4", b"HTTP/1.0 4")), reply


class Served:
    """A server command in a subprocess; `port` is read from the URL it prints."""

    def __init__(self, command: list[str], url_pattern: str = r"http://127\.0\.0\.1:(\d+)") -> None:
        env = {**os.environ, "NO_PROXY": "127.0.0.1", "BOTARENA_HTTP_HEADER_TIMEOUT_S": str(HEADER_TIMEOUT_S)}
        self.process = subprocess.Popen(
            [sys.executable, "-m", "botarena", *command],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
        )
        assert self.process.stdout is not None
        for _ in range(20):  # the first lines the command prints: one of them is its URL
            line = self.process.stdout.readline()
            found = re.search(url_pattern, line)
            if found:
                self.port = int(found.group(1))
                return
            if not line:
                break
        self.stop()
        raise AssertionError(
            f"{command} printed no URL: {self.process.stderr.read() if self.process.stderr else ''}"
        )

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGINT)
            try:
                self.process.communicate(timeout=30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.communicate()


def free_port() -> int:
    sock = bind_socket("127.0.0.1", 0)
    try:
        return int(sock.getsockname()[1])
    finally:
        sock.close()


def _replay(tmp_path: Path) -> Path:
    """A replay for the viewer to serve, made in this process (the viewer is the server under attack,
    not the `play` that makes its file) and short: what the viewer serves of it is not the point."""
    path = tmp_path / "match.json.gz"
    command = ["play", "drones", "zergy", "pacifist", "--seed", "1", "--set", "rounds=2"]
    assert main([*command, "--replay", str(path)]) == 0
    return path


SERVERS: dict[str, tuple[Callable[[Path], list[str]], str]] = {
    # name: (command for a temporary folder, a path it answers 200)
    "organizer": (lambda tmp: ["serve", "--port", "0", "--db", f"sqlite:///{tmp / 'a.db'}"], "/api/health"),
    "datspulse": (
        lambda tmp: [
            "datspulse",
            "serve",
            "--config",
            str(DATSPULSE_CONFIG),
            "--preset",
            "ci",
            "--port",
            "0",
            "--db",
            f"sqlite:///{tmp / 'dp.db'}",
        ],
        "/api/health",
    ),
    "viewer": (lambda tmp: ["view", str(_replay(tmp)), "--port", "0"], "/"),
    "devops-service": (
        lambda tmp: ["devops-service", "--port", str(free_port()), "--bot", "idle"],
        "/logs",
    ),
}


@pytest.fixture(params=sorted(SERVERS))
def served(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[tuple[Served, str]]:
    command, path = SERVERS[request.param]
    server = Served(command(tmp_path))
    try:
        wait_listening(server.port)  # some print their URL before they listen
        yield server, path
    finally:
        server.stop()


def wait_listening(port: int) -> None:
    def accepted() -> bool:  # each attempt blocks until refused or accepted
        try:
            socket.create_connection(("127.0.0.1", port), timeout=10).close()
        except ConnectionRefusedError:
            return False
        return True

    wait_until(accepted, f"something listening on port {port}")


def test_header_limit_is_what_the_servers_configure() -> None:
    from botarena.server.guard import GuardedH11Protocol
    from botarena.server.httpconfig import server_config

    config = server_config(object())
    assert (
        issubclass(config.http, GuardedH11Protocol)
        and config.h11_max_incomplete_event_size == MAX_HEADER_BYTES
    )


def exact_head(path: str, size: int) -> bytes:
    """A GET head of exactly `size` bytes (request line, headers and the blank line)."""
    start = f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\nX-Padding: ".encode()
    return start + b"a" * (size - len(start) - 4) + b"\r\n\r\n"


def answer_to(port: int, data: bytes) -> bytes:
    """Send `data` in one write and return the first bytes of the answer (b"": closed unanswered)."""
    with socket.create_connection(("127.0.0.1", port), timeout=30) as sock:
        sock.sendall(data)
        try:
            return sock.recv(64)
        except ConnectionResetError:
            return b""


def test_every_server_refuses_huge_headers_and_stays_small(served: tuple[Served, str]) -> None:
    server, path = served
    ordinary = request_with_header(server.port, path, 4096)
    assert ordinary.startswith(b"HTTP/1.1 200"), ordinary  # the bound leaves normal requests alone
    assert answer_to(server.port, exact_head(path, MAX_HEADER_BYTES)).startswith(b"HTTP/1.1 200")
    assert answer_to(server.port, exact_head(path, MAX_HEADER_BYTES + 1)).startswith(b"HTTP/1.1 431")
    # a head that stops half-way is answered 408 once the header timeout passes (recv waits for it)
    assert answer_to(server.port, f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n".encode()).startswith(
        b"HTTP/1.1 408"
    )
    assert_refused(request_with_header(server.port, path, 10 * MiB))  # (a 10 MiB header got 200)
    before = rss_mib(server.process.pid)
    for _ in range(20):  # (twenty 25 MiB headers took a server from 145 to 533 MiB)
        assert_refused(request_with_header(server.port, path, 25 * MiB))
    grown = rss_mib(server.process.pid) - before
    assert grown < 48, f"the server grew by {grown:.0f} MiB"
    again = request_with_header(server.port, path, 100)
    assert again.startswith(b"HTTP/1.1 200"), again  # and it still serves
