"""The live matches: `GET /api/live`, `GET /api/live/{key}/events` (server-sent events) and
`POST /api/live/ingest` (events from workers and tournament processes elsewhere).

A match of an arena competition answers per its `policy.live` (`botarena.server.arena.live`): the
competition's organizer, by its arena token, sees it as played; anyone else, as the policy says."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any

from fastapi import APIRouter, HTTPException, Query, Request
from fastapi.responses import StreamingResponse
from starlette.concurrency import run_in_threadpool
from starlette.requests import ClientDisconnect

from botarena.server.api_models import (
    INGEST_ERRORS,
    LIVE_STATES,
    MAX_REFUSALS_SHOWN,
    IngestOut,
    LiveMatchOut,
    live_events_url,
    match_replay_url,
)
from botarena.server.arena.live import live_owner
from botarena.server.ingest import IngestError, authorize, check_length, parse_events
from botarena.server.live import sse_response
from botarena.server.routes.context import ContextDep
from botarena.tournament.live_http import INGEST_PATH, MAX_INGEST_BYTES

if TYPE_CHECKING:
    from botarena.server.spectators import SpectatorGate

router = APIRouter()


@router.get("/api/live", response_model=list[LiveMatchOut])
def live_matches(
    request: Request,
    context: ContextDep,
    state: Annotated[
        str | None, Query(description="only the running matches, or only the just finished ones")
    ] = None,
) -> list[dict[str, Any]]:
    if state is not None and state not in LIVE_STATES:
        raise HTTPException(422, f"unknown state {state[:40]!r} (expected running or finished)")
    listed = []
    owner = live_owner(request)  # an arena competition's organizer: its matches as they are played
    for m in context.gate.live_matches(organizer=context.is_organizer(request), owner=owner):
        entry_state = "finished" if m["finished"] else "running"
        if state is not None and entry_state != state:
            continue
        listed.append(
            {
                **m,
                "state": entry_state,
                "events_url": live_events_url(m["key"]),
                "replay_url": match_replay_url(m["match_id"]) if m["match_id"] is not None else None,
            }
        )
    return listed


@router.get(
    "/api/live/{key:path}/events",
    response_class=StreamingResponse,
    responses={200: {"content": {"text/event-stream": {}}, "description": "header, steps..., end"}},
)
async def live_events(request: Request, context: ContextDep, key: str) -> StreamingResponse:
    events = context.gate.subscribe(
        key,
        organizer=context.is_organizer(request),
        owner=live_owner(request),
        heartbeat_s=context.heartbeat_s,
    )
    if events is None:
        raise HTTPException(
            404, f"no live match {key[:80]!r} (finished ones stay listed at /api/live for a while)"
        )
    # A client that goes away cancels the stream (Starlette watches for the disconnect) or fails
    # its next write (the heartbeat at the latest); one that stops reading is dropped by the
    # HTTP layer once its send queue stays full (botarena.server.guard); either way the
    # subscription closes.
    response: StreamingResponse = sse_response(events)
    return response


@router.post(
    INGEST_PATH,
    response_model=IngestOut,
    responses={code: {"description": text} for code, text in INGEST_ERRORS.items()},
)
async def live_ingest(request: Request, context: ContextDep) -> IngestOut:
    try:  # the door first: a client without the token never gets the server to read a body
        authorize(context.live_token, request.headers.get("authorization"))
        check_length(request.headers.get("content-length"))
        async with context.ingesting:  # the others wait here, their bodies unread (uvicorn pauses them)
            body = await _read_capped(request)
            events = await run_in_threadpool(parse_events, body)  # a large body: off the event loop
            refusals = await run_in_threadpool(_publish_all, context.gate, events)
    except IngestError as exc:
        headers = {"WWW-Authenticate": "Bearer"} if exc.status == 401 else None
        raise HTTPException(exc.status, exc.detail, headers=headers) from None
    except ClientDisconnect:  # gone mid-body, or cut off by the body timeout: nobody hears this
        raise HTTPException(400, "the client disconnected before its body was read") from None
    return IngestOut(
        accepted=len(events) - len(refusals),
        refused=len(refusals),
        refusals=refusals[:MAX_REFUSALS_SHOWN],
    )


async def _read_capped(request: Request) -> bytes:
    """The request body, or IngestError 413 as soon as it grows over the cap (a chunked body too)."""
    chunks: list[bytes] = []
    size = 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > MAX_INGEST_BYTES:
            raise IngestError(413, f"body over the {MAX_INGEST_BYTES}-byte cap")
        chunks.append(chunk)
    return b"".join(chunks)


def _publish_all(gate: SpectatorGate, events: list[dict[str, Any]]) -> list[str]:
    """Offer each event to the gate (which never raises); the refused ones, as 'event <i>: <why>'."""
    refusals = []
    for index, event in enumerate(events):
        reason = gate.offer(event)
        if reason is not None:
            refusals.append(f"event {index}: {reason}")
    return refusals
