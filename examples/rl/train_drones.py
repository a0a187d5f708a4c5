"""Train a small PPO policy to play GameOfDrones against botarena's starter bots.

The learner plays seat 0 of `botarena.rl.gym_env("drones", ...)` (a Gymnasium env whose opponent is a
real botarena bot), sees the turn request as 19 numbers scaled by `LogScaled` (log1p: unit counts
double every turn), and picks one of 10 actions (a soldier share of this turn's capacity, attack or
not). Its win rate against each opponent is measured before training, every `--eval-every`
timesteps during it, and after it: `--eval-matches` seeded matches, the policy acting
deterministically. The learning curve goes to `curve.csv` and `curve.svg` (drawn by this script),
the figures to `summary.json` and the model to `drones_ppo.zip` in `--out`.

    python examples/rl/train_drones.py                      # the full run: 150k timesteps, 5 starters
    python examples/rl/train_drones.py --timesteps 20000 --opponent zergy --out /tmp/zergy
    botarena play drones examples/rl/policy_bot.py zergy    # the trained policy as a bot

Needs the `rl-train` extra: pip install 'botarena[rl-train]' (Stable-Baselines3, PyTorch).
"""

from __future__ import annotations

import argparse
import csv
import json
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import gymnasium
import numpy as np
import torch
from gymnasium import spaces
from stable_baselines3 import PPO
from stable_baselines3.common.callbacks import BaseCallback
from stable_baselines3.common.monitor import Monitor
from stable_baselines3.common.vec_env import DummyVecEnv

from botarena import rl

HERE = Path(__file__).resolve().parent
DEFAULT_OUT = HERE / "run"
"""Where a run writes by default (git-ignored); policy_bot.py loads its model from there."""
STARTERS = "zergy,pacifist,adaptive,randomonium,tactician"
"""GameOfDrones' five starter bots (spec section 10): the default opponents, one env each."""
MODEL_FILE = "drones_ppo.zip"
CURVE_CSV = "curve.csv"
CURVE_SVG = "curve.svg"
SUMMARY_JSON = "summary.json"
ROLLOUT_STEPS = 256
"""Steps per env per PPO update (one env per opponent): about a dozen matches each."""
EVAL_SEED = 1_000_000
"""Evaluation matches use seeds EVAL_SEED + i, apart from the training matches' seeds."""


def scale_observation(vector: np.ndarray[Any, Any]) -> np.ndarray[Any, np.dtype[np.float32]]:
    """log1p of the raw observation: unit counts grow as 2**turn, the network wants small inputs."""
    return np.log1p(np.asarray(vector, dtype=np.float32))


