"""The devops HTTP host (spec 7.1, 5.2, DV-16, DV-17) against real local services on 127.0.0.1."""

from __future__ import annotations

import asyncio
import socket
import threading
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from aiohttp import web

from botarena.bots.devops_http import DevopsHttpBot
from botarena.bots.inprocess import PythonBot
from botarena.games.devops import GAME
from botarena.games.devops.bots import LOGICS
from botarena.runner import run_match

SMALL = {
    "map_width_min": 12,
    "map_width_max": 12,
    "map_height_min": 12,
    "map_height_max": 12,
    "turn_limit": 3,
    "turn_timeout_ms": 400,
}


class Service:
    """An aiohttp service on its own thread; `behaviour(kind, body) -> response` decides each reply."""

    def __init__(self, behaviour: Callable[[str, dict[str, Any], web.Request], Any]) -> None:
        self.behaviour = behaviour
        self.bodies: list[tuple[str, dict[str, Any], dict[str, str]]] = []
        self.in_flight = 0
        self.max_in_flight = 0
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()
        self.runner = asyncio.run_coroutine_threadsafe(self._start(), self.loop).result(10)

    async def _handle(self, request: web.Request) -> web.StreamResponse:
        kind = request.match_info["kind"]
        body = await request.json()
        self.bodies.append((kind, body, dict(request.headers)))
        self.in_flight += 1
        self.max_in_flight = max(self.max_in_flight, self.in_flight)
        try:
            result = self.behaviour(kind, body, request)
            if asyncio.iscoroutine(result):
                result = await result
            return result  # type: ignore[no-any-return]
        finally:
            self.in_flight -= 1

    async def _start(self) -> web.AppRunner:
        app = web.Application()
        app.router.add_post("/moves/{kind}", self._handle)
        runner = web.AppRunner(app, shutdown_timeout=0.5)
        await runner.setup()
        site = web.TCPSite(runner, "127.0.0.1", 0)
        await site.start()
        self.port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
        return runner

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def stop(self) -> None:
        asyncio.run_coroutine_threadsafe(self.runner.cleanup(), self.loop).result(10)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(5)


def logic_behaviour(name: str = "starter") -> Callable[..., Any]:
    logic = LOGICS[name]()

    def behave(kind: str, body: dict[str, Any], request: web.Request) -> web.Response:
        move = logic.next_base_move(body) if kind == "base" else logic.next_unit_move(body)
        return web.json_response(move)

    return behave


@pytest.fixture
def services() -> Iterator[list[Service]]:
    made: list[Service] = []
    yield made
    for service in made:
        service.stop()


def start(services: list[Service], behaviour: Callable[..., Any]) -> Service:
    service = Service(behaviour)
    services.append(service)
    return service


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def verdicts_of(replay: Any, seat: int) -> list[tuple[str, str | None]]:
    out = []
    for step in replay.steps:
        for reply, verdict in zip(step["replies"], step["verdicts"], strict=True):
            if reply["seat"] == seat:
                out.append((verdict[0], verdict[1]))
    return out


def test_http_and_in_process_factions_play_one_game_with_the_secure_key(services: list[Service]) -> None:
    service = start(services, logic_behaviour("starter"))
    bots = [
        DevopsHttpBot(service.url + "/", name="team-http", secure_key="s3cret"),
        PythonBot(GAME.starter_bots["expander"], "local"),
    ]
    run = run_match(GAME, bots, config=GAME.config(overrides=SMALL), seed=5)
    assert set(verdicts_of(run.replay, 0)) == {("OK", None)}
    assert run.replay.steps and len(run.result.ranks) == 2
    kinds = [kind for kind, _, _ in service.bodies]
    assert kinds[0] == "base" and "unit" in kinds
    assert all(headers.get("X-SECURE-KEY") == "s3cret" for _, _, headers in service.bodies)
    assert all(
        headers.get("Content-Type", "").startswith("application/json") for _, _, headers in service.bodies
    )
    # the name reaches the service (DV-6)
    assert service.bodies[0][1]["faction"]["name"] == "team-http"


LOCATION_KEYS = {"x", "y", "base", "resource", "fortified", "mined", "rigged", "owner", "occupyingUnit"}
UNIT_KEYS = {"id", "owner", "type", "damage", "health", "defenseBonus", "enlightened"}
CONTEXT_KEYS = {"turnNumber", "gameId", "mapWidth", "mapHeight", "unitBaseHealth", "unitCost", "unitMoveCost"}
FACTION_KEYS = {
    "id",
    "name",
    "base",
    "gold",
    "bombs",
    "territorySize",
    "population",
    "populationCap",
    "kills",
}
FACTION_KEYS |= {"score", "defeated", "currentUpkeep"}


