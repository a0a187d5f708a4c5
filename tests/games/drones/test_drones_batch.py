"""The batched GameOfDrones engine (`games/drones/batch.py`) against the scalar engine, match by match.

The scalar side is the engine driving the starter bots directly (as benchmarks/drones_throughput.py's
`bench_direct` does); the batched side is `BatchDrones` with the vectorised starters. Results, round
tallies and every round record must be identical (GD-1 .. GD-25), including the seeded turn limits
(GD-7) and tie-break coins (GD-19.3), which come from the same named streams (GD-3).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from botarena.core.game import MatchResult
from botarena.core.protocol import MessageType, Reply
from botarena.core.registry import get_game
from botarena.core.rng import stream
from botarena.core.status import Status
from botarena.games.drones.batch import (
    BatchActions,
    BatchDrones,
    BatchObservation,
    BatchResult,
    Ints,
    count_dtype,
)
from botarena.games.drones.batchrng import StreamBatch
from botarena.games.drones.bots.batch import BATCH_STARTERS
from botarena.games.drones.config import DronesConfig

GAME = get_game("drones")
NAMES = sorted(BATCH_STARTERS)
PAIRS = [(a, b) for a in NAMES for b in NAMES]  # every ordered pairing: both seats, self-pairs


def scalar_match(
    config: DronesConfig, seed: int, bots: list[Any]
) -> tuple[MatchResult, list[dict[str, Any]]]:
    """One match on the scalar engine with in-process bots called directly: result and round records."""
    handlers = [{MessageType.START: b.setup, MessageType.TURN: b.act, MessageType.END: b.end} for b in bots]

    def answer(requests: list[Any]) -> list[Reply]:
        return [Reply(r.seat, Status.OK, handlers[r.seat][r.type](r.payload)) for r in requests]

    engine = GAME.new_engine(config, seed, 2)
    engine.apply_start(answer(engine.start_requests()))
    while requests := engine.next_requests():
        engine.apply(answer(requests))
    return engine.result(), engine.state.round_results


def compare_pairing(config: DronesConfig, pair: tuple[str, str], seeds: list[int]) -> BatchResult:
    """Play `seeds` both ways and assert equal ranks, scores, tallies and round records."""
    batch = BatchDrones(config, seeds, record=True)
    result = batch.run(BATCH_STARTERS[pair[0]](), BATCH_STARTERS[pair[1]]())
    assert result.rounds is not None
    for i, seed in enumerate(seeds):
        scalar, rounds = scalar_match(config, seed, [GAME.starter_bots[name]() for name in pair])
        details = {k: v for k, v in scalar.details.items() if k != "meta"}
        where = f"{pair} seed {seed} config {config}"
        assert result.details(i) == details, where
        assert list(result.ranks[i]) == scalar.ranks, where
        assert [float(v) for v in result.scores[i]] == scalar.scores, where
        assert [result.rounds.record(i, r) for r in range(config.rounds)] == rounds, where
    return result


# 1,000+ matches in all: (config overrides, seeds per ordered pairing); 16 ordered pairings each.
GROUPS: list[tuple[dict[str, Any], int]] = [
    ({}, 40),  # default config: 640 matches
    ({"turn_limit_range": [3, 12]}, 10),  # GD-7: per-round limits from drones.turns
    ({"defender_bonus": 0}, 5),  # GD-18 with no bonus
    ({"defender_bonus": 3, "turn_limit": 4}, 5),
    ({"turn_limit": 16, "rounds": 3}, 3),  # int32 counts; Randomonium's float path
    ({"rules": "bravolt2018"}, 4),  # float counts, drawn rounds (GD-13, GD-21)
    ({"rules": "bravolt2018", "turn_limit_range": [1, 5], "defender_bonus": 0}, 3),
]


@pytest.mark.parametrize(("overrides", "per_pair"), GROUPS, ids=[str(o) or "default" for o, _ in GROUPS])
def test_batch_equals_scalar_engine(overrides: dict[str, Any], per_pair: int) -> None:
    """GD-1 .. GD-25: the same seeds give exactly the scalar engine's results and round records."""
    config = GAME.config(overrides=overrides)
    decided: Counter[str] = Counter()
    limits: set[int] = set()
    for k, pair in enumerate(PAIRS):
        seeds = [1000 * k + j for j in range(per_pair)]
        result = compare_pairing(config, pair, seeds)
        assert result.rounds is not None
        records = (result.rounds.record(i, r) for i in range(per_pair) for r in range(config.rounds))
        decided.update(record["decidedBy"] for record in records)
        limits.update(int(v) for v in np.unique(result.rounds.turn_limit))
    if config.rules == "seed" and not overrides:
        assert decided["RANDOM"] > 0, "no tie-break coin was drawn (GD-19.3)"  # e.g. pacifist v adaptive
        assert decided["TOTAL_UNITS"] > 0 and decided["ATTACK_WON"] > 0 and decided["DEFENCE_HELD"] > 0
    if config.rules == "bravolt2018":
        assert decided["DRAW"] > 0  # GD-21
    if config.turn_limit_range is not None:
        assert len(limits) > 1


