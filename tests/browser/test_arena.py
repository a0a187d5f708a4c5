"""The arena in headless chromium: a real tournament in a real store, the organizer's app under
uvicorn; the leaderboard page, a replay opened from the match list, and a live match advancing."""

from __future__ import annotations

import gzip
import json
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from botarena.core.replay import read_replay

pytestmark = pytest.mark.browser

ENTRANTS = ("zergy", "adaptive", "pacifist")


@dataclass
class ArenaSite:
    url: str
    store: Any
    hub: Any
    tournament_id: int
    gate: Any  # the spectator gate in front of the hub (the app's own: the default policy, after)


@pytest.fixture(scope="module")
def site(serve: Any, tmp_path_factory: pytest.TempPathFactory) -> Iterator[ArenaSite]:
    """A finished drones-2018 tournament of three starter bots, served with a live hub."""
    from botarena.server.app import create_app
    from botarena.server.live import LiveHub
    from botarena.store import Store
    from botarena.tournament.service import Entrant, TournamentPlan, create_tournament, run_tournament

    root = tmp_path_factory.mktemp("arena-site")
    store = Store.open(f"sqlite:///{root / 'arena.db'}", replay_dir=root / "replays")
    plan = TournamentPlan(
        name="spring cup",
        game="drones",
        format="drones-2018",
        entrants=[Entrant(n, n) for n in ENTRANTS],
        seed=5,
    )
    tournament = create_tournament(store, plan)
    with ThreadPoolExecutor(1) as pool:  # the bots' timers want a worker thread under pytest-timeout
        assert (
            pool.submit(run_tournament, store, tournament.id, None).result(timeout=120).status == "finished"
        )
    hub = LiveHub()
    app = create_app(store, hub)
    server = serve(app)
    try:
        yield ArenaSite(server.url, store, hub, tournament.id, app.state.spectators)
    finally:
        hub.close()  # end any event stream before the session stops the server
        store.close()


def texts_of(page: Any, testid: str) -> list[str]:
    return list(page.locator(f'[data-testid="{testid}"]').all_inner_texts())


def canvas_colours(page: Any) -> int:
    """How many distinct colours the viewer's canvas shows (a blank canvas has one)."""
    return int(
        page.evaluate(
            """() => {
                const c = document.querySelector('[data-testid="canvas"]');
                const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
                const seen = new Set();
                for (let i = 0; i < d.length; i += 4 * 97) {
                    seen.add((d[i] << 16) | (d[i + 1] << 8) | d[i + 2]);
                }
                return seen.size;
            }"""
        )
    )


def open_tournament(page: Any, site: ArenaSite) -> Any:
    page.goto(f"{site.url}/tournament.html?id={site.tournament_id}")
    page.wait_for_function("window.__tournament && (window.__tournament.ready || window.__tournament.error)")
    assert page.evaluate("window.__tournament.error") is None
    return page


# ------------------------------------------------------------------------------------- pages


def test_front_page_lists_the_tournament(page: Any, site: ArenaSite) -> None:
    page.goto(site.url + "/")  # redirected to the arena page
    page.wait_for_function("window.__arena && window.__arena.ready")
    assert page.url.endswith("/arena.html")
    row = page.locator('[data-testid="tournament-row"]')
    assert row.count() == 1
    assert row.get_by_test_id("tournament-link").inner_text() == "spring cup"
    assert row.get_by_test_id("tournament-status").inner_text() == "finished"
    assert row.get_by_test_id("tournament-matches").inner_text().startswith("3 / 3")
    assert page.get_by_test_id("live-empty").is_visible()
    row.get_by_test_id("tournament-link").click()
    page.wait_for_function("window.__tournament && window.__tournament.ready")
    assert page.get_by_test_id("tournament-name").inner_text() == "spring cup"


