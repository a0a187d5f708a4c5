"""What every route of the organizer's API shares: one `ServerContext` per app, taken as a dependency."""

from __future__ import annotations

import asyncio
import secrets
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Annotated

from fastapi import Depends, HTTPException, Request

from botarena.server.api_models import INGESTS_AT_ONCE, BoardCache, LiveTournaments
from botarena.server.secrecy import ORGANIZER_HEADER, Shown

if TYPE_CHECKING:
    from botarena.server.live import LiveHub
    from botarena.server.spectators import SpectatorGate
    from botarena.store import MatchRow, Store, TournamentRow


@dataclass
class ServerContext:
    """The app's state: its store, the live hub and the spectator gate in front of it, the organizer
    key (None: nobody sees a running match's secrets) and live token (None: ingest answers 403), the
    SSE heartbeat, and the caches shared by the routes."""

    store: Store
    hub: LiveHub
    gate: SpectatorGate
    organizer_key: str | None = None
    live_token: str | None = None
    heartbeat_s: float = 15.0
    boards: BoardCache = field(default_factory=BoardCache)
    seen_live: LiveTournaments = field(default_factory=LiveTournaments)
    # An ingest request holds its body (up to 8 MiB) and its parsed events (as much again) while it
    # runs: at most INGESTS_AT_ONCE run at once, so that a token holder's parallel posts cannot add
    # up to more than that, whatever the number of connections.
    ingesting: asyncio.Semaphore = field(default_factory=lambda: asyncio.Semaphore(INGESTS_AT_ONCE))

    def is_organizer(self, request: Request) -> bool:
        given = request.headers.get(ORGANIZER_HEADER)
        return bool(self.organizer_key and given) and secrets.compare_digest(
            str(given).encode(), str(self.organizer_key).encode()
        )

    def shown(self, request: Request, shown: Shown) -> Shown:
        """What `request` may see of a match or tournament whose state lets `shown` through."""
        return Shown.everything() if self.is_organizer(request) else shown

    def playing(self) -> dict[int, int]:
        """Tournament id -> its matches being played now, for the tournaments seen live."""
        return self.seen_live.playing(self.gate.live_matches())

    def tournament(self, tournament_id: int) -> TournamentRow:
        row = self.store.get_tournament(tournament_id)
        if row is None:
            raise HTTPException(404, f"no tournament {tournament_id}")
        return row

    def match(self, match_id: int) -> MatchRow:
        row = self.store.get_match(match_id)
        if row is None:
            raise HTTPException(404, f"no match {match_id}")
        return row


def server_context(request: Request) -> ServerContext:
    context: ServerContext = request.app.state.context
    return context


ContextDep = Annotated[ServerContext, Depends(server_context)]
