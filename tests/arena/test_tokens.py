"""Tokens (specs/arena.md, Auth): `ba_<kid>_<secret>`, only sha256(secret) stored, compared in
constant time, and a malformed token refused in one line that never repeats it."""

from __future__ import annotations

import base64
import hashlib
from pathlib import Path

import pytest
from sqlalchemy import create_engine, text

from botarena.arena.access import authenticate
from botarena.arena.tokens import KID_LENGTH, TokenError, issue, parse, secret_digest, secret_matches
from botarena.arena.vocabulary import Role

from .conftest import ArenaApp


def test_auth_token_shape_is_ba_kid_secret_of_32_random_bytes() -> None:
    token = issue()
    assert token.text == f"ba_{token.kid}_{token.secret}"
    assert len(token.kid) == KID_LENGTH and token.kid.isalnum()
    raw = base64.urlsafe_b64decode(token.secret + "=")
    assert len(raw) == 32 and "=" not in token.secret
    assert parse(token.text).kid == token.kid and parse(token.text).secret == token.secret
    assert issue().text != token.text


def test_auth_a_token_repr_holds_no_secret() -> None:
    token = issue()
    assert token.secret not in repr(token) and token.secret not in repr(parse(token.text))


@pytest.mark.parametrize(
    "bad",
    [
        "",
        "ba_",
        "ba__",
        "Bearer ba_x",
        "xx_abcdefghijkl_" + "A" * 43,
        "ba_abcdefghijk_" + "A" * 43,  # kid one short
        "ba_abcdefghijkl_" + "A" * 42,  # secret one short
        "ba_abcdefghijkl_" + "A" * 43 + "=",  # padding
        " ba_abcdefghijkl_" + "A" * 43,
        "ba_abcdefghijkl_" + "A" * 42 + "!",
        "ba_abcdefghijkl_" + "A" * 42 + "\n",
        "ba_abcdé" + "fghijkl_" + "A" * 43,
        "ba_" + "a" * 5000,
    ],
)
def test_auth_malformed_tokens_are_refused_in_one_line_without_echo(bad: str) -> None:
    with pytest.raises(TokenError) as refused:
        parse(bad)
    # one fixed line, whatever was sent: nothing of it comes back
    assert str(refused.value) == "not an arena token (expected ba_<kid>_<secret>)"


def test_auth_only_the_hash_of_the_secret_is_stored(arena_app: ArenaApp, tmp_path: Path) -> None:
    competition, organizer = arena_app.competition("cup")
    _, team_token = arena_app.team(competition.id, "alpha")
    stored = arena_app.arena.find_token(team_token.kid)
    assert stored is not None and stored.sha256 == hashlib.sha256(team_token.secret.encode()).hexdigest()
    # not one byte of the database file holds a secret or a whole token
    arena_app.store.close()
    engine = create_engine(f"sqlite:///{tmp_path / 'arena.db'}")
    with engine.connect() as conn:
        conn.execute(text("PRAGMA wal_checkpoint(TRUNCATE)"))
    engine.dispose()
    data = b"".join(p.read_bytes() for p in tmp_path.glob("arena.db*"))
    for token in (organizer, team_token):
        assert token.secret.encode() not in data and token.text.encode() not in data
        assert token.sha256.encode() in data


def test_auth_secret_matches_only_its_own_digest() -> None:
    token, other = issue(), issue()
    assert secret_matches(token.secret, secret_digest(token.secret))
    assert not secret_matches(other.secret, secret_digest(token.secret))
    assert not secret_matches(token.secret, "")


def test_auth_authenticate_resolves_roles_and_refuses_wrong_secret_and_revoked(arena_app: ArenaApp) -> None:
    competition, organizer = arena_app.competition("cup")
    team, token = arena_app.team(competition.id, "alpha")
    arena = arena_app.arena
    by_team = authenticate(arena, token.text)
    assert by_team is not None and (by_team.role, by_team.competition_id, by_team.team_id) == (
        Role.TEAM,
        competition.id,
        team.id,
    )
    by_organizer = authenticate(arena, organizer.text)
    assert by_organizer is not None and by_organizer.role == Role.ORGANIZER and by_organizer.team_id is None
    forged = f"ba_{token.kid}_{issue().secret}"  # a known kid with a guessed secret
    assert authenticate(arena, forged) is None
    assert authenticate(arena, f"ba_{'Z' * KID_LENGTH}_{token.secret}") is None  # an unknown kid
    arena.revoke_token(token.kid, actor="test")
    assert authenticate(arena, token.text) is None
