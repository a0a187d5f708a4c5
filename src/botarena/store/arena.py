"""The arena's repository (specs/arena.md, part 1): competitions, their teams, tokens and audit log.

    arena = ArenaStore(store)
    competition = arena.create_competition(..., organizer=NewToken(kid, sha256), actor="cli")
    team = arena.add_team(competition.id, "alpha", NewToken(kid, sha256), actor="organizer:...")

It is built on a `Store` through its public API only (`Store.read_session`/`write_session`). The
enum-like columns (phase, role, format) hold the strings of `botarena.arena.vocabulary`, which this
layer does not import: the arena layer checks them before they come here. A token is kept only as
the sha256 of its secret. Every change an actor makes writes its audit entry in the same
transaction. A name already taken is a `NameTaken` (a StoreError with one line): an IntegrityError
never escapes.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, fields
from datetime import datetime
from typing import Any, TypeVar

from sqlalchemy import exc, func, select, update
from sqlalchemy.orm import Session

from botarena.store.models import (
    AuditEntry,
    Bot,
    Competition,
    Match,
    Team,
    Token,
    Tournament,
    Version,
    utcnow,
)
from botarena.store.rows import StoreError
from botarena.store.store import Store

RowT = TypeVar("RowT")
MAX_AUDIT_ROWS = 1000
ARENA_FORMAT = "arena"  # the format of every competition's own tournament row


class NameTaken(StoreError):
    """A competition or team name that is already in use."""


class NoSuchCompetition(StoreError):
    """A competition id the store does not hold."""


class PhaseChangeRefused(StoreError):
    """A phase change the caller's rule refused, judged on the phase inside the transaction."""


@dataclass(frozen=True, slots=True)
class NewToken:
    """A token to store: its key id and the sha256 (hex) of its secret, never the secret."""

    kid: str
    sha256: str


@dataclass(frozen=True, slots=True)
class CompetitionRow:
    id: int
    name: str
    game: str
    preset: str
    config: dict[str, Any]
    players: int
    format: str
    phase: str
    policy: dict[str, Any]
    seed: int
    tournament_id: int
    rating_epoch: int
    created_at: datetime


@dataclass(frozen=True, slots=True)
class CompetitionCounts:
    """How much a competition holds: teams, versions and matches (of every kind)."""

    teams: int = 0
    versions: int = 0
    matches: int = 0


@dataclass(frozen=True, slots=True)
class TeamRow:
    id: int
    competition_id: int
    name: str
    disabled: bool
    bot_id: int
    created_at: datetime


@dataclass(frozen=True, slots=True)
class TokenRow:
    kid: str
    competition_id: int
    team_id: int | None  # None: the organizer's
    role: str
    sha256: str
    created_at: datetime
    last_used_at: datetime | None
    revoked_at: datetime | None


@dataclass(frozen=True, slots=True)
class AuditRow:
    id: int
    at: datetime
    competition_id: int
    actor: str
    action: str
    target: str
    reason: str | None


def _row(cls: type[RowT], obj: object) -> RowT:
    """The frozen row `cls` of an ORM object (the same field names)."""
    return cls(**{field.name: getattr(obj, field.name) for field in fields(cls)})  # type: ignore[arg-type]


