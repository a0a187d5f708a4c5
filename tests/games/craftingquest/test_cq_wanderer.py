"""The Wanderer starter bot (spec section 10): whole games, untimed (CQ-35), on a generated 60x60 map
and on an explicit small scenario (CQ-26); its credit stays 300, its actions are legal, its turns
follow section 10's order, it avoids what section 10 says to avoid, and it is deterministic from
`bot_seed` (CQ-6)."""

from __future__ import annotations

import functools
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from cq_bots import IdleBot
from cq_testkit import Driver, scenario_e

from botarena.bots.inprocess import PythonBot
from botarena.bots.subprocess import SubprocessBot
from botarena.core.registry import get_game
from botarena.games.craftingquest.bots import STARTERS, Wanderer
from botarena.runner import MatchRun, run_match
from botarena.runner.verify import verify_replay

Payload = dict[str, Any]
ALLOWED_ERRORS = {"NoEnergyError"}  # the only error section 10's task allows for


def small_scenario() -> Payload:
    """Spec 9's scenario E (50x50, two camps, two deposits), cut to 30 rounds."""
    scenario = scenario_e()
    scenario["rounds"] = 30
    return scenario


@functools.cache
def generated_game() -> MatchRun:
    """A whole default game (a generated 60x60 map, 160 rounds), untimed, Wanderer against Wanderer."""
    game = get_game("craftingquest")
    config = game.config(overrides={"turn_budget_ms": 0})
    bots = [PythonBot(Wanderer, "wanderer"), PythonBot(Wanderer, "wanderer")]
    return run_match(game, bots, config=config, seed=3)


def small_game(seed: int, wanderer_seat: int) -> MatchRun:
    game = get_game("craftingquest")
    config = game.config(overrides={"scenario": small_scenario(), "turn_budget_ms": 0})
    bots = [PythonBot(IdleBot, "idle"), PythonBot(IdleBot, "idle")]
    bots[wanderer_seat] = PythonBot(Wanderer, "wanderer")
    return run_match(game, bots, config=config, seed=seed)


def log_entries(run: MatchRun) -> Iterator[Payload]:
    """Every spec 7.4 log entry, in order: those between batches (`before`), then the step's own."""
    for step in run.replay.steps:
        record = step["record"]
        yield from record.get("before", [])
        yield record


def actions_of(run: MatchRun, seat: int) -> list[Payload]:
    return [e for e in log_entries(run) if e["seat"] == seat and e["kind"] in ("action", "late_action")]


def assert_plays_like_section_10(run: MatchRun, seat: int, rounds: int) -> None:
    """Every turn: each unit digs once, in id order, then moves; the turn ends with `end_turn`.
    Never an error but NoEnergyError, never a late or skipped turn, the credit stays 300."""
    entries = [e for e in log_entries(run) if e["seat"] == seat]
    assert {e["kind"] for e in entries} <= {"action", "end_turn"}
    assert sum(e["kind"] == "end_turn" for e in entries) == rounds
    assert entries[-1]["round"] == rounds
    units = [3 * (seat + 1) + i for i in range(3)]
    turn: list[Payload] = []
    for entry in entries:
        if entry["kind"] != "end_turn":
            turn.append(entry)
            continue
        digs = [e["request"]["unit"] for e in turn if e["request"]["action"] == "dig"]
        assert digs == units  # one dig per unit, in id order
        for e in turn:
            assert e["request"]["action"] in ("dig", "move")
            assert e["status"] == "OK"
            error = e["result"]["error"]
            assert error is None or error["code"] in ALLOWED_ERRORS, error
        # a unit's moves come after its dig and before the next unit's
        acting = [e["request"]["unit"] for e in turn]
        assert acting == sorted(acting)
        turn = []
    assert run.result.scores[seat] == 300.0


def test_s10_wanderer_plays_a_whole_generated_game() -> None:
    run = generated_game()
    scenario = run.replay.config["scenario"]  # the effective CQ-26 record
    rounds = scenario["rounds"]
    assert (scenario["width"], scenario["height"], rounds) == (60, 60, 160)  # CQ-13's width rule
    for seat in (0, 1):
        assert_plays_like_section_10(run, seat, rounds)
        assert len(actions_of(run, seat)) > 3 * rounds  # it does move, not only dig
    assert run.result.scores == [300.0, 300.0]


def test_s10_wanderer_moves_only_with_25_energy_or_more() -> None:
    """Energy before each move (the unit's energy in the previous step's state) is at least 25."""
    run = generated_game()
    energy: dict[int, int] = {}
    moves = 0
    for step in run.replay.steps:
        record = step["record"]
        if record["kind"] == "action" and record["request"]["action"] == "move":
            assert energy[record["request"]["unit"]] >= 25
            moves += 1
        for unit in record["state"]["units"]:
            energy[unit["id"]] = unit["energy"]
    assert moves > 0


def test_s10_wanderer_on_an_explicit_small_scenario_from_both_seats() -> None:
    for seat in (0, 1):
        run = small_game(seed=4, wanderer_seat=seat)
        assert_plays_like_section_10(run, seat, 30)
        assert run.result.scores == [300.0, 300.0]
        assert verify_replay(run.replay).identical


def test_cq6_wanderer_is_deterministic_from_its_seed() -> None:
    """The same match seed (so the same `bot_seed`) gives the same actions."""
    first, second = small_game(seed=9, wanderer_seat=0), small_game(seed=9, wanderer_seat=0)
    assert [e["request"] for e in actions_of(first, 0)] == [e["request"] for e in actions_of(second, 0)]


