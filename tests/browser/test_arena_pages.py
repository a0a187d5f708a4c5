"""The arena's pages in headless chromium (specs/arena.md, Pages; "What a team sees when something
fails"; G12): `/team`, `/competition/{cid}` and `/admin` on the real app under uvicorn over a real
SQLite store.

The world is seeded as the arena makes it: a competition and teams by `arena.competitions`, versions
through the upload route with small real drones bots; what the coordinator would write (a version
validated, rejected or rated, a match played) is written to the store as it writes it. Each test
has browser contexts of its own (a team's, the organizer's, an anonymous spectator's), so no
session cookie leaks from one role to another. Every wait is on the page's DOM or its test hooks,
never a sleep; a page error, a CSP violation or an unexpected failed request fails the test.
"""

from __future__ import annotations

import contextlib
import functools
import gzip
import io
import json
import re
import stat
import urllib.error
import urllib.request
import uuid
import zipfile
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from types import SimpleNamespace
from typing import Any

import pytest

from waiting import wait_until

pytestmark = pytest.mark.browser

HOSTILE = '<img src=x onerror="window.__pwned=1">'
LOG_CANARY = "CANARY-alpha-own-stderr-7f3e"
RIVAL_CANARY = "CANARY-rival-stderr-91ab"
FILLER_MATCHES = 22
WAIT_MS = 30_000  # a bound for a loaded box (each wait returns as soon as its condition holds)
REFUSED = re.compile(r"status of (\d{3})")

BOT = """import json
import sys

# {marker}: a small drones bot of the generic JSON-lines protocol: one producer a turn, never attacks
for line in sys.stdin:
    request = json.loads(line)
    turn = request.get("type") == "turn"
    payload = {{"newProducers": 1, "newSoldiers": 0, "launchAttack": False}} if turn else {{}}
    print(json.dumps({{"id": request["id"], "payload": payload}}), flush=True)
"""


def bot_source(marker: str) -> bytes:
    return BOT.format(marker=marker).encode()


