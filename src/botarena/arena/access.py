"""Who is calling (specs/arena.md, Auth): anonymous, a team of a competition, or its organizer.

`authenticate` turns a presented token into a `Caller` or None (unknown, revoked, wrong secret, or
no token at all in its shape): the web layer answers all of these alike, 401, so a guesser learns
nothing about which key ids exist.
"""

from __future__ import annotations

from dataclasses import dataclass

from botarena.arena.tokens import TokenError, parse, secret_matches
from botarena.arena.vocabulary import Role
from botarena.store.arena import ArenaStore


@dataclass(frozen=True, slots=True)
class Caller:
    """The resolved caller of a request. `kid` names the token it came with (None: anonymous)."""

    role: Role
    competition_id: int | None = None
    team_id: int | None = None
    kid: str | None = None

    @property
    def actor(self) -> str:
        """How the audit log names this caller: `organizer:<kid>`, `team:<tid>:<kid>` or `anonymous`."""
        if self.role == Role.ORGANIZER:
            return f"organizer:{self.kid}"
        if self.role == Role.TEAM:
            return f"team:{self.team_id}:{self.kid}"
        return "anonymous"

    def is_organizer_of(self, competition_id: int) -> bool:
        return self.role == Role.ORGANIZER and self.competition_id == competition_id

    def is_team(self, competition_id: int, team_id: int) -> bool:
        return self.role == Role.TEAM and self.competition_id == competition_id and self.team_id == team_id


ANONYMOUS = Caller(Role.ANONYMOUS)


def authenticate(arena: ArenaStore, text: str) -> Caller | None:
    """The caller `text` (a token) stands for, or None when it is no valid, unrevoked token."""
    try:
        presented = parse(text)
    except TokenError:
        return None
    stored = arena.find_token(presented.kid)
    if stored is None or stored.revoked_at is not None:
        return None
    if not secret_matches(presented.secret, stored.sha256):
        return None
    role = Role.ORGANIZER if stored.team_id is None else Role.TEAM
    return Caller(role, stored.competition_id, stored.team_id, stored.kid)
