"""Parity with the original 2018 engine (spec drones.md 11.5), through kits/drones-js/reference-harness.mjs.

Needs Node.js >= 20.19 and a checkout of the original repository, named by BOTARENA_DRONES_ORIGINAL;
otherwise every test here is skipped with a message. Nothing of that checkout belongs to the project.

For each case the same match is played twice:

- **reference**: `node reference-harness.mjs` runs the checkout's own `Match`/`GameOfDrones` with
  both bots in one process, each with Math.random = mulberry32(its playerSeed);
- **platform**: `run_match` under `bravolt2018` with both bots through the adapter (`node_bot`), the
  same rounds and turn limit, and the same playerSeeds; `original_result_json` writes spec 7.5.

The two texts must be byte-identical. On a mismatch the failure names the first differing round with
both round entries. A case the harness reports as ineligible (exit status 3) is outside parity: it
is counted, never compared (E14 must be reported that way).

The matrix's 1000-round case (match seed 2018) runs only with BOTARENA_DRONES_PARITY_FULL=1.
"""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from drones_js_helpers import kit_bot, node_skip_reason

from botarena.bots.node import find_adapter, find_node, node_bot
from botarena.core.registry import get_game
from botarena.core.rng import bot_seed
from botarena.games.drones.protocol import original_result_json
from botarena.runner.match import MatchRun, run_match

ORIGINAL_ENV = "BOTARENA_DRONES_ORIGINAL"
ORIGINAL_COMMIT = "3df84bb87c12561287d01ba4eadbcc166d673503"
FULL_ENV = "BOTARENA_DRONES_PARITY_FULL"
WORKERS_ENV = "BOTARENA_DRONES_PARITY_WORKERS"
EXIT_INELIGIBLE = 3
STATUSES = ("passed", "failed", "ineligible")


def _skip_reason() -> str | None:
    reason = node_skip_reason()
    if reason is not None:
        return reason
    if not os.environ.get(ORIGINAL_ENV):
        return (
            f"set {ORIGINAL_ENV} to a checkout of BravoLT/code-challenge-2018 at {ORIGINAL_COMMIT} "
            "to run the parity matrix"
        )
    return None


SKIP_REASON = _skip_reason()
pytestmark = [pytest.mark.node, pytest.mark.skipif(SKIP_REASON is not None, reason=str(SKIP_REASON))]

GAME = get_game("drones")
HARNESS = Path(__file__).resolve().parents[2] / "kits" / "drones-js" / "reference-harness.mjs"
PARITY_BOTS = Path(__file__).resolve().parent / "parity_bots"
WORKERS = int(os.environ.get(WORKERS_ENV) or max(2, min(4, (os.cpu_count() or 2))))


def original_dir() -> Path:
    return Path(os.environ[ORIGINAL_ENV]).resolve()


# -- bots ----------------------------------------------------------------------------------------------
# The four example bots are the checkout's own files when it has them (example-bots/), else the
# project's JavaScript versions of the same strategies (spec 10, 11.3).
EXAMPLES = {
    "randomonium": ("random-choices.js", "randomonium.js"),
    "zergy": ("zerg-rush.js", "zergy.js"),
    "pacifist": ("hard-hitting-pacifist.js", "pacifist.js"),
    "adaptive": ("adaptive-defender.js", "adaptive-defender.js"),
}
TEST_BOTS = {"greedy": "greedy.js", "kamikaze": "kamikaze.js", "splitter": "splitter.js"}
FRACTIONAL = {"splitter"}


def matrix_bot(name: str) -> Path:
    if name in EXAMPLES:
        original_file, kit_file = EXAMPLES[name]
        if SKIP_REASON is None:
            candidate = original_dir() / "example-bots" / original_file
            if candidate.is_file():
                return candidate
        return kit_bot(kit_file)
    return kit_bot(TEST_BOTS[name])


def parity_bot(name: str) -> Path:
    return PARITY_BOTS / f"{name}.js"


# -- player seeds --------------------------------------------------------------------------------------
FORCED_SEEDS: dict[int, tuple[int, int]] = {}
"""Match seed -> the two playerSeeds where they are not the seats' bot_seed (spec 11.5, Platform
run); the platform run is given them by config key `player_seeds` (GD-4)."""