def symlink_zip() -> bytes:
    """A zip whose `bot/data` entry is a symlink to /etc/passwd, beside a valid bot.py."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("bot/bot.py", bot_source("with a link"))
        link = zipfile.ZipInfo("bot/data")
        link.create_system = 3  # unix: the mode bits below are read
        link.external_attr = (stat.S_IFLNK | 0o777) << 16
        archive.writestr(link, "/etc/passwd")
    return buffer.getvalue()


# ------------------------------------------------------------------------------------- HTTP


def call(url: str, method: str = "GET", token: str | None = None, **kwargs: Any) -> tuple[int, Any]:
    """(status, JSON answer) of one API call with a bearer token."""
    headers = dict(kwargs.get("headers", {}))
    data = kwargs.get("body")
    if "json" in kwargs:
        data = json.dumps(kwargs["json"]).encode()
        headers["Content-Type"] = "application/json"
    if token is not None:
        headers["Authorization"] = f"Bearer {token}"
    request = urllib.request.Request(url, data=data, method=method, headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=30) as answer:
            body = answer.read()
            return answer.status, json.loads(body) if body else None
    except urllib.error.HTTPError as refused:
        return refused.code, json.loads(refused.read() or b"null")


def upload(site: Site, team: str, data: bytes, filename: str = "bot.py") -> dict[str, Any]:
    """A version of `team` through the upload route (a multipart form, as a browser sends it)."""
    boundary = uuid.uuid4().hex
    body = (
        (
            f'--{boundary}\r\nContent-Disposition: form-data; name="file"; filename="{filename}"\r\n'
            "Content-Type: application/octet-stream\r\n\r\n"
        ).encode()
        + data
        + f"\r\n--{boundary}--\r\n".encode()
    )
    headers = {"Content-Type": f"multipart/form-data; boundary={boundary}"}
    url = f"{site.api}/teams/{site.team_ids[team]}/versions"
    status, answer = call(url, "POST", site.tokens[team], body=body, headers=headers)
    assert status == 201, answer
    return dict(answer)


# ------------------------------------------------------------------------------------- the store


def move_version(store: Any, version_id: int, state: str, **columns: Any) -> None:
    """Put a version in `state` (and set `columns`) as the coordinator does, in the store."""
    from botarena.store.models import Version

    with store.write_session("test: move a version") as session:
        version = session.get(Version, version_id)
        assert version is not None
        version.state = state
        for name, value in columns.items():
            setattr(version, name, value)


@functools.cache
def played_replay() -> dict[str, Any]:
    """A real drones replay (two starters, a short match) as JSON, for the viewer to open."""
    from botarena.bots.inprocess import PythonBot
    from botarena.core.registry import get_game
    from botarena.runner import run_match

    game = get_game("drones")
    starters = game.starter_bots
    bots = [PythonBot(starters["zergy"], "zergy"), PythonBot(starters["pacifist"], "pacifist")]
    config = game.config("default", {"rounds": 2, "turn_limit": 4})
    with ThreadPoolExecutor(1) as pool:  # the bots' timers want a worker thread under pytest-timeout
        played = pool.submit(run_match, game, bots, config=config, seed=7).result(timeout=120)
    return dict(json.loads(played.replay.dumps()))


def play_match(store: Any, tournament_id: int, key: str, seats: list[str], **result: Any) -> int:
    """An arena match of `seats`, recorded as the coordinator records one: `ranks`, per-seat
    `statuses`, `logs` and `failures` in the result and its replay. Its id."""
    from botarena.store.arena_reads import link_match_versions, record_pair_results, seat_version
    from botarena.store.models import Match

    store.add_matches(tournament_id, [SimpleNamespace(key=key, round=1, seats=seats, seed=7)])
    with store.write_session("test: an arena match's kind") as session:
        match = session.query(Match).filter_by(tournament_id=tournament_id, key=key).one()
        match.kind = result.get("kind", "rated")
        match_id = int(match.id)
        link_match_versions(session, match_id, seats)  # the coordinator links the seats with the match
    logs = result.get("logs", [""] * len(seats))
    replay = {
        **played_replay(),
        "players": seats,
        "logs": [{"seat": i, "text": text, "dropped_bytes": 0} for i, text in enumerate(logs)],
    }
    store.record_result(
        tournament_id,
        key,
        ranks=result["ranks"],
        scores=[float(-r) for r in result["ranks"]],
        statuses=result.get("statuses", [{"OK": 10} for _ in seats]),
        time_used_ms=[1.0 for _ in seats],
        steps=10,
        duration_s=0.5,
        replay_gz=gzip.compress(json.dumps(replay).encode()),
        failures=result.get("failures"),
    )
    if result.get("kind", "rated") == "rated":  # the coordinator counts W/D/L with a rated result
        with store.write_session("test: count the result") as session:
            record_pair_results(session, [seat_version(name) for name in seats], result["ranks"])
    return match_id


def rate(store: Any, competition_id: int, version_id: int, mu: float, sigma: float, games: int) -> None:
    """A version's current rating and the epoch bump of a rating write, as the coordinator does."""
    from botarena.store.models import Competition, RatingCurrent

    with store.write_session("test: a rating") as session:
        session.add(RatingCurrent(version_id=version_id, mu=mu, sigma=sigma, games=games))
        competition = session.get(Competition, competition_id)
        assert competition is not None
        competition.rating_epoch += 1


# ------------------------------------------------------------------------------------- the world


@dataclass
class Site:
    url: str
    store: Any
    competition_id: int
    tournament_id: int
    organizer: str
    tokens: dict[str, str]
    team_ids: dict[str, int]
    store_arena: Any  # the app's ArenaStore
    versions: dict[str, int] = field(default_factory=dict)
    matches: dict[str, int] = field(default_factory=dict)

    @property
    def api(self) -> str:
        return f"{self.url}/api/competitions/{self.competition_id}"


def _active(site: Site, team: str, marker: str) -> int:
    """A version of `team` uploaded, validated (as the coordinator would) and activated by the team."""
    made = upload(site, team, bot_source(marker))
    move_version(site.store, made["id"], "ready")
    url = f"{site.api}/teams/{site.team_ids[team]}/versions/{made['id']}/activate"
    assert call(url, "POST", site.tokens[team])[0] == 200
    return int(made["id"])


def _seed_matches(site: Site) -> None:
    """Rival and the hostile team played a page and more of matches; then alpha lost one by a crash
    and won another. The rival's and alpha's logs hold canaries."""
    from botarena.store.arena_versions import seat_name

    alpha, rival, hostile = (site.versions[t] for t in ("alpha", "rival", "hostile"))
    for i in range(FILLER_MATCHES):  # more than a page of the public list: its cursor has to work
        play_match(
            site.store,
            site.tournament_id,
            f"filler-{i}",
            [seat_name(rival), seat_name(hostile)],
            ranks=[1 + i % 2, 2 - i % 2],
            logs=[RIVAL_CANARY, "the hostile team's log"],
        )
    site.matches["crashed"] = play_match(
        site.store,
        site.tournament_id,
        "alpha-crashed",
        [seat_name(alpha), seat_name(rival)],
        ranks=[2, 1],
        statuses=[{"OK": 3, "CRASHED": 1}, {"OK": 4}],
        logs=[LOG_CANARY, RIVAL_CANARY],
        failures=[
            {
                "kinds": ["crashed"],
                "status": "CRASHED",
                "reason": "bot_error",
                "detail": "boom",
                "where": "step 4",
            },
            None,
        ],
    )
    site.matches["won"] = play_match(
        site.store,
        site.tournament_id,
        "alpha-won",
        [seat_name(hostile), seat_name(alpha)],
        ranks=[2, 1],
        logs=[RIVAL_CANARY, LOG_CANARY],
    )


