"""G8, the isolation matrix (specs/arena.md, Security, proven; DESIGN principle 8): every route of
`app.openapi()` x every kind of caller x team A1's resources.

Callers: anonymous, teams A1 and A2 and the organizer of competition A, team B1 and the organizer
of competition B. Every path parameter is filled with A1's own ids (`PARAMETERS`); a parameter this
file does not know fails the test, as does a route without a row in `RULES`, so a new route cannot
slip past: its author adds the row that says who may call it. An allowed cell succeeds; every other
cell is 401 (no token on a T/O route) or 404 (anything foreign), never 403; and no answer (body or
headers) to anyone but A1 and organizer A holds A1's canaries (its tokens' secrets). Nothing
answers with a token's hash, a competition's seed or its invite code, to anyone.

A1's resources: its active version (whose source and note hold canaries), a rejected version whose
reason (the validation log's first line) holds one, a finished rated match against A2 whose replay
log and failure of A1's seat hold one, and A1's seat in it. A route that changes a version (retire,
disable, enable) gets a fresh version of A1's in the state it needs for each call (`Rule.params`).
A gzip answer (a replay, a source archive) is looked into unpacked.
"""

from __future__ import annotations

import gzip
import itertools
import re
import uuid
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from botarena.arena.competitions import new_token
from botarena.arena.tokens import IssuedToken
from botarena.store.arena_versions import seat_name
from botarena.store.models import Version

from .conftest import ArenaApp, open_arena_app
from .forms import move_version, multipart, play_match

CALLERS = ("anonymous", "a1", "a2", "org_a", "b1", "org_b")
OWNERS = frozenset({"a1", "org_a"})  # who may read A1's data
INVITE_A = "invite-code-CANARY-a-7f3e1c"
SOURCE_CANARY = "source-CANARY-a1-3d9f"
NOTE_CANARY = "note-CANARY-a1-8c1e"
STDERR_CANARY = "stderr-CANARY-a1-51b0"
VALIDATION_CANARY = "validation-log-CANARY-a1-0e7a"
FAILURE_CANARY = "failure-CANARY-a1-22d4"


@dataclass
class World:
    """Two competitions, their teams and organizers, and A1's resources."""

    built: ArenaApp
    a: Any
    b: Any
    tokens: dict[str, IssuedToken | None]
    a1_team_id: int
    match_id: int
    version_id: int
    a1_canaries: set[str] = field(default_factory=set)
    counter: Iterator[int] = field(default_factory=itertools.count)

    def spare_kid(self) -> str:
        """A fresh token of A1 for a cell that may revoke it (A1's own token must outlive the matrix)."""
        _, token = new_token(self.built.arena, self.a.id, self.a1_team_id, actor="test")
        self.a1_canaries.update({token.text, token.secret})
        return token.kid

    def spare_version(self, state: str) -> int:
        """A fresh version of A1's in `state`, for a cell that changes one (straight in the store)."""
        with self.built.store.write_session("test: a spare version") as session:
            number = session.query(Version).filter_by(team_id=self.a1_team_id).count() + 1
            row = Version(
                team_id=self.a1_team_id,
                number=number,
                kind="upload",
                state=state,
                source_digest=uuid.uuid4().hex,
                validated_at=None,
            )
            session.add(row)
            session.flush()
            return int(row.id)

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
    form: Callable[[World, str], tuple[bytes, dict[str, str]]] | None = None
    params: Mapping[str, Callable[[World], object]] = field(default_factory=dict)


def _session_body(world: World, caller: str) -> Any:
    token = world.tokens[caller]
    return {"token": token.text if token is not None else "ba_not_a_token"}


def _unique_name(world: World, caller: str) -> Any:
    return {"name": f"new-{caller}-{next(world.counter)}"}


def _registration(world: World, caller: str) -> Any:
    return {**_unique_name(world, caller), "invite_code": INVITE_A}


def _new_upload(world: World, caller: str) -> tuple[bytes, dict[str, str]]:
    # other bytes for every call: each allowed one is a new version (201)
    return multipart(f"# {caller} {next(world.counter)}\nprint(1)\n".encode(), "bot.py")


