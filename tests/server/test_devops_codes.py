"""Spec 7.5, the Devops bonus-code API of a running game, over a real server on 127.0.0.1: every status
of the table, and a redemption during a real match that DV-20 activates in the next turn, shows in
the replay, and re-runs identically (`verify_replay`)."""

from __future__ import annotations

import dataclasses
import json
import re
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from waiting import wait_until

pytest.importorskip("fastapi")
pytest.importorskip("uvicorn")

from botarena.bots.inprocess import PythonBot
from botarena.core.protocol import Reply
from botarena.core.replay import read_replay, write_replay
from botarena.core.status import Status
from botarena.games.devops import GAME
from botarena.games.devops.bots import FactionBot
from botarena.games.devops.bots.banker import Banker
from botarena.games.devops.engine import DevopsEngine
from botarena.runner import run_match
from botarena.runner.verify import verify_replay
from botarena.server.devops.codes import live_routes
from botarena.store import Store

_opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
KEYS = {1: "team-one-key", 2: "team-two-key"}
ORGANIZER = "the-organizer-key"


def call(method: str, url: str, body: Any = None, headers: dict[str, str] | None = None) -> tuple[int, Any]:
    data = body if isinstance(body, bytes) or body is None else json.dumps(body).encode()
    request = urllib.request.Request(url, data=data, method=method, headers=headers or {})
    if data is not None:
        request.add_header("Content-Type", "application/json")
    try:
        with _opener.open(request, timeout=30) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read())


def play(e: DevopsEngine) -> dict[str, Any]:
    """One turn in which every call answers IDLE; its step record."""
    requests = e.next_requests()
    return e.apply([Reply(r.seat, Status.OK, {"type": "IDLE"}) for r in requests]).record


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    store = Store.open(f"sqlite:///{tmp_path / 'a.db'}", replay_dir=tmp_path / "replays")
    yield store
    store.close()


def serve_match(start_server: Callable[..., Any], store: Store, match: Any) -> str:
    router = live_routes(match)
    assert router is not None
    return str(start_server(store, routers=[router]).url) + "/api"


def test_no_routes_without_bonus_codes() -> None:
    match = SimpleNamespace(engine=None, config=GAME.config("smoke"), players=[], organizer_key=ORGANIZER)
    assert live_routes(match) is None


