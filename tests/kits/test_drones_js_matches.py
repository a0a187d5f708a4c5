"""2018 JavaScript bots in real matches: node_bot through the runner (spec 7.3, E13, E14, E16, 11.3)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import orjson
import pytest
from drones_js_helpers import E16_ACTIONS, E16_END_STATES, kit_bot, needs_node, write_bot

from botarena.bots.base import Bot
from botarena.bots.inprocess import PythonBot
from botarena.bots.node import node_bot
from botarena.core.registry import get_game
from botarena.games.drones import rules as drones_rules
from botarena.games.drones.bots.examples import AdaptiveDefender, Pacifist, Randomonium, Zergy
from botarena.runner.match import MatchRun, run_match

pytestmark = [pytest.mark.node, needs_node]

GAME = get_game("drones")
ANONYMOUS = {"name": "Anonymous Player"}


def play(bots: Sequence[Bot], *, seed: int = 1, **overrides: Any) -> MatchRun:
    return run_match(GAME, bots, config=GAME.config("default", overrides), seed=seed)


def js(name: str) -> Bot:
    return node_bot(kit_bot(name))


def turn_records(run: MatchRun) -> list[dict[str, Any]]:
    return [step["record"] for step in run.replay.steps]


def seat_turns(run: MatchRun, seat: int) -> list[dict[str, Any]]:
    return [record["players"][seat] for record in turn_records(run)]


def round_results(run: MatchRun) -> list[dict[str, Any]]:
    return [record["roundResult"] for record in turn_records(run) if "roundResult" in record]


class Script:
    """A scripted in-process bot: the i-th action of every round, then `{}`."""

    def __init__(self, actions: list[Any]) -> None:
        self.actions = actions

    def act(self, obs: dict[str, Any]) -> Any:
        turn = obs["turn"]
        return self.actions[turn - 1] if turn <= len(self.actions) else {}


def script(*actions: Any) -> Bot:
    return PythonBot(lambda: Script(list(actions)), name="script")


# -- E13's variant: playTurn throws ----------------------------------------------------------------
def test_e13_variant_js_play_turn_throws_on_turn_2() -> None:
    run = play([PythonBot(Zergy), js("thrower.js")], rounds=1)
    records = turn_records(run)
    assert len(records) == 2
    p2_turn1, p2_turn2 = records[0]["players"][1], records[1]["players"][1]
    assert p2_turn1["applied"] == {"newProducers": 1, "newSoldiers": 0, "launchAttack": False}
    assert (p2_turn2["status"], p2_turn2["reason"]) == ("CRASHED", "bot_error")
    assert p2_turn2["requested"] == {"error": "playTurn: thrown on turn 2"}
    assert p2_turn2["applied"] is None
    assert (p2_turn2["producers"], p2_turn2["soldiers"]) == (2, 0)
    result = records[1]["roundResult"]
    assert (result["outcome"], result["trigger"], result["decidedBy"]) == ("PLAYER 1", "ATTACK", "ATTACK_WON")
    assert "playTurn threw: Error: thrown on turn 2" in run.replay.logs[1]["text"]


def test_thrower_keeps_playing_after_crashed_turns() -> None:
    run = play([js("thrower.js"), PythonBot(Pacifist)], rounds=3)
    statuses = [(r["turn"], r["players"][0]["status"]) for r in turn_records(run)]
    assert {status for turn, status in statuses if turn == 2} == {"CRASHED"}
    assert {status for turn, status in statuses if turn != 2} == {"OK"}
    assert run.replay.statuses[0]["CRASHED"] == 3


# -- E16: Randomonium with playerSeed 1 against the Pacifist ------------------------------------------
@pytest.mark.parametrize("rules", ["seed", "bravolt2018"])
def test_e16_seeded_randomonium_through_the_adapter(monkeypatch: pytest.MonkeyPatch, rules: str) -> None:
    derived = drones_rules.bot_seed
    # A test hook overriding GD-4 for seat 0 only (spec 11.5): playerSeed 1.
    monkeypatch.setattr(
        drones_rules, "bot_seed", lambda seed, game, seat: 1 if seat == 0 else derived(seed, game, seat)
    )
    pacifist = js("pacifist.js") if rules == "bravolt2018" else PythonBot(Pacifist)
    run = play([js("randomonium.js"), pacifist], rules=rules, rounds=3, turn_limit=10)
    first_round = [r["players"][0] for r in turn_records(run)[:7]]
    applied = [(p["applied"]["newProducers"], p["applied"]["newSoldiers"], p["applied"]["launchAttack"])
               for p in first_round]  # fmt: skip
    assert applied == E16_ACTIONS
    assert [(p["producers"], p["soldiers"]) for p in first_round] == E16_END_STATES
    assert all(p["status"] == "OK" and not p["warnings"] for p in first_round)
    rounds = round_results(run)
    assert [(r["outcome"], r["turnsPlayed"]) for r in rounds] == [
        ("PLAYER 1", 7),
        ("PLAYER 1", 5),
        ("PLAYER 2", 3),
    ]
    assert rounds[0]["player1"] == {"producers": 9, "soldiers": 16, "launchedAttack": True}
    assert rounds[0]["player2"] == {"producers": 128, "soldiers": 0, "launchedAttack": False}
    assert (rounds[1]["player1"]["producers"], rounds[1]["player1"]["soldiers"]) == (10, 4)
    assert rounds[2]["player1"] == {"producers": 6, "soldiers": 1, "launchedAttack": True}
    assert rounds[2]["player2"] == {"producers": 8, "soldiers": 0, "launchedAttack": False}
    assert run.result.details["outcome"] == "PLAYER 1"


# -- E14: a bot returning undefined ----------------------------------------------------------------------
def test_e14_undefined_is_no_action_in_bravolt2018() -> None:
    one = {"newSoldiers": 1}
    run = play(
        [js("sometimes-undefined.js"), script(one, one, one)], rules="bravolt2018", rounds=1, turn_limit=3
    )
    third = seat_turns(run, 0)[2]
    assert (third["status"], third["requested"], third["applied"]) == ("OK", None, None)
    assert [w["code"] for w in third["warnings"]] == ["NO_ACTION"]
    assert (third["producers"], third["soldiers"]) == (1, 2)
    result = round_results(run)[0]
    assert (result["outcome"], result["trigger"]) == ("PLAYER 2", "TURN_LIMIT")
    assert result["player1"]["launchedAttack"] is False


def test_undefined_is_invalid_in_seed() -> None:
    one = {"newSoldiers": 1}
    run = play([js("sometimes-undefined.js"), script(one, one, one)], rules="seed", rounds=1, turn_limit=3)
    third = seat_turns(run, 0)[2]
    assert (third["status"], third["reason"], third["requested"]) == ("INVALID", "not_object", None)


# -- fractions: the Splitter -------------------------------------------------------------------------
def test_splitter_fractions_play_in_bravolt2018_and_are_invalid_in_seed() -> None:
    bravolt = play([js("splitter.js"), PythonBot(Pacifist)], rules="bravolt2018", rounds=5)
    turns = seat_turns(bravolt, 0)
    assert {t["status"] for t in turns} == {"OK"}
    assert turns[0]["applied"] == {"newProducers": 0.5, "newSoldiers": 0.5, "launchAttack": False}
    assert (turns[0]["producers"], turns[0]["soldiers"]) == (1.5, 0.5)
    for record in turn_records(bravolt):  # the attack turn is drawn in ceil(L/2)..L = 5..10
        if "roundResult" in record:
            assert 5 <= record["roundResult"]["turnsPlayed"] <= 10
            assert record["players"][0]["applied"]["launchAttack"] is True
    seed = play([js("splitter.js"), PythonBot(Pacifist)], rules="seed", rounds=5)
    first = seat_turns(seed, 0)[0]
    assert (first["status"], first["reason"]) == ("INVALID", "bad_field")


# -- every kit bot plays a whole match ---------------------------------------------------------------
PLAYING_BOTS = [
    "randomonium.js",
    "zergy.js",
    "pacifist.js",
    "adaptive-defender.js",
    "greedy.js",
    "kamikaze.js",
    "splitter.js",
    "chatty.js",
    "class-bot.js",
    "closure-bot.js",
    "hook-thrower.js",
]


@pytest.mark.parametrize("name", PLAYING_BOTS)
def test_kit_bot_plays_a_clean_bravolt2018_match(name: str) -> None:
    run = play([js(name), PythonBot(AdaptiveDefender)], rules="bravolt2018", rounds=4, seed=11)
    assert run.replay.start["verdicts"][0][0] == "OK"
    assert {t["status"] for t in seat_turns(run, 0)} == {"OK"}
    assert all(not t["warnings"] or t["warnings"][0]["code"] == "CLAMPED" for t in seat_turns(run, 0))
    assert run.replay.end["verdicts"][0][0] == "OK"
    assert run.result.details["meta"][0] != ANONYMOUS


def test_class_and_closure_bots_keep_their_state() -> None:
    # The closure bot attacks on turn 5 of every round (its counter is reset in onRoundEnd).
    run = play([js("closure-bot.js"), PythonBot(Pacifist)], rounds=3)
    assert [r["turnsPlayed"] for r in round_results(run)] == [5, 5, 5]
    # The class bot builds producers through turn ceil(L/2), then soldiers (private field, `this`).
    run = play([js("class-bot.js"), PythonBot(Pacifist)], rounds=2, turn_limit=6)
    applied = [t["applied"] for t in seat_turns(run, 0)[:6]]
    assert [a["newSoldiers"] == 0 for a in applied] == [True, True, True, False, False, False]


# -- output hygiene -----------------------------------------------------------------------------------
def test_console_logging_bot_plays_and_its_logs_land_in_the_replay() -> None:
    run = play([js("chatty.js"), PythonBot(Zergy)], rounds=3)
    assert {t["status"] for t in seat_turns(run, 0)} == {"OK"}
    log = run.replay.logs[0]["text"]
    for text in (
        "chatty: match starts",
        "chatty: raw stdout write",
        "chatty: turn 1 0",
        "chatty: round over",
    ):
        assert text in log


# -- modules that cannot be used ------------------------------------------------------------------------
BAD_MODULES = {
    "not-a-function.js": (
        "export default { playTurn() { return {}; } };\n",
        "default export is not a function",
    ),
    "syntax-error.js": ("export default function ( {\n", "cannot load "),
}


@pytest.mark.parametrize("name", [*BAD_MODULES, "missing.js"])
def test_bad_module_is_crashed_at_start_and_every_turn(tmp_path: Path, name: str) -> None:
    if name in BAD_MODULES:
        source, error = BAD_MODULES[name]
        path = write_bot(tmp_path, name, source)
    else:
        path, error = tmp_path / name, "cannot load "
    run = play([node_bot(path), PythonBot(Zergy)], rounds=2)
    start_verdict = run.replay.start["verdicts"][0]
    assert start_verdict[:2] == ["CRASHED", "bot_error"]
    assert start_verdict[2].startswith(error)
    turns = seat_turns(run, 0)
    assert turns and all((t["status"], t["reason"]) == ("CRASHED", "bot_error") for t in turns)
    assert all(t["requested"]["error"].startswith(error) for t in turns)
    assert run.result.details["meta"][0] == ANONYMOUS
    assert run.result.details["outcome"] == "PLAYER 2"


# -- a fresh process per match -------------------------------------------------------------------------
def test_two_matches_in_a_row_each_start_a_new_process(tmp_path: Path) -> None:
    source = """let made = 0;
