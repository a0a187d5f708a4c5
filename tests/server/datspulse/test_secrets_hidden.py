"""A running DatsPulse round stays secret (issue 25, item 4; spec §4: the seed is hidden; DESIGN
principle 7): nothing a spectator or a team can read rebuilds its hidden map.

The attack of the issue: the public tournament and match JSON held the series seed and the running
round's seed, from which `Round.create` rebuilt the whole map (every hex beyond a team's view, every
enemy anthill) and the units' ids; the `delayed` spectators' header held the round seed too. Here a
crawler (`secret_crawler`) reads every route of the server while round 1 of a two-round final
series runs, as a spectator, as each team of the round, as a team outside it and as a team that
sends its own token as the organizer key; it reads the `delayed` public stream as well (delay 1, so
its header and steps are out). Every number it collects is tried as the round seed and as the
series seed (through the server's own derivation); none may rebuild the round.

The same crawler with the organizer key does rebuild it (the control: the crawl can find a seed
where one is shown). After round 1, its seed is public (its replay is), but no candidate, that
one included, gives round 2's seed; after the series, the series seed is public too.

The round is driven on a fake clock, each transition made to happen and recorded: no sleeps.
"""

from __future__ import annotations

import hashlib
import secrets
from collections.abc import Callable
from typing import Any

import pytest

from botarena.core.config import ConfigError
from botarena.core.rng import stream
from botarena.games.datspulse.engine import Round
from botarena.server.datspulse.series import LiveRound, round_seed
from botarena.store import Store

from ..secret_crawler import Crawl, Crawler, Reader
from .conftest import DpServer, make_settings

ORGANIZER_KEY = "organizer-key-for-the-crawler-01"
TURNS = 4
MAX_ROUND_SEED = 2**63 - 1
SPECTATOR = Reader("spectator")
TEAMS = [Reader(name, {"X-Auth-Token": f"tok-{name}"}) for name in ("alpha", "beta", "gamma")]
POSING = Reader(
    "alpha posing as the organizer", {"X-Auth-Token": "tok-alpha", "X-Organizer-Key": "tok-alpha"}
)
ORGANIZER = Reader("organizer", {"X-Organizer-Key": ORGANIZER_KEY})


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def settings(series_seed: int) -> Any:
    return make_settings(
        seed=series_seed,
        spectators={"mode": "delayed", "delay_turns": 1, "organizer_key": ORGANIZER_KEY},
        series="final",
        final_rounds=2,
        lobby_seconds=10.0,
        turns=TURNS,
        turn_seconds=2.0,
        break_seconds=5.0,
        rate_limit_per_second=1000,
        map_radius=12,
    )


def advance_to(server: DpServer, clock: Clock, instant: float) -> None:
    """Move the fake clock to `instant`, run what is due, record it and publish it."""
    series = server.series
    with series.lock:
        clock.now = instant
        series.advance(clock())
    series.record_steps()
    assert server.dp.recorder.flush()


def play_turn(server: DpServer, clock: Clock) -> None:
    live = server.series.current
    assert live is not None and live.round is not None
    advance_to(server, clock, live.due(live.round.turn_no + 1))


def map_draws(seed: int) -> list[int]:
    """The first draws of a round's `datspulse.map` stream (DP-95): the generator, the spots, the
    terrain and the first food all come from it."""
    return [int(x) for x in stream(seed, "datspulse.map").integers(0, 2**63, 4)]


def rebuilds(crawl: Crawl, live: LiveRound, config: Any) -> list[str]:
    """The candidates that rebuild `live`'s round at turn 0 (the whole map, every team's units and
    ids), as its seed or as the series seed, with where each was read.

    Each candidate first rebuilds the round's map stream (0.3 ms); one whose stream is the round's
    rebuilds the whole round with the public `Round.create` (17 ms), compared with the real one."""
    truth = Round.create(config, live.seed, list(live.teams), round_number=live.number)
    hidden = (truth.terrain(), truth.spectator_frame())
    draws = map_draws(live.seed)
    found: list[str] = []
    for candidate in sorted(crawl.candidates):
        for how, seed in (
            ("as the round seed", candidate),
            ("as the series seed", round_seed(candidate, live.number)),
        ):
            if seed > MAX_ROUND_SEED or map_draws(seed) != draws:
                continue
            try:
                rebuilt = Round.create(config, seed, list(live.teams), round_number=live.number)
            except ConfigError:  # (a seed whose map cannot be drawn rebuilds nothing)
                continue
            if (rebuilt.terrain(), rebuilt.spectator_frame()) == hidden:
                found.append(f"{candidate} {how}, read at {'; '.join(crawl.seen[candidate])}")
    return found


