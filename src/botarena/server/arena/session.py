"""`/api/session` (a browser's sign-in with a token, kept in an HttpOnly, SameSite=Strict cookie) and
`/api/me` (who the caller is)."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, HTTPException, Request, Response

from botarena.arena.access import Caller
from botarena.arena.vocabulary import Role
from botarena.server.arena.auth import (
    SESSION_COOKIE,
    ArenaAuthDep,
    CallerDep,
    client_address,
    require_signed_in,
)
from botarena.server.arena.common import ArenaDep, competition_out
from botarena.server.arena.models import MeOut, SessionLogin, TeamOut
from botarena.store.arena import ArenaStore

router = APIRouter(tags=["arena"])
COOKIE_PATH = "/api"  # the cookie goes to the API only, never to a page or a static file


def me_of(arena: ArenaStore, caller: Caller) -> MeOut:
    assert caller.competition_id is not None and caller.kid is not None
    competition = arena.get_competition(caller.competition_id)
    if competition is None:  # deleted while its token was in use
        raise HTTPException(404, f"no competition {caller.competition_id}")
    team = arena.get_team(caller.team_id) if caller.team_id is not None else None
    counts = arena.counts([competition.id]).get(competition.id)
    return MeOut(
        role=caller.role.value,
        competition=competition_out(competition, counts),
        team=TeamOut.model_validate(team, from_attributes=True) if team is not None else None,
        kid=caller.kid,
    )


@router.get("/me", response_model=MeOut, responses={401: {"description": "no or a bad token"}})
def get_me(arena: ArenaDep, caller: CallerDep) -> Any:
    """The caller: its role, competition and team. (T, O)"""
    return me_of(arena, require_signed_in(caller))


@router.post("/session", response_model=MeOut, responses={401: {"description": "a bad token"}})
def post_session(
    request: Request, response: Response, arena: ArenaDep, auth: ArenaAuthDep, body: SessionLogin
) -> Any:
    """Sign a browser in: the token goes into an HttpOnly, SameSite=Strict cookie; unsafe requests
    signed in by it need the header `X-CSRF: 1`. (P with a token)"""
    caller = auth.caller_of(body.token, client_address(request))
    if caller.role == Role.ANONYMOUS:  # (caller_of never gives one; kept for the type)
        raise HTTPException(401, "invalid, unknown or revoked token")
    response.set_cookie(
        SESSION_COOKIE,
        body.token,
        httponly=True,
        samesite="strict",
        secure=request.url.scheme == "https",
        path=COOKIE_PATH,
    )
    return me_of(arena, caller)


@router.delete("/session", status_code=204, response_class=Response)
def delete_session() -> Response:
    """Sign the browser out (the cookie is cleared; the token itself stays valid). (P)"""
    response = Response(status_code=204)
    response.delete_cookie(SESSION_COOKIE, path=COOKIE_PATH, httponly=True, samesite="strict")
    return response