export default () => {
  made += 1;
  return { meta: { made, pid: process.pid }, playTurn: ({ producers }) => ({ newProducers: producers }) };
};
"""
    bot = node_bot(write_bot(tmp_path, "counter.js", source), name="counter")
    metas = []
    for seed in (1, 2):
        run = play([bot, PythonBot(Zergy)], seed=seed, rounds=1)
        metas.append(run.replay.start["replies"][0]["payload"]["meta"])
        assert not bot.alive
    assert [meta["made"] for meta in metas] == [1, 1]
    assert metas[0]["pid"] != metas[1]["pid"]
    assert run.replay.players[0]["kind"] == "node"


# -- spec 11.3: Python and JavaScript versions play identical games ---------------------------------------
PAIRS: dict[str, tuple[Callable[[], Any], str]] = {
    "randomonium": (Randomonium, "randomonium.js"),
    "zergy": (Zergy, "zergy.js"),
    "pacifist": (Pacifist, "pacifist.js"),
    "adaptive": (AdaptiveDefender, "adaptive-defender.js"),
}
OPPONENTS: dict[str, Callable[[], Any]] = {name: factory for name, (factory, _) in PAIRS.items()}
VARIANTS: list[tuple[int, dict[str, Any]]] = [
    (1, {}),
    (2, {"turn_limit_range": (1, 15), "rounds": 12, "defender_bonus": 3}),
    (3, {"defender_bonus": 0, "rounds": 8, "turn_limit": 4}),
]


@pytest.mark.parametrize("rules", ["seed", "bravolt2018"])
@pytest.mark.parametrize("opponent", list(OPPONENTS))
@pytest.mark.parametrize("bot", list(PAIRS))
def test_python_and_javascript_versions_are_equivalent(bot: str, opponent: str, rules: str) -> None:
    factory, js_file = PAIRS[bot]
    for seed, overrides in VARIANTS:
        seat = seed % 2  # the bot under test plays both sides across the variants
        overrides = {"rules": rules, **overrides}

        def lineup(mine: Bot, seat: int = seat) -> list[Bot]:
            other = PythonBot(OPPONENTS[opponent], name=opponent)
            return [mine, other] if seat == 0 else [other, mine]

        python_run = play(lineup(PythonBot(factory, name=bot)), seed=seed, **overrides)
        js_run = play(lineup(js(js_file)), seed=seed, **overrides)
        assert js_run.replay.start["verdicts"][seat][0] == "OK"
        assert (
            js_run.replay.start["replies"][seat]["payload"]
            == python_run.replay.start["replies"][seat]["payload"]
        )
        python_records, js_records = turn_records(python_run), turn_records(js_run)
        for index, (expected, got) in enumerate(zip(python_records, js_records, strict=False)):
            assert got == expected, f"seed {seed}: first difference at step {index}"
        assert len(js_records) == len(python_records)
        assert js_run.result.to_json() == python_run.result.to_json()


# -- meta edge cases (spec 7.3, 7.5) ---------------------------------------------------------------------
LONE_SURROGATE_BOT = r"""export default () => ({
  meta: { name: "Lone \ud800 half", author: "x" },
  playTurn() { return { newProducers: 0, newSoldiers: 1, launchAttack: false }; },
});
"""


@pytest.mark.parametrize("seat", [0, 1])
def test_7_5_lone_surrogate_name_prints_as_json_stringify(tmp_path: Path, seat: int) -> None:
    from botarena.core.replay import Replay
    from botarena.games.drones.protocol import original_result_json

    bot = node_bot(write_bot(tmp_path, "lone.js", LONE_SURROGATE_BOT))
    bots = [bot, PythonBot(Zergy)] if seat == 0 else [PythonBot(Zergy), bot]
    run = run_match(GAME, bots, config=GAME.config("bravolt2018", {"rounds": 2}), seed=3)
    assert run.replay.start["verdicts"][seat][0] == "OK"  # not INVALID bad_json
    assert run.result.details["meta"][seat] == {"name": "Lone \ufffd half", "author": "x"}
    # The original printed JSON.stringify(result, null, 2): the lone half as the 6-character escape.
    expected = f'"player{seat + 1}": {{\n    "name": "Lone \\ud800 half",\n    "author": "x"\n  }}'
    text = original_result_json(run)
    assert expected in text
    text.encode("utf-8")
    # The replay is stored and read back as UTF-8 JSON, and prints the same.
    stored = orjson.loads(run.replay.dumps())
    assert stored["result"]["details"]["metaJson"][seat] == '{"name":"Lone \\ud800 half","author":"x"}'
    assert original_result_json(Replay.from_json(stored)) == text
