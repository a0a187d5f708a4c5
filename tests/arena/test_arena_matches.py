"""An arena's matches and standings (specs/arena.md, Routes): the match list newest first with its
cursor and filters (a team's own TIMEOUT/CRASHED/INVALID), a match's seats (team, version number,
digest), its replay and logs per caller (G8: public replays carry no logs), the leaderboard cached
per rating epoch with W/D/L and provisional marks, a team's pairs, and the stats."""

from __future__ import annotations

import gzip
import json
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest

from botarena.store.arena_versions import seat_name

from .conftest import ArenaApp
from .forms import bot_source, bump_epoch, move_version, play_match, rate

ALPHA_LOG = "alpha-stderr-CANARY-55aa"
BETA_LOG = "beta-stderr-CANARY-66bb"


@dataclass
class League:
    app: ArenaApp
    competition: Any
    organizer: Any
    teams: dict[str, Any]
    tokens: dict[str, Any]
    versions: dict[str, int]
    matches: dict[str, int]

    def get(self, url: str, who: str | None = None, **kwargs: Any) -> Any:
        token = None if who is None else self.organizer if who == "org" else self.tokens[who]
        return self.app.call("GET", url, token, **kwargs)


def _active(app: ArenaApp, competition: Any, name: str) -> tuple[Any, Any, int]:
    team, token = app.team(competition.id, name)
    made = app.upload(competition.id, team.id, token, bot_source(name)).json()
    move_version(app.store, made["id"], "ready")
    url = f"/api/competitions/{competition.id}/teams/{team.id}/versions/{made['id']}/activate"
    assert app.call("POST", url, token).status == 200
    return team, token, int(made["id"])


@pytest.fixture
def league(arena_db_app: ArenaApp) -> Iterator[League]:
    app = arena_db_app
    competition, organizer = app.open_competition("league")
    teams, tokens, versions = {}, {}, {}
    for name in ("alpha", "beta", "gamma"):
        teams[name], tokens[name], versions[name] = _active(app, competition, name)
    seat = {name: seat_name(v) for name, v in versions.items()}
    tid = competition.tournament_id
    matches = {
        "m1": play_match(
            app.store, tid, "m1", [seat["alpha"], seat["beta"]], [1, 2], logs=[ALPHA_LOG, BETA_LOG]
        ),
        "m2": play_match(app.store, tid, "m2", [seat["beta"], seat["gamma"]], [1, 1]),
        "m3": play_match(
            app.store,
            tid,
            "m3",
            [seat["gamma"], seat["alpha"]],
            [1, 2],
            statuses=[{"OK": 7}, {"OK": 5, "TIMEOUT": 2}],
        ),
        "m4": play_match(app.store, tid, "m4", [seat["alpha"], "tactician"], [1, 2], kind="validation"),
        "m5": play_match(app.store, tid, "m5", [seat["alpha"], seat["beta"]], None),
    }
    yield League(app, competition, organizer, teams, tokens, versions, matches)


def _ids(answer: Any) -> list[int]:
    assert answer.status == 200, answer.text
    return [m["id"] for m in answer.json()["matches"]]


def test_routes_matches_newest_first_paged_by_cursor(league: League) -> None:
    url = f"/api/competitions/{league.competition.id}/matches"
    m = league.matches
    first = league.get(f"{url}?limit=2")
    assert _ids(first) == [m["m5"], m["m4"]] and first.json()["next_before"] == m["m4"]
    second = league.get(f"{url}?limit=2&before={m['m4']}")
    assert _ids(second) == [m["m3"], m["m2"]]
    last = league.get(f"{url}?limit=2&before={m['m2']}")
    assert _ids(last) == [m["m1"]] and last.json()["next_before"] is None
    assert league.get(f"{url}?limit=201").status == 422
    assert league.get(f"{url}?offset=2").status == 200  # (no offsets: an unknown query key is ignored)


