"""The organizer's reads of teams and tokens (specs/arena.md, "What the organizer can do": add,
import, disable teams; rotate or revoke any token): `GET /api/competitions/{cid}/teams` (O) and
`GET .../teams/{tid}/tokens` (the team itself, or its organizer). A token is shown by its key id and
dates: never its secret, never its hash. (Who may call them is also checked by the isolation matrix.)
"""

from __future__ import annotations

from .conftest import ArenaApp
from .forms import move_version


def test_organizer_lists_every_team_with_active_version_and_token_kids(arena_app: ArenaApp) -> None:
    competition, organizer = arena_app.open_competition("cup")
    alpha, alpha_token = arena_app.team(competition.id, "alpha")
    beta, beta_token = arena_app.team(competition.id, "beta")
    made = arena_app.upload(competition.id, alpha.id, alpha_token, b"print('alpha')\n")
    assert made.status == 201, made.text
    move_version(arena_app.store, made.json()["id"], "active")
    # alpha rotates: a second token, the first revoked
    base = f"/api/competitions/{competition.id}"
    second = arena_app.call("POST", f"{base}/teams/{alpha.id}/tokens", alpha_token).json()
    assert (
        arena_app.call("DELETE", f"{base}/teams/{alpha.id}/tokens/{alpha_token.kid}", organizer).status == 204
    )
    answer = arena_app.call("GET", f"{base}/teams", organizer)
    assert answer.status == 200, answer.text
    teams = answer.json()
    assert [(t["id"], t["name"], t["disabled"], t["active_version"]) for t in teams] == [
        (alpha.id, "alpha", False, 1),
        (beta.id, "beta", False, None),
    ]
    alpha_tokens = {t["kid"]: t for t in teams[0]["tokens"]}
    assert set(alpha_tokens) == {alpha_token.kid, second["kid"]}
    assert alpha_tokens[alpha_token.kid]["revoked_at"] is not None
    assert alpha_tokens[second["kid"]]["revoked_at"] is None
    assert [t["kid"] for t in teams[1]["tokens"]] == [beta_token.kid]
    # the organizer's own token is nobody's team's
    assert organizer.kid not in {t["kid"] for team in teams for t in team["tokens"]}
    # no secret, no hash: neither the issued tokens' texts nor the stored sha256s are anywhere in it
    hashes = {t.sha256 for t in arena_app.arena.tokens(competition.id)}
    for secret in {alpha_token.text, alpha_token.secret, beta_token.secret, second["token"], *hashes}:
        assert secret not in answer.text
    assert set(teams[0]["tokens"][0]) == {
        "kid", "competition_id", "team_id", "role", "created_at", "last_used_at", "revoked_at"
    }  # fmt: skip


def test_team_reads_its_own_tokens_and_a_revoked_one_shows_when(arena_app: ArenaApp) -> None:
    competition, organizer = arena_app.open_competition("cup")
    alpha, alpha_token = arena_app.team(competition.id, "alpha")
    _, beta_token = arena_app.team(competition.id, "beta")
    base = f"/api/competitions/{competition.id}/teams"
    second = arena_app.call("POST", f"{base}/{alpha.id}/tokens", organizer).json()
    arena_app.call("DELETE", f"{base}/{alpha.id}/tokens/{second['kid']}", organizer)
    for caller in (alpha_token, organizer):
        answer = arena_app.call("GET", f"{base}/{alpha.id}/tokens", caller)
        assert answer.status == 200, answer.text
        rows = {row["kid"]: row for row in answer.json()}
        assert set(rows) == {alpha_token.kid, second["kid"]}
        assert rows[second["kid"]]["revoked_at"] is not None and rows[alpha_token.kid]["revoked_at"] is None
        assert second["token"] not in answer.text and alpha_token.secret not in answer.text
    # another team: 404 (never 403), and it learns no key id
    refused = arena_app.call("GET", f"{base}/{alpha.id}/tokens", beta_token)
    assert refused.status == 404 and alpha_token.kid not in refused.text
    # a team never lists the teams (an organizer's read)
    assert arena_app.call("GET", base, beta_token).status == 404
    assert arena_app.call("GET", base).status == 401


def test_organizer_reads_refuse_unknown_and_foreign_ids_in_one_line(arena_app: ArenaApp) -> None:
    competition, organizer = arena_app.open_competition("cup")
    other, other_organizer = arena_app.open_competition("other cup")
    alpha, _ = arena_app.team(competition.id, "alpha")
    for url, token in (
        (f"/api/competitions/{other.id}/teams", organizer),
        (f"/api/competitions/{competition.id}/teams", other_organizer),
        (f"/api/competitions/{competition.id}/teams/{alpha.id + 1000}/tokens", organizer),
        (f"/api/competitions/{other.id}/teams/{alpha.id}/tokens", other_organizer),
    ):
        answer = arena_app.call("GET", url, token)
        assert answer.status == 404, (url, answer.text)
        assert "\n" not in answer.json()["detail"]
    bad = arena_app.call("GET", f"/api/competitions/{competition.id}/teams/abc/tokens", organizer)
    assert bad.status == 422 and "\n" not in bad.json()["detail"]