def test_java_compatibility_of_the_json_sent(services: list[Service]) -> None:
    """Spec 11: the 2024-25 model's field names and types, plus mined, activeBonuses and bombCost."""
    service = start(services, logic_behaviour("idle"))
    bots = [DevopsHttpBot(service.url), PythonBot(GAME.starter_bots["idle"], "idle")]
    run_match(GAME, bots, config=GAME.config(overrides={**SMALL, "turn_limit": 1}), seed=2)
    base = next(body for kind, body, _ in service.bodies if kind == "base")
    unit = next(body for kind, body, _ in service.bodies if kind == "unit")
    assert set(base) == {"context", "faction", "buildSlotState"}
    assert set(base["context"]) == CONTEXT_KEYS | {"bombCost", "activeBonuses"}
    assert set(base["faction"]) == FACTION_KEYS and set(base["faction"]["base"]) == LOCATION_KEYS
    assert set(unit) == {"context", "faction", "unit", "unitLocation", "neighbouringLocations"}
    assert set(unit["unit"]) == UNIT_KEYS and set(unit["unitLocation"]) == LOCATION_KEYS
    assert set(unit["unitLocation"]["occupyingUnit"]) == UNIT_KEYS
    assert len(unit["neighbouringLocations"]) == 8
    assert type(base["faction"]["gold"]) is int and type(base["faction"]["defeated"]) is bool
    assert type(unit["unit"]["type"]) is str and base["buildSlotState"] is None


def test_java_factory_shaped_replies_parse(services: list[Service]) -> None:
    def behave(kind: str, body: dict[str, Any], request: web.Request) -> web.Response:
        if kind == "base":
            return web.json_response(
                {"type": "START_BUILDING_UNIT", "unitToBuild": "PIONEER", "baseLocation": None}
            )
        here = body["unitLocation"]
        target = body["neighbouringLocations"][0]
        return web.json_response(
            {"type": "TRAVEL", "targetLocation": target, "targetUnit": None, "extra": here}
        )

    service = start(services, behave)
    bots = [DevopsHttpBot(service.url), PythonBot(GAME.starter_bots["idle"], "idle")]
    run = run_match(GAME, bots, config=GAME.config(overrides={**SMALL, "turn_limit": 1}), seed=2)
    assert set(verdicts_of(run.replay, 0)) == {("OK", None)}
    calls = run.replay.steps[0]["record"]["calls"]
    assert calls[0]["move"] == {"type": "BUILD_UNIT", "unitToBuild": "PIONEER"}


async def _slow(kind: str, body: dict[str, Any], request: web.Request) -> web.Response:
    await asyncio.sleep(0.7)
    return web.json_response({"type": "IDLE"})


async def _drip(kind: str, body: dict[str, Any], request: web.Request) -> web.StreamResponse:
    response = web.StreamResponse(headers={"Content-Type": "application/json"})
    await response.prepare(request)
    for char in '{"type": "IDLE"}':
        await response.write(char.encode())
        await asyncio.sleep(0.1)
    return response


def _huge(kind: str, body: dict[str, Any], request: web.Request) -> web.Response:
    return web.json_response({"type": "IDLE", "pad": "x" * 100_000})


def _redirect(kind: str, body: dict[str, Any], request: web.Request) -> web.Response:
    raise web.HTTPFound("/elsewhere")


def _invalid(kind: str, body: dict[str, Any], request: web.Request) -> web.Response:
    if kind == "base":
        return web.json_response({"type": "FLY"})
    return web.json_response({"type": "ATTACK"})


BEHAVIOURS: dict[str, tuple[Callable[..., Any], tuple[str, str]]] = {
    "slow": (_slow, ("TIMEOUT", "deadline")),
    "drip": (_drip, ("TIMEOUT", "deadline")),
    "error500": (lambda k, b, r: web.Response(status=500, text="boom"), ("CRASHED", "http_status")),
    "redirect": (_redirect, ("CRASHED", "http_status")),
    "garbage": (lambda k, b, r: web.Response(text="not json {"), ("INVALID", "bad_json")),
    "not_object": (lambda k, b, r: web.json_response([1, 2]), ("INVALID", "bad_json")),
    "huge": (_huge, ("INVALID", "bad_json")),
}