@pytest.fixture(scope="module")
def site(serve: Any, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Site]:
    """An open drones competition: alpha (signs in), rival (a URL-like entry on the board), and a
    team whose name is markup; each with an active, rated version, and two rated matches of alpha."""
    from botarena.arena.competitions import add_team, check_setup, create_competition
    from botarena.server.app import create_app
    from botarena.server.arena import close_arena_streams
    from botarena.store import Store

    root = tmp_path_factory.mktemp("arena-pages")
    store = Store.open(f"sqlite:///{root / 'arena.db'}", replay_dir=root / "replays")
    app = create_app(store)
    arena = app.state.arena
    competition, organizer = create_competition(arena, "spring ladder", check_setup("drones"), actor="test")
    arena.update_competition(competition.id, actor="test", phase="open")
    tokens, team_ids = {}, {}
    for key, name in (("alpha", "alpha"), ("rival", "rival"), ("hostile", HOSTILE)):
        team, token = add_team(arena, competition.id, name, actor="test")
        tokens[key], team_ids[key] = token.text, team.id
    server = serve(app)
    site = Site(
        server.url, store, competition.id, competition.tournament_id, organizer.text, tokens, team_ids, arena
    )
    for team in ("alpha", "rival", "hostile"):
        site.versions[team] = _active(site, team, f"{team}'s first bot")
    # the rival's entry is shown as a URL entry would be (the board marks it: not sandboxed)
    move_version(store, site.versions["rival"], "active", kind="url")
    rate(store, competition.id, site.versions["rival"], 27.0, 2.0, 40)
    rate(store, competition.id, site.versions["hostile"], 25.0, 8.0, 1)
    _seed_matches(site)
    try:
        yield site
    finally:
        close_arena_streams(app)  # an open event stream must not hold the server's shutdown
        store.close()


# ------------------------------------------------------------------------------------- pages


@dataclass
class Watched:
    """A page of its own browser context, with what went wrong in it and every API answer's text."""

    page: Any
    errors: list[str]
    refused: list[int]
    bodies: list[str]

    def expect_refusals(self, *statuses: int) -> None:
        """The failed requests the test caused on purpose (chromium logs each as a console error)."""
        assert sorted(set(self.refused)) == sorted(statuses), self.refused
        self.refused.clear()


@pytest.fixture
def open_page(browser: Any) -> Iterator[Callable[..., Watched]]:
    """open_page(url, hook) -> a page of a fresh browser context at `url`, once `window[hook].ready`."""
    from playwright.sync_api import Error as PlaywrightError

    contexts: list[Any] = []
    watched: list[Watched] = []

    def open_(url: str, hook: str) -> Watched:
        context = browser.new_context(viewport={"width": 1440, "height": 960})
        contexts.append(context)
        page = context.new_page()
        page.set_default_timeout(WAIT_MS)
        seen = Watched(page, [], [], [])
        watched.append(seen)

        def console(message: Any) -> None:
            if message.type != "error":
                return
            found = REFUSED.search(message.text)
            if found and message.text.startswith("Failed to load resource"):
                seen.refused.append(int(found.group(1)))
            else:
                seen.errors.append(f"console: {message.text}")

        def answered(response: Any) -> None:
            if "/api/" in response.url and "text/event-stream" not in response.headers.get(
                "content-type", ""
            ):
                with contextlib.suppress(PlaywrightError):  # a body chromium dropped: nothing to read
                    seen.bodies.append(response.text())

        page.on("pageerror", lambda exc: seen.errors.append(f"pageerror: {exc}"))
        page.on("console", console)
        page.on("response", answered)
        page.goto(url)
        wait_js(page, f"window.{hook} && window.{hook}.ready")
        return seen

    yield open_
    for context in contexts:
        context.close()
    for seen in watched:
        assert not seen.errors, f"errors in the page: {seen.errors}"
        assert not seen.refused, f"requests refused that the test did not expect: {seen.refused}"


