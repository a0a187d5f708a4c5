"""`/api/competitions...`: the competitions anyone may read, and the organizer's changes and audit log."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Query

from botarena.arena.competitions import change_competition
from botarena.arena.policy import PolicyError
from botarena.server.arena.auth import CallerDep, require_organizer
from botarena.server.arena.common import (
    MAX_ID,
    ArenaDep,
    CodedError,
    CompetitionId,
    competition_or_404,
    competition_out,
)
from botarena.server.arena.models import AuditOut, CompetitionOut, PatchCompetition
from botarena.store.arena import MAX_AUDIT_ROWS, NoSuchCompetition, PhaseChangeRefused

router = APIRouter(tags=["arena"])


@router.get("/competitions", response_model=list[CompetitionOut])  # type: ignore[valid-type]
def list_competitions(arena: ArenaDep) -> list[Any]:
    """Every competition, newest first: phase, game, preset, public policy, counts. (P)"""
    rows = arena.list_competitions()
    counts = arena.counts(row.id for row in rows)
    return [competition_out(row, counts.get(row.id)) for row in rows]


@router.get("/competitions/{cid}", response_model=CompetitionOut)
def get_competition(arena: ArenaDep, cid: CompetitionId) -> Any:
    """One competition. (P)"""
    row = competition_or_404(arena, cid)
    return competition_out(row, arena.counts([cid]).get(cid))


@router.patch(
    "/competitions/{cid}",
    response_model=CompetitionOut,
    responses={409: {"description": "an illegal phase change"}, 422: {"description": "a bad policy"}},
)
def patch_competition(arena: ArenaDep, caller: CallerDep, cid: CompetitionId, body: PatchCompetition) -> Any:
    """Change the phase (`frozen` -> `open` needs `force`) and/or policy keys. (O)"""
    require_organizer(caller, cid)
    try:
        row = change_competition(
            arena, cid, actor=caller.actor, phase=body.phase, force=body.force, policy=body.policy
        )
    except PhaseChangeRefused as exc:
        raise CodedError(409, "illegal_phase_change", str(exc)) from None
    except PolicyError as exc:
        raise CodedError(422, "bad_policy", str(exc)) from None
    except NoSuchCompetition as exc:
        raise CodedError(404, "not_found", str(exc)) from None
    return competition_out(row, arena.counts([cid]).get(cid))


@router.get("/competitions/{cid}/audit", response_model=list[AuditOut])  # type: ignore[valid-type]
def get_audit(
    arena: ArenaDep,
    caller: CallerDep,
    cid: CompetitionId,
    limit: Annotated[int, Query(ge=1, le=MAX_AUDIT_ROWS)] = 200,
    before: Annotated[int | None, Query(ge=1, le=MAX_ID, description="entries older than this id")] = None,
) -> Any:
    """The competition's audit log, newest first. (O)"""
    require_organizer(caller, cid)
    competition_or_404(arena, cid)
    return arena.audit(cid, limit=limit, before=before)
