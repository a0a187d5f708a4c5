"""SubprocessBot and the generic JSON-lines protocol, against scripted fake bots (real processes)."""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable
from typing import Any

import pytest

from botarena.bots.subprocess import LATE_REPLY, SubprocessBot
from botarena.core.protocol import MessageType, Reply, Request
from botarena.core.status import Reason, Status
from waiting import wait_until

Make = Callable[..., SubprocessBot]

ECHO = '{"id": $ID, "payload": $ENV}'
OK = '{"id": $ID, "payload": {"ok": true}}'


def ask(bot: SubprocessBot, request_id: int, timeout_s: float = 5.0, **fields: Any) -> Reply:
    kind = fields.pop("type", MessageType.TURN)
    request = Request(
        bot.seat, fields.pop("payload", {"n": request_id}), int(timeout_s * 1000), kind, **fields
    )
    bot.send(request, request_id, timeout_s)
    return bot.receive()


def opened(bot: SubprocessBot, match_id: str = "m-1", seat: int = 1) -> SubprocessBot:
    bot.open(match_id, seat)
    return bot


def gone(pid: int) -> bool:
    """True once `pid` no longer runs (absent, or a zombie waiting for init)."""
    try:
        with open(f"/proc/{pid}/stat") as handle:
            return handle.read().rsplit(")", 1)[1].split()[0] in ("Z", "X")
    except FileNotFoundError:
        return True


def test_envelope_fields_and_echoed_id(scripted: Make) -> None:
    bot = opened(scripted([[ECHO], [ECHO]]), "match-7", 1)
    start = ask(bot, 1, type=MessageType.START, payload={"rules": "seed"})
    assert start.status is Status.OK and start.reason is None
    assert start.payload == {
        "type": "start",
        "id": 1,
        "match": "match-7",
        "seat": 1,
        "turn": 0,
        "deadline_ms": 5000,
        "payload": {"rules": "seed"},
    }
    turn = ask(bot, 2, 0.25, turn=3, payload={"x": [1, 2]})
    assert turn.status is Status.OK
    assert turn.payload["type"] == "turn" and turn.payload["turn"] == 3
    assert turn.payload["deadline_ms"] == 250 and turn.payload["payload"] == {"x": [1, 2]}
    assert turn.time_ms > 0
    bot.close()


def test_late_reply_is_discarded_not_taken_for_the_next(scripted: Make) -> None:
    bot = opened(scripted([[["sleep", 0.4], OK], [OK]]))
    first = ask(bot, 1, 0.1)
    assert (first.status, first.reason) == (Status.TIMEOUT, Reason.DEADLINE)
    assert first.time_ms >= 100
    second = ask(bot, 2)
    assert second.status is Status.OK and second.payload == {"ok": True}
    assert [w["code"] for w in second.warnings] == [LATE_REPLY]
    bot.close()


def test_reply_with_an_unknown_id_is_discarded(scripted: Make) -> None:
    bot = opened(scripted([['{"id": 999, "payload": 1}', '{"id": 0, "oops": 1}', OK]]))
    reply = ask(bot, 5)
    assert reply.status is Status.OK and reply.payload == {"ok": True}
    bot.close()


def test_integral_float_id_is_accepted(scripted: Make) -> None:
    bot = opened(scripted([['{"id": $ID.0, "payload": 7}']]))
    reply = ask(bot, 4)
    assert (reply.status, reply.payload) == (Status.OK, 7)
    bot.close()


@pytest.mark.parametrize(
    "line",
    ["not json at all", "{broken", "[1, 2]", "42", '"a string"', "null", "\x00\x01binary"],
)
def test_bad_json(scripted: Make, line: str) -> None:
    bot = opened(scripted([[line], [OK]]))
    reply = ask(bot, 1)
    assert (reply.status, reply.reason) == (Status.INVALID, Reason.BAD_JSON)
    assert reply.payload is None
    assert ask(bot, 2).status is Status.OK  # the bot is asked again and can recover
    bot.close()