def wait_js(page: Any, expression: str) -> Any:
    """Wait until `expression` (JavaScript: an expression, or a function of none) is true in the
    page; an expression that throws (an element not there yet) is false. (Playwright's own wait_for_function
    compiles its predicate with eval, which the pages' CSP refuses, as it should.)"""
    from playwright.sync_api import Error as PlaywrightError

    value = f"({expression})()" if expression.lstrip().startswith("() =>") else f"({expression})"
    guarded = f"() => {{ try {{ return Boolean({value}); }} catch {{ return false; }} }}"

    def look() -> bool:
        try:
            return bool(page.evaluate(guarded))
        except PlaywrightError:  # (a navigation under way: the next look sees the new document)
            return False

    def shown() -> object:  # what the page showed instead, for the failure message
        try:
            return page.evaluate("() => document.body.innerText.slice(0, 2000)")
        except PlaywrightError as exc:
            return f"(the page cannot be read: {exc})"

    return wait_until(look, f"the page to show: {expression}", timeout=WAIT_MS / 1000, seen=shown)


def sign_in(seen: Watched, token: str, hook: str) -> None:
    seen.page.get_by_test_id("token").fill(token)
    seen.page.get_by_test_id("login-submit").click()
    wait_js(seen.page, f"window.{hook}.signedIn && window.{hook}.ready")


def team_page(open_page: Callable[..., Watched], site: Site, team: str = "alpha") -> Watched:
    seen = open_page(f"{site.url}/team", "__team")
    seen.expect_refusals(401)  # /api/me before signing in
    sign_in(seen, site.tokens[team], "__team")
    return seen


def version_row(page: Any, version_id: int) -> Any:
    return page.locator(f'tr[data-testid="version-row"][data-version-id="{version_id}"]')


def choose_file(page: Any, name: str, data: bytes) -> None:
    page.get_by_test_id("upload-file").set_input_files(
        {"name": name, "mimeType": "application/octet-stream", "buffer": data}
    )
    page.get_by_test_id("upload-submit").click()


# ------------------------------------------------------------------------------------- tests


def test_pages_are_served_with_a_csp_and_stay_out_of_the_api_schema(site: Site) -> None:
    for path in ("/team", f"/competition/{site.competition_id}", "/admin"):
        with urllib.request.urlopen(site.url + path, timeout=30) as answer:
            policy = answer.headers["Content-Security-Policy"]
            assert answer.status == 200 and answer.headers["Content-Type"].startswith("text/html")
            assert "script-src 'self'" in policy and "frame-ancestors 'none'" in policy
            assert "unsafe-inline" not in policy
            assert b'<script type="module"' in answer.read()
    status, schema = call(site.url + "/openapi.json")
    assert status == 200 and not [p for p in schema["paths"] if not p.startswith("/api/")]
    status, refused = call(site.url + "/competition/abc")
    assert status == 422 and "cid" in refused["detail"]


def test_pages_team_signs_in_with_its_token_and_the_page_never_holds_it(
    open_page: Callable[..., Watched], site: Site
) -> None:
    seen = open_page(f"{site.url}/team", "__team")
    seen.expect_refusals(401)
    page = seen.page
    assert page.get_by_test_id("login").is_visible()
    page.get_by_test_id("token").fill("ba_nosuchkid_notasecret")
    page.get_by_test_id("login-submit").click()
    wait_js(page, "document.querySelector('[data-testid=login-error]').textContent.length > 0")
    assert "HTTP 401" in page.get_by_test_id("login-error").inner_text()
    seen.expect_refusals(401)
    # the organizer's token on the team page: signed out again and sent to its own page
    page.get_by_test_id("token").fill(site.organizer)
    page.get_by_test_id("login-submit").click()
    wait_js(page, "document.querySelector('[data-testid=login-error]').textContent.includes('/admin')")
    assert page.get_by_test_id("login-error").inner_text() == "that is an organizer token: its page is /admin"
    assert page.get_by_test_id("login").is_visible() and not page.evaluate("window.__team.signedIn")
    sign_in(seen, site.tokens["alpha"], "__team")
    assert page.get_by_test_id("team-name").inner_text() == "alpha"
    assert page.get_by_test_id("token").input_value() == ""  # the field let go of it
    assert site.tokens["alpha"] not in page.evaluate("document.cookie")  # HttpOnly: out of the page's reach
    assert site.tokens["alpha"] not in page.content()
    assert page.get_by_test_id("active-version").inner_text() == "1"
    page.get_by_test_id("logout").click()
    wait_js(page, "!window.__team.signedIn")
    assert page.get_by_test_id("login").is_visible() and page.get_by_test_id("signed-in").is_hidden()
    page.reload()  # the cookie is gone: the page asks for the token again
    wait_js(page, "window.__team && window.__team.ready")
    assert page.get_by_test_id("login").is_visible()
    seen.expect_refusals(401)


