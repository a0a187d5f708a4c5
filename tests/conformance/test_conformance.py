"""The conformance suite over every registered game: `botarena.testing`'s checks, one test each.

Parametrized over `botarena.core.registry.all_games()`, so a game is covered as soon as it registers.
What each check asks of a game is in `botarena.testing` (its docstring lists them, and each
check's AssertionError names its rule); this module only parametrizes them. A game keeps its whole
matches short here with `GameInfo.test_overrides`.
"""

from __future__ import annotations

import pytest

from botarena.core.game import GameInfo
from botarena.core.registry import all_games
from botarena.testing import (
    CHECKS,
    check_bad_replies,
    check_declaration,
    check_determinism,
    check_dynamics,
    check_engine_copies,
    check_exchange,
    check_hidden_info,
    check_keyframes_json,
    check_payloads_fresh,
    check_random_play,
    check_replay_reruns,
    check_requests_are_queries,
    check_seeds_private,
    check_starter_bots,
    check_text_renderer,
)

GAMES = all_games()


def game_id(game: GameInfo) -> str:
    return game.id


parametrize_games = pytest.mark.parametrize("game", GAMES, ids=game_id)


def test_every_check_of_botarena_testing_runs_here() -> None:
    module = globals()
    assert all(module.get(f"check_{name}") is check for name, check in CHECKS.items())


@parametrize_games
def test_game_info_declaration_is_consistent(game: GameInfo) -> None:
    check_declaration(game)


@parametrize_games
def test_random_legal_play_to_the_end(game: GameInfo) -> None:
    check_random_play(game)


@parametrize_games
def test_start_turn_end_exchange(game: GameInfo) -> None:
    check_exchange(game)


@parametrize_games
def test_starter_bots_play_each_other(game: GameInfo) -> None:
    check_starter_bots(game)


@parametrize_games
def test_bad_replies_become_statuses(game: GameInfo) -> None:
    check_bad_replies(game)


@parametrize_games
def test_same_seed_same_replay(game: GameInfo) -> None:
    check_determinism(game)


@parametrize_games
def test_written_replay_reruns_identically(game: GameInfo) -> None:
    check_replay_reruns(game)


@parametrize_games
def test_engine_deep_copies_and_pickles_mid_game(game: GameInfo) -> None:
    check_engine_copies(game)


@parametrize_games
def test_i28_5_next_requests_is_a_query(game: GameInfo) -> None:
    check_requests_are_queries(game)


@parametrize_games
def test_keyframes_are_json(game: GameInfo) -> None:
    check_keyframes_json(game)


@parametrize_games
def test_text_renderer_draws_every_keyframe(game: GameInfo) -> None:
    if game.text_renderer is None:
        pytest.skip(f"{game.id} registers no text_renderer")
    check_text_renderer(game)


@parametrize_games
def test_dynamics_matches_the_batches(game: GameInfo) -> None:
    check_dynamics(game)


@parametrize_games
def test_no_request_carries_the_match_seed_or_another_seats_bot_seed(game: GameInfo) -> None:
    check_seeds_private(game)


@parametrize_games
def test_engines_never_read_back_a_payload(game: GameInfo) -> None:
    check_payloads_fresh(game)


@parametrize_games
def test_game_hidden_information_check(game: GameInfo) -> None:
    if game.hidden_info_check is None:
        pytest.skip(f"{game.id} registers no hidden_info_check")
    check_hidden_info(game)
