"""The arena's reads that scale (specs/arena.md, G5 and *Routes*): the leaderboard, a team's pairs and the
match list's team/version filters answer from counters and seat links (store/arena_reads.py), never by
reading the competition's match history; the counters equal a recount of that history, follow a
void, and migration 0005 builds them for a store that 0004 filled. SQLite and PostgreSQL."""

from __future__ import annotations

import re
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest
from alembic import command
from sqlalchemy import create_engine, event, select

from botarena.arena.competitions import new_token
from botarena.store.arena_reads import outcome, rebuild_records, record_pair_results
from botarena.store.arena_versions import seat_name
from botarena.store.engine import _alembic_config
from botarena.store.models import MatchVersion, PairRecord, VersionRecord
from waiting import WAIT_S

from .conftest import ArenaApp
from .forms import bot_source, bump_epoch, move_version, play_match

HISTORY = re.compile(r"\b(matches|match_players|rating_history)\b", re.IGNORECASE)


@dataclass
class Ladder:
    app: ArenaApp
    competition: Any
    organizer: Any
    teams: dict[str, Any]
    tokens: dict[str, Any]
    versions: dict[str, int]
    matches: dict[str, int]

    def get(self, url: str, who: str | None = None) -> Any:
        answer = self.app.call("GET", url, None if who is None else self.tokens[who])
        assert answer.status == 200, answer.text
        return answer.json()


def _active(app: ArenaApp, competition: Any, name: str) -> tuple[Any, Any, int]:
    team, token = app.team(competition.id, name)
    made = app.upload(competition.id, team.id, token, bot_source(name)).json()
    move_version(app.store, made["id"], "ready")
    url = f"/api/competitions/{competition.id}/teams/{team.id}/versions/{made['id']}/activate"
    assert app.call("POST", url, token).status == 200
    return team, token, int(made["id"])


@pytest.fixture
def ladder(arena_db_app: ArenaApp) -> Iterator[Ladder]:
    app = arena_db_app
    competition, organizer = app.open_competition("reads")
    teams, tokens, versions = {}, {}, {}
    for name in ("alpha", "beta", "gamma"):
        teams[name], tokens[name], versions[name] = _active(app, competition, name)
    seat = {name: seat_name(v) for name, v in versions.items()}
    tid = competition.tournament_id
    matches = {
        "ab": play_match(app.store, tid, "ab", [seat["alpha"], seat["beta"]], [1, 2]),
        "bc": play_match(app.store, tid, "bc", [seat["beta"], seat["gamma"]], [1, 1]),
        "ca": play_match(app.store, tid, "ca", [seat["gamma"], seat["alpha"]], [1, 2]),
        "ab2": play_match(app.store, tid, "ab2", [seat["beta"], seat["alpha"]], [2, 1]),
        "val": play_match(app.store, tid, "val", [seat["alpha"], "tactician"], [1, 2], kind="validation"),
    }
    yield Ladder(app, competition, organizer, teams, tokens, versions, matches)


class Statements:
    """The SQL the store's engine runs while the block is open."""

    def __init__(self, app: ArenaApp) -> None:
        with app.store.read_session("test") as session:
            self.engine = session.get_bind().engine  # type: ignore[union-attr]
        self.seen: list[str] = []

    def _record(self, conn: Any, cursor: Any, statement: str, *args: Any) -> None:
        self.seen.append(statement)

    def __enter__(self) -> Statements:
        event.listen(self.engine, "before_cursor_execute", self._record)
        return self

    def __exit__(self, *exc: object) -> None:
        event.remove(self.engine, "before_cursor_execute", self._record)


def _wdl(row: dict[str, Any]) -> tuple[int, int, int]:
    return row["wins"], row["draws"], row["losses"]


def test_g5_leaderboard_miss_reads_counters_not_the_match_history(ladder: Ladder) -> None:
    bump_epoch(ladder.app.store, ladder.competition.id)  # a new epoch: the page is built again
    with Statements(ladder.app) as sql:
        board = ladder.get(f"/api/competitions/{ladder.competition.id}/leaderboard")
    assert sql.seen and not [s for s in sql.seen if HISTORY.search(s)]
    rows = {row["team"]: _wdl(row) for row in board["rows"]}
    # alpha beat beta twice and lost to gamma; beta drew gamma; the validation match does not count
    assert rows == {"alpha": (2, 0, 1), "beta": (0, 1, 2), "gamma": (1, 1, 0)}