def test_leaderboard_rows(page: Any, site: ArenaSite) -> None:
    open_tournament(page, site)
    from botarena.tournament.service import tournament_leaderboard

    board = tournament_leaderboard(site.store, site.tournament_id)["leaderboard"]
    assert page.get_by_test_id("tournament-status").inner_text() == "finished"
    assert page.get_by_test_id("tournament-format").inner_text() == "drones-2018"
    rows = page.locator('[data-testid="leaderboard-row"]')
    assert rows.count() == len(ENTRANTS)
    for i, expected in enumerate(board["rows"]):
        row = rows.nth(i)

        def cell(key: str, row: Any = row) -> str:
            return str(row.get_by_test_id(f"lb-{key}").inner_text())

        assert cell("rank") == str(expected["rank"])
        assert cell("name") == expected["name"]
        assert cell("ordinal") == f"{expected['ordinal']:.2f}"
        assert cell("mu") == f"{expected['mu']:.2f}"
        assert cell("sigma") == f"{expected['sigma']:.2f}"
        assert (cell("played"), cell("wins"), cell("draws"), cell("losses")) == tuple(
            str(expected[k]) for k in ("played", "wins", "draws", "losses")
        )
    # the drones-2018 standings, and the head-to-head matrix with its interval in the tooltip
    assert len(texts_of(page, "standings-row")) == len(ENTRANTS)
    assert sorted(texts_of(page, "st-entrant")) == sorted(ENTRANTS)
    assert page.get_by_test_id("game-standings").is_hidden()  # drones declares no table of its own
    names = board["pairs"]["names"]
    cell = board["pairs"]["cells"][0][1]
    shown = page.get_by_test_id("pair-0-1")
    assert shown.inner_text().split() == [
        f"{cell['wins']}-{cell['draws']}-{cell['losses']}",
        f"{cell['score']:.2f}",
    ]
    title = shown.get_attribute("title")
    assert title.startswith(f"{names[0]} vs {names[1]}:") and f"95% CI {cell['ci'][0]:.2f}" in title
    assert page.get_by_test_id("pair-1-1").inner_text() == ""
    # the match list
    assert len(texts_of(page, "match-row")) == 3
    assert texts_of(page, "match-status") == ["finished"] * 3
    assert texts_of(page, "watch") == ["watch"] * 3
    assert page.get_by_test_id("page-info").inner_text() == "1–3 of 3"


def test_a_replay_opens_from_the_match_list(page: Any, site: ArenaSite) -> None:
    open_tournament(page, site)
    first = page.locator('[data-testid="match-row"]').first
    match_id = int(first.get_attribute("data-match-id"))
    match = site.store.get_match(match_id)
    first.get_by_test_id("watch").click()
    page.wait_for_function("window.__botarena && (window.__botarena.ready || window.__botarena.error)")
    assert page.evaluate("window.__botarena.error") is None
    assert f"replay=%2Fapi%2Fmatches%2F{match_id}%2Freplay" in page.url
    assert page.evaluate("window.__botarena.stepCount") == match.steps > 0
    assert canvas_colours(page) > 5
    assert page.get_by_test_id("players").inner_text() == " vs ".join(match.seats)
    assert page.get_by_test_id("arena-link").is_visible()
    assert page.get_by_test_id("live").is_hidden()


def test_a_missing_tournament_is_one_clear_line(page: Any, site: ArenaSite) -> None:
    page.goto(site.url + "/tournament.html?id=9999")
    page.wait_for_function("window.__tournament && window.__tournament.error")
    assert "HTTP 404 (no tournament 9999)" in page.get_by_test_id("error").inner_text()
    page.js_errors.clear()  # chromium logs the failed fetch itself


# ------------------------------------------------------------------------------------- live


class Feeder(threading.Thread):
    """Publishes a stored replay to the hub as a live match: the header, then one step every
    `pause` seconds until `hurry` is set, then the rest and the end."""

    def __init__(
        self, hub: Any, key: str, tournament_id: int, path: Path, match_id: int, pause: float
    ) -> None:
        super().__init__(daemon=True)
        self.hub, self.key, self.tournament_id, self.match_id, self.pause = (
            hub,
            key,
            tournament_id,
            match_id,
            pause,
        )
        self.data = json.loads(read_replay(path).dumps())
        self.hurry = threading.Event()

    def run(self) -> None:
        data, steps = self.data, self.data["steps"]
        head = {**data, "steps": [], "keyframes": data["keyframes"][:1], "result": {}, "statuses": []}
        self.hub.publish(
            {
                "type": "header",
                "key": self.key,
                "tournament_id": self.tournament_id,
                "match": "r01-m001",
                "replay": head,
            }
        )
        for index, step in enumerate(steps):
            self.hub.publish({"type": "steps", "key": self.key, "first": index, "steps": [step]})
            if not self.hurry.is_set():
                self.hurry.wait(self.pause)
        names = ("seed", "result", "end", "keyframes", "logs", "time_used_ms", "statuses")  # LiveStreamer's
        fields = {k: data[k] for k in names}
        self.hub.publish({"type": "end", "key": self.key, "match_id": self.match_id, "fields": fields})