def player_seeds(match_seed: int) -> tuple[int, int]:
    forced = FORCED_SEEDS.get(match_seed)
    if forced is not None:
        return forced
    return bot_seed(match_seed, GAME.id, 0), bot_seed(match_seed, GAME.id, 1)


# -- the two runs ------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Case:
    bot1: Path
    bot2: Path
    seed: int
    rounds: int
    turns: int
    defender_bonus: int = 1

    def __str__(self) -> str:
        return (
            f"{self.bot1.name} vs {self.bot2.name}, match seed {self.seed} (playerSeeds "
            f"{player_seeds(self.seed)}), rounds {self.rounds}, turns {self.turns}, "
            f"defender bonus {self.defender_bonus}"
        )


@dataclass(frozen=True)
class Reference:
    text: str
    returncode: int
    stderr: str

    @property
    def ineligible(self) -> list[str]:
        return [line for line in self.stderr.splitlines() if line.startswith("ineligible: ")]


def run_reference(case: Case) -> Reference:
    node = find_node()
    assert node is not None
    seeds = player_seeds(case.seed)
    argv = [node, str(HARNESS), "--original", str(original_dir())]
    if case.defender_bonus != 1:
        argv += ["--defender-bonus", str(case.defender_bonus)]
    argv += [str(case.bot1), str(case.bot2), str(case.rounds), str(case.turns), *map(str, seeds)]
    done = subprocess.run(argv, capture_output=True, text=True, timeout=600, check=False)
    if done.returncode not in (0, EXIT_INELIGIBLE):
        pytest.fail(f"the reference harness failed ({done.returncode}) for {case}:\n{done.stderr[-4000:]}")
    return Reference(done.stdout, done.returncode, done.stderr)


def run_platform(case: Case, rules: str = "bravolt2018") -> MatchRun:
    overrides = {
        "rules": rules,
        "rounds": case.rounds,
        "turn_limit": case.turns,
        "defender_bonus": case.defender_bonus,
        # Parity is about the rules, not timing: the longest deadlines, so that a loaded machine
        # running several matches at once never turns a slow reply into a TIMEOUT.
        "turn_timeout_ms": 60000,
        "setup_timeout_ms": 120000,
        "player_seeds": list(player_seeds(case.seed)),
    }
    bots = [node_bot(case.bot1), node_bot(case.bot2)]
    return run_match(GAME, bots, config=GAME.config("default", overrides), seed=case.seed)


def _both(original: Any, platform: Any) -> str:
    return f"  original: {json.dumps(original)}\n  platform: {json.dumps(platform)}"


def first_difference(expected: str, got: str) -> str:
    """Where the platform's 7.5 text differs from the original's, for a failure message."""
    want, have = json.loads(expected), json.loads(got)
    rounds_want, rounds_have = want.get("roundResults", []), have.get("roundResults", [])
    for index in range(max(len(rounds_want), len(rounds_have))):
        a = rounds_want[index] if index < len(rounds_want) else None
        b = rounds_have[index] if index < len(rounds_have) else None
        if json.dumps(a) != json.dumps(b):
            return f"first differing round: {index + 1}\n{_both(a, b)}"
    for key in dict.fromkeys([*want, *have]):
        if json.dumps(want.get(key)) != json.dumps(have.get(key)):
            return f"the rounds agree; {key!r} differs\n{_both(want.get(key), have.get(key))}"
    lines = zip(expected.splitlines(), got.splitlines(), strict=False)
    for number, (a, b) in enumerate(lines, 1):
        if a != b:
            return f"same values, different text at line {number}\n  original: {a!r}\n  platform: {b!r}"
    return f"same lines, different ending: {len(expected)} vs {len(got)} characters"


@dataclass(frozen=True)
class Outcome:
    case: Case
    status: str  # "passed", "failed" or "ineligible"
    detail: str = ""
    reference: Reference | None = None
    platform: MatchRun | None = None


