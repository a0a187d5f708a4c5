"""Unit tests of the server's pieces without HTTP: the §7.1 serialisation helpers, the rate limit's
sliding window, the config file's strict parsing, and the lobby's move validation."""

from __future__ import annotations

from pathlib import Path

import pytest

from botarena.server.datspulse import wire
from botarena.server.datspulse.ratelimit import SlidingWindowLimiter
from botarena.server.datspulse.series import lobby_move_errors
from botarena.server.datspulse.settings import SettingsError, load_settings, parse_settings

TEAMS = [{"name": "alpha", "token": "tok-a"}, {"name": "beta", "token": "tok-b"}]


# ------------------------------------------------------------------------------------ §7.1 numbers


@pytest.mark.parametrize(
    ("seconds", "expected"),
    [(1.5321, 1.533), (1.532, 1.532), (0.0000001, 0.001), (2.0, 2), (0.0, 0), (-0.3, 0), (117.6031, 117.604)],
)
def test_dp71_next_turn_in_is_rounded_up_to_whole_ms(seconds: float, expected: float) -> None:
    value = wire.ceil_ms(seconds)
    assert value == expected
    assert value >= seconds or seconds < 0
    text = wire.dumps(value).decode()
    assert len(text.partition(".")[2]) <= 3  # at most three decimals on the wire
    if expected == int(expected):
        assert "." not in text  # whole seconds go out as integers


def test_dp72_log_times_are_rfc3339_utc_with_nanoseconds() -> None:
    assert wire.rfc3339_nanos(1_752_258_752_213_050_503) == "2025-07-11T18:32:32.213050503Z"
    assert wire.rfc3339_nanos(1_752_258_752_000_000_000) == "2025-07-11T18:32:32.000000000Z"


def test_dp72_round_times_are_whole_seconds_when_whole() -> None:
    assert wire.rfc3339(1_752_259_200.0) == "2025-07-11T18:40:00Z"
    assert wire.rfc3339(1_752_259_200.25) == "2025-07-11T18:40:00.250Z"
    assert wire.parse_rfc3339("2025-07-11T18:40:00Z") == 1_752_259_200.0
    with pytest.raises(ValueError, match="time zone"):
        wire.parse_rfc3339("2025-07-11T18:40:00")


def test_dp71_error_bodies_are_exactly_code_and_message() -> None:
    error = wire.rate_limited(3)
    assert error.body() == b'{"code":6,"message":"too many requests: limit is 3 per second"}'
    assert dict(error.headers) == {"Retry-After": "1"}
    assert wire.no_active_game("[]").body() == (
        b'{"code":1,"message":"no active game: you are too late to register; next rounds: []"}'
    )
    assert (wire.NOT_FOUND.status, wire.METHOD_NOT_ALLOWED.status) == (404, 405)
    assert wire.NOT_FOUND.code == wire.METHOD_NOT_ALLOWED.code == 7


# ------------------------------------------------------------------------------------ §7.1 rate limit


def test_dp71_rate_limit_six_in_any_sliding_two_seconds() -> None:
    limiter = SlidingWindowLimiter(6, 2.0, clock=lambda: 0.0)
    assert [limiter.allow("t", 0.1 * i) for i in range(7)] == [True] * 6 + [False]
    # refused requests are not counted: the window frees up exactly 2 s after the first acceptance
    assert not limiter.allow("t", 1.9)
    assert not limiter.allow("t", 1.95)
    assert limiter.allow("t", 2.0)  # the request at 0.0 is not in (0.0, 2.0]
    assert not limiter.allow("t", 2.05)  # 0.1 .. 0.5 and 2.0 are
    assert limiter.allow("t", 2.1)
    assert limiter.allow("other", 2.1)  # per token


def test_dp71_window_is_half_open_at_its_old_end() -> None:
    limiter = SlidingWindowLimiter(2, 2.0, clock=lambda: 0.0)
    assert limiter.allow("t", 1.0) and limiter.allow("t", 1.5)
    assert not limiter.allow("t", 2.9)  # both in (0.9, 2.9]
    assert limiter.allow("t", 3.0)  # 1.0 is not in (1.0, 3.0]
    assert not limiter.allow("t", 3.4)