class ArenaStore:
    """The arena's reads and writes over one `Store` (thread-safe, as the store is)."""

    def __init__(self, store: Store) -> None:
        self.store = store

    # ------------------------------------------------------------------------- competitions

    def create_competition(
        self,
        *,
        name: str,
        game: str,
        preset: str,
        config: Mapping[str, Any],
        players: int,
        format: str,
        phase: str,
        policy: Mapping[str, Any],
        seed: int,
        organizer: NewToken,
        actor: str,
    ) -> CompetitionRow:
        """A new competition with its own tournament row (format "arena") and its organizer's
        token, in one transaction; NameTaken if the name is in use."""
        with self.store.write_session(f"cannot create competition {name!r}") as session:
            if session.scalar(select(Competition.id).where(Competition.name == name)) is not None:
                raise NameTaken(f"a competition named {name!r} exists already")
            tournament = Tournament(
                name=name,
                game=game,
                format=ARENA_FORMAT,
                preset=preset,
                config=dict(config),
                seed=int(seed),
                options={"players": players, "arena": format},
                status="created",
                created_at=utcnow(),
            )
            session.add(tournament)
            session.flush()
            competition = Competition(
                name=name,
                game=game,
                preset=preset,
                config=dict(config),
                players=players,
                format=format,
                phase=phase,
                policy=dict(policy),
                seed=int(seed),
                tournament_id=tournament.id,
                rating_epoch=0,
                created_at=utcnow(),
            )
            session.add(competition)
            _flush_or_name_taken(session, f"a competition named {name!r} exists already")
            _add_token(session, competition.id, None, "organizer", organizer)
            _audit(session, competition.id, actor, "create_competition", f"competition:{competition.id}")
            return _row(CompetitionRow, competition)

    def get_competition(self, competition_id: int) -> CompetitionRow | None:
        with self.store.read_session("cannot read competitions") as session:
            found = session.get(Competition, competition_id)
            return None if found is None else _row(CompetitionRow, found)

    def find_competition(self, name: str) -> CompetitionRow | None:
        with self.store.read_session("cannot read competitions") as session:
            found = session.scalar(select(Competition).where(Competition.name == name))
            return None if found is None else _row(CompetitionRow, found)

    def list_competitions(self) -> list[CompetitionRow]:
        """Every competition, newest first."""
        with self.store.read_session("cannot read competitions") as session:
            query = select(Competition).order_by(Competition.id.desc())
            return [_row(CompetitionRow, c) for c in session.scalars(query)]

    def counts(self, competition_ids: Iterable[int]) -> dict[int, CompetitionCounts]:
        """Teams, versions and matches of each competition named (zeros for one with none)."""
        wanted = sorted(set(competition_ids))
        if not wanted:
            return {}
        teams = select(Team.competition_id, func.count()).where(Team.competition_id.in_(wanted))
        versions = (
            select(Team.competition_id, func.count())
            .join(Version, Version.team_id == Team.id)
            .where(Team.competition_id.in_(wanted))
        )
        matches = (
            select(Competition.id, func.count())
            .join(Match, Match.tournament_id == Competition.tournament_id)
            .where(Competition.id.in_(wanted))
        )
        found: dict[str, dict[int, int]] = {}
        with self.store.read_session("cannot count the competitions' rows") as session:
            for label, query in (("teams", teams), ("versions", versions), ("matches", matches)):
                grouped = query.group_by(query.selected_columns[0])
                found[label] = {cid: count for cid, count in session.execute(grouped).all()}
        return {
            cid: CompetitionCounts(**{label: by_id.get(cid, 0) for label, by_id in found.items()})
            for cid in wanted
        }

    def update_competition(
        self,
        competition_id: int,
        *,
        actor: str,
        phase: str | None = None,
        phase_allowed: Callable[[str], bool] = lambda current: True,
        policy: Callable[[dict[str, Any]], Mapping[str, Any]] | None = None,
        reason: str | None = None,
    ) -> CompetitionRow:
        """Change the phase (when `phase_allowed(current phase)` says so, else PhaseChangeRefused)
        and/or the policy (`policy(current policy)` gives the new one; what it raises propagates and
        nothing is written), each judged inside the write transaction, so two organizers' changes
        never overwrite each other; an audit entry for each change. NoSuchCompetition for an
        unknown id."""
        with self.store.write_session(f"cannot update competition {competition_id}") as session:
            competition = _locked_competition(session, competition_id)
            if phase is not None and phase != competition.phase:
                if not phase_allowed(competition.phase):
                    raise PhaseChangeRefused(
                        f"competition {competition_id} cannot go from {competition.phase} to {phase}"
                    )
                target = f"competition:{competition_id}"
                _audit(session, competition_id, actor, f"phase:{competition.phase}->{phase}", target, reason)
                competition.phase = phase
            changed = dict(policy(dict(competition.policy))) if policy is not None else None
            if changed is not None and changed != competition.policy:
                competition.policy = changed
                _audit(session, competition_id, actor, "policy", f"competition:{competition_id}", reason)
            session.flush()
            return _row(CompetitionRow, competition)

    # -------------------------------------------------------------------------------- teams

    def add_team(self, competition_id: int, name: str, token: NewToken, *, actor: str) -> TeamRow:
        """A new team with its `bots` row and its first token; NameTaken if the competition has a
        team of that name, NoSuchCompetition for an unknown id."""
        return self.add_teams(competition_id, [(name, token)], actor=actor)[0]

    def add_teams(
        self, competition_id: int, teams: Sequence[tuple[str, NewToken]], *, actor: str
    ) -> list[TeamRow]:
        """Several teams, each with its first token, all or none (one transaction)."""
        names = [name for name, _ in teams]
        repeated = sorted({name for name in names if names.count(name) > 1})
        if repeated:
            raise NameTaken(f"team {repeated[0]!r} is listed twice")
        with self.store.write_session(f"cannot add teams to competition {competition_id}") as session:
            competition = _locked_competition(session, competition_id)
            taken = session.scalar(
                select(Team.name).where(Team.competition_id == competition_id, Team.name.in_(names)).limit(1)
            )
            if taken is not None:
                raise NameTaken(f"competition {competition_id} has a team named {taken!r} already")
            rows = [self._new_team(session, competition, name, token, actor) for name, token in teams]
            return rows

    @staticmethod
    def _new_team(
        session: Session, competition: Competition, name: str, token: NewToken, actor: str
    ) -> TeamRow:
        # the team's bot row: bot names are unique per game, team names only per competition
        bot = Bot(game=competition.game, name=f"arena-{competition.id}/{name}", created_at=utcnow())
        session.add(bot)
        _flush_or_name_taken(session, f"competition {competition.id} has a team named {name!r} already")
        team = Team(
            competition_id=competition.id, name=name, disabled=False, bot_id=bot.id, created_at=utcnow()
        )
        session.add(team)
        _flush_or_name_taken(session, f"competition {competition.id} has a team named {name!r} already")
        _add_token(session, competition.id, team.id, "team", token)
        _audit(session, competition.id, actor, "add_team", f"team:{team.id}")
        return _row(TeamRow, team)

    def get_team(self, team_id: int) -> TeamRow | None:
        with self.store.read_session("cannot read teams") as session:
            found = session.get(Team, team_id)
            return None if found is None else _row(TeamRow, found)

    def teams(self, competition_id: int) -> list[TeamRow]:
        """The competition's teams in the order they were added."""
        with self.store.read_session("cannot read teams") as session:
            query = select(Team).where(Team.competition_id == competition_id).order_by(Team.id)
            return [_row(TeamRow, t) for t in session.scalars(query)]

    # ------------------------------------------------------------------------------- tokens

    def create_token(
        self, competition_id: int, team_id: int | None, token: NewToken, *, actor: str
    ) -> TokenRow:
        """A new token for the team (or, with `team_id` None, the organizer), audited."""
        role = "organizer" if team_id is None else "team"
        with self.store.write_session(f"cannot create a token in competition {competition_id}") as session:
            _locked_competition(session, competition_id)
            if team_id is not None:
                team = session.get(Team, team_id)
                if team is None or team.competition_id != competition_id:
                    raise StoreError(f"no team {team_id} in competition {competition_id}")
            row = _add_token(session, competition_id, team_id, role, token)
            target = f"team:{team_id}" if team_id is not None else "organizer"
            _audit(session, competition_id, actor, "create_token", f"{target} kid:{token.kid}")
            return row

    def find_token(self, kid: str) -> TokenRow | None:
        with self.store.read_session("cannot read tokens") as session:
            found = session.get(Token, kid)
            return None if found is None else _row(TokenRow, found)

    def tokens(self, competition_id: int, team_id: int | None = None) -> list[TokenRow]:
        """The tokens of the competition (of one team, when given), oldest first."""
        query = select(Token).where(Token.competition_id == competition_id)
        if team_id is not None:
            query = query.where(Token.team_id == team_id)
        with self.store.read_session("cannot read tokens") as session:
            return [_row(TokenRow, t) for t in session.scalars(query.order_by(Token.created_at, Token.kid))]

    def touch_token(self, kid: str, at: datetime | None = None) -> None:
        """Stamp the token's last use (a token that is gone is ignored)."""
        with self.store.write_session("cannot update a token") as session:
            session.execute(update(Token).where(Token.kid == kid).values(last_used_at=at or utcnow()))

    def revoke_token(self, kid: str, *, actor: str) -> TokenRow | None:
        """Revoke the token now (a revoked one keeps its first revocation), audited; None if there is
        no such token."""
        with self.store.write_session("cannot revoke a token") as session:
            token = session.get(Token, kid)
            if token is None:
                return None
            if token.revoked_at is None:
                token.revoked_at = utcnow()
                target = f"team:{token.team_id}" if token.team_id is not None else "organizer"
                _audit(session, token.competition_id, actor, "revoke_token", f"{target} kid:{kid}")
                session.flush()
            return _row(TokenRow, token)

    # -------------------------------------------------------------------------------- audit

    def add_audit(
        self, competition_id: int, actor: str, action: str, target: str, reason: str | None = None
    ) -> None:
        with self.store.write_session(
            f"cannot write the audit log of competition {competition_id}"
        ) as session:
            _audit(session, competition_id, actor, action, target, reason)

    def audit(self, competition_id: int, *, limit: int = 200, before: int | None = None) -> list[AuditRow]:
        """The competition's audit entries, newest first, `before` an entry id when given."""
        query = select(AuditEntry).where(AuditEntry.competition_id == competition_id)
        if before is not None:
            query = query.where(AuditEntry.id < before)
        query = query.order_by(AuditEntry.id.desc()).limit(max(1, min(limit, MAX_AUDIT_ROWS)))
        with self.store.read_session("cannot read the audit log") as session:
            return [_row(AuditRow, entry) for entry in session.scalars(query)]


