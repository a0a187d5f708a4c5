"""The Domains encoding (`botarena.rl.games.domains`): the arrays of a known payload, the masks against
the engine's own verdicts on every order (DR-12, DR-13, DR-15, DR-16), actions as orders, the step
rewards, and whole matches of a learner against a starter bot and against a subprocess bot."""

from __future__ import annotations

import copy
import sys
import textwrap
import warnings
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
from botarena.games.domains.engine import DomainsEngine
from botarena.rl.games.domains import ABILITY, ATTACK, CHOICES, MOVE, DomainsEncoding
from botarena.runner.verify import verify_replay

SMALL = {"number_of_rounds": 30, "board_height": 12, "board_width": 12}
REFUSALS_OF_INTERLEAVING = {"OWN_UNIT", "NOT_OWNED"}
"""Refusals a masked action can still meet: two of the agent's units sent to one square, a unit
killed earlier in the round (DR-10, DR-11, DR-13)."""


@pytest.fixture(autouse=True)
def _quiet_space_warnings() -> Iterator[None]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        yield


def new_engine(rows: int = 8, cols: int = 8, seats: int = 2) -> DomainsEngine:
    game = get_game("domains")
    config = game.config(overrides={"board_height": rows, "board_width": cols, "number_of_rounds": 5})
    engine = game.new_engine(config, 1, seats)
    assert isinstance(engine, DomainsEngine)
    return engine


def place_unit(
    engine: DomainsEngine, uid: int, player: int, x: int, y: int, energy: int = 5, upgraded: bool = False
) -> None:
    state = engine.state
    q = state.index(x, y)
    if state.unit_owner[uid] >= 0:
        state.unit_at[state.unit_pos[uid]] = -1
    state.unit_owner[uid], state.unit_pos[uid] = player, q
    state.unit_energy[uid], state.unit_upgraded[uid] = energy, upgraded
    state.unit_at[q] = uid


def place_bubble(engine: DomainsEngine, bid: int, colour: int, x: int, y: int, rtp: int = 0) -> None:
    state = engine.state
    q = state.index(x, y)
    state.bubble_colour[bid], state.bubble_pos[bid], state.bubble_rtp[bid] = colour, q, rtp
    state.bubble_at[q] = bid


def set_square(engine: DomainsEngine, x: int, y: int, painter: int | None = None, flag: int = 0) -> None:
    q = engine.state.index(x, y)
    if painter is not None:
        engine.state.painter[q] = painter
    engine.state.ability[q] = flag


def request_of(engine: DomainsEngine, seat: int) -> Request:
    return engine.next_requests()[seat]


# -- observation ------------------------------------------------------------------------------------
def test_a_known_payload_lands_where_the_docstring_says() -> None:
    """Player 1's view of a 2-seat 8x8 board: relative player 0 is player 1 itself (spec section 4)."""
    engine = new_engine()
    engine.state.bonus_at[engine.state.index(4, 4)] = 2
    engine.state.bonus_pos[2] = engine.state.index(4, 4)
    place_unit(engine, 5, 1, 3, 3, energy=7, upgraded=True)  # player 1's second unit: slot 1
    place_bubble(engine, 0, 0, 3, 0, rtp=2)
    set_square(engine, 2, 2, painter=0, flag=4)
    engine.state.drawer[engine.state.index(4, 1)] = 0
    engine.state.drawer_unit[engine.state.index(4, 1)] = 0
    engine.state.points = [30, 12]
    encoding = DomainsEncoding(engine.config, 2)
    observation = encoding.observe(1, [request_of(engine, 1)])
    assert observation in encoding.observation_space
    board, units, scalars = observation["board"], observation["units"], observation["scalars"]
    n = 2
    assert board.shape == (4 * n + 6, 8, 8)
    # painter: player 1's 3x3 (rows 0-2, columns 5-7) is relative 0; player 0's and (2,2) relative 1
    assert board[0].sum() == 9 and board[0, 1, 6] == 1
    assert board[1].sum() == 10 and board[1, 6, 1] == 1 and board[1, 2, 2] == 1
    assert board[n + 1, 4, 1] == 1 and board[n : 2 * n].sum() == 1  # player 0's trail
    assert board[2 * n, 1, 6] == 1 and board[2 * n, 3, 3] == 1 and board[2 * n + 1, 6, 1] == 1
    assert board[3 * n + 1, 3, 0] == 1 and board[3 * n].sum() == 0  # a bubble of player 0's colour
    assert board[4 * n, 3, 3] == 7 and board[4 * n, 6, 1] == 5
    assert board[4 * n + 1].sum() == 1 and board[4 * n + 1, 3, 3] == 1
    assert board[4 * n + 2, 2, 2] == 4 and board[4 * n + 2].sum() == 4
    assert board[4 * n + 3, 3, 0] == 2
    assert board[4 * n + 4, 4, 4] == 1 and board[4 * n + 4].sum() == 1
    assert board[4 * n + 5, 1, 6] == 1 and board[4 * n + 5, 3, 3] == 2 and board[4 * n + 5].sum() == 3
    assert units[0].tolist() == [1, 1, 6, 5, 0] and units[1].tolist() == [1, 3, 3, 7, 1]
    assert not units[2:].any()
    assert scalars.tolist() == [0, 5, 12, 30]  # round, rounds, own points first
    waiting = encoding.observe(1, [])
    assert waiting in encoding.observation_space and not waiting["board"].any()