def test_match_count_is_at_least_1000() -> None:
    assert sum(per_pair * len(PAIRS) for _, per_pair in GROUPS) >= 1000


# -- the named streams (GD-3, GD-4, GD-7, GD-19.3) -------------------------------------------------------


@pytest.mark.parametrize("name", ["drones.tiebreak", "drones.turns", "drones.bot.0", "drones.bot.1"])
def test_stream_batch_draws_like_core_streams(name: str) -> None:
    """Each masked draw equals the scalar stream's next `integers(lo, hi)`, buffer and rejections included."""
    seeds = [0, 1, 7, 2**32 - 1, 2**32, 2**63 + 5, 2**64 - 1, *range(100, 140)]
    batch = StreamBatch(np.array(seeds, dtype=np.uint64), name)
    scalar = [stream(seed, name) for seed in seeds]
    pick = np.random.default_rng(17)
    for k in range(30):
        low, high = [(0, 2), (0, 2**32), (3, 13), (1, 51), (5, 6), (0, 3)][k % 6]
        mask = pick.random(len(seeds)) < 0.6
        expected = [int(g.integers(low, high)) for g, m in zip(scalar, mask, strict=True) if m]
        assert batch.integers(low, high, mask).tolist() == expected


def test_bot_seeds_are_the_seats_player_seeds() -> None:
    """GD-4: the batch's playerSeed per seat is the scalar engine's start payload's."""
    config = GAME.config()
    seeds = list(range(20))
    batch = BatchDrones(config, seeds)
    for seat in (0, 1):
        expected = []
        for seed in seeds:
            requests = GAME.new_engine(config, seed, 2).start_requests()
            expected.append(requests[seat].payload["playerSeed"])
        assert batch.bot_seeds(seat).tolist() == expected
    fixed = BatchDrones(GAME.config(overrides={"player_seeds": [5, 6]}), seeds)
    assert set(fixed.bot_seeds(1).tolist()) == {6}


# -- observations (spec 4.2, 4.3) ------------------------------------------------------------------------


class Recorder:
    """A batched policy that plays Randomonium and keeps match 0's observations, as the scalar payload."""

    def __init__(self) -> None:
        self.inner = BATCH_STARTERS["randomonium"]()
        self.seen: list[dict[str, Any]] = []

    def reset(self, n: int, bot_seeds: Callable[[], Ints], config: DronesConfig) -> None:
        self.inner.reset(n, bot_seeds, config)
        self.config = config

    def act(self, obs: BatchObservation) -> BatchActions:
        if obs.active[0]:
            self.seen.append(view(obs, 0, self.config))
        return self.inner.act(obs)