def test_g5_every_page_of_one_epoch_shares_one_ranking_read(ladder: Ladder) -> None:
    url = f"/api/competitions/{ladder.competition.id}/leaderboard"
    bump_epoch(ladder.app.store, ladder.competition.id)
    ladder.get(f"{url}?offset=0&limit=1")
    with Statements(ladder.app) as sql:
        second = ladder.get(f"{url}?offset=1&limit=1")
    assert not [s for s in sql.seen if "ratings_current" in s]  # the epoch's ranking was kept
    assert second["rows"][0]["rank"] == 2 and second["total"] == 3


def test_g5_pairs_read_the_teams_counters_not_the_match_history(ladder: Ladder) -> None:
    url = f"/api/competitions/{ladder.competition.id}/teams/{ladder.teams['alpha'].id}/pairs"
    with Statements(ladder.app) as sql:
        pairs = ladder.get(url)
    assert not [s for s in sql.seen if HISTORY.search(s)]
    assert {row["team"]: (row["games"], *_wdl(row)) for row in pairs["opponents"]} == {
        "beta": (2, 2, 0, 0),
        "gamma": (1, 0, 0, 1),
    }


def test_g5_team_and_version_filters_follow_seat_links_not_seat_text(ladder: Ladder) -> None:
    url = f"/api/competitions/{ladder.competition.id}/matches"
    m = ladder.matches
    with Statements(ladder.app) as sql:
        team = ladder.get(f"{url}?team={ladder.teams['alpha'].id}")
        version = ladder.get(f"{url}?version={ladder.versions['gamma']}&limit=1")
    assert not [s for s in sql.seen if " LIKE " in s.upper()]
    assert any("match_versions" in s for s in sql.seen)
    assert [x["id"] for x in team["matches"]] == [m["val"], m["ab2"], m["ca"], m["ab"]]
    assert [x["id"] for x in version["matches"]] == [m["ca"]] and version["next_before"] == m["ca"]
    rest = ladder.get(f"{url}?version={ladder.versions['gamma']}&before={m['ca']}")
    assert [x["id"] for x in rest["matches"]] == [m["bc"]] and rest["next_before"] is None


def test_g5_a_team_filter_never_lists_another_competitions_matches(ladder: Ladder) -> None:
    app = ladder.app
    other, _ = app.open_competition("elsewhere")
    _, _, rival = _active(app, other, "delta")
    seats = [seat_name(ladder.versions["alpha"]), seat_name(rival)]  # a forged cross-competition seat
    stray = play_match(app.store, other.tournament_id, "stray", seats, None)
    listed = ladder.get(f"/api/competitions/{ladder.competition.id}/matches?team={ladder.teams['alpha'].id}")
    assert stray not in [x["id"] for x in listed["matches"]]


def _counters(app: ArenaApp) -> tuple[dict[int, tuple[int, ...]], dict[tuple[int, int], tuple[int, ...]]]:
    with app.store.read_session("test") as session:
        versions = {
            r.version_id: (r.games, r.wins, r.draws, r.losses) for r in session.scalars(select(VersionRecord))
        }
        pairs = {
            (r.team_id, r.opponent_id): (r.games, r.wins, r.draws, r.losses)
            for r in session.scalars(select(PairRecord))
        }
    return versions, pairs


def test_g5_counters_equal_a_recount_of_the_history(ladder: Ladder) -> None:
    counted = _counters(ladder.app)
    with ladder.app.store.write_session("test") as session:
        rebuild_records(session, ladder.competition.id)
    assert _counters(ladder.app) == counted
    assert counted[0][ladder.versions["alpha"]] == (3, 2, 0, 1)


