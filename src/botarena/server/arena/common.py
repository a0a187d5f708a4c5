"""What the arena's routers share: the path parameters, the store, coded errors and the competition
as the API shows it."""

from __future__ import annotations

import dataclasses
from typing import Annotated, Any

from fastapi import Depends, HTTPException, Path, Request

from botarena.arena.competitions import policy_of
from botarena.arena.vocabulary import Phase
from botarena.server.arena.auth import no_competition
from botarena.server.arena.models import CompetitionOut
from botarena.server.secrecy import Shown, public_view
from botarena.store.arena import ArenaStore, CompetitionCounts, CompetitionRow

MAX_ID = 2**63 - 1
KID_PATTERN = r"^[A-Za-z0-9]{1,32}$"

CompetitionId = Annotated[int, Path(ge=1, le=MAX_ID, description="competition id")]
TeamId = Annotated[int, Path(ge=1, le=MAX_ID, description="team id")]
Kid = Annotated[str, Path(pattern=KID_PATTERN, description="a token's key id")]


class CodedError(HTTPException):
    """An error answer with a `code` beside its one-line `detail` (the spec's rejection codes)."""

    def __init__(self, status: int, code: str, detail: str) -> None:
        super().__init__(status, detail)
        self.code = code


def arena_store(request: Request) -> ArenaStore:
    arena: ArenaStore = request.app.state.arena
    return arena


ArenaDep = Annotated[ArenaStore, Depends(arena_store)]


def competition_or_404(arena: ArenaStore, competition_id: int) -> CompetitionRow:
    found = arena.get_competition(competition_id)
    if found is None:
        raise no_competition(competition_id)
    return found


def competition_out(row: CompetitionRow, counts: CompetitionCounts | None) -> Any:
    """The competition as anyone may read it: no seed, the public policy, the config without the
    game's secret keys until the competition is closed."""
    shown = Shown(seed=False, secret_config=row.phase == Phase.CLOSED)
    config = public_view(row.game, {"config": row.config}, shown)
    fields = dataclasses.asdict(row)
    del fields["seed"]  # (the model has no such field either: belt and braces for a secret)
    fields.update(config=config["config"], hidden=config["hidden"], policy=policy_of(row).public())
    fields["counts"] = dataclasses.asdict(counts or CompetitionCounts())
    return CompetitionOut(**fields)