def _reason(world: World, caller: str) -> Any:
    return {"reason": f"matrix {caller}"}


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
    ("GET", "/api/matches/{match_id}/replay"): Rule("P"),  # A1's arena match: logs per caller
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
    ("GET", "/api/competitions/{cid}/teams"): Rule("O"),
    ("POST", "/api/competitions/{cid}/teams"): Rule("O", ok=201, body=_unique_name),
    ("POST", "/api/competitions/{cid}/register"): Rule("P", ok=201, body=_registration),
    ("GET", "/api/competitions/{cid}/teams/{tid}/tokens"): Rule("TO"),
    ("POST", "/api/competitions/{cid}/teams/{tid}/tokens"): Rule("TO", ok=201),
    ("DELETE", "/api/competitions/{cid}/teams/{tid}/tokens/{kid}"): Rule("TO", ok=204),
    # versions, matches, standings (specs/arena.md, Routes)
    ("POST", "/api/competitions/{cid}/teams/{tid}/versions"): Rule("T", ok=201, form=_new_upload),
    ("GET", "/api/competitions/{cid}/teams/{tid}/versions"): Rule("TO"),
    ("GET", "/api/competitions/{cid}/teams/{tid}/versions/{vid}"): Rule("TO"),
    ("GET", "/api/competitions/{cid}/teams/{tid}/versions/{vid}/events"): Rule("TO"),
    ("GET", "/api/competitions/{cid}/teams/{tid}/versions/{vid}/source"): Rule("TO"),
    ("POST", "/api/competitions/{cid}/teams/{tid}/versions/{vid}/activate"): Rule("T"),
    ("POST", "/api/competitions/{cid}/teams/{tid}/versions/{vid}/retire"): Rule(
        "T", params={"vid": lambda w: w.spare_version("ready")}
    ),
    ("GET", "/api/competitions/{cid}/matches"): Rule("P"),
    ("GET", "/api/competitions/{cid}/leaderboard"): Rule("P"),
    ("GET", "/api/competitions/{cid}/teams/{tid}/pairs"): Rule("P"),
    ("GET", "/api/competitions/{cid}/stats"): Rule("P"),
    ("GET", "/api/matches/{match_id}/logs/{seat}"): Rule("TO"),
    ("POST", "/api/matches/{match_id}/void"): Rule("O", body=_reason),
    ("POST", "/api/competitions/{cid}/versions/{vid}/disable"): Rule(
        "O", body=_reason, params={"vid": lambda w: w.spare_version("ready")}
    ),
    ("POST", "/api/competitions/{cid}/versions/{vid}/enable"): Rule(
        "O", body=_reason, params={"vid": lambda w: w.spare_version("disabled")}
    ),
}

