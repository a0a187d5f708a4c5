"""The arena's store (specs/arena.md, Store) on SQLite and PostgreSQL: a competition owns its
tournament row, team and competition names are unique with a clear error, tokens are created,
found, touched and revoked, and every change writes its audit entry in the same transaction."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from types import SimpleNamespace

import pytest
from sqlalchemy import select

from botarena.store import Store
from botarena.store.arena import (
    ARENA_FORMAT,
    ArenaStore,
    CompetitionRow,
    NameTaken,
    NewToken,
    NoSuchCompetition,
    PhaseChangeRefused,
)
from botarena.store.models import Match


@pytest.fixture
def arena(db_url: str, tmp_path: Path) -> Iterator[ArenaStore]:
    store = Store.open(db_url, replay_dir=tmp_path / "replays")
    try:
        yield ArenaStore(store)
    finally:
        store.close()


def _token(kid: str) -> NewToken:
    return NewToken(kid, f"{kid:0<64}"[:64])


def _competition(arena: ArenaStore, name: str = "cup", kid: str = "org1") -> CompetitionRow:
    return arena.create_competition(
        name=name,
        game="drones",
        preset="default",
        config={"rounds": 5},
        players=2,
        format="pairs",
        phase="draft",
        policy={"uploads_per_hour": 6},
        seed=2**62,
        organizer=_token(kid),
        actor="cli",
    )


def test_store_a_competition_owns_its_arena_tournament_and_organizer_token(arena: ArenaStore) -> None:
    competition = _competition(arena)
    tournament = arena.store.get_tournament(competition.tournament_id)
    assert tournament is not None and tournament.format == ARENA_FORMAT and tournament.game == "drones"
    assert arena.get_competition(competition.id) == competition == arena.find_competition("cup")
    assert (competition.phase, competition.rating_epoch, competition.seed) == ("draft", 0, 2**62)
    (organizer,) = arena.tokens(competition.id)
    assert (organizer.kid, organizer.team_id, organizer.role) == ("org1", None, "organizer")
    assert [entry.action for entry in arena.audit(competition.id)] == ["create_competition"]


def test_store_a_taken_competition_name_is_a_clear_error_and_writes_nothing(arena: ArenaStore) -> None:
    _competition(arena)
    with pytest.raises(NameTaken, match="a competition named 'cup' exists already"):
        _competition(arena, kid="org2")
    assert len(arena.list_competitions()) == 1 and len(arena.store.list_tournaments()) == 1
    assert arena.find_token("org2") is None


def test_store_teams_get_a_bot_row_and_unique_names(arena: ArenaStore) -> None:
    competition = _competition(arena)
    other = _competition(arena, "other", "org2")
    alpha = arena.add_team(competition.id, "alpha", _token("t1"), actor="cli")
    twin = arena.add_team(other.id, "alpha", _token("t2"), actor="cli")  # another competition: fine
    assert alpha.bot_id != twin.bot_id and not alpha.disabled
    with pytest.raises(NameTaken, match="has a team named 'alpha' already"):
        arena.add_team(competition.id, "alpha", _token("t3"), actor="cli")
    assert [t.name for t in arena.teams(competition.id)] == ["alpha"]
    assert arena.get_team(alpha.id) == alpha
    with pytest.raises(NoSuchCompetition):
        arena.add_team(999, "beta", _token("t4"), actor="cli")


def test_store_add_teams_is_all_or_nothing(arena: ArenaStore) -> None:
    competition = _competition(arena)
    arena.add_team(competition.id, "gamma", _token("t0"), actor="cli")
    batch = [("alpha", _token("t1")), ("beta", _token("t2")), ("gamma", _token("t3"))]
    with pytest.raises(NameTaken, match="gamma"):
        arena.add_teams(competition.id, batch, actor="cli")
    assert [t.name for t in arena.teams(competition.id)] == ["gamma"]
    with pytest.raises(NameTaken, match="listed twice"):
        arena.add_teams(competition.id, [("x", _token("t4")), ("x", _token("t5"))], actor="cli")
    made = arena.add_teams(competition.id, batch[:2], actor="cli")
    assert [t.name for t in made] == ["alpha", "beta"]
    assert arena.counts([competition.id])[competition.id].teams == 3


def test_store_tokens_found_touched_and_revoked(arena: ArenaStore) -> None:
    competition = _competition(arena)
    team = arena.add_team(competition.id, "alpha", _token("t1"), actor="cli")
    second = arena.create_token(competition.id, team.id, _token("t2"), actor="team")
    assert (second.role, second.team_id, second.revoked_at) == ("team", team.id, None)
    at = datetime(2026, 12, 3, 12, 0, tzinfo=UTC)
    arena.touch_token("t2", at)
    found = arena.find_token("t2")
    assert found is not None and found.last_used_at == at
    revoked = arena.revoke_token("t2", actor="organizer")
    assert revoked is not None and revoked.revoked_at is not None
    again = arena.revoke_token("t2", actor="organizer")
    assert again is not None and again.revoked_at == revoked.revoked_at  # the first revocation stays
    assert arena.revoke_token("nope", actor="organizer") is None
    assert [t.kid for t in arena.tokens(competition.id, team.id)] == ["t1", "t2"]
    actions = [entry.action for entry in arena.audit(competition.id)]
    assert actions.count("revoke_token") == 1 and "create_token" in actions
    with pytest.raises(NameTaken):  # a key id is a primary key
        arena.create_token(competition.id, team.id, _token("t1"), actor="team")


def test_store_phase_change_and_its_audit_entry_share_one_transaction(arena: ArenaStore) -> None:
    competition = _competition(arena)
    changed = arena.update_competition(
        competition.id, actor="org", phase="open", phase_allowed=lambda c: c == "draft"
    )
    assert changed.phase == "open"
    with pytest.raises(PhaseChangeRefused, match="from open to draft"):
        arena.update_competition(competition.id, actor="org", phase="draft", phase_allowed=lambda c: False)
    assert arena.get_competition(competition.id).phase == "open"  # type: ignore[union-attr]
    actions = [entry.action for entry in arena.audit(competition.id)]
    assert actions == ["phase:draft->open", "create_competition"]


def test_store_a_policy_change_that_raises_writes_nothing(arena: ArenaStore) -> None:
    competition = _competition(arena)

    def refuse(current: dict[str, object]) -> dict[str, object]:
        raise ValueError("policy max_entries: bad")

    with pytest.raises(ValueError, match="max_entries"):
        arena.update_competition(competition.id, actor="org", phase="open", policy=refuse)
    assert arena.get_competition(competition.id) == competition
    assert len(arena.audit(competition.id)) == 1
    updated = arena.update_competition(competition.id, actor="org", policy=lambda p: {**p, "live": "open"})
    assert updated.policy == {"uploads_per_hour": 6, "live": "open"}
    assert arena.audit(competition.id)[0].action == "policy"


def test_store_counts_and_the_match_kind_default(arena: ArenaStore) -> None:
    competition = _competition(arena)
    arena.add_team(competition.id, "alpha", _token("t1"), actor="cli")
    spec = SimpleNamespace(key="m1", round=1, seats=["alpha", "alpha"], seed=3)
    assert arena.store.add_matches(competition.tournament_id, [spec]) == 1
    counts = arena.counts([competition.id, 12345])
    assert (
        counts[competition.id].teams,
        counts[competition.id].matches,
        counts[competition.id].versions,
    ) == (1, 1, 0)
    assert counts[12345].teams == 0
    with arena.store.read_session("read") as session:
        assert session.scalar(select(Match.kind)) == "rated"


def test_store_audit_pages_newest_first(arena: ArenaStore) -> None:
    competition = _competition(arena)
    for i in range(5):
        arena.add_audit(competition.id, "org", f"note{i}", "competition", reason="why")
    newest = arena.audit(competition.id, limit=2)
    assert [e.action for e in newest] == ["note4", "note3"]
    older = arena.audit(competition.id, limit=10, before=newest[-1].id)
    assert [e.action for e in older] == ["note2", "note1", "note0", "create_competition"]
