"""G8, the isolation matrix (specs/arena.md, Security, proven; DESIGN principle 8): every route of
`app.openapi()` x every kind of caller x team A1's resources.

Callers: anonymous, teams A1 and A2 and the organizer of competition A, team B1 and the organizer
of competition B. Every path parameter is filled with A1's own ids (`PARAMETERS`); a parameter this
file does not know fails the test, as does a route without a row in `RULES`, so a new route cannot
slip past: its author adds the row that says who may call it. An allowed cell succeeds; every other
cell is 401 (no token on a T/O route) or 404 (anything foreign), never 403; and no answer (body or
headers) to anyone but A1 and organizer A holds A1's canaries (its tokens' secrets). Nothing
answers with a token's hash, a competition's seed or its invite code, to anyone.

Later steps add their routes' rows to RULES and their ids to PARAMETERS (versions, sources, logs,
matches, events), and their canaries (A1's source, stderr, validation log) to `World.a1_canaries`.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from botarena.arena.competitions import new_token
from botarena.arena.tokens import IssuedToken

from .conftest import ArenaApp, open_arena_app

CALLERS = ("anonymous", "a1", "a2", "org_a", "b1", "org_b")
OWNERS = frozenset({"a1", "org_a"})  # who may read A1's data
INVITE_A = "invite-code-CANARY-a-7f3e1c"


@dataclass
class World:
    """Two competitions, their teams and organizers, and A1's resources."""

    built: ArenaApp
    a: Any
    b: Any
    tokens: dict[str, IssuedToken | None]
    a1_team_id: int
    match_id: int
    a1_canaries: set[str] = field(default_factory=set)
    counter: Iterator[int] = field(default_factory=itertools.count)

    def spare_kid(self) -> str:
        """A fresh token of A1 for a cell that may revoke it (A1's own token must outlive the matrix)."""
        _, token = new_token(self.built.arena, self.a.id, self.a1_team_id, actor="test")
        self.a1_canaries.update({token.text, token.secret})
        return token.kid

    def never_shown(self) -> set[str]:
        """What no answer to anyone holds: every token's hash, the competitions' seeds, A's invite code."""
        hashes = {t.sha256 for c in (self.a.id, self.b.id) for t in self.built.arena.tokens(c)}
        seeds = {str(self.built.arena.get_competition(c).seed) for c in (self.a.id, self.b.id)}  # type: ignore[union-attr]
        return hashes | seeds | {INVITE_A}


Body = Callable[[World, str], Any]


@dataclass(frozen=True)
class Rule:
    """Who may call a route: P (anyone), S (any token), O (the organizer of the path's competition),
    TO (the path's team itself, or its organizer). `ok` is an allowed call's status; `expect` fixes
    a caller's status where the route cannot succeed in this step for anyone (no replay yet)."""

    who: str
    ok: int = 200
    body: Body | None = None
    expect: Mapping[str, int] = field(default_factory=dict)


def _session_body(world: World, caller: str) -> Any:
    token = world.tokens[caller]
    return {"token": token.text if token is not None else "ba_not_a_token"}


def _unique_name(world: World, caller: str) -> Any:
    return {"name": f"new-{caller}-{next(world.counter)}"}


def _registration(world: World, caller: str) -> Any:
    return {**_unique_name(world, caller), "invite_code": INVITE_A}


def _all(status: int) -> Mapping[str, int]:
    return dict.fromkeys(CALLERS, status)


RULES: dict[tuple[str, str], Rule] = {
    # the platform's routes from before the arena: public reads
    ("GET", "/api/health"): Rule("P"),
    ("GET", "/api/games"): Rule("P"),
    ("GET", "/api/tournaments"): Rule("P"),
    ("GET", "/api/tournaments/{tournament_id}"): Rule("P"),
    ("GET", "/api/tournaments/{tournament_id}/matches"): Rule("P"),
    ("GET", "/api/matches/{match_id}"): Rule("P"),
    ("GET", "/api/matches/{match_id}/replay"): Rule("P", expect=_all(404)),  # A1's match is not played yet
    ("GET", "/api/live"): Rule("P"),
    ("GET", "/api/live/{key}/events"): Rule("P", expect=_all(404)),  # nothing is live
    ("POST", "/api/live/ingest"): Rule("P", expect=_all(403)),  # this server has no live token
    # the arena's routes (specs/arena.md, Routes)
    ("POST", "/api/session"): Rule("P", body=_session_body, expect={"anonymous": 401}),
    ("DELETE", "/api/session"): Rule("P", ok=204),
    ("GET", "/api/me"): Rule("S"),
    ("GET", "/api/competitions"): Rule("P"),
    ("GET", "/api/competitions/{cid}"): Rule("P"),
    ("PATCH", "/api/competitions/{cid}"): Rule("O", body=lambda w, c: {"policy": {"uploads_per_hour": 6}}),
    ("GET", "/api/competitions/{cid}/audit"): Rule("O"),
    ("POST", "/api/competitions/{cid}/teams"): Rule("O", ok=201, body=_unique_name),
    ("POST", "/api/competitions/{cid}/register"): Rule("P", ok=201, body=_registration),
    ("POST", "/api/competitions/{cid}/teams/{tid}/tokens"): Rule("TO", ok=201),
    ("DELETE", "/api/competitions/{cid}/teams/{tid}/tokens/{kid}"): Rule("TO", ok=204),
}