def test_pages_bad_archive_shows_its_code_and_line_at_once(
    open_page: Callable[..., Watched], site: Site
) -> None:
    seen = team_page(open_page, site)
    page = seen.page
    before = page.locator('[data-testid="version-row"]').count()
    choose_file(page, "bot.zip", symlink_zip())
    wait_js(page, "document.querySelector('[data-testid=upload-error]').textContent.length > 0")
    shown = page.get_by_test_id("upload-error").inner_text()
    assert shown == "HTTP 422 symlink: 'bot/data' is a symlink (links are refused)"
    assert page.locator('[data-testid="version-row"]').count() == before  # no version was made
    seen.expect_refusals(422)


def test_pages_good_upload_is_listed(open_page: Callable[..., Watched], site: Site) -> None:
    seen = team_page(open_page, site)
    page = seen.page
    choose_file(page, "bot.py", bot_source("a good upload"))
    wait_js(page, "document.querySelector('[data-testid=upload-result]').textContent.length > 0")
    number = int(
        re.fullmatch(r"version (\d+): received", page.get_by_test_id("upload-result").inner_text())[1]
    )
    row = page.locator('tr[data-testid="version-row"]').first  # newest first
    assert row.get_by_test_id("version-number").inner_text() == str(number)
    assert row.get_by_test_id("version-state").inner_text() == "received"
    assert page.get_by_test_id("upload-error").inner_text() == ""


def test_pages_upload_over_the_size_or_the_quota_is_told_at_once(
    open_page: Callable[..., Watched], site: Site
) -> None:
    """413 for a file over `max_upload_mb`, 429 with its Retry-After once the hourly quota is used."""
    from botarena.arena.competitions import add_team, check_setup, create_competition

    arena = site.store_arena
    small, _ = create_competition(
        arena,
        "small limits",
        check_setup("drones"),
        policy={"max_upload_mb": 0.1, "uploads_per_hour": 1},
        actor="test",
    )
    arena.update_competition(small.id, actor="test", phase="open")
    team, token = add_team(arena, small.id, "limited", actor="test")
    seen = open_page(f"{site.url}/team", "__team")
    seen.expect_refusals(401)
    sign_in(seen, token.text, "__team")
    page = seen.page
    choose_file(page, "bot.py", bot_source("x" * 200_000))  # 200 kB: over 0.1 MiB
    wait_js(page, "document.querySelector('[data-testid=upload-error]').textContent.length > 0")
    assert page.get_by_test_id("upload-error").inner_text() == (
        "HTTP 413: the upload is larger than the 102.4 KiB limit"
    )
    seen.expect_refusals(413)
    choose_file(page, "bot.py", bot_source("the one upload of the hour"))
    wait_js(
        page, "document.querySelector('[data-testid=upload-result]').textContent === 'version 1: received'"
    )
    choose_file(page, "bot.py", bot_source("one too many"))
    wait_js(page, "document.querySelector('[data-testid=upload-error]').textContent.length > 0")
    shown = page.get_by_test_id("upload-error").inner_text()
    assert re.fullmatch(r"HTTP 429: .*\(limit 1\).* \(retry in \d+ s\)", shown), shown
    assert page.locator('[data-testid="version-row"]').count() == 1
    seen.expect_refusals(429)
    assert team.competition_id == small.id


