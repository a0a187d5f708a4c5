"""Per-seat failure reports (issue 26, item 1): every verdict is counted in the seat of its reply, in
every game, whichever seat the failing bot sits in and whatever its transport (in-process Python,
a subprocess speaking JSON lines, a Devops HTTP service); lost entries and unknown keys are named.

Devops steps hold one verdict per call and Crafting Quest steps the one action of the seat whose turn
it is, so a report that took a verdict's index for its seat would name the wrong seat there.
"""

from __future__ import annotations

import http.server
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from botarena.bots.base import Bot
from botarena.bots.devops_http import DevopsHttpBot
from botarena.bots.inprocess import PythonBot
from botarena.bots.resolve import resolve_bot
from botarena.core.game import GameInfo
from botarena.core.registry import game_ids, get_game
from botarena.core.replay import Replay
from botarena.runner import run_match
from botarena.runner.failures import SeatReport, seat_reports

SMALL: dict[str, dict[str, Any]] = {
    "craftingquest": {"rounds": 3},
    "datspulse": {"turns": 3},
    "devops": {"turn_limit": 4},
    "domains": {"number_of_rounds": 6},
    "drones": {"rounds": 1},
}
"""The built-in games' test overrides cut to a few turns, so a failure shows at once (optional: every
registered game is tested, one without a line here with its `test_overrides` alone)."""

GOOD = {"craftingquest": "prospector", "datspulse": "forager", "devops": "starter", "domains": "demo"}
"""The starter bot that plays the other seat (a clean one: it gets no report)."""

GARBAGE_BOT = """\
import sys
print("garbage bot here", file=sys.stderr, flush=True)
for line in sys.stdin:
    print("this is not json", flush=True)
"""

CRASH_BOT = """\
import sys
sys.stdin.readline()
raise RuntimeError("subprocess bot gave up")
"""


class Raises:
    """An in-process bot whose every `act` raises."""

    def act(self, observation: Any) -> Any:
        raise ValueError("no idea what to do")


def play(game_id: str, bad: Bot, seat: int, **overrides: Any) -> Replay:
    """A short match of `game_id` with `bad` in `seat` and a starter in the other seat."""
    game = get_game(game_id)
    good = PythonBot(game.starter_bots[GOOD.get(game_id, sorted(game.starter_bots)[0])], name="good")
    bots = [bad, good] if seat == 0 else [good, bad]
    config = game.config(overrides={**game.test_overrides, **SMALL.get(game_id, {}), **overrides})
    return run_match(game, bots, config=config, seed=3).replay


def only_report(replay: Replay, seat: int) -> SeatReport:
    """The one report of the match, which must be `seat`'s."""
    reports = seat_reports(replay)
    assert [r.seat for r in reports] == [seat], "\n".join(line for r in reports for line in r.lines())
    return reports[0]


def script(tmp_path: Path, name: str, text: str, game: GameInfo) -> Bot:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return resolve_bot(f"cmd:{sys.executable} {path}", game)


# -- every game, both seats, every transport ----------------------------------------------------------


@pytest.mark.parametrize("seat", [0, 1])
@pytest.mark.parametrize("game_id", game_ids())
def test_i26_1_an_in_process_bot_that_raises_is_reported_in_its_seat(game_id: str, seat: int) -> None:
    report = only_report(play(game_id, PythonBot(Raises, name="bad"), seat), seat)
    assert report.name == "bad" and report.never_played
    assert list(report.counts) == ["CRASHED"] and report.counts["CRASHED"] >= 1
    first = report.first
    assert first is not None and first.code == "CRASHED" and first.where.startswith("step ")
    assert first.detail == "ValueError: no idea what to do"
    assert report.log_tail[-1] == "ValueError: no idea what to do"  # the traceback's last line
    assert any("raise ValueError" in line for line in report.log_tail)
    headline = report.lines()[0]
    assert headline.startswith(f"seat {seat} (bad) never played: CRASHED (")
    assert headline.endswith(f": ValueError: no idea what to do [CRASHED:{report.counts['CRASHED']}]")


