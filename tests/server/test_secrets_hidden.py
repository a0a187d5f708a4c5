"""No secret of a running tournament match on `botarena serve` (issue 25, item 4; DESIGN principle 7).

One store holds a tournament of every registered game (the HIDDEN-information ones, and the FULL
ones, whose seed still gives every seat's hidden bot seed), each with a secret random seed: one
match is being played (the real runner, stopped after two steps, has streamed its header and steps
to the server's hub through the tournament's `LiveStreamer`, and the store says it is running) and
the others are scheduled. The drones tournament also fixes the seats' `player_seeds` (a secret
config key, GD-4) and has one match finished, whose replay is public while its siblings still share
that config.

A crawler (`secret_crawler`) reads every route, page and live stream as a spectator, as a client
posing with a wrong organizer key and as a live-token holder, and tries every number it read: as a
seat's own seed, as the match seed and as the tournament seed (through `match_seed`). Each try
first rebuilds the seats' bot seeds (`<game>.bot.<seat>`, hidden from the other seats in every
game); one that matches rebuilds the whole match with the game's engine (every seat's start
payload and the first keyframe), compared with the real one. Nothing may be rebuilt. The same
crawl with the organizer key rebuilds every match (the control: the crawl finds a seed where one
is shown).
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import gzip
import json
import secrets
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest

from botarena.bots.resolve import TRUSTED, resolve_bot
from botarena.core.game import GameInfo
from botarena.core.registry import all_games
from botarena.core.rng import bot_seed
from botarena.runner.match import run_match
from botarena.server.app import live_key
from botarena.server.live import LiveHub
from botarena.store import Store
from botarena.tournament.executor import LiveStreamer
from botarena.tournament.formats import make_format, match_seed
from botarena.tournament.service import Entrant, TournamentPlan, create_tournament

from .conftest import LIVE_TOKEN, Server, get
from .secret_crawler import Crawl, Crawler, Reader

ORGANIZER_KEY = "organizer-key-of-the-serve-test"
PLAYED_STEPS = 2
SPECTATOR = Reader("spectator")
POSING = Reader("posing as the organizer", {"X-Organizer-Key": "organizer-key-of-the-serve-tesT"})
WORKER = Reader("a live-token holder", {"Authorization": f"Bearer {LIVE_TOKEN}"})
ORGANIZER = Reader("organizer", {"X-Organizer-Key": ORGANIZER_KEY})


class Paused(Exception):
    """Stops the runner: the match stays running for the crawl."""


@dataclass
class Secret:
    """A match not over, and what the rules hide of it."""

    game: GameInfo
    key: str
    seed: int
    config: Any
    names: list[str]

    def hidden(self, seed: int) -> Any:
        """The match built from `seed`: every seat's start payload (its bot seed and what only it
        is told) and the whole state at step 0."""
        engine = self.game.new_engine(self.config, seed, len(self.names))
        engine.set_player_names(list(self.names))
        return [r.payload for r in engine.start_requests()], engine.keyframe()


@functools.lru_cache(maxsize=100_000)
def first_seat_seed(seed: int, game: str) -> int:
    """Seat 0's bot seed in a match of `game` seeded `seed` (hidden from every other seat)."""
    return bot_seed(seed, game, 0)


def rebuilt(crawl: Crawl, secrets_: list[Secret]) -> list[str]:
    """Every way a candidate rebuilds something the rules hide, with where it was read.

    A candidate as a match seed first rebuilds seat 0's bot seed (0.1 ms); only one that gets it
    right is worth building the whole match from (up to 35 ms), compared with the real one."""
    found: list[str] = []
    for secret in secrets_:
        truth = secret.hidden(secret.seed)
        own = {p[name] for p in truth[0] for name in ("bot_seed", "playerSeed") if name in p}
        seat = first_seat_seed(secret.seed, secret.game.id)
        for candidate in sorted(crawl.candidates):
            where = f"{secret.game.id} {secret.key}: {candidate}, read at {'; '.join(crawl.seen[candidate])}"
            if candidate in own:
                found.append(f"{where}: a seat's own seed")
            for how, seed in (
                ("the match seed", candidate),
                ("the tournament seed", match_seed(candidate, secret.key)),
            ):
                if first_seat_seed(seed, secret.game.id) == seat and secret.hidden(seed) == truth:
                    found.append(f"{where}: {how}")
    return found


def play_partly(
    game: GameInfo, tournament_id: int, spec: Any, config: Any, hub: LiveHub, steps: int | None
) -> Any:
    """Play `spec` with the real runner and starter bots, streaming it to `hub` as a tournament
    worker does, and stop after `steps` steps (None: play it to the end); returns its replay."""
    bots = [resolve_bot(name, game, isolation=TRUSTED) for name in spec.seats]
    key = live_key(tournament_id, spec.key)
    streamer = LiveStreamer(key, hub.publish, tournament_id=tournament_id, match=spec.key)

    def step(index: int, record: Any, engine: Any) -> None:
        if steps is not None and index >= steps:
            raise Paused

    run: dict[str, Any] = {}

    def play() -> None:  # (in a thread: in-process bots are preempted by a timer signal for threads)
        with contextlib.suppress(Paused):
            run["run"] = run_match(
                game,
                bots,
                config=config,
                seed=spec.seed,
                match_id=f"t{tournament_id}-{spec.key}",
                on_begin=streamer.begin,
                on_step=step,
            )

    thread = threading.Thread(target=play)
    thread.start()
    thread.join(120)
    assert streamer.replay is not None and not thread.is_alive()
    replay = streamer.replay
    if "run" in run:
        return run["run"].replay
    hub.publish({"type": "steps", "key": key, "first": 0, "steps": replay.steps})  # (as its flush does)
    return replay


