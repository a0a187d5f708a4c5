"""The arena's `world` format played end to end on the games that need it (specs/arena.md, Scheduler:
"`world` format (N players: the Devops course, DatsPulse lockstep, 3-4 player games): one match with
every ready active version, or up to `players` of them by deficit").

Each test creates a world competition (`check_setup(..., world=True)`, what `botarena arena create
GAME --world --players K` does), uploads one bot per team packed as the upload route packs them
(tests/arena/arena_world.py `upload`: `check_upload`, `pack_upload`, `put_artifact`), and runs the
real coordinator (`ArenaCoordinator` over a process pool of 2, sealed matches). Then, from the store:
every version validated (its validation matches seat it with N - 1 starters), a rated world match
seated every version, that match's rating update wrote one `rating_history` row per seat in one
transaction (one epoch bump), `rerate` equals the stored state, and the world match's replay
re-runs identically (`runner.verify.verify_replay`). Every wait is on store state (tests/waiting.py).
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace
from functools import partial
from itertools import pairwise
from pathlib import Path
from typing import Any

import pytest

from botarena.arena.competitions import add_team, check_setup, create_competition, policy_of
from botarena.arena.coordinator import ArenaCoordinator, CoordinatorOptions
from botarena.arena.rating import MU0, SIGMA0
from botarena.arena.rerating import rebuild
from botarena.arena.validation import WORLD_VALIDATION_SEATS, validation_seats
from botarena.arena.vocabulary import Format
from botarena.core.registry import get_game
from botarena.store import Store
from botarena.store.arena import ArenaStore
from botarena.store.arena_runs import ArenaRunStore
from waiting import wait_until

from .arena_world import World
from .coordinating import running_coordinator

FAST = CoordinatorOptions(poll_s=0.05, heartbeat_s=0.5)
# Short games: what the tests claim is about seats, results and ratings, not about play.
DOMAINS: dict[str, Any] = {"number_of_rounds": 10, "board_height": 12, "board_width": 12}
# One validation game per version where the test is not about the validation's seat orders (the
# 3-team Domains test keeps the default, one game per seat): each game starts a sandboxed bot, and
# the file must stay fast on a loaded 2-core box.
ONE_VALIDATION: dict[str, Any] = {"validation_games": 1}


def starter_bot(game: str, name: str, marker: str) -> str:
    """An uploaded bot.py that plays as the game's starter `name` (through the Python kit, in the
    sandbox like any team's code); `marker` makes each team's bytes, so its version, its own."""
    return (
        f"# {marker}\n"
        f"from botarena.games.{game}.bots import STARTERS\n\n\n"
        f"def create_bot():\n"
        f"    return STARTERS[{name!r}]()\n"
    )


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    opened = Store.open(f"sqlite:///{tmp_path / 'arena.db'}", replay_dir=tmp_path / "replays")
    try:
        yield opened
    finally:
        opened.close()


@pytest.fixture
def db_store(db_url: str, tmp_path: Path) -> Iterator[Store]:
    """A store on the test's backend (`backend` parametrized by the test)."""
    opened = Store.open(db_url, replay_dir=tmp_path / "replays")
    try:
        yield opened
    finally:
        opened.close()


def open_game_world(
    store: Store, game: str, teams: int, *, players: int | None, config: dict[str, Any], **policy: Any
) -> World:
    """A `world` competition of `game` (phase open) with `teams` teams t0, t1, ... and no version."""
    arena = ArenaStore(store)
    setup = check_setup(game, players=players, world=True, config=config)
    competition, _ = create_competition(arena, f"{game}-world", setup, policy=policy, actor="test")
    made = [add_team(arena, competition.id, f"t{i}", actor="test")[0] for i in range(teams)]
    competition = arena.update_competition(competition.id, actor="test", phase="open")
    return World(store, arena, ArenaRunStore(store), competition, made)


@contextmanager
def coordinating(world: World, options: CoordinatorOptions = FAST) -> Iterator[ArenaCoordinator]:
    """The competition's coordinator in a thread over a process pool of 2, stopped at the end."""
    with running_coordinator(world.store, world.competition.id, options) as coordinator:
        yield coordinator


def states(world: World) -> dict[int, tuple[str, str | None, str | None]]:
    return {v.id: (v.state, v.reason_code, v.reason) for v in world.runs.versions(world.competition.id)}