def test_a_live_match_advances(page: Any, site: ArenaSite) -> None:
    longest = max(site.store.list_matches(site.tournament_id), key=lambda m: m.steps or 0)
    feeder = Feeder(
        site.hub,
        f"t{site.tournament_id}/{longest.key}",
        site.tournament_id,
        site.store.replay_path(longest.replay_hash),
        longest.id,
        pause=0.05,
    )
    total = len(feeder.data["steps"])
    assert total >= 20
    feeder.start()
    try:
        # the arena lists it, with a link to watch it live
        page.goto(site.url + "/arena.html")
        page.wait_for_selector('[data-testid="watch-live"]', timeout=10_000)
        row = page.locator('[data-testid="live-row"]').first
        assert row.get_by_test_id("live-state").inner_text() == "live"
        row.get_by_test_id("watch-live").click()

        page.wait_for_function(
            "window.__botarena && window.__botarena.live === 'live' && window.__botarena.stepCount > 0"
        )
        badge = page.get_by_test_id("live")
        assert badge.is_visible() and badge.inner_text() == "LIVE"
        # the hub sent the header without the seed: it decides what the rules hide (DESIGN principle 7)
        assert page.get_by_test_id("seed").inner_text() == "hidden until the end"
        before = page.evaluate("window.__botarena.stepCount")
        page.wait_for_function(f"window.__botarena.stepCount >= {before + 5}", timeout=10_000)
        assert badge.inner_text() == "LIVE"
        # it follows the newest step while the user has not moved away (read in one go: steps keep coming)
        current, count, counter = page.evaluate(
            """() => [window.__botarena.currentStep, window.__botarena.stepCount,
                      document.querySelector('[data-testid="step-counter"]').innerText]"""
        )
        assert current == count - 1 and counter == f"{count} / {count}"
        assert canvas_colours(page) > 5
        # scrubbed back, the view stays put while steps keep coming
        page.evaluate("window.__botarena.setStep(0)")
        now = page.evaluate("window.__botarena.stepCount")
        page.wait_for_function(f"window.__botarena.stepCount >= {now + 3}", timeout=10_000)
        assert page.evaluate("window.__botarena.currentStep") == 0
    finally:
        feeder.hurry.set()
        feeder.join(10)

    # the end: every step, the result, and the way to the stored replay
    page.wait_for_function("window.__botarena.live === 'ended'")
    assert page.evaluate("window.__botarena.stepCount") == total == longest.steps
    assert badge.inner_text() == "ENDED"
    assert page.get_by_test_id("result").inner_text() != "in progress"
    assert page.get_by_test_id("seed").inner_text() == str(longest.seed)  # the end event brought it
    link = page.get_by_test_id("stored-replay")
    assert link.is_visible()
    link.click()
    page.wait_for_function(
        "window.__botarena && window.__botarena.ready && !window.__botarena.live.startsWith('c')"
    )
    assert f"%2Fapi%2Fmatches%2F{longest.id}%2Freplay" in page.url
    assert page.evaluate("window.__botarena.stepCount") == total
    assert page.evaluate("window.__botarena.live") == "off"


def test_an_unknown_live_match_is_one_clear_line(page: Any, site: ArenaSite) -> None:
    page.goto(site.url + "/index.html?live=/api/live/t9/nope/events")
    page.wait_for_function("window.__botarena && window.__botarena.error")
    error = page.evaluate("window.__botarena.error")
    assert "HTTP 404" in error and "no live match 't9/nope'" in error
    assert page.get_by_test_id("live").inner_text() == "OFFLINE"
    page.js_errors.clear()  # chromium logs the refused event stream itself


