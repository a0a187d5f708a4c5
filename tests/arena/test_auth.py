"""Auth (specs/arena.md): bearer or session cookie, 401 for a bad token without echoing it, the
rate limits (a fake clock moves time), the session cookie's attributes, CSRF on cookie-signed
unsafe requests, and self-registration with the invite code."""

from __future__ import annotations

import logging

import pytest

from botarena.arena.tokens import issue
from botarena.server.arena.auth import FAILED_AUTH_LIMIT, REQUEST_LIMIT, SESSION_COOKIE

from .asgi import cookie_value
from .conftest import ArenaApp

INVITE = "let-me-in-please"


def test_auth_revoked_token_fails_at_the_next_request(arena_app: ArenaApp) -> None:
    competition, organizer = arena_app.competition("cup")
    team, token = arena_app.team(competition.id, "alpha")
    assert arena_app.call("GET", "/api/me", token).status == 200
    url = f"/api/competitions/{competition.id}/teams/{team.id}/tokens/{token.kid}"
    assert arena_app.call("DELETE", url, organizer).status == 204
    refused = arena_app.call("GET", "/api/me", token)
    assert refused.status == 401 and refused.json() == {"detail": "invalid, unknown or revoked token"}
    assert refused.headers["www-authenticate"] == "Bearer"
    audit = arena_app.arena.audit(competition.id)
    assert audit[0].action == "revoke_token" and token.kid in audit[0].target


def test_auth_a_team_rotates_its_own_token(arena_app: ArenaApp) -> None:
    competition, _ = arena_app.competition("cup")
    team, old = arena_app.team(competition.id, "alpha")
    made = arena_app.call("POST", f"/api/competitions/{competition.id}/teams/{team.id}/tokens", old)
    assert made.status == 201
    new = made.json()["token"]
    assert arena_app.call("GET", "/api/me", new).json()["team"]["id"] == team.id
    gone = arena_app.call(
        "DELETE", f"/api/competitions/{competition.id}/teams/{team.id}/tokens/{old.kid}", new
    )
    assert gone.status == 204
    assert arena_app.call("GET", "/api/me", old).status == 401
    assert arena_app.call("GET", "/api/me", new).status == 200


@pytest.mark.parametrize(
    "header",
    ["Bearer ba_nope", "Basic dXNlcjpwYXNz", "Bearer", "Token ba_x", f"Bearer ba_{'a' * 12}_{'b' * 43}"],
)
def test_auth_malformed_or_unknown_tokens_are_401_without_echo(arena_app: ArenaApp, header: str) -> None:
    answer = arena_app.client.request("GET", "/api/me", headers={"authorization": header})
    assert answer.status == 401
    detail = answer.json()["detail"]
    sent = header.partition(" ")[2]
    assert "\n" not in detail and (not sent or sent not in detail)


def test_auth_failed_authentications_are_limited_per_address(arena_app: ArenaApp) -> None:
    _, organizer = arena_app.competition("cup")
    for _ in range(FAILED_AUTH_LIMIT):
        assert arena_app.call("GET", "/api/me", issue()).status == 401
    blocked = arena_app.call("GET", "/api/me", organizer)  # even a good token, from this address
    assert blocked.status == 429 and int(blocked.headers["retry-after"]) == 60
    other = arena_app.client.request(
        "GET", "/api/me", headers={"authorization": f"Bearer {organizer.text}"}, address="10.9.9.9"
    )
    assert other.status == 200  # another address is not held back
    assert arena_app.call("GET", "/api/competitions").status == 200  # nor are anonymous reads
    arena_app.clock.advance(30)
    assert int(arena_app.call("GET", "/api/me", organizer).headers["retry-after"]) == 30
    arena_app.clock.advance(30)
    assert arena_app.call("GET", "/api/me", organizer).status == 200


def test_auth_requests_are_limited_per_token(arena_app: ArenaApp) -> None:
    competition, organizer = arena_app.competition("cup")
    _, team = arena_app.team(competition.id, "alpha")
    auth = arena_app.app.state.arena_auth
    for _ in range(REQUEST_LIMIT - 1):  # (the limiter itself, as the dependency calls it)
        assert auth.requests.take(organizer.kid) is None
    assert arena_app.call("GET", "/api/me", organizer).status == 200  # the 600th
    over = arena_app.call("GET", "/api/me", organizer)
    assert over.status == 429 and over.headers["retry-after"] == "60"
    assert "600" in over.json()["detail"]
    assert arena_app.call("GET", "/api/me", team).status == 200  # another token has its own budget
    arena_app.clock.advance(60)
    assert arena_app.call("GET", "/api/me", organizer).status == 200


def test_auth_session_cookie_is_httponly_strict_and_signs_requests_in(arena_app: ArenaApp) -> None:
    competition, _ = arena_app.competition("cup")
    team, token = arena_app.team(competition.id, "alpha")
    signed_in = arena_app.call("POST", "/api/session", json={"token": token.text})
    assert signed_in.status == 200 and signed_in.json()["team"]["id"] == team.id
    (cookie,) = signed_in.set_cookies
    assert "HttpOnly" in cookie and "SameSite=strict" in cookie and "Path=/api" in cookie
    assert token.text not in signed_in.text  # the body shows who, never the token
    value = cookie_value(signed_in, SESSION_COOKIE)
    me = arena_app.client.request("GET", "/api/me", headers={"cookie": f"{SESSION_COOKIE}={value}"})
    assert me.status == 200 and me.json()["role"] == "team"
    out = arena_app.call("DELETE", "/api/session")
    assert out.status == 204 and cookie_value(out, SESSION_COOKIE) == ""


