"""A competition's policy: every limit, quota and rule the organizer can set (`specs/arena.md`), with the
spec's defaults. It is stored as JSON on the competition and changed with `PATCH /competitions/{cid}`;
an unknown key or a value out of range is refused with one line naming the field."""

from __future__ import annotations

import ipaddress
from enum import StrEnum
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

MIB = 1024 * 1024


class LivePolicy(StrEnum):
    """Who may watch an arena match while it runs: nobody until it ends (`after`), everyone `delay_turns`
    behind (`delayed`), only the organizer (`organizer`), or everyone (`open`)."""

    AFTER = "after"
    DELAYED = "delayed"
    ORGANIZER = "organizer"
    OPEN = "open"


class NewVersionRating(StrEnum):
    """Where a team's new version starts: the previous active version's mu with sigma reset
    (`inherit_mu`), the model's prior (`reset`), or the previous version's rating as it is (`continue`)."""

    INHERIT_MU = "inherit_mu"
    RESET = "reset"
    CONTINUE = "continue"


PositiveInt = Annotated[int, Field(ge=1)]


class ArenaPolicy(BaseModel):
    """The policy of one competition. Sizes are MiB, durations seconds."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    # Uploads and the archive checks.
    max_upload_mb: Annotated[float, Field(gt=0, le=1024)] = 10
    max_unpacked_mb: Annotated[float, Field(gt=0, le=4096)] = 100
    max_entries: Annotated[int, Field(ge=1, le=100_000)] = 2000
    max_path_bytes: Annotated[int, Field(ge=16, le=4096)] = 255
    max_path_depth: Annotated[int, Field(ge=1, le=256)] = 20
    max_ratio: Annotated[float, Field(ge=1)] = 200
    allow_native: bool = True
    max_conversions: PositiveInt = 2
    # The whole upload body must arrive within this many seconds of the route starting to read it
    # (a client trickling bytes into a large Content-Length is cut off with 408, whatever its pace).
    upload_timeout_s: Annotated[float, Field(gt=0, le=3600)] = 60
    # How many upload bodies one team may be sending at once (each further one is 429 at the door).
    max_parallel_uploads: Annotated[int, Field(ge=1, le=64)] = 2
    # Quotas.
    uploads_per_hour: PositiveInt = 6
    uploads_per_day: PositiveInt = 24
    kept_versions: PositiveInt = 100
    team_bytes_mb: Annotated[float, Field(gt=0)] = 500
    # URL entries.
    allow_url: bool = False
    url_allow: tuple[str, ...] = ()
    # Validation.
    validation_games: PositiveInt | None = None
    validation_opponent: str | None = None
    validation_preset: str | None = None
    max_timeout_fraction: Annotated[float, Field(ge=0, le=1)] = 0.01
    # Scheduling.
    max_in_flight_per_version: PositiveInt = 1
    placement_share: Annotated[float, Field(ge=0, le=1)] = 0.5
    world_every_s: Annotated[float, Field(gt=0)] = 60
    match_timeout_factor: Annotated[float, Field(gt=1)] = 10
    crash_streak: PositiveInt = 10
    crash_window: PositiveInt = 20
    # Live and ratings.
    # `live`: what a running arena match shows to anyone but its organizer (the server's live routes,
    # botarena.server.arena.live); `live_delay_turns` is D of `delayed` (0 shows every step at once).
    live: LivePolicy = LivePolicy.AFTER
    live_delay_turns: Annotated[int, Field(ge=0, le=100_000)] = 20
    on_new_version: NewVersionRating = NewVersionRating.INHERIT_MU
    # Self-registration: teams may register with this code when it is set.
    invite_code: Annotated[str, Field(min_length=8, max_length=128)] | None = None

    @field_validator("url_allow")
    @classmethod
    def _cidrs(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        for cidr in value:
            try:
                ipaddress.ip_network(cidr, strict=False)
            except ValueError:
                raise ValueError(f"{cidr!r} is not a CIDR network (e.g. 10.1.0.0/16)") from None
        return value

    @property
    def max_upload_bytes(self) -> int:
        return int(self.max_upload_mb * MIB)

    @property
    def max_unpacked_bytes(self) -> int:
        return int(self.max_unpacked_mb * MIB)

    def public(self) -> dict[str, Any]:
        """What anyone may read of the policy: everything but the invite code."""
        return self.model_dump(mode="json", exclude={"invite_code"})


def size_text(size: float) -> str:
    """A byte count as a limit reads in a message: `10 MiB`, `1.5 MiB`, `100 KiB`, `512 bytes`."""
    for unit, scale in (("MiB", MIB), ("KiB", 1024)):
        if size >= scale:
            return f"{size / scale:.2f}".rstrip("0").rstrip(".") + f" {unit}"
    return f"{int(size)} bytes"


class PolicyError(ValueError):
    """A policy that cannot be taken, with one line naming the field."""


def parse_policy(data: dict[str, Any] | None, base: ArenaPolicy | None = None) -> ArenaPolicy:
    """The policy `data` describes, over `base` (a PATCH changes only the keys it names)."""
    merged = {**(base.model_dump() if base else {}), **(data or {})}
    try:
        return ArenaPolicy.model_validate(merged)
    except ValidationError as exc:
        first = exc.errors()[0]
        field = ".".join(str(part) for part in first["loc"]) or "policy"
        raise PolicyError(f"policy {field}: {first['msg']}") from None
