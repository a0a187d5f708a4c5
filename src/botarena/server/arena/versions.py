"""`/api/competitions/{cid}/teams/{tid}/versions...`: a team uploads a bot or registers a URL, reads its
versions, follows one's states (SSE), downloads its source, activates and retires (specs/arena.md).

Who: uploading, activating and retiring are the team's own (T); reading its versions, their events
and sources is the team's or its organizer's. Anyone else gets 404, anonymous 401.

An upload's body is read by the route itself, never by a framework that would take it whole: a
`Content-Length` over the cap is 413 before a byte is read, and a body that grows past the cap while
it streams (a chunked one, or one that lies about its length) is 413 as soon as it does. The checks
and the unpack/pack run in a thread (`arena.uploads.convert`), at most `max_conversions` at once
server-wide (else 429 with Retry-After), and a team sends at most `max_parallel_uploads` bodies at
once (else 429 before a byte of the next is read). The unpacking happens in a private scratch folder
(`arena.uploads.scratch_root`, $BOTARENA_UPLOAD_SCRATCH) that is removed whatever happens; a scratch
folder that is missing, not writable or full is the server's trouble: 503 with Retry-After, the
details in the server's log only (they name its folders).

The events stream polls the version's row every `POLL_S` (0.25 s) rather than waiting on an
in-process notifier: the coordinator that changes a version's state is another process, and several
server instances may serve one database, so the store is the only place every change is seen. Each
event's id is a fingerprint of what it shows, so a client that comes back with `Last-Event-ID` is
sent the state only if it changed since. The stream ends once the version settles, after
`STREAM_MAX_S` (the client reconnects with its last id), when the client goes away, or when the
server shuts down (`app.state.arena_closing`, set by `serve` before uvicorn waits for connections).
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import logging
import threading
from collections import Counter
from collections.abc import AsyncIterator, Callable
from datetime import UTC, datetime
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Header, HTTPException, Path, Request
from fastapi.responses import JSONResponse, Response
from fastapi.sse import EventSourceResponse, ServerSentEvent
from pydantic import BaseModel, ConfigDict, Field, ValidationError
from starlette.concurrency import run_in_threadpool
from starlette.requests import ClientDisconnect

from botarena.arena.access import Caller
from botarena.arena.archive import UploadRejected
from botarena.arena.policy import ArenaPolicy, size_text
from botarena.arena.uploads import (
    ScratchUnavailable,
    Sent,
    UploadClosed,
    check_open,
    convert,
    quotas_of,
    register_upload,
    register_url,
)
from botarena.arena.vocabulary import Phase, VersionState
from botarena.bots.urls import UrlRejected
from botarena.server.arena.auth import (
    CallerDep,
    no_team,
    require_signed_in,
    require_team_or_organizer,
    too_many,
)
from botarena.server.arena.common import (
    MAX_ID,
    ArenaDep,
    CodedError,
    CompetitionId,
    TeamId,
    competition_or_404,
)
from botarena.server.arena.models import model_of
from botarena.store.arena import ArenaStore, CompetitionRow, TeamRow
from botarena.store.arena_versions import (
    ArenaVersions,
    IdempotencyKeyReused,
    NoSuchVersion,
    QuotaExceeded,
    StateRefused,
    VersionRow,
)

log = logging.getLogger(__name__)
router = APIRouter(tags=["arena"])

VersionId = Annotated[int, Path(ge=1, le=MAX_ID, description="version id")]
MULTIPART_SLACK = 64 * 1024  # the form's own bytes around the file (boundaries, headers, the note)
MAX_JSON_BYTES = 64 * 1024
MAX_NOTE = 2000
POLL_S = 0.25
STREAM_MAX_S = 300.0
SCRATCH_TROUBLE = "the server cannot unpack uploads just now; try again later"
SETTLED = frozenset(
    {
        VersionState.READY,
        VersionState.ACTIVE,
        VersionState.REJECTED,
        VersionState.SUPERSEDED,
        VersionState.DISABLED,
        VersionState.RETIRED,
        VersionState.PAUSED,
    }
)

VersionOut = model_of(
    VersionRow,
    "VersionOut",
    exclude=frozenset({"bot_version_id", "idempotency_key"}),
    competition_id=(int, Field(description="the competition")),
    digest=(str | None, Field(None, description="the canonical archive's sha256 (the version's identity)")),
    validation_matches=(list[int], Field(default_factory=list, description="its validation matches' ids")),
)


class UrlEntry(BaseModel):
    model_config = ConfigDict(extra="forbid")

    url: str = Field(min_length=1, max_length=2048)
    secure_key: str | None = Field(None, min_length=1, max_length=400, description="write-only")
    note: str | None = Field(None, max_length=MAX_NOTE)


def utc_now() -> datetime:
    return datetime.now(UTC)


def arena_versions(request: Request) -> ArenaVersions:
    versions: ArenaVersions = request.app.state.arena_versions
    return versions


def wall_clock(request: Request) -> Callable[[], datetime]:
    """The clock quotas and timestamps are read from (a test swaps `app.state.arena_now`)."""
    now: Callable[[], datetime] = request.app.state.arena_now
    return now


VersionsDep = Annotated[ArenaVersions, Depends(arena_versions)]


def require_team(caller: Caller, competition_id: int, team_id: int) -> Caller:
    """Team `team_id` itself: 401 anonymous, 404 anyone else (its organizer included: a team's
    uploads and choices are its own)."""
    require_signed_in(caller)
    if not caller.is_team(competition_id, team_id):
        raise no_team(competition_id, team_id)
    return caller


def team_or_404(arena: ArenaStore, competition_id: int, team_id: int) -> TeamRow:
    team = arena.get_team(team_id)
    if team is None or team.competition_id != competition_id:
        raise no_team(competition_id, team_id)
    return team


def version_or_404(versions: ArenaVersions, team_id: int, version_id: int) -> VersionRow:
    found = versions.get_version(version_id)
    if found is None or found.team_id != team_id:
        raise HTTPException(404, f"no version {version_id} of team {team_id}")
    return found


def version_out(
    versions: ArenaVersions,
    competition: CompetitionRow,
    row: VersionRow,
    validation: list[int] | None = None,
) -> dict[str, Any]:
    """The version as its team sees it: every column but the idempotency key, its validation matches
    (`validation`, when the caller read them already for several versions at once)."""
    if validation is None:
        validation = versions.validation_matches(competition.tournament_id, row.id)
    shown = VersionOut.model_validate(
        {
            **{name: getattr(row, name) for name in VersionRow.__slots__},
            "competition_id": competition.id,
            "digest": row.source_digest,
            "validation_matches": validation,
        }
    )
    return shown.model_dump(mode="json")


# ------------------------------------------------------------------------------------ the upload


class Reading:
    """The upload bodies being read now: server-wide (`now`, for the stats and the tests) and per team.
    A body being read holds no conversion slot, so a slow client costs a socket and a coroutine only,
    and a team may hold at most `policy.max_parallel_uploads` of those at once: a hostile team cannot
    open slow uploads until the server runs out of file descriptors. (On the event loop: no lock.)"""

    def __init__(self) -> None:
        self.now = 0
        self.by_team: Counter[int] = Counter()

    def enter(self, team_id: int, most: int) -> bool:
        if self.by_team[team_id] >= most:
            return False
        self.by_team[team_id] += 1
        self.now += 1
        return True

    def leave(self, team_id: int) -> None:
        self.now -= 1
        self.by_team[team_id] -= 1
        if not self.by_team[team_id]:
            del self.by_team[team_id]


async def read_capped(request: Request, cap: int, limit: int, deadline_s: float) -> bytes:
    """The body, 413 before reading when Content-Length is over `cap`, and as soon as it grows past
    it while streaming (the refusal names `limit`, the policy's own); 408 when it has not all come
    `deadline_s` after the first read: a client that trickles bytes into a large Content-Length
    (slowloris) is cut off whatever its pace, where a per-read idle timeout would wait for ever."""
    declared = request.headers.get("content-length")
    if declared is not None:
        if not declared.strip().isdigit():
            raise HTTPException(400, "Content-Length is not a number")
        if int(declared) > cap:
            raise _too_large(limit)
    try:
        async with asyncio.timeout(deadline_s):
            return await _read_body(request, cap, limit)
    except TimeoutError:
        log.info("an upload to %s was cut off after %s s", request.url.path, deadline_s)
        # `Connection: close`: the rest of the body is never read, so the connection cannot serve
        # another request
        raise HTTPException(
            408,
            f"the upload did not arrive within {deadline_s:g} s (policy upload_timeout_s); send it again",
            headers={"Connection": "close"},
        ) from None


async def _read_body(request: Request, cap: int, limit: int) -> bytes:
    chunks, size = [], 0
    try:
        async for chunk in request.stream():
            size += len(chunk)
            if size > cap:
                raise _too_large(limit)
            chunks.append(chunk)
    except ClientDisconnect:
        raise HTTPException(400, "the client disconnected before its body was read") from None
    return b"".join(chunks)


def _too_large(cap: int) -> HTTPException:
    return HTTPException(413, f"the upload is larger than the {size_text(cap)} limit")


async def parse_form(request: Request, body: bytes, cap: int) -> tuple[bytes, str, dict[str, str]]:
    """(the file's bytes, its name, the other fields) of a multipart body already read."""
    sent = False

    async def replay() -> dict[str, Any]:
        nonlocal sent
        if sent:
            return {"type": "http.disconnect"}
        sent = True
        return {"type": "http.request", "body": body, "more_body": False}

    buffered = Request(request.scope, replay)
    try:
        form = await buffered.form(max_files=1, max_fields=4, max_part_size=MAX_NOTE * 4)
    except HTTPException as exc:
        raise HTTPException(415, f"not a readable multipart form: {exc.detail}") from None
    try:
        upload = form.get("file")
        if upload is None or isinstance(upload, str):
            raise HTTPException(415, "the form has no file: send the bot as the multipart field 'file'")
        data = await upload.read()
        fields = {key: value for key, value in form.items() if isinstance(value, str)}
        name = upload.filename or "upload"
    finally:
        await form.close()
    if len(data) > cap:
        raise _too_large(cap)
    return data, name, fields


def _form_options(fields: dict[str, str]) -> str | None:
    """The note of a form (422 for `activate=false`: candidate versions come with part 2)."""
    activate = fields.get("activate", "true").strip().lower()
    if activate not in ("true", "1", "yes", "on"):
        if activate in ("false", "0", "no", "off"):
            raise CodedError(
                422, "not_supported", "activate=false (a candidate version) is not supported yet"
            )
        raise HTTPException(422, "form activate: expected true or false")
    note = fields.get("note")
    if note is not None and len(note) > MAX_NOTE:
        raise HTTPException(422, f"form note: at most {MAX_NOTE} characters")
    return note or None


def _idempotency_key(value: str | None) -> str | None:
    if value is None:
        return None
    key = value.strip()
    if not key or len(key) > 200 or not key.isprintable():
        raise HTTPException(422, "header Idempotency-Key: 1 to 200 printable characters")
    return key


class _Upload:
    """One upload request's checks and its conversion slot."""

    def __init__(self, request: Request, versions: ArenaVersions, team: TeamRow, policy: ArenaPolicy) -> None:
        self.request = request
        self.versions = versions
        self.team = team
        self.policy = policy
        self.conversions = request.app.state.arena_conversions
        self.now = wall_clock(request)

    async def read(self, cap: int, limit: int) -> bytes:
        """The body (`read_capped`), read in one of the team's `max_parallel_uploads` slots: 429, and
        not a byte read, while the team already sends that many."""
        reading: Reading = self.request.app.state.arena_reading
        most = self.policy.max_parallel_uploads
        if not reading.enter(self.team.id, most):
            refused = too_many(5, f"the team is already sending {most} uploads (policy max_parallel_uploads)")
            refused.headers = {**(refused.headers or {}), "Connection": "close"}  # its body is never read
            raise refused
        try:
            return await read_capped(self.request, cap, limit, self.policy.upload_timeout_s)
        finally:
            reading.leave(self.team.id)

    def precheck(self, key: str | None) -> None:
        """429 over a quota before any conversion work (an upload repeating a known key is answered)."""
        if key is not None and self.versions.find_by_key(self.team.id, key) is not None:
            return
        try:
            self.versions.quota_check(self.team.id, quotas_of(self.policy), 0, self.now())
        except QuotaExceeded as exc:
            raise too_many_quota(exc) from None

    async def convert(self, data: bytes, filename: str) -> Any:
        if not self.conversions.enter(self.policy.max_conversions):
            raise too_many(1, f"{self.policy.max_conversions} uploads are being converted; try again")
        try:
            return await run_in_threadpool(convert, data, filename, self.policy)
        except UploadRejected as exc:
            raise CodedError(422, exc.code.value, exc.detail) from None
        except ScratchUnavailable as exc:  # the server's scratch folder, not the team's upload
            log.warning("an upload of team %d could not be unpacked: %s", self.team.id, exc)
            raise HTTPException(503, SCRATCH_TROUBLE, headers={"Retry-After": "30"}) from None
        finally:
            self.conversions.leave()


def too_many_quota(exc: QuotaExceeded) -> HTTPException:
    seconds = max(1, int(exc.retry_after_s + 0.999))
    return HTTPException(429, str(exc), headers={"Retry-After": str(seconds)})


def _stored(call: Callable[[], tuple[VersionRow, bool]]) -> tuple[VersionRow, bool]:
    try:
        return call()
    except QuotaExceeded as exc:
        raise too_many_quota(exc) from None
    except IdempotencyKeyReused as exc:
        raise CodedError(422, "idempotency_key_reused", str(exc)) from None


async def _take_url(upload: _Upload, body: bytes, sent_key: str | None) -> tuple[VersionRow, bool]:
    try:
        entry = UrlEntry.model_validate(json.loads(body or b"null"))
    except (ValueError, ValidationError) as exc:
        raise HTTPException(422, f"body: {_first_error(exc)}") from None
    upload.precheck(sent_key)
    sent = Sent(entry.note or None, sent_key)

    def register() -> tuple[VersionRow, bool]:
        return register_url(
            upload.versions, upload.team, entry.url, entry.secure_key, upload.policy, sent, at=upload.now()
        )

    try:
        return await run_in_threadpool(_stored, register)  # (the URL's name is resolved: off the loop)
    except UrlRejected as exc:
        raise CodedError(422, exc.code.value, exc.detail) from None


def _first_error(exc: Exception) -> str:
    if isinstance(exc, ValidationError):
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        return f"{where}: {first['msg']}" if where else str(first["msg"])
    return "not a JSON object"


async def _take_file(upload: _Upload, body: bytes, sent_key: str | None) -> tuple[VersionRow, bool]:
    data, filename, fields = await parse_form(upload.request, body, upload.policy.max_upload_bytes)
    note = _form_options(fields)
    upload.precheck(sent_key)
    packed = await upload.convert(data, filename)
    sent = Sent(note, sent_key)

    def register() -> tuple[VersionRow, bool]:
        return register_upload(upload.versions, upload.team, packed, upload.policy, sent, at=upload.now())

    return await run_in_threadpool(_stored, register)


@router.post(
    "/competitions/{cid}/teams/{tid}/versions",
    status_code=201,
    response_model=VersionOut,
    responses={
        200: {"description": "the version this team already has for these bytes or this key"},
        409: {"description": "the competition is not open, or the team is disabled"},
        413: {"description": "larger than the policy's max_upload_mb"},
        415: {"description": "not a file, zip, tar.gz or URL"},
        422: {"description": "refused, with a code"},
        429: {"description": "over a quota, too many conversions at once, or the team's parallel uploads"},
        503: {"description": "the server's scratch folder cannot take the upload now (retry later)"},
    },
)
async def post_version(
    request: Request,
    arena: ArenaDep,
    versions: VersionsDep,
    caller: CallerDep,
    cid: CompetitionId,
    tid: TeamId,
    idempotency_key: Annotated[str | None, Header(description="repeat it to retry safely")] = None,
) -> Response:
    """A new version: multipart `file` (+ `note`), or JSON `{url, secure_key?, note?}`. (T)"""
    require_team(caller, cid, tid)
    competition = await run_in_threadpool(competition_or_404, arena, cid)
    team = team_or_404(arena, cid, tid)
    try:
        policy = check_open(competition, team)
    except UploadClosed as exc:
        raise CodedError(409, "uploads_closed", str(exc)) from None
    key = _idempotency_key(idempotency_key)
    kind = request.headers.get("content-type", "").split(";")[0].strip().lower()
    upload = _Upload(request, versions, team, policy)
    if kind == "multipart/form-data":
        cap = policy.max_upload_bytes + MULTIPART_SLACK
        body = await upload.read(cap, policy.max_upload_bytes)
        row, created = await _take_file(upload, body, key)
    elif kind == "application/json":
        body = await upload.read(MAX_JSON_BYTES, MAX_JSON_BYTES)
        row, created = await _take_url(upload, body, key)
    else:
        raise HTTPException(415, "send a multipart form with the field 'file', or JSON {url} for a URL entry")
    if created:
        request.app.state.arena_board.forget(cid)
    shown = await run_in_threadpool(version_out, versions, competition, row)
    return JSONResponse(shown, status_code=201 if created else 200)


# ------------------------------------------------------------------------------------ the reads


@router.get("/competitions/{cid}/teams/{tid}/versions", response_model=list[VersionOut])  # type: ignore[valid-type]
def list_versions(
    arena: ArenaDep, versions: VersionsDep, caller: CallerDep, cid: CompetitionId, tid: TeamId
) -> list[Any]:
    """The team's versions, newest first. (T own, O)"""
    require_team_or_organizer(caller, cid, tid)
    competition = competition_or_404(arena, cid)
    team_or_404(arena, cid, tid)
    rows = versions.versions(tid)
    # one read of every version's validation matches, not one per version (a team keeps up to 100)
    validation = versions.validation_matches_of(competition.tournament_id, [row.id for row in rows])
    return [version_out(versions, competition, row, validation.get(row.id, [])) for row in rows]


@router.get("/competitions/{cid}/teams/{tid}/versions/{vid}", response_model=VersionOut)
def get_version(
    arena: ArenaDep, versions: VersionsDep, caller: CallerDep, cid: CompetitionId, tid: TeamId, vid: VersionId
) -> Any:
    """One version: state, reason, timestamps, digest, kind, note, validation matches. (T own, O)"""
    require_team_or_organizer(caller, cid, tid)
    competition = competition_or_404(arena, cid)
    team_or_404(arena, cid, tid)
    return version_out(versions, competition, version_or_404(versions, tid, vid))


@router.get(
    "/competitions/{cid}/teams/{tid}/versions/{vid}/source",
    response_class=Response,
    responses={200: {"content": {"application/gzip": {}}, "description": "the canonical tar.gz"}},
)
def get_source(
    arena: ArenaDep, versions: VersionsDep, caller: CallerDep, cid: CompetitionId, tid: TeamId, vid: VersionId
) -> Response:
    """The version's canonical archive (a URL entry has none: 404). (T own, O)"""
    require_team_or_organizer(caller, cid, tid)
    team_or_404(arena, cid, tid)
    row = version_or_404(versions, tid, vid)
    digest = versions.source_artifact(row.id)
    if digest is None:
        raise HTTPException(404, f"version {row.number} is a URL entry: it has no source archive")
    data = versions.store.get_artifact(digest)
    headers = {
        "Content-Disposition": f'attachment; filename="version-{row.number}.tar.gz"',
        "Cache-Control": "private, no-store",
    }
    return Response(data, media_type="application/gzip", headers=headers)


class _Streamed:
    """What an events request resolved before its stream starts (a dependency: refusals are answers)."""

    def __init__(self, competition: CompetitionRow, row: VersionRow) -> None:
        self.competition = competition
        self.row = row


def streamed_version(
    arena: ArenaDep, versions: VersionsDep, caller: CallerDep, cid: CompetitionId, tid: TeamId, vid: VersionId
) -> _Streamed:
    require_team_or_organizer(caller, cid, tid)
    competition = competition_or_404(arena, cid)
    team_or_404(arena, cid, tid)
    return _Streamed(competition, version_or_404(versions, tid, vid))


def event_id(shown: dict[str, Any]) -> str:
    """A fingerprint of what an event shows (its validation matches aside): equal ids, equal states."""
    keep = {k: v for k, v in shown.items() if k != "validation_matches"}
    return hashlib.sha256(json.dumps(keep, sort_keys=True, default=str).encode()).hexdigest()[:16]


@router.get("/competitions/{cid}/teams/{tid}/versions/{vid}/events", response_class=EventSourceResponse)
async def version_events(
    request: Request,
    versions: VersionsDep,
    streamed: Annotated[_Streamed, Depends(streamed_version)],
    last_event_id: Annotated[str | None, Header(max_length=64)] = None,
) -> AsyncIterator[ServerSentEvent]:
    """The version's state changes (`data` the version as GET shows it), until it settles. (T own, O)"""
    closing: threading.Event = request.app.state.arena_closing
    loop = asyncio.get_running_loop()
    started = loop.time()
    last = last_event_id
    row: VersionRow | None = streamed.row
    while row is not None:
        shown = await run_in_threadpool(version_out, versions, streamed.competition, row)
        current = event_id(shown)
        if current != last:
            yield ServerSentEvent(data=shown, id=current, event="version")
            last = current
        if row.state in SETTLED or closing.is_set() or loop.time() - started > STREAM_MAX_S:
            return
        await asyncio.sleep(POLL_S)
        if closing.is_set() or await request.is_disconnected():
            return
        row = await run_in_threadpool(versions.get_version, row.id)


# ------------------------------------------------------------------------------------ the choices


def _choice(
    request: Request,
    arena: ArenaStore,
    versions: ArenaVersions,
    caller: Caller,
    ids: tuple[int, int, int],
    change: Callable[[int, datetime], VersionRow],
) -> Any:
    cid, tid, vid = ids
    require_team(caller, cid, tid)
    competition = competition_or_404(arena, cid)
    team_or_404(arena, cid, tid)
    row = version_or_404(versions, tid, vid)
    if competition.phase in (Phase.FROZEN, Phase.CLOSED):
        raise CodedError(409, "frozen", f"competition {cid} is {competition.phase}: its entries are fixed")
    try:
        changed = change(row.id, wall_clock(request)())
    except (StateRefused, NoSuchVersion) as exc:
        raise CodedError(409, "state", str(exc)) from None
    request.app.state.arena_board.forget(cid)
    return version_out(versions, competition, changed)


@router.post("/competitions/{cid}/teams/{tid}/versions/{vid}/activate", response_model=VersionOut)
def activate(
    request: Request,
    arena: ArenaDep,
    versions: VersionsDep,
    caller: CallerDep,
    cid: CompetitionId,
    tid: TeamId,
    vid: VersionId,
) -> Any:
    """Make a ready version the team's active one (the previous retires). 409 not ready, frozen. (T)"""
    return _choice(
        request, arena, versions, caller, (cid, tid, vid), lambda v, at: versions.activate(v, at=at)
    )


@router.post("/competitions/{cid}/teams/{tid}/versions/{vid}/retire", response_model=VersionOut)
def retire(
    request: Request,
    arena: ArenaDep,
    versions: VersionsDep,
    caller: CallerDep,
    cid: CompetitionId,
    tid: TeamId,
    vid: VersionId,
) -> Any:
    """Stop a ready or active version playing. 409 already retired (or other states), frozen. (T)"""
    return _choice(request, arena, versions, caller, (cid, tid, vid), lambda v, at: versions.retire(v, at=at))


__all__ = ["SCRATCH_TROUBLE", "SETTLED", "VersionOut", "router", "utc_now"]
