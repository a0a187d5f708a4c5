"""The public-client smoke harness (spec §11): three unmodified public DatsPulse clients play a round
of `botarena datspulse serve --preset compat` on 127.0.0.1.

The clients are never part of this project. The test takes checkouts the user supplies and skips
without them, saying how to enable it:

    BOTARENA_DATSPULSE_CLIENTS=/path/holding/all/three      (found by their files), or one each:
    BOTARENA_DATSPULSE_KERNIEE=...  BOTARENA_DATSPULSE_AETORNY=...  BOTARENA_DATSPULSE_KULASARM=...
    BOTARENA_DATSPULSE_CLIENTS_PYTHON=/venv/bin/python      an interpreter with their dependencies
                                                            (dacite httpx pygame python-dotenv requests;
                                                            kerniee needs Python >= 3.12)
    BOTARENA_DATSPULSE_CLIENTS_TURNS=15                     the round's length (compat: 2 s turns)

Each checkout is copied to a temporary folder and set up as §7.4 says, changing only its base URL
and token (kerniee: the production host in src/client.py, the token from DATS_API_TOKEN, a writable
ai_ignore/, SDL dummy drivers; Aetorny: URL and token in controller/settings.py; KulAsArm: env URL
and TOKEN). The clients talk to the server through a recording proxy of this test, so every request
and reply is seen as the client saw it.

Assertions (§11): kerniee and Aetorny have moves accepted (200) and, from their first one to the
final state, get no 429 and no other error reply; every `errors` string they get is a §5 template
(kerniee never `not adjacent` nor `cannot move more than`); KulAsArm completes one loop (register,
arena, move, logs all 200); the server answers no request 500; the harness checks the rate limit
itself (a burst of 7, the 7th refused). Printed, not asserted (a loaded machine is not a conformance
failure): the schedule (§11: transitions within 0.1 s of their instants) and the turns a client
missed because its own compute outlasted a 2 s turn.
"""

from __future__ import annotations

import contextlib
import http.client
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

_opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))

CLIENT_DEPENDENCIES = ("dacite", "httpx", "pygame", "dotenv", "requests")
TOKENS = {"kerniee": "tok-kerniee-0001", "aetorny": "tok-aetorny-0001", "kulasarm": "tok-kulasarm-001"}
#: how each client's checkout is recognised inside BOTARENA_DATSPULSE_CLIENTS
MARKERS = {
    "kerniee": ("src/client.py", "src/main.py", "src/game_types.py"),
    "aetorny": ("controller/settings.py", "controller/controller.py", "main.py"),
    "kulasarm": ("cmd/main.py",),
}
ENV_NAMES = {name: f"BOTARENA_DATSPULSE_{name.upper()}" for name in MARKERS}
HOW_TO = (
    "set BOTARENA_DATSPULSE_CLIENTS to a folder holding checkouts of kerniee/datspulse, "
    "Aetorny/DatsPulse and KulAsArm/DatsPulseHackaton (or BOTARENA_DATSPULSE_KERNIEE / _AETORNY / "
    "_KULASARM, one each) and BOTARENA_DATSPULSE_CLIENTS_PYTHON to a Python with their dependencies"
)
#: §5's error templates, plus the break's `round is over`
ERROR_TEMPLATES = {
    "dead": re.compile(r"^ant \S+ is dead$"),
    "too_long": re.compile(r"^ant \S+ cannot move more than \d+ tiles, but tried to move \d+ tiles$"),
    "not_adjacent": re.compile(
        r"^ant \S+ cannot move from \{-?\d+ -?\d+\} to \{-?\d+ -?\d+\}, not adjacent coordinates$"
    ),
    "not_found": re.compile(r"^ant \S+ cannot move to \{-?\d+ -?\d+\}, tile not found$"),
    "invalid": re.compile(r"^invalid move command at index \d+$"),
    "over": re.compile(r"^round is over$"),
}  # fmt: skip


def _find_checkouts() -> dict[str, Path]:
    found: dict[str, Path] = {}
    for name, variable in ENV_NAMES.items():
        given = os.environ.get(variable)
        if given:
            found[name] = Path(given)
    folder = os.environ.get("BOTARENA_DATSPULSE_CLIENTS")
    if folder and Path(folder).is_dir():
        for child in sorted(Path(folder).iterdir()):
            for name, files in MARKERS.items():
                if name not in found and all((child / f).is_file() for f in files):
                    found[name] = child
    return {name: path for name, path in found.items() if all((path / f).is_file() for f in MARKERS[name])}


