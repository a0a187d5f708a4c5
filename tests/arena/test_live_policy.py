"""Live arena matches per `policy.live` (specs/arena.md, Live; DESIGN 7 and 8), each policy x each
caller, through the real routes `GET /api/live` and `GET /api/live/{key}/events`.

A match of competition A is published to the app's spectator gate as a worker's `LiveStreamer`
sends it (a header, steps, an end; the same path live ingest takes): PLAYED steps while it runs,
then its end. Every step's record carries a marker of its turn (the state a spectator must not
read early); the end carries each seat's log with a canary, and the header the match's seed.

The callers: anonymous, team alpha (a seat of the match), the organizer of competition A, and the
organizer of competition B (a token of the arena, of another competition: the public here). What
each should read (botarena.server.arena.live):

- `after`: while it runs only A's organizer lists it or opens its stream (404 for the others); once
  it ends, everyone reads all of it;
- `delayed` (D = DELAY): the others read the steps older than D once D are played, never newer;
- `organizer`: only A's organizer, ever;
- `open`: everyone, as it is played;

and no live frame to anyone but A's organizer carries a log (alpha's own included: a team reads its
seats' logs from the match's log route) or, while it runs, the seed.

A stream is read until the server has sent everything it holds for the caller: the app's heartbeat
is short, and the first heartbeat comes only once the stream is idle (never a sleep in the test).
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest

from botarena.arena.tokens import IssuedToken
from botarena.server.app import create_app
from botarena.store import Store

from .asgi import AsgiClient
from .conftest import ArenaApp, FakeClock, FakeWallClock

PLAYED = 6
DELAY = 2
SEED = 918_273_645_501
LOG_CANARY = ("log-CANARY-alpha-seat-5d1c", "log-CANARY-beta-seat-e0a7")
CALLERS = ("anonymous", "alpha", "org_a", "org_b")
LIVE_TOKEN = "live-token-of-the-policy-test-7c2e"
STREAM_WAIT_S = 60.0  # a bound for a loaded box; a stream's read returns as soon as it is idle


@dataclass
class World:
    built: ArenaApp
    competition: Any
    tokens: dict[str, IssuedToken | None]
    other: Any
    run: int = 0  # the test's number: its matches' keys are its own (the world is the module's)

    @property
    def gate(self) -> Any:
        return self.built.app.state.spectators

    def set_live(self, live: str, delay: int = DELAY) -> None:
        answer = self.built.call(
            "PATCH",
            f"/api/competitions/{self.competition.id}",
            self.tokens["org_a"],
            json={"policy": {"live": live, "live_delay_turns": delay}},
        )
        assert answer.status == 200, answer.text

    def key(self, name: str) -> str:
        return f"t{self.competition.tournament_id}/r{self.run}-{name}"


@pytest.fixture(scope="module")
def shared_world(tmp_path_factory: pytest.TempPathFactory) -> Iterator[World]:
    tmp_path = tmp_path_factory.mktemp("live-policy")
    store = Store.open(f"sqlite:///{tmp_path / 'arena.db'}", replay_dir=tmp_path / "replays")
    clock = FakeClock()
    # (a short heartbeat: a ping marks an idle stream; a live token: workers' ingest)
    app = create_app(store, arena_clock=clock, heartbeat_s=0.05, live_token=LIVE_TOKEN)
    app.state.arena_now = FakeWallClock()
    built = ArenaApp(store, app.state.arena, app, AsgiClient(app), clock)
    competition, org_a = built.open_competition("live cup")
    other, org_b = built.open_competition("other cup")
    _, alpha = built.team(competition.id, "alpha")
    built.team(competition.id, "beta")
    tokens = {"anonymous": None, "alpha": alpha, "org_a": org_a, "org_b": org_b}
    try:
        yield World(built, competition, tokens, other)
    finally:
        built.client.close()
        store.close()


@pytest.fixture
def world(shared_world: World) -> World:
    """The module's world, back to the default policy (after), with keys of this test's own."""
    shared_world.run += 1
    shared_world.set_live("after", DELAY)
    return shared_world


# ------------------------------------------------------------------------------------- a match


def header(world: World, name: str, game: str = "drones") -> dict[str, Any]:
    replay = {
        "format": "botarena.replay",
        "game": game,
        "preset": "default",
        "config": {},
        "seed": SEED,
        "players": [{"seat": 0, "name": "alpha v1"}, {"seat": 1, "name": "beta v1"}],
        "keyframes": [{"step": 0, "state": {"marker": "keyframe-0"}}],
        "logs": [],
        "steps": [],
    }
    return {
        "type": "header",
        "key": world.key(name),
        "tournament_id": world.competition.tournament_id,
        "match": name,
        "replay": replay,
    }


def step(turn: int) -> dict[str, Any]:
    return {"replies": [], "verdicts": [], "record": {"turn": turn, "marker": f"state-of-turn-{turn}"}}


def play(world: World, name: str, played: int = PLAYED, game: str = "drones") -> str:
    """Publish a match's header and its first `played` steps, as a worker streams them."""
    gate = world.gate
    gate.publish(header(world, name, game))
    for turn in range(played):
        event = {"type": "steps", "key": world.key(name), "match": name, "first": turn, "steps": [step(turn)]}
        gate.publish({**event, "tournament_id": world.competition.tournament_id})
    return world.key(name)