def test_routes_matches_filters_team_version_kind_status(league: League) -> None:
    url = f"/api/competitions/{league.competition.id}/matches"
    m, teams = league.matches, league.teams
    assert _ids(league.get(f"{url}?team={teams['alpha'].id}")) == [m["m5"], m["m4"], m["m3"], m["m1"]]
    assert _ids(league.get(f"{url}?version={league.versions['gamma']}")) == [m["m3"], m["m2"]]
    assert _ids(league.get(f"{url}?kind=validation")) == [m["m4"]]
    assert _ids(league.get(f"{url}?status=scheduled")) == [m["m5"]]
    assert league.get(f"{url}?status=bogus").status == 422
    assert league.get(f"{url}?kind=bogus").status == 422


def test_routes_matches_own_status_is_the_teams_own_seats(league: League) -> None:
    url = f"/api/competitions/{league.competition.id}/matches?own_status=TIMEOUT,CRASHED"
    assert _ids(league.get(url, "alpha")) == [league.matches["m3"]]
    assert _ids(league.get(url, "gamma")) == []  # gamma's own seats were all OK in m3
    assert league.get(url).status == 401
    assert league.get(url, "org").status == 404
    assert league.get(url.replace("TIMEOUT,CRASHED", "LOST"), "alpha").status == 422


def test_routes_match_seats_show_team_version_and_digest(league: League) -> None:
    shown = league.get(f"/api/matches/{league.matches['m3']}").json()
    gamma, alpha = shown["seats"]
    assert (gamma["team"], gamma["version_number"], gamma["rank"]) == ("gamma", 1, 1)
    assert (
        alpha["team"] == "alpha"
        and len(alpha["digest"]) == 64
        and alpha["statuses"] == {"OK": 5, "TIMEOUT": 2}
    )
    assert shown["kind"] == "rated" and shown["game"] == "drones"
    validation = league.get(f"/api/matches/{league.matches['m4']}").json()
    assert validation["seats"][1] == {
        "seat": 1,
        "team_id": None,
        "team": None,
        "version_id": None,
        "starter": "tactician",
        "rank": 2,
        "score": -2.0,
        "statuses": {"OK": 10},
        "time_used_ms": 1.0,
        "failure": None,
    }
    scheduled = league.get(f"/api/matches/{league.matches['m5']}").json()
    assert scheduled["seed"] is None and scheduled["hidden"] == ["seed"]  # not over: no seed
    assert league.get(f"/api/matches/{league.matches['m5']}", "org").json()["seed"] == 7


def _replay(answer: Any) -> dict[str, Any]:
    assert answer.status == 200, answer.text
    return json.loads(gzip.decompress(answer.body))


def test_g8_arena_replay_logs_per_caller(league: League) -> None:
    url = f"/api/matches/{league.matches['m1']}/replay"
    public = league.get(url)
    assert (
        ALPHA_LOG not in gzip.decompress(public.body).decode()
        and BETA_LOG not in gzip.decompress(public.body).decode()
    )
    assert [entry.get("hidden") for entry in _replay(public)["logs"]] == [True, True]
    alpha = _replay(league.get(url, "alpha"))["logs"]
    assert alpha[0]["text"] == ALPHA_LOG and alpha[1]["hidden"] and BETA_LOG not in json.dumps(alpha)
    gamma = _replay(league.get(url, "gamma"))["logs"]  # not in the match: nothing of either
    assert all(entry["hidden"] for entry in gamma)
    assert [e["text"] for e in _replay(league.get(url, "org"))["logs"]] == [ALPHA_LOG, BETA_LOG]
    assert league.get(f"/api/matches/{league.matches['m5']}/replay").status == 404  # not played


def test_g8_arena_seat_logs_to_that_seat_and_the_organizer(league: League) -> None:
    base = f"/api/matches/{league.matches['m1']}/logs"
    assert league.get(f"{base}/0", "alpha").text == ALPHA_LOG
    assert league.get(f"{base}/1", "alpha").status == 404
    assert league.get(f"{base}/0", "beta").status == 404
    assert league.get(f"{base}/1", "beta").text == BETA_LOG
    assert league.get(f"{base}/0").status == 401
    assert league.get(f"{base}/1", "org").text == BETA_LOG
    assert league.get(f"{base}/5", "org").status == 404


