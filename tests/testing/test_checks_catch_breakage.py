"""`botarena.testing` catches what each check is for: every check fails on a rock-paper-scissors
variant broken in that one way (and passes on the real game, tests/games/rps), with an
AssertionError that names the game, the check and its rule."""

from __future__ import annotations

import dataclasses
import random
import threading
from collections.abc import Callable
from typing import Any

import pytest

from botarena.core.game import Dynamics, GameInfo, Information, Step
from botarena.core.protocol import Reply, Request
from botarena.core.registry import get_game
from botarena.games.rps.engine import RpsEngine
from botarena.testing import (
    CHECKS,
    RULES,
    check_bad_replies,
    check_declaration,
    check_determinism,
    check_dynamics,
    check_engine_copies,
    check_exchange,
    check_game,
    check_keyframes_json,
    check_payloads_fresh,
    check_requests_are_queries,
    check_seeds_private,
    check_text_renderer,
)

RPS = get_game("rps")


def variant(engine_class: type[RpsEngine] | None = None, **fields: Any) -> GameInfo:
    """RPS with another engine class or other GameInfo fields."""
    if engine_class is not None:
        fields["new_engine"] = engine_class
    return dataclasses.replace(RPS, **fields)


def fails(check: Callable[[GameInfo], None], game: GameInfo, detail: str) -> None:
    name = check.__name__.removeprefix("check_")
    with pytest.raises(AssertionError) as caught:
        check(game)
    message = str(caught.value)
    assert message.startswith(f"rps: check {name} failed: {RULES[name]}"), message
    assert detail in message, message


class LeaksTheSeed(RpsEngine):
    def next_requests(self) -> list[Request]:
        requests = super().next_requests()
        for request in requests:
            request.payload["debug"] = f"match {self.seed}"
        return requests


class LeaksTheOtherBotSeed(RpsEngine):
    def start_requests(self) -> list[Request]:
        requests = super().start_requests()
        requests[0].payload["opponent"] = requests[1].payload["bot_seed"]
        return requests


class ReadsBackItsPayload(RpsEngine):
    """Hands out its own scores list and counts from it afterwards."""

    def next_requests(self) -> list[Request]:
        requests = super().next_requests()
        for request in requests:
            request.payload["scores"] = self.state.scores
        return requests


class HoldsALock(RpsEngine):
    def __init__(self, config: Any, seed: int, num_players: int = 2) -> None:
        super().__init__(config, seed, num_players)
        self.lock = threading.Lock()


class ForgetsOnCopy(RpsEngine):
    """A copy loses the scores (a __reduce__ that keeps only the config)."""

    def __reduce__(self) -> Any:
        return (type(self), (self.config, self.seed, 2))


class StartsATurnPerCall(RpsEngine):
    """Issue 28 item 5, Devops' old bug: every `next_requests()` starts another turn."""

    def __init__(self, config: Any, seed: int, num_players: int = 2) -> None:
        super().__init__(config, seed, num_players)
        self.turns_started = 0

    def next_requests(self) -> list[Request]:
        requests = super().next_requests()
        self.turns_started += 1
        for request in requests:
            request.payload["turnNumber"] = self.turns_started
        return requests


class Unseeded(RpsEngine):
    def keyframe(self) -> dict[str, Any]:
        return {**super().keyframe(), "noise": random.random()}


class CrashesOnJunk(RpsEngine):
    def apply(self, replies: list[Reply]) -> Step:
        for reply in replies:
            reply.payload.get("move")  # AttributeError on a reply that is no object
        return super().apply(replies)


class AcceptsAnything(RpsEngine):
    def apply(self, replies: list[Reply]) -> Step:
        fixed = [
            Reply(r.seat, r.status, r.payload if isinstance(r.payload, dict) else {"move": "rock"})
            for r in replies
        ]
        return super().apply(fixed)


class SetKeyframe(RpsEngine):
    def keyframe(self) -> dict[str, Any]:
        return {**super().keyframe(), "seen": {1, 2}}


