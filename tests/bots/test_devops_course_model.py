"""Spec 11, deviations 2, 6 and 19: in the `course` preset the HTTP host sends exactly the fields of the
course's 2024-25 model classes (`be.ugent.devops.services.logic.api`), so a service using Jackson's
strict mapper (FAIL_ON_UNKNOWN_PROPERTIES) parses every body, and the unmodified course starter's
unaffordable FORTIFY is a lost turn, not a penalty.

The schema below is the model's field list (names, Java types, enum values) written out here: a field
added, renamed or retyped on either side makes this test fail. Two local checks go further and skip
when their tools are absent (CI): a strict Jackson parse of every captured body by a small Java program
of our own, and a real build and game of a checkout of the course service."""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Annotated, Any, Literal

import pytest
from aiohttp import web
from pydantic import BaseModel, ConfigDict, Field, StrictBool, StrictStr

from botarena.bots.devops_http import DevopsHttpBot
from botarena.games.devops import GAME
from botarena.games.devops.bots import LOGICS
from botarena.runner import MatchRun, run_match

from .test_devops_http import Service

# -- the 2024-25 model, as its Java types constrain the JSON ------------------------------------------
JavaInt = Annotated[int, Field(strict=True, ge=-(2**31), le=2**31 - 1)]
JavaLong = Annotated[int, Field(strict=True, ge=-(2**63), le=2**63 - 1)]
UnitType = Literal["PIONEER", "WORKER", "FIGHTER", "CLERIC", "SAPPER"]
UnitMoveType = Literal[
    "TRAVEL",
    "CONQUER_NEUTRAL_TILE",
    "NEUTRALIZE_ENEMY_TILE",
    "GENERATE_GOLD",
    "ATTACK",
    "PREPARE_DEFENSE",
    "FORTIFY",
    "PRAY",
    "HEAL",
    "CONVERT",
    "DEPLOY_BOMB",
    "CLEAR_BOMB",
    "RETIRE",
    "IDLE",
]


class Model(BaseModel):
    """Every field required (the host sends explicit nulls, deviation 10), none extra, no coercion."""

    model_config = ConfigDict(extra="forbid", strict=True)


class GameContext(Model):
    turnNumber: JavaLong
    gameId: StrictStr
    mapWidth: JavaInt
    mapHeight: JavaInt
    unitBaseHealth: dict[UnitType, JavaInt]
    unitCost: dict[UnitType, JavaInt]
    unitMoveCost: dict[UnitMoveType, JavaInt]


class Unit(Model):
    id: JavaInt
    owner: JavaInt
    type: UnitType
    damage: JavaInt
    health: JavaInt
    defenseBonus: StrictBool
    enlightened: StrictBool


class Location(Model):  # extends Coordinate (x, y)
    x: JavaInt
    y: JavaInt
    base: StrictBool
    resource: StrictBool
    fortified: StrictBool
    rigged: StrictBool
    owner: JavaInt | None
    occupyingUnit: Unit | None


class Faction(Model):
    id: JavaInt
    name: StrictStr
    base: Location
    gold: JavaLong
    bombs: JavaInt
    territorySize: JavaInt
    population: JavaInt
    populationCap: JavaInt
    kills: JavaInt
    score: JavaLong
    defeated: StrictBool
    currentUpkeep: JavaInt


class BuildSlotState(Model):
    turnsLeft: JavaInt
    unitType: UnitType


class BaseMoveInput(Model):
    context: GameContext
    faction: Faction
    buildSlotState: BuildSlotState | None  # Optional<BuildSlotState>


class UnitMoveInput(Model):
    context: GameContext
    faction: Faction
    unit: Unit
    unitLocation: Location
    neighbouringLocations: list[Location]


# -- a played `course` game, every body captured --------------------------------------------------
ALL_TYPES = ["PIONEER", "WORKER", "FIGHTER", "CLERIC", "SAPPER"]
COURSE = {"turn_limit": 6, "turn_interval_ms": 0, "starting_units": ALL_TYPES, "starting_bombs": 2}


def sapper_rigs(kind: str, body: dict[str, Any], request: web.Request) -> web.Response:
    """Faction 1: the starter logic, but a SAPPER deploys a bomb where it stands (so `rigged` is true
    in its next view)."""
    logic = STARTER
    if kind == "unit" and body["unit"]["type"] == "SAPPER" and not body["unitLocation"]["rigged"]:
        return web.json_response({"type": "DEPLOY_BOMB"})
    move = logic.next_base_move(body) if kind == "base" else logic.next_unit_move(body)
    return web.json_response(move)