def test_g12_a_rejection_appears_live_with_its_code_and_log(
    open_page: Callable[..., Watched], site: Site
) -> None:
    from botarena.store.arena_versions import seat_name

    seen = team_page(open_page, site)
    page = seen.page
    choose_file(page, "bot.py", bot_source("a bot that will crash"))
    wait_js(page, "document.querySelector('[data-testid=upload-result]').textContent.length > 0")
    version_id = int(page.locator('tr[data-testid="version-row"]').first.get_attribute("data-version-id"))
    wait_js(page, "window.__team.streams > 0")  # the page follows the version's events
    page.evaluate("window.__sameDocument = true")
    # the verdict, as the coordinator writes it: the validation match (its replay holds the team's
    # own log) and the version rejected with its code and first error line
    play_match(
        site.store,
        site.tournament_id,
        f"validation-{version_id}",
        [seat_name(version_id), "zergy"],
        kind="validation",
        ranks=[2, 1],
        statuses=[{"OK": 2, "CRASHED": 1}, {"OK": 3}],
        logs=[f"Traceback: ValueError: boom\n{LOG_CANARY}", "the starter's log"],
    )
    first_error = "CRASHED (bot_error) at step 3 of game 1: ValueError: boom"
    own_log = f"Traceback: ValueError: boom\n{LOG_CANARY}"  # what the coordinator keeps with it
    move_version(site.store, version_id, "rejected", reason_code="crashed", reason=first_error, log=own_log)
    row = version_row(page, version_id)
    wait_js(
        page,
        f"""() => {{
            const row = document.querySelector('tr[data-version-id="{version_id}"][data-state="rejected"]');
            const log = document.querySelector('tr.log-row[data-version-id="{version_id}"] pre');
            return row && log && log.textContent.includes("{LOG_CANARY}");
        }}""",
    )
    assert page.evaluate("window.__sameDocument") is True  # no reload
    assert [version_id, "rejected"] in page.evaluate("window.__team.sseStates")  # through the stream
    assert row.get_by_test_id("version-state").inner_text() == "rejected"
    assert row.get_by_test_id("version-code").inner_text() == "crashed"
    assert row.get_by_test_id("version-reason").inner_text().strip() == first_error
    log = page.locator(f'tr.log-row[data-version-id="{version_id}"] [data-testid="version-log"]').inner_text()
    assert "Traceback: ValueError: boom" in log and "the starter's log" not in log  # its own seat only
    wait_js(page, "window.__team.streams === 0")  # settled: the stream is closed


def test_pages_match_filter_lost_by_timeout_crashed_invalid(
    open_page: Callable[..., Watched], site: Site
) -> None:
    seen = team_page(open_page, site)
    page = seen.page
    ids = (
        "() => [...document.querySelectorAll('[data-testid=match-row]')].map(r => Number(r.dataset.matchId))"
    )
    everything = set(page.evaluate(ids))
    assert {site.matches["crashed"], site.matches["won"]} <= everything
    page.get_by_test_id("lost-filter").check()
    won = site.matches["won"]
    wait_js(page, f"!document.querySelector('[data-testid=match-row][data-match-id=\"{won}\"]')")
    lost = set(page.evaluate(ids))
    assert site.matches["crashed"] in lost and lost < everything
    results = page.locator('[data-testid="match-row"] [data-testid="match-result"]').all_inner_texts()
    assert all(re.search(r"(TIMEOUT|CRASHED|INVALID) ×\d", text) for text in results), results
    crashed = site.matches["crashed"]
    row = page.locator(f'[data-testid="match-row"][data-match-id="{crashed}"]')
    assert "CRASHED ×1" in row.get_by_test_id("match-result").inner_text()
    assert "rival" in row.get_by_test_id("match-against").inner_text()
    verify = row.get_by_test_id("cmd-verify").inner_text()
    assert (
        verify
        == f"botarena fetch {crashed} --server {site.url} && botarena replay {crashed}.json.gz --verify"
    )
    feed = row.get_by_test_id("cmd-feed").inner_text()
    assert feed == f"botarena replay {crashed}.json.gz --feed 4 --seat 0 --bot YOUR_BOT"
    assert RIVAL_CANARY not in page.content()
    page.get_by_test_id("lost-filter").uncheck()
    wait_js(
        page, f"document.querySelector('[data-testid=match-row][data-match-id=\"{site.matches['won']}\"]')"
    )


