"""The Devops Game's RL encoding (`botarena.rl.games.devops`): where the spec 4 inputs land in the
arrays, which moves the mask allows (never one the engine calls INVALID), which reply payloads an
action makes, the score-delta step rewards, and a Gymnasium learner against an in-process starter and
against a JSON-lines subprocess bot."""

from __future__ import annotations

import sys
import warnings
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from botarena import rl
from botarena.core.game import Step
from botarena.core.protocol import Reply, Request
from botarena.core.registry import get_game
from botarena.core.status import Status
from botarena.games.devops.engine import DevopsEngine
from botarena.games.devops.vocabulary import UnitType
from botarena.rl.encoding import FlatMaskMultiDiscrete, rank_rewards
from botarena.rl.games.devops import (
    ATTACK,
    BASE_BOMB,
    BASE_BUILD,
    BASE_CONTINUE,
    BASE_INCOME,
    BASE_MOVE,
    CONVERT,
    HEAL,
    PLAIN,
    SCORE_SCALE,
    TRAVEL,
    UNIT_CHOICES,
    DevopsEncoding,
    unit_slots,
)

from .rl_testkit import play_masked

GAME = get_game("devops")
SAPPER_SLOT, CLERIC_SLOT, PIONEER_SLOT = 0, 1, 2
# unit choice offsets of the moves without a target (module docstring, "Action, unit dimension")
CONQUER, NEUTRALIZE, GENERATE, DEFEND, FORTIFY, PRAY, DEPLOY, CLEAR, RETIRE = range(PLAIN, PLAIN + 9)


@pytest.fixture(autouse=True)
def _quiet_space_warnings() -> Iterator[None]:
    # unbounded Box spaces and a waiting seat's all-zero observation are by design (module docstring)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        yield


class Scene:
    """A smoke game set up by hand: faction 1's SAPPER (slot 0) east of its base, its enlightened
    CLERIC (slot 1) west of it standing on a second own base tile, its wounded PIONEER (slot 2) on the
    base, which holds faction 1's bomb, and faction 2's FIGHTER south of the base, next to both."""

    def __init__(self) -> None:
        config = GAME.config("smoke", {"starting_units": ["SAPPER", "CLERIC"], "starting_bombs": 1})
        self.engine = DevopsEngine(config, 5, 2)
        state, c = self.engine.state, config
        board = state.board
        self.w, self.h = board.width, board.height
        bx, by = self.base = state.faction(1).base
        self.sapper, self.cleric = (u for u in state.units.values() if u.owner == 1)
        assert (self.sapper.x, self.sapper.y) == ((bx + 1) % self.w, by)  # DV-11 offsets
        assert (self.cleric.x, self.cleric.y) == ((bx - 1) % self.w, by)
        self.cleric.enlightened = True
        board.base[board.index(self.cleric.x, self.cleric.y)] = 1  # an extra base location (DV-33)
        board.bomb[board.index(bx, by)] = 1
        self.pioneer = state.add_unit(1, UnitType.PIONEER, bx, by, 1, c.unit_upkeep["PIONEER"])
        fx, fy = bx, (by + 1) % self.h
        self.fighter = state.add_unit(2, UnitType.FIGHTER, fx, fy, 6, c.unit_upkeep["FIGHTER"])
        self.batch = self.engine.next_requests()
        self.requests = [r for r in self.batch if r.seat == 0]
        self.encoding = DevopsEncoding(self.engine.config, 2)

    def unit_mask(self, mask: np.ndarray[Any, Any], slot: int) -> np.ndarray[Any, Any]:
        start = self.encoding.base_choices + slot * UNIT_CHOICES
        return mask[start : start + UNIT_CHOICES]


@pytest.fixture
def scene() -> Scene:
    return Scene()


