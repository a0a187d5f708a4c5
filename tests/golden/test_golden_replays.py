"""One golden replay per game, compared byte for byte (issue 14: moving code keeps behaviour).

Each game plays one short deterministic match (`GOLDEN`: fixed seed, in-process starter and random
bots, small config overrides) and the replay, without what depends on the machine (the match id,
`created_by`, `time_used_ms` and each reply's `ms`; see `botarena.testing.golden`), must equal
tests/golden/<game>.json byte for byte. The stored file must also re-run through `verify_replay`.

Regenerate after an intended change of behaviour (and say why in the commit):

    BOTARENA_REGEN_GOLDEN=1 pytest tests/golden

Regenerating rewrites the files and passes; review the diff before committing it.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from botarena.core.registry import game_ids, get_game
from botarena.testing.golden import GoldenMatch, check_golden, check_golden_verifies

HERE = Path(__file__).parent
REGENERATE = os.environ.get("BOTARENA_REGEN_GOLDEN") == "1"

GOLDEN: dict[str, GoldenMatch] = {
    "craftingquest": GoldenMatch(["prospector", "random"], 2024, {"width": 50, "height": 50, "rounds": 4}),
    "datspulse": GoldenMatch(["forager", "raider"], 2024, {"turns": 8, "map_hexes_per_team": 300}),
    "devops": GoldenMatch(
        ["starter", "expander", "random"],
        2024,
        {
            "map_width_min": 24,
            "map_width_max": 24,
            "map_height_min": 20,
            "map_height_max": 20,
            "turn_limit": 30,
        },
    ),
    "domains": GoldenMatch(
        ["surveyor", "demo", "random"], 2024, {"number_of_rounds": 40, "board_height": 16, "board_width": 16}
    ),
    "drones": GoldenMatch(["tactician", "random"], 2024, {"rounds": 4, "turn_limit": 10}),
    "rps": GoldenMatch(["copycat", "random"], 2024, {"rounds": 12}),
}


@pytest.mark.parametrize("game_id", sorted(GOLDEN))
def test_replay_is_byte_identical_to_golden(game_id: str) -> None:
    check_golden(get_game(game_id), GOLDEN[game_id], HERE / f"{game_id}.json", regenerate=REGENERATE)


@pytest.mark.parametrize("game_id", sorted(GOLDEN))
def test_golden_replay_verifies(game_id: str) -> None:
    check_golden_verifies(HERE / f"{game_id}.json")


def test_every_registered_game_has_a_golden_replay() -> None:
    assert sorted(GOLDEN) == game_ids()