@pytest.mark.parametrize(
    "line",
    ['{"payload": {}}', '{"id": $ID}', '{"id": "$ID", "payload": {}}', '{"id": true, "payload": {}}', "{}"],
)
def test_bad_envelope(scripted: Make, line: str) -> None:
    bot = opened(scripted([[line], [OK]]))
    reply = ask(bot, 1)
    assert (reply.status, reply.reason) == (Status.INVALID, Reason.BAD_ENVELOPE)
    assert ask(bot, 2).status is Status.OK
    bot.close()


def test_blank_lines_are_skipped(scripted: Make) -> None:
    bot = opened(scripted([["", "   ", OK]]))
    assert ask(bot, 1).status is Status.OK
    bot.close()


def test_crlf_line_endings_are_accepted(scripted: Make) -> None:
    bot = opened(scripted([[["raw", '{"id": 1, "payload": 2}\r\n']]]))
    reply = ask(bot, 1)
    assert (reply.status, reply.payload) == (Status.OK, 2)
    bot.close()


def test_line_too_long_unfinished_is_judged_at_once_and_the_rest_discarded(scripted: Make) -> None:
    # 3 MiB of one line with a 1 MiB cap, the newline only after a pause: the verdict comes first.
    script = [[["big", 3 << 20, "x"], ["sleep", 0.3], ["raw", "\n"], OK], [OK]]
    bot = opened(scripted(script))
    reply = ask(bot, 1)
    assert (reply.status, reply.reason) == (Status.INVALID, Reason.LINE_TOO_LONG)
    assert len(bot._buf) <= (1 << 20) + (1 << 16)  # never more than the cap and one read held
    following = ask(bot, 2)
    # The tail of the long line and the late reply to request 1 are both dropped.
    assert following.status is Status.OK and following.payload == {"ok": True}
    assert len(bot._buf) < 1024
    bot.close()


def test_line_too_long_complete_in_one_read(scripted: Make) -> None:
    bot = opened(
        scripted([[["raw", '{"id": 1, "payload": "' + "y" * 5000 + '"}\n'], OK], [OK]], max_line_bytes=1000)
    )
    reply = ask(bot, 1)
    assert (reply.status, reply.reason) == (Status.INVALID, Reason.LINE_TOO_LONG)
    assert ask(bot, 2).status is Status.OK
    bot.close()


def test_line_at_the_cap_is_fine(scripted: Make) -> None:
    payload = "z" * 900
    line = '{"id": 1, "payload": "' + payload + '"}'
    bot = opened(scripted([[line]], max_line_bytes=len(line)))
    reply = ask(bot, 1)
    assert (reply.status, reply.payload) == (Status.OK, payload)
    bot.close()


def test_reply_split_over_several_writes(scripted: Make) -> None:
    bot = opened(
        scripted(
            [
                [
                    ["raw", '{"id": 1, '],
                    ["sleep", 0.05],
                    ["raw", '"payload": [1]'],
                    ["sleep", 0.05],
                    ["raw", "}\n"],
                ]
            ]
        )
    )
    reply = ask(bot, 1)
    assert (reply.status, reply.payload) == (Status.OK, [1])
    bot.close()


def test_exit_is_crashed_process_exited_and_dead(scripted: Make) -> None:
    bot = opened(scripted([[OK], [["exit", 0]]]))
    assert ask(bot, 1).status is Status.OK
    reply = ask(bot, 2)
    assert (reply.status, reply.reason) == (Status.CRASHED, Reason.PROCESS_EXITED)
    assert not bot.alive
    again = ask(bot, 3)  # asked anyway (the runner would not): still CRASHED, at once
    assert (again.status, again.reason) == (Status.CRASHED, Reason.PROCESS_EXITED)
    pid = bot.pid
    assert pid is not None
    # Not reaped before close: its pid (the group id) stays reserved until the group is killed.
    # (EOF on stdout can come a moment before the exit itself: wait for the zombie.)
    wait_until(
        lambda: os.waitid(os.P_PID, pid, os.WEXITED | os.WNOHANG | os.WNOWAIT) is not None,
        "the bot process exiting (a zombie not reaped yet)",
        pause=0.005,
    )
    bot.close()
    with pytest.raises(ChildProcessError):
        os.waitpid(pid, os.WNOHANG)


def test_reply_then_exit_still_counts(scripted: Make) -> None:
    bot = opened(scripted([[OK, ["exit", 1]]]))
    reply = ask(bot, 1)
    assert reply.status is Status.OK
    bot.close()