@dataclass(frozen=True)
class Spec:
    key: str
    round: int
    seats: tuple[str, ...]
    seed: int


def test_a_running_tournament_refreshes_itself(
    page: Any, site: ArenaSite, serve: Any, tmp_path: Path
) -> None:
    """The page polls while the tournament runs: a result recorded meanwhile shows up, then the end."""
    from botarena.server.app import create_app
    from botarena.store import Store

    store = Store.open(f"sqlite:///{tmp_path / 'running.db'}", replay_dir=tmp_path / "replays")
    versions = [store.register_bot("drones", n, n) for n in ("zergy", "adaptive")]
    t = store.create_tournament(
        name="in progress",
        game="drones",
        format="round-robin",
        preset="default",
        config={},
        seed=1,
        options={},
        entrants=[(v.name, v.id) for v in versions],
    )
    store.add_matches(
        t.id, [Spec("r01-m001", 1, ("zergy", "adaptive"), 1), Spec("r02-m001", 2, ("adaptive", "zergy"), 2)]
    )
    store.set_tournament_status(t.id, "running")
    store.mark_running(t.id, "r01-m001")
    try:
        url = serve(create_app(store)).url
        page.goto(f"{url}/tournament.html?id={t.id}")
        page.wait_for_function("window.__tournament && window.__tournament.ready")
        assert page.get_by_test_id("tournament-status").inner_text() == "running"
        assert texts_of(page, "match-status") == ["running", "scheduled"]
        assert texts_of(page, "watch") == []
        assert page.get_by_test_id("tournament-seed").inner_text() == "hidden until the end"

        stored = site.store.list_matches(site.tournament_id)[0]  # any real drones replay will do
        store.record_result(
            t.id,
            "r01-m001",
            ranks=[1, 2],
            scores=[6.0, 4.0],
            statuses=[{"OK": 1}, {"OK": 1}],
            time_used_ms=[1.0, 1.0],
            steps=stored.steps,
            duration_s=0.5,
            replay_gz=site.store.replay_path(stored.replay_hash).read_bytes(),
        )
        page.wait_for_function(
            """() => [...document.querySelectorAll('[data-testid="match-status"]')]
                .map((e) => e.innerText).join() === 'finished,scheduled'""",
            timeout=10_000,
        )
        assert texts_of(page, "match-result")[0] == "zergy wins (6 : 4)"
        assert texts_of(page, "watch") == ["watch"]
        assert page.get_by_test_id("tournament-progress").inner_text().startswith("1 / 2")

        store.set_tournament_status(t.id, "finished")
        page.wait_for_function("window.__tournament.status === 'finished'", timeout=10_000)
        assert page.get_by_test_id("tournament-seed").inner_text() == "1"  # every match is over now
        refreshes = page.evaluate("window.__tournament.refreshes")
        page.wait_for_timeout(2500)  # a finished tournament is not polled any more
        assert page.evaluate("window.__tournament.refreshes") == refreshes
    finally:
        store.close()