def test_misbehaving_services_get_statuses_and_penalties_and_the_game_goes_on(
    services: list[Service],
) -> None:
    names = list(BEHAVIOURS)
    bots: list[Any] = []
    for name in names:
        service = start(services, BEHAVIOURS[name][0])
        bots.append(DevopsHttpBot(service.url, name=name))
    bots.append(DevopsHttpBot(f"http://127.0.0.1:{free_port()}", name="refused"))
    bots.append(PythonBot(GAME.starter_bots["starter"], "starter"))
    config = GAME.config(
        overrides={
            **SMALL,
            "map_width_min": 30,
            "map_width_max": 30,
            "map_height_min": 30,
            "map_height_max": 30,
        }
    )
    run = run_match(GAME, bots, config=config, seed=9)
    assert len(run.replay.steps) == config.turn_limit
    details = {row["factionId"]: row for row in run.result.details["results"]}
    for seat, name in enumerate(names):
        seen = set(verdicts_of(run.replay, seat))
        assert seen == {BEHAVIOURS[name][1]}, name
        calls = len(verdicts_of(run.replay, seat))
        row = details[seat + 1]
        assert row["timeouts"] + row["errors"] == calls
    refused = len(names)
    assert set(verdicts_of(run.replay, refused)) == {("CRASHED", "transport")}
    assert set(verdicts_of(run.replay, refused + 1)) == {("OK", None)}


def test_invalid_moves_are_penalised_as_invalid(services: list[Service]) -> None:
    service = start(services, _invalid)
    bots = [DevopsHttpBot(service.url), PythonBot(GAME.starter_bots["idle"], "idle")]
    run = run_match(GAME, bots, config=GAME.config(overrides={**SMALL, "turn_limit": 2}), seed=1)
    assert set(verdicts_of(run.replay, 0)) == {("INVALID", "bad_type"), ("INVALID", "bad_parameter")}
    calls = len(verdicts_of(run.replay, 0))
    assert run.result.details["results"][-1]["factionId"] == 1 or run.result.scores[0] <= -100 * calls


def test_unit_calls_run_concurrently_bounded_per_faction(services: list[Service]) -> None:
    async def behave(kind: str, body: dict[str, Any], request: web.Request) -> web.Response:
        await asyncio.sleep(0.05)
        return web.json_response({"type": "IDLE"})

    service = start(services, behave)
    overrides = {
        **SMALL,
        "turn_limit": 2,
        "starting_units": ["PIONEER"] * 8,
        "http_max_parallel_per_faction": 3,
    }
    bots = [DevopsHttpBot(service.url), PythonBot(GAME.starter_bots["idle"], "idle")]
    run = run_match(GAME, bots, config=GAME.config(overrides=overrides), seed=1)
    assert set(verdicts_of(run.replay, 0)) == {("OK", None)}
    assert 1 < service.max_in_flight <= 3
    # within a turn, the base call comes first and unit calls go out in ascending unit id
    turn_one = [body for kind, body, _ in service.bodies if body["context"]["turnNumber"] == 1]
    assert "unit" not in turn_one[0] and [b["unit"]["id"] for b in turn_one[1:4]] == [1, 2, 3]


def test_dv17_turn_budget_cuts_queued_and_unsent_calls(services: list[Service]) -> None:
    async def behave(kind: str, body: dict[str, Any], request: web.Request) -> web.Response:
        if kind == "unit":
            await asyncio.sleep(0.4)
        return web.json_response({"type": "IDLE"})

    service = start(services, behave)
    overrides = {
        **SMALL,
        "turn_limit": 1,
        "turn_timeout_ms": 600,
        "turn_budget_ms": 1000,
        "starting_units": ["PIONEER"] * 4,
        "http_max_parallel_per_faction": 1,
    }
    bots = [DevopsHttpBot(service.url), PythonBot(GAME.starter_bots["idle"], "idle")]
    run = run_match(GAME, bots, config=GAME.config(overrides=overrides), seed=1)
    seen = verdicts_of(run.replay, 0)
    assert seen[:3] == [("OK", None), ("OK", None), ("OK", None)]
    assert seen[3:] == [("TIMEOUT", "turn_budget"), ("TIMEOUT", "turn_budget")]
    assert run.result.details["results"][0]["timeouts"] + run.result.details["results"][1]["timeouts"] == 2
