"""The DatsPulse renderer in headless chromium: a real 3-team replay (forager, raider, random walker).

Hex positions are computed here from the spec's odd-r geometry (DP-1, DP-3), and a team's view from DP-90,
independently of the renderer's JavaScript; the page's canvas pixels, probe and text must agree.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from viewer_page import pixel, scrub, text, texts

from botarena.bots.inprocess import PythonBot
from botarena.core.registry import get_game
from botarena.core.replay import Replay, write_replay
from botarena.runner import run_match

pytestmark = pytest.mark.browser

NAMES = ["forager", "raider", "random_walker"]
RADIUS = 16
TURNS = 30
# the renderer's terrain colours (datspulse.js TERRAIN): empty, dirt, acid, stone
TERRAIN = {2: (0x2F, 0x3B, 0x4F), 3: (0x6B, 0x4F, 0x35), 4: (0x5D, 0x7F, 0x16), 5: (0x9C, 0xA3, 0xAF)}
VIEW_DEFAULTS = {"worker_view": 1, "soldier_view": 1, "scout_view": 4, "spot_view": 2}


@pytest.fixture(scope="module")
def dp_replay(tmp_path_factory: pytest.TempPathFactory) -> tuple[Replay, Path]:

    game = get_game("datspulse")
    bots = [PythonBot(game.starter_bots[name], name) for name in NAMES]
    config = game.config("default", {"turns": TURNS, "map_radius": RADIUS})
    with ThreadPoolExecutor(1) as pool:  # SIGALRM preemption belongs to a worker thread under pytest
        replay = pool.submit(run_match, game, bots, config=config, seed=5).result().replay
    return replay, write_replay(replay, tmp_path_factory.mktemp("datspulse") / "datspulse.json.gz")


# ------------------------------------------------------------------------------- the spec in Python


def to_axial(q: int, r: int) -> tuple[int, int]:
    """DP-3: odd-r offset to axial (x, z); `r & 1` is the parity of negative rows too."""
    return q - (r - (r & 1)) // 2, r


def from_axial(x: int, z: int) -> tuple[int, int]:
    return x + (z - (z & 1)) // 2, z


def distance(a: tuple[int, int], b: tuple[int, int]) -> int:
    (x1, z1), (x2, z2) = to_axial(*a), to_axial(*b)
    return max(abs(x1 - x2), abs(z1 - z2), abs((x1 + z1) - (x2 + z2)))


def within(centre: tuple[int, int], d: int, radius: int) -> Iterator[tuple[int, int]]:
    cx, cz = to_axial(*centre)
    for dx in range(-d, d + 1):
        for dz in range(max(-d, -dx - d), min(d, -dx + d) + 1):
            x, z = cx + dx, cz + dz
            if max(abs(x), abs(z), abs(x + z)) <= radius:
                yield from_axial(x, z)


def visible(frame: dict[str, Any], team: int, config: dict[str, Any], radius: int) -> set[tuple[int, int]]:
    """DP-90: each listed unit's view (corpses too) around its position and every lastMove hex, and
    spot_view around the team's spot."""
    views = [config.get(k, VIEW_DEFAULTS[k]) for k in ("worker_view", "soldier_view", "scout_view")]
    seen: set[tuple[int, int]] = set()
    for unit in frame["units"]:
        if unit["team"] != team:
            continue
        for hex_ in [(unit["q"], unit["r"])] + [(h["q"], h["r"]) for h in unit.get("lastMove", [])]:
            seen.update(within(hex_, views[unit["type"]], radius))
    spot = next(t["spot"] for t in frame["teams"] if t["index"] == team)
    seen.update(within((spot["q"], spot["r"]), config.get("spot_view", 2), radius))
    return seen


def centre_px(probe: dict[str, Any], q: int, r: int) -> dict[str, float]:
    """DP-1: pointy-top hexes, odd rows shifted half a hex right."""
    size, origin = probe["size"], probe["origin"]
    return {"x": origin["x"] + math.sqrt(3) * size * (q + 0.5 * (r & 1)), "y": origin["y"] + 1.5 * size * r}


def close(a: tuple[int, int, int], b: tuple[int, int, int], tolerance: int = 3) -> bool:
    return all(abs(x - y) <= tolerance for x, y in zip(a, b, strict=True))


def rgb(hex_colour: str) -> tuple[int, int, int]:
    n = int(hex_colour[1:], 16)
    return (n >> 16) & 255, (n >> 8) & 255, n & 255