def test_a_real_tournament_streams_its_match_live(page: Any, serve: Any, tmp_path: Path) -> None:
    """The whole path: run_tournament(live=hub.publish) with pace_ms, the hub, SSE, the viewer.

    The stream is held after its first steps until the page shows them live (an event, not a race
    between a loaded machine's page load and the match's pace), then let go to the end."""
    from botarena.server.app import create_app
    from botarena.server.live import LiveHub
    from botarena.store import Store
    from botarena.tournament.service import Entrant, TournamentPlan, create_tournament, run_tournament

    store = Store.open(f"sqlite:///{tmp_path / 'live.db'}", replay_dir=tmp_path / "replays")
    hub = LiveHub()
    plan = TournamentPlan(
        name="live duel",
        game="drones",
        format="round-robin",
        entrants=[Entrant("zergy", "zergy"), Entrant("adaptive", "adaptive")],
        seed=3,
        options={"pace_ms": 60},  # 100 steps: about six seconds to watch
    )
    tournament = create_tournament(store, plan)
    stop = threading.Event()
    seen_live = threading.Event()

    def publish(event: dict[str, Any]) -> None:
        hub.publish(event)
        if event.get("type") == "steps":
            seen_live.wait(60)  # a bound: the test sets it once the page shows the steps

    pool = ThreadPoolExecutor(1)
    try:
        url = serve(create_app(store, hub)).url
        done = pool.submit(run_tournament, store, tournament.id, None, live=publish, stop=stop)
        key = f"t{tournament.id}/r01-m001"
        page.goto(f"{url}/arena.html")
        page.wait_for_selector(f'[data-testid="live-row"][data-key="{key}"] [data-testid="watch-live"]')
        page.locator(f'[data-testid="live-row"][data-key="{key}"]').get_by_test_id("watch-live").click()
        page.wait_for_function(
            "window.__botarena && window.__botarena.live === 'live' && window.__botarena.stepCount > 0"
        )
        assert page.get_by_test_id("live").inner_text() == "LIVE"
        before = page.evaluate("window.__botarena.stepCount")
        seen_live.set()
        page.wait_for_function(f"window.__botarena.stepCount > {before}")
        page.wait_for_function("window.__botarena.live === 'ended'", timeout=30_000)
        assert done.result(timeout=30).status == "finished"
        match = store.list_matches(tournament.id)[0]
        assert page.evaluate("window.__botarena.stepCount") == match.steps
        assert page.get_by_test_id("stored-replay").get_attribute("href") == (
            f"index.html?replay=%2Fapi%2Fmatches%2F{match.id}%2Freplay"
        )
    finally:
        seen_live.set()
        stop.set()
        pool.shutdown(wait=True)
        hub.close()
        store.close()


def test_dp_6_3_a_datspulse_tournament_shows_its_final_standings(
    page: Any, serve: Any, tmp_path: Path
) -> None:
    """A game's own standings table (leaderboard.game_standings) rendered from its columns."""
    from botarena.server.app import create_app
    from botarena.store import Store
    from botarena.tournament.service import (
        Entrant,
        TournamentPlan,
        create_tournament,
        run_tournament,
        tournament_leaderboard,
    )

    store = Store.open(f"sqlite:///{tmp_path / 'pulse.db'}", replay_dir=tmp_path / "replays")
    try:
        plan = TournamentPlan(
            name="pulse",
            game="datspulse",
            format="round-robin",
            entrants=[Entrant(n, n) for n in ("forager", "raider", "random_walker")],
            seed=2,
            overrides={"turns": 5, "map_hexes_per_team": 300},
            players=3,
        )
        tournament = create_tournament(store, plan)
        with ThreadPoolExecutor(1) as pool:
            assert (
                pool.submit(run_tournament, store, tournament.id, None).result(timeout=120).status
                == "finished"
            )
        table = tournament_leaderboard(store, tournament.id)["leaderboard"]["game_standings"]
        page.goto(f"{serve(create_app(store)).url}/tournament.html?id={tournament.id}")
        page.wait_for_function("window.__tournament && window.__tournament.ready")
        assert page.get_by_test_id("game-standings-title").text_content() == table["title"]
        heads = page.locator('[data-testid="game-standings"] thead th').all_text_contents()
        assert heads == [c["label"] for c in table["columns"]]
        assert texts_of(page, "gs-name") == [r["name"] for r in table["rows"]]
        assert texts_of(page, "gs-points") == [str(r["points"]) for r in table["rows"]]
        assert texts_of(page, "gs-active") == ["yes" if r["active"] else "no" for r in table["rows"]]
        assert page.get_by_test_id("standings").is_hidden()  # no drones-2018 table here
    finally:
        store.close()