class OneSeatAtATime(RpsEngine):
    """Asks seat 0, then seat 1, each in a batch of its own."""

    def __init__(self, config: Any, seed: int, num_players: int = 2) -> None:
        super().__init__(config, seed, num_players)
        self.pending: list[Reply] = []

    def next_requests(self) -> list[Request]:
        requests = super().next_requests()
        return requests[len(self.pending) : len(self.pending) + 1]

    def apply(self, replies: list[Reply]) -> Step:
        self.pending.extend(replies)
        if len(self.pending) < 2:
            return Step({"waiting": True}, [])
        both, self.pending = self.pending, []
        return super().apply(both)


class SkipsTheEnd(RpsEngine):
    def end_requests(self) -> list[Request]:
        return super().end_requests()[:1]


def test_every_check_is_public_and_has_a_rule() -> None:
    import botarena.testing as testing

    assert set(CHECKS) == set(RULES)
    for name, check in CHECKS.items():
        assert getattr(testing, f"check_{name}") is check
        assert f"`{name}`" in (testing.__doc__ or "")


def test_seeds_private_catches_the_match_seed_in_a_turn() -> None:
    fails(check_seeds_private, variant(LeaksTheSeed), "shows the match seed")


def test_seeds_private_catches_another_seats_bot_seed() -> None:
    fails(check_seeds_private, variant(LeaksTheOtherBotSeed), "shows seat 1's bot_seed")


def test_payloads_fresh_catches_an_engine_reading_back_a_payload() -> None:
    fails(check_payloads_fresh, variant(ReadsBackItsPayload), "the game raised TypeError")


def test_engine_copies_catches_a_lock() -> None:
    fails(check_engine_copies, variant(HoldsALock), "cannot pickle '_thread.lock' object")


def test_engine_copies_catches_a_copy_that_plays_on_differently() -> None:
    fails(check_engine_copies, variant(ForgetsOnCopy), "copy.deepcopy after step")


def test_i28_5_requests_are_queries_catches_a_turn_started_per_call() -> None:
    fails(check_requests_are_queries, variant(StartsATurnPerCall), "asked again answers differently")


def test_determinism_catches_unseeded_randomness() -> None:
    fails(check_determinism, variant(Unseeded), "the same seed twice")


def test_bad_replies_catches_an_engine_that_crashes_on_junk() -> None:
    fails(check_bad_replies, variant(CrashesOnJunk), "crashes the match")


def test_bad_replies_catches_junk_judged_ok() -> None:
    fails(check_bad_replies, variant(AcceptsAnything), "judged OK without a warning")


def test_keyframes_json_catches_a_set() -> None:
    fails(check_keyframes_json, variant(SetKeyframe), "is not JSON")


def test_text_renderer_catches_a_renderer_that_raises() -> None:
    def broken(keyframe: Any) -> str:
        return str(keyframe["no such key"])

    fails(check_text_renderer, variant(text_renderer=broken), "KeyError")


def test_dynamics_catches_a_simultaneous_game_asking_one_seat_at_a_time() -> None:
    fails(check_dynamics, variant(OneSeatAtATime), "every batch asks a single seat")


def test_dynamics_catches_an_alternating_game_asking_both_seats() -> None:
    fails(check_dynamics, variant(dynamics=Dynamics.ALTERNATING), "ALTERNATING, but step 1 asks seats [0, 1]")


def test_exchange_catches_a_seat_without_its_end_request() -> None:
    fails(check_exchange, variant(SkipsTheEnd), "seat 1's last request")


def test_declaration_catches_hidden_information_without_a_check() -> None:
    fails(check_declaration, variant(information=Information.HIDDEN), "no hidden_info_check")


def test_declaration_catches_a_secret_config_key_that_is_no_config_key() -> None:
    misspelt = variant(secret_config_keys=frozenset({"sceanrio"}))  # (the server would show the real key)
    fails(check_declaration, misspelt, "['sceanrio'] are not config keys")


def test_declaration_catches_an_unregistered_game() -> None:
    fails(check_declaration, variant(), "returns another GameInfo")


def test_check_game_runs_every_check_and_names_the_first_failure() -> None:
    with pytest.raises(AssertionError, match="rps: check declaration failed"):
        check_game(variant(information=Information.HIDDEN))
    with pytest.raises(ValueError, match="no such checks: nope"):
        check_game(RPS, skip=("nope",))