def finish(world: World, name: str) -> None:
    logs = [{"seat": seat, "text": LOG_CANARY[seat], "dropped_bytes": 0} for seat in (0, 1)]
    fields = {"seed": SEED, "result": {"ranks": [1, 2]}, "logs": logs, "statuses": [{"OK": PLAYED}] * 2}
    world.gate.publish(
        {"type": "end", "key": world.key(name), "match": name, "match_id": None, "fields": fields}
    )


# ------------------------------------------------------------------------------------- reading


def listed(world: World, caller: str) -> dict[str, dict[str, Any]]:
    answer = world.built.call("GET", "/api/live", world.tokens[caller])
    assert answer.status == 200, answer.text
    return {entry["key"]: entry for entry in answer.json()}


def stream(world: World, caller: str, key: str) -> tuple[int, list[tuple[str, Any]], str]:
    """(status, [(event, data)], the raw text) of the match's live stream for `caller`, read until
    the server has nothing more for now (its first heartbeat) or the stream ends."""
    headers = [(b"host", b"testserver"), (b"accept", b"text/event-stream")]
    token = world.tokens[caller]
    if token is not None:
        headers.append((b"authorization", f"Bearer {token.text}".encode()))
    path = f"/api/live/{key}/events"
    scope = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": "GET",
        "scheme": "http",
        "path": path,
        "raw_path": path.encode(),
        "query_string": b"",
        "root_path": "",
        "headers": headers,
        "client": ("127.0.0.1", 50000),
        "server": ("testserver", 80),
        "state": {},
    }
    status = 0
    body = bytearray()

    async def read() -> None:
        nonlocal status
        done = asyncio.Event()
        asked = False

        async def receive() -> dict[str, Any]:
            nonlocal asked
            if not asked:
                asked = True
                return {"type": "http.request", "body": b"", "more_body": False}
            await done.wait()
            return {"type": "http.disconnect"}

        async def send(message: dict[str, Any]) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
            elif message["type"] == "http.response.body":
                body.extend(message.get("body", b""))
                if not message.get("more_body", False) or b": ping\n\n" in body:
                    done.set()

        task = asyncio.ensure_future(world.built.app(scope, receive, send))
        await asyncio.wait_for(done.wait(), STREAM_WAIT_S)
        await asyncio.wait_for(task, STREAM_WAIT_S)

    world.built.client.loop.run_until_complete(read())
    text = body.decode()
    events = []
    for block in text.split("\n\n"):
        lines = block.split("\n")
        if lines[0].startswith("event: "):
            data = "\n".join(line.removeprefix("data: ") for line in lines[1:])
            events.append((lines[0].removeprefix("event: "), json.loads(data)))
    return status, events, text


def turns(events: list[tuple[str, Any]]) -> list[int]:
    return [s["record"]["turn"] for kind, data in events if kind == "steps" for s in data["steps"]]


def assert_no_log(text: str) -> None:
    for canary in LOG_CANARY:
        assert canary not in text


# ------------------------------------------------------------------------------------- while it runs

PUBLIC = ("anonymous", "alpha", "org_b")


