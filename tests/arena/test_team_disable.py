"""The organizer disables and enables a team (specs/arena.md, What the organizer can do: "add, import,
disable teams"): `POST /api/competitions/{cid}/teams/{tid}/disable|enable {reason}` (O). A disabled
team cannot upload, leaves the leaderboard, and every version of it playing or waiting is `disabled`
with reason code `team_disabled` (the coordinator stops scheduling a disabled version, as for the
organizer's disable of one version); enabling brings exactly those versions back, the active one
active again. Both are audited; the team itself, another team and another competition's organizer
get 404."""

from __future__ import annotations

from typing import Any

from botarena.store.arena_versions import ArenaVersions

from .conftest import ArenaApp
from .forms import bot_source, move_version


def _states(app: ArenaApp, team_id: int) -> dict[int, tuple[str, str | None]]:
    return {v.number: (v.state, v.reason_code) for v in ArenaVersions(app.arena).versions(team_id)}


def _board_teams(app: ArenaApp, competition_id: int) -> list[str]:
    answer = app.call("GET", f"/api/competitions/{competition_id}/leaderboard")
    assert answer.status == 200, answer.text
    return [row["team"] for row in answer.json()["rows"]]


def _team_with_versions(app: ArenaApp) -> tuple[Any, Any, Any, Any]:
    """An open competition; team alpha with version 1 active, 2 ready, 3 paused, 4 received."""
    competition, organizer = app.open_competition("cup")
    team, token = app.team(competition.id, "alpha")
    app.team(competition.id, "beta")
    made = [app.upload(competition.id, team.id, token, bot_source(f"v{n}")).json()["id"] for n in range(4)]
    move_version(app.store, made[0], "ready", validated_at=app.wall())
    url = f"/api/competitions/{competition.id}/teams/{team.id}/versions/{made[0]}/activate"
    assert app.call("POST", url, token).status == 200
    move_version(app.store, made[1], "ready", validated_at=app.wall())
    move_version(app.store, made[2], "paused", reason_code="crash_streak")
    return competition, organizer, team, token


def test_team_disable_takes_every_waiting_or_playing_version_out_and_enable_brings_them_back(
    arena_db_app: ArenaApp,
) -> None:
    app = arena_db_app
    competition, organizer, team, token = _team_with_versions(app)
    base = f"/api/competitions/{competition.id}/teams/{team.id}"
    assert "alpha" in _board_teams(app, competition.id)

    disabled = app.call("POST", f"{base}/disable", organizer, json={"reason": "shared code"})
    assert disabled.status == 200, disabled.text
    assert disabled.json()["disabled"] is True and disabled.json()["active_version"] is None
    assert _states(app, team.id) == {
        1: ("disabled", "team_disabled"),
        2: ("disabled", "team_disabled"),
        3: ("paused", "crash_streak"),  # a paused version stays paused
        4: ("disabled", "team_disabled"),
    }
    assert "alpha" not in _board_teams(app, competition.id)
    refused = app.upload(competition.id, team.id, token, bot_source("while disabled"))
    assert refused.status == 409 and "disabled" in refused.json()["detail"]
    again = app.call("POST", f"{base}/disable", organizer, json={"reason": "twice"})
    assert again.status == 409 and again.json()["code"] == "state"

    enabled = app.call("POST", f"{base}/enable", organizer, json={"reason": "cleared"})
    assert enabled.status == 200, enabled.text
    assert enabled.json()["disabled"] is False and enabled.json()["active_version"] == 1
    assert _states(app, team.id) == {
        1: ("active", None),
        2: ("ready", None),
        3: ("paused", "crash_streak"),
        4: ("received", None),
    }
    assert "alpha" in _board_teams(app, competition.id)
    assert app.upload(competition.id, team.id, token, bot_source("after")).status == 201
    assert app.call("POST", f"{base}/enable", organizer, json={"reason": "twice"}).status == 409
    entries = [(e.action, e.target, e.reason) for e in app.arena.audit(competition.id)]
    assert entries[:2] == [
        ("enable_team", f"team:{team.id}", "cleared"),
        ("disable_team", f"team:{team.id}", "shared code"),
    ]


def test_team_disable_a_version_the_organizer_disabled_stays_disabled_after_the_team_is_enabled(
    arena_app: ArenaApp,
) -> None:
    app = arena_app
    competition, organizer, team, _ = _team_with_versions(app)
    versions = ArenaVersions(app.arena).versions(team.id)
    ready = next(v for v in versions if v.number == 2)
    one = f"/api/competitions/{competition.id}/versions/{ready.id}/disable"
    assert app.call("POST", one, organizer, json={"reason": "this one cheats"}).status == 200
    base = f"/api/competitions/{competition.id}/teams/{team.id}"
    assert app.call("POST", f"{base}/disable", organizer, json={"reason": "a"}).status == 200
    assert app.call("POST", f"{base}/enable", organizer, json={"reason": "b"}).status == 200
    assert _states(app, team.id)[2] == ("disabled", "disabled")  # the organizer's own disable holds


def test_team_disable_by_anyone_but_its_organizer_is_refused_and_changes_nothing(
    arena_app: ArenaApp,
) -> None:
    app = arena_app
    competition, organizer, team, token = _team_with_versions(app)
    other_team, other_token = app.team(competition.id, "gamma")
    _, other_organizer = app.open_competition("elsewhere")
    base = f"/api/competitions/{competition.id}/teams/{team.id}"
    before = _states(app, team.id)
    for caller in (token, other_token, other_organizer):
        answer = app.call("POST", f"{base}/disable", caller, json={"reason": "not mine"})
        assert answer.status == 404, answer.text
    assert app.call("POST", f"{base}/disable", None, json={"reason": "anonymous"}).status == 401
    assert app.call("POST", f"{base}/disable", organizer, json={}).status == 422  # the reason is required
    unknown = app.call("POST", f"/api/competitions/{competition.id}/teams/99999/disable", organizer,
                       json={"reason": "x"})  # fmt: skip
    assert unknown.status == 404
    assert _states(app, team.id) == before
    assert app.arena.get_team(team.id).disabled is False  # type: ignore[union-attr]
    assert other_team.disabled is False