PARAMETERS: dict[str, Callable[[World], object]] = {
    "cid": lambda w: w.a.id,
    "tid": lambda w: w.a1_team_id,
    "kid": World.spare_kid,
    "tournament_id": lambda w: w.a.tournament_id,
    "match_id": lambda w: w.match_id,
    "key": lambda w: f"t{w.a.tournament_id}/a1-match",
    "vid": lambda w: w.version_id,
    "seat": lambda w: 0,
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
    allowed = {"O": {"org_a"}, "TO": {"org_a", "a1"}, "T": {"a1"}}[rule.who]
    return rule.ok if caller in allowed else 404


def _filled(world: World, path: str, params: Mapping[str, Callable[[World], object]] | None = None) -> str:
    def value(found: re.Match[str]) -> str:
        name = found.group(1)
        if params and name in params:
            return str(params[name](world))
        assert name in PARAMETERS, (
            f"path parameter {{{name}}} of {path} is not in PARAMETERS: add how A1 names it"
        )
        return str(PARAMETERS[name](world))

    return re.sub(r"\{([^}:]+)(?::[^}]*)?\}", value, path)


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Iterator[World]:
    built = open_arena_app(Path(tmp_path_factory.mktemp("isolation")))
    a, org_a = built.open_competition("cup-a", invite_code=INVITE_A)
    b, org_b = built.open_competition("cup-b", invite_code="invite-code-of-b-123")
    a1, a1_token = built.team(a.id, "team-a1")
    a2, a2_token = built.team(a.id, "team-a2")
    _, b1_token = built.team(b.id, "team-b1")
    version = _active_version(built, a.id, a1.id, a1_token, f"# {SOURCE_CANARY}\nprint(1)\n", NOTE_CANARY)
    rival = _active_version(built, a.id, a2.id, a2_token, "# the rival\nprint(2)\n", "a2's note")
    rejected = built.upload(a.id, a1.id, a1_token, b"# another try\nprint(3)\n").json()["id"]
    move_version(built.store, rejected, "rejected", reason_code="crashed", reason=VALIDATION_CANARY)
    match_id = play_match(
        built.store,
        a.tournament_id,
        "a1-match",
        [seat_name(version), seat_name(rival)],
        [2, 1],
        logs=[STDERR_CANARY, "a2's own log"],
        statuses=[{"OK": 3, "CRASHED": 1}, {"OK": 4}],
    )
    _fail_seat(built, match_id, FAILURE_CANARY)
    tokens: dict[str, IssuedToken | None] = {
        "anonymous": None,
        "a1": a1_token,
        "a2": a2_token,
        "org_a": org_a,
        "b1": b1_token,
        "org_b": org_b,
    }
    canaries = {
        a1_token.text,
        a1_token.secret,
        SOURCE_CANARY,
        NOTE_CANARY,
        STDERR_CANARY,
        VALIDATION_CANARY,
        FAILURE_CANARY,
    }
    found = World(built, a, b, tokens, a1.id, match_id, version, canaries)
    try:
        yield found
    finally:
        built.client.close()
        built.store.close()


def _active_version(built: ArenaApp, cid: int, tid: int, token: IssuedToken, source: str, note: str) -> int:
    made = built.upload(cid, tid, token, source.encode(), note=note)
    assert made.status == 201, made.text
    move_version(built.store, made.json()["id"], "ready")
    url = f"/api/competitions/{cid}/teams/{tid}/versions/{made.json()['id']}/activate"
    assert built.call("POST", url, token).status == 200
    return int(made.json()["id"])


def _fail_seat(built: ArenaApp, match_id: int, detail: str) -> None:
    """A1's seat's failure in the match (what the coordinator records with the result)."""
    from botarena.store.models import MatchPlayer

    with built.store.write_session("test: a seat's failure") as session:
        player = session.get(MatchPlayer, (match_id, 0))
        assert player is not None
        player.failure = {"kinds": ["crashed"], "first": detail}


def _shown(answer: Any) -> str:
    """The answer's body (unpacked when it is gzip: a replay, a source archive) and its headers."""
    body = answer.body
    if body[:2] == b"\x1f\x8b":
        body = gzip.decompress(body)
    return body.decode("utf-8", "replace") + "\n".join(f"{k}: {v}" for k, v in answer.headers.items())


def test_g8_every_route_has_a_rule_and_every_rule_a_route(world: World) -> None:
    routes = set(_routes(world.built.app))
    assert sorted(routes - set(RULES)) == [], "routes without a row in RULES: say who may call them"
    assert sorted(set(RULES) - routes) == [], "rows of RULES for routes that no longer exist"


def test_g8_an_unknown_path_parameter_fails_the_matrix(world: World) -> None:
    with pytest.raises(AssertionError, match=r"\{build\}"):
        _filled(world, "/api/competitions/{cid}/teams/{tid}/versions/{vid}/{build}")


@pytest.mark.parametrize("caller", CALLERS)
def test_g8_isolation_matrix(world: World, caller: str) -> None:
    """Each route for this caller: the expected status, never 403 for a foreign resource, and no
    canary of A1's in an answer to anyone but A1 and its organizer."""
    failures = []
    for method, path in _routes(world.built.app):
        rule = RULES[(method, path)]
        url = _filled(world, path, rule.params)
        if rule.form is not None:
            data, headers = rule.form(world, caller)
            answer = world.built.call(method, url, world.tokens[caller], body=data, headers=headers)
        else:
            body = rule.body(world, caller) if rule.body is not None else None
            answer = world.built.call(method, url, world.tokens[caller], json=body)
        expected = _expected(rule, caller)
        if answer.status != expected:
            failures.append(
                f"{caller} {method} {path}: {answer.status} (expected {expected}) {answer.text[:160]}"
            )
        shown = _shown(answer)
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
