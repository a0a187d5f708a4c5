"""`/api/competitions/{cid}/teams...` and `/register`: teams added by the organizer or registering
with the invite code, and their tokens (made, shown once, revoked), and the organizer's reads of
them: every team with its active version and its tokens' key ids and dates (`GET .../teams`), one
team's tokens (`GET .../teams/{tid}/tokens`, the team itself too). A token is shown by its key id
and dates only: its secret is never stored, and its hash never leaves the store."""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from fastapi import APIRouter, HTTPException, Request, Response

from botarena.arena.competitions import (
    ArenaError,
    InviteRefused,
    RegistrationClosed,
    add_team,
    new_token,
    register_team,
)
from botarena.server.arena.auth import (
    ArenaAuthDep,
    CallerDep,
    client_address,
    no_team,
    require_organizer,
    require_team_or_organizer,
)
from botarena.server.arena.common import (
    ArenaDep,
    CodedError,
    CompetitionId,
    Kid,
    TeamId,
    competition_or_404,
)
from botarena.server.arena.models import (
    NewTeam,
    NewTokenOut,
    Registration,
    TeamAdminOut,
    TeamOut,
    TeamWithToken,
    TokenOut,
)
from botarena.store.arena import ArenaStore, NameTaken, NoSuchCompetition, TeamRow, TokenRow

router = APIRouter(tags=["arena"])

_TAKEN: dict[int | str, dict[str, Any]] = {409: {"description": "the name is taken"}}


def _team_with_token(team: TeamRow, token: str) -> TeamWithToken:
    return TeamWithToken(team=TeamOut.model_validate(team, from_attributes=True), token=token)


def _team_of(arena: ArenaStore, cid: int, tid: int) -> TeamRow:
    team = arena.get_team(tid)
    if team is None or team.competition_id != cid:
        raise no_team(cid, tid)
    return team


def _active_numbers(arena: ArenaStore, cid: int) -> dict[int, int]:
    """Team id -> the number of its active version, for the competition's teams, in one read (the
    store's reads are per team or for the leaderboard, which leaves disabled teams out)."""
    from sqlalchemy import select

    from botarena.store.models import Team, Version

    query = (
        select(Version.team_id, Version.number)
        .join(Team, Team.id == Version.team_id)
        .where(Team.competition_id == cid, Version.state == "active")
    )
    with arena.store.read_session("cannot read the teams' versions") as session:
        return {int(team): int(number) for team, number in session.execute(query).all()}


def _token_out(row: TokenRow) -> Any:
    return TokenOut.model_validate(row, from_attributes=True)


@router.get("/competitions/{cid}/teams", response_model=list[TeamAdminOut])
def list_teams(arena: ArenaDep, caller: CallerDep, cid: CompetitionId) -> list[TeamAdminOut]:
    """Every team of the competition in the order they were added: id, name, disabled, its active
    version's number and its tokens (key id, created, last used, revoked). (O)"""
    require_organizer(caller, cid)
    competition_or_404(arena, cid)
    tokens: defaultdict[int, list[TokenRow]] = defaultdict(list)
    for token in arena.tokens(cid):
        if token.team_id is not None:  # (the organizer's own tokens are nobody's team's)
            tokens[token.team_id].append(token)
    active = _active_numbers(arena, cid)
    return [
        TeamAdminOut(
            id=team.id,
            name=team.name,
            disabled=team.disabled,
            created_at=team.created_at,
            active_version=active.get(team.id),
            tokens=[_token_out(token) for token in tokens[team.id]],
        )
        for team in arena.teams(cid)
    ]


@router.get("/competitions/{cid}/teams/{tid}/tokens", response_model=list[TokenOut])  # type: ignore[valid-type]
def list_tokens(arena: ArenaDep, caller: CallerDep, cid: CompetitionId, tid: TeamId) -> list[Any]:
    """The team's tokens, revoked ones too, oldest first: key id, created, last used, revoked. (T own, O)"""
    require_team_or_organizer(caller, cid, tid)
    _team_of(arena, cid, tid)
    return [_token_out(token) for token in arena.tokens(cid, tid)]


@router.post("/competitions/{cid}/teams", status_code=201, response_model=TeamWithToken, responses=_TAKEN)
def post_team(arena: ArenaDep, caller: CallerDep, cid: CompetitionId, body: NewTeam) -> Any:
    """Add a team; its token is in the answer, this once. (O)"""
    require_organizer(caller, cid)
    competition_or_404(arena, cid)
    try:
        team, token = add_team(arena, cid, body.name, actor=caller.actor)
    except NameTaken as exc:
        raise CodedError(409, "name_taken", str(exc)) from None
    except NoSuchCompetition as exc:
        raise HTTPException(404, str(exc)) from None
    except ArenaError as exc:
        raise CodedError(422, "bad_name", str(exc)) from None
    return _team_with_token(team, token.text)


@router.post(
    "/competitions/{cid}/register",
    status_code=201,
    response_model=TeamWithToken,
    responses={
        403: {"description": "a wrong invite code"},
        429: {"description": "too many wrong codes"},
        **_TAKEN,
    },
)
def register(
    request: Request, arena: ArenaDep, auth: ArenaAuthDep, cid: CompetitionId, body: Registration
) -> Any:
    """A team registers itself with the competition's invite code; its token is in the answer, this
    once. A wrong code counts as a failed authentication of the caller's address. (P)"""
    address = client_address(request)
    auth.check_address(address)
    competition = competition_or_404(arena, cid)
    try:
        team, token = register_team(arena, competition, body.name, body.invite_code)
    except InviteRefused as exc:
        auth.failures.hit(address)
        raise CodedError(403, "bad_invite_code", str(exc)) from None
    except RegistrationClosed as exc:
        raise CodedError(409, "registration_closed", str(exc)) from None
    except NameTaken as exc:
        raise CodedError(409, "name_taken", str(exc)) from None
    except ArenaError as exc:
        raise CodedError(422, "bad_name", str(exc)) from None
    return _team_with_token(team, token.text)


@router.post("/competitions/{cid}/teams/{tid}/tokens", status_code=201, response_model=NewTokenOut)
def post_token(arena: ArenaDep, caller: CallerDep, cid: CompetitionId, tid: TeamId) -> Any:
    """Another token for the team, shown this once (the others stay valid until revoked). (T own, O)"""
    require_team_or_organizer(caller, cid, tid)
    _team_of(arena, cid, tid)
    _, token = new_token(arena, cid, tid, actor=caller.actor)
    return NewTokenOut(token=token.text, kid=token.kid)


@router.delete("/competitions/{cid}/teams/{tid}/tokens/{kid}", status_code=204, response_class=Response)
def delete_token(arena: ArenaDep, caller: CallerDep, cid: CompetitionId, tid: TeamId, kid: Kid) -> Response:
    """Revoke one of the team's tokens: it fails from the next request on. (T own, O)"""
    require_team_or_organizer(caller, cid, tid)
    _team_of(arena, cid, tid)
    token = arena.find_token(kid)
    if token is None or token.competition_id != cid or token.team_id != tid:
        raise HTTPException(404, f"no token {kid} of team {tid}")
    arena.revoke_token(kid, actor=caller.actor)
    return Response(status_code=204)