def test_the_inputs_land_where_the_docstring_says(scene: Scene) -> None:
    """Spec 4.1/4.2 fields in the `faction`, `units` and `tiles` arrays; bombs only in a SAPPER's
    view (spec 4 hidden information)."""
    observation = scene.encoding.observe(0, scene.requests)
    assert observation in scene.encoding.observation_space
    base_input = scene.requests[0].payload["input"]
    faction = base_input["faction"]
    vector = observation["faction"]
    assert vector[0] == base_input["context"]["turnNumber"] == 1
    assert list(vector[3:5]) == list(scene.base)
    assert vector[5] == faction["gold"] and vector[6] == faction["bombs"] == 1
    assert vector[8] == faction["population"] == 3 and vector[9] == faction["populationCap"]
    assert vector[13] == 0  # empty build slot
    assert list(vector[24:29]) == [200, 350, 700, 500, 850] and vector[29] == 500
    assert vector[36] == 250 and vector[40] == 25  # unitMoveCost FORTIFY, DEPLOY_BOMB

    units = observation["units"]
    assert list(units[SAPPER_SLOT, :6]) == [1, 0, 0, 0, 0, 1]  # present, SAPPER
    assert list(units[SAPPER_SLOT, 6:10]) == [6, 2, 0, 0]  # health, damage, defence, enlightened
    assert list(units[SAPPER_SLOT, 10:14]) == [scene.sapper.x, scene.sapper.y, -1, 0]  # base is west
    assert units[CLERIC_SLOT, 9] == 1 and list(units[CLERIC_SLOT, 12:14]) == [1, 0]
    assert units[PIONEER_SLOT, 6] == 1 and not units[3:].any()

    tiles = observation["tiles"]  # [slot, channel, dy + 1, dx + 1]
    sapper, cleric = tiles[SAPPER_SLOT], tiles[CLERIC_SLOT]
    assert sapper[4, 1, 1] == 1 and sapper[4, :, :2].all()  # DV-9: the 3x3 home is the faction's
    assert sapper[6, :, 2].all() and sapper[6].sum() == 3  # the column east of it is neutral
    west = (slice(None), 1, 0)  # the base, seen from the sapper
    assert list(sapper[west][[0, 3, 7, 8, 9]]) == [1, 1, 1, 1, 1]  # base, mined, current base, own unit
    assert list(sapper[11:16, 1, 0]) == [1, 0, 0, 0, 0] and sapper[16, 1, 0] == 1  # a PIONEER, health 1
    assert cleric[0, 1, 2] == 1 and cleric[3].sum() == 0  # the cleric sees the base, never the bomb
    assert cleric[0, 1, 1] == 1 and cleric[7, 1, 1] == 0  # it stands on a base, not the current one
    assert sapper[10, 2, 0] == 1 and sapper[13, 2, 0] == 1  # the enemy FIGHTER south-west of it
    assert cleric[10, 2, 2] == 1 and cleric[16, 2, 2] == 6
    assert not tiles[3:].any()


def test_a_seat_without_calls_observes_zeros_and_may_only_idle(scene: Scene) -> None:
    encoding = scene.encoding
    observation = encoding.observe(1, [])
    assert observation in encoding.observation_space
    assert not any(part.any() for part in observation.values())
    mask = encoding.action_mask(1, [])
    assert mask.dtype == np.int8 and mask.shape == (int(encoding.action_space.nvec.sum()),)
    assert mask.sum() == 1 + encoding.slots  # IDLE in every dimension
    assert encoding.act(1, [], encoding.action_space.sample()) == []