def test_players_are_seen_from_the_agent_in_a_4_seat_match() -> None:
    """Relative player k is player (me + k) mod n: seat 2 sees players 2, 3, 0, 1 (DR-7's corners)."""
    engine = new_engine(seats=4)
    engine.state.points = [40, 41, 42, 43]
    encoding = DomainsEncoding(engine.config, 4)
    observation = encoding.observe(2, [request_of(engine, 2)])
    board = observation["board"]
    corners = {0: (6, 1), 1: (1, 6), 2: (6, 6), 3: (1, 1)}  # each player's start centre on 8x8
    for relative, player in enumerate([2, 3, 0, 1]):
        x, y = corners[player]
        assert board[relative, x, y] == 1 and board[relative].sum() == 9
        assert board[2 * 4 + relative, x, y] == 1  # its first unit
    assert observation["scalars"][2:].tolist() == [42, 43, 40, 41]
    assert observation["units"][0].tolist() == [1, 6, 6, 5, 0]


# -- masks against the engine -----------------------------------------------------------------------
def crafted_engine() -> DomainsEngine:
    """Player 0's units in every situation of DR-12/13/15/16 (8x8; player 0 owns rows 5-7 x columns 0-2).

    - unit 0 at (7,1), own paint: down and its diagonals off the board; its own unit 2 above; an enemy
      unit to the right (a fight); an enemy-coloured bubble up-left (recoloured).
    - unit 2 at (6,1), own paint, upgraded: may use the ability.
    - unit 4 at (3,4), unpainted: no diagonal; an enemy zone above it (shut out).
    - unit 6 at (1,1) inside an enemy zone {(1,1), (1,2)}: trapped, except towards (1,2).
    """
    engine = new_engine()
    place_unit(engine, 0, 0, 7, 1)
    place_unit(engine, 2, 0, 6, 1, upgraded=True)
    place_unit(engine, 1, 1, 7, 2)
    place_bubble(engine, 0, 1, 6, 0)
    place_unit(engine, 4, 0, 3, 4)
    set_square(engine, 2, 4, painter=1, flag=5)
    place_unit(engine, 6, 0, 1, 1)
    set_square(engine, 1, 1, painter=1, flag=3)
    set_square(engine, 1, 2, painter=1, flag=3)
    return engine


def refusals(engine: DomainsEngine, order: dict[str, Any]) -> list[str]:
    """The refusal codes of `order` played alone by player 0 on a copy of the engine (DR-11)."""
    trial = copy.deepcopy(engine)
    step = trial.apply([Reply(0, Status.OK, {"orders": [order]}), Reply(1, Status.OK, {"orders": []})])
    assert [verdict.status for verdict in step.verdicts] == [Status.OK, Status.OK]
    return [event[4] for event in step.record.get("events", []) if event[0] == 0]


