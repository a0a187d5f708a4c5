"""`GET /api/matches/{id}` and `GET /api/matches/{id}/replay`. A match of a hosted arena answers
through `botarena.server.arena.matches` (its seats' teams and versions; logs only to their team)."""

from __future__ import annotations

import gzip
from typing import TYPE_CHECKING, Any

import orjson
from fastapi import APIRouter, HTTPException, Request
from fastapi.responses import Response

from botarena.server.api_models import MatchDetail, MatchId, match_out, one_line
from botarena.server.routes.context import ContextDep
from botarena.server.secrecy import Shown, is_over, public_view, withholds_config
from botarena.store.arena import ARENA_FORMAT

if TYPE_CHECKING:
    from botarena.store import Store

router = APIRouter(prefix="/api/matches")


@router.get("/{match_id}", response_model=MatchDetail)
def match(request: Request, context: ContextDep, match_id: MatchId) -> Any:
    """One match and its result. An arena match answers in the arena's shape (its seats' teams,
    versions and digests; logs and failures only to their team: server/arena/matches.py)."""
    row = context.match(match_id)
    parent = context.store.get_tournament(row.tournament_id)
    if parent is not None and parent.format == ARENA_FORMAT:
        return _arena_answer(request, match_id, parent.id)
    shown = context.shown(request, Shown.of_match(row.status, parent.status if parent else None))
    return {
        **match_out(row, context.gate, shown),
        "tournament_name": parent.name if parent else None,
        "game": parent.game if parent else None,
    }


@router.get(
    "/{match_id}/replay",
    response_class=Response,
    responses={200: {"content": {"application/json": {}}, "description": "the replay (gzip-encoded)"}},
)
def match_replay(request: Request, context: ContextDep, match_id: MatchId) -> Response:
    row = context.match(match_id)
    store = context.store
    parent = store.get_tournament(row.tournament_id)
    if parent is not None and parent.format == ARENA_FORMAT:
        return _arena_replay(request, match_id, parent.id)  # never another team's logs
    organizer = context.is_organizer(request)
    if not row.replay_hash or not (is_over(row.status) or organizer):
        # (a replay of a match not over would hold its seed: DESIGN principle 7)
        raise HTTPException(404, f"match {match_id} has no replay yet (it is {row.status})")
    shared_secrets = parent is not None and withholds_config(parent.game, parent.config)
    if parent is not None and shared_secrets and not organizer and not is_over(parent.status):
        # the config its siblings still being played share keeps its secret keys to itself
        return public_replay_response(store, match_id, row.replay_hash, parent.game)
    return stored_replay_response(store, match_id, row.replay_hash)


def _arena_answer(request: Request, match_id: int, tournament_id: int) -> Response:
    from botarena.server.arena.matches import arena_match_answer, arena_of

    competition = arena_of(request, tournament_id)
    if competition is None:
        raise HTTPException(404, f"no match {match_id}")
    return arena_match_answer(request, match_id, competition)


def _arena_replay(request: Request, match_id: int, tournament_id: int) -> Response:
    from botarena.server.arena.matches import arena_of, arena_replay_answer

    competition = arena_of(request, tournament_id)
    if competition is None:
        raise HTTPException(404, f"no match {match_id}")
    return arena_replay_answer(request, match_id, competition)


# ------------------------------------------------------------------------------------ replay bytes


def _read_stored(store: Store, match_id: int, digest: str) -> bytes:
    """A recorded replay's bytes as stored. Gone: 404; damaged (its bytes no longer match their
    hash): 410; each with a one-line detail."""
    from botarena.store.replays import ReplayDamaged, ReplayMissing

    try:
        return store.read_replay(digest)
    except ReplayMissing as exc:
        raise HTTPException(404, f"match {match_id}: {one_line(exc)}") from None
    except ReplayDamaged as exc:
        raise HTTPException(410, f"match {match_id}: {one_line(exc)}") from None


def _replay_bytes_response(data: bytes) -> Response:
    headers = {"Cache-Control": "no-store"}
    if data[:2] == b"\x1f\x8b":
        headers["Content-Encoding"] = "gzip"
    return Response(data, media_type="application/json", headers=headers)


def stored_replay_response(store: Store, match_id: int, digest: str) -> Response:
    """A recorded match's replay, from wherever the store keeps replays (its directory, a shared
    location or the database, so a server on any machine shows it), sent gzip-encoded as stored.
    Gone: 404; damaged: 410."""
    return _replay_bytes_response(_read_stored(store, match_id, digest))


def public_replay_response(store: Store, match_id: int, digest: str, game: str) -> Response:
    """A finished match's replay without the secret config keys its tournament's matches share,
    while that tournament is still being played (`botarena.server.secrecy`); its seed is its own
    and shows. Rare (only a config that sets a secret key), so it is decoded and encoded again."""
    data = _read_stored(store, match_id, digest)
    try:
        replay = orjson.loads(gzip.decompress(data) if data[:2] == b"\x1f\x8b" else data)
    except (OSError, EOFError, ValueError) as exc:  # (orjson's decode error is a ValueError)
        detail = f"match {match_id}: the stored replay cannot be read: {one_line(exc)}"
        raise HTTPException(410, detail) from None
    if not isinstance(replay, dict):
        raise HTTPException(410, f"match {match_id}: the stored replay is not a replay object")
    shown = public_view(game, replay, Shown(seed=True, secret_config=False))
    return _replay_bytes_response(gzip.compress(orjson.dumps(shown), compresslevel=6, mtime=0))