def _locked_competition(session: Session, competition_id: int) -> Competition:
    """The competition, locked for this write transaction on PostgreSQL (SQLite's BEGIN IMMEDIATE
    already holds the whole database); NoSuchCompetition if there is none."""
    query = select(Competition).where(Competition.id == competition_id)
    if session.get_bind().dialect.name == "postgresql":
        query = query.with_for_update()
    found = session.scalar(query)
    if found is None:
        raise NoSuchCompetition(f"no competition {competition_id}")
    return found


def _flush_or_name_taken(session: Session, message: str) -> None:
    """Flush; a unique constraint that fails (another writer took the name meanwhile) is NameTaken."""
    try:
        session.flush()
    except exc.IntegrityError:
        raise NameTaken(message) from None


def _add_token(
    session: Session, competition_id: int, team_id: int | None, role: str, token: NewToken
) -> TokenRow:
    row = Token(
        kid=token.kid,
        competition_id=competition_id,
        team_id=team_id,
        role=role,
        sha256=token.sha256,
        created_at=utcnow(),
    )
    session.add(row)
    _flush_or_name_taken(session, "a token with this key id exists already")
    return _row(TokenRow, row)


def _audit(
    session: Session, competition_id: int, actor: str, action: str, target: str, reason: str | None = None
) -> None:
    session.add(
        AuditEntry(
            at=utcnow(),
            competition_id=competition_id,
            actor=actor[:100],
            action=action[:64],
            target=target[:200],
            reason=reason,
        )
    )