def fortify_blindly(kind: str, body: dict[str, Any], request: web.Request) -> web.Response:
    """Faction 2, like the course starter: a WORKER fortifies without checking gold; the base idles."""
    if kind == "base":
        return web.json_response({"type": "IDLE"})
    if body["unit"]["type"] == "WORKER":
        return web.json_response({"type": "FORTIFY"})
    return web.json_response({"type": "PREPARE_DEFENSE" if body["unit"]["type"] == "FIGHTER" else "IDLE"})


STARTER = LOGICS["starter"]()


@pytest.fixture(scope="module")
def course_game() -> Iterator[tuple[MatchRun, list[tuple[str, dict[str, Any]]]]]:
    services = [Service(sapper_rigs), Service(fortify_blindly)]
    try:
        bots = [DevopsHttpBot(s.url, name=f"team-{i}") for i, s in enumerate(services, 1)]
        run = run_match(GAME, bots, config=GAME.config("course", COURSE), seed=13)
        bodies = [(kind, body) for s in services for kind, body, _ in s.bodies]
        yield run, bodies
    finally:
        for s in services:
            s.stop()


def test_spec11_every_course_body_matches_the_2024_25_model_exactly(
    course_game: tuple[MatchRun, list[tuple[str, dict[str, Any]]]],
) -> None:
    run, bodies = course_game
    assert run.replay.steps and len(bodies) > 6 * 2 * 6
    for kind, body in bodies:
        (BaseMoveInput if kind == "base" else UnitMoveInput).model_validate(body)
    # the bodies reached every optional shape the schema allows, so the check above saw them all
    units = [body for kind, body in bodies if kind == "unit"]
    locations = [loc for body in units for loc in [body["unitLocation"], *body["neighbouringLocations"]]]
    assert any(loc["rigged"] for loc in locations), "a SAPPER saw its bomb"
    assert any(loc["owner"] is None for loc in locations) and any(loc["owner"] for loc in locations)
    assert any(loc["occupyingUnit"] is None for loc in locations)
    bases = [body for kind, body in bodies if kind == "base"]
    assert any(b["buildSlotState"] is None for b in bases) and any(b["buildSlotState"] for b in bases)
    assert {body["unit"]["type"] for body in units} == set(ALL_TYPES)


def test_spec11_the_schema_rejects_an_added_or_renamed_field() -> None:
    """The check has teeth: the `mined` the host used to add, and a renamed field, both fail."""
    location = {"x": 1, "y": 2, "base": False, "resource": True, "fortified": False, "rigged": False}
    location |= {"owner": None, "occupyingUnit": None}
    Location.model_validate(location)
    with pytest.raises(ValueError, match="mined"):
        Location.model_validate({**location, "mined": False})
    renamed = {("isRigged" if k == "rigged" else k): v for k, v in location.items()}
    with pytest.raises(ValueError, match="rigged"):
        Location.model_validate(renamed)
    with pytest.raises(ValueError, match="owner"):
        Location.model_validate({**location, "owner": 1.0})  # Integer, not a float


def test_deviation6_course_starter_fortify_without_gold_is_a_lost_turn_not_a_penalty(
    course_game: tuple[MatchRun, list[tuple[str, dict[str, Any]]]],
) -> None:
    run, _ = course_game
    statuses = {verdict[0] for step in run.replay.steps for verdict in step["verdicts"]}
    assert statuses == {"OK"}  # nothing INVALID, TIMEOUT or CRASHED: every body was parsed
    # the replay keeps each verdict as [status, reason, detail, warnings]
    warnings = [w["code"] for step in run.replay.steps for v in step["verdicts"] if len(v) > 3 for w in v[3]]
    calls = [c for step in run.replay.steps for c in step["record"]["calls"] if c["faction"] == 2]
    ignored = [c for c in calls if c.get("outcomeReason") == "unaffordable"]
    assert ignored and all(c["status"] == "OK" and c["outcome"] == "ignored" for c in ignored)
    row = next(r for r in run.result.details["results"] if r["factionId"] == 2)
    assert row["errors"] == 0 and row["timeouts"] == 0 and row["ignored"] >= len(ignored)
    assert warnings.count("unaffordable") == len(ignored)


# -- local checks: a strict Jackson mapper, and the course's own service ----------------------------
JACKSON_JARS = ("jackson-databind.jar", "jackson-core.jar", "jackson-annotations.jar")


def jackson_classpath() -> str | None:
    """BOTARENA_DEVOPS_JACKSON_CLASSPATH, else Debian's libjackson2-databind-java jars, else None."""
    given = os.environ.get("BOTARENA_DEVOPS_JACKSON_CLASSPATH")
    if given:
        return given
    jars = [Path("/usr/share/java") / name for name in JACKSON_JARS]
    return os.pathsep.join(map(str, jars)) if all(j.is_file() for j in jars) else None


STRICT_CHECK = Path(__file__).parent / "devops_java" / "StrictCheck.java"