@pytest.mark.parametrize("caller", PUBLIC)
def test_live_after_a_running_arena_match_is_nothing_to_anyone_but_its_organizer(
    world: World, caller: str
) -> None:
    key = play(world, "m1")  # (the default policy: after)
    assert key not in listed(world, caller)
    status, _, text = stream(world, caller, key)
    assert status == 404 and "state-of-turn" not in text and "\n" not in json.loads(text)["detail"]


def test_live_organizer_sees_a_running_arena_match_as_played_under_every_policy(world: World) -> None:
    for index, live in enumerate(("after", "delayed", "organizer", "open")):
        world.set_live(live)
        key = play(world, f"m{index}")
        entry = listed(world, "org_a")[key]
        assert (entry["held"], entry["played"], entry["finished"], entry["policy"]) == (
            False, PLAYED, False, live
        )  # fmt: skip
        status, events, text = stream(world, "org_a", key)
        assert status == 200 and events[0][0] == "header", text[:300]
        assert turns(events) == list(range(PLAYED)), live
        assert events[0][1]["replay"]["keyframes"][0]["state"]["marker"] == "keyframe-0"


@pytest.mark.parametrize("caller", PUBLIC)
def test_live_delayed_shows_turn_t_once_t_plus_d_is_played_and_nothing_newer(
    world: World, caller: str
) -> None:
    world.set_live("delayed", DELAY)
    early = play(world, "early", played=DELAY - 1)  # fewer than D played: held, nothing shown
    entry = listed(world, caller)[early]
    assert (entry["held"], entry["policy"], entry["delay"], entry["steps"]) == (True, "delayed", DELAY, 0)
    status, events, text = stream(world, caller, early)
    assert status == 200 and [kind for kind, _ in events] == ["held"] and "state-of-turn" not in text
    key = play(world, "m1")
    entry = listed(world, caller)[key]
    assert (entry["held"], entry["steps"], entry["finished"]) == (False, PLAYED - DELAY, False)
    status, events, text = stream(world, caller, key)
    assert status == 200 and turns(events) == list(range(PLAYED - DELAY))
    for turn in range(PLAYED - DELAY, PLAYED):
        assert f"state-of-turn-{turn}" not in text
    assert str(SEED) not in text


@pytest.mark.parametrize("caller", PUBLIC)
def test_live_organizer_policy_never_shows_the_match_to_anyone_else(world: World, caller: str) -> None:
    world.set_live("organizer")
    key = play(world, "m1")
    assert key not in listed(world, caller)
    assert stream(world, caller, key)[0] == 404
    finish(world, "m1")
    assert key not in listed(world, caller)
    status, _, text = stream(world, caller, key)
    assert status == 404 and "state-of-turn" not in text
    assert listed(world, "org_a")[key]["finished"] is True  # (its organizer: still there)


@pytest.mark.parametrize("caller", PUBLIC)
def test_live_open_shows_everything_as_played_but_no_seed(world: World, caller: str) -> None:
    world.set_live("open")
    key = play(world, "m1")
    entry = listed(world, caller)[key]
    assert (entry["held"], entry["steps"], entry["policy"]) == (False, PLAYED, "open")
    status, events, text = stream(world, caller, key)
    assert status == 200 and turns(events) == list(range(PLAYED))
    assert str(SEED) not in text


def test_live_after_holds_an_arena_match_of_a_full_information_game_too(world: World) -> None:
    """The gate lets a full-information game's match through as it is played; an arena match
    follows its competition's policy instead, whatever its game."""
    key = play(world, "m1", game="domains")
    assert key not in listed(world, "anonymous")
    assert stream(world, "anonymous", key)[0] == 404
    assert turns(stream(world, "org_a", key)[1]) == list(range(PLAYED))


def test_live_a_policy_change_applies_from_the_next_match(world: World) -> None:
    held = play(world, "before")  # after
    world.set_live("open")
    shown = play(world, "after-the-change")
    public = listed(world, "anonymous")
    assert held not in public and public[shown]["steps"] == PLAYED


# ------------------------------------------------------------------------------------- once it ends


