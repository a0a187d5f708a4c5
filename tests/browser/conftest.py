"""Fixtures for the viewer tests: real replays, a viewer server in a thread, headless chromium.

Browser tests need Debian's chromium (`/usr/bin/chromium`, or `$BOTARENA_CHROMIUM`) and the
playwright Python package; without them they are skipped with the reason. No browser is ever
downloaded.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from botarena.bots.inprocess import PythonBot
from botarena.core.registry import get_game
from botarena.core.replay import Replay, write_replay
from botarena.runner import run_match
from waiting import wait_until

CHROMIUM = Path(os.environ.get("BOTARENA_CHROMIUM", "/usr/bin/chromium"))
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-quic",
    "--no-first-run",
    "--disable-component-update",
    "--disable-sync",
]


# ------------------------------------------------------------------------------------- replays


class Erratic:
    """A drones bot that misbehaves on schedule: garbage, a crash, a timeout, an over-request."""

    def __init__(self) -> None:
        self.calls = 0

    def act(self, payload: dict[str, Any]) -> Any:
        self.calls += 1
        if self.calls == 2:
            return "hello"  # INVALID: not an object
        if self.calls == 4:
            raise RuntimeError("boom")  # CRASHED: bot_error
        if self.calls == 6:
            for _ in range(200):  # TIMEOUT: preempted at the 100 ms deadline (short sleeps, so
                time.sleep(0.01)  # the thread watchdog can interrupt it between them)
        if self.calls == 8:
            return {"newProducers": 1000, "newSoldiers": 0, "launchAttack": False}  # CLAMPED
        return {"newProducers": 1, "newSoldiers": 0, "launchAttack": False}


def doubler(payload: dict[str, Any]) -> dict[str, Any]:
    """Spends all capacity on producers and never attacks: producers double every turn."""
    return {"newProducers": payload["producers"], "newSoldiers": 0, "launchAttack": False}


def _play(a: Any, b: Any, names: tuple[str, str], *, seed: int, **overrides: Any) -> Replay:
    """Play a match in a worker thread: in the main thread the bots' SIGALRM timer would fight
    pytest-timeout's own SIGALRM handler and timer."""
    game = get_game("drones")
    config = game.config("default", overrides) if overrides else None
    bots = [PythonBot(a, names[0]), PythonBot(b, names[1])]
    with ThreadPoolExecutor(1) as pool:
        return pool.submit(run_match, game, bots, config=config, seed=seed).result().replay


@pytest.fixture(scope="session")
def replay_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("replays")


@pytest.fixture(scope="session")
def zergy_replay(replay_dir: Path) -> tuple[Replay, Path]:
    """Zergy vs Adaptive Defender, seed 7: ten rounds with ATTACK clashes."""
    starters = get_game("drones").starter_bots
    replay = _play(starters["zergy"], starters["adaptive"], ("zergy", "adaptive"), seed=7)
    return replay, write_replay(replay, replay_dir / "zergy-adaptive.json.gz")


@pytest.fixture(scope="session")
def erratic_replay(replay_dir: Path) -> tuple[Replay, Path]:
    """An erratic bot vs Pacifist, with INVALID, CRASHED and TIMEOUT steps and a CLAMPED warning."""
    starters = get_game("drones").starter_bots
    replay = _play(
        Erratic,
        starters["pacifist"],
        ("erratic", "pacifist"),
        seed=3,
        rounds=3,
        turn_limit=5,
        turn_timeout_ms=100,
    )
    return replay, write_replay(replay, replay_dir / "erratic.json.gz")


@pytest.fixture(scope="session")
def huge_replay(replay_dir: Path) -> tuple[Replay, Path]:
    """Two doublers over one 50-turn round: counts reach 2^50, the spec's largest."""
    replay = _play(
        lambda: doubler, lambda: doubler, ("doubler-a", "doubler-b"), seed=11, rounds=1, turn_limit=50
    )
    return replay, write_replay(replay, replay_dir / "huge.json.gz")


# ------------------------------------------------------------------------------------- server


class ViewerServer:
    """A uvicorn server for one app in a daemon thread, on a free port of 127.0.0.1."""

    def __init__(self, app: Any) -> None:
        import uvicorn

        from botarena.server.viewer import bind_socket

        self.sock = bind_socket("127.0.0.1", 0)
        self.port = self.sock.getsockname()[1]
        self.server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="off"))
        self.thread = threading.Thread(target=self.server.run, kwargs={"sockets": [self.sock]}, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> ViewerServer:
        self.thread.start()
        wait_until(lambda: self.server.started or not self.thread.is_alive(), "the viewer server listening")
        if not self.server.started:
            raise RuntimeError("the viewer server did not start (its thread ended)")
        return self

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=5)
        self.sock.close()