def test_the_mask_allows_what_the_inputs_allow(scene: Scene) -> None:
    """DV-5 move table, DV-19 costs against the input's gold, and each move's visible conditions."""
    mask = scene.encoding.action_mask(0, scene.requests)
    base = mask[: scene.encoding.base_choices]
    assert list(base[:9]) == [1, 1, 1, 1, 1, 1, 0, 0, 1]  # SAPPER 850 > gold; slot empty; bomb 500
    assert list(np.flatnonzero(base[BASE_MOVE:])) == [CLERIC_SLOT]  # DV-29: the cleric's base tile

    sapper = scene.unit_mask(mask, SAPPER_SLOT)
    assert list(np.flatnonzero(sapper[TRAVEL : TRAVEL + 8])) == [0, 3, 4, 5, 6, 7]  # 1, 2 occupied
    assert list(np.flatnonzero(sapper[ATTACK : ATTACK + 8])) == [2]  # the fighter at (x-1, y+1)
    assert not sapper[HEAL:].any()  # no HEAL, no CONVERT for a SAPPER (DV-5)
    allowed = {i for i in range(PLAIN, ATTACK) if sapper[i]}
    assert allowed == {DEFEND, DEPLOY, RETIRE}  # own unrigged tile, 1 bomb, 25 gold (DV-42)

    cleric = scene.unit_mask(mask, CLERIC_SLOT)
    assert list(np.flatnonzero(cleric[HEAL : HEAL + 8])) == [6]  # the wounded pioneer east (DV-40)
    assert list(np.flatnonzero(cleric[CONVERT : CONVERT + 8])) == [7]  # enlightened, 3 < cap (DV-41)
    assert list(np.flatnonzero(cleric[ATTACK : ATTACK + 8])) == [7]
    assert {i for i in range(PLAIN, ATTACK) if cleric[i]} == {PRAY, RETIRE}

    pioneer = scene.unit_mask(mask, PIONEER_SLOT)
    assert not pioneer[CLEAR] and not pioneer[CONQUER] and not pioneer[NEUTRALIZE]  # bombs unseen
    assert pioneer[GENERATE] and list(np.flatnonzero(pioneer[ATTACK : ATTACK + 8])) == [4]  # (x, y+1)
    empty_slot = scene.unit_mask(mask, 3)
    assert list(np.flatnonzero(empty_slot)) == [0]


def test_actions_become_the_moves_they_name_and_the_engine_applies_them(scene: Scene) -> None:
    encoding = scene.encoding
    action = np.zeros(1 + encoding.slots, dtype=np.int64)
    action[0] = BASE_BUILD + 1  # a WORKER
    action[1 + SAPPER_SLOT] = ATTACK + 2
    action[1 + CLERIC_SLOT] = HEAL + 6
    action[1 + PIONEER_SLOT] = GENERATE
    payloads = encoding.act(0, scene.requests, action)
    fighter, pioneer = scene.fighter.id, scene.pioneer.id
    assert payloads == [
        {"type": "BUILD_UNIT", "unitToBuild": "WORKER"},
        {"type": "ATTACK", "targetUnit": {"id": fighter}},
        {"type": "HEAL", "targetUnit": {"id": pioneer}},
        {"type": "GENERATE_GOLD"},
    ]
    ours = iter(payloads)
    replies = [Reply(r.seat, Status.OK, next(ours) if r.seat == 0 else {"type": "IDLE"}) for r in scene.batch]
    step = scene.engine.apply(replies)
    calls = [c for c in step.record["calls"] if c["faction"] == 1]
    assert [(c["status"], c["outcome"]) for c in calls] == [("OK", "applied")] * 4
    assert scene.fighter.health == 6 - 2 and scene.pioneer.health == 3  # DV-36, DV-40


def test_choices_without_their_target_become_idle_and_travel_names_the_neighbour(scene: Scene) -> None:
    encoding, requests = scene.encoding, scene.requests
    inputs = [r.payload["input"] for r in requests[1:]]

    def moves(base: int, sapper: int) -> list[Any]:
        action = np.zeros(1 + encoding.slots, dtype=np.int64)
        action[0], action[1] = base, sapper
        return encoding.act(0, requests, action)[:2]

    neighbour = inputs[SAPPER_SLOT]["neighbouringLocations"][5]
    target = {"x": neighbour["x"], "y": neighbour["y"]}
    assert moves(BASE_INCOME, TRAVEL + 5) == [
        {"type": "RECEIVE_INCOME"},
        {"type": "TRAVEL", "targetLocation": target},
    ]
    assert moves(BASE_CONTINUE, ATTACK + 0)[1] == {"type": "IDLE"}  # nobody on neighbour 0
    assert moves(BASE_BOMB, CONVERT + 3) == [{"type": "MANUFACTURE_BOMB"}, {"type": "IDLE"}]
    cleric_tile = {"x": scene.cleric.x, "y": scene.cleric.y}
    assert moves(BASE_MOVE + CLERIC_SLOT, DEPLOY)[0] == {"type": "MOVE_BASE", "baseLocation": cleric_tile}
    assert moves(BASE_MOVE + 7, CLEAR) == [{"type": "IDLE"}, {"type": "CLEAR_BOMB"}]  # slot 7 is empty