def pixels(page: Any, points: list[dict[str, float]]) -> list[tuple[int, int, int]]:
    """The canvas colours at many probe points in one round trip (as viewer_page.pixel reads one)."""
    rgba = page.evaluate(
        """(points) => {
            const c = document.querySelector('[data-testid="canvas"]');
            const dpr = Number(c.dataset.dpr || 1);
            const ctx = c.getContext('2d');
            return points.map((p) => Array.from(
                ctx.getImageData(Math.round(p.x * dpr), Math.round(p.y * dpr), 1, 1).data));
        }""",
        points,
    )
    return [(c[0], c[1], c[2]) for c in rgba]


def terrain_of(replay: Replay) -> dict[str, Any]:
    return next(kf["state"]["terrain"] for kf in replay.keyframes if "terrain" in kf["state"])


def quiet_hexes(frame: dict[str, Any], terrain: dict[str, Any]) -> dict[int, tuple[int, int]]:
    """One hex per terrain type that nothing is drawn over: no unit, pile, anthill, move or attack
    within two hexes."""
    busy: list[tuple[int, int]] = [(u["q"], u["r"]) for u in frame["units"]]
    busy += [(p["q"], p["r"]) for p in frame["food"]]
    for unit in frame["units"]:
        busy += [(h["q"], h["r"]) for h in unit.get("lastMove", [])]
        if "lastAttack" in unit:
            busy.append((unit["lastAttack"]["q"], unit["lastAttack"]["r"]))
    for team in frame["teams"]:
        busy += [(h["q"], h["r"]) for h in team["home"]]
    found: dict[int, tuple[int, int]] = {}
    for q, r, kind in terrain["tiles"]:
        if kind in TERRAIN and kind not in found and all(distance((q, r), b) > 2 for b in busy):
            found[kind] = (q, r)
    return found


# ------------------------------------------------------------------------------------------ tests