def test_every_status_of_the_table(start_server: Callable[..., Any], store: Store) -> None:
    config = {"bonus_codes_enabled": True, "bonus_code_valid_turns": 5, "turn_limit": 50}
    e = DevopsEngine(GAME.config("smoke", config), 1, 2)
    match = SimpleNamespace(engine=e, config=e.config, players=[], organizer_key=ORGANIZER, team_keys=KEYS)
    api = serve_match(start_server, store, match)
    game = f"{api}/games/{e.game_id}/devops"
    boss, one, two = {"X-ORGANIZER-KEY": ORGANIZER}, {"X-SECURE-KEY": KEYS[1]}, {"X-SECURE-KEY": KEYS[2]}

    # issuing: 201 (current turn 0), 400, 403
    status, code = call("POST", f"{game}/codes", {"factionId": 1, "type": "RUSH_ATTACK"}, boss)
    assert status == 201
    assert code["type"] == "RUSH_ATTACK" and code["factionId"] == 1 and code["gameId"] == e.game_id
    assert code["validUntilTurn"] == 0 + 5 and len(code["code"]) >= 22  # 128 bits, URL-safe base64
    assert call("POST", f"{game}/codes", {"factionId": 1, "type": "NOPE"}, boss)[0] == 400
    assert call("POST", f"{game}/codes", {"factionId": 3, "type": "EXTRA_GOLD"}, boss)[0] == 400
    assert call("POST", f"{game}/codes", b"{not json", boss)[0] == 400
    assert call("POST", f"{game}/codes", {"factionId": 1, "type": "EXTRA_GOLD"}, one)[0] == 403
    assert (
        call("POST", f"{api}/games/other/devops/codes", {"factionId": 1, "type": "EXTRA_GOLD"}, boss)[0]
        == 403
    )
    play(e)  # turn 1 has started: validUntilTurn counts from it
    status, short = call(
        "POST", f"{game}/codes", {"factionId": 1, "type": "EXTRA_GOLD", "validTurns": 1}, boss
    )
    assert status == 201 and short["validUntilTurn"] == 2
    status, other = call("POST", f"{game}/codes", {"factionId": 2, "type": "CHEAPER_UNITS"}, boss)
    assert status == 201 and other["code"] != code["code"]

    # listing: 200 for the faction's own codes, 403 for another team, a bad key or another game
    status, codes = call("GET", f"{game}/factions/1/codes", headers=one)
    assert status == 200 and {c["code"] for c in codes} == {code["code"], short["code"]}
    assert call("GET", f"{game}/factions/1/codes", headers=two)[0] == 403
    assert call("GET", f"{game}/factions/1/codes")[0] == 403
    assert call("GET", f"{game}/factions/9/codes", headers=one)[0] == 403
    assert call("GET", f"{api}/games/other/devops/factions/1/codes", headers=one)[0] == 403

    # redeeming: 400, 403, 404, 202, 409, 410, 423
    redeem = f"{game}/redeem"
    assert call("POST", redeem, {"code": code["code"]}, one)[0] == 400
    assert call("POST", redeem, b"[1,", one)[0] == 400
    assert call("POST", redeem, {"factionId": 1, "code": code["code"]}, two)[0] == 403  # bad key
    assert call("POST", redeem, {"factionId": 2, "code": code["code"]}, two)[0] == 403  # not its code
    assert call("POST", f"{api}/games/x/devops/redeem", {"factionId": 1, "code": code["code"]}, one)[0] == 403
    assert call("POST", redeem, {"factionId": 1, "code": "no-such-code"}, one)[0] == 404
    status, queued = call("POST", redeem, {"factionId": 1, "code": code["code"]}, one)
    assert status == 202 and queued == {"status": "queued", "type": "RUSH_ATTACK", "activatesAtTurn": 2}
    assert call("POST", redeem, {"factionId": 1, "code": code["code"]}, one)[0] == 409
    record = play(e)  # turn 2: DV-20 activates it and the record says so
    assert record["redemptions"] == [{"faction": 1, "type": "RUSH_ATTACK", "validUntilTurn": 5}]
    assert {"event": "bonus_activated", "faction": 1, "type": "RUSH_ATTACK"} in record["events"]
    play(e)  # turn 3 > validUntilTurn 2
    status, codes = call("GET", f"{game}/factions/1/codes", headers=one)
    assert status == 200 and codes == []  # redeemed and expired codes are not listed
    assert call("POST", redeem, {"factionId": 1, "code": short["code"]}, one)[0] == 410
    e.state.faction(2).defeated = True
    assert call("POST", redeem, {"factionId": 2, "code": other["code"]}, two)[0] == 423
    e.state.faction(2).defeated = False
    e.state.finished = True
    assert call("POST", redeem, {"factionId": 2, "code": other["code"]}, two)[0] == 423
    assert call("POST", f"{game}/codes", {"factionId": 1, "type": "EXTRA_GOLD"}, boss)[0] == 423


def test_not_started_yet_is_locked(start_server: Callable[..., Any], store: Store) -> None:
    config = GAME.config("smoke", {"bonus_codes_enabled": True})
    match = SimpleNamespace(engine=None, config=config, players=[], organizer_key=ORGANIZER, team_keys=KEYS)
    api = serve_match(start_server, store, match)
    status, body = call("POST", f"{api}/games/g/devops/codes", {"factionId": 1, "type": "EXTRA_GOLD"})
    assert status == 423 and "detail" in body