def test_step_rewards_are_score_changes_from_the_step_records() -> None:
    """Spec 12's `factions` rows carry each score; turn 1 starts from DV-12's 0."""
    encoding = DevopsEncoding(GAME.config("smoke"), 2)

    def step(turn: int, scores: list[int]) -> Step:
        rows = [[seat + 1, score, 0, 0, 0, 0, 0, 0, 0, 0, 0] for seat, score in enumerate(scores)]
        return Step({"turn": turn, "factions": rows}, [])

    assert encoding.step_rewards(step(1, [25, -100])) == pytest.approx([0.025, -0.1])
    assert encoding.step_rewards(step(2, [60, -100])) == pytest.approx([0.035, 0.0])
    assert encoding.step_rewards(step(1, [0, 10])) == pytest.approx([0.0, 0.01])  # a new game
    assert encoding.step_rewards(step(5, [0, 10])) == [0.0, 0.0]  # turn 4 unseen: no reward


def test_the_space_samples_within_a_flat_mask() -> None:
    space = FlatMaskMultiDiscrete([4, 3, 5])
    space.seed(3)
    mask = np.array([0, 1, 0, 1, 0, 0, 0, 1, 1, 0, 1, 0], dtype=np.int8)
    draws = {tuple(space.sample(mask)) for _ in range(200)}
    assert {d[0] for d in draws} == {1, 3} and {d[1] for d in draws} == {0}  # none allowed: the first
    assert {d[2] for d in draws} == {0, 1, 3}
    assert tuple(space.sample(tuple(np.split(mask, [4, 7])))) in draws | {(1, 0, 0), (3, 0, 0)}


def test_unit_slots_cover_the_largest_population() -> None:
    """DV-3 caps the population; a spawn after a CONVERT may pass it by one (DV-27, DV-41)."""
    assert unit_slots(GAME.config()) == 101
    assert unit_slots(GAME.config("smoke")) == 5 + 144 // 10 + 1
    assert unit_slots(GAME.config("smoke", {"population_cap_max": 2, "starting_units": ["PIONEER"] * 6})) == 6


SKIRMISH = {  # every unit type, bombs and gold, close quarters: every part of the mask is exercised
    "map_width_min": 10,
    "map_width_max": 10,
    "map_height_min": 10,
    "map_height_max": 10,
    "min_tiles_per_faction": 25,
    "turn_limit": 40,
    "starting_units": ["PIONEER", "WORKER", "FIGHTER", "CLERIC", "SAPPER", "PIONEER"],
    "starting_bombs": 2,
    "starting_gold": 3000,
}


def _calls(replay: Any) -> list[dict[str, Any]]:
    return [call for step in replay.steps for call in step["record"]["calls"]]


def test_masked_random_games_never_draw_an_invalid_verdict_and_rewards_add_up() -> None:
    """A masked move is never INVALID (DV-18, DV-19); the step rewards sum to the final score."""
    env = rl.parallel_env("devops", seats=3, config=SKIRMISH)
    applied: Counter[str] = Counter()
    for seed in (1, 2, 3):
        _observations, infos = env.reset(seed=seed)
        spaces = {agent: env.action_space(agent) for agent in env.possible_agents}
        for space in spaces.values():
            space.seed(seed)
        totals = dict.fromkeys(env.possible_agents, 0.0)
        while env.agents:
            actions = {agent: spaces[agent].sample(infos[agent]["action_mask"]) for agent in env.agents}
            _observations, rewards, _, _, infos = env.step(actions)
            for agent, reward in rewards.items():
                totals[agent] += reward
        replay = env.replay()
        calls = _calls(replay)
        assert Counter(call["status"] for call in calls) == {"OK": len(calls)}, seed
        applied.update(call["move"]["type"] for call in calls if call.get("outcome") == "applied")
        ranks = rank_rewards(replay.result["ranks"])
        for seat, agent in enumerate(env.possible_agents):
            expected = replay.result["scores"][seat] * SCORE_SCALE + ranks[seat]
            assert totals[agent] == pytest.approx(expected)
    assert {"BUILD_UNIT", "TRAVEL", "ATTACK", "DEPLOY_BOMB", "MANUFACTURE_BOMB"} <= set(applied)
    env.close()