def _client_python() -> str:
    return os.environ.get("BOTARENA_DATSPULSE_CLIENTS_PYTHON") or sys.executable


def _missing_dependencies(python: str) -> list[str]:
    missing = []
    for module in CLIENT_DEPENDENCIES:
        probe = subprocess.run([python, "-c", f"import {module}"], capture_output=True, timeout=120)
        if probe.returncode != 0:
            missing.append(module)
    return missing


# ------------------------------------------------------------------------------------ the proxy


@dataclass
class Exchange:
    """One request a client made, as it saw the reply."""

    token: str
    method: str
    path: str
    status: int
    body: Any
    at: float = field(default_factory=time.monotonic)  # when the reply came (for the trace only)


@dataclass
class Recorder:
    exchanges: list[Exchange] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def of(self, team: str) -> list[Exchange]:
        with self.lock:
            return [e for e in self.exchanges if e.token == TOKENS[team]]


def _proxy(upstream_port: int, recorder: Recorder) -> ThreadingHTTPServer:
    """A recording reverse proxy to the server on 127.0.0.1:`upstream_port`: headers and body pass
    through unchanged, and every exchange is kept (token, method, path, status, parsed body)."""

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def _forward(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            data = self.rfile.read(length) if length else None
            headers = {k: v for k, v in self.headers.items() if k.lower() not in ("host", "connection")}
            upstream = http.client.HTTPConnection("127.0.0.1", upstream_port, timeout=60)
            try:
                upstream.request(self.command, self.path, body=data, headers=headers)
                reply = upstream.getresponse()
                payload = reply.read()
                status, reply_headers = reply.status, reply.getheaders()
            finally:
                upstream.close()
            try:
                parsed = json.loads(payload) if payload else None
            except ValueError:
                parsed = payload.decode(errors="replace")
            with recorder.lock:
                token = self.headers.get("X-Auth-Token") or ""
                recorder.exchanges.append(Exchange(token, self.command, self.path, status, parsed))
            self.send_response(status)
            for key, value in reply_headers:
                if key.lower() not in ("connection", "transfer-encoding", "content-length", "date", "server"):
                    self.send_header(key, value)
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

        do_GET = do_POST = do_PUT = _forward

        def log_message(self, format: str, *args: Any) -> None:
            return

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


# ------------------------------------------------------------------------------------ set-up per client


def _setup_kerniee(source: Path, work: Path, base: str) -> tuple[list[str], Path, dict[str, str]]:
    client = work / "src" / "client.py"
    text = client.read_text(encoding="utf-8")
    assert '"https://games.datsteam.dev"' in text, "kerniee's src/client.py no longer names its host"
    client.write_text(text.replace('"https://games.datsteam.dev"', json.dumps(base)), encoding="utf-8")
    (work / "ai_ignore").mkdir(exist_ok=True)
    env = {"DATS_API_TOKEN": TOKENS["kerniee"], "SDL_VIDEODRIVER": "dummy", "SDL_AUDIODRIVER": "dummy"}
    return ["src/main.py"], work, env


def _setup_aetorny(source: Path, work: Path, base: str) -> tuple[list[str], Path, dict[str, str]]:
    settings = work / "controller" / "settings.py"
    text = settings.read_text(encoding="utf-8")
    text, urls = re.subn(r"^URL = .*$", f"URL = {json.dumps(base + '/api')}", text, flags=re.M)
    text, tokens = re.subn(r"('X-Auth-Token':\s*)'[^']*'", rf"\1'{TOKENS['aetorny']}'", text)
    assert urls == 1 and tokens == 1, "Aetorny's controller/settings.py no longer has URL and the token"
    settings.write_text(text, encoding="utf-8")
    return ["main.py"], work, {}


def _setup_kulasarm(source: Path, work: Path, base: str) -> tuple[list[str], Path, dict[str, str]]:
    return ["main.py"], work / "cmd", {"URL": base + "/api", "TOKEN": TOKENS["kulasarm"]}


SETUP = {"kerniee": _setup_kerniee, "aetorny": _setup_aetorny, "kulasarm": _setup_kulasarm}


# ------------------------------------------------------------------------------------ the harness


@pytest.fixture
def checkouts() -> dict[str, Path]:
    found = _find_checkouts()
    if not found:
        pytest.skip(f"no public DatsPulse client checkouts: {HOW_TO}")
    missing = sorted(set(MARKERS) - set(found))
    if missing:
        pytest.skip(f"checkouts missing for {', '.join(missing)}: {HOW_TO}")
    lacking = _missing_dependencies(_client_python())
    if lacking:
        pytest.skip(f"{_client_python()} lacks the clients' modules {', '.join(lacking)}: {HOW_TO}")
    return found


@pytest.fixture
def processes() -> Iterator[list[subprocess.Popen[str]]]:
    started: list[subprocess.Popen[str]] = []
    yield started
    for process in started:
        if process.poll() is None:
            process.send_signal(signal.SIGINT)
    for process in started:
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=30)