class LogScaled(gymnasium.ObservationWrapper[np.ndarray, int, np.ndarray]):
    """The drones observation (all fields >= 0) through `scale_observation`."""

    def __init__(self, env: gymnasium.Env[np.ndarray, int]) -> None:
        super().__init__(env)
        inner = env.observation_space
        assert isinstance(inner, spaces.Box)
        # the raw bounds, scaled: finite (botarena.rl.encoding.VALUE_CAP), as SB3's checker asks
        self.observation_space = spaces.Box(scale_observation(inner.low), scale_observation(inner.high))

    def observation(self, observation: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
        return scale_observation(observation)


def make_env(opponent: str, config: dict[str, Any]) -> gymnasium.Env[Any, Any]:
    """The learner (seat 0) against `opponent`, with scaled observations."""
    return LogScaled(rl.gym_env("drones", opponents=opponent, seat=0, config=config))


def monitored(opponent: str, config: dict[str, Any]) -> Callable[[], gymnasium.Env[Any, Any]]:
    """A factory of `make_env(opponent, config)` with SB3's episode statistics, for a vec env."""
    return lambda: Monitor(make_env(opponent, config))


@dataclass(frozen=True)
class Score:
    """A policy's record over the evaluation matches against one opponent."""

    win_rate: float
    draw_rate: float
    loss_rate: float
    round_win_share: float
    """The learner's rounds won over all rounds played (a finer signal than match wins)."""


def evaluate(model: PPO, opponent: str, matches: int, config: dict[str, Any]) -> Score:
    """Play `matches` seeded matches against `opponent`, the policy acting deterministically."""
    env = make_env(opponent, config)
    wins = draws = rounds_won = rounds = 0
    try:
        for index in range(matches):
            observation, info = env.reset(seed=EVAL_SEED + index)
            done = False
            while not done:
                action, _ = model.predict(observation, deterministic=True)
                observation, _, done, _, info = env.step(int(action))
            ranks = info["result"]["ranks"]
            wins += ranks[0] < ranks[1]
            draws += ranks[0] == ranks[1]
            scores = info["result"]["scores"]
            rounds_won += int(scores[0])
            rounds += int(sum(scores)) or 1
    finally:
        env.close()
    return Score(wins / matches, draws / matches, (matches - wins - draws) / matches, rounds_won / rounds)


@dataclass(frozen=True)
class CurvePoint:
    """One evaluation: the timesteps trained so far, the opponent and the score against it."""

    timesteps: int
    opponent: str
    seconds: float
    score: Score

    def row(self) -> dict[str, Any]:
        return {
            "timesteps": self.timesteps,
            "opponent": self.opponent,
            "seconds": round(self.seconds, 1),
            **{key: round(value, 4) for key, value in asdict(self.score).items()},
        }


class WinRateCurve(BaseCallback):
    """Evaluates the policy against every opponent each `every` timesteps (and when called directly)."""

    def __init__(self, opponents: Sequence[str], every: int, matches: int, config: dict[str, Any]) -> None:
        super().__init__()
        self.opponents = list(opponents)
        self.every = every
        self.matches = matches
        self.config = config
        self.points: list[CurvePoint] = []
        self.started = time.perf_counter()
        self._next = every

    def evaluate_now(self, model: PPO, timesteps: int) -> list[CurvePoint]:
        seconds = time.perf_counter() - self.started
        points = [
            CurvePoint(timesteps, opponent, seconds, evaluate(model, opponent, self.matches, self.config))
            for opponent in self.opponents
        ]
        self.points.extend(points)
        shown = "  ".join(f"{p.opponent} {p.score.win_rate:.0%}" for p in points)
        print(f"{timesteps:>8} timesteps  {seconds:6.1f}s  win rate: {shown}", flush=True)
        return points

    def _on_step(self) -> bool:
        if self.num_timesteps >= self._next:
            self._next += self.every
            self.evaluate_now(self.model, self.num_timesteps)  # type: ignore[arg-type]
        return True


def write_csv(points: Sequence[CurvePoint], path: Path) -> None:
    rows = [point.row() for point in points]
    with path.open("w", newline="") as out:
        writer = csv.DictWriter(out, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)


COLOURS = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b"]
PANELS = [
    ("win_rate", "match win rate"),
    ("round_win_share", "share of rounds won"),
]
"""The chart's panels, top to bottom: a `Score` field and its axis label."""


@dataclass(frozen=True)
class _Frame:
    """Where one panel sits in the picture, and its scales."""

    left: float
    top: float
    width: float
    height: float
    last: int

    def x(self, timesteps: float) -> float:
        return self.left + self.width * timesteps / self.last

    def y(self, rate: float) -> float:
        return self.top + self.height * (1.0 - rate)


def _ticks(last: int) -> list[int]:
    """Round timestep ticks from 0 to about `last`: steps of 1, 2 or 5 times a power of ten."""
    step = 1
    while last / step > 8:
        for factor in (2, 5 / 2, 2):
            step = int(step * factor)
            if last / step <= 8:
                break
    return list(range(0, last + 1, step))


def _steps_label(steps: int) -> str:
    return f"{steps / 1000:g}k" if steps >= 1000 else str(steps)


def _axes(frame: _Frame, label: str) -> list[str]:
    """A panel's frame, grid, tick labels (0..100 %, 0..last timesteps) and y label."""
    parts = []
    right, bottom = frame.left + frame.width, frame.top + frame.height
    for tick in range(6):
        y = frame.y(tick / 5)
        parts.append(f'<line x1="{frame.left}" y1="{y:.1f}" x2="{right}" y2="{y:.1f}" stroke="#ddd"/>')
        parts.append(f'<text x="{frame.left - 6}" y="{y + 4:.1f}" text-anchor="end">{20 * tick}&#37;</text>')
    for steps in _ticks(frame.last):
        x = frame.x(steps)
        parts.append(f'<line x1="{x:.1f}" y1="{bottom}" x2="{x:.1f}" y2="{bottom + 4}" stroke="#333"/>')
        parts.append(f'<text x="{x:.1f}" y="{bottom + 16}" text-anchor="middle">{_steps_label(steps)}</text>')
    parts.append(
        f'<rect x="{frame.left}" y="{frame.top}" width="{frame.width}" height="{frame.height}" '
        'fill="none" stroke="#333"/>'
    )
    middle = frame.top + frame.height / 2
    parts.append(f'<text transform="translate(16 {middle}) rotate(-90)" text-anchor="middle">{label}</text>')
    return parts


def _line(frame: _Frame, series: Sequence[tuple[int, float]], colour: str, width: float) -> list[str]:
    points = " ".join(f"{frame.x(steps):.1f},{frame.y(rate):.1f}" for steps, rate in series)
    parts = [f'<polyline points="{points}" fill="none" stroke="{colour}" stroke-width="{width}"/>']
    parts.extend(
        f'<circle cx="{frame.x(steps):.1f}" cy="{frame.y(rate):.1f}" r="{width + 0.5}" fill="{colour}"/>'
        for steps, rate in series
    )
    return parts


def curve_svg(points: Sequence[CurvePoint], title: str) -> str:
    """The learning curve as a self-contained SVG: one panel per `PANELS` metric against timesteps,
    a line per opponent and a thick black one for their mean."""
    width, panel_h, left, right, top, gap = 680, 220, 60, 160, 40, 50
    opponents = list(dict.fromkeys(point.opponent for point in points))
    timesteps = sorted({point.timesteps for point in points})
    last = max(timesteps[-1], 1)
    height = top + len(PANELS) * (panel_h + gap)
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" font-family="sans-serif" font-size="12">',
        f'<rect width="{width}" height="{height}" fill="white"/>',
        f'<text x="{left + (width - left - right) / 2}" y="22" text-anchor="middle" '
        f'font-size="14">{title}</text>',
    ]
    colours = {opponent: COLOURS[index % len(COLOURS)] for index, opponent in enumerate(opponents)}
    for row, (field, label) in enumerate(PANELS):
        frame = _Frame(left, top + row * (panel_h + gap), width - left - right, panel_h, last)
        parts.extend(_axes(frame, label))
        for opponent in opponents:
            series = [(p.timesteps, getattr(p.score, field)) for p in points if p.opponent == opponent]
            parts.extend(_line(frame, series, colours[opponent], 1.5))
        if len(opponents) > 1:
            mean = [
                (steps, float(np.mean([getattr(p.score, field) for p in points if p.timesteps == steps])))
                for steps in timesteps
            ]
            parts.extend(_line(frame, mean, "black", 2.5))
    parts.append(
        f'<text x="{left + (width - left - right) / 2}" y="{height - 12}" '
        'text-anchor="middle">timesteps trained</text>'
    )
    legend = [(f"vs {opponent}", colours[opponent]) for opponent in opponents]
    if len(opponents) > 1:
        legend.append(("mean", "black"))
    for index, (name, colour) in enumerate(legend):
        x, y = width - right + 12, top + 10 + 20 * index
        parts.append(f'<line x1="{x}" y1="{y}" x2="{x + 20}" y2="{y}" stroke="{colour}" stroke-width="2.5"/>')
        parts.append(f'<text x="{x + 26}" y="{y + 4}">{name}</text>')
    parts.append("</svg>")
    return "\n".join(parts) + "\n"


