"""The live view of a running match follows the spectator policy (issue 25, item 4; DESIGN 7).

One scenario, shared by the tests below: two `botarena serve` apps (their real routes under
uvicorn) over one store, with a live token and an organizer key, one with the default policy
(`after`) and one `delayed` by DELAY steps. The store holds a tournament of every registered game
(the game's starter bots, a secret seed) with two matches running. A real match of each (the real
runner, the starter bots, its seed) streams through the tournament's `LiveStreamer` to both
servers at once, as both running matches: the first through each server's spectator gate in
process (what a local tournament's coordinator does), the second through `POST /api/live/ingest`
(`HttpLiveSink`, what a worker elsewhere does). Each match stops in the runner's step hook after
PAUSE steps (never a wait on time: the hook blocks until the test lets it go, and the ingest sink
is flushed), and everything a spectator can read is read then:
every route, page and live stream of each server (`secret_crawler`), as a spectator, as a client
posing with a wrong organizer key and as a live-token holder; the organizer key's crawl is the
control. Then the matches play to their end and the servers are read again.

The secrets looked for in what is read are the match's own: every step played (each seat's reply
payloads, the step's record) and every part of the keyframes (the whole state: the opponent's
units, bombs, attributes, the map). Under `after` none of them appears anywhere until the match
ends, and then the whole match streams (to a stream opened while it was held, too); under `delayed`
exactly the steps older than DELAY show, none newer; the organizer sees every step as it is played;
FULL-information games (domains, rps) are open.
"""

from __future__ import annotations

import json
import secrets
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import orjson
import pytest

from botarena.bots.resolve import TRUSTED, resolve_bot
from botarena.core.game import GameInfo, Information
from botarena.core.registry import all_games
from botarena.runner.match import run_match
from botarena.server.app import create_app, live_key
from botarena.server.live import LiveHub
from botarena.server.spectators import LivePolicy, SpectatorGate, SpectatorPolicy
from botarena.store import Store
from botarena.tournament.executor import LiveStreamer
from botarena.tournament.formats import make_format
from botarena.tournament.service import Entrant, TournamentPlan, create_tournament

from .conftest import LIVE_TOKEN, Server, SseStream
from .secret_crawler import Crawl, Crawler, Reader

aiohttp = pytest.importorskip("aiohttp", reason="the http extra (aiohttp) is not installed")

from botarena.tournament.live_http import HttpLiveSink  # noqa: E402 - after importorskip

PAUSE = 6  # the steps played when the servers are read
DELAY = 2  # the delayed server's
SHOWN = PAUSE - DELAY
ORGANIZER_KEY = "organizer-key-of-the-policy-test"
SPECTATOR = Reader("spectator")
POSING = Reader("posing as the organizer", {"X-Organizer-Key": ORGANIZER_KEY[:-1] + "T"})
WORKER = Reader("a live-token holder", {"Authorization": f"Bearer {LIVE_TOKEN}"})
ORGANIZER = Reader("organizer", {"X-Organizer-Key": ORGANIZER_KEY})
HELD_NOTICE = {"key", "tournament_id", "match", "game", "players", "policy", "delay", "played"}
LONGER = {"datspulse": {"turns": 8}}  # (its test preset plays 3 turns: fewer than PAUSE)
BIG = 48  # a part of a keyframe or a reply at least this long (canonical JSON) is looked for


def canon(value: Any) -> bytes:
    return orjson.dumps(value, option=orjson.OPT_SORT_KEYS)


def nodes(value: Any) -> Iterator[Any]:
    """Every object and list in a JSON value, itself included."""
    if isinstance(value, dict):
        yield value
        for item in value.values():
            yield from nodes(item)
    elif isinstance(value, list):
        yield value
        for item in value:
            yield from nodes(item)


def read_nodes(crawl: Crawl) -> dict[bytes, str]:
    """The canonical JSON of every object and list read, and where each was first read."""
    found: dict[bytes, str] = {}
    for where, document in crawl.documents:
        for node in nodes(document):
            found.setdefault(canon(node), where)
    return found