class Redeemer(Banker):
    """Banker that, in its base call of turn 3, has the organizer issue it a code and redeems it."""

    api = ""

    def next_base_move(self, input: dict[str, Any]) -> dict[str, Any]:
        context = input["context"]
        if context["turnNumber"] == 3 and self.api:
            game = f"{self.api}/games/{context['gameId']}/devops"
            boss = {"X-ORGANIZER-KEY": ORGANIZER}
            status, code = call("POST", f"{game}/codes", {"factionId": 1, "type": "INCOME_MULTIPLIER"}, boss)
            assert status == 201
            status, listed = call("GET", f"{game}/factions/1/codes", headers={"X-SECURE-KEY": KEYS[1]})
            assert status == 200 and listed == [code]
            status, queued = call(
                "POST", f"{game}/redeem", {"factionId": 1, "code": code["code"]}, {"X-SECURE-KEY": KEYS[1]}
            )
            assert status == 202 and queued["activatesAtTurn"] == 4
            self.api = ""
        return super().next_base_move(input)


def test_a_redemption_in_a_live_match_activates_next_turn_and_replays(
    start_server: Callable[..., Any], store: Store, tmp_path: Path
) -> None:
    config = GAME.config("smoke", {"bonus_codes_enabled": True, "turn_limit": 8, "turn_timeout_ms": 60_000})
    logic = Redeemer()
    players = [FactionBot(logic), FactionBot(Banker())]
    match = SimpleNamespace(
        engine=None, config=config, players=players, organizer_key=ORGANIZER, team_keys=KEYS
    )

    def new_engine(*args: Any) -> Any:
        match.engine = GAME.new_engine(*args)
        return match.engine

    logic.api = serve_match(start_server, store, match)
    game = dataclasses.replace(GAME, new_engine=new_engine)
    bots = [
        PythonBot(lambda bot=bot: bot, name)
        for bot, name in zip(players, ["redeemer", "banker"], strict=True)
    ]
    replay = run_match(game, bots, config=config, seed=5).replay
    assert logic.api == ""  # the redemption happened
    records = [step["record"] for step in replay.steps]
    assert [r["turn"] for r in records if "redemptions" in r] == [4]
    turn4 = records[3]
    assert turn4["redemptions"] == [{"faction": 1, "type": "INCOME_MULTIPLIER", "validUntilTurn": 3 + 50}]
    assert {"event": "bonus_activated", "faction": 1, "type": "INCOME_MULTIPLIER"} in turn4["events"]
    assert not any(e["event"] == "bonus_activated" for r in records[:3] for e in r["events"])
    report = verify_replay(read_replay(write_replay(replay, tmp_path / "codes.json.gz")))
    assert report.identical, str(report)
    # without the recorded redemptions, the re-run differs at turn 4
    for step in replay.steps:
        step["record"].pop("redemptions", None)
    report = verify_replay(replay)
    assert not report.identical and "turn 4" in report.where


