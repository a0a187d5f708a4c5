"""The arena's first routes (specs/arena.md, Routes): competitions, the organizer's PATCH with its
409 and 422, teams with their token once, /me, the audit log of every organizer action, and one-line
errors for bad input (never a 500)."""

from __future__ import annotations

from .conftest import ArenaApp


def test_routes_competitions_show_phase_game_preset_public_policy_and_counts(arena_app: ArenaApp) -> None:
    competition, _ = arena_app.competition("cup", invite_code="secret-invite-code", uploads_per_hour=3)
    arena_app.team(competition.id, "alpha")
    listed = arena_app.call("GET", "/api/competitions")
    assert listed.status == 200
    (shown,) = listed.json()
    assert shown == arena_app.call("GET", f"/api/competitions/{competition.id}").json()
    assert (shown["phase"], shown["game"], shown["preset"], shown["format"]) == (
        "draft",
        "drones",
        "default",
        "pairs",
    )
    assert shown["counts"] == {"teams": 1, "versions": 0, "matches": 0}
    assert shown["policy"]["uploads_per_hour"] == 3 and "invite_code" not in shown["policy"]
    assert "seed" not in shown and "secret-invite-code" not in listed.text


def test_routes_unknown_competition_is_404_and_bad_ids_are_422(arena_app: ArenaApp) -> None:
    assert arena_app.call("GET", "/api/competitions/77").json() == {"detail": "no competition 77"}
    for bad in ("0", "x", str(2**63)):
        answer = arena_app.call("GET", f"/api/competitions/{bad}")
        assert answer.status == 422 and "path cid" in answer.json()["detail"]


def test_routes_patch_phase_409_for_illegal_changes_and_force_reopens(arena_app: ArenaApp) -> None:
    competition, organizer = arena_app.competition("cup")
    url = f"/api/competitions/{competition.id}"
    for phase in ("open", "frozen"):
        assert arena_app.call("PATCH", url, organizer, json={"phase": phase}).json()["phase"] == phase
    refused = arena_app.call("PATCH", url, organizer, json={"phase": "open"})
    assert refused.status == 409
    assert refused.json() == {
        "detail": f"competition {competition.id} cannot go from frozen to open",
        "code": "illegal_phase_change",
    }
    forced = arena_app.call("PATCH", url, organizer, json={"phase": "open", "force": True})
    assert forced.status == 200 and forced.json()["phase"] == "open"
    actions = [entry.action for entry in arena_app.arena.audit(competition.id)]
    assert actions[:3] == ["phase:frozen->open", "phase:open->frozen", "phase:draft->open"]
    assert arena_app.arena.audit(competition.id)[0].reason == "forced"


def test_routes_patch_policy_422_names_the_field_and_changes_nothing(arena_app: ArenaApp) -> None:
    competition, organizer = arena_app.competition("cup")
    url = f"/api/competitions/{competition.id}"
    bad = arena_app.call("PATCH", url, organizer, json={"phase": "open", "policy": {"max_entries": 0}})
    assert bad.status == 422
    assert bad.json() == {
        "detail": "policy max_entries: Input should be greater than or equal to 1",
        "code": "bad_policy",
    }
    unknown = arena_app.call("PATCH", url, organizer, json={"policy": {"bogus": 1}})
    assert unknown.status == 422 and unknown.json()["detail"].startswith("policy bogus:")
    assert arena_app.arena.get_competition(competition.id) == competition  # the phase did not move either
    good = arena_app.call("PATCH", url, organizer, json={"policy": {"live": "open"}})
    assert good.status == 200 and good.json()["policy"]["live"] == "open"
    assert arena_app.arena.audit(competition.id)[0].action == "policy"


