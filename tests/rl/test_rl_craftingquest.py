"""The Crafting Quest 2 encoding (`botarena.rl.games.craftingquest`): fields land where its docstring
says, actions become the requests it lists, masks allow only what the game accepts, rewards follow
the credit, and whole matches run against in-process and subprocess bots."""

from __future__ import annotations

import sys
import warnings
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from botarena import rl
from botarena.rl.games.craftingquest import (
    ACTIONS,
    BUILD_TOWER,
    BUY,
    CAMP,
    CRAFT,
    DIG,
    DUG,
    END_TURN,
    ERROR_CODES,
    MOVE,
    OWN_TOWER,
    OWN_UNIT,
    PICKUP,
    SCAN,
    SCANNED,
    SELL,
    VECTOR_COUNT,
    VECTORS,
    unit_action,
)
from botarena.runner.verify import verify_replay

O4 = {
    "id": "O4",
    "kind": "simple",
    "price": 57,
    "value": 231,
    "alternatives": [{"R1": 20, "R2": 10}, {"R1": 8, "R2": 4, "R3": 17}],
}
R1_VECTOR, R2_VECTOR = [1, 1, 1, 1, 1], [2, 1, 1, 1, 1]


def scenario() -> dict[str, Any]:
    """A CQ-26 scenario: 50x50 grass, Water at (4,4), one camp stocking O4 next to the Devil's start
    (3,3), and R1 30 + R2 10 buried under it: enough for O4's alternative 0."""
    rows = [["."] * 50 for _ in range(50)]
    rows[4][4] = "w"
    return {
        "width": 50,
        "height": 50,
        "rounds": 3,
        "terrain": ["".join(row) for row in rows],
        "camps": [{"x": 2, "y": 4, "stock": ["O4"]}, {"x": 47, "y": 45, "stock": ["O4"]}],
        "starts": {"1": [[3, 3], [4, 3], [5, 3]], "2": [[46, 46], [45, 46], [44, 46]]},
        "attribute_values": [4, 5, 4, 4, 5],
        "type_tests": {"R1": {"0": 1}, "R2": {"0": 2}},
        "deposits": [
            {"x": 3, "y": 3, "buried": {"R1": 30, "R2": 10}, "vectors": {"R1": R1_VECTOR, "R2": R2_VECTOR}}
        ],
        "blueprints": [dict(O4)],
    }


UNTIMED = {"scenario": scenario(), "turn_budget_ms": 0}
SMALL = {"width": 50, "height": 50, "rounds": 4}

DEVIL, FOX = 0, 1


@pytest.fixture(autouse=True)
def _quiet_space_warnings() -> Any:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        yield


def last_request(env: Any) -> Any:
    return env.replay().steps[-1]["record"]["request"]


