"""What an organizer and a team do to a competition (specs/arena.md): create it, add, import or
register teams, make and revoke tokens, change its phase and policy.

Every check happens before anything is written: an unknown game, preset, config key or player count
is the game's own one-line error (as `botarena tournament` gives it), a bad team name or CSV is an
`ArenaError` (a ValueError, one line). The web routes (`botarena.server.arena`) and the CLI
(`botarena.commands.arena`) both call these; neither holds rules of its own.
"""

from __future__ import annotations

import csv
import hmac
import io
import secrets
import unicodedata
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from botarena.arena.policy import ArenaPolicy, parse_policy
from botarena.arena.tokens import IssuedToken, issue
from botarena.arena.vocabulary import Format, Phase, phase_change_allowed
from botarena.core.registry import get_game
from botarena.store.arena import ArenaStore, CompetitionRow, NewToken, TeamRow, TokenRow

MAX_TEAM_NAME = 100
MAX_COMPETITION_NAME = 200
MAX_CSV_TEAMS = 10_000
# Self-registration is open until uploads close: a frozen or closed competition takes no new team.
REGISTRATION_PHASES = frozenset({Phase.DRAFT, Phase.OPEN, Phase.PAUSED})


class ArenaError(ValueError):
    """A request the arena refuses, in one line (the CLI's exit 2; the API's 4xx)."""


class InviteRefused(ArenaError):
    """A registration without the competition's invite code (or to one that takes none)."""


class RegistrationClosed(ArenaError):
    """A registration to a competition that no longer takes teams (frozen or closed)."""


@dataclass(frozen=True, slots=True)
class CompetitionSetup:
    """A competition's game, preset, seats per match, format and config overrides, checked."""

    game: str
    preset: str
    players: int
    format: Format
    config: dict[str, Any]


def check_setup(
    game_id: str,
    *,
    preset: str | None = None,
    players: int | None = None,
    world: bool = False,
    config: Mapping[str, Any] | None = None,
) -> CompetitionSetup:
    """The setup, checked the way `botarena tournament` checks it: UnknownGameError, ConfigError or a
    ValueError for the players, each in one line. `world`: one match of every ready team, up to the
    game's most players (`players` then caps it)."""
    game = get_game(game_id)
    chosen = preset or "default"
    overrides = dict(config or {})
    game.config(chosen, overrides)  # ConfigError: an unknown preset or key, a value out of range
    if world and players is None:
        players = game.max_players
    seats = players if players is not None else game.min_players
    game.check_players(seats)
    if seats < 2:  # (a game may be played alone, e.g. one DatsPulse colony, but not rated)
        raise ValueError(f"an arena match rates 2 or more players, not {seats}")
    return CompetitionSetup(game.id, chosen, seats, Format.WORLD if world else Format.PAIRS, overrides)


def check_name(name: str, what: str = "team", limit: int = MAX_TEAM_NAME) -> str:
    """`name` in its NFC form, stripped, if it can name a team (or competition): 1 to `limit`
    characters, no control characters; else ArenaError."""
    if not isinstance(name, str):
        raise ArenaError(f"a {what} name must be text")
    cleaned = unicodedata.normalize("NFC", name).strip()
    if not cleaned:
        raise ArenaError(f"a {what} name cannot be empty")
    if len(cleaned) > limit:
        raise ArenaError(f"a {what} name has at most {limit} characters (this one has {len(cleaned)})")
    if any(unicodedata.category(ch).startswith("C") for ch in cleaned):
        raise ArenaError(f"a {what} name cannot hold control characters")
    return cleaned


def _new_token() -> tuple[IssuedToken, NewToken]:
    token = issue()
    return token, NewToken(token.kid, token.sha256)


def create_competition(
    arena: ArenaStore,
    name: str,
    setup: CompetitionSetup,
    *,
    policy: Mapping[str, Any] | None = None,
    seed: int | None = None,
    actor: str = "cli",
) -> tuple[CompetitionRow, IssuedToken]:
    """A new competition in phase `draft` and its organizer's token (shown once)."""
    chosen = parse_policy(dict(policy or {}))  # PolicyError, one line
    token, stored = _new_token()
    row = arena.create_competition(
        name=check_name(name, "competition", MAX_COMPETITION_NAME),
        game=setup.game,
        preset=setup.preset,
        config=setup.config,
        players=setup.players,
        format=setup.format.value,
        phase=Phase.DRAFT.value,
        policy=chosen.model_dump(mode="json"),
        # a guessable seed would give away every match seed (DESIGN principle 7)
        seed=secrets.randbelow(2**63) if seed is None else seed,
        organizer=stored,
        actor=actor,
    )
    return row, token