def full_world_match(world: World, versions: list[int]) -> Any:
    """A finished rated world match that seated every one of `versions`, or None."""
    for match in world.runs.matches(world.competition.tournament_id, statuses=["finished"], kind="rated"):
        if sorted(match.versions.values()) == sorted(versions) and match.reason == "world":
            return match
    return None


def play_world(world: World, sources: list[str], options: CoordinatorOptions = FAST) -> tuple[list[int], Any]:
    """Upload `sources` (team i the i-th), run the coordinator until every version is active and a
    rated world match of all of them has finished; the versions and that match."""
    versions = [world.upload(team, source) for team, source in zip(world.teams, sources, strict=True)]
    with coordinating(world, options):
        wait_until(
            lambda: all(state[0] in ("active", "rejected") for state in states(world).values()),
            "every version judged",
            timeout=180,
        )
        assert all(state[0] == "active" for state in states(world).values()), states(world)
        match = wait_until(
            lambda: full_world_match(world, versions),
            "a rated world match of every version",
            timeout=180,
            seen=lambda: [
                (m.kind, m.status, m.versions) for m in world.runs.matches(world.competition.tournament_id)
            ],
        )
    return versions, match


def check_played(world: World, versions: list[int], match: Any) -> None:
    """What every world test claims once its match is played (see the module docstring)."""
    from botarena.runner.verify import verify_replay

    competition = world.competition
    least = get_game(competition.game).min_players
    seats = validation_seats(competition.players, Format(competition.format), least)
    validations = world.runs.matches(world.competition.tournament_id, kind="validation")
    for version in versions:
        own = [m for m in validations if version in m.versions.values()]
        assert own and all(m.status == "finished" for m in own), own
        # a validation match of an N-player game: the version and N - 1 starters, one game per seat
        assert all(len(m.seats) == seats and len(m.versions) == 1 for m in own)
        games = policy_of(competition).validation_games or seats
        assert len(own) == games
        assert sorted(seat for m in own for seat in m.versions) == list(range(games))
    # one rating write for the whole world match: a history row for each of its N seats, and the
    # stored ratings are those rows' "after"
    rows = [row for row in world.runs.rating_history(world.competition.id) if row[0] == match.id]
    assert sorted(row[1] for row in rows) == sorted(versions)
    current = world.runs.ratings(world.competition.id)
    history = world.runs.rating_history(world.competition.id)
    for version in versions:
        own_rows = [row for row in history if row[1] == version]
        assert own_rows[0][2:4] == (MU0, SIGMA0)  # a team's first version starts at the prior
        for before, after in pairwise(own_rows):
            assert after[2:4] == before[4:6]  # each rating write starts where the last one ended
        assert (current[version].mu, current[version].sigma) == own_rows[-1][4:6]
        assert current[version].games == len(own_rows)
    report = rebuild(world.store, world.competition.id)  # `arena rerate`
    assert report.equal, report.differing
    assert report.results >= 1
    row = world.store.get_match(match.id)
    assert row is not None and row.replay_hash
    replay = world.store.load_replay(row.replay_hash)
    assert len(replay.players) == len(versions)
    verified = verify_replay(replay)
    assert verified.identical, (verified.where, verified.detail)


# ------------------------------------------------------------------------------------- domains


@pytest.mark.timeout(300)
def test_world_domains_three_teams_in_one_rated_match(store: Store) -> None:
    """`--world --players 3`: each version validates in 3 games (one per seat) beside 2 starters,
    then all three play one rated world match."""
    world = open_game_world(store, "domains", 3, players=3, config=DOMAINS)
    sources = [starter_bot("domains", name, f"team {i}") for i, name in enumerate(["dummy", "demo", "dummy"])]
    versions, match = play_world(world, sources)
    check_played(world, versions, match)


@pytest.mark.timeout(300)
def test_world_domains_four_teams_in_one_rated_match(store: Store) -> None:
    """`--world` alone: up to the game's 4 players, all four teams in one rated match."""
    world = open_game_world(store, "domains", 4, players=None, config=DOMAINS, **ONE_VALIDATION)
    assert world.competition.players == 4
    sources = [starter_bot("domains", "dummy", f"team {i}") for i in range(4)]
    versions, match = play_world(world, sources)
    assert len(match.seats) == 4
    check_played(world, versions, match)


def world_matches(world: World) -> list[Any]:
    """The finished rated world matches, in the order they started."""
    found = world.runs.matches(world.competition.tournament_id, statuses=["finished"], kind="rated")
    return sorted((m for m in found if m.reason == "world"), key=lambda m: (m.started_at, m.id))