def crawler(server: DpServer, *readers: Reader) -> Crawler:
    return Crawler(server.server.config.app, server.url, readers)


# (FastAPI warns when the crawl reads /openapi.json: /api/register serves POST and PUT as one operation)
@pytest.mark.filterwarnings("ignore:Duplicate Operation ID")
def test_a_running_round_is_rebuilt_from_nothing_a_spectator_or_a_team_reads(
    start_dp: Callable[..., DpServer], store: Store
) -> None:
    series_seed = secrets.randbelow(MAX_ROUND_SEED)
    clock = Clock()
    server = start_dp(settings(series_seed), store, register=("alpha", "beta"), clock=clock)
    config = server.series.config
    first = server.series.current
    assert first is not None
    advance_to(server, clock, first.start_at)  # the lobby ends: round 1 starts
    play_turn(server, clock)
    play_turn(server, clock)  # (delay 1: the public header and step 1 are out)
    assert first.status.value == "running" and first.seed == round_seed(series_seed, 1)

    public = crawler(server, SPECTATOR, *TEAMS, POSING).crawl()
    statuses = {(reader, where): status for reader, where, status in public.replies}
    assert statuses[("alpha", "GET /api/arena")] == 200 and statuses[("beta", "GET /api/arena")] == 200
    assert statuses[("spectator", f"GET /api/live/datspulse/{first.name}/events")] == 200
    assert rebuilds(public, first, config) == []
    assert not {series_seed, first.seed} & public.candidates

    # the control: the same crawl with the organizer key finds the seeds and rebuilds the round
    organizer = crawler(server, ORGANIZER).crawl()
    assert len(rebuilds(organizer, first, config)) == 2  # the round seed, and the series seed

    while not first.round.finished:
        play_turn(server, clock)
    assert server.series.phase.value == "break"
    after_first = crawler(server, SPECTATOR, TEAMS[0]).crawl()
    assert first.seed in after_first.candidates  # a finished round's seed is public: its replay is
    assert series_seed not in after_first.candidates
    second_seed = round_seed(series_seed, 2)
    predicted = [c for c in after_first.candidates if round_seed(c, 2) == second_seed or c == second_seed]
    assert predicted == []  # nothing read after round 1 gives round 2's seed

    advance_to(server, clock, server.series.break_end)  # round 2's lobby
    with server.series.lock:
        for team in ("alpha", "beta"):
            server.series.register(team, clock())
    second = server.series.current
    assert second is not None and second.number == 2
    advance_to(server, clock, second.start_at)
    while not second.round.finished:
        play_turn(server, clock)
    advance_to(server, clock, server.series.break_end)  # the series is over
    assert server.series.phase.value == "idle"
    assert server.dp.recorder.flush()
    after_series = crawler(server, SPECTATOR).crawl()
    assert {series_seed, first.seed, second.seed} <= after_series.candidates


def test_round_seeds_are_a_one_way_hash_of_the_series_seed() -> None:
    """Round n's seed is 63 bits of SHA-256("datspulse.server.round/<series seed>/<n>"): one
    round's (public once it is over) says nothing of the series seed or of another round's."""
    series_seed = secrets.randbelow(2**64)
    seeds = [round_seed(series_seed, n) for n in range(1, 50)]
    digest = hashlib.sha256(f"datspulse.server.round/{series_seed}/7".encode()).digest()
    assert seeds[6] == int.from_bytes(digest[:8], "big") & MAX_ROUND_SEED
    assert len(set(seeds)) == len(seeds) and all(0 <= s <= MAX_ROUND_SEED for s in seeds)
    assert round_seed(series_seed + 1, 7) != seeds[6]