def test_spec11_a_strict_jackson_mapper_parses_every_course_body(
    course_game: tuple[MatchRun, list[tuple[str, dict[str, Any]]]], tmp_path: Path
) -> None:
    """A Java program of ours, with records written from the model's field list, parses each body
    with FAIL_ON_UNKNOWN_PROPERTIES (and null-for-primitive, missing-property) failures on."""
    classpath = jackson_classpath()
    javac, java = shutil.which("javac"), shutil.which("java")
    if classpath is None or javac is None or java is None:
        pytest.skip(
            "needs javac and Jackson 2.12+ jars (apt-get install libjackson2-databind-java, or "
            "BOTARENA_DEVOPS_JACKSON_CLASSPATH); absent here"
        )
    _, bodies = course_game
    data = tmp_path / "bodies.jsonl"
    data.write_text("".join(f"{kind}\t{json.dumps(body)}\n" for kind, body in bodies))
    build = tmp_path / "classes"
    subprocess.run([javac, "-d", str(build), "-cp", classpath, str(STRICT_CHECK)], check=True)
    done = subprocess.run(
        [java, "-cp", os.pathsep.join([str(build), classpath]), "StrictCheck", str(data)],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.strip() == f"parsed {len(bodies)} bodies"
    # and the same program rejects the field the host used to add
    bad = tmp_path / "bad.jsonl"
    kind, body = next((k, b) for k, b in bodies if k == "base")
    body = json.loads(json.dumps(body))
    body["faction"]["base"]["mined"] = False
    bad.write_text(f"{kind}\t{json.dumps(body)}\n")
    refused = subprocess.run(
        [java, "-cp", os.pathsep.join([str(build), classpath]), "StrictCheck", str(bad)],
        capture_output=True,
        text=True,
    )
    assert refused.returncode != 0 and "mined" in refused.stdout + refused.stderr


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def test_spec11_the_course_service_checkout_builds_and_plays_a_course_game(tmp_path: Path) -> None:
    """BOTARENA_DEVOPS_COURSE_CHECKOUT names the folder of the course's 2024-25 service (the one with
    its pom.xml, e.g. .../devops-project-main). Maven builds it unmodified (it must be able to fetch
    Quarkus from a Maven repository), it runs with Jackson's strict mapping switched on, and plays a
    `course` game: every call must be OK."""
    checkout = os.environ.get("BOTARENA_DEVOPS_COURSE_CHECKOUT")
    if not checkout:
        pytest.skip("BOTARENA_DEVOPS_COURSE_CHECKOUT is not set (a local check with a course checkout)")
    mvn, java = shutil.which("mvn"), shutil.which("java")
    if mvn is None or java is None:
        pytest.skip("needs mvn and java on PATH")
    source = Path(checkout)
    work = tmp_path / "service"
    shutil.copytree(source, work, ignore=shutil.ignore_patterns("target"))
    build = subprocess.run(
        [mvn, "-B", "-q", "package", "-DskipTests"], cwd=work, capture_output=True, text=True
    )
    output = build.stdout + build.stderr
    if build.returncode != 0 and "Could not transfer artifact" in output:
        # no Maven repository reachable (e.g. only PyPI/Debian/npm mirrors): the check cannot run
        pytest.skip("maven cannot fetch the course service's dependencies (Quarkus) from a Maven repository")
    assert build.returncode == 0, "maven could not build the checkout:\n" + output[-3000:]
    port = free_port()
    service = subprocess.Popen(
        [
            java,
            f"-Dquarkus.http.port={port}",
            "-Dquarkus.jackson.fail-on-unknown-properties=true",
            "-jar",
            str(work / "target" / "quarkus-app" / "quarkus-run.jar"),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        wait_for_line(service, "Listening on")
        url = f"http://127.0.0.1:{port}"
        bots = [DevopsHttpBot(url, name="course-a"), DevopsHttpBot(url, name="course-b")]
        config = GAME.config("course", {"turn_limit": 5, "turn_interval_ms": 0, "turn_timeout_ms": 5000})
        run = run_match(GAME, bots, config=config, seed=3)
        statuses = {verdict[0] for step in run.replay.steps for verdict in step["verdicts"]}
        assert statuses == {"OK"}, statuses
    finally:
        service.terminate()
        service.wait(30)


def wait_for_line(process: subprocess.Popen[str], text: str) -> None:
    """Read the service's output until its start-up line; then keep draining it on a thread."""
    assert process.stdout is not None
    seen: list[str] = []
    for line in process.stdout:
        seen.append(line)
        if text in line:
            threading.Thread(target=process.stdout.read, daemon=True).start()
            return
    raise AssertionError("the service exited before listening:\n" + "".join(seen[-40:]))
