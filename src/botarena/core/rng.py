"""Named random streams derived from one match seed (DESIGN, *Platform vocabulary*).

`stream(match_seed, "drones.tiebreak")` is a numpy `Generator(PCG64(SeedSequence(...)))` whose
entropy is the match seed followed by four 32-bit words of SHA-256 of the stream name. Streams with
different names are independent, so adding a draw to one never shifts another.
"""

from __future__ import annotations

import hashlib
from functools import lru_cache

import numpy as np

MAX_SEED = 2**64 - 1
BOT_SEED_LIMIT = 2**32


@lru_cache(maxsize=4096)
def _name_words(name: str) -> tuple[int, ...]:
    digest = hashlib.sha256(name.encode("utf-8")).digest()
    return tuple(int.from_bytes(digest[i : i + 4], "little") for i in range(0, 16, 4))


def check_seed(seed: int) -> int:
    """Validate a match seed: an integer in 0..2**64-1."""
    if type(seed) is not int or not 0 <= seed <= MAX_SEED:
        raise ValueError(f"match seed must be an integer in 0..{MAX_SEED}, got {seed!r}")
    return seed


def stream(match_seed: int, name: str) -> np.random.Generator:
    """The random stream called `name` of the match seeded with `match_seed`."""
    check_seed(match_seed)
    entropy = [match_seed & 0xFFFFFFFF, match_seed >> 32, *_name_words(name)]
    return np.random.Generator(np.random.PCG64(np.random.SeedSequence(entropy)))


def bot_seed(match_seed: int, game_id: str, seat: int) -> int:
    """The `bot_seed` (uint32) of a seat: one draw from stream `<game>.bot.<seat>`."""
    return int(stream(match_seed, f"{game_id}.bot.{seat}").integers(0, BOT_SEED_LIMIT))