def test_the_first_turn_start_lands_where_the_docstring_says() -> None:
    """Setup (4.1) and turn_start (4.3): terrain, camp, units, team fields and the catalogue."""
    env = rl.gym_env("craftingquest", "wanderer", config=UNTIMED)
    observation, info = env.reset(seed=1)
    grid, units, team, catalogue = (observation[key] for key in ("map", "units", "team", "catalogue"))
    assert env.observation_space.contains(observation)
    assert grid[6, 4, 4] == 1 and grid[0, 4, 4] == 0  # CQ-3 code 6 (water) at (x=4, y=4)
    assert grid[0, 3, 3] == 1  # grass under the Devil
    assert grid[CAMP, 4, 2] == 1
    assert grid[OWN_UNIT + DEVIL, 3, 3] == 1 and grid[OWN_UNIT + FOX, 3, 4] == 1
    assert grid[8].sum() > 0 and grid[8, 40, 40] == 0  # seen near the start only
    assert list(units[DEVIL, :3]) == [3, 3, 150]
    assert units[DEVIL, 28 + 3] == 1 and units[FOX, 28 + 3] == 0  # O4 stocked within camp_radius (CQ-45)
    assert list(team[:7]) == [1, 1, 2, 300, 200, 0, 1]
    assert catalogue[3, :3].tolist() == [0, 57, 231]
    assert catalogue[3, 3 + 0] == 20 and catalogue[3, 3 + 1] == 10  # alternative 0: R1 20, R2 10
    assert catalogue[3, 3 + 24 + 2] == 17  # alternative 1: R3 17
    assert catalogue[0].sum() == 0  # O1 is not in this scenario's catalogue
    mask = info["action_mask"]
    assert mask.dtype == np.int8 and mask.shape == (ACTIONS,)
    assert mask[END_TURN] == 1
    assert mask[unit_action(DEVIL, BUY + 3)] == 1 and mask[unit_action(FOX, BUY + 3)] == 0
    assert mask[unit_action(DEVIL, MOVE + 6)] == 1  # (3,4) is grass
    assert mask[unit_action(DEVIL, MOVE + 7)] == 0  # (4,4) is water: CQ-37 TerrainError for a Devil
    assert mask[unit_action(DEVIL, MOVE + 5)] == 0  # (2,4) is the camp: ObstacleError
    assert mask[unit_action(2, MOVE + 6)] == 1  # the Crocodile may go on (5,4)
    env.close()


def test_buy_dig_pickup_craft_sell_chain_its_payloads_masks_and_rewards() -> None:
    """CQ-45, CQ-39, CQ-41, CQ-43, CQ-44 through the env: the requests sent, the masks in between,
    and the credit changes as step rewards; the higher credit wins (+1, spec 6)."""
    env = rl.gym_env("craftingquest", "wanderer", config=UNTIMED)
    env.reset(seed=1)

    _, reward, *_, info = env.step(unit_action(DEVIL, BUY + 3))
    assert last_request(env) == {"action": "buy", "unit": 3, "blueprint": "O4"}
    assert reward == pytest.approx(-0.057)
    assert info["action_mask"][unit_action(DEVIL, BUY + 3)] == 0  # owned now
    assert info["action_mask"][unit_action(DEVIL, PICKUP)] == 0  # buried R1 not known before a dig

    observation, reward, *_, info = env.step(unit_action(DEVIL, DIG))
    assert last_request(env) == {"action": "dig", "unit": 3}
    assert reward == 0.0
    assert observation["map"][DUG, 3, 3] == 40
    assert observation["team"][7 + 3] == 1  # O4 owned
    mask = info["action_mask"]
    assert mask[unit_action(DEVIL, PICKUP + 0)] == 1 and mask[unit_action(DEVIL, PICKUP + 1)] == 1
    assert mask[unit_action(DEVIL, PICKUP + 2)] == 0
    assert mask[unit_action(DEVIL, CRAFT + 6)] == 0  # nothing carried yet

    env.step(unit_action(DEVIL, PICKUP + 0))
    assert last_request(env) == {"action": "pickup", "unit": 3, "items": {"R1": 30}}
    observation, *_, info = env.step(unit_action(DEVIL, PICKUP + 1))
    assert last_request(env) == {"action": "pickup", "unit": 3, "items": {"R2": 10}}
    assert observation["map"][DUG, 3, 3] == 0
    assert observation["units"][DEVIL, 3:6].tolist() == [40, 30, 10]
    mask = info["action_mask"]
    assert mask[unit_action(DEVIL, CRAFT + 6)] == 1 and mask[unit_action(DEVIL, CRAFT + 7)] == 0
    assert mask[unit_action(DEVIL, PICKUP + 0)] == 0  # the team took everything it knew of

    observation, *_, info = env.step(unit_action(DEVIL, CRAFT + 6))
    assert last_request(env) == {"action": "craft", "unit": 3, "object": "O4", "alternative": 0}
    assert observation["units"][DEVIL, 4 + 12 + 3] == 1 and observation["units"][DEVIL, 4] == 10
    assert info["action_mask"][unit_action(DEVIL, SELL + 3)] == 1

    observation, reward, *_ = env.step(unit_action(DEVIL, SELL + 3))
    assert last_request(env) == {"action": "sell", "unit": 3, "object": "O4", "quantity": 1}
    assert reward == pytest.approx(0.231)
    assert observation["team"][3] == 474

    total, done = 0.0, False
    while not done:
        _, reward, done, truncated, info = env.step(END_TURN)
        assert not truncated
        total += reward
    assert info["result"]["scores"] == [474.0, 300.0]
    assert total == pytest.approx(1.0)  # the Wanderer never changes its credit; the win is +1
    assert verify_replay(env.replay()).identical
    env.close()