def test_play_live_serves_the_codes_of_its_match(tmp_path: Path) -> None:
    """`botarena play devops URL#key=... --live`: the organizer issues a code with the printed key,
    the URL faction's team redeems it with its secure key, and the replay re-runs identically."""
    import subprocess
    import sys
    import threading

    import uvicorn

    from botarena.games.devops.bots import LOGICS
    from botarena.server.devops.starter_service import create_app as starter_app
    from botarena.server.viewer import bind_socket

    sock = bind_socket("127.0.0.1", 0)
    service = uvicorn.Server(
        uvicorn.Config(starter_app(LOGICS["starter"](), secure_key="k1"), log_level="warning")
    )
    thread = threading.Thread(target=service.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    overrides = {"bonus_codes_enabled": True, "turn_limit": 100, "turn_interval_ms": 50}
    game_id = GAME.new_engine(GAME.config("smoke", overrides), 4, 2).game_id
    replay_path = tmp_path / "live.json.gz"
    sets = [arg for key, value in overrides.items() for arg in ("--set", f"{key}={json.dumps(value)}")]
    url = f"http://127.0.0.1:{sock.getsockname()[1]}#key=k1"
    command = [sys.executable, "-m", "botarena.cli", "play", "devops", url, "banker", "--preset", "smoke"]
    command += ["--seed", "4", *sets, "--replay", str(replay_path), "--live", "--live-linger", "0"]
    proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None
        proc.stdout.readline()  # watch live: ...
        line = proc.stdout.readline()
        found = re.search(r"game routes under (http://127\.0\.0\.1:\d+/api) \(organizer key: (\S+)\)", line)
        assert found, line
        api, organizer = found.groups()
        game = f"{api}/games/{game_id}/devops"

        def post_code() -> tuple[int, Any] | None:  # 423 until the match has made its engine
            answer = call(
                "POST",
                f"{game}/codes",
                {"factionId": 1, "type": "EXTRA_GOLD"},
                {"X-ORGANIZER-KEY": organizer},
            )
            return None if answer[0] == 423 else answer

        status, code = wait_until(post_code, "the match making its engine (POST /codes no longer 423)")
        assert status == 201, code
        team = {"X-SECURE-KEY": "k1"}
        assert call("GET", f"{game}/factions/1/codes", headers=team) == (200, [code])
        assert call("GET", f"{game}/factions/2/codes", headers=team)[0] == 403
        status, queued = call("POST", f"{game}/redeem", {"factionId": 1, "code": code["code"]}, team)
        assert status == 202, queued
        _out, err = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(10)
        service.should_exit = True
        thread.join(10)
        sock.close()
    assert proc.returncode == 0, err
    replay = read_replay(replay_path)
    turn = queued["activatesAtTurn"]
    records = {step["record"]["turn"]: step["record"] for step in replay.steps}
    assert [t for t, r in records.items() if "redemptions" in r] == [turn]
    assert records[turn]["redemptions"] == [
        {"faction": 1, "type": "EXTRA_GOLD", "validUntilTurn": code["validUntilTurn"]}
    ]
    assert {"event": "extra_gold", "faction": 1, "gold": 1000} in records[turn]["events"]
    report = verify_replay(replay)
    assert report.identical, str(report)


def test_concurrent_redemptions_are_each_taken_once() -> None:
    """The routes' threads redeem while the match thread plays its engine behind the same lock
    (`LockedEngine`, as `play --live` does): every redemption is taken exactly once (DV-20)."""
    import threading

    from botarena.server.devops.codes import LiveCodes
    from botarena.server.live import LockedEngine

    overrides = {"bonus_codes_enabled": True, "bonus_duration_turns": 1000, "turn_limit": 100_000}
    plain = DevopsEngine(GAME.config("smoke", overrides), 1, 2)
    lock = threading.RLock()
    e = LockedEngine(plain, lock)
    match = SimpleNamespace(
        engine=e, config=plain.config, players=[], organizer_key=ORGANIZER, team_keys=KEYS
    )
    match.lock = lock
    codes = LiveCodes(match)
    kinds = ["INCOME_MULTIPLIER", "CHEAPER_UNITS", "RUSH_ATTACK"]
    issued = {
        kind: [
            codes.issue(plain.game_id, {"factionId": 1, "type": kind, "validTurns": 100_000}, ORGANIZER)[
                "code"
            ]
            for _ in range(200)
        ]
        for kind in kinds
    }

    def redeem_many(kind: str) -> None:
        for code in issued[kind]:
            codes.redeem(plain.game_id, {"factionId": 1, "code": code}, KEYS[1])

    threads = [threading.Thread(target=redeem_many, args=(kind,)) for kind in kinds]
    taken = 0
    for thread in threads:
        thread.start()
    while any(thread.is_alive() for thread in threads):
        taken += len(play(e).get("redemptions", []))
    for thread in threads:
        thread.join()
    taken += len(play(e).get("redemptions", []))
    assert taken == 600
    assert sorted(plain.state.faction(1).bonuses) == sorted(kinds)
    assert codes.listing(plain.game_id, "1", KEYS[1]) == []  # all redeemed