def tournament_of(store: Store, hub: LiveHub, game: GameInfo) -> list[Secret]:
    """A tournament of `game`'s starter bots with a secret seed: a match running, others scheduled
    (drones: its seats' player_seeds fixed, and a match finished)."""
    players = game.demo.players or max(2, game.min_players)
    names = sorted(game.starter_bots)[:players]
    overrides = dict(game.test_overrides)
    if game.id == "drones":
        overrides["player_seeds"] = [secrets.randbelow(2**32), secrets.randbelow(2**32)]
    plan = TournamentPlan(
        name=f"secret-{game.id}",
        game=game.id,
        format="round-robin",
        entrants=[Entrant(n, n) for n in names],
        seed=secrets.randbelow(2**63),
        overrides=overrides,
        options={"cycles": 2} if players == 2 else {},
        players=players,
    )
    row = create_tournament(store, plan, isolation=TRUSTED)
    store.set_tournament_status(row.id, "running")
    specs = make_format("round-robin", names, seed=plan.seed, players=players, options=plan.options).schedule(
        [], {}
    )
    store.add_matches(row.id, specs)
    config = game.config("default", overrides)
    running, *others = specs
    store.mark_running(row.id, running.key)
    play_partly(game, row.id, running, config, hub, PLAYED_STEPS)
    if game.id == "drones":  # a sibling finished: its replay is public, the shared config's secret not
        done, *others = others
        replay = play_partly(game, row.id, done, config, LiveHub(), None)
        store.record_result(
            row.id,
            done.key,
            ranks=replay.result["ranks"],
            scores=replay.result["scores"],
            statuses=replay.statuses,
            time_used_ms=replay.time_used_ms,
            steps=len(replay.steps),
            duration_s=0.1,
            replay_gz=gzip.compress(replay.dumps()),
        )
    return [Secret(game, spec.key, spec.seed, config, list(spec.seats)) for spec in [running, *others]]


@pytest.fixture(scope="module")
def arena(tmp_path_factory: pytest.TempPathFactory) -> Any:
    root = tmp_path_factory.mktemp("secrets")
    store = Store.open(f"sqlite:///{root / 'arena.db'}", replay_dir=root / "replays")
    hub = LiveHub()
    matches = [secret for game in all_games() for secret in tournament_of(store, hub, game)]
    yield store, hub, matches
    store.close()


def test_a_running_tournament_match_is_rebuilt_from_nothing_a_spectator_reads(
    arena: Any, start_server: Callable[..., Server]
) -> None:
    store, hub, matches = arena
    server = start_server(store, hub, live_token=LIVE_TOKEN, organizer_key=ORGANIZER_KEY)
    assert {m.game.id for m in matches} == {g.id for g in all_games()}
    public = Crawler(server.app, server.url, [SPECTATOR, POSING, WORKER]).crawl()
    read = [where for _, where, status in public.replies if status == 200]
    assert len([w for w in read if w.endswith("/events")]) == 3 * len(all_games())  # each live stream
    assert len([w for w in read if w.endswith("/replay")]) == 3  # the finished drones match's, by each
    assert rebuilt(public, matches) == []

    # the control: with the organizer key the same crawl rebuilds every match from the seeds it reads
    organizer = Crawler(server.app, server.url, [ORGANIZER]).crawl()
    found = rebuilt(organizer, matches)
    for secret in matches:
        assert any(f"{secret.game.id} {secret.key}:" in line for line in found), secret.key


class RunningAgain:
    """The store, except that its finished matches read as running: the replay of a match not over
    (a partial one would hold its seed)."""

    def __init__(self, store: Store) -> None:
        self._store = store

    def __getattr__(self, name: str) -> Any:
        return getattr(self._store, name)

    def get_match(self, match_id: int) -> Any:
        row = self._store.get_match(match_id)
        return None if row is None else dataclasses.replace(row, status="running")


def test_the_replay_of_a_match_not_over_is_the_organizers_only(
    arena: Any, start_server: Callable[..., Server]
) -> None:
    store, _, _ = arena
    (drones,) = [t for t in store.list_tournaments("drones")]
    (done,) = store.list_matches(drones.id, status="finished")
    server = start_server(RunningAgain(store), organizer_key=ORGANIZER_KEY)
    path = f"{server.url}/api/matches/{done.id}/replay"
    for headers in ({}, POSING.headers):
        status, _, body = get(path, headers=dict(headers))
        assert status == 404 and b"it is running" in body
    status, _, body = get(path, headers=dict(ORGANIZER.headers))
    assert status == 200 and json.loads(gzip.decompress(body))["seed"] == done.seed