def view(obs: BatchObservation, i: int, config: DronesConfig) -> dict[str, Any]:
    """Match i's entries of a batched observation, written as spec 4.2's payload."""
    previous = None
    if obs.prev_outcome[i]:
        words = {1: "WIN", 2: "LOSE", 3: "DRAW"}

        def side(p: Any, s: Any, a: Any) -> dict[str, Any]:
            return {"producers": int(p[i]), "soldiers": int(s[i]), "launchedAttack": bool(a[i])}

        previous = {
            "outcome": words[int(obs.prev_outcome[i])],
            "turnsPlayed": int(obs.prev_turns[i]),
            "you": side(obs.prev_you_producers, obs.prev_you_soldiers, obs.prev_you_attacked),
            "them": side(obs.prev_them_producers, obs.prev_them_soldiers, obs.prev_them_attacked),
        }
    return {
        "round": obs.round,
        "rounds": obs.rounds,
        "turn": obs.turn,
        "turnLimit": int(obs.turn_limit[i]),
        "defenderBonus": obs.defender_bonus,
        "producers": int(obs.producers[i]),
        "soldiers": int(obs.soldiers[i]),
        "roundWins": int(obs.round_wins[i]),
        "roundLosses": int(obs.round_losses[i]),
        "roundDraws": int(obs.round_draws[i]),
        "previousRound": previous,
    }


@pytest.mark.parametrize("seat", [0, 1])
def test_observations_are_the_scalar_payloads(seat: int) -> None:
    """Spec 4.2 / 4.3: every observation of an active match carries what the scalar payload does."""
    config = GAME.config(overrides={"rounds": 4, "turn_limit_range": [2, 6]})
    recorder = Recorder()
    policies: list[Any] = [BATCH_STARTERS["adaptive"](), BATCH_STARTERS["adaptive"]()]
    policies[seat] = recorder
    BatchDrones(config, [42, 43, 44]).run(policies[0], policies[1])

    class Spy:
        def __init__(self) -> None:
            self.bot = GAME.starter_bots["randomonium"]()
            self.seen: list[dict[str, Any]] = []
            self.setup, self.end = self.bot.setup, self.bot.end

        def act(self, obs: dict[str, Any]) -> Any:
            self.seen.append(obs)
            return self.bot.act(obs)

    spy = Spy()
    bots: list[Any] = [GAME.starter_bots["adaptive"](), GAME.starter_bots["adaptive"]()]
    bots[seat] = spy
    scalar_match(config, 42, bots)
    assert recorder.seen == spy.seen


# -- actions: random legal and illegal arrays against the scalar engine (spec 5.2, 5.3) -------------------

ROUNDS, LIMIT, MATCHES = 3, 4, 3


class Scripted:
    """A policy playing fixed tables: actions[match][round - 1][turn - 1] = (p, s, attack)."""

    def __init__(self, table: list[list[list[tuple[int, int, bool]]]]) -> None:
        self.table = np.array(table, dtype=object)

    def reset(self, n: int, bot_seeds: Callable[[], Ints], config: DronesConfig) -> None:
        assert n == MATCHES

    def act(self, obs: BatchObservation) -> BatchActions:
        column = self.table[:, obs.round - 1, obs.turn - 1]
        p = np.array([c[0] for c in column], dtype=np.int64)
        s = np.array([c[1] for c in column], dtype=np.int64)
        a = np.array([c[2] for c in column], dtype=bool)
        return BatchActions(p, s, a)


class ScriptedBot:
    """The scalar twin of one match's `Scripted` table."""

    def __init__(self, table: list[list[tuple[int, int, bool]]]) -> None:
        self.table = table

    def setup(self, start: Any) -> dict[str, Any]:
        return {}

    def act(self, obs: dict[str, Any]) -> dict[str, Any]:
        p, s, a = self.table[obs["round"] - 1][obs["turn"] - 1]
        return {"newProducers": p, "newSoldiers": s, "launchAttack": a}

    def end(self, result: Any) -> dict[str, Any]:
        return {}