def check(case: Case) -> Outcome:
    reference = run_reference(case)
    if reference.returncode == EXIT_INELIGIBLE:
        return Outcome(case, "ineligible", "; ".join(reference.ineligible), reference)
    platform = run_platform(case)
    text = original_result_json(platform)
    if text == reference.text:
        return Outcome(case, "passed", reference=reference, platform=platform)
    detail = first_difference(reference.text, text)
    statuses = platform.replay.statuses
    if any(set(seat) != {"OK"} for seat in statuses):
        detail += f"\n  platform turn statuses (not all OK): {statuses}"
    return Outcome(case, "failed", detail, reference, platform)


def check_all(cases: list[Case]) -> list[Outcome]:
    with ThreadPoolExecutor(max_workers=WORKERS) as pool:
        return list(pool.map(check, cases))


def assert_parity(outcomes: list[Outcome]) -> None:
    failed = [o for o in outcomes if o.status == "failed"]
    counts = {status: sum(o.status == status for o in outcomes) for status in STATUSES}
    print(f"parity: {counts}")
    for outcome in outcomes:
        if outcome.status == "ineligible":
            print(f"  ineligible: {outcome.case}: {outcome.detail}")
    if failed:
        pytest.fail(
            f"{len(failed)} of {len(outcomes)} matches differ from the original engine:\n"
            + "\n".join(f"- {o.case}\n  {o.detail}" for o in failed[:5])
        )


# -- the matrix --------------------------------------------------------------------------------------
MATRIX_BOTS = [*EXAMPLES, *TEST_BOTS]
PAIRS = [(a, b) for a in MATRIX_BOTS for b in MATRIX_BOTS]


def matrix_cases(bot1: str, bot2: str) -> Iterator[Case]:
    one, two = matrix_bot(bot1), matrix_bot(bot2)
    for seed in range(1, 11):
        yield Case(one, two, seed, rounds=100, turns=10)
    for seed in range(1, 4):
        yield Case(one, two, seed, rounds=50, turns=3)


@pytest.mark.parametrize(("bot1", "bot2"), PAIRS, ids=[f"{a}-{b}" for a, b in PAIRS])
def test_matrix_pair_matches_the_original(bot1: str, bot2: str) -> None:
    outcomes = check_all(list(matrix_cases(bot1, bot2)))
    assert_parity(outcomes)
    if all(o.status == "ineligible" for o in outcomes):
        pytest.skip(f"every match of {bot1} vs {bot2} is outside parity: {outcomes[0].detail}")
    if FRACTIONAL & {bot1, bot2}:
        # Distinguishing rule sets: the same pair under `seed` records INVALID turns (fractions).
        seat = 0 if bot1 in FRACTIONAL else 1
        run = run_platform(outcomes[0].case, rules="seed")
        statuses = {record["players"][seat]["status"] for record in _turn_records(run)}
        assert "INVALID" in statuses, f"{outcomes[0].case}: a fractional bot played valid turns under seed"


@pytest.mark.skipif(not os.environ.get(FULL_ENV), reason=f"the 1000-round case runs with {FULL_ENV}=1")
def test_matrix_1000_rounds_matches_the_original() -> None:
    cases = [Case(matrix_bot(a), matrix_bot(b), 2018, rounds=1000, turns=10) for a, b in PAIRS]
    assert_parity(check_all(cases))


# -- the bravolt2018 worked examples as scripted JS bots (E3-E12, E16) ---------------------------------
E16_SEED = 1_600_016
FORCED_SEEDS[E16_SEED] = (1, bot_seed(E16_SEED, "drones", 1))