@dataclass
class Live:
    """One match streamed to both servers, paused after PAUSE steps and then played out."""

    game: GameInfo
    tournament_id: int
    local: str  # its key through each server's gate in process (the tournament's first match)
    ingest: str  # its key through each server's ingest route (the second)
    seed: int
    names: list[str]
    config: Any
    replay: Any = None
    resume: threading.Event = field(default_factory=threading.Event)
    paused: threading.Event = field(default_factory=threading.Event)
    thread: threading.Thread | None = None
    error: list[BaseException] = field(default_factory=list)
    followers: list[SseStream] = field(default_factory=list)  # opened on `after` while held

    @property
    def hidden(self) -> bool:
        return self.game.information is Information.HIDDEN

    def steps(self, upto: int) -> list[bytes]:
        return [canon(step) for step in self.replay.steps[:upto]]

    def secrets(self) -> set[bytes]:
        """What a spectator must not see of it while it is held: each step played, its record and
        every seat's reply payload, and each sizeable part of every keyframe (the whole state)."""
        found = set(self.steps(PAUSE))
        for step in self.replay.steps[:PAUSE]:
            found.add(canon(step["record"]))
            found |= {canon(r["payload"]) for r in step["replies"] if len(canon(r["payload"])) >= BIG}
        for frame in self.replay.keyframes:
            if frame["step"] <= PAUSE:  # (the state when the servers were read)
                found |= {canon(n) for n in nodes(frame["state"]) if len(canon(n)) >= BIG}
        return found


@dataclass
class Scenario:
    after: Server
    delayed: Server
    matches: list[Live]
    held: dict[str, Crawl]  # while paused, on the after server: spectators, organizer
    late: dict[str, Crawl]  # while paused, on the delayed server
    over: dict[str, Crawl]  # once every match has ended


def tee(servers: list[Server], sinks: list[HttpLiveSink], live: Live) -> Any:
    """A live sink that publishes each event to every server twice: through its gate, as a local
    tournament does, and through its ingest route, as a worker elsewhere does."""

    def publish(event: dict[str, Any]) -> None:
        for server, sink in zip(servers, sinks, strict=True):
            server.gate.publish({**event, "key": live.local})
            sink({**event, "key": live.ingest})

    return publish


def running_tournament(store: Store, game: GameInfo) -> Live:
    """A tournament of `game`'s starter bots with a secret seed, its first two matches running."""
    players = game.demo.players or max(2, game.min_players)
    names = sorted(game.starter_bots)[:players]
    overrides = {**game.test_overrides, **LONGER.get(game.id, {})}
    plan = TournamentPlan(
        name=f"live-{game.id}",
        game=game.id,
        format="round-robin",
        entrants=[Entrant(n, n) for n in names],
        seed=secrets.randbelow(2**63),
        overrides=overrides,
        options={"cycles": 2},
        players=players,
    )
    row = create_tournament(store, plan, isolation=TRUSTED)
    store.set_tournament_status(row.id, "running")
    specs = make_format("round-robin", names, seed=plan.seed, players=players, options=plan.options)
    first, second, *_ = specs.schedule([], {})
    store.add_matches(row.id, [first, second])
    for spec in (first, second):
        store.mark_running(row.id, spec.key)
    return Live(
        game,
        row.id,
        live_key(row.id, first.key),
        live_key(row.id, second.key),
        first.seed,
        list(first.seats),
        game.config("default", overrides),
    )


def play(live: Live, publish: Any) -> None:
    """Play `live` with the real runner and starter bots, pausing after PAUSE steps."""
    game, names, config = live.game, live.names, live.config
    match = live.local.split("/", 1)[1]
    streamer = LiveStreamer(live.local, publish, tournament_id=live.tournament_id, match=match, flush_s=0.0)

    def step(index: int, record: Any, engine: Any) -> None:
        streamer.step(index, record, engine)
        if index == PAUSE:
            live.replay = streamer.replay
            live.paused.set()
            assert live.resume.wait(120), "the test never let the match go on"

    def run() -> None:  # (in a thread: in-process bots are preempted by a timer signal for threads)
        try:
            bots = [resolve_bot(name, game, isolation=TRUSTED) for name in names]
            done = run_match(game, bots, config=config, seed=live.seed, on_begin=streamer.begin, on_step=step)
            live.replay = done.replay
            streamer.end(done.replay)
        except BaseException as exc:  # the test's thread reports it
            live.error.append(exc)
            live.paused.set()

    live.thread = threading.Thread(target=run, name=f"match-{game.id}")
    live.thread.start()


def crawls(server: Server) -> dict[str, Crawl]:
    return {
        "public": Crawler(server.app, server.url, [SPECTATOR, POSING, WORKER]).crawl(),
        "organizer": Crawler(server.app, server.url, [ORGANIZER]).crawl(),
    }


def start(store: Store, policy: SpectatorPolicy | None) -> Server:
    hub = LiveHub()
    gate = SpectatorGate(hub, policy, organizer=LiveHub(public=False)) if policy is not None else None
    app = create_app(store, hub, live_token=LIVE_TOKEN, organizer_key=ORGANIZER_KEY, spectators=gate)
    return Server(app, hub).start()


