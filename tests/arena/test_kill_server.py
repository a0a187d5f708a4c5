"""G11 (specs/arena.md, durability): the server SIGKILLed while uploads are in flight, then started
again: every version answered 201 is in the store, its artifact readable and its digest right; the
upload cut mid-body left no version, no artifact, no bot version and nothing in the upload scratch
folder, and the same upload (the same Idempotency-Key) is taken by the restarted server.

The server is the real `botarena serve` over a SQLite file, in its own process group. The test
synchronises on events only: the answers of the uploads, the store's rows, and, for the cut upload,
the kernel's own count of the bytes the server has not read yet on that connection (its socket's
receive queue in /proc/net/tcp): once it is 0 the half body is inside the server, which waits for
the rest when the kill lands."""

from __future__ import annotations

import hashlib
import http.client
import io
import os
import signal
import socket
import subprocess
import sys
import tarfile
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import orjson
import pytest
from sqlalchemy import func, select

from botarena.arena.archive import scratch_prefix
from botarena.arena.competitions import add_team, check_setup, create_competition
from botarena.arena.policy import ArenaPolicy
from botarena.arena.tokens import IssuedToken
from botarena.arena.uploads import SCRATCH_ENV, convert
from botarena.store import Store
from botarena.store.arena import ArenaStore
from botarena.store.arena_versions import ArenaVersions
from botarena.store.models import Artifact, BotVersion
from waiting import wait_until

from .forms import bot_source, bot_zip, multipart

pytestmark = pytest.mark.skipif(not Path("/proc/net/tcp").exists(), reason="needs Linux's /proc/net/tcp")


@dataclass
class Served:
    process: subprocess.Popen[str]
    host: str
    port: int

    def request(self, method: str, path: str, token: str, body: bytes = b"", **headers: str) -> Any:
        """(status, parsed JSON or bytes) of one request on a connection of its own."""
        conn = http.client.HTTPConnection(self.host, self.port, timeout=60)
        try:
            conn.request(
                method, path, body=body or None, headers={"authorization": f"Bearer {token}", **headers}
            )
            answer = conn.getresponse()
            data = answer.read()
        finally:
            conn.close()
        kind = answer.getheader("content-type", "")
        return answer.status, orjson.loads(data) if kind.startswith("application/json") else data


