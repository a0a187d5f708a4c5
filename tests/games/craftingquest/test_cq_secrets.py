"""Spec 4.6 (issue item 2): whole games on generated maps in which every payload sent to a bot is
audited against the state it was built from, plus proof that the audit catches each kind of leak."""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import orjson
import pytest
from cq_testkit import Driver

from botarena.bots.inprocess import PythonBot
from botarena.games.craftingquest import GAME
from botarena.games.craftingquest.bots import STARTERS, Prospector, RandomBot
from botarena.games.craftingquest.engine import CraftingQuestEngine
from botarena.games.craftingquest.observe import Leak, audit_payload, play_audited
from botarena.runner import run_match

SEED = 0x5EC2_E7C0_FFEE_1234


LINEUPS: list[tuple[Callable[[], Any], Callable[[], Any], int, int]] = [
    (STARTERS["prospector"], STARTERS["wanderer"], 60, 160),
    (STARTERS["wanderer"], STARTERS["prospector"], 50, 80),
    (Prospector, RandomBot, 50, 60),  # the random bot drops, builds and buys: more kinds of payload
]


@pytest.mark.parametrize("index", range(len(LINEUPS)))
def test_spec4_6_whole_games_never_send_a_secret(index: int) -> None:
    first, second, size, rounds = LINEUPS[index]
    overrides = {"turn_budget_ms": 0, "width": size, "height": size, "rounds": rounds}
    engine = CraftingQuestEngine(GAME.config(overrides=overrides), SEED + index, 2)
    asked = play_audited(engine, [first(), second()])
    assert asked > 2 * rounds  # every turn, most with several actions
    assert engine.round == rounds + 1 and engine.over


class Recorder:
    """Records every payload a bot is sent, then answers as the inner bot does."""

    def __init__(self, inner: Any, log: list[Any]) -> None:
        self.inner, self.log = inner, log

    def setup(self, payload: Any) -> Any:
        self.log.append(orjson.loads(orjson.dumps(payload)))
        return self.inner.setup(payload)

    def act(self, payload: Any) -> Any:
        self.log.append(orjson.loads(orjson.dumps(payload)))
        return self.inner.act(payload)

    def end(self, payload: Any) -> Any:
        self.log.append(orjson.loads(orjson.dumps(payload)))
        return {}


def test_spec4_6_no_payload_carries_the_seed_or_the_scenario() -> None:
    config = GAME.config(overrides={"turn_budget_ms": 0, "width": 50, "height": 50, "rounds": 20})
    logs: list[list[Any]] = [[], []]
    bots = [
        PythonBot(lambda: Recorder(Prospector(), logs[0]), "p"),
        PythonBot(lambda: Recorder(RandomBot(), logs[1]), "r"),
    ]
    run = run_match(GAME, bots, config=config, seed=SEED)
    scenario = run.replay.config["scenario"]
    rows = set(scenario["terrain"])
    hidden_vectors = {tuple(v) for deposit in scenario["deposits"] for v in deposit["vectors"].values()}
    for seat, log in enumerate(logs):
        assert log[0]["type"] == "setup" and log[-1]["type"] == "game_over"
        for payload in log:
            text = orjson.dumps(payload).decode()
            assert (
                str(SEED) not in text and str(SEED & 0xFFFFFFFF) not in text and str(SEED >> 32) not in text
            )
            assert not any(row in text for row in rows)  # no whole terrain row, only view windows
            for key in ("type_tests", "attribute_values", "deposits", "buried", 'vectors": {', "origin"):
                assert key not in text, (seat, key)
        scanned = {tuple(v) for payload in log for entry in _scans(payload) for v in entry["vectors"]}
        shown = {tuple(v) for payload in log for v in _all_int_lists(payload, length=5)}
        assert shown <= scanned  # every vector a bot ever saw came from its own scans
        assert scanned <= hidden_vectors


def _scans(payload: Any) -> list[Any]:
    found = list(payload.get("scan", [])) if isinstance(payload, dict) else []
    late = payload.get("late") if isinstance(payload, dict) else None
    if isinstance(late, dict):
        found += late.get("scan", [])
    return found


def _all_int_lists(value: Any, length: int) -> list[list[int]]:
    """Every list of `length` integers in a payload, the echoed requests left out."""
    out: list[list[int]] = []
    if isinstance(value, dict):
        for key, item in value.items():
            if key != "action":
                out += _all_int_lists(item, length)
    elif isinstance(value, list):
        if len(value) == length and all(type(v) is int for v in value):
            out.append(value)
        for item in value:
            out += _all_int_lists(item, length)
    return out


# -- the audit catches every kind of leak -----------------------------------------------------------------


def _leaks(d: Driver, payload: dict[str, Any], player: int = 1) -> bool:
    try:
        audit_payload(d.state, d.engine.config, player, payload)
    except Leak:
        return True
    return False


def test_spec4_6_the_audit_passes_honest_payloads_and_catches_each_leak() -> None:
    d = Driver()
    d.unit(6).resources = {"R3": 4}

    def leak(payload: dict[str, Any], change: Callable[[dict[str, Any]], None]) -> None:
        """`payload` is honest now, and the audit catches it once `change` makes it leak."""
        assert not _leaks(d, payload)
        broken = copy.deepcopy(payload)
        change(broken)
        assert _leaks(d, broken)

    setup = copy.deepcopy(d.setups[0].payload)
    start = copy.deepcopy(d.question)
    assert start is not None
    opponent_unit = {**start["units"][0], "id": 6, "x": 46, "y": 46, "resources": {"R3": 4}}
    leak(start, lambda p: p["units"].append(opponent_unit))  # the opponent's inventory
    leak(start, lambda p: p.update(credit=301))  # not its own credit
    leak(start, lambda p: p.update(blueprints_owned=["O4"]))  # not its own blueprints
    leak(start, lambda p: p["towers"].append({"id": 1, "x": 1, "y": 1, "strength": 250, "alive": True}))
    leak(start, lambda p: p["units"][0]["view"]["cells"][0]["units"][0].update(resources={}))
    leak(setup, lambda p: p.update(scenario={}))  # an extra key
    leak(setup, lambda p: p["rules"].update(seed=1))
    d.place(4, 9, 9)
    dug = copy.deepcopy(d.act({"action": "dig", "unit": 3}))
    scanned = copy.deepcopy(d.act({"action": "scan", "unit": 4}))
    leak(dug, lambda p: p.update(dig={"R3": 10}))  # not the true contents
    leak(scanned, lambda p: p["scan"].append({"x": 30, "y": 30, "vectors": [[1, 1, 1, 1, 1]]}))
    leak(dug, lambda p: p.update(scan=[]))  # a scan result for a dig
    leak(dug, lambda p: p["unit"]["view"]["cells"].append({"x": 20, "y": 20}))  # beyond sight
    leak(dug, lambda p: p["unit"]["view"]["cells"].append({"x": 4, "y": 5, "resources": {"R1": 1}}))  # untrue
    leak(scanned, lambda p: _camp(p["unit"]).update(stock=None))  # the near camp's stock hidden
    d.place(5, 12, 13)  # 3 from the camp: within sight, beyond camp_radius
    croc = copy.deepcopy(d.act({"action": "dig", "unit": 5}))
    assert _camp(croc["unit"]) == {"stock": None}
    leak(croc, lambda p: _camp(p["unit"]).update(stock=["O1", "O4"]))  # a far camp's stock


def _camp(unit: dict[str, Any]) -> dict[str, Any]:
    """The camp entry at (10,10) in a unit's view."""
    return next(c["camp"] for c in unit["view"]["cells"] if (c["x"], c["y"]) == (10, 10))