@pytest.mark.timeout(300)
def test_world_domains_up_to_players_by_deficit_balances_games(store: Store) -> None:
    """`--players 3` with 4 teams: each world match seats 3 versions of 3 teams, and once all four
    play, the one left out is always one with the most world games so far (deficit first), so the
    games per version stay balanced."""
    world = open_game_world(store, "domains", 4, players=3, config=DOMAINS, **ONE_VALIDATION)
    sources = [starter_bot("domains", "dummy", f"team {i}") for i in range(4)]
    versions = [world.upload(team, source) for team, source in zip(world.teams, sources, strict=True)]

    def all_active_since() -> Any:
        found = world.runs.versions(world.competition.id)
        times = [v.activated_at for v in found if v.state == "active" and v.activated_at is not None]
        return max(times) if len(times) == len(found) else None

    with coordinating(world):
        since = wait_until(all_active_since, "every version active", timeout=180, seen=lambda: states(world))
        wait_until(
            lambda: len([m for m in world_matches(world) if m.started_at >= since]) >= 3,
            "three world matches once the four versions are active",
            timeout=180,
        )
    games = dict.fromkeys(versions, 0)
    after = 0
    for match in world_matches(world):
        seated = sorted(match.versions.values())
        assert 2 <= len(seated) == len(match.seats) <= 3  # up to `players` (2 while only 2 were active)
        if match.started_at >= since:
            after += 1
            assert len(seated) == 3
            left_out = [v for v in versions if v not in seated]
            assert len(left_out) == 1
            assert games[left_out[0]] >= max(games[v] for v in seated), (games, seated)
        for version in seated:
            games[version] += 1
    assert after >= 3
    assert max(games.values()) - min(games.values()) <= max(1, len(world_matches(world)) - after)
    assert rebuild(world.store, world.competition.id).equal


# ----------------------------------------------------------------------------------- datspulse


@pytest.mark.timeout(300)
@pytest.mark.parametrize("backend", ["postgresql"])  # the other tests are on SQLite
def test_world_datspulse_lockstep_every_team_in_one_rated_match(db_store: Store) -> None:
    """`arena create datspulse --world` alone: a world of up to the game's 100 players, whose
    validation matches seat the version with WORLD_VALIDATION_SEATS - 1 starters (not 99); on
    PostgreSQL, the production store."""
    store = db_store
    config = {**get_game("datspulse").test_overrides, "mode": "lockstep"}
    world = open_game_world(store, "datspulse", 3, players=None, config=config, **ONE_VALIDATION)
    assert world.competition.players == get_game("datspulse").max_players
    assert validation_seats(100, Format.WORLD, 1) == WORLD_VALIDATION_SEATS
    sources = [starter_bot("datspulse", "forager", f"team {i}") for i in range(3)]
    versions, match = play_world(world, sources)
    check_played(world, versions, match)


# -------------------------------------------------------------------------------------- devops


@pytest.mark.timeout(300)
def test_world_devops_uploaded_factions_in_one_rated_match(store: Store) -> None:
    """Uploaded Devops factions (the Python kit over the generic protocol, sandboxed) in a world,
    paced as the course is (`turn_interval_ms`, DV-51): a match's timeout is counted from its pace,
    never from the coordinator's guess. Here the guess alone would time every match out at 0.4 s
    (40 x 0.01 s), under the 1 s the pace takes at the least (50 turns at 20 ms): every world match
    would be cancelled as overdue, replayed until given up, and the next one the same, forever."""
    config = {**get_game("devops").test_overrides, "turn_limit": 50, "turn_interval_ms": 20}
    policy = {**ONE_VALIDATION, "match_timeout_factor": 40}
    world = open_game_world(store, "devops", 3, players=3, config=config, **policy)
    sources = [
        starter_bot("devops", name, f"team {i}") for i, name in enumerate(["starter", "banker", "expander"])
    ]
    versions, match = play_world(world, sources, replace(FAST, expected_match_s=0.01))
    check_played(world, versions, match)
    assert all(m.attempts == 1 for m in world.runs.matches(world.competition.tournament_id))  # none overdue
    check_validated_on_smoke(world, kept={"turn_interval_ms": 20})