def first_turn_actions(bot_seed: int) -> list[Payload]:
    """The Wanderer's actions in its first turn on scenario E, its `setup` carrying `bot_seed`."""
    driver = Driver(small_scenario(), seed=1)
    bot = Wanderer()
    setup = dict(driver.setups[0].payload, bot_seed=bot_seed)
    bot.setup(setup)
    actions = []
    question = driver.question
    while question is not None and driver.seat == 0:
        action = bot.act(question)
        if action == {"action": "end_turn"}:
            break
        actions.append(action)
        question = driver.act(action)
    return actions


def test_cq6_only_bot_seed_changes_the_wanderers_choices() -> None:
    same = first_turn_actions(12345)
    assert same == first_turn_actions(12345)
    other = first_turn_actions(54321)
    assert [a for a in same if a["action"] == "dig"] == [a for a in other if a["action"] == "dig"]
    assert same != other  # different random walks


def test_s10_wanderer_avoids_opponent_tower_range_camps_and_terrain_it_cannot_enter() -> None:
    """Units 3, 4, 5 (Devil, Fox, Crocodile) start at (3,3), (4,3), (5,3) of scenario E; a player-2
    tower at (8,3) guards every cell with x >= 4 and y <= 7 (its range 4, CQ-38), so the Crocodile
    cannot move at all and the others go west. Every step is onto terrain its kind may enter, and
    never onto a camp or a tower."""
    driver = Driver(small_scenario(), seed=1)
    driver.tower(2, 8, 3)
    bot = Wanderer()
    bot.setup(driver.setups[0].payload)
    question = driver.question
    assert question is not None
    moves = []
    for _ in range(200):  # one turn: at most max_actions_per_turn actions
        action = bot.act(question)
        if action == {"action": "end_turn"}:
            break
        result = driver.act(action)
        assert result["ok"], result["error"]
        if action["action"] == "move":
            moves.append((action["unit"], action["x"], action["y"]))
        question = result
    state = driver.state
    for unit, x, y in moves:
        assert max(abs(x - 8), abs(y - 3)) > 4  # outside the tower's range (CQ-38 distance)
        assert state.terrain_at((x, y)).can_enter(state.units[unit].kind)
        assert (x, y) not in state.camps and (x, y) not in state.tower_at
    assert {unit for unit, _x, _y in moves} == {3, 4}


def test_s10_wanderer_is_a_registered_starter_bot() -> None:
    assert STARTERS["wanderer"] is Wanderer
    assert get_game("craftingquest").starter_bots["wanderer"] is Wanderer


class Pondering(Wanderer):
    """A Wanderer that thinks `first_s` about its first `turn_start` and `each_s` about each later one."""

    def __init__(self, first_s: float, each_s: float) -> None:
        super().__init__()
        self.first_s, self.each_s = first_s, each_s

    def act(self, payload: Payload) -> Payload:
        action = super().act(payload)
        if payload.get("type") == "turn_start":
            threading.Event().wait(self.first_s if payload["round"] == 1 else self.each_s)
        return action


def timed_config(rounds: int) -> Any:
    scenario = small_scenario()
    scenario["rounds"] = rounds
    overrides = {"scenario": scenario, "turn_budget_ms": 450, "turn_grace_ms": 50}
    return get_game("craftingquest").config(overrides=overrides)


def test_cq33_a_late_wanderer_action_is_applied_at_its_next_turn_start() -> None:
    """Timed (CQ-31): the first turn closes at its deadline, the turns that start while the answer
    is owed are skipped (CQ-34), and the late `dig` is applied at the next turn start (CQ-30, CQ-33)."""
    # 1.2 s is far past the 500 ms turn; the opponent's 24 turns of 100 ms give the answer time to
    # arrive, and leave it ample time to finish its own turns
    slow = PythonBot(lambda: Pondering(1.2, 0.0), "slow")
    opponent = PythonBot(lambda: Pondering(0.1, 0.1), "steady")
    run = run_match(get_game("craftingquest"), [slow, opponent], config=timed_config(24), seed=2)
    mine = [e for e in log_entries(run) if e["seat"] == 0]
    assert mine[0]["kind"] == "timeout" and mine[0]["round"] == 1
    late = [e for e in mine if e["kind"] == "late_action"]
    assert len(late) == 1 and late[0]["request"] == {"action": "dig", "unit": 3}
    assert late[0]["result"]["ok"]
    skipped = [e for e in mine if e["kind"] == "no_answer"]
    assert all(e["round"] < late[0]["round"] for e in skipped)
    assert [entry["reply"]["seat"] for entry in run.replay.late] == [0]
    assert run.result.scores == [300.0, 300.0]
    assert verify_replay(run.replay).identical


def test_s10_wanderer_over_the_json_lines_protocol_in_timed_mode(tmp_path: Path) -> None:
    """The Wanderer as a process bot (the Python kit), timed (a chain per turn, CQ-31): every turn
    ends with its `end_turn`, nothing late, nothing owed."""
    script = tmp_path / "wanderer_bot.py"
    script.write_text(
        "from botarena.games.craftingquest.bots.wanderer import Wanderer\n\n"
        "def create_bot():\n    return Wanderer()\n"
    )
    process = SubprocessBot([sys.executable, "-m", "botarena.kit", str(script)], name="wanderer-process")
    game = get_game("craftingquest")
    scenario = small_scenario()
    scenario["rounds"] = 10
    # timed, with generous limits: a loaded test machine must not make the process bot late
    config = game.config(overrides={"scenario": scenario, "turn_budget_ms": 5000, "setup_timeout_ms": 60000})
    run = run_match(game, [process, PythonBot(Wanderer, "wanderer")], config=config, seed=6)
    assert_plays_like_section_10(run, 0, 10)
    assert run.replay.late == []
    assert run.replay.start["verdicts"][0] == ["OK", None]
    assert run.replay.end["verdicts"][0] == ["OK", None]
