"""Whole games of the Prospector against the Wanderer (spec §10 and §11 item 7), untimed.

§11 item 7 (the smoke test): on `map_v1`, 10 seeds from both seats, every game completes and the
Prospector ends above 300 credit in at least 18 of the 20. The original maps are read from
`$BOTARENA_CQ_MAPS` or the shared fixtures (`cq_fixtures.maps_dir`); without them these tests skip.
On generated maps (no fixture needed) the Prospector beats the Wanderer on most seeds. In every game
it never sends an action that fails the §5.2 shape checks (no `OperandError` or `UnknownError`).

Each game is played once (memoised) and judged by several tests.
"""

from __future__ import annotations

import functools
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from cq_fixtures import maps_dir, require_maps

from botarena.bots.inprocess import PythonBot
from botarena.bots.resolve import python_file_factory
from botarena.core.registry import get_game
from botarena.games.craftingquest.bots import STARTERS
from botarena.games.craftingquest.bots.prospector import Prospector
from botarena.games.craftingquest.generate import build_scenario
from botarena.runner import run_match

SMOKE_SEEDS = tuple(range(1, 11))
GENERATED_GAMES = ((11, 0), (12, 1), (13, 0), (14, 1))  # (seed, the Prospector's seat)
SHAPE_ERRORS = ("OperandError", "UnknownError")


@dataclass(frozen=True)
class Game:
    """What the tests need of one finished game, from the Prospector's side."""

    rounds: int
    last_round: int
    prospector: int
    opponent: int
    prospector_errors: Counter[str]
    invalid: int  # Prospector log entries with status INVALID (§5.5)
    owed: int  # Prospector turns skipped or closed at a deadline (no_answer, timeout)
    labels: dict[tuple[int, ...], str]  # the Prospector's labelled vectors at the end
    classified: dict[tuple[int, ...], str | None]  # its classification of every vector it scanned
    truth: dict[tuple[int, ...], str]  # every map vector's real type (the scenario, CQ-21)


@pytest.fixture(scope="module", autouse=True)
def original_maps() -> Iterator[None]:
    """Point the presets at the original maps, when they are available (never copied here)."""
    found = maps_dir()
    with pytest.MonkeyPatch.context() as patch:
        if found is not None:
            patch.setenv("BOTARENA_CQ_MAPS", str(found))
        yield


def wanderer() -> PythonBot:
    factory = STARTERS.get("wanderer")
    if factory is None:
        pytest.skip("the Wanderer starter bot (spec §10) is not registered yet")
    return PythonBot(factory, "wanderer")


@functools.cache
def play(preset: str, seed: int, prospector_seat: int, width: int | None = None) -> Game:
    """One untimed game of the Prospector against the Wanderer, summarised."""
    game = get_game("craftingquest")
    overrides: dict[str, object] = {"turn_budget_ms": 0}
    if width is not None:
        overrides.update(width=width, height=width)
    config = game.config(preset, overrides=overrides)
    made: list[Prospector] = []

    def prospector() -> Prospector:
        made.append(Prospector())
        return made[-1]

    bots = [wanderer(), PythonBot(prospector, "prospector")]
    if prospector_seat == 0:
        bots.reverse()
    run = run_match(game, bots, config=config, seed=seed)
    memory = made[0].memory
    assert memory is not None
    scanned = {v for vectors in memory.vectors.values() for v in vectors}
    truth = {
        tuple(vector): type_id
        for deposit in build_scenario(config, seed).to_json()["deposits"]
        for type_id, vector in deposit["vectors"].items()
    }
    errors: Counter[str] = Counter()
    invalid = owed = 0
    last_round = 0
    for step in run.replay.steps:
        record = step["record"]
        last_round = max(last_round, int(record["round"]))
        if record["seat"] != prospector_seat:
            continue
        if record["status"] == "INVALID":
            invalid += 1
        if record["kind"] in ("no_answer", "timeout"):
            owed += 1
        error = (record.get("result") or {}).get("error")
        if error:
            errors[error["code"]] += 1
    scores = run.result.scores
    return Game(
        rounds=int(config.rounds or 0) or last_round,
        last_round=last_round,
        prospector=int(scores[prospector_seat]),
        opponent=int(scores[1 - prospector_seat]),
        prospector_errors=errors,
        invalid=invalid,
        owed=owed,
        labels=dict(memory.learner.label_of),
        classified={v: memory.learner.classify(v) for v in scanned},
        truth=truth,
    )