def test_scan_fills_the_scan_planes() -> None:
    """CQ-40: the window is covered, listed cells carry their count and sorted vectors."""
    env = rl.gym_env("craftingquest", "wanderer", config=UNTIMED)
    env.reset(seed=1)
    observation, *_ = env.step(unit_action(DEVIL, SCAN))
    grid = observation["map"]
    assert grid[SCANNED, 0:11, 0:11].all() and grid[SCANNED, 11, 11] == 0  # radius 7 from (3,3)
    assert grid[VECTOR_COUNT, 3, 3] == 2 and grid[VECTOR_COUNT].sum() == 2
    assert grid[VECTORS : VECTORS + 5, 3, 3].tolist() == R1_VECTOR
    assert grid[VECTORS + 5 : VECTORS + 10, 3, 3].tolist() == R2_VECTOR
    env.close()


def test_unmasked_actions_are_refused_by_the_game_not_as_invalid() -> None:
    """Quantities are at least 1, so unmasked choices are well-formed (5.2) and fail CQ checks."""
    env = rl.gym_env("craftingquest", "wanderer", config=UNTIMED)
    _, info = env.reset(seed=1)
    refused = [
        unit_action(DEVIL, SELL + 4),  # nothing carried: SellRequestError
        unit_action(DEVIL, PICKUP + 5),  # R6 is not there: PickupError
        unit_action(DEVIL, 34),  # drop with nothing carried: ResourceMissingError
        unit_action(DEVIL, CRAFT + 6),  # O4 not owned: CraftingError
        unit_action(DEVIL, MOVE + 7),  # water: TerrainError
    ]
    for action in refused:
        assert info["action_mask"][action] == 0
        _, _, _, _, info = env.step(action)
    records = [step["record"] for step in env.replay().steps[-len(refused) :]]
    assert [record["status"] for record in records] == ["OK"] * len(refused)
    assert [record["result"]["error"]["code"] for record in records] == [
        "SellRequestError",
        "PickupError",
        "ResourceMissingError",
        "CraftingError",
        "TerrainError",
    ]
    assert records[0]["request"]["quantity"] == 1
    env.close()


def test_the_waiting_team_and_the_aec_order() -> None:
    """CQ-29: one team acts at a time; the other's observation is zeros and its mask the no-op."""
    env = rl.parallel_env("craftingquest", config=UNTIMED)
    observations, infos = env.reset(seed=1)
    assert infos["player_0"]["acting"] and not infos["player_1"]["acting"]
    assert infos["player_1"]["action_mask"].tolist() == [1] + [0] * (ACTIONS - 1)
    assert all(not value.any() for value in observations["player_1"].values())
    observations, _, _, _, infos = env.step({"player_0": END_TURN, "player_1": unit_action(0, DIG)})
    assert infos["player_1"]["acting"] and not infos["player_0"]["acting"]
    assert observations["player_1"]["units"][DEVIL, :2].tolist() == [46, 46]
    env.close()

    aec = rl.aec_env("craftingquest", config=UNTIMED)
    aec.reset(seed=1)
    assert aec.agent_selection == "player_0"
    aec.step(unit_action(DEVIL, DIG))
    assert aec.agent_selection == "player_0"
    aec.step(END_TURN)
    assert aec.agent_selection == "player_1"
    aec.close()