@pytest.mark.parametrize("seat", [0, 1])
@pytest.mark.parametrize("game_id", game_ids())
def test_i26_1_a_subprocess_bot_that_prints_garbage_is_reported_in_its_seat(
    game_id: str, seat: int, tmp_path: Path
) -> None:
    game = get_game(game_id)
    report = only_report(play(game_id, script(tmp_path, "garbage.py", GARBAGE_BOT, game), seat), seat)
    assert report.never_played and list(report.counts) == ["INVALID"]
    assert report.first is not None and (report.first.reason, report.first.where) == ("bad_json", "start")
    assert report.log_tail == ("garbage bot here",)
    assert report.lines()[0].startswith(f"seat {seat} (garbage.py) never played: INVALID (bad_json) at start")


@pytest.mark.parametrize("seat", [0, 1])
@pytest.mark.parametrize("game_id", game_ids())
def test_i26_1_a_subprocess_bot_that_crashes_is_reported_in_its_seat(
    game_id: str, seat: int, tmp_path: Path
) -> None:
    game = get_game(game_id)
    report = only_report(play(game_id, script(tmp_path, "crash.py", CRASH_BOT, game), seat), seat)
    assert report.never_played and list(report.counts) == ["CRASHED"]
    assert report.first is not None
    assert (report.first.reason, report.first.where) == ("process_exited", "start")
    assert report.log_tail[-1] == "RuntimeError: subprocess bot gave up"


class _Failing(http.server.BaseHTTPRequestHandler):
    """A Devops logic service that answers every call with HTTP 500."""

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        self.send_response(500)
        self.send_header("Content-Length", "4")
        self.end_headers()
        self.wfile.write(b"boom")

    def log_message(self, format: str, *args: Any) -> None:  # keep the test output clean
        pass


@pytest.fixture
def failing_service() -> Iterator[str]:
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Failing)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(5)


@pytest.mark.parametrize("seat", [0, 1])
def test_i26_1_a_devops_http_service_that_fails_is_reported_in_its_seat(
    seat: int, failing_service: str
) -> None:
    """Devops holds one verdict per call: the starter's base and unit calls sit beside the failing
    faction's, so only the replies' seats say whose each verdict is."""
    replay = play("devops", DevopsHttpBot(failing_service, name="team-http"), seat)
    report = only_report(replay, seat)
    assert report.name == "team-http" and report.never_played
    assert list(report.counts) == ["CRASHED"]
    assert report.first is not None and report.first.reason == "http_status"
    calls = sum(len(step["verdicts"]) for step in replay.steps)
    assert report.counts["CRASHED"] < calls  # the other faction's calls are not counted here


def test_i26_1_a_crafting_quest_crash_in_seat_1_is_seat_1_from_its_first_turn() -> None:
    """Crafting Quest's step 1 is seat 0's first action, so seat 1 first fails at step 2."""
    report = only_report(play("craftingquest", PythonBot(Raises, name="bad"), 1), 1)
    assert report.first is not None and report.first.where == "step 2"


# -- what was lost ------------------------------------------------------------------------------------


class KindForType:
    """A Domains bot that names its orders' `type` as `kind`: every order is dropped."""

    def act(self, observation: dict[str, Any]) -> dict[str, Any]:
        mine = [u for u in observation["units"] if u["player"] == observation["me"]]
        return {"orders": [{"unit": u["id"], "kind": "move", "dir": 1} for u in mine]}


@pytest.mark.parametrize("seat", [0, 1])
def test_i26_1_domains_orders_with_kind_for_type_are_named_as_dropped(seat: int) -> None:
    report = only_report(play("domains", PythonBot(KindForType, name="kinder"), seat), seat)
    assert report.counts == {} and not report.never_played  # every reply was OK, and lost everything
    dropped, unknown = report.losses
    assert dropped.code == "DROPPED_ENTRY" and unknown.code == "UNKNOWN_KEY"
    assert dropped.count == unknown.count > 0
    assert (dropped.where, unknown.where) == ("step 1", "step 1")
    assert dropped.detail == "entry 0: type is missing: it must be move, attack or ability"
    assert unknown.detail == "entry 0: unknown key 'kind' ignored"
    lines = report.lines()
    assert lines[0] == (
        f"seat {seat} (kinder) {dropped.count} orders dropped (DROPPED_ENTRY), the first at step 1: "
        "entry 0: type is missing: it must be move, attack or ability"
    )
    assert lines[1] == (
        f"    {unknown.count} unknown keys ignored (UNKNOWN_KEY), the first at step 1: "
        "entry 0: unknown key 'kind' ignored"
    )


# -- the report from the replay alone -----------------------------------------------------------------


