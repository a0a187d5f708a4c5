"""Smoke run of examples/rl: a few hundred PPO timesteps on small drones matches write a
well-formed learning curve (CSV and SVG), a summary and a model; the model, loaded by
examples/rl/policy_bot.py, plays a whole match through `botarena play` exactly as the learner
plays it in the Gymnasium env."""

from __future__ import annotations

import csv
import gzip
import importlib.util
import json
import sys
import xml.etree.ElementTree as ET
from pathlib import Path
from types import ModuleType
from typing import Any

import orjson
import pytest

pytest.importorskip("stable_baselines3")  # the rl-train extra (CI installs it with dev)

from botarena.cli import main

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "rl"
POLICY_BOT = EXAMPLE / "policy_bot.py"
SMALL = {"rounds": 2, "turn_limit": 3}
"""Two rounds of at most three turns: a match is a handful of steps."""
TIMESTEPS, EVAL_EVERY, EVAL_MATCHES = 300, 150, 3
OPPONENTS = ["zergy", "pacifist"]
SVG = "{http://www.w3.org/2000/svg}"


def _train_module() -> ModuleType:
    """examples/rl/train_drones.py, under the name policy_bot.py imports it by."""
    if "train_drones" not in sys.modules:
        spec = importlib.util.spec_from_file_location("train_drones", EXAMPLE / "train_drones.py")
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules["train_drones"] = module
        spec.loader.exec_module(module)
    return sys.modules["train_drones"]


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Any]]:
    out = tmp_path_factory.mktemp("rl-run")
    summary = _train_module().train(
        timesteps=TIMESTEPS,
        opponents=OPPONENTS,
        seed=3,
        out=out,
        eval_every=EVAL_EVERY,
        eval_matches=EVAL_MATCHES,
        config=SMALL,
        log=lambda _: None,
    )
    return out, summary


def test_the_run_writes_a_learning_curve_csv_with_every_evaluation(run: tuple[Path, dict[str, Any]]) -> None:
    out, summary = run
    with (out / "curve.csv").open(newline="") as rows:
        curve = list(csv.DictReader(rows))
    assert list(curve[0]) == [
        "timesteps",
        "opponent",
        "seconds",
        "win_rate",
        "draw_rate",
        "loss_rate",
        "round_win_share",
    ]
    steps = [int(row["timesteps"]) for row in curve]
    # before training, every EVAL_EVERY timesteps, and after: each time against every opponent
    assert steps[: len(OPPONENTS)] == [0] * len(OPPONENTS)
    assert steps == sorted(steps)
    assert steps[-1] == summary["timesteps"] >= TIMESTEPS
    assert len(set(steps)) >= 1 + TIMESTEPS // EVAL_EVERY
    for point in range(0, len(curve), len(OPPONENTS)):
        assert [row["opponent"] for row in curve[point : point + len(OPPONENTS)]] == OPPONENTS
    for row in curve:
        rates = [float(row[key]) for key in ("win_rate", "draw_rate", "loss_rate")]
        assert all(0.0 <= rate <= 1.0 for rate in rates)
        assert sum(rates) == pytest.approx(1.0, abs=1e-3)
        # rates of EVAL_MATCHES matches: multiples of 1/3, rounded to 4 places in the CSV
        matches = [rate * EVAL_MATCHES for rate in rates]
        assert all(count == pytest.approx(round(count), abs=1e-3) for count in matches)
        assert 0.0 <= float(row["round_win_share"]) <= 1.0


def test_the_summary_gives_the_win_rates_before_and_after(run: tuple[Path, dict[str, Any]]) -> None:
    out, summary = run
    assert json.loads((out / "summary.json").read_text()) == summary
    assert summary["opponents"] == OPPONENTS
    assert summary["eval_matches"] == EVAL_MATCHES
    with (out / "curve.csv").open(newline="") as rows:
        curve = list(csv.DictReader(rows))
    first, last = curve[: len(OPPONENTS)], curve[-len(OPPONENTS) :]
    assert summary["win_rate_before"] == {row["opponent"]: float(row["win_rate"]) for row in first}
    assert summary["win_rate_after"] == {row["opponent"]: float(row["win_rate"]) for row in last}
    assert summary["train_seconds"] > 0


def test_the_picture_is_an_svg_with_a_line_per_opponent_and_their_mean(
    run: tuple[Path, dict[str, Any]],
) -> None:
    out, _ = run
    root = ET.parse(out / "curve.svg").getroot()
    assert root.tag == f"{SVG}svg"
    lines = root.findall(f"{SVG}polyline")
    panels = len(_train_module().PANELS)
    assert len(lines) == panels * (len(OPPONENTS) + 1)
    evaluations = len({p.split(",")[0] for p in lines[0].attrib["points"].split()})
    with (out / "curve.csv").open(newline="") as rows:
        assert evaluations == len({row["timesteps"] for row in csv.DictReader(rows)})
    legend = {text.text for text in root.findall(f"{SVG}text")}
    assert {"vs zergy", "vs pacifist", "mean"} <= legend


def test_the_saved_model_plays_through_botarena_as_the_learner_played(
    run: tuple[Path, dict[str, Any]],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The learner's match in the Gymnasium env, replayed by `botarena play` with policy_bot.py
    in seat 0 and the same seed: every one of seat 0's replies is the same."""
    from stable_baselines3 import PPO

    out, _ = run
    train = _train_module()
    model = PPO.load(out / "drones_ppo.zip", device="cpu")
    env = train.make_env("zergy", SMALL)
    observation, info = env.reset(seed=11)
    done = False
    while not done:
        action, _ = model.predict(observation, deterministic=True)
        observation, _, done, _, info = env.step(int(action))
    learned = env.unwrapped.replay().to_json()
    env.close()

    monkeypatch.setenv("DRONES_POLICY", str(out / "drones_ppo.zip"))
    replay = tmp_path / "policy.json.gz"
    sets = [arg for key, value in SMALL.items() for arg in ("--set", f"{key}={value}")]
    argv = ["play", "drones", str(POLICY_BOT), "zergy", "--seed", str(learned["seed"]), *sets]
    assert main([*argv, "--replay", str(replay)]) == 0
    played = orjson.loads(gzip.decompress(replay.read_bytes()))

    def seat0(match: dict[str, Any]) -> list[Any]:
        return [step["replies"][0] for step in match["steps"]]

    assert played["players"][0]["name"] == "policy_bot"
    # the statuses before the results: a policy bot that failed would differ in its results too, and
    # its verdicts and log say why
    refused = [(i, r["status"], r.get("reason")) for i, r in enumerate(seat0(played)) if r["status"] != "OK"]
    assert not refused, f"policy_bot's exchanges that were not OK: {refused}; its log: {played['logs'][:1]}"
    assert played["result"]["details"]["meta"][0]["name"] == "PPO policy (examples/rl)"
    for key in ("ranks", "scores"):
        assert played["result"][key] == info["result"][key]
    assert len(played["steps"]) == len(learned["steps"]) >= SMALL["rounds"]
    assert [r["payload"] for r in seat0(played)] == [r["payload"] for r in seat0(learned)]
    assert main(["replay", str(replay), "--verify"]) == 0
    assert "identical" in capsys.readouterr().out


def test_policy_bot_names_a_missing_model(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("DRONES_POLICY", str(tmp_path / "absent.zip"))
    spec = importlib.util.spec_from_file_location("policy_bot_under_test", POLICY_BOT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    with pytest.raises(FileNotFoundError, match=r"absent\.zip: run examples/rl/train_drones\.py"):
        module.create_bot()