def test_a_held_back_match_says_when_its_view_opens_then_opens(page: Any, site: ArenaSite) -> None:
    """A drones match (its rules hide each side's state from the other) under the default policy:
    the arena lists it with its progress and when its view opens; the viewer says so, follows the
    progress, and shows the whole match in the same stream once it ends. Delayed, the viewer says
    how far behind it runs."""
    from botarena.server.spectators import LivePolicy, SpectatorPolicy

    (stored, *_) = site.store.list_matches(site.tournament_id)
    data = json.loads(read_replay(site.store.replay_path(stored.replay_hash)).dumps())
    steps = data["steps"]
    head = {**data, "steps": [], "keyframes": data["keyframes"][:1], "result": {}, "statuses": []}
    fields = {k: data[k] for k in ("seed", "result", "end", "keyframes", "logs", "time_used_ms", "statuses")}

    def feed(publish: Any, key: str, upto: int) -> None:
        publish({"type": "header", "key": key, "tournament_id": 99, "match": key, "replay": head})
        publish({"type": "steps", "key": key, "first": 0, "steps": steps[:upto]})

    feed(site.gate.publish, "t99/held", 10)
    page.goto(site.url + "/arena.html")
    row = page.locator('[data-testid="live-row"][data-key="t99/held"]')
    row.wait_for(timeout=10_000)
    assert row.get_by_test_id("live-state").inner_text() == "opens at the end"
    assert row.get_by_test_id("live-steps").inner_text() == "10"
    row.get_by_test_id("watch-live").click()
    page.wait_for_function("window.__botarena && window.__botarena.live === 'held'")
    message = page.get_by_test_id("message")
    assert "its live view opens when the match ends (10 steps played so far)" in message.inner_text()
    assert page.get_by_test_id("live").inner_text() == "HELD BACK"
    assert page.evaluate("window.__botarena.stepCount") == 0 and not page.evaluate("window.__botarena.error")
    assert page.locator("#viewer").is_hidden()  # no empty stage
    site.gate.publish({"type": "steps", "key": "t99/held", "first": 10, "steps": steps[10:12]})
    page.wait_for_function("window.__botarena.held && window.__botarena.held.played === 12")
    assert "(12 steps played so far)" in message.inner_text()
    site.gate.publish({"type": "steps", "key": "t99/held", "first": 12, "steps": steps[12:]})
    site.gate.publish({"type": "end", "key": "t99/held", "match_id": stored.id, "fields": fields})
    page.wait_for_function("window.__botarena.live === 'ended'")  # (the same stream: no reconnect)
    assert page.evaluate("window.__botarena.stepCount") == len(steps)
    assert page.get_by_test_id("seed").inner_text() == str(stored.seed)

    feed(site.gate.sink(SpectatorPolicy(LivePolicy.DELAYED, 3)), "t99/late", 8)
    page.goto(site.url + "/index.html?live=/api/live/t99/late/events")
    page.wait_for_function("window.__botarena && window.__botarena.live === 'live'")
    assert page.get_by_test_id("live").inner_text() == "LIVE · 3 STEPS BEHIND"
    assert page.evaluate("window.__botarena.stepCount") == 5
    page.goto(site.url + "/arena.html")
    late = page.locator('[data-testid="live-row"][data-key="t99/late"]')
    late.wait_for(timeout=10_000)
    assert late.get_by_test_id("live-state").inner_text() == "live · 3 behind"
    assert late.get_by_test_id("live-steps").inner_text() == "8"
    site.gate.publish({"type": "end", "key": "t99/late", "match_id": None, "fields": fields})