def test_g8_a_tournament_list_of_arena_matches_holds_no_error_text(league: League) -> None:
    league.app.store.mark_running(league.competition.tournament_id, "m5")
    league.app.store.record_failure(league.competition.tournament_id, "m5", f"bot said {ALPHA_LOG}")
    listed = league.get(f"/api/tournaments/{league.competition.tournament_id}/matches")
    assert listed.status == 200 and ALPHA_LOG not in listed.text
    assert ALPHA_LOG not in league.get(f"/api/matches/{league.matches['m5']}").text
    assert ALPHA_LOG in league.get(f"/api/matches/{league.matches['m5']}", "org").text


def test_routes_leaderboard_ranks_wdl_and_the_prior_until_rated(league: League) -> None:
    url = f"/api/competitions/{league.competition.id}/leaderboard"
    unrated = league.get(url).json()
    assert [row["mu"] for row in unrated["rows"]] == [25.0, 25.0, 25.0]
    assert all(row["provisional"] for row in unrated["rows"])
    rate(league.app.store, league.versions["alpha"], 30.0, 1.0, 40)
    rate(league.app.store, league.versions["beta"], 20.0, 2.0, 40)
    rate(league.app.store, league.versions["gamma"], 27.0, 1.5, 3)
    bump_epoch(league.app.store, league.competition.id)
    rows = league.get(url).json()["rows"]
    assert [(r["rank"], r["team"]) for r in rows] == [(1, "alpha"), (2, "gamma"), (3, "beta")]
    alpha, gamma, beta = rows
    assert (alpha["wins"], alpha["draws"], alpha["losses"], alpha["games"]) == (1, 0, 1, 40)
    assert (beta["wins"], beta["draws"], beta["losses"]) == (0, 1, 1)
    assert alpha["ordinal"] == pytest.approx(27.0) and not alpha["provisional"] and gamma["provisional"]
    page = league.get(f"{url}?offset=1&limit=1").json()
    assert [r["team"] for r in page["rows"]] == ["gamma"] and page["rows"][0]["rank"] == 2
    assert league.get(f"{url}?limit=201").status == 422


def test_routes_leaderboard_is_cached_as_bytes_per_rating_epoch(league: League) -> None:
    url = f"/api/competitions/{league.competition.id}/leaderboard"
    before = league.get(url).body
    rate(league.app.store, league.versions["beta"], 40.0, 1.0, 50)  # a write without its epoch bump
    assert league.get(url).body == before  # the cached bytes
    bump_epoch(league.app.store, league.competition.id)
    after = league.get(url).json()
    assert after["rows"][0]["team"] == "beta" and after["epoch"] == 1


def test_routes_pairs_the_record_against_each_opponent(league: League) -> None:
    url = f"/api/competitions/{league.competition.id}/teams/{league.teams['alpha'].id}/pairs"
    found = {
        row["team"]: (row["wins"], row["draws"], row["losses"]) for row in league.get(url).json()["opponents"]
    }
    assert found == {"beta": (1, 0, 0), "gamma": (0, 0, 1)}
    beta = f"/api/competitions/{league.competition.id}/teams/{league.teams['beta'].id}/pairs"
    assert {r["team"]: r["draws"] for r in league.get(beta).json()["opponents"]} == {"alpha": 0, "gamma": 1}
    assert league.get(f"/api/competitions/{league.competition.id}/teams/999/pairs").status == 404


def test_routes_stats_in_flight_waiting_and_games_per_version(league: League) -> None:
    app = league.app
    app.store.mark_running(league.competition.tournament_id, "m5")
    queued = app.upload(
        league.competition.id, league.teams["gamma"].id, league.tokens["gamma"], bot_source("g2")
    )
    assert queued.status == 201
    app.wall.advance(90)
    stats = league.get(f"/api/competitions/{league.competition.id}/stats").json()
    assert stats["in_flight"] == {"rated": 1}
    assert stats["waiting_validations"] == 1 and stats["oldest_wait_s"] == pytest.approx(90.0)
    assert stats["games_last_hour"]["versions"] == 3 and stats["games_last_hour"]["p50"] == 2.0
