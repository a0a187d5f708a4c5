"""The arena API's bodies and answers. Answers are derived from the store's row dataclasses
(`model_of`), so a column added to a row shows up here without a second field list; what must never
leave the server (a token's hash, a competition's seed, its policy's invite code) is excluded by
name."""

from __future__ import annotations

import dataclasses
import typing
from datetime import datetime
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, create_model

from botarena.arena.vocabulary import Phase
from botarena.store.arena import AuditRow, CompetitionCounts, CompetitionRow, TeamRow, TokenRow


def model_of(
    row: type[Any], name: str, *, exclude: frozenset[str] = frozenset(), **extra: Any
) -> type[BaseModel]:
    """A response model with the fields of the dataclass `row` (their types and defaults) but those in
    `exclude`, plus `extra` (name=(type, default or Field))."""
    hints = typing.get_type_hints(row)
    fields: dict[str, Any] = {}
    for field in dataclasses.fields(row):
        if field.name in exclude:
            continue
        default = field.default if field.default is not dataclasses.MISSING else ...
        fields[field.name] = (hints[field.name], default)
    fields.update(extra)
    model: type[BaseModel] = create_model(name, __config__=ConfigDict(extra="ignore"), **fields)
    return model


CountsOut = model_of(CompetitionCounts, "CountsOut")
CompetitionOut = model_of(
    CompetitionRow,
    "CompetitionOut",
    # the seed determines every match seed; the stored policy holds the invite code
    exclude=frozenset({"seed", "policy"}),
    policy=(dict[str, Any], Field(description="the public policy: every limit and rule but the invite code")),
    counts=(CountsOut, Field(description="teams, versions and matches")),
    hidden=(list[str], Field(default_factory=list, description="config keys withheld until the end")),
)
TeamOut = model_of(TeamRow, "TeamOut", exclude=frozenset({"bot_id"}))
TokenOut = model_of(TokenRow, "TokenOut", exclude=frozenset({"sha256"}))
AuditOut = model_of(AuditRow, "AuditOut")


class TeamAdminOut(BaseModel):
    """A team as its organizer lists it: its tokens by key id and dates, never a secret or a hash."""

    id: int
    name: str
    disabled: bool
    created_at: datetime
    active_version: int | None = Field(description="the number of its active version (None: none)")
    tokens: list[TokenOut] = Field(description="every token of the team, revoked ones too, oldest first")  # type: ignore[valid-type]


class NewTokenOut(BaseModel):
    token: str = Field(description="ba_<kid>_<secret>: shown this once, the server keeps only its hash")
    kid: str


class TeamWithToken(BaseModel):
    team: TeamOut  # type: ignore[valid-type]
    token: str = Field(description="the team's first token, shown this once")


class MeOut(BaseModel):
    role: str = Field(description="team or organizer")
    competition: CompetitionOut  # type: ignore[valid-type]
    team: TeamOut | None = None  # type: ignore[valid-type]
    kid: str = Field(description="the key id of the token this request came with")


class PatchCompetition(BaseModel):
    model_config = ConfigDict(extra="forbid")

    phase: Phase | None = None
    force: bool = Field(False, description="allow frozen -> open")
    policy: dict[str, Any] | None = Field(None, description="the policy keys to change")


class NewTeam(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str = Field(min_length=1, max_length=400)


class Registration(NewTeam):
    invite_code: str = Field(min_length=1, max_length=400)


class SessionLogin(BaseModel):
    model_config = ConfigDict(extra="forbid")

    token: str = Field(min_length=1, max_length=400)