@pytest.mark.parametrize("live", ["after", "delayed", "open"])
@pytest.mark.parametrize("caller", PUBLIC)
def test_live_an_ended_arena_match_streams_whole_without_any_log(
    world: World, live: str, caller: str
) -> None:
    world.set_live(live)
    key = play(world, "m1")
    finish(world, "m1")
    entry = listed(world, caller)[key]
    assert entry["finished"] is True and entry["steps"] == PLAYED
    status, events, text = stream(world, caller, key)
    assert status == 200 and turns(events) == list(range(PLAYED))
    kind, end = events[-1]
    assert kind == "end" and end["fields"]["result"] == {"ranks": [1, 2]}
    assert [entry["hidden"] for entry in end["fields"]["logs"]] == [True, True]
    assert_no_log(text)  # (alpha's own seat's log included: it reads it from the log route)


@pytest.mark.parametrize("live", ["after", "delayed", "organizer", "open"])
def test_live_only_the_organizer_reads_the_logs_in_a_live_frame(world: World, live: str) -> None:
    world.set_live(live)
    key = play(world, "m1")
    finish(world, "m1")
    status, events, _ = stream(world, "org_a", key)
    assert status == 200 and events[-1][0] == "end"
    assert [entry["text"] for entry in events[-1][1]["fields"]["logs"]] == list(LOG_CANARY)
    # the others: never a log (a stream, or the list)
    for caller in PUBLIC:
        assert_no_log(world.built.call("GET", "/api/live", world.tokens[caller]).text)
        assert_no_log(stream(world, caller, key)[2])


# ------------------------------------------------------------------------------------- not the arena's


def test_live_a_plain_tournaments_match_is_not_the_arena_organizers(world: World) -> None:
    """A match of a tournament that is no competition's follows the gate's own policy (after, for
    a hidden-information game), and an arena organizer sees it as the public does."""
    world.gate.publish({**header(world, "x"), "key": "t999/x", "tournament_id": 999})
    world.gate.publish({"type": "steps", "key": "t999/x", "first": 0, "steps": [step(0), step(1)]})
    for caller in CALLERS:
        entry = listed(world, caller)["t999/x"]
        assert entry["held"] is True and entry["steps"] == 0, caller  # (listed held, as before)
        status, events, text = stream(world, caller, "t999/x")
        assert status == 200 and [kind for kind, _ in events] == ["held"] and "state-of-turn" not in text


def test_live_a_bad_arena_token_is_401_and_a_live_token_is_the_public(world: World) -> None:
    key = play(world, "m1")
    bad = world.built.call("GET", "/api/live", "ba_nosuchkid_nosuchsecret")
    assert bad.status == 401 and "\n" not in bad.json()["detail"]
    # a bearer token that is not the arena's (a worker's live token): the public view, no error
    worker = world.built.call("GET", "/api/live", headers={"authorization": "Bearer some-live-token-1234"})
    assert worker.status == 200 and key not in {entry["key"] for entry in worker.json()}


def test_live_ingested_arena_match_follows_the_policy_too(world: World) -> None:
    """A worker elsewhere streams the match through `POST /api/live/ingest` (the coordinator's
    `--live-url`): the same rule applies to what it sends."""
    name = "ingested"
    events = [header(world, name)] + [
        {"type": "steps", "key": world.key(name), "first": turn, "steps": [step(turn)]}
        for turn in range(PLAYED)
    ]
    body = json.dumps(events).encode()
    sent = world.built.call(
        "POST",
        "/api/live/ingest",
        body=body,
        headers={"authorization": f"Bearer {LIVE_TOKEN}", "content-type": "application/json"},
    )
    assert sent.status == 200 and sent.json()["accepted"] == PLAYED + 1, sent.text
    key = world.key(name)
    assert key not in listed(world, "anonymous") and stream(world, "alpha", key)[0] == 404
    assert turns(stream(world, "org_a", key)[1]) == list(range(PLAYED))


def test_live_a_store_outage_at_the_header_holds_the_match_from_everyone(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The rule cannot read the competition (the store is down) when a match starts: the match is
    held as under `after` and unlisted, never shown as an open one, though its policy is `open`."""
    from botarena.store import StoreError

    world.set_live("open")

    def outage(tournament_id: int) -> None:
        raise StoreError("the store is unreachable")

    monkeypatch.setattr(world.built.app.state.arena_versions, "competition_of_tournament", outage)
    key = play(world, "outage")
    monkeypatch.undo()
    for caller in CALLERS:
        assert key not in listed(world, caller), caller
        status, _, text = stream(world, caller, key)
        assert status == 404 and "state-of-turn" not in text, caller