def test_routes_bad_bodies_are_one_line_422(arena_app: ArenaApp) -> None:
    competition, organizer = arena_app.competition("cup")
    url = f"/api/competitions/{competition.id}"
    cases = [
        ({"phase": "sideways"}, "body phase"),
        ({"nope": 1}, "body nope"),
        ({"policy": [1]}, "body policy"),
    ]
    for body, where in cases:
        answer = arena_app.call("PATCH", url, organizer, json=body)
        assert (
            answer.status == 422 and where in answer.json()["detail"] and "\n" not in answer.json()["detail"]
        )
    garbage = arena_app.call(
        "PATCH", url, organizer, body=b"{not json", headers={"content-type": "application/json"}
    )
    assert garbage.status == 422
    teams = f"{url}/teams"
    for body in ({"name": ""}, {"name": "x" * 101}, {"name": "tab\there"}, {}):
        answer = arena_app.call("POST", teams, organizer, json=body)
        assert answer.status == 422 and "\n" not in answer.json()["detail"], body


def test_routes_post_team_gives_its_token_once_and_409_for_a_taken_name(arena_app: ArenaApp) -> None:
    competition, organizer = arena_app.competition("cup")
    url = f"/api/competitions/{competition.id}/teams"
    made = arena_app.call("POST", url, organizer, json={"name": "  alpha "})
    assert made.status == 201
    team, token = made.json()["team"], made.json()["token"]
    assert team["name"] == "alpha" and token.startswith("ba_") and "bot_id" not in team
    me = arena_app.call("GET", "/api/me", token).json()
    assert (me["role"], me["team"]["id"], me["competition"]["id"]) == ("team", team["id"], competition.id)
    assert token not in arena_app.call("GET", "/api/me", token).text
    taken = arena_app.call("POST", url, organizer, json={"name": "alpha"})
    assert taken.status == 409 and taken.json()["code"] == "name_taken"
    assert arena_app.arena.audit(competition.id)[0].action == "add_team"


def test_routes_me_for_the_organizer_and_401_anonymous(arena_app: ArenaApp) -> None:
    _, organizer = arena_app.competition("cup")
    me = arena_app.call("GET", "/api/me", organizer).json()
    assert (me["role"], me["team"], me["kid"]) == ("organizer", None, organizer.kid)
    assert arena_app.call("GET", "/api/me").status == 401


def test_routes_every_organizer_action_is_audited_and_only_the_organizer_reads_it(
    arena_app: ArenaApp,
) -> None:
    competition, organizer = arena_app.competition("cup")
    team, team_token = arena_app.team(competition.id, "alpha")
    base = f"/api/competitions/{competition.id}"
    arena_app.call("PATCH", base, organizer, json={"phase": "open"})
    arena_app.call("PATCH", base, organizer, json={"policy": {"uploads_per_day": 10}})
    arena_app.call("POST", f"{base}/teams", organizer, json={"name": "beta"})
    made = arena_app.call("POST", f"{base}/teams/{team.id}/tokens", organizer).json()
    arena_app.call("DELETE", f"{base}/teams/{team.id}/tokens/{made['kid']}", organizer)
    log = arena_app.call("GET", f"{base}/audit", organizer)
    assert log.status == 200
    mine = [e["action"] for e in log.json() if e["actor"] == f"organizer:{organizer.kid}"]
    assert mine == ["revoke_token", "create_token", "add_team", "policy", "phase:draft->open"]
    assert arena_app.call("GET", f"{base}/audit", team_token).status == 404
    assert arena_app.call("GET", f"{base}/audit?limit=2", organizer).json()[0]["action"] == "revoke_token"
    assert arena_app.call("GET", f"{base}/audit?limit=0", organizer).status == 422


def test_routes_a_token_of_another_team_cannot_be_revoked_through_this_team(arena_app: ArenaApp) -> None:
    competition, organizer = arena_app.competition("cup")
    alpha, _ = arena_app.team(competition.id, "alpha")
    _, beta_token = arena_app.team(competition.id, "beta")
    url = f"/api/competitions/{competition.id}/teams/{alpha.id}/tokens/{beta_token.kid}"
    assert arena_app.call("DELETE", url, organizer).status == 404
    assert arena_app.call("GET", "/api/me", beta_token).status == 200