def test_the_result_that_closes_a_turn_at_the_action_limit_is_answered_late() -> None:
    """CQ-31/CQ-33: the reply to the last allowed action is not awaited; the encoding's late
    end_turn is discarded, so the team's next turn is played (not skipped as owing)."""
    env = rl.parallel_env("craftingquest", config={**UNTIMED, "max_actions_per_turn": 2})
    _, infos = env.reset(seed=1)
    env.step({"player_0": unit_action(DEVIL, DIG)})
    _, _, _, _, infos = env.step({"player_0": unit_action(FOX, DIG)})
    assert infos["player_1"]["acting"]
    observations, _, _, _, infos = env.step({"player_1": END_TURN})
    assert infos["player_0"]["acting"]
    assert observations["player_0"]["team"][1] == 2  # round 2's turn_start
    kinds = Counter(record["kind"] for record in (s["record"] for s in env.replay().steps))
    assert kinds["limit"] == 1 and kinds["no_answer"] == 0
    env.close()


def masked_game(opponents: dict[int, Any], seed: int) -> Counter[str]:
    """A whole match of masked random learners (biased away from end_turn to do more per turn);
    returns the learners' error codes, and checks every observation is in its space."""
    env = rl.parallel_env("craftingquest", config=SMALL, opponents=opponents)
    observations, infos = env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    while env.agents:
        actions = {}
        for agent in env.agents:
            assert env.observation_space(agent).contains(observations[agent])
            legal = np.flatnonzero(infos[agent]["action_mask"])
            if len(legal) > 1 and rng.random() < 0.95:
                legal = legal[1:]
            actions[agent] = int(rng.choice(legal))
        observations, _, _, _, infos = env.step(actions)
    errors: Counter[str] = Counter()
    learners = {int(agent.split("_")[1]) for agent in env.possible_agents}
    for step in env.replay().steps:
        record = step["record"]
        if record.get("seat") in learners and record["kind"] == "action":
            errors[record["status"]] += 1
            if record["result"]["error"]:
                errors[record["result"]["error"]["code"]] += 1
    env.close()
    return errors


@pytest.mark.parametrize(
    "opponents",
    [{}, {1: "random"}, {0: "prospector"}],
    ids=["self-play", "vs-random", "vs-prospector"],
)
def test_masked_random_games_draw_no_invalid_verdict_and_no_refusal(opponents: dict[int, Any]) -> None:
    """Masked actions are accepted by the game: OK verdicts, and no game error except a
    PickupError, which the team cannot foresee (the opponent may empty a dug cell, CQ-41)."""
    errors = masked_game(opponents, seed=3)
    assert errors["OK"] > 50
    assert set(errors) <= {"OK", "PickupError"}, errors


BOT = """
import json, sys
unit = None
for line in sys.stdin:
    envelope = json.loads(line)
    payload = envelope["payload"]
    if envelope["type"] == "start":
        unit = 3 * payload["player"]
        answer = {"ready": True}
    elif envelope["type"] == "end":
        answer = {}
    elif payload["type"] == "turn_start":
        answer = {"action": "dig", "unit": unit}
    else:
        answer = {"action": "end_turn"}
    sys.stdout.write(json.dumps({"id": envelope["id"], "payload": answer}) + "\\n")
    sys.stdout.flush()
"""