def _get(url: str) -> Any:
    with _opener.open(url, timeout=30) as reply:
        return json.loads(reply.read())


def _served_turns(exchanges: list[Exchange]) -> set[int]:
    """The turns in which a move was accepted (HTTP 200): the reply's turnNo is the turn it joins."""
    return {
        e.body["turnNo"]
        for e in exchanges
        if e.path.endswith("/move") and e.status == 200 and isinstance(e.body, dict)
    }


def _errors(exchanges: list[Exchange]) -> list[str]:
    out: list[str] = []
    for e in exchanges:
        if e.path.endswith("/move") and e.status == 200 and isinstance(e.body, dict):
            out.extend(e.body.get("errors") or [])
    return out


def _kind(error: str) -> str | None:
    return next((kind for kind, pattern in ERROR_TEMPLATES.items() if pattern.match(error)), None)


def test_dp11_public_clients_play_a_compat_round(
    checkouts: dict[str, Path], processes: list[subprocess.Popen[str]], tmp_path: Path
) -> None:
    turns = int(os.environ.get("BOTARENA_DATSPULSE_CLIENTS_TURNS") or 15)
    config = tmp_path / "server.toml"
    teams = "".join(f'[[teams]]\nname = "{n}"\ntoken = "{t}"\n\n' for n, t in TOKENS.items())
    config.write_text(
        f'preset = "compat"\nseed = 2025\n\n[game]\nturns = {turns}\n\n{teams}', encoding="utf-8"
    )
    env = {**os.environ, "NO_PROXY": "127.0.0.1", "no_proxy": "127.0.0.1"}
    command = [sys.executable, "-m", "botarena", "datspulse", "serve", "--config", str(config)]
    db = f"sqlite:///{tmp_path / 'dp.db'}"
    command += ["--preset", "compat", "--host", "127.0.0.1", "--port", "0", "--db", db]
    server = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env)
    processes.append(server)
    assert server.stdout is not None
    lines = [server.stdout.readline() for _ in range(3)]
    api = next(line.split()[-1] for line in lines if line.startswith("API:"))
    port = int(api.split(":")[2].split("/")[0])
    status = _get(f"{api}/datspulse/series")
    assert status["phase"] == "lobby", status  # §11: the clients start while the first lobby is open

    recorder = Recorder()
    proxy = _proxy(port, recorder)
    base = f"http://127.0.0.1:{proxy.server_address[1]}"
    logs: dict[str, Path] = {}
    clients: dict[str, subprocess.Popen[str]] = {}
    try:
        for name, source in checkouts.items():
            work = tmp_path / name
            shutil.copytree(source, work, ignore=shutil.ignore_patterns(".git"))
            args, cwd, extra = SETUP[name](source, work, base)
            logs[name] = tmp_path / f"{name}.log"
            with logs[name].open("w") as out:
                clients[name] = subprocess.Popen(
                    [_client_python(), *args], cwd=cwd, env={**env, **extra, "PYTHONUNBUFFERED": "1"},
                    stdout=out, stderr=subprocess.STDOUT, text=True,
                )  # fmt: skip
            processes.append(clients[name])

        # synchronise on the server's own account of the round: it finished (or was cancelled)
        for _ in range(int((10 + turns * 2.0) * 4) + 400):  # a counted wait: 0.25 s per poll
            status = _get(f"{api}/datspulse/series")
            first = status["rounds"][0] if status["rounds"] else None
            if first is not None and first["status"] in ("finished", "cancelled", "empty"):
                break
            threading.Event().wait(0.25)
        assert first is not None and first["status"] == "finished", status
        # kerniee ends by design once the round is over (§7.4): give it the chance
        with contextlib.suppress(subprocess.TimeoutExpired):
            clients["kerniee"].wait(timeout=60)
    finally:
        proxy.shutdown()
    report = {name: logs[name].read_text(errors="replace")[-3000:] for name in logs}
    trace = tmp_path / "exchanges.jsonl"  # every request as its client saw it, for a failure's study
    with trace.open("w") as out:
        team_of = {token: team for team, token in TOKENS.items()}
        for e in recorder.exchanges:
            turn = e.body.get("turnNo") if isinstance(e.body, dict) else None
            errors = e.body.get("errors") if isinstance(e.body, dict) else None
            row = [round(e.at, 3), team_of.get(e.token), e.method, e.path, e.status, turn, errors]
            out.write(json.dumps(row) + "\n")
    print(f"\nexchanges: {trace}")

    assert sorted(first["teams"]) == sorted(TOKENS), (first["teams"], report)
    print(f"\nround {first['name']}: results {first['results']}")
    timing = first["transitions"]
    print(f"transitions: {json.dumps({k: v for k, v in timing.items() if k != 'durationsMs'})}")
    for name in ("kerniee", "aetorny"):
        seen = recorder.of(name)
        served = _served_turns(seen)
        assert served, f"{name} had no move accepted\n{report[name]}"
        start = min(served)
        # A move that lands a turn after the arena it answers is the client's own compute time on
        # this machine (Aetorny thinks 1-3 s on a loaded 2-core box, kerniee up to 1 s): reported,
        # not asserted (the standards: no test depends on the machine's speed).
        missed = sorted(set(range(start, turns)) - served)
        print(f"{name}: moves accepted in turns {start}..{max(served)}; turns without one: {missed}")
        # from its first accepted move to the final state, every reply it got was a 200: no 429,
        # no 400 (a body it sent that we refused), no 5xx; the lobby's 429s are Aetorny's tight
        # polling loop there (§7.1), harmless by design
        first_move = next(i for i, e in enumerate(seen) if e.path.endswith("/move") and e.status == 200)
        bad = [e for e in seen[first_move:] if e.status != 200 and not _after_the_round(e, seen, turns)]
        assert not bad, f"{name}: error replies during the round {[(e.path, e.status, e.body) for e in bad]}"
        lobby_refused = sum(e.status == 429 for e in seen[:first_move])
        print(f"{name}: {lobby_refused} requests refused 429 before its first move (lobby polling)")
        errors = _errors(seen)
        unknown = [error for error in errors if _kind(error) is None]
        assert not unknown, f"{name}: errors outside §5's templates: {unknown[:5]}"
        kinds = {_kind(error) for error in errors}
        counts = {k: sum(_kind(e) == k for e in errors) for k in sorted(filter(None, kinds))}
        print(f"{name}: errors by kind {counts}")
        if name == "kerniee":
            assert not kinds & {"not_adjacent", "too_long"}, f"kerniee: {sorted(filter(None, kinds))}"
            assert "dacite" not in report[name], f"kerniee failed to parse a reply\n{report[name]}"
    kul = recorder.of("kulasarm")
    loop = ["/api/register", "/api/arena", "/api/move", "/api/logs"]
    ok_paths = [e.path for e in kul if e.status == 200]
    assert _is_subsequence(loop, ok_paths), (
        f"KulAsArm did not complete a loop: {ok_paths}\n{report['kulasarm']}"
    )
    assert not [e for e in recorder.exchanges if e.status >= 500], "the server answered 500"

    # §11 rate limit, checked by the harness itself: 7 requests of one token in a burst
    burst = []
    for _ in range(7):
        request = urllib.request.Request(f"{api}/rounds", headers={"X-Auth-Token": TOKENS["kulasarm"]})
        try:
            with _opener.open(request, timeout=30) as reply:
                burst.append((reply.status, None, None))
        except urllib.error.HTTPError as refused:
            burst.append((refused.code, json.loads(refused.read()), refused.headers.get("Retry-After")))
    assert burst[-1][0] == 429 and burst[-1][1]["code"] == 6 and burst[-1][2] == "1", burst


def _after_the_round(exchange: Exchange, seen: list[Exchange], turns: int) -> bool:
    """True when `exchange` came after the client had seen the final state (turnNo == turns): the
    expected end of kerniee (a 429 once it polls at once) and of Aetorny (it polls until stopped)."""
    index = seen.index(exchange)
    return any(isinstance(e.body, dict) and e.body.get("turnNo") == turns for e in seen[:index])


def _is_subsequence(wanted: list[str], paths: list[str]) -> bool:
    position = iter(paths)
    return all(any(path == step for path in position) for step in wanted)