def test_dp33_scoreboard_panels_and_describe(serve: Any, open_viewer: Any, dp_replay: Any) -> None:
    replay, path = dp_replay
    page = open_viewer(serve(path).url)
    shown = texts(page)
    assert shown["game"] == "DatsPulse"
    assert shown["players"] == " vs ".join(NAMES)
    assert shown["step-label"] == f"Turn {replay.steps[0]['record']['turnNo']}"
    for index in (len(replay.steps) // 2, len(replay.steps) - 1):
        scrub(page, index)
        frame = replay.steps[index]["record"]
        shown = texts(page)
        assert shown["step-label"] == f"Turn {frame['turnNo']}"
        teams = sorted(frame["teams"], key=lambda t: t["index"])
        for seat, team in enumerate(teams):
            alive = sum(1 for u in frame["units"] if u["team"] == team["index"] and u["health"] > 0)
            assert shown[f"player-{seat}-score"] == str(team["score"])
            assert shown[f"player-{seat}-nectar"] == str(sum(team["nectar"]))
            assert shown[f"player-{seat}-units"] == str(alive)
            assert shown[f"player-{seat}-lost"] == str(team["unitsLost"])
        probe = page.evaluate("window.__botarena.probe()")
        assert probe["turn"] == frame["turnNo"]
        assert probe["ranking"] == [
            t["index"] for t in sorted(frame["teams"], key=lambda t: (-t["score"], t["index"]))
        ]
        alive = sum(1 for u in frame["units"] if u["health"] > 0)
        first = text(page, "record").splitlines()[0]
        assert first.startswith(f"Turn {frame['turnNo']}: {alive} units alive")


def test_dp1_dp3_hexes_and_units_at_their_pixels(serve: Any, open_viewer: Any, dp_replay: Any) -> None:
    replay, path = dp_replay
    terrain = terrain_of(replay)
    page = open_viewer(serve(path).url)
    kinds: set[int] = set()
    unit_teams: set[int] = set()
    for index in (0, len(replay.steps) // 2, len(replay.steps) - 1):
        scrub(page, index)
        frame = replay.steps[index]["record"]
        probe = page.evaluate("window.__botarena.probe()")
        assert probe["radius"] == terrain["radius"] == RADIUS
        for kind, (q, r) in quiet_hexes(frame, terrain).items():
            assert close(pixel(page, centre_px(probe, q, r)), TERRAIN[kind]), (kind, q, r)
            kinds.add(kind)
        colours = {t["index"]: rgb(t["colour"]) for t in probe["teamColours"]}
        assert len(set(colours.values())) == len(frame["teams"])  # distinct team colours
        by_id = {u["id"]: u for u in probe["units"]}
        assert set(by_id) == {u["id"] for u in frame["units"]}
        living = [u for u in frame["units"] if u["health"] > 0]
        seen = pixels(page, [by_id[u["id"]]["sample"] for u in living])
        for unit, colour in zip(living, seen, strict=True):
            drawn = by_id[unit["id"]]
            # the unit is drawn inside its own hex (within one hex radius of the centre DP-1 gives)
            hex_centre = centre_px(probe, unit["q"], unit["r"])
            assert (
                math.dist((drawn["sample"]["x"], drawn["sample"]["y"]), (hex_centre["x"], hex_centre["y"]))
                < probe["size"]
            )
            assert close(colour, colours[unit["team"]]), unit
            unit_teams.add(unit["team"])
    assert {2, 3}.issubset(kinds) and len(unit_teams) >= 2


def test_dp90_view_as_a_team_hides_enemies_out_of_its_sight(
    serve: Any, open_viewer: Any, dp_replay: Any
) -> None:
    replay, path = dp_replay
    radius = terrain_of(replay)["radius"]
    # a step, a team and a living enemy unit outside that team's visible set, computed here
    choice = None
    for index in range(len(replay.steps) - 1, -1, -1):
        frame = replay.steps[index]["record"]
        for team in sorted(t["index"] for t in frame["teams"]):
            seen = visible(frame, team, replay.config, radius)
            hidden = [
                u
                for u in frame["units"]
                if u["team"] != team and u["health"] > 0 and (u["q"], u["r"]) not in seen
            ]
            own = [u for u in frame["units"] if u["team"] == team and u["health"] > 0]
            if hidden and own:
                choice = (index, team, seen, hidden[0], own[0])
                break
        if choice:
            break
    assert choice is not None, "no enemy unit out of any team's sight: the replay is too crowded"
    index, team, seen, enemy, mine = choice
    page = open_viewer(serve(path).url)
    scrub(page, index)
    select = page.get_by_test_id("option-view")
    assert select.input_value() == "spectator"
    choices = select.locator("option").evaluate_all("(options) => options.map((o) => o.value)")
    teams = sorted(t["index"] for t in replay.steps[index]["record"]["teams"])
    assert choices == ["spectator"] + [str(t) for t in teams]  # everything, or one team's fog of war

    def unit_pixels() -> tuple[dict[str, Any], tuple[int, int, int], tuple[int, int, int]]:
        probe = page.evaluate("window.__botarena.probe()")
        units = {u["id"]: u for u in probe["units"]}
        return probe, pixel(page, units[enemy["id"]]["sample"]), pixel(page, units[mine["id"]]["sample"])

    probe, enemy_px, mine_px = unit_pixels()
    colours = {t["index"]: rgb(t["colour"]) for t in probe["teamColours"]}
    assert close(enemy_px, colours[enemy["team"]]) and close(mine_px, colours[team])

    select.select_option(str(team))
    probe, enemy_px, mine_px = unit_pixels()
    assert probe["view"] == str(team)
    assert probe["visibleCount"] == len(seen)  # the page's DP-90 set has the size computed here
    assert not close(enemy_px, colours[enemy["team"]], tolerance=40)  # hidden: fogged ground instead
    assert close(mine_px, colours[team])  # its own units stay
    shown = {u["id"]: u["shown"] for u in probe["units"]}
    assert shown[enemy["id"]] is False and shown[mine["id"]] is True
    for unit in replay.steps[index]["record"]["units"]:  # every unit is shown exactly as DP-90 says
        expected = unit["team"] == team or (unit["health"] > 0 and (unit["q"], unit["r"]) in seen)
        assert shown[unit["id"]] is expected, unit

    select.select_option("spectator")
    probe, enemy_px, _ = unit_pixels()
    assert probe["view"] == "spectator" and probe["visibleCount"] is None
    assert close(enemy_px, colours[enemy["team"]])


def test_dp_live_match_advances_step_by_step(page: Any, serve: Any, dp_replay: Any, tmp_path: Path) -> None:
    """A match published to the live hub one step at a time: the viewer follows each new turn."""
    from botarena.server.app import create_app, live_events_url
    from botarena.server.live import LiveHub
    from botarena.store import Store

    replay, _ = dp_replay
    data = json.loads(replay.dumps())
    store = Store.open(f"sqlite:///{tmp_path / 'live.db'}", replay_dir=tmp_path / "replays")
    hub = LiveHub()
    key = "play/datspulse-5"
    try:
        server = serve(create_app(store, hub))
        head = {**data, "steps": [], "keyframes": data["keyframes"][:1], "result": {}, "statuses": []}
        hub.publish({"type": "header", "key": key, "tournament_id": None, "match": "dp", "replay": head})
        page.goto(f"{server.url}/index.html?live={live_events_url(key)}")
        page.wait_for_function("window.__botarena && window.__botarena.live === 'live'")
        for index in range(3):
            hub.publish({"type": "steps", "key": key, "first": index, "steps": [data["steps"][index]]})
            page.wait_for_function(f"window.__botarena.stepCount === {index + 1}")
            frame = data["steps"][index]["record"]
            assert page.evaluate("window.__botarena.currentStep") == index  # it follows the newest step
            assert text(page, "step-label") == f"Turn {frame['turnNo']}"
            probe = page.evaluate("window.__botarena.probe()")
            assert probe["turn"] == frame["turnNo"] and len(probe["units"]) == len(frame["units"])
            assert text(page, "player-0-score") == str(frame["teams"][0]["score"])
        rest = data["steps"][3:]
        hub.publish({"type": "steps", "key": key, "first": 3, "steps": rest})
        fields = {k: data[k] for k in ("result", "end", "keyframes", "logs", "time_used_ms", "statuses")}
        hub.publish({"type": "end", "key": key, "match_id": None, "fields": fields})
        page.wait_for_function("window.__botarena.live === 'ended'")
        assert page.evaluate("window.__botarena.stepCount") == len(data["steps"])
        assert text(page, "step-label") == f"Turn {data['steps'][-1]['record']['turnNo']}"
    finally:
        hub.close()
        store.close()


def test_dp_realtime_round_is_watched_live(page: Any, serve: Any, tmp_path: Path) -> None:
    """§7.4 real time: a round of the DatsPulse server (its live events go to the hub as a tournament's
    do) is followed by `?live=`: the view advances turn by turn while the round runs, then ends."""
    import urllib.request

    from botarena.server.datspulse.server import DatsPulseServer
    from botarena.server.datspulse.settings import parse_settings
    from botarena.server.live import LiveHub
    from botarena.store import Store

    game = {"lobby_seconds": 0.3, "turns": 10, "turn_seconds": 0.5, "break_seconds": 30.0}
    # `open`: the public stream shows the running round (the default, after-round, shows nothing of
    # it until it ends: tests/server/datspulse/test_spectators.py).
    settings = parse_settings(
        {
            "preset": "ci",
            "seed": 3,
            "game": game,
            "teams": [{"name": "alpha", "token": "tok-alpha"}],
            "spectators": {"mode": "open"},
        },
        source="test",
    )
    store = Store.open(f"sqlite:///{tmp_path / 'rt.db'}", replay_dir=tmp_path / "replays")
    hub = LiveHub()
    dp = DatsPulseServer(settings, store=store, hub=hub)
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    try:
        server = serve(dp.app())
        dp.start()
        # registered in process, under the series' lock, so that a loaded machine cannot make the
        # team miss the short lobby (registration over HTTP: tests/server/datspulse/test_lifecycle.py)
        with dp.series.lock:
            dp.series.advance(dp.series.clock())
            dp.series.register("alpha", dp.series.clock())
        events_url = None
        for _ in range(400):  # a counted wait for the round's header to reach the hub
            with opener.open(server.url + "/api/live", timeout=10) as reply:
                found = [m for m in json.loads(reply.read()) if m["game"] == "datspulse"]
            if found:
                events_url = found[0]["events_url"]
                break
            page.wait_for_timeout(25)
        assert events_url is not None
        page.goto(f"{server.url}/index.html?live={events_url}")
        page.wait_for_function("window.__botarena && window.__botarena.live === 'live'")
        assert text(page, "game") == "DatsPulse"
        page.wait_for_function("window.__botarena.stepCount >= 2", timeout=15_000)
        first = page.evaluate("window.__botarena.stepCount")
        page.wait_for_function(f"window.__botarena.stepCount >= {first + 2}", timeout=15_000)
        # while it runs, the view shows the newest turn (read together: turns keep coming)
        label, count, probe = page.evaluate(
            """() => [document.querySelector('[data-testid="step-label"]').innerText,
                      window.__botarena.stepCount, window.__botarena.probe()]"""
        )
        assert label == f"Turn {probe['turn']}" and probe["turn"] == count
        assert probe["radius"] >= 8 and any(u["team"] == 0 for u in probe["units"])
        page.wait_for_function("window.__botarena.live === 'ended'", timeout=20_000)
        assert page.evaluate("window.__botarena.stepCount") == game["turns"]
        assert text(page, "step-label") == f"Turn {game['turns']}"
    finally:
        dp.stop()
        hub.close()
        store.close()