def test_move_masks_are_exactly_the_moves_the_engine_accepts() -> None:
    """DR-12 (diagonal off paint, off board, trapped, shut out) and DR-13 (own unit), order by order."""
    engine = crafted_engine()
    encoding = DomainsEncoding(engine.config, 2)
    request = request_of(engine, 0)
    mask = encoding.action_mask(0, [request]).reshape(encoding.slots, CHOICES)
    slots = [0, 2, 4, 6]  # player 0's unit ids, ascending: slot k is slots[k]
    allowed: dict[int, list[int]] = {}
    for slot, unit in enumerate(slots):
        for direction in range(1, 9):
            refused = refusals(engine, {"unit": unit, "type": "move", "dir": direction})
            assert bool(mask[slot, MOVE + direction - 1]) == (not refused), (unit, direction, refused)
        allowed[unit] = [d for d in range(1, 9) if mask[slot, MOVE + d - 1]]
    assert allowed[0] == [3, 4, 5, 6]  # left, right (fight), UL (bubble), UR
    assert allowed[2] == [1, 3, 4, 5, 6, 7, 8]  # all but down (unit 0); DR is a fight
    assert allowed[4] == [2, 3, 4]  # no diagonal off paint; up is an enemy zone
    assert allowed[6] == [4]  # trapped: only towards the zone's other square
    assert not mask[len(slots) :, 1:].any() and mask[:, 0].all()


def test_attack_and_ability_masks_follow_dr15_and_dr16() -> None:
    engine = crafted_engine()
    encoding = DomainsEncoding(engine.config, 2)
    mask = encoding.action_mask(0, [request_of(engine, 0)]).reshape(encoding.slots, CHOICES)
    attacks = {slot: [d for d in range(1, 9) if mask[slot, ATTACK + d - 1]] for slot in range(4)}
    assert attacks == {0: [4, 5], 1: [3, 8], 2: [], 3: []}  # the enemy unit (7,2), the bubble (6,0)
    assert mask[:4, ABILITY].tolist() == [0, 1, 0, 0]
    assert refusals(engine, {"unit": 2, "type": "ability"}) == []
    assert refusals(engine, {"unit": 0, "type": "ability"}) == ["NOT_UPGRADED"]
    fight = copy.deepcopy(engine).apply(
        [
            Reply(0, Status.OK, {"orders": [{"unit": 0, "type": "attack", "dir": 4}]}),
            Reply(1, Status.OK, {"orders": []}),
        ]
    )
    assert any(event[0] == "fight" for event in fight.record["events"])


# -- actions ----------------------------------------------------------------------------------------
def test_actions_become_orders_of_the_slots_units() -> None:
    engine = crafted_engine()
    encoding = DomainsEncoding(engine.config, 2)
    request = request_of(engine, 0)
    action = np.zeros(encoding.slots, dtype=np.int64)
    action[0] = MOVE + 3  # right: direction 4
    action[1] = ABILITY
    action[2] = ATTACK + 0  # attack up: direction 1
    action[5] = MOVE  # slot 5 holds no unit: no order
    assert encoding.act(0, [request], action) == [
        {
            "orders": [
                {"unit": 0, "type": "move", "dir": 4},
                {"unit": 2, "type": "ability"},
                {"unit": 4, "type": "attack", "dir": 1},
            ]
        }
    ]
    assert encoding.act(0, [request], np.zeros(encoding.slots, dtype=np.int64)) == [{"orders": []}]


def test_the_flat_mask_samples_only_legal_choices() -> None:
    engine = crafted_engine()
    encoding = DomainsEncoding(engine.config, 2)
    mask = encoding.action_mask(0, [request_of(engine, 0)])
    space = encoding.action_space
    space.seed(3)
    rows = mask.reshape(encoding.slots, CHOICES)
    for _ in range(50):
        action = space.sample(mask)
        assert all(rows[slot, choice] for slot, choice in enumerate(action))


# -- rewards ----------------------------------------------------------------------------------------
def test_step_rewards_are_the_points_gain_against_the_others() -> None:
    """DR-33: points gained in a round; the reward is (own gain - the others' mean gain) / scale."""
    engine = new_engine(seats=3)
    encoding = DomainsEncoding(engine.config, 3)
    scale = 8 * 8 * 5 * 1
    assert encoding.step_rewards(Step({"round": 0, "points": [9, 9, 9]}, [])) == [0.0, 0.0, 0.0]
    rewards = encoding.step_rewards(Step({"round": 1, "points": [19, 509, 18]}, []))
    assert rewards == pytest.approx([(10 - 254.5) / scale, (500 - 9.5) / scale, (9 - 255) / scale])
    assert sum(rewards) == pytest.approx(0.0)
    assert encoding.step_rewards(Step({"round": 0, "points": [9, 0, 0]}, []))[0] == pytest.approx(9 / scale)