def test_auth_session_with_a_bad_token_is_401_and_counts_as_a_failure(arena_app: ArenaApp) -> None:
    answer = arena_app.call("POST", "/api/session", json={"token": "ba_guess"})
    assert answer.status == 401 and answer.set_cookies == []
    for _ in range(FAILED_AUTH_LIMIT - 1):
        arena_app.call("POST", "/api/session", json={"token": "ba_guess"})
    assert arena_app.call("POST", "/api/session", json={"token": "ba_guess"}).status == 429


def test_auth_csrf_cookie_signed_unsafe_requests_need_the_header(arena_app: ArenaApp) -> None:
    competition, organizer = arena_app.competition("cup")
    cookie = {"cookie": f"{SESSION_COOKIE}={organizer.text}"}
    url = f"/api/competitions/{competition.id}/teams"
    refused = arena_app.client.request("POST", url, headers=cookie, json={"name": "alpha"})
    assert refused.status == 403 and "X-CSRF: 1" in refused.json()["detail"]
    assert arena_app.arena.teams(competition.id) == []  # nothing was done
    wrong = arena_app.client.request("POST", url, headers={**cookie, "x-csrf": "yes"}, json={"name": "alpha"})
    assert wrong.status == 403
    done = arena_app.client.request("POST", url, headers={**cookie, "x-csrf": "1"}, json={"name": "alpha"})
    assert done.status == 201
    # a safe method needs no header; a bearer token is no cookie a browser sends by itself
    assert (
        arena_app.client.request("GET", f"/api/competitions/{competition.id}/audit", headers=cookie).status
        == 200
    )
    assert arena_app.call("POST", url, organizer, json={"name": "beta"}).status == 201


def test_auth_register_with_the_invite_code(arena_app: ArenaApp) -> None:
    competition, _ = arena_app.competition("cup", invite_code=INVITE)
    url = f"/api/competitions/{competition.id}/register"
    made = arena_app.call("POST", url, json={"name": "alpha", "invite_code": INVITE})
    assert made.status == 201
    assert arena_app.call("GET", "/api/me", made.json()["token"]).json()["team"]["name"] == "alpha"
    taken = arena_app.call("POST", url, json={"name": "alpha", "invite_code": INVITE})
    assert taken.status == 409 and taken.json()["code"] == "name_taken"
    bad = arena_app.call("POST", url, json={"name": "beta", "invite_code": "wrong-code"})
    assert bad.status == 403 and bad.json() == {"detail": "wrong invite code", "code": "bad_invite_code"}
    for _ in range(FAILED_AUTH_LIMIT - 1):
        arena_app.call("POST", url, json={"name": "beta", "invite_code": "wrong-code"})
    limited = arena_app.call("POST", url, json={"name": "beta", "invite_code": INVITE})
    assert limited.status == 429 and "retry-after" in limited.headers
    assert [t.name for t in arena_app.arena.teams(competition.id)] == ["alpha"]


def test_auth_register_without_an_invite_code_set_is_refused(arena_app: ArenaApp) -> None:
    competition, _ = arena_app.competition("cup")
    url = f"/api/competitions/{competition.id}/register"
    assert arena_app.call("POST", url, json={"name": "alpha", "invite_code": "anything-at-all"}).status == 403


def test_auth_register_is_closed_once_frozen(arena_app: ArenaApp) -> None:
    competition, organizer = arena_app.competition("cup", invite_code=INVITE)
    for phase in ("open", "frozen"):
        assert (
            arena_app.call(
                "PATCH", f"/api/competitions/{competition.id}", organizer, json={"phase": phase}
            ).status
            == 200
        )
    closed = arena_app.call(
        "POST", f"/api/competitions/{competition.id}/register", json={"name": "late", "invite_code": INVITE}
    )
    assert closed.status == 409 and closed.json()["code"] == "registration_closed"


def test_auth_no_token_reaches_a_log_line(arena_app: ArenaApp, caplog: pytest.LogCaptureFixture) -> None:
    """Tokens never appear in logs: not a good one, not a revoked one, not a malformed guess."""
    competition, organizer = arena_app.competition("cup")
    team, token = arena_app.team(competition.id, "alpha")
    guess = f"ba_{token.kid}_{issue().secret}"
    with caplog.at_level(logging.DEBUG):
        arena_app.call("GET", "/api/me", token)
        arena_app.call("GET", "/api/me", guess)
        arena_app.call("POST", "/api/session", json={"token": guess})
        arena_app.call(
            "DELETE", f"/api/competitions/{competition.id}/teams/{team.id}/tokens/{token.kid}", organizer
        )
        arena_app.call("GET", "/api/me", token)
    logged = caplog.text + "".join(str(record.args) for record in caplog.records)
    for secret in (token.secret, organizer.secret, guess.rsplit("_", 1)[1]):
        assert secret not in logged