def check_validated_on_smoke(world: World, kept: dict[str, Any]) -> None:
    """specs/arena.md, Validation ("`validation_preset` (default the competition's preset; Devops
    `smoke`)"): every Devops validation match played the smoke map and turn limit laid over the
    competition's config, whose other keys (`kept`: its pace, its wire model) it kept; the rated
    matches played the competition's own config."""
    game = get_game("devops")
    smoke = dict(game.presets["smoke"])
    played = {"validation": 0, "rated": 0}
    for match in world.runs.matches(world.competition.tournament_id, statuses=["finished"]):
        row = world.store.get_match(match.id)
        assert row is not None and row.replay_hash
        config = world.store.load_replay(row.replay_hash).config
        if match.kind == "validation":
            assert {key: config[key] for key in smoke} == smoke, config
        else:
            assert config["turn_limit"] == world.competition.config["turn_limit"] != smoke["turn_limit"]
        assert {key: config[key] for key in kept} == kept, config
        played[match.kind] = played.get(match.kind, 0) + 1
    assert played["validation"] == len(world.teams) and played["rated"] >= 1, played


@contextmanager
def starter_services(logics: list[str], keys: list[str]) -> Iterator[list[str]]:
    """One Devops starter logic service (server/devops/starter_service.py) per logic, each secured by
    its key, on loopback ports; their base URLs. Stopped at the end."""
    import uvicorn

    from botarena.games.devops.bots import LOGICS
    from botarena.server.devops.starter_service import create_app as starter_app
    from botarena.server.viewer import bind_socket

    servers: list[tuple[Any, threading.Thread]] = []
    urls = []
    try:
        for logic, key in zip(logics, keys, strict=True):
            sock = bind_socket("127.0.0.1", 0)
            app = starter_app(LOGICS[logic](), secure_key=key)
            server = uvicorn.Server(uvicorn.Config(app, log_level="warning"))
            thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
            thread.start()
            servers.append((server, thread))
            urls.append(f"http://127.0.0.1:{sock.getsockname()[1]}")
        for server, _ in servers:
            wait_until(partial(getattr, server, "started"), "the starter service listening")
        yield urls
    finally:
        for server, thread in servers:
            server.should_exit = True
            thread.join(timeout=30)


@pytest.mark.timeout(300)
def test_world_devops_url_entries_of_the_course_in_one_rated_match(tmp_path: Path) -> None:
    """The Devops course: each team registers its logic service's URL and secure key through the
    route (policy allow_url, url_allow 127.0.0.0/8 for the classroom's loopback), the host calls the
    services with their keys, and one world match of the three plays, rates and re-runs."""
    from .conftest import open_arena_app

    app = open_arena_app(tmp_path)
    try:
        config = {**get_game("devops").test_overrides, "wire_model": "course-2024"}  # the course's own
        setup = check_setup("devops", players=3, world=True, config=config)
        policy = {"allow_url": True, "url_allow": ["127.0.0.0/8"], **ONE_VALIDATION}
        competition, organizer = create_competition(app.arena, "course", setup, policy=policy, actor="test")
        opened = app.call("PATCH", f"/api/competitions/{competition.id}", organizer, json={"phase": "open"})
        assert opened.status == 200, opened.text
        teams = [app.team(competition.id, f"group{i}") for i in range(3)]
        keys = [f"key-of-group-{i}" for i in range(3)]
        with starter_services(["starter", "banker", "expander"], keys) as urls:
            for (team, token), url, key in zip(teams, urls, keys, strict=True):
                answer = app.call(
                    "POST",
                    f"/api/competitions/{competition.id}/teams/{team.id}/versions",
                    token,
                    json={"url": url, "secure_key": key},
                )
                assert answer.status == 201, answer.text
                assert key not in answer.text  # write-only
            found = app.arena.get_competition(competition.id)
            assert found is not None
            world = World(app.store, app.arena, ArenaRunStore(app.store), found, [t for t, _ in teams])
            versions = [v.id for v in world.runs.versions(competition.id)]
            assert all(v.kind == "url" for v in world.runs.versions(competition.id))
            with coordinating(world):
                wait_until(
                    lambda: all(state[0] in ("active", "rejected") for state in states(world).values()),
                    "every URL entry judged",
                    timeout=180,
                )
                assert all(state[0] == "active" for state in states(world).values()), states(world)
                match = wait_until(
                    lambda: full_world_match(world, versions), "a rated world match of the three", timeout=180
                )
        check_played(world, versions, match)
        row = world.store.get_match(match.id)
        assert row is not None and row.replay_hash
        replay = world.store.load_replay(row.replay_hash)
        assert all(key.encode() not in replay.dumps() for key in keys)  # the keys never reach a replay
        check_validated_on_smoke(world, kept={"wire_model": "course-2024"})
    finally:
        app.client.close()
        app.store.close()