def add_teams(
    arena: ArenaStore, competition_id: int, names: Sequence[str], *, actor: str
) -> list[tuple[TeamRow, IssuedToken]]:
    """New teams, each with its first token (shown once), all or none."""
    cleaned = [check_name(name) for name in names]
    issued = [_new_token() for _ in cleaned]
    rows = arena.add_teams(
        competition_id, [(n, t[1]) for n, t in zip(cleaned, issued, strict=True)], actor=actor
    )
    return [(row, token) for row, (token, _) in zip(rows, issued, strict=True)]


def add_team(arena: ArenaStore, competition_id: int, name: str, *, actor: str) -> tuple[TeamRow, IssuedToken]:
    return add_teams(arena, competition_id, [name], actor=actor)[0]


def read_teams_csv(text: str) -> list[str]:
    """The team names of a CSV file: the first column of each row; a first row `name` (any case) is a
    header; blank rows are skipped. ArenaError (naming the row) for a bad name, a repeated one, or
    a file that is no CSV."""
    try:
        rows = list(csv.reader(io.StringIO(text)))
    except csv.Error as exc:
        raise ArenaError(f"teams file: not CSV ({exc})") from None
    names: list[str] = []
    seen: dict[str, int] = {}
    for number, row in enumerate(rows, start=1):
        if not row or not "".join(row).strip():
            continue
        if number == 1 and row[0].strip().lower() == "name":
            continue
        try:
            name = check_name(row[0])
        except ArenaError as exc:
            raise ArenaError(f"teams file row {number}: {exc}") from None
        if name in seen:
            raise ArenaError(f"teams file row {number}: team {name!r} is already on row {seen[name]}")
        seen[name] = number
        names.append(name)
    if not names:
        raise ArenaError("teams file: no team in it (one team name per row)")
    if len(names) > MAX_CSV_TEAMS:
        raise ArenaError(f"teams file: {len(names)} teams, at most {MAX_CSV_TEAMS} at once")
    return names


def new_token(
    arena: ArenaStore, competition_id: int, team_id: int | None, *, actor: str
) -> tuple[TokenRow, IssuedToken]:
    """Another token for the team (or the organizer, `team_id` None), shown once."""
    token, stored = _new_token()
    return arena.create_token(competition_id, team_id, stored, actor=actor), token


def policy_of(competition: CompetitionRow) -> ArenaPolicy:
    """The competition's policy as stored (defaults for keys a later botarena added)."""
    return parse_policy(competition.policy)


def change_competition(
    arena: ArenaStore,
    competition_id: int,
    *,
    actor: str,
    phase: Phase | None = None,
    force: bool = False,
    policy: Mapping[str, Any] | None = None,
) -> CompetitionRow:
    """Move the competition to `phase` (PhaseChangeRefused when the vocabulary's rule forbids it,
    `frozen` -> `open` only with `force`) and/or change the policy keys `policy` names (PolicyError,
    one line naming the field); both judged on the stored state inside one transaction."""

    def allowed(current: str) -> bool:
        return phase is not None and phase_change_allowed(Phase(current), phase, force=force)

    def changed(current: dict[str, Any]) -> dict[str, Any]:
        return parse_policy(dict(policy or {}), base=parse_policy(current)).model_dump(mode="json")

    return arena.update_competition(
        competition_id,
        actor=actor,
        phase=phase.value if phase is not None else None,
        phase_allowed=allowed,
        policy=changed if policy is not None else None,
        reason="forced" if force else None,
    )


def register_team(
    arena: ArenaStore, competition: CompetitionRow, name: str, invite_code: str
) -> tuple[TeamRow, IssuedToken]:
    """A team registering itself with the competition's invite code: InviteRefused without the right
    code (or when the competition has none), RegistrationClosed once it is frozen or closed."""
    expected = policy_of(competition).invite_code
    if not expected or not hmac.compare_digest(expected.encode(), str(invite_code).encode()):
        raise InviteRefused("wrong invite code")
    if Phase(competition.phase) not in REGISTRATION_PHASES:
        raise RegistrationClosed(f"competition {competition.id} takes no new teams ({competition.phase})")
    return add_team(arena, competition.id, name, actor="register")