PARAMETERS: dict[str, Callable[[World], object]] = {
    "cid": lambda w: w.a.id,
    "tid": lambda w: w.a1_team_id,
    "kid": World.spare_kid,
    "tournament_id": lambda w: w.a.tournament_id,
    "match_id": lambda w: w.match_id,
    "key": lambda w: f"t{w.a.tournament_id}/a1-match",
}
"""How each path parameter names one of A1's resources."""


def _routes(app: Any) -> list[tuple[str, str]]:
    return sorted(
        (method.upper(), path)
        for path, operations in app.openapi()["paths"].items()
        for method in operations
        if method in {"get", "post", "put", "patch", "delete"}
    )


def _expected(rule: Rule, caller: str) -> int:
    if caller in rule.expect:
        return rule.expect[caller]
    if rule.who == "P":
        return rule.ok
    if caller == "anonymous":
        return 401
    if rule.who == "S":
        return rule.ok
    allowed = {"O": {"org_a"}, "TO": {"org_a", "a1"}}[rule.who]
    return rule.ok if caller in allowed else 404


def _filled(world: World, path: str) -> str:
    def value(found: re.Match[str]) -> str:
        name = found.group(1)
        assert name in PARAMETERS, (
            f"path parameter {{{name}}} of {path} is not in PARAMETERS: add how A1 names it"
        )
        return str(PARAMETERS[name](world))

    return re.sub(r"\{([^}:]+)(?::[^}]*)?\}", value, path)


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Iterator[World]:
    built = open_arena_app(Path(tmp_path_factory.mktemp("isolation")))
    a, org_a = built.competition("cup-a", invite_code=INVITE_A)
    b, org_b = built.competition("cup-b", invite_code="invite-code-of-b-123")
    a1, a1_token = built.team(a.id, "team-a1")
    _, a2_token = built.team(a.id, "team-a2")
    _, b1_token = built.team(b.id, "team-b1")
    spec = SimpleNamespace(key="a1-match", round=1, seats=["team-a1", "team-a2"], seed=11)
    built.store.add_matches(a.tournament_id, [spec])
    match = built.store.find_match(a.tournament_id, "a1-match")
    assert match is not None
    tokens: dict[str, IssuedToken | None] = {
        "anonymous": None,
        "a1": a1_token,
        "a2": a2_token,
        "org_a": org_a,
        "b1": b1_token,
        "org_b": org_b,
    }
    found = World(built, a, b, tokens, a1.id, match.id, {a1_token.text, a1_token.secret})
    try:
        yield found
    finally:
        built.client.close()
        built.store.close()


def test_g8_every_route_has_a_rule_and_every_rule_a_route(world: World) -> None:
    routes = set(_routes(world.built.app))
    assert sorted(routes - set(RULES)) == [], "routes without a row in RULES: say who may call them"
    assert sorted(set(RULES) - routes) == [], "rows of RULES for routes that no longer exist"


def test_g8_an_unknown_path_parameter_fails_the_matrix(world: World) -> None:
    with pytest.raises(AssertionError, match=r"\{vid\}"):
        _filled(world, "/api/competitions/{cid}/teams/{tid}/versions/{vid}")


@pytest.mark.parametrize("caller", CALLERS)
def test_g8_isolation_matrix(world: World, caller: str) -> None:
    """Each route for this caller: the expected status, never 403 for a foreign resource, and no
    canary of A1's in an answer to anyone but A1 and its organizer."""
    failures = []
    for method, path in _routes(world.built.app):
        rule = RULES[(method, path)]
        url = _filled(world, path)
        body = rule.body(world, caller) if rule.body is not None else None
        answer = world.built.call(method, url, world.tokens[caller], json=body)
        expected = _expected(rule, caller)
        if answer.status != expected:
            failures.append(
                f"{caller} {method} {path}: {answer.status} (expected {expected}) {answer.text[:160]}"
            )
        shown = answer.text + "\n".join(f"{k}: {v}" for k, v in answer.headers.items())
        forbidden = world.never_shown() | (set() if caller in OWNERS else world.a1_canaries)
        leaked = sorted(canary[:12] for canary in forbidden if canary in shown)
        if leaked:
            failures.append(f"{caller} {method} {path}: the answer holds {leaked}")
        if answer.status >= 400 and "application/json" in answer.headers.get("content-type", ""):
            detail = answer.json().get("detail")
            if not (isinstance(detail, str) and "\n" not in detail):
                failures.append(
                    f"{caller} {method} {path}: error without a one-line detail: {answer.text[:160]}"
                )
    assert failures == []


def test_g8_a_refused_revocation_leaves_the_token_valid(world: World) -> None:
    """The 404 of a foreign DELETE is no revocation behind the caller's back."""
    for caller in ("a2", "b1", "org_b"):
        kid = world.spare_kid()
        url = f"/api/competitions/{world.a.id}/teams/{world.a1_team_id}/tokens/{kid}"
        assert world.built.call("DELETE", url, world.tokens[caller]).status == 404
        token = world.built.arena.find_token(kid)
        assert token is not None and token.revoked_at is None, caller