action = st.tuples(st.integers(-2, 9), st.integers(-2, 9), st.booleans())
tables = st.lists(
    st.lists(st.lists(action, min_size=LIMIT, max_size=LIMIT), min_size=ROUNDS, max_size=ROUNDS),
    min_size=MATCHES,
    max_size=MATCHES,
)


@settings(max_examples=25, deadline=None)
@given(tables, tables, st.sampled_from(["seed", "bravolt2018"]), st.integers(1, 6))
def test_random_action_arrays_match_the_scalar_engine(
    first: Any, second: Any, rules: str, attack_rate: int
) -> None:
    """Any action arrays, over-asks and negatives included, give the scalar engine's round records."""

    def thin(table: Any) -> Any:  # attacks end rounds: keep them rare enough to reach later turns
        def rare(p: int, s: int, a: bool) -> tuple[int, int, bool]:
            return p, s, a and (p + s) % attack_rate == 0

        return [[[rare(*act) for act in turns] for turns in match] for match in table]

    first, second = thin(first), thin(second)
    config = GAME.config(overrides={"rules": rules, "rounds": ROUNDS, "turn_limit": LIMIT})
    seeds = [3, 4, 5]
    result = BatchDrones(config, seeds, record=True).run(Scripted(first), Scripted(second))
    assert result.rounds is not None
    for i, seed in enumerate(seeds):
        scalar, rounds = scalar_match(config, seed, [ScriptedBot(first[i]), ScriptedBot(second[i])])
        assert [result.rounds.record(i, r) for r in range(ROUNDS)] == rounds
        assert result.details(i) == {k: v for k, v in scalar.details.items() if k != "meta"}


# -- the API's edges -------------------------------------------------------------------------------------


def test_count_dtype_is_the_narrowest_exact_one() -> None:
    assert count_dtype(GAME.config()) == np.int16
    assert count_dtype(GAME.config(overrides={"turn_limit_range": [2, 20]})) == np.int32
    assert count_dtype(GAME.config(overrides={"turn_limit": 50})) == np.int64
    assert count_dtype(GAME.config(overrides={"rules": "bravolt2018"})) == np.float64


def test_bad_input_is_refused_with_a_clear_error() -> None:
    config = GAME.config(overrides={"rounds": 1, "turn_limit": 1})
    with pytest.raises(ValueError, match="match seeds"):
        BatchDrones(config, [-1])
    with pytest.raises(ValueError, match="non-empty"):
        BatchDrones(config, [])
    batch = BatchDrones(config, [1, 2])
    fractional = BatchActions(np.array([0.5, 1.0]), np.zeros(2, dtype=np.int64), np.zeros(2, dtype=bool))
    with pytest.raises(TypeError, match="integer counts"):
        batch.step(fractional, fractional)
    fine = BatchActions(np.ones(2, dtype=np.int64), np.zeros(2, dtype=np.int64), np.zeros(2, dtype=bool))
    batch.step(fine, fine)
    assert batch.finished
    with pytest.raises(ValueError, match="finished"):
        batch.step(fine, fine)


def test_step_api_plays_like_run() -> None:
    """Driving `observation`/`step` by hand gives `run`'s results (the RL environment's way in)."""
    config = GAME.config()
    seeds = list(range(50))
    expected = BatchDrones(config, seeds).run(BATCH_STARTERS["randomonium"](), BATCH_STARTERS["zergy"]())
    batch = BatchDrones(config, seeds)
    one, two = BATCH_STARTERS["randomonium"](), BATCH_STARTERS["zergy"]()
    one.reset(batch.n, lambda: batch.bot_seeds(0), config)
    two.reset(batch.n, lambda: batch.bot_seeds(1), config)
    steps = 0
    while not batch.finished:
        batch.step(one.act(batch.observation(0)), two.act(batch.observation(1)))
        steps += 1
    got = batch.result()
    assert steps >= config.rounds
    assert np.array_equal(got.scores, expected.scores) and np.array_equal(got.outcome, expected.outcome)