def test_g5_a_void_takes_the_result_out_of_wdl_and_pairs(ladder: Ladder) -> None:
    app, cid = ladder.app, ladder.competition.id
    void = app.call(
        "POST", f"/api/matches/{ladder.matches['ab']}/void", ladder.organizer, json={"reason": "x"}
    )
    assert void.status == 200, void.text
    rows = {r["team"]: _wdl(r) for r in ladder.get(f"/api/competitions/{cid}/leaderboard")["rows"]}
    assert rows["alpha"] == (1, 0, 1) and rows["beta"] == (0, 1, 1)
    again = app.call(
        "POST", f"/api/matches/{ladder.matches['ab']}/void", ladder.organizer, json={"reason": "x"}
    )
    assert again.json()["changed"] is False  # a second void takes nothing out twice
    counted = _counters(app)
    with app.store.write_session("test") as session:
        rebuild_records(session, cid)  # the recount leaves the voided match out as well
    assert _counters(app) == counted


def test_g5_outcomes_of_a_result_and_a_result_that_does_not_fit_is_refused() -> None:
    assert [outcome(r, [1, 1, 3]) for r in (1, 1, 3)] == [0, 0, -1]
    assert [outcome(r, [2, 1]) for r in (2, 1)] == [-1, 1]
    with pytest.raises(ValueError, match="2 ranks for 3 seats"):
        record_pair_results(None, [1, 2, 3], [1, 2])  # type: ignore[arg-type]


def test_g5_migration_0005_links_and_counts_what_0004_holds(ladder: Ladder) -> None:
    app = ladder.app
    counted = _counters(app)
    with app.store.read_session("test") as session:
        links = sorted((r.match_id, r.seat, r.version_id) for r in session.scalars(select(MatchVersion)))
    engine = create_engine(app.store.connect_url)
    try:
        with engine.begin() as conn:
            command.downgrade(_alembic_config(conn), "0004")
        with engine.begin() as conn:
            command.upgrade(_alembic_config(conn), "head")
    finally:
        engine.dispose()
    assert _counters(app) == counted
    with app.store.read_session("test") as session:
        again = sorted((r.match_id, r.seat, r.version_id) for r in session.scalars(select(MatchVersion)))
    assert again == links and len(links) == 9  # four rated matches of two seats, one validation seat


def test_g5_a_teams_versions_read_their_validation_matches_at_once(ladder: Ladder) -> None:
    app, cid = ladder.app, ladder.competition.id
    team, token = ladder.teams["alpha"], ladder.tokens["alpha"]
    made = [app.upload(cid, team.id, token, bot_source(f"alpha-{n}")).json()["id"] for n in (2, 3)]
    tid = ladder.competition.tournament_id
    later = play_match(app.store, tid, "val2", ["tactician", seat_name(made[1])], [2, 1], kind="validation")
    with Statements(app) as sql:
        shown = ladder.get(f"/api/competitions/{cid}/teams/{team.id}/versions", "alpha")
    assert len([s for s in sql.seen if "match_versions" in s]) == 1  # one read, not one per version
    assert {v["id"]: v["validation_matches"] for v in shown} == {
        made[1]: [later],
        made[0]: [],
        ladder.versions["alpha"]: [ladder.matches["val"]],
    }


def test_g5_a_tokens_last_use_is_stamped_off_the_request_path(ladder: Ladder, monkeypatch: Any) -> None:
    app, cid = ladder.app, ladder.competition.id
    team = ladder.teams["gamma"]
    row, fresh = new_token(app.arena, cid, team.id, actor="test")  # not used yet: its first use stamps it
    called, released, stamped = threading.Event(), threading.Event(), threading.Event()
    real = app.arena.touch_token

    def slow_touch(kid: str, at: Any = None) -> None:  # a write stuck behind another writer's lock
        called.set()
        released.wait(WAIT_S)
        real(kid, at)
        stamped.set()

    monkeypatch.setattr(app.arena, "touch_token", slow_touch)
    answer = app.call("GET", f"/api/competitions/{cid}/teams/{team.id}/versions", fresh)
    assert answer.status == 200 and not stamped.is_set()  # answered while the stamp still waits
    assert called.wait(WAIT_S)
    released.set()
    assert stamped.wait(WAIT_S)
    assert app.arena.find_token(row.kid).last_used_at is not None  # type: ignore[union-attr]