def train(
    *,
    timesteps: int,
    opponents: Sequence[str],
    seed: int,
    out: Path,
    eval_every: int,
    eval_matches: int,
    config: dict[str, Any],
    log: Callable[[str], None] = print,
) -> dict[str, Any]:
    """Train, evaluate before/during/after, write the curve, the summary and the model into `out`."""
    torch.set_num_threads(1)  # a small MLP: more threads only contend on a small machine
    out.mkdir(parents=True, exist_ok=True)
    # One env per opponent, so every rollout mixes them all.
    vec_env = DummyVecEnv([monitored(opponent, config) for opponent in opponents])
    vec_env.seed(seed)
    model = PPO(
        "MlpPolicy",
        vec_env,
        n_steps=ROLLOUT_STEPS,
        batch_size=ROLLOUT_STEPS * len(opponents) // 4,  # four minibatches per epoch
        n_epochs=10,
        learning_rate=3e-4,
        gamma=0.99,
        ent_coef=0.01,
        policy_kwargs={"net_arch": [64, 64]},
        seed=seed,
        device="cpu",
        verbose=0,
    )
    curve = WinRateCurve(opponents, eval_every, eval_matches, config)
    before = curve.evaluate_now(model, 0)
    started = time.perf_counter()
    model.learn(total_timesteps=timesteps, callback=curve)
    train_seconds = time.perf_counter() - started
    if not curve.points or curve.points[-1].timesteps != model.num_timesteps:
        curve.evaluate_now(model, model.num_timesteps)
    after = curve.points[-len(opponents) :]
    vec_env.close()

    model.save(out / MODEL_FILE)
    write_csv(curve.points, out / CURVE_CSV)
    title = f"PPO learning GameOfDrones: {eval_matches} seeded matches per opponent and point"
    (out / CURVE_SVG).write_text(curve_svg(curve.points, title))
    summary = {
        "timesteps": model.num_timesteps,
        "seed": seed,
        "opponents": list(opponents),
        "eval_matches": eval_matches,
        "train_seconds": round(train_seconds, 1),
        "total_seconds": round(time.perf_counter() - curve.started, 1),
        "win_rate_before": {p.opponent: p.score.win_rate for p in before},
        "win_rate_after": {p.opponent: p.score.win_rate for p in after},
        "round_win_share_before": {p.opponent: round(p.score.round_win_share, 4) for p in before},
        "round_win_share_after": {p.opponent: round(p.score.round_win_share, 4) for p in after},
    }
    (out / SUMMARY_JSON).write_text(json.dumps(summary, indent=2) + "\n")
    log(json.dumps(summary, indent=2))
    return summary


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--timesteps", type=int, default=150_000, help="learner actions to train on")
    parser.add_argument(
        "--opponent",
        default=STARTERS,
        help="starter bot(s) to train and evaluate against, comma-separated (any botarena bot spec)",
    )
    parser.add_argument("--seed", type=int, default=0, help="seeds PPO, the envs and so the matches")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help="directory for the outputs")
    parser.add_argument("--eval-every", type=int, default=0, help="timesteps between evaluations")
    parser.add_argument("--eval-matches", type=int, default=50, help="matches per opponent per evaluation")
    parser.add_argument("--rounds", type=int, default=10, help="rounds per match (the game's config)")
    args = parser.parse_args(argv)
    opponents = [name.strip() for name in args.opponent.split(",") if name.strip()]
    if not opponents:
        parser.error("--opponent names no bot")
    if args.timesteps < 1 or args.eval_matches < 1:
        parser.error("--timesteps and --eval-matches must be positive")
    train(
        timesteps=args.timesteps,
        opponents=opponents,
        seed=args.seed,
        out=args.out,
        eval_every=args.eval_every or max(1, args.timesteps // 20),
        eval_matches=args.eval_matches,
        config={"rounds": args.rounds},
    )


if __name__ == "__main__":
    main()