# -- whole matches ----------------------------------------------------------------------------------
def play_masked(env: Any, seed: int) -> tuple[float, dict[str, Any]]:
    observation, info = env.reset(seed=seed)
    env.action_space.seed(seed)
    total, done = 0.0, False
    while not done:
        assert observation in env.observation_space
        observation, reward, done, truncated, info = env.step(env.action_space.sample(info["action_mask"]))
        assert not truncated
        total += reward
    return total, info


def learner_verdicts_and_refusals(replay: Any, seat: int) -> tuple[set[str], set[str]]:
    statuses = {step["verdicts"][seat][0] for step in replay.steps}
    codes = {
        event[4] for step in replay.steps for event in step["record"].get("events", []) if event[0] == seat
    }
    return statuses, codes


@pytest.mark.parametrize("seats", [2, 4])
def test_masked_random_games_draw_no_invalid_verdict_and_only_interleaving_refusals(seats: int) -> None:
    env = rl.parallel_env("domains", seats=seats, config=SMALL)
    _observations, infos = env.reset(seed=seats)
    for agent in env.possible_agents:
        env.action_space(agent).seed(seats)
    while env.agents:
        actions = {a: env.action_space(a).sample(infos[a]["action_mask"]) for a in env.agents}
        _observations, _rewards, _terms, _truncs, infos = env.step(actions)
    replay = env.replay()
    for seat in range(seats):
        statuses, codes = learner_verdicts_and_refusals(replay, seat)
        assert statuses == {"OK"}
        assert codes <= REFUSALS_OF_INTERLEAVING, codes
    assert verify_replay(replay).identical
    env.close()


def test_a_learner_plays_a_whole_match_against_the_dummy_starter() -> None:
    env = rl.gym_env("domains", "dummy", seat=1, config=SMALL)
    total, info = play_masked(env, seed=4)
    replay = env.replay()
    assert len(replay.steps) == SMALL["number_of_rounds"]
    assert learner_verdicts_and_refusals(replay, 1)[0] == {"OK"}
    assert {step["verdicts"][0][0] for step in replay.steps} == {"OK"}
    assert info["result"]["ranks"] and np.isfinite(total)
    env.close()


SUBPROCESS_BOT = textwrap.dedent(
    """
    import json, random, sys
    rng = random.Random(1)
    for line in sys.stdin:
        envelope = json.loads(line)
        payload = {}
        if envelope["type"] == "turn":
            turn = envelope["payload"]
            mine = [u["id"] for u in turn["units"] if u["player"] == turn["me"]]
            payload = {"orders": [{"unit": u, "type": "move", "dir": rng.randint(1, 4)} for u in mine]}
        sys.stdout.write(json.dumps({"id": envelope["id"], "payload": payload}) + "\\n")
        sys.stdout.flush()
    """
)


@pytest.mark.parametrize("seat", [0, 1])
def test_a_learner_plays_a_whole_match_against_a_subprocess_bot(tmp_path: Path, seat: int) -> None:
    """A JSON-lines bot in its own process (the generic protocol) in the other seat."""
    bot = tmp_path / "walker.py"
    bot.write_text(SUBPROCESS_BOT)
    config = {**SMALL, "number_of_rounds": 12, "setup_timeout_ms": 30000, "turn_timeout_ms": 30000}
    env = rl.gym_env("domains", f"cmd:{sys.executable} {bot}", seat=seat, config=config)
    total, info = play_masked(env, seed=9)
    replay = env.replay()
    other = 1 - seat
    assert len(replay.steps) == 12
    assert {step["verdicts"][other][0] for step in replay.steps} == {"OK"}
    assert any(step["replies"][other]["payload"]["orders"] for step in replay.steps)
    assert learner_verdicts_and_refusals(replay, seat)[0] == {"OK"}
    assert info["result"]["ranks"] and np.isfinite(total)
    env.close()