def serve(db: str, cwd: Path, scratch: Path) -> Served:
    """`botarena serve` on a free port, in its own session (a SIGKILL of its group takes it whole)."""
    env = {name: value for name, value in os.environ.items() if not name.startswith("BOTARENA_")}
    # (a body timeout far beyond the test's: the cut upload is still waited for when the kill lands)
    env |= {SCRATCH_ENV: str(scratch), "PYTHONUNBUFFERED": "1", "BOTARENA_HTTP_BODY_TIMEOUT_S": "600"}
    # (--unsandboxed: the server plays no match itself)
    command = [sys.executable, "-m", "botarena", "serve", "--port", "0", "--db", db, "--unsandboxed"]
    process = subprocess.Popen(
        command, cwd=cwd, env=env, start_new_session=True,
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    assert process.stdout is not None
    for _ in range(10):  # its first lines say where it listens
        line = process.stdout.readline()
        if line.startswith("http://"):
            where = urlsplit(line.strip())
            assert where.hostname is not None and where.port is not None
            drain(process)
            return Served(process, where.hostname, where.port)
        if not line:
            break
    process.kill()
    raise AssertionError(f"botarena serve did not start: {process.communicate(timeout=60)}")


def drain(process: subprocess.Popen[str]) -> None:
    """Read the server's output in the background (a full pipe would block it)."""
    for stream in (process.stdout, process.stderr):
        threading.Thread(target=lambda s=stream: s and s.read(), daemon=True).start()


def kill(served: Served) -> None:
    os.killpg(served.process.pid, signal.SIGKILL)
    served.process.wait(timeout=60)


def gone_pid() -> int:
    """The pid of a process that has exited (and been reaped)."""
    child = subprocess.Popen(["true"])
    child.wait()
    return child.pid


def unread_bytes(server_port: int, client_port: int) -> int | None:
    """The bytes the server has not read yet on the connection from `client_port` (its socket's
    receive queue, as the kernel counts it), None while the kernel shows no such socket."""
    for line in Path("/proc/net/tcp").read_text().splitlines()[1:]:
        fields = line.split()
        local, remote, queues = fields[1], fields[2], fields[4]
        if int(local.split(":")[1], 16) == server_port and int(remote.split(":")[1], 16) == client_port:
            return int(queues.split(":")[1], 16)
    return None


def upload_body(source: bytes) -> tuple[bytes, dict[str, str]]:
    return multipart(bot_zip({"bot/bot.py": source.decode()}), "bot.zip")


def begin_cut_upload(
    served: Served, path: str, token: str, body: bytes, headers: dict[str, str]
) -> socket.socket:
    """An upload whose headers and first half are sent, the rest never: returns once the server has
    read every byte sent (the kernel's receive queue of its end of the connection is empty)."""
    sock = socket.create_connection((served.host, served.port), timeout=60)
    head = [f"POST {path} HTTP/1.1", f"Host: {served.host}:{served.port}", f"Authorization: Bearer {token}"]
    head += [f"{name}: {value}" for name, value in headers.items()]
    head += [f"Content-Length: {len(body)}", "", ""]
    sock.sendall("\r\n".join(head).encode() + body[: len(body) // 2])
    client_port = sock.getsockname()[1]
    wait_until(lambda: unread_bytes(served.port, client_port) == 0, "the server reading the half body")
    return sock


def canonical(source: bytes) -> str:
    """The digest the upload of `source` gets (as the server converts it)."""
    return convert(bot_zip({"bot/bot.py": source.decode()}), "bot.zip", ArenaPolicy()).digest


def bot_py_of(artifact: bytes) -> bytes:
    with tarfile.open(fileobj=io.BytesIO(artifact), mode="r:gz") as tar:
        member = tar.extractfile("bot.py")
        assert member is not None
        return member.read()


@pytest.mark.timeout(300)
def test_g11_a_sigkilled_server_loses_no_upload_answered_201_and_keeps_nothing_of_the_cut_one(
    tmp_path: Path,
) -> None:
    db = f"sqlite:///{tmp_path / 'arena.db'}"
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    store = Store.open(db)
    try:
        arena = ArenaStore(store)
        # (4 conversions at once: the 3 uploads in flight are all taken, none told to come back)
        setup, policy = check_setup("drones"), {"max_conversions": 4}
        competition, _ = create_competition(arena, "durable", setup, policy=policy, actor="test")
        arena.update_competition(competition.id, actor="test", phase="open")
        # a team for each upload answered 201 (each stays `received`), and `cutter` for the cut one
        teams = [add_team(arena, competition.id, f"team-{i}", actor="test") for i in range(3)]
        cutter, cutter_token = add_team(arena, competition.id, "cutter", actor="test")
        tokens = {team.id: token for team, token in teams}
        path = f"/api/competitions/{competition.id}/teams/{{}}/versions"
        sources = {f"kept-{i}": bot_source(f"kept {i}") for i in range(3)}
        cut_source = bot_source("cut mid-body" + "#" * 40_000)  # large enough to be sent in parts
        cut_digest = canonical(cut_source)

        served = serve(db, tmp_path, scratch)
        try:
            cut_body, cut_headers = upload_body(cut_source)
            cut = begin_cut_upload(
                served,
                path.format(cutter.id),
                cutter_token.text,
                cut_body,
                {**cut_headers, "Idempotency-Key": "cut-1"},
            )
            answers: dict[str, Any] = {}

            def post(name: str, token: IssuedToken, team_id: int) -> None:
                body, headers = upload_body(sources[name])
                answers[name] = served.request("POST", path.format(team_id), token.text, body, **headers)

            threads = [
                threading.Thread(target=post, args=(name, teams[i][1], teams[i][0].id))
                for i, name in enumerate(sources)
            ]
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join(timeout=120)
            statuses = {name: status for name, (status, _) in answers.items()}
            assert statuses == dict.fromkeys(sources, 201), answers
            assert unread_bytes(served.port, cut.getsockname()[1]) == 0  # the cut one still mid-body
        finally:
            kill(served)  # the server and anything it started, at once
        assert served.process.returncode == -signal.SIGKILL
        cut.close()
        assert list(scratch.iterdir()) == []  # the cut upload never reached the unpacking

        answered = {name: body for name, (_, body) in answers.items()}
        versions = ArenaVersions(arena)
        for name, shown in answered.items():  # every 201 is in the store, its artifact sound
            row = versions.get_version(shown["id"])
            assert row is not None and row.source_digest == shown["digest"] and row.state == "received"
            artifact = store.get_artifact(shown["digest"])
            assert hashlib.sha256(artifact).hexdigest() == shown["digest"]
            assert bot_py_of(artifact) == sources[name]
        assert versions.find_by_key(cutter.id, "cut-1") is None
        with store.read_session("test") as session:
            assert session.scalar(select(func.count()).select_from(Artifact)) == len(sources)
            assert session.scalar(select(func.count()).where(Artifact.digest == cut_digest)) == 0
            assert session.scalar(select(func.count()).select_from(BotVersion)) == len(sources)
        assert sorted(r.id for t, _ in [*teams, (cutter, None)] for r in versions.versions(t.id)) == sorted(
            shown["id"] for shown in answered.values()
        )

        # what a server killed mid-unpack leaves: a scratch folder named by a process that is gone
        stray = scratch / scratch_prefix().replace(f"-{os.getpid()}@", f"-{gone_pid()}@")
        stray.mkdir(mode=0o700)
        (stray / "bot.py").write_text("# unpacked when the server died\n")
        again = serve(db, tmp_path, scratch)  # the restarted server: everything there, the cut one retried
        try:
            for name, shown in answered.items():
                token = tokens[shown["team_id"]]
                status, source = again.request(
                    "GET", f"{path.format(shown['team_id'])}/{shown['id']}/source", token.text
                )
                assert status == 200 and hashlib.sha256(source).hexdigest() == shown["digest"]
                assert bot_py_of(source) == sources[name]
            status, retried = again.request(
                "POST",
                path.format(cutter.id),
                cutter_token.text,
                cut_body,
                **cut_headers,
                **{"Idempotency-Key": "cut-1"},
            )
            assert status == 201, retried  # a new version: the kill left the key unused
            assert retried["digest"] == cut_digest
            assert list(scratch.iterdir()) == []  # its own folder removed, the stray one swept
        finally:
            kill(again)
    finally:
        store.close()