EXAMPLE_CASES: dict[str, Case] = {
    "E3": Case(parity_bot("e3-p1"), parity_bot("idle"), 3, rounds=1, turns=10),
    "E4": Case(parity_bot("e4-p1"), parity_bot("idle"), 4, rounds=1, turns=10),
    "E5": Case(parity_bot("e5-p1"), parity_bot("e5-p2"), 5, rounds=1, turns=10),
    "E6": Case(kit_bot("zergy.js"), kit_bot("pacifist.js"), 6, rounds=1, turns=10),
    "E7": Case(parity_bot("e7-p1"), parity_bot("e7-p2"), 7, rounds=1, turns=10),
    "E8": Case(parity_bot("e8-p1"), parity_bot("e8-p2"), 8, rounds=1, turns=3, defender_bonus=3),
    "E9": Case(parity_bot("e9-p1"), parity_bot("e9-p2"), 9, rounds=1, turns=10),
    "E10": Case(parity_bot("e10-p1"), parity_bot("e10-p2"), 10, rounds=1, turns=3),
    "E11-greedy": Case(kit_bot("greedy.js"), kit_bot("greedy.js"), 11, rounds=20, turns=10),
    "E11-adaptive-pacifist": Case(
        kit_bot("adaptive-defender.js"), kit_bot("pacifist.js"), 11, rounds=1, turns=10
    ),
    "E12": Case(parity_bot("e8-p1"), parity_bot("e10-p1"), 12, rounds=1, turns=3),
    "E12-variant": Case(parity_bot("e12-p1-no-attack"), parity_bot("e10-p1"), 12, rounds=1, turns=3),
    "E16": Case(kit_bot("randomonium.js"), kit_bot("pacifist.js"), E16_SEED, rounds=3, turns=10),
}
EXPECTED_OUTCOMES = {  # per-round outcomes the spec states for bravolt2018 (None: not stated)
    "E5": ["PLAYER 2"],
    "E6": ["PLAYER 1"],
    "E7": ["PLAYER 2"],
    "E8": ["PLAYER 1"],
    "E9": ["DRAW"],
    "E10": ["DRAW"],
    "E11-greedy": ["DRAW"] * 20,
    "E11-adaptive-pacifist": ["DRAW"],
    "E12": ["PLAYER 2"],
    "E12-variant": ["PLAYER 1"],
    "E16": ["PLAYER 1", "PLAYER 1", "PLAYER 2"],
}
SPLITS_RULE_SETS = {"E9", "E10", "E11-greedy", "E11-adaptive-pacifist"}
FRACTIONAL_EXAMPLES = {"E3", "E4"}


def _turn_records(run: MatchRun) -> list[dict[str, Any]]:
    return [step["record"] for step in run.replay.steps]


def _round_outcomes(run: MatchRun) -> list[str]:
    return [r["roundResult"]["outcome"] for r in _turn_records(run) if "roundResult" in r]


@pytest.mark.parametrize("name", list(EXAMPLE_CASES))
def test_worked_example_matches_the_original(name: str) -> None:
    case = EXAMPLE_CASES[name]
    outcome = check(case)
    assert outcome.status != "ineligible", f"{name} is unexpectedly outside parity: {outcome.detail}"
    assert_parity([outcome])
    assert outcome.reference is not None
    original = json.loads(outcome.reference.text)
    if name in EXPECTED_OUTCOMES:
        assert [r["outcome"] for r in original["roundResults"]] == EXPECTED_OUTCOMES[name]
    if name == "E4":
        assert '"producers": 1.4000000000000001' in outcome.reference.text
        assert '"soldiers": 1.2' in outcome.reference.text
    if name in SPLITS_RULE_SETS:
        # Distinguishing rule sets: `seed` breaks the field tie, the original calls it a DRAW.
        seed_outcomes = _round_outcomes(run_platform(case, rules="seed"))
        original_outcomes = [r["outcome"] for r in original["roundResults"]]
        assert seed_outcomes != original_outcomes, f"{name}: the seed rule set played the original's rules"
        assert "DRAW" not in seed_outcomes
    if name in FRACTIONAL_EXAMPLES:
        first = _turn_records(run_platform(case, rules="seed"))[0]["players"][0]
        assert (first["status"], first["reason"]) == ("INVALID", "bad_field")


def test_e14_is_reported_ineligible() -> None:
    case = Case(kit_bot("sometimes-undefined.js"), parity_bot("e10-p1"), 14, rounds=1, turns=3)
    outcome = check(case)
    assert outcome.status == "ineligible", f"E14 should be outside parity, got {outcome.status}"
    assert "falsy" in outcome.detail
    assert outcome.reference is not None
    # The original's own verdict, for the record: PLAYER 1, with P1's launchedAttack missing.
    original = json.loads(outcome.reference.text)["roundResults"][0]
    assert original["outcome"] == "PLAYER 1"
    assert "launchedAttack" not in original["player1"]


