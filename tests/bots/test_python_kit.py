"""The Python kit: `python -m botarena.kit bot.py` as a protocol bot, and `serve()`."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from botarena.bots.inprocess import PythonBot
from botarena.bots.subprocess import SubprocessBot
from botarena.core.game import GameInfo
from botarena.core.protocol import MessageType, Request
from botarena.core.status import Reason, Status
from botarena.kit import load_bot
from botarena.runner import run_match

ZOO = Path(__file__).parent / "zoo"


def kit_bot(path: Path | str, name: str = "kit") -> SubprocessBot:
    return SubprocessBot([sys.executable, "-m", "botarena.kit", str(path)], name=name)


def test_a_kit_bot_plays_a_full_match_exactly_like_its_in_process_twin(drones: GameInfo) -> None:
    zergy = drones.starter_bots["zergy"]
    adaptive = drones.starter_bots["adaptive"]
    run = run_match(drones, [kit_bot(ZOO / "kit_bot.py"), PythonBot(zergy)], seed=5)
    twin = run_match(drones, [PythonBot(adaptive), PythonBot(zergy)], seed=5)
    assert [set(tally) for tally in run.replay.statuses] == [{"OK"}, {"OK"}]
    assert run.replay.end["verdicts"][0][0] == "OK"
    assert run.result.to_json() == twin.result.to_json()
    assert [s["record"] for s in run.replay.steps] == [s["record"] for s in twin.replay.steps]
    assert run.replay.players[0]["command"].endswith("kit_bot.py")


def test_kit_exceptions_are_error_payloads_and_print_goes_to_the_log(
    drones: GameInfo, tmp_path: Path
) -> None:
    source = tmp_path / "flaky.py"
    source.write_text(
        "def act(obs):\n"
        "    print('thinking about turn', obs['turn'])\n"
        "    if obs['turn'] == 2:\n"
        "        raise ValueError('no idea')\n"
        "    return {'newProducers': 1}\n"
    )
    config = drones.config("default", {"rounds": 1, "turn_limit": 3})
    run = run_match(
        drones, [kit_bot(source), PythonBot(drones.starter_bots["pacifist"])], config=config, seed=1
    )
    verdicts = [step["verdicts"][0] for step in run.replay.steps]
    assert [v[:2] for v in verdicts] == [["OK", None], ["CRASHED", Reason.BOT_ERROR], ["OK", None]]
    assert "no idea" in verdicts[1][2]
    log = run.replay.logs[0]["text"]
    assert "thinking about turn 1" in log and "Traceback" in log and "ValueError: no idea" in log


def test_kit_with_a_missing_bot_file_crashes_cleanly(drones: GameInfo, tmp_path: Path) -> None:
    config = drones.config("default", {"rounds": 1, "turn_limit": 2})
    bad = kit_bot(tmp_path / "nowhere.py")
    run = run_match(drones, [bad, PythonBot(drones.starter_bots["zergy"])], config=config, seed=1)
    assert run.replay.start["verdicts"][0][:2] == ["CRASHED", Reason.BOT_ERROR]
    assert {tuple(step["verdicts"][0][:2]) for step in run.replay.steps} == {("CRASHED", Reason.BOT_ERROR)}
    assert "no such bot file" in run.replay.logs[0]["text"]


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("class Bot:\n    def act(self, obs):\n        return {'k': 'class'}\n", "class"),
        ("def create_bot():\n    return lambda obs: {'k': 'factory'}\n", "factory"),
        ("def act(obs):\n    return {'k': 'function'}\n", "function"),
        ("import helper\ndef act(obs):\n    return {'k': helper.WORD}\n", "sibling"),
    ],
)
def test_load_bot_forms(tmp_path: Path, source: str, expected: str) -> None:
    (tmp_path / "helper.py").write_text("WORD = 'sibling'\n")
    path = tmp_path / f"bot_{expected}.py"
    path.write_text(source)
    bot = load_bot(str(path))()
    act = getattr(bot, "act", bot)
    assert act({}) == {"k": expected}
    sys.path.remove(str(tmp_path))


def test_load_bot_without_an_entry_point(tmp_path: Path) -> None:
    path = tmp_path / "empty.py"
    path.write_text("X = 1\n")
    with pytest.raises(AttributeError, match="create_bot"):
        load_bot(str(path))


def test_serve_answers_by_message_type_and_survives_bad_lines() -> None:
    program = (
        "from botarena.kit import serve\n"
        "class B:\n"
        "    def setup(self, p): return {'meta': {'name': 'b'}}\n"
        "    def act(self, p): return {'echo': p}\n"
        "serve(B())\n"
    )
    bot = SubprocessBot([sys.executable, "-c", program], name="served")
    bot.open("m", 0)
    bot.send(Request(0, {}, 5000, MessageType.START), 1, 5.0)
    assert bot.receive().payload == {"meta": {"name": "b"}}
    bot.send(Request(0, {"x": 1}, 5000), 2, 5.0)
    assert bot.receive().payload == {"echo": {"x": 1}}
    bot._outbox += b"this is not an envelope\n"  # a broken request line: the kit logs it, goes on
    bot.send(Request(0, [3], 5000), 3, 5.0)
    reply = bot.receive()
    assert (reply.status, reply.payload) == (Status.OK, {"echo": [3]})
    bot.send(Request(0, {}, 5000, MessageType.END), 4, 5.0)
    assert bot.receive().payload == {}
    log = bot.close()
    assert "unreadable request line" in log.text