@pytest.fixture(scope="session")
def serve() -> Iterator[Callable[[Any], ViewerServer]]:
    """serve(app_or_replay_path) -> a started ViewerServer; all are stopped at the session's end."""
    pytest.importorskip("fastapi", reason="the server extra (fastapi) is not installed")
    pytest.importorskip("uvicorn", reason="the server extra (uvicorn) is not installed")
    from botarena.server.viewer import create_viewer_app

    servers: dict[Any, ViewerServer] = {}  # one server per replay path, shared by the tests

    def start(target: Any) -> ViewerServer:
        key = target if isinstance(target, Path) else id(target)
        if key not in servers:
            app = create_viewer_app(target) if isinstance(target, Path) else target
            servers[key] = ViewerServer(app).start()
        return servers[key]

    yield start
    for server in servers.values():  # ask all to exit first, then wait: they stop in parallel
        server.server.should_exit = True
    for server in servers.values():
        server.stop()


# ------------------------------------------------------------------------------------- browser


def _missing(reason: str) -> None:
    """Skip locally; fail in CI, where .ci/run installs chromium and sets BOTARENA_REQUIRE_BROWSER."""
    if os.environ.get("BOTARENA_REQUIRE_BROWSER"):
        pytest.fail(reason)
    pytest.skip(reason)


class _SharedChromium:
    """One headless chromium for a run of browser test modules, not one per module (a launch costs
    a second or more of a loaded box's time per module).

    Playwright's sync API keeps an asyncio loop marked as running on the main thread while it is
    open, and tests outside tests/browser call `asyncio.run` (DatsPulse's server and HTTP client
    tests), which refuses to start inside a running loop: so `pytest_runtest_teardown` below stops
    it after the last browser test before any test of another directory (or the session's end).
    (Session scope would keep it open under those tests; package scope does not exist here: tests/
    has no packages.)"""

    def __init__(self) -> None:
        self.playwright: Any = None
        self.browser: Any = None

    def get(self) -> Any:
        if self.browser is None:
            if not CHROMIUM.exists():
                _missing(f"browser tests need Debian's chromium at {CHROMIUM} (apt-get install chromium)")
            try:
                from playwright.sync_api import sync_playwright
            except ImportError:
                _missing("browser tests need the playwright package (pip install playwright)")
            self.playwright = sync_playwright().start()
            try:
                self.browser = self.playwright.chromium.launch(
                    executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS
                )
            except BaseException:
                self.stop()
                raise
        return self.browser

    def stop(self) -> None:
        if self.browser is not None:
            self.browser.close()
            self.browser = None
        if self.playwright is not None:
            self.playwright.stop()
            self.playwright = None


_CHROMIUM = _SharedChromium()
_HERE = Path(__file__).parent


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_teardown(item: pytest.Item, nextitem: pytest.Item | None) -> Iterator[None]:
    """After a browser test's fixtures are torn down: stop the shared chromium when the next test is
    not a browser test (or there is none), so no test elsewhere runs under Playwright's loop."""
    yield
    if nextitem is None or _HERE not in Path(nextitem.path).parents:
        _CHROMIUM.stop()


@pytest.fixture(scope="module")
def browser() -> Any:
    """The shared headless chromium; each module makes its own contexts (`browser_context`)."""
    return _CHROMIUM.get()


@pytest.fixture(scope="module")
def browser_context(browser: Any) -> Iterator[Any]:
    context = browser.new_context(viewport={"width": 1440, "height": 960}, device_scale_factor=1)
    yield context
    context.close()


@pytest.fixture
def page(browser_context: Any) -> Iterator[Any]:
    """A fresh page; any uncaught JavaScript error or console error fails the test."""
    page = browser_context.new_page()
    page.set_default_timeout(10_000)
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(f"pageerror: {exc}"))
    page.on("console", lambda msg: errors.append(f"console: {msg.text}") if msg.type == "error" else None)
    page.js_errors = errors  # tests that expect an error (a 404) clear this list
    yield page
    page.close()
    assert not errors, f"JavaScript errors in the page: {errors}"


@pytest.fixture
def open_viewer(page: Any) -> Callable[..., Any]:
    """open_viewer(base_url, query=...) -> the page, once the replay is loaded and drawn."""

    def open_(base_url: str, query: str = "?replay=/api/replay", *, expect_error: bool = False) -> Any:
        page.goto(base_url + "/" + query)
        page.wait_for_function("window.__botarena && (window.__botarena.ready || window.__botarena.error)")
        error = page.evaluate("window.__botarena.error")
        if not expect_error:
            assert error is None, f"the viewer reported: {error}"
        return page

    return open_