def test_pages_public_page_shows_the_board_and_no_log_of_any_team(
    open_page: Callable[..., Watched], site: Site
) -> None:
    seen = open_page(f"{site.url}/competition/{site.competition_id}", "__competition")
    page = seen.page
    assert page.get_by_test_id("competition-name").inner_text() == "spring ladder"
    teams = page.locator('[data-testid="lb-team"]').all_inner_texts()
    assert teams[0] == "rival" and set(teams) == {"rival", "alpha", HOSTILE}
    first = page.locator('[data-testid="lb-row"]').first
    assert first.get_by_test_id("lb-external").inner_text() == "external: not sandboxed"
    assert first.get_by_test_id("lb-provisional").count() == 0  # 40 games, σ 2: settled
    hostile = page.locator(f'[data-testid="lb-row"][data-team-id="{site.team_ids["hostile"]}"]')
    assert hostile.get_by_test_id("lb-provisional").inner_text() == "provisional"
    assert hostile.get_by_test_id("lb-rank").inner_text().endswith("*")
    assert page.get_by_test_id("board-info").inner_text() == "1–3 of 3"
    assert page.get_by_test_id("rule-max_upload_mb").inner_text() == "10"
    assert page.get_by_test_id("rule-invite_code").count() == 0
    # the recent matches, newest first, paged by the server's cursor
    ids = (
        "() => [...document.querySelectorAll('[data-testid=match-row]')].map(r => Number(r.dataset.matchId))"
    )
    newest = page.evaluate(ids)
    assert len(newest) == 20 and newest == sorted(newest, reverse=True)
    assert newest[0] >= site.matches["won"]
    first_row = "Number(document.querySelector('[data-testid=match-row]').dataset.matchId)"
    page.get_by_test_id("matches-older").click()
    wait_js(page, f"{first_row} < {min(newest)}")
    older = page.evaluate(ids)
    assert page.evaluate("window.__competition.cursor") == newest[-1]
    assert older and max(older) < min(newest) and older == sorted(older, reverse=True)
    page.get_by_test_id("matches-newest").click()
    wait_js(page, f"{first_row} === {newest[0]}")
    # the viewer opens the replay, which the public gets without logs
    page.locator(
        f'[data-testid="match-row"][data-match-id="{site.matches["crashed"]}"] [data-testid="watch"]'
    ).click()
    wait_js(page, "window.__botarena && (window.__botarena.ready || window.__botarena.error)")
    assert page.evaluate("window.__botarena.error") is None
    shown = page.content()
    answers = "\n".join(seen.bodies)
    assert f"replay=%2Fapi%2Fmatches%2F{site.matches['crashed']}%2Freplay" in page.url
    for canary in (LOG_CANARY, RIVAL_CANARY):
        assert canary not in shown and canary not in answers
    assert any('"hidden":true' in body.replace(" ", "") for body in seen.bodies)  # the replay was read


def test_pages_hostile_team_name_is_rendered_as_text(open_page: Callable[..., Watched], site: Site) -> None:
    seen = open_page(f"{site.url}/competition/{site.competition_id}", "__competition")
    page = seen.page
    hostile = page.locator(f'[data-testid="lb-row"][data-team-id="{site.team_ids["hostile"]}"]')
    assert hostile.get_by_test_id("lb-team").inner_text() == HOSTILE
    assert page.locator("main img").count() == 0
    names = page.locator('[data-testid="match-row"] .name').all_inner_texts()
    assert f"{HOSTILE} v1" in names
    team = team_page(open_page, site, "hostile")
    assert team.page.get_by_test_id("team-name").inner_text() == HOSTILE
    assert team.page.locator("main img, header img").count() == 0
    for shown in (page, team.page):
        assert shown.evaluate("window.__pwned") is None


def audit_has(testid: str, text: str) -> str:
    """JavaScript: whether a cell `testid` of the audit log reads `text`."""
    cells = f"[...document.querySelectorAll('[data-testid={testid}]')]"
    return f"{cells}.some(cell => cell.textContent === {json.dumps(text)})"