@pytest.fixture(scope="module")
def scenario(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Scenario]:
    root = tmp_path_factory.mktemp("live-policy")
    store = Store.open(f"sqlite:///{root / 'arena.db'}", replay_dir=root / "replays")
    after = start(store, None)  # create_app's own gate: the default policy
    delayed = start(store, SpectatorPolicy(LivePolicy.DELAYED, DELAY))
    servers = [after, delayed]
    # generous deadlines: on a loaded machine a post that times out is dropped (by design, so that
    # a slow server never holds a match up), and this test is about the policy, not about load
    sinks = [HttpLiveSink(s.url, LIVE_TOKEN, request_timeout_s=60.0, end_wait_s=60.0) for s in servers]
    matches = [running_tournament(store, game) for game in all_games()]
    try:
        for live in matches:  # one after the other: each stops in its step hook
            play(live, tee(servers, sinks, live))
            assert live.paused.wait(120) and not live.error, live.error
        assert all(sink.flush(60) for sink in sinks)  # the ingested events are in
        assert [sink.stats()["dropped"] for sink in sinks] == [0, 0], [sink.stats() for sink in sinks]
        for live in matches:  # a stream opened while the match is held back
            live.followers.append(SseStream(after.url, f"/api/live/{live.local}/events", timeout=60))
        held, late = crawls(after), crawls(delayed)
        for live in matches:
            live.resume.set()
            assert live.thread is not None
            live.thread.join(120)
            assert not live.thread.is_alive() and not live.error, live.error
        assert all(sink.flush(60) for sink in sinks)
        assert [sink.stats()["dropped"] for sink in sinks] == [0, 0], [sink.stats() for sink in sinks]
        over = crawls(after)
        yield Scenario(after, delayed, matches, held, late, over)
    finally:
        for live in matches:
            live.resume.set()
            for follower in live.followers:
                follower.close()
        for sink in sinks:
            sink.close()
        for server in servers:
            server.stop()
        store.close()


def listed(crawl: Crawl, key: str) -> dict[str, Any]:
    """The live list's entry for `key`, as the crawl's first reader read it."""
    lists = [doc for where, doc in crawl.documents if where.endswith(": GET /api/live")]
    (entry,) = [m for m in lists[0] if m["key"] == key]
    return entry


def docs(crawl: Crawl, key: str, reader: Reader) -> list[Any]:
    """The SSE events' data `reader` read of `key`'s stream, in order."""
    where = f"{reader.name}: GET /api/live/{key}/events (SSE)"
    return [doc for w, doc in crawl.documents if w == where]


def matches_path(live: Live) -> str:
    return f"/api/tournaments/{live.tournament_id}/matches"


def hidden_games(scenario: Scenario) -> list[Live]:
    found = [live for live in scenario.matches if live.hidden]
    assert {live.game.id for live in found} == {"drones", "devops", "datspulse", "craftingquest"}
    return found


# ------------------------------------------------------------------------------------- after


def test_after_a_spectator_reads_nothing_of_a_running_hidden_match(scenario: Scenario) -> None:
    """Every route, page and stream, read by a spectator, a client posing with a wrong organizer
    key and a live-token holder: not one step, reply, record or part of a keyframe of the four
    hidden-information matches, by either key (in-process events and ingest)."""
    public = scenario.held["public"]
    read = read_nodes(public)
    for live in hidden_games(scenario):
        leaked = [read[node] for node in live.secrets() if node in read]
        assert leaked == [], f"{live.game.id}: its state was read at {leaked[:3]}"
        for key in (live.local, live.ingest):
            entry = listed(public, key)  # listed as running, with its players and progress
            assert entry["held"] is True and entry["policy"] == "after" and entry["steps"] == 0
            assert entry["played"] == PAUSE and not entry["finished"] and len(entry["players"]) >= 2
            for reader in (SPECTATOR, POSING, WORKER):
                (notice,) = docs(public, key, reader)
                assert set(notice) == HELD_NOTICE and notice["played"] == PAUSE, (key, reader)
        # its tournament's match list links both running matches to their (held) live streams
        where = f"spectator: GET {matches_path(live)}"
        (page,) = [doc for read_at, doc in public.documents if read_at == where]
        linked = {m["live_url"] for m in page["matches"] if m["status"] == "running"}
        assert linked == {f"/api/live/{key}/events" for key in (live.local, live.ingest)}
        assert all(m["seed"] is None for m in page["matches"])
    # the control: the organizer's crawl of the same server reads every secret of every match
    organizer = read_nodes(scenario.held["organizer"])
    for live in hidden_games(scenario):
        assert live.secrets() <= set(organizer), live.game.id


