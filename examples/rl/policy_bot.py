"""The PPO policy trained by train_drones.py as a botarena GameOfDrones bot (in-process).

    botarena play drones examples/rl/policy_bot.py zergy --seed 7
    DRONES_POLICY=/tmp/zergy/drones_ppo.zip botarena play drones examples/rl/policy_bot.py tactician

It loads the model named by the `DRONES_POLICY` environment variable (default: `run/drones_ppo.zip`
beside this file, where train_drones.py writes by default) once per process, and answers every turn
request (spec 4.2) as the learner did in training: the same 19 numbers (`botarena.rl.games.drones`),
the same log1p scaling (`train_drones.scale_observation`), the deterministic action as the reply.
"""

from __future__ import annotations

import importlib.util
import os
import sys
from functools import cache
from pathlib import Path
from types import ModuleType
from typing import Any

from stable_baselines3 import PPO

from botarena.rl.games.drones import action_payload, observation_vector

HERE = Path(__file__).resolve().parent
DEFAULT_MODEL = HERE / "run" / "drones_ppo.zip"


def _training_module() -> ModuleType:
    """train_drones.py, this file's neighbour (botarena loads bot files by path, not as a package)."""
    if "train_drones" in sys.modules:
        return sys.modules["train_drones"]
    spec = importlib.util.spec_from_file_location("train_drones", HERE / "train_drones.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["train_drones"] = module
    spec.loader.exec_module(module)
    return module


@cache
def load_policy(path: str) -> PPO:
    """The saved model at `path`, loaded once: botarena makes a fresh bot for every match."""
    if not Path(path).is_file():
        raise FileNotFoundError(f"no trained model at {path}: run examples/rl/train_drones.py first")
    return PPO.load(path, device="cpu")


class PolicyBot:
    """setup / act / end, botarena's in-process bot contract."""

    def __init__(self, model_path: str | None = None) -> None:
        self.model = load_policy(model_path or os.environ.get("DRONES_POLICY", str(DEFAULT_MODEL)))
        self.scale = _training_module().scale_observation

    def setup(self, start: dict[str, Any]) -> dict[str, Any]:
        return {"meta": {"name": "PPO policy (examples/rl)", "author": "botarena examples"}}

    def act(self, request: dict[str, Any]) -> dict[str, Any]:
        observation = self.scale(observation_vector(request))
        action, _ = self.model.predict(observation, deterministic=True)
        return action_payload(int(action), int(request["producers"]))

    def end(self, result: dict[str, Any]) -> dict[str, Any]:
        return {}


def create_bot() -> PolicyBot:
    """The factory botarena looks for: a fresh bot per match (the model itself is shared)."""
    return PolicyBot()