def test_i26_7_a_held_real_time_round_shows_its_turn_and_clock(page: Any, site: ArenaSite) -> None:
    """Issue 26 item 7: a held round of a real-time series (a DatsPulse round, whose live events carry
    its `progress`) is listed with its turn of its turns and the time to its next turn and to its
    end; the clock moves with the events, and nothing of the round's state is shown."""
    (stored, *_) = site.store.list_matches(site.tournament_id)
    data = json.loads(read_replay(site.store.replay_path(stored.replay_hash)).dumps())
    head = {**data, "steps": [], "keyframes": data["keyframes"][:1], "result": {}, "statuses": []}
    now = time.time()

    def progress(turn: int) -> dict[str, Any]:
        return {"turn": turn, "turns": 30, "next_turn_at": now + 100.0, "ends_at": now + 600.0}

    key = "datspulse/spring-cup-1"
    site.gate.publish(
        {"type": "header", "key": key, "tournament_id": 99, "match": "spring-cup-1", "replay": head,
         "progress": progress(0)}
    )  # fmt: skip
    site.gate.publish(
        {"type": "steps", "key": key, "first": 0, "steps": data["steps"][:2], "progress": progress(2)}
    )
    page.goto(site.url + "/arena.html")
    row = page.locator(f'[data-testid="live-row"][data-key="{key}"]')
    row.wait_for(timeout=10_000)
    clock = row.get_by_test_id("live-clock")
    text = clock.inner_text()
    assert text.startswith("turn 2 / 30 · next in ") and " · ends in " in text
    next_in = int(text.split("next in ")[1].split(" s")[0])
    ends_in = int(text.split("ends in ")[1].split(" s")[0])
    assert 0 < next_in <= 100 and next_in < ends_in <= 600
    assert row.get_by_test_id("live-state").inner_text() == "opens at the end"
    site.gate.publish(
        {"type": "steps", "key": key, "first": 2, "steps": data["steps"][2:3], "progress": progress(3)}
    )
    page.wait_for_function(
        f'document.querySelector(\'[data-key="{key}"] [data-testid="live-clock"]\')'
        ".textContent.startsWith('turn 3 / 30')"
    )


def test_the_live_list_shows_only_what_is_being_played(page: Any, serve: Any, tmp_path: Path) -> None:
    """Three matches of one tournament: one being played, one queued (handed to the workers, not
    started) and one just finished. The arena lists only the first, and the tournament's row says
    1 running, 1 queued; when the running one ends it leaves the list, which then says so."""
    from botarena.bots.resolve import untrusted
    from botarena.server.app import create_app, live_key
    from botarena.server.live import LiveHub
    from botarena.store import Store
    from botarena.tournament.service import Entrant, TournamentPlan, create_tournament, tournament_format

    store = Store.open(f"sqlite:///{tmp_path / 'live.db'}", replay_dir=tmp_path / "replays")
    plan = TournamentPlan("cup", "rps", "round-robin", [Entrant(s, s) for s in ("rock", "cycler", "copycat")])
    tournament = create_tournament(store, plan, isolation=untrusted(sandbox=None))
    specs = tournament_format(tournament).schedule([], {})
    store.add_matches(tournament.id, specs)
    played, running, queued = sorted(spec.key for spec in specs)
    store.mark_running_many(tournament.id, [played, running, queued])
    hub = LiveHub()
    server = serve(create_app(store, hub))
    players = [{"seat": 0, "name": "rock"}, {"seat": 1, "name": "cycler"}]

    def start(key: str) -> None:
        replay = {"game": "rps", "players": players}
        event = {"type": "header", "key": live_key(tournament.id, key), "tournament_id": tournament.id}
        hub.publish({**event, "match": key, "replay": replay})

    def end(key: str) -> None:
        store.record_result(
            tournament.id, key, ranks=[1, 2], scores=[1.0, 0.0], statuses=[{"OK": 1}] * 2,
            time_used_ms=[0.0, 0.0], steps=1, duration_s=0.01, replay_gz=gzip.compress(key.encode()),
        )  # fmt: skip
        hub.publish({"type": "end", "key": live_key(tournament.id, key), "match_id": None, "fields": {}})

    try:
        start(played)
        end(played)
        start(running)
        page.goto(server.url + "/arena.html")
        page.wait_for_function("window.__arena && window.__arena.ready")
        assert page.evaluate("window.__arena.error") is None
        rows = page.locator('[data-testid="live-row"]')
        assert rows.count() == 1
        assert rows.first.get_attribute("data-key") == live_key(tournament.id, running)
        assert rows.first.get_by_test_id("live-state").inner_text() == "live"
        assert page.get_by_test_id("match-progress").inner_text() == "1 / 3 · 1 running · 1 queued"
        end(running)
        page.wait_for_function("window.__arena.live === 0")  # the next poll: it has left the list
        assert page.get_by_test_id("live-empty").is_visible()
        page.wait_for_function(
            "document.querySelector('[data-testid=\"match-progress\"]').innerText === '2 / 3 · 1 queued'"
        )
    finally:
        hub.close()
        store.close()