def test_gym_env_against_a_subprocess_bot_plays_a_whole_match(tmp_path: Path) -> None:
    """A JSON-lines bot (`cmd:`) as the opponent, untimed (CQ-35): the match ends with a result
    and a replay that reruns."""
    script = tmp_path / "digger.py"
    script.write_text(BOT)
    env = rl.gym_env("craftingquest", f"cmd:{sys.executable} {script}", seat=1, config=UNTIMED)
    observation, info = env.reset(seed=5)
    assert observation["units"][DEVIL, :2].tolist() == [46, 46]
    steps, done = 0, False
    while not done:
        legal = np.flatnonzero(info["action_mask"])
        action = int(legal[-1]) if steps % 4 else END_TURN
        observation, _, done, _, info = env.step(action)
        assert env.observation_space.contains(observation)
        steps += 1
    replay = env.replay()
    assert replay.result["ranks"]
    opponent = [step["record"] for step in replay.steps if step["record"]["seat"] == 0]
    assert [record["request"]["action"] for record in opponent[:2]] == ["dig", "end_turn"]
    assert verify_replay(replay).identical
    env.close()


def test_a_tower_is_offered_only_on_a_cell_known_to_be_empty() -> None:
    """CQ-46: after the Devil's scan shows nothing buried under the Fox, the Fox may build; the
    tower costs 75 credit (step reward) and then blocks the move onto its cell (CQ-37)."""
    env = rl.gym_env("craftingquest", "wanderer", config=UNTIMED)
    _, info = env.reset(seed=1)
    assert info["action_mask"][unit_action(FOX, BUILD_TOWER)] == 0  # nothing known under (4,3)
    _, _, _, _, info = env.step(unit_action(DEVIL, SCAN))
    assert info["action_mask"][unit_action(FOX, BUILD_TOWER)] == 1
    assert info["action_mask"][unit_action(DEVIL, BUILD_TOWER)] == 0  # R1 and R2 are buried at (3,3)
    assert info["action_mask"][unit_action(DEVIL, MOVE + 4)] == 1
    observation, reward, _, _, info = env.step(unit_action(FOX, BUILD_TOWER))
    assert last_request(env) == {"action": "build_tower", "unit": 4}
    assert reward == pytest.approx(-0.075)
    assert observation["map"][OWN_TOWER, 3, 4] == 1
    assert info["action_mask"][unit_action(FOX, BUILD_TOWER)] == 0
    assert info["action_mask"][unit_action(DEVIL, MOVE + 4)] == 0  # (4,3) holds a tower now
    env.close()


def test_a_failed_pickup_forgets_what_the_team_dug_there() -> None:
    """CQ-41: a PickupError means the opponent took some since the dig: the cell's buried
    quantities are unknown again, so its pickups are masked until the next dig."""
    env = rl.gym_env("craftingquest", "wanderer", config=UNTIMED)
    env.reset(seed=1)
    env.step(unit_action(DEVIL, DIG))
    memory = env.unwrapped._matches.encoding.memory[0]
    unit = memory.unit(DEVIL)
    failed = {
        "type": "result",
        "round": 1,
        "ok": False,
        "error": {"code": "PickupError", "reason": "(3, 3) has 25 R1, 30 asked"},
        "action": {"action": "pickup", "unit": 3, "items": {"R1": 30}},
        "energy_spent": 5,
        "drained": [],
        "unit": unit,
        "credit": 300,
        "blueprints_owned": [],
        "towers": [],
        "actions_left": 190,
    }
    assert memory.available((3, 3), "R1") == 30
    memory.absorb(failed)
    assert memory.available((3, 3), "R1") == 0 and memory.planes[DUG, 3, 3] == 0
    assert memory.team[19 + ERROR_CODES.index("PickupError")] == 1 and memory.team[6] == 0
    env.close()


def test_the_spaces_have_the_documented_shapes() -> None:
    """The module docstring's table: the shapes of a 60x60 match and the action count."""
    env = rl.parallel_env("craftingquest", config={"rounds": 1})
    space = env.observation_space("player_0")
    shapes = {key: space[key].shape for key in ("map", "units", "team", "catalogue")}
    assert shapes == {"map": (31, 60, 60), "units": (3, 40), "team": (33,), "catalogue": (12, 51)}
    assert space["map"].dtype == np.uint8 and space["team"].dtype == np.float32
    assert env.action_space("player_0").n == ACTIONS == 253
    env.close()
