"""Named random streams and seeds (core/rng.py)."""

from __future__ import annotations

import numpy as np
import pytest

from botarena.core.rng import BOT_SEED_LIMIT, MAX_SEED, bot_seed, check_seed, stream


def draws(seed: int, name: str, n: int = 8) -> list[int]:
    return [int(x) for x in stream(seed, name).integers(0, 2**63, size=n)]


def test_same_seed_and_name_give_the_same_draws() -> None:
    assert draws(42, "drones.turns") == draws(42, "drones.turns")
    assert stream(7, "x").random() == stream(7, "x").random()


def test_stream_is_a_numpy_generator() -> None:
    assert isinstance(stream(1, "a"), np.random.Generator)


def test_different_names_give_different_streams() -> None:
    assert draws(42, "drones.turns") != draws(42, "drones.tiebreak")
    assert draws(42, "a.b") != draws(42, "a.c")


def test_different_seeds_give_different_streams() -> None:
    assert draws(1, "drones.turns") != draws(2, "drones.turns")
    # the high 32 bits of the seed matter too
    assert draws(5, "x") != draws(5 + 2**32, "x")


def test_streams_are_independent_of_each_other() -> None:
    """Drawing from one stream never shifts another."""
    a_alone = draws(9, "game.a")
    b = stream(9, "game.b")
    b.integers(0, 100, size=1000)
    assert draws(9, "game.a") == a_alone


def test_bot_seed_is_uint32_and_per_seat() -> None:
    seeds = [bot_seed(s, "drones", seat) for s in range(50) for seat in (0, 1)]
    assert all(type(x) is int and 0 <= x < BOT_SEED_LIMIT for x in seeds)
    assert bot_seed(3, "drones", 0) == bot_seed(3, "drones", 0)
    assert bot_seed(3, "drones", 0) != bot_seed(3, "drones", 1)
    assert bot_seed(3, "drones", 0) != bot_seed(3, "other", 0)
    assert len(set(seeds)) > 90  # 100 draws of 2**32: collisions would be a bug


def test_bot_seed_comes_from_the_named_stream() -> None:
    expected = int(stream(11, "drones.bot.1").integers(0, BOT_SEED_LIMIT))
    assert bot_seed(11, "drones", 1) == expected


@pytest.mark.parametrize("seed", [0, 1, MAX_SEED, 2**32])
def test_check_seed_accepts_the_range(seed: int) -> None:
    assert check_seed(seed) == seed


@pytest.mark.parametrize("seed", [-1, MAX_SEED + 1, 1.0, "3", True, None])
def test_check_seed_rejects_with_one_line(seed: object) -> None:
    with pytest.raises(ValueError) as info:
        check_seed(seed)  # type: ignore[arg-type]
    message = str(info.value)
    assert "match seed" in message and "\n" not in message


def test_stream_checks_the_seed() -> None:
    with pytest.raises(ValueError, match="match seed"):
        stream(-5, "x")