def replay_of(steps: list[dict[str, Any]], seats: int = 2, **fields: Any) -> Replay:
    players = [{"name": f"bot{seat}"} for seat in range(seats)]
    return Replay(game="devops", rules="devops_v1", preset="default", config={}, seed=0, players=players,
                  steps=steps, **fields)  # fmt: skip


def step(*calls: tuple[int, list[Any]]) -> dict[str, Any]:
    """A recorded step of (seat, verdict) calls, in the order given."""
    return {
        "replies": [{"seat": seat, "status": verdict[0], "payload": None} for seat, verdict in calls],
        "verdicts": [verdict for _, verdict in calls],
    }


OK: list[Any] = ["OK", None]


def test_i26_1_per_call_verdicts_count_in_their_replys_seat() -> None:
    """A step of calls where seat 0's come first: seat 1's timeouts and invalid replies are its own,
    each status with its first reason, step and detail."""
    replay = replay_of(
        [
            step((0, OK), (0, OK), (0, OK), (1, ["TIMEOUT", "deadline"])),
            step((0, OK), (1, OK), (1, ["INVALID", "bad_field", "x must be an integer", []])),
            step((0, OK), (1, ["TIMEOUT", "deadline"]), (1, ["INVALID", "bad_json"])),
        ],
        logs=[{"seat": 0, "text": "fine\n"}, {"seat": 1, "text": "a\nb\nc\nd\ne\nf\ng\n"}],
    )
    (report,) = seat_reports(replay)
    assert report.seat == 1 and not report.never_played
    assert report.counts == {"TIMEOUT": 2, "INVALID": 2}
    assert report.log_tail == ("c", "d", "e", "f", "g")
    assert report.lines() == [
        "seat 1 (bot1) TIMEOUT (deadline) at step 1 [TIMEOUT:2 INVALID:2]",
        "    the first INVALID (bad_field) at step 2: x must be an integer",
        *(f"    {line}" for line in "cdefg"),
    ]


def test_i26_1_a_detail_comes_from_the_verdict_else_its_warnings_else_the_replys() -> None:
    exchange = step(
        (0, ["CRASHED", "bot_error"]), (1, ["CRASHED", "bot_error", None, [{"code": "E", "detail": "v"}]])
    )
    exchange["replies"][0]["warnings"] = [{"code": "EXCEPTION", "detail": "KeyError: 'x'"}]
    reports = seat_reports(replay_of([], start=exchange))
    assert [(r.seat, r.first.detail if r.first else None) for r in reports] == [
        (0, "KeyError: 'x'"),
        (1, "v"),
    ]
    assert all(r.never_played for r in reports)  # failing at start and never asked again


def test_i26_1_an_ok_with_a_reason_or_at_start_alone_is_not_playing() -> None:
    replay = replay_of(
        [step((0, ["INVALID", "bad_json"]), (0, ["OK", "action_limit"])), step((1, OK))],
        start=step((0, OK), (1, OK)),
    )
    (report,) = seat_reports(replay)
    assert report.seat == 0 and report.never_played


@pytest.mark.parametrize(
    "fields",
    [
        {"steps": [{"verdicts": [["CRASHED", "x"]]}]},  # no replies: one verdict per seat, by index
        {"steps": [{"replies": [{"seat": "0"}], "verdicts": [["CRASHED", "x"]]}]},  # a bad seat
        {"steps": [None, {"verdicts": [[], "junk", ["CRASHED"]]}], "logs": [{"text": 3}]},
        {"steps": [{"replies": [{"seat": 7}], "verdicts": [["CRASHED", "x"]]}]},  # no such seat
    ],
)
def test_i26_1_a_partial_or_edited_replay_gives_what_it_holds(fields: dict[str, Any]) -> None:
    reports = seat_reports(replay_of(**fields))
    assert all(r.seat in (0, 1) and r.counts == {"CRASHED": 1} for r in reports)


def test_i26_1_long_details_and_log_lines_are_cut() -> None:
    replay = replay_of([step((0, ["INVALID", "r", "d" * 1000, []]))], logs=[{"seat": 0, "text": "l" * 1000}])
    (report,) = seat_reports(replay)
    assert report.first is not None and len(report.first.detail) == 240
    assert len(report.log_tail[0]) == 240 and report.log_tail[0].endswith("...")


def test_i26_1_a_clean_match_has_no_reports() -> None:
    assert seat_reports(replay_of([step((0, OK), (1, OK), (1, OK))])) == []