def test_harness_reports_a_changed_meta_and_a_numeric_string_as_ineligible(tmp_path: Path) -> None:
    changer = tmp_path / "meta-changer.js"
    changer.write_text(
        "export default () => ({ meta: { name: 'Changer' }, playTurn(s) {"
        " this.meta.name = 'Changed'; return { newProducers: s.producers }; } });\n",
        encoding="utf-8",
    )
    stringy = tmp_path / "stringy.js"
    stringy.write_text(
        "export default () => ({ playTurn() { return { newProducers: '1', newSoldiers: [2] }; } });\n",
        encoding="utf-8",
    )
    for bot, needle in ((changer, "meta changed"), (stringy, "concatenation quirk")):
        reference = run_reference(Case(bot, parity_bot("idle"), 1, rounds=2, turns=3))
        assert reference.returncode == EXIT_INELIGIBLE
        assert any(needle in line for line in reference.ineligible), reference.stderr


META_EDGE_BOTS = {
    # Spec 7.3: meta is read before onMatchStart, as the original did; a change in place still shows.
    "reassigned": "export default () => ({ meta: { name: 'Before' }, onMatchStart() {"
    " this.meta = { name: 'After' }; }, playTurn: (s) => ({ newProducers: s.producers }) });\n",
    "mutated": "export default () => ({ meta: { name: 'Before' }, onMatchStart() {"
    " this.meta.name = 'In place'; }, playTurn: (s) => ({ newProducers: s.producers }) });\n",
    # A lone surrogate: printed as JSON.stringify writes it.
    "surrogate": "export default () => ({ meta: { name: 'Lone \\ud800 half' },"
    " playTurn: (s) => ({ newSoldiers: s.producers, launchAttack: true }) });\n",
}


@pytest.mark.parametrize("kind", sorted(META_EDGE_BOTS))
@pytest.mark.parametrize("seat", [0, 1])
def test_meta_edge_cases_match_the_original(tmp_path: Path, kind: str, seat: int) -> None:
    bot = tmp_path / f"{kind}.js"
    bot.write_text(META_EDGE_BOTS[kind], encoding="utf-8")
    pair = (bot, matrix_bot("zergy")) if seat == 0 else (matrix_bot("zergy"), bot)
    outcome = check(Case(*pair, 5, rounds=5, turns=4))
    assert outcome.status == "passed", f"{kind}: {outcome.status} {outcome.detail}"
    assert outcome.platform is not None and outcome.platform.replay.start["verdicts"][seat][0] == "OK"


def test_explicit_player_seeds_give_the_original_s_plus_1000_scheme() -> None:
    # GD-4's config key `player_seeds`: the original's own seeding (s, s + 1000) for both sides.
    FORCED_SEEDS[4242] = (42, 1042)
    try:
        outcome = check(Case(matrix_bot("randomonium"), kit_bot("splitter.js"), 4242, rounds=20, turns=10))
    finally:
        del FORCED_SEEDS[4242]
    assert outcome.status == "passed", outcome.detail
    assert outcome.platform is not None
    assert outcome.platform.replay.config["player_seeds"] == [42, 1042]


def test_self_pair_modules_do_not_share_state(tmp_path: Path) -> None:
    # Module-level state: two adapter processes never share it, so the harness must not either.
    counter = tmp_path / "counter.js"
    counter.write_text(
        "let made = 0;\nexport default () => { made += 1; const meta = { made };"
        " return { meta, playTurn: (s) => ({ newProducers: s.producers }) }; };\n",
        encoding="utf-8",
    )
    outcome = check(Case(counter, counter, 1, rounds=1, turns=2))
    assert outcome.status == "passed", outcome.detail
    assert outcome.reference is not None
    result = json.loads(outcome.reference.text)
    assert result["player1"] == result["player2"] == {"made": 1}


def test_adapter_and_harness_are_the_kit_files() -> None:
    assert HARNESS.is_file()
    assert find_adapter().parent == HARNESS.parent
