"""`serve --demo`'s retention (`run_demo_cycles` with `keep`), on SQLite and PostgreSQL: the demo keeps
its last cycles and deletes the older demo tournaments, their matches and their replays, through the
store's own API; an organizer's tournaments in the same store (one of them named as a demo
tournament would be) are never touched; a viewer holding a deleted match gets a clear 404; a restart
never plays a deleted cycle again.

Tiny cycles: only rps (four starter bots, six short matches a cycle), played inline."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from botarena.bots.resolve import untrusted
from botarena.store import MatchRow, Store
from botarena.tournament.service import (
    DemoCycle,
    Entrant,
    TournamentPlan,
    create_tournament,
    demo_cycle_of,
    run_demo_cycles,
    run_tournament,
)

from .conftest import get_json

NO_SANDBOX = untrusted(sandbox=None)  # the starter bots play in-process: nothing to sandbox
RPS_MATCHES = 6  # a round robin of rps's four starters


@pytest.fixture
def store(db_url: str, tmp_path: Path) -> Any:
    """SQLite keeps its replays as files under tmp_path/replays, PostgreSQL in its database."""
    replays = tmp_path / "replays" if db_url.startswith("sqlite") else None
    store = Store.open(db_url, replay_dir=replays)
    yield store
    store.close()


def organizer_tournament(store: Store, name: str, starters: tuple[str, ...]) -> int:
    plan = TournamentPlan(name, "rps", "round-robin", [Entrant(s, s) for s in starters], seed=7)
    tournament = create_tournament(store, plan, isolation=NO_SANDBOX)
    assert run_tournament(store, tournament.id, isolation=NO_SANDBOX).status == "finished"
    return tournament.id


def replays_of(store: Store, tournament_id: int) -> set[str]:
    return {row.replay_hash for row in store.list_matches(tournament_id) if row.replay_hash}


def demo_names(store: Store) -> list[str]:
    return sorted(t.name for t in store.list_tournaments() if demo_cycle_of(t) is not None)


def test_the_demo_keeps_its_last_cycles_and_deletes_only_its_own(
    store: Store, tmp_path: Path, start_server: Any
) -> None:
    league = organizer_tournament(store, "league", ("rock", "cycler"))
    # an organizer's tournament named as the demo's cycle 2 would be: the demo leaves it (and that
    # cycle) alone instead of resuming or deleting it
    squatter = organizer_tournament(store, "demo-rps-2", ("rock", "copycat"))
    theirs = replays_of(store, league) | replays_of(store, squatter)
    assert len(theirs) == 2

    cycles: list[DemoCycle] = []
    first_cycle: list[MatchRow] = []

    def on_cycle(cycle: DemoCycle) -> None:
        cycles.append(cycle)
        if cycle.seed == 1:
            (tournament,) = [t for t in store.list_tournaments() if t.name == "demo-rps-1"]
            first_cycle.extend(store.list_matches(tournament.id))

    run_demo_cycles(
        store, seed=1, cycles=4, keep=2, workers=0, games=["rps"], isolation=NO_SANDBOX, on_cycle=on_cycle
    )
    assert [c.seed for c in cycles] == [1, 2, 3, 4]
    assert [c.played for c in cycles] == [RPS_MATCHES, 0, RPS_MATCHES, RPS_MATCHES]  # (2: the squatter's)
    # cycle 4 deletes cycle 1: the kept ones are 3 and 4 (2 holds no demo tournament)
    assert [c.deleted.tournaments for c in cycles] == [0, 0, 0, 1]
    assert (cycles[3].deleted.matches, cycles[3].deleted.replays) == (RPS_MATCHES, RPS_MATCHES)
    assert demo_names(store) == ["demo-rps-3", "demo-rps-4"]

    # in the store and where it keeps its replays (files for SQLite, rows for PostgreSQL): the
    # organizer's and the two kept cycles', nothing else
    kept = {t.id: t for t in store.list_tournaments()}
    assert {t.name for t in kept.values()} == {"league", "demo-rps-2", "demo-rps-3", "demo-rps-4"}
    expected = set().union(*(replays_of(store, tournament_id) for tournament_id in kept))
    assert len(expected) == 2 + 2 * RPS_MATCHES and theirs <= expected
    assert set(store.replays.digests()) == expected
    if store.dialect == "sqlite":
        assert len(list((tmp_path / "replays").rglob("*.json.gz"))) == len(expected)
    for tournament_id in (league, squatter):  # the organizer's results are whole
        counts = store.count_matches(tournament_id)
        assert counts["finished"] == 1 and sum(counts.values()) == 1
        assert store.ratings(tournament_id)
    for digest in theirs:
        assert store.read_replay(digest)

    # a viewer of a deleted match: 404 with one line, for the match, its replay and its tournament;
    # and one that read the match row just before the deletion finds its replay gone: 404, not 500
    assert len(first_cycle) == RPS_MATCHES
    gone = first_cycle[0]
    assert store.get_match(gone.id) is None and store.get_tournament(gone.tournament_id) is None
    server = start_server(store)
    for path in (
        f"/api/matches/{gone.id}",
        f"/api/matches/{gone.id}/replay",
        f"/api/tournaments/{gone.tournament_id}",
    ):
        status, body = get_json(server.url + path)
        assert status == 404 and body["detail"].startswith(("no match", "no tournament")), (path, body)
    real_get_match = store.get_match
    store.get_match = lambda match_id: gone if match_id == gone.id else real_get_match(match_id)  # type: ignore[method-assign]
    try:
        status, body = get_json(server.url + f"/api/matches/{gone.id}/replay")
    finally:
        store.get_match = real_get_match  # type: ignore[method-assign]
    assert status == 404 and "replay not found" in body["detail"], body

    # a restart from the first seed resumes where the demo was: cycle 4 is finished (skipped), 5 is
    # played and 3 deleted; cycle 1, deleted, is not played again
    again: list[DemoCycle] = []
    run_demo_cycles(
        store, seed=1, cycles=5, keep=2, workers=0, games=["rps"], isolation=NO_SANDBOX, on_cycle=again.append
    )
    assert [(c.seed, c.played, c.deleted.tournaments) for c in again] == [(4, 0, 0), (5, RPS_MATCHES, 1)]
    assert demo_names(store) == ["demo-rps-4", "demo-rps-5"]
    assert {t.name for t in store.list_tournaments()} >= {"league", "demo-rps-2"}
    assert theirs <= set(store.replays.digests())


def test_a_keep_below_one_is_refused(store: Store) -> None:
    with pytest.raises(ValueError, match="1 cycle or more"):
        run_demo_cycles(store, keep=0, workers=0, games=["rps"], isolation=NO_SANDBOX)
    assert store.list_tournaments() == []