def test_the_organizer_key_sees_every_step_as_it_is_played(scenario: Scenario) -> None:
    for crawl in (scenario.held["organizer"], scenario.late["organizer"]):
        for live in scenario.matches:
            for key in (live.local, live.ingest):
                entry = listed(crawl, key)
                assert entry["steps"] == PAUSE and entry["held"] is False
                events = docs(crawl, key, ORGANIZER)
                header, *steps = events
                assert header["replay"]["keyframes"][0]["step"] == 0
                assert header["replay"]["seed"] == live.seed  # (the organizer sees the secrets too)
                shown = [canon(s) for data in steps for s in data["steps"]]
                assert shown == live.steps(PAUSE), (live.game.id, key)


def test_full_information_games_stay_open(scenario: Scenario) -> None:
    """domains and rps hide nothing from the seats: the public follows them as they are played."""
    full = [live for live in scenario.matches if not live.hidden]
    assert {live.game.id for live in full} == {"domains", "rps"}
    for crawl in (scenario.held["public"], scenario.late["public"]):
        for live in full:
            for key in (live.local, live.ingest):
                entry = listed(crawl, key)
                assert entry["policy"] == "open" and entry["held"] is False and entry["steps"] == PAUSE
                header, *steps = docs(crawl, key, SPECTATOR)
                assert header["spectators"] == {"policy": "open", "delay": None}
                assert [canon(s) for data in steps for s in data["steps"]] == live.steps(PAUSE)


def test_after_the_end_the_whole_match_streams(scenario: Scenario) -> None:
    """Once a hidden match ends, the public gets all of it: the header, every step, the end (its
    seed included), by both keys; and a stream opened while it was held follows it there."""
    public = scenario.over["public"]
    for live in hidden_games(scenario):
        every = live.steps(len(live.replay.steps))
        for key in (live.local, live.ingest):
            entry = listed(public, key)
            assert entry["finished"] and entry["steps"] == len(every) and not entry["held"]
            header, *steps = docs(public, key, SPECTATOR)  # (the crawl reads what the list says)
            assert header["replay"]["keyframes"] == orjson.loads(canon(live.replay.keyframes[:1]))
            assert [canon(s) for data in steps for s in data["steps"]] == every
            events = SseStream(scenario.after.url, f"/api/live/{key}/events").read_all()
            end = json.loads(events[-1].data)
            assert events[-1].event == "end" and end["fields"]["seed"] == live.seed
            assert end["fields"]["keyframes"] == orjson.loads(canon(live.replay.keyframes))
        follower = live.followers[0]
        kinds = [(e.event, e.data) for e in follower.events() if e.event != "comment"]
        names = [name for name, _ in kinds]
        assert names[0] == "held" and "header" in names and names[-1] == "end", names
        first = names.index("header")
        assert set(names[:first]) == {"held"}  # progress notices only, before the header
        played = [json.loads(data)["played"] for _, data in kinds[:first]]
        assert played[0] == PAUSE and played == sorted(played)  # (the progress as it came)
        steps = [canon(s) for n, d in kinds[first:] if n == "steps" for s in json.loads(d)["steps"]]
        assert steps == every, live.game.id


# ------------------------------------------------------------------------------------- delayed


def test_delayed_shows_exactly_the_steps_older_than_the_delay(scenario: Scenario) -> None:
    """With PAUSE steps played, every reader but the organizer gets steps 1..PAUSE-DELAY and no
    later one: the header (keyframes up to the shown step only), then exactly those steps."""
    public = scenario.late["public"]
    read = read_nodes(public)
    for live in hidden_games(scenario):
        newer = set(live.steps(PAUSE)[SHOWN:])
        assert not newer & set(read), f"{live.game.id}: a step newer than played - {DELAY} was read"
        for key in (live.local, live.ingest):
            entry = listed(public, key)
            assert entry["policy"] == "delayed" and entry["delay"] == DELAY and entry["held"] is False
            assert entry["steps"] == SHOWN and entry["played"] == PAUSE
            for reader in (SPECTATOR, POSING, WORKER):
                header, *steps = docs(public, key, reader)
                assert header["spectators"] == {"policy": "delayed", "delay": DELAY}
                assert all(k["step"] <= SHOWN for k in header["replay"]["keyframes"])
                assert header["replay"]["seed"] is None
                assert [canon(s) for data in steps for s in data["steps"]] == live.steps(SHOWN)