def test_dp71_a_burst_after_a_quiet_poll_loop_fits() -> None:
    """§7.1: the window, unlike a bucket, lets a round's first arena and move through after a lobby
    spent polling at the limit."""
    limiter = SlidingWindowLimiter(6, 2.0, clock=lambda: 0.0)
    accepted = sum(limiter.allow("t", i * 0.05) for i in range(200))  # a tight loop for 10 s
    assert accepted <= 6 * 5 + 6
    assert limiter.allow("t", 12.0) and limiter.allow("t", 12.01)


# ------------------------------------------------------------------------------------ config file


def test_settings_file_happy_path(tmp_path: Path) -> None:
    path = tmp_path / "server.toml"
    path.write_text(
        'preset = "ci"\nseed = 5\n[game]\nturns = 12\n'
        '[[teams]]\nname = "alpha"\ntoken = "tok-a"\n[[teams]]\nname = "Vyatich Enjoyers"\ntoken = "tok-b"\n'
    )
    settings = load_settings(path)
    assert settings.teams == {"tok-a": "alpha", "tok-b": "Vyatich Enjoyers"}
    assert settings.config.turns == 12 and settings.config.mode == "realtime"
    assert settings.series_name == "antprotocol-test"
    assert load_settings(path, preset="compat").config.turn_seconds == 2.0  # --preset wins


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"teams": TEAMS, "colour": "red"}, "unknown key 'colour'"),
        ({"teams": [{"name": "a", "token": "t", "extra": 1}]}, "unknown key 'teams.0.extra'"),
        ({"teams": [{"name": "a", "token": "has space"}]}, "printable ASCII"),
        ({"teams": [{"name": "a", "token": ""}]}, "printable ASCII"),
        ({"teams": [{"name": "a", "token": "t"}, {"name": "b", "token": "t"}]}, "token already used"),
        ({"teams": [{"name": "a", "token": "t"}, {"name": "a", "token": "u"}]}, "listed twice"),
        ({"teams": []}, "teams"),
        ({"teams": TEAMS, "preset": "default"}, "plays lockstep"),
        ({"teams": TEAMS, "preset": "nope"}, "unknown preset"),
        ({"teams": TEAMS, "game": {"turns": 0}}, "turns"),
        ({"teams": TEAMS, "game": {"no_such_key": 1}}, "no_such_key"),
        ({"teams": TEAMS, "seed": "12"}, "seed"),
    ],
)
def test_settings_mistakes_are_one_line_errors(data: dict[str, object], message: str) -> None:
    with pytest.raises(SettingsError) as caught:
        parse_settings({"preset": "ci", **data}, source="server.toml")
    text = str(caught.value)
    assert message in text and "\n" not in text and text.startswith("server.toml:")


def test_settings_bad_toml_and_missing_file(tmp_path: Path) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_text('preset = "ci"\npreset = "test"\n')  # a duplicate key is a TOML error
    with pytest.raises(SettingsError, match="not valid TOML"):
        load_settings(bad)
    with pytest.raises(SettingsError, match="cannot read"):
        load_settings(tmp_path / "missing.toml")


def test_cli_bad_config_exits_2_with_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from botarena.cli import main

    path = tmp_path / "server.toml"
    path.write_text('[[teams]]\nname = "a"\ntoken = "t"\n[[teams]]\nname = "b"\ntoken = "t"\n')
    assert main(["datspulse", "serve", "--config", str(path)]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "token already used" in err


# ------------------------------------------------------------------------------------ §7.2 lobby moves


def test_dp72_lobby_moves_are_all_dead_ants() -> None:
    body = {
        "moves": [{"ant": "x", "path": [{"q": 1, "r": 0}]}, 5, {"ant": "y", "path": [{"q": 1.5, "r": 0}]}]
    }
    assert lobby_move_errors(body) == [
        "ant x is dead",
        "invalid move command at index 1",
        "invalid move command at index 2",
    ]
    assert lobby_move_errors({}) == [] and lobby_move_errors({"moves": None}) == []
    with pytest.raises(wire.PublicError) as caught:
        lobby_move_errors({"moves": 3})
    assert caught.value.code == wire.ErrorCode.INVALID_BODY