def smoke_game(seed: int, seat: int) -> Game:
    require_maps()
    return play("map_v1", seed, seat)


@pytest.mark.parametrize("seat", [0, 1])
@pytest.mark.parametrize("seed", SMOKE_SEEDS)
def test_cq_smoke_map_v1_game_completes_with_clean_actions(seed: int, seat: int) -> None:
    """§11 item 7: every game completes (all 160 rounds of map_v1, CQ-13), and the Prospector's every
    answer is in time and passes the §5.2 shape checks."""
    game = smoke_game(seed, seat)
    assert game.last_round == 160
    assert game.owed == 0
    assert game.invalid == 0
    assert not any(game.prospector_errors[code] for code in SHAPE_ERRORS), game.prospector_errors
    assert game.opponent == 300  # the Wanderer never buys or sells (§10)


@pytest.mark.parametrize("seat", [0, 1])
@pytest.mark.parametrize("seed", SMOKE_SEEDS)
def test_cq20_smoke_map_v1_labels_and_classifications_are_true(seed: int, seat: int) -> None:
    """§10 "Learning" on the smoke games, against the scenario's hidden types (CQ-20, CQ-21)."""
    game = smoke_game(seed, seat)
    assert all(game.truth[v] == t for v, t in game.labels.items())
    assert all(game.truth[v] == t for v, t in game.classified.items() if t is not None)


def test_cq_smoke_map_v1_prospector_profits_in_18_of_20() -> None:
    """§11 item 7: the Prospector ends above 300 credit in at least 18 of the 20 games."""
    credits = [smoke_game(seed, seat).prospector for seed in SMOKE_SEEDS for seat in (0, 1)]
    assert sum(1 for c in credits if c > 300) >= 18, credits


@pytest.mark.parametrize(("seed", "seat"), GENERATED_GAMES)
def test_cq_generated_map_prospector_never_fails_shape_checks(seed: int, seat: int) -> None:
    """§10 and §5.2 on generated 50x50 maps: the game completes and no Prospector action is malformed."""
    game = play("default", seed, seat, 50)
    assert game.last_round == game.rounds == 160
    assert game.invalid == 0 and game.owed == 0
    assert not any(game.prospector_errors[code] for code in SHAPE_ERRORS), game.prospector_errors


@pytest.mark.parametrize(("seed", "seat"), GENERATED_GAMES)
def test_cq20_prospector_labels_and_classifications_are_all_true(seed: int, seat: int) -> None:
    """§10 "Learning" against the hidden truth (CQ-20, CQ-21): every vector the Prospector labelled,
    and every scanned vector it classified, has the type the scenario gave it; and it learned enough
    to classify most of what it scanned."""
    game = play("default", seed, seat, 50)
    assert game.labels, "nothing was learned"
    assert all(game.truth[v] == t for v, t in game.labels.items())
    named = {v: t for v, t in game.classified.items() if t is not None}
    assert all(game.truth[v] == t for v, t in named.items())
    assert len(named) > len(game.classified) // 2


def test_cq_generated_map_prospector_beats_wanderer_on_most_seeds() -> None:
    """§10: "it should beat the Wanderer on almost every seed"; here on at least 3 of 4 seeds, with
    the Prospector in either seat."""
    games = [play("default", seed, seat, 50) for seed, seat in GENERATED_GAMES]
    wins = sum(1 for g in games if g.prospector > g.opponent)
    assert wins >= 3, [(g.prospector, g.opponent) for g in games]


def test_cq_readme_example_bot_plays_clean_actions() -> None:
    """The example bot of examples/craftingquest (README) plays a whole short game against the
    Wanderer: every answer in time, a JSON object, and past the §5.2 shape checks."""
    example = Path(__file__).resolve().parents[3] / "examples" / "craftingquest" / "my_bot.py"
    game = get_game("craftingquest")
    config = game.config(overrides={"turn_budget_ms": 0, "width": 50, "height": 50, "rounds": 30})
    run = run_match(
        game, [PythonBot(python_file_factory(example), "my_bot"), wanderer()], config=config, seed=4
    )
    mine = [step["record"] for step in run.replay.steps if step["record"]["seat"] == 0]
    assert max(record["round"] for record in mine) == 30
    assert {record["status"] for record in mine} == {"OK"}
    assert sum(1 for record in mine if record["kind"] == "end_turn") == 30
    codes = {((record.get("result") or {}).get("error") or {}).get("code") for record in mine}
    assert not codes & set(SHAPE_ERRORS)