def test_spawn_failure_is_a_dead_bot_with_the_error_in_its_log(tmp_path: Any) -> None:
    bot = SubprocessBot([str(tmp_path / "no-such-bot")], name="missing")
    bot.open("m", 0)
    assert not bot.alive
    reply = ask(bot, 1)
    assert (reply.status, reply.reason) == (Status.CRASHED, Reason.PROCESS_EXITED)
    log = bot.close()
    assert "could not start" in log.text and "no-such-bot" in log.text


def test_start_deadline_counts_from_spawn(scripted: Make) -> None:
    bot = opened(scripted([[OK]]))
    time.sleep(0.2)
    reply = ask(bot, 1, 5.0, type=MessageType.START)
    assert reply.status is Status.OK
    assert reply.time_ms >= 200  # measured from spawn, like its deadline
    late = opened(scripted([[OK]]))
    time.sleep(0.3)
    reply = ask(late, 1, 0.2, type=MessageType.START)  # the deadline passed before it was sent
    assert (reply.status, reply.reason) == (Status.TIMEOUT, Reason.DEADLINE)
    bot.close()
    late.close()


def test_stderr_is_the_log_and_is_capped(scripted: Make) -> None:
    bot = opened(
        scripted([[["err", "hello from the bot\n"], ["err", "x" * 5000], OK]], stderr_cap_bytes=1000)
    )
    assert ask(bot, 1).status is Status.OK
    log = bot.close()
    assert log.text.startswith("hello from the bot\n")
    assert len(log.text) == 1000
    assert log.dropped_bytes == len("hello from the bot\n") + 5000 - 1000


def test_close_kills_the_whole_group_and_reaps(scripted: Make) -> None:
    bot = opened(scripted([[["noterm"], ["spawn"]]]))
    reply = ask(bot, 1)
    assert reply.status is Status.OK
    child = reply.payload["child"]
    pid = bot.pid
    assert pid is not None and os.getpgid(pid) == pid  # its own process group (and session)
    assert os.getpgid(child) == pid
    bot.close()
    assert bot._proc is None
    with pytest.raises(ChildProcessError):
        os.waitpid(pid, os.WNOHANG)  # already reaped: no zombie left with us
    wait_until(lambda: gone(child), f"the bot's child {child} gone with its group")


def test_a_bot_that_never_reads_stdin_cannot_block_the_runner(scripted: Make) -> None:
    program = "import time; time.sleep(60)"
    bot = SubprocessBot([sys.executable, "-c", program], name="deaf")
    bot.open("m", 0)
    big = {"blob": "q" * 200_000}  # far more than a pipe holds, over a few requests
    for request_id in range(1, 6):
        reply = ask(bot, request_id, 0.05, payload=big)
        assert (reply.status, reply.reason) == (Status.TIMEOUT, Reason.DEADLINE)
    assert len(bot._outbox) > 0
    bot.close()


def test_describe_names_kind_and_command() -> None:
    bot = SubprocessBot(["python3", "my bot.py"], kind="python-subprocess")
    assert bot.describe() == {
        "name": "my bot.py",
        "kind": "python-subprocess",
        "command": "python3 'my bot.py'",
    }
    with pytest.raises(ValueError):
        SubprocessBot([])


def test_reopen_starts_a_fresh_process(scripted: Make) -> None:
    bot = opened(scripted([[OK]]))
    first = bot.pid
    assert ask(bot, 1).status is Status.OK
    bot.close()
    bot.open("m-2", 0)
    assert bot.pid not in (None, first)
    assert ask(bot, 1).status is Status.OK
    bot.close()


def test_close_kills_a_bot_that_ignores_eof_and_sigterm() -> None:
    program = (
        "import signal, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); "
        "print('up', flush=True); time.sleep(60)"
    )
    bot = SubprocessBot([sys.executable, "-c", program], name="stubborn")
    bot.open("m", 0)
    ask(bot, 1)  # its "up" line is bad_json; what matters is that it has installed its handler
    pid = bot.pid
    assert pid is not None
    bot.close()
    assert gone(pid)
    assert not bot.alive