def test_pages_admin_changes_the_phase_and_the_audit_log_shows_it(
    open_page: Callable[..., Watched], site: Site
) -> None:
    seen = open_page(f"{site.url}/admin", "__admin")
    seen.expect_refusals(401)
    sign_in(seen, site.organizer, "__admin")
    page = seen.page
    assert page.get_by_test_id("competition-name").inner_text() == "spring ladder"
    hostile = page.locator(f'[data-testid="team-row"][data-team-id="{site.team_ids["hostile"]}"]')
    assert hostile.get_by_test_id("team-name").inner_text() == HOSTILE
    # the teams list (GET .../teams): every team, its active version, its tokens by key id; a token
    # made for alpha here is revoked from its row, and fails from then on
    for team in ("alpha", "rival", "hostile"):
        row = page.locator(f'[data-testid="team-row"][data-team-id="{site.team_ids[team]}"]')
        assert row.get_by_test_id("team-active").inner_text().startswith("#")
        assert (
            row.locator(f'[data-testid="token-row"][data-kid="{site.tokens[team].split("_")[1]}"]').count()
            == 1
        )
    alpha = page.locator(f'[data-testid="team-row"][data-team-id="{site.team_ids["alpha"]}"]')
    alpha.get_by_test_id("team-token-button").click()
    wait_js(page, "document.querySelector('[data-testid=action-result]').textContent.includes('key id')")
    spare = page.get_by_test_id("new-token").inner_text()
    spare_kid = spare.split("_")[1]
    assert call(f"{site.url}/api/me", token=spare)[0] == 200
    spare_row = f'[data-testid="token-row"][data-kid="{spare_kid}"]'
    page.locator(f"{spare_row} [data-testid=token-revoke]").click()
    wait_js(
        page,
        f"document.querySelector('{spare_row} [data-testid=token-state]').textContent.startsWith('revoked')",
    )
    assert call(f"{site.url}/api/me", token=spare)[0] == 401
    assert call(f"{site.url}/api/me", token=site.tokens["alpha"])[0] == 200  # (its own token: untouched)
    # the phase
    page.get_by_test_id("phase-select").select_option("paused")
    page.get_by_test_id("phase-submit").click()
    wait_js(page, "document.querySelector('[data-testid=phase-pill]').textContent === 'paused'")
    wait_js(page, audit_has("audit-action", "phase:open->paused"))
    assert call(site.api)[1]["phase"] == "paused"
    # a team: its token is shown once, and it signs in
    page.get_by_test_id("new-team-name").fill("late team")
    page.get_by_test_id("add-team").click()
    wait_js(page, "document.querySelector('[data-testid=new-token]').textContent.startsWith('ba_')")
    token = page.get_by_test_id("new-token").inner_text()
    assert call(f"{site.url}/api/me", token=token)[1]["team"]["name"] == "late team"
    added = re.fullmatch(
        r"team late team added \(id (\d+)\)", page.get_by_test_id("action-result").inner_text()
    )
    assert added is not None
    # ...and is revoked (the whole token pasted: the page sends only its key id)
    page.get_by_test_id("revoke-team").fill(added[1])
    page.get_by_test_id("revoke-kid").fill(token)
    page.get_by_test_id("revoke-submit").click()
    # (the audit row of this very token: the spare's revocation above is a revoke_token row too)
    wait_js(page, audit_has("audit-target", f"team:{added[1]} kid:{token.split('_')[1]}"))
    assert call(f"{site.url}/api/me", token=token)[0] == 401
    assert token not in page.get_by_test_id("audit-table").inner_text()
    # a void needs a reason; with one, the match is void and the audit log says why
    voided = site.matches["won"]
    void = page.locator(f'[data-testid="match-row"][data-match-id="{voided}"] [data-testid="void"]')
    void.click()
    wait_js(page, "document.querySelector('[data-testid=action-error]').textContent.includes('reason')")
    page.get_by_test_id("reason").fill("a scoring bug")
    void.click()
    wait_js(page, audit_has("audit-reason", "a scoring bug"))
    assert page.get_by_test_id("action-result").inner_text() == f"match {voided} is void"
    # a version of a team disabled, then enabled again, each audited
    hostile.get_by_test_id("team-versions-button").click()
    version = site.versions["hostile"]
    row = f'[data-testid="admin-version-row"][data-version-id="{version}"]'
    page.locator(f"{row} [data-testid=v-disable]").click()
    wait_js(page, audit_has("audit-target", f"version:{version}"))
    wait_js(
        page, f"document.querySelector('{row} [data-testid=admin-version-state]').textContent === 'disabled'"
    )
    assert call(site.api + "/leaderboard")[1]["total"] == 2  # out of play
    page.locator(f"{row} [data-testid=v-enable]").click()
    wait_js(page, audit_has("audit-action", "enable_version"))
    wait_js(
        page, f"document.querySelector('{row} [data-testid=admin-version-state]').textContent === 'active'"
    )
    # the whole team disabled from its row (out of the leaderboard), then enabled again
    page.locator(
        f'[data-testid="team-row"][data-team-id="{site.team_ids["hostile"]}"] [data-testid=team-disable]'
    ).click()
    wait_js(page, audit_has("audit-action", "disable_team"))
    assert call(site.api + "/leaderboard")[1]["total"] == 2
    page.locator(
        f'[data-testid="team-row"][data-team-id="{site.team_ids["hostile"]}"] [data-testid=team-enable]'
    ).click()
    wait_js(page, audit_has("audit-action", "enable_team"))
    assert call(site.api + "/leaderboard")[1]["total"] == 3
    # the phase back, so the competition takes uploads again
    page.get_by_test_id("phase-select").select_option("open")
    page.get_by_test_id("phase-submit").click()
    wait_js(page, "document.querySelector('[data-testid=phase-pill]').textContent === 'open'")
    # a team's token does not open the organizer's page
    page.get_by_test_id("logout").click()
    wait_js(page, "!window.__admin.signedIn")
    page.get_by_test_id("token").fill(site.tokens["alpha"])
    page.get_by_test_id("login-submit").click()
    wait_js(page, "document.querySelector('[data-testid=login-error]').textContent.includes('team token')")
