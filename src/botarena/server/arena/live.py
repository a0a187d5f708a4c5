"""Live arena matches per the competition's `policy.live` (specs/arena.md, Live): the rule the
spectator gate asks of every live match's header (`botarena.server.spectators.SpectatorGate.govern`),
and who of the live routes' callers is the owner of a match.

What each caller sees of a running match of an arena competition:

| policy | anonymous, a team (its own matches too), another competition's organizer | its organizer |
|---|---|---|
| `after` (default) | nothing: not listed, its stream 404, until it ends; then all of it | all, as played |
| `delayed` | listed as held; step t once step t + `live_delay_turns` is played; all once it ends | all |
| `organizer` | nothing, ever (its replay is public once recorded, as every arena replay is) | all |
| `open` | all, as played | all |

"All" never holds a bot's log for anyone but the organizer: the public stream's header and end
carry every seat's log emptied and marked hidden. A team reads its own seats' logs from
`GET /api/matches/{id}/logs/{seat}` once the match is recorded, not from the live stream: the live
stream is one shared copy per match, the same for every caller who is not its organizer. The policy
a match follows is the one its competition has when its header arrives (a PATCH applies from the
next match on). The server's own organizer key (`X-Organizer-Key`) sees every match as played, as
it does for every tournament.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from botarena.arena.competitions import policy_of
from botarena.arena.policy import ArenaPolicy
from botarena.arena.tokens import PREFIX
from botarena.arena.vocabulary import Role
from botarena.server.spectators import Governed, LivePolicy, SpectatorPolicy

if TYPE_CHECKING:
    from fastapi import Request

    from botarena.server.spectators import SpectatorGate
    from botarena.store.arena_versions import ArenaVersions


def spectator_policy(policy: ArenaPolicy) -> SpectatorPolicy:
    """The gate's policy for an arena policy: `delayed` by `live_delay_turns` steps (0: `open`)."""
    mode = LivePolicy(policy.live.value)
    if mode is LivePolicy.DELAYED and policy.live_delay_turns == 0:
        return SpectatorPolicy.open()
    return SpectatorPolicy(mode, max(1, policy.live_delay_turns))


def govern_arena(gate: SpectatorGate, versions: ArenaVersions) -> None:
    """Make the gate apply each competition's live policy to the matches of its own tournament."""

    def rule(tournament_id: int) -> Governed | None:
        competition = versions.competition_of_tournament(tournament_id)
        if competition is None:
            return None  # a plain tournament: the gate's own policy
        return Governed(competition.id, spectator_policy(policy_of(competition)))

    gate.govern(rule)


def live_owner(request: Request) -> int | None:
    """The competition whose organizer the caller of a live route is (None: anyone else). Only an
    arena token (`ba_...`, or the arena's session cookie) is looked at: the live routes also serve
    callers with other bearer tokens (a worker's live token), who are the public here. A bad arena
    token is 401, as on every arena route."""
    if not hasattr(request.app.state, "arena_auth"):
        return None  # (an app without the arena's routes)
    from botarena.server.arena.auth import SESSION_COOKIE, resolve_caller

    header = request.headers.get("authorization")
    if header is not None:
        scheme, _, value = header.strip().partition(" ")
        if scheme.lower() != "bearer" or not value.strip().startswith(PREFIX):
            return None
    elif not request.cookies.get(SESSION_COOKIE):
        return None
    caller = resolve_caller(request)
    return caller.competition_id if caller.role == Role.ORGANIZER else None
