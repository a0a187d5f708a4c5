"""The arena's policy and phases (specs/arena.md: the organizer's policy, PATCH /competitions/{cid})."""

from __future__ import annotations

import pytest

from botarena.arena.policy import ArenaPolicy, LivePolicy, PolicyError, parse_policy
from botarena.arena.vocabulary import Phase, phase_change_allowed


def test_arena_policy_defaults_are_the_specs() -> None:
    policy = ArenaPolicy()
    assert policy.max_upload_bytes == 10 * 1024 * 1024
    assert policy.max_unpacked_bytes == 100 * 1024 * 1024
    assert (policy.max_entries, policy.max_ratio) == (2000, 200)
    assert (policy.uploads_per_hour, policy.uploads_per_day) == (6, 24)
    assert policy.live == LivePolicy.AFTER
    assert policy.allow_url is False


def test_arena_policy_patch_changes_only_the_keys_it_names() -> None:
    base = parse_policy({"uploads_per_hour": 3})
    patched = parse_policy({"live": "open"}, base)
    assert (patched.uploads_per_hour, patched.live) == (3, LivePolicy.OPEN)


@pytest.mark.parametrize(
    ("data", "field"),
    [
        ({"bogus": 1}, "bogus"),
        ({"max_upload_mb": 0}, "max_upload_mb"),
        ({"url_allow": ["not a network"]}, "url_allow"),
        ({"live": "sometimes"}, "live"),
    ],
)
def test_arena_policy_refuses_bad_input_naming_the_field(data: dict[str, object], field: str) -> None:
    with pytest.raises(PolicyError, match=f"^policy {field}"):
        parse_policy(data)


def test_arena_policy_public_view_hides_the_invite_code() -> None:
    assert "invite_code" not in parse_policy({"invite_code": "s3cret-code"}).public()


@pytest.mark.parametrize(
    ("current", "new", "force", "allowed"),
    [
        (Phase.DRAFT, Phase.OPEN, False, True),
        (Phase.OPEN, Phase.PAUSED, False, True),
        (Phase.PAUSED, Phase.OPEN, False, True),
        (Phase.OPEN, Phase.FROZEN, False, True),
        (Phase.FROZEN, Phase.OPEN, False, False),
        (Phase.FROZEN, Phase.OPEN, True, True),
        (Phase.CLOSED, Phase.OPEN, True, False),
        (Phase.OPEN, Phase.DRAFT, False, False),
        (Phase.OPEN, Phase.OPEN, False, True),
    ],
)
def test_arena_phase_changes(current: Phase, new: Phase, force: bool, allowed: bool) -> None:
    assert phase_change_allowed(current, new, force=force) is allowed