def test_the_course_wire_model_encodes_too() -> None:
    """`course-2024` inputs lack `mined`, `bombCost` and `activeBonuses` (spec 4, deviations 2, 3)."""
    config = {**SKIRMISH, "wire_model": "course-2024", "turn_limit": 8}
    env = rl.parallel_env("devops", config=config)
    observations, infos = env.reset(seed=4)
    while env.agents:
        for agent, observation in observations.items():
            assert observation in env.observation_space(agent)
        actions = {agent: env.action_space(agent).sample(infos[agent]["action_mask"]) for agent in env.agents}
        observations, _, _, _, infos = env.step(actions)
    assert {call["status"] for call in _calls(env.replay())} == {"OK"}
    env.close()


LINES_BOT = r"""
import json, sys
for line in sys.stdin:
    message = json.loads(line)
    payload = {}
    if message["type"] == "turn":
        call = message["payload"]["call"]
        earns = call == "unit" and message["payload"]["input"]["unit"]["type"] in ("PIONEER", "WORKER")
        payload = {"type": "RECEIVE_INCOME" if call == "base" else "GENERATE_GOLD" if earns else "IDLE"}
    print(json.dumps({"id": message["id"], "payload": payload}), flush=True)
"""


@pytest.mark.parametrize("seat", [0, 1])
def test_a_gym_learner_plays_a_whole_match_against_the_starter(seat: int) -> None:
    env = rl.gym_env("devops", "starter", seat=seat, config={**SKIRMISH, "turn_limit": 12})
    steps, _total, info = play_masked(env, 11)
    replay = env.replay()
    penalised = [call for call in _calls(replay) if call["status"] != "OK"]
    assert not penalised, penalised  # neither seat was penalised (checked first: it explains the rest)
    assert 1 <= steps <= 12 and info["result"]["ranks"]
    assert replay.players[1 - seat]["name"] == "starter"
    env.close()


@pytest.mark.parametrize("seat", [0, 1])
def test_a_gym_learner_plays_a_whole_match_against_a_subprocess_bot(tmp_path: Path, seat: int) -> None:
    script = tmp_path / "lines.py"
    script.write_text(LINES_BOT)
    config = {**SKIRMISH, "turn_limit": 6}
    env = rl.gym_env("devops", f"cmd:{sys.executable} {script}", seat=seat, config=config)
    steps, _total, info = play_masked(env, 12)
    replay = env.replay()
    calls = _calls(replay)
    refused = [call for call in calls if call["status"] != "OK"]
    assert not refused, (refused, replay.logs)  # the process answered every call (first: it names a cause)
    assert info["result"]["ranks"] and steps >= 1
    theirs = [call for call in calls if call["faction"] == 2 - seat]
    assert theirs
    base_moves = {call["move"]["type"] for call in theirs if call["unit"] is None}
    assert base_moves == {"RECEIVE_INCOME"}
    env.close()


def test_requests_of_the_engine_are_what_the_encoding_reads() -> None:
    """The engine's payloads are `{"call": "base"|"unit", "input": ...}` (spec 7.2), base first."""
    engine = DevopsEngine(GAME.config("smoke"), 9, 2)
    requests: list[Request] = [r for r in engine.next_requests() if r.seat == 1]
    assert [r.payload["call"] for r in requests] == ["base", "unit", "unit"]
    encoding = DevopsEncoding(engine.config, 2)
    observation = encoding.observe(1, requests)
    assert observation["units"][:, 0].sum() == 2 and observation["faction"][1] == 12
