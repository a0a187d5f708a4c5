"""A stand-in for the DatsPulse `Round` (the engine's contract, spec §4/§5) for server tests that are
about the server itself (lifecycle, errors, rate limit) and must not depend on the game's rules: each
team has one worker `<team>-w` at (team, 0); a path is accepted when it is a list of {q, r} objects."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from botarena.games.datspulse.engine import BadBody


class FakeRound:
    def __init__(self, config: Any, seed: int, team_names: Sequence[str]) -> None:
        self.config = config
        self.seed = seed
        self.team_names = list(team_names)
        self._turn = 0
        self._orders: list[dict[str, list[tuple[int, int]]]] = [{} for _ in team_names]
        self.transitions = 0

    @classmethod
    def create(cls, config: Any, seed: int, team_names: Sequence[str], number: int = 1) -> FakeRound:
        return cls(config, seed, team_names)

    @property
    def turn_no(self) -> int:
        return self._turn

    @property
    def finished(self) -> bool:
        return self._turn >= self.config.turns

    def ant_id(self, team: int) -> str:
        return f"{self.team_names[team]}-w"

    def arena(self, team: int, next_turn_in: float) -> dict[str, Any]:
        ant: dict[str, Any] = {"q": team, "r": 0, "type": 0, "health": 130, "id": self.ant_id(team)}
        path = self._orders[team].get(self.ant_id(team))
        if path:
            ant["move"] = [{"q": q, "r": r} for q, r in path]
        ant["food"] = {"type": 0, "amount": 0}
        return {
            "ants": [ant],
            "enemies": [],
            "map": [{"q": team, "r": 0, "cost": 1, "type": 1}],
            "food": [],
            "turnNo": self._turn,
            "nextTurnIn": next_turn_in,
            "home": [{"q": team, "r": 0}, {"q": team, "r": -1}, {"q": team - 1, "r": -1}],
            "score": 0,
            "spot": {"q": team, "r": 0},
        }

    def submit(self, team: int, body: Any) -> list[str]:
        if not isinstance(body, dict):
            raise BadBody("the top level is not an object")
        moves = body.get("moves")
        if moves is not None and not isinstance(moves, list):
            raise BadBody("moves is neither an array nor null")
        if self.finished:
            return ["round is over"]
        errors: list[str] = []
        for entry in moves or []:
            if entry.get("ant") != self.ant_id(team):
                errors.append(f"ant {entry.get('ant')} is dead")
                continue
            self._orders[team][entry["ant"]] = [(p["q"], p["r"]) for p in entry.get("path") or []]
        return errors

    def orders(self, team: int) -> dict[str, list[tuple[int, int]]]:
        return dict(self._orders[team])

    def transition(self) -> dict[int, list[str]]:
        if self.finished:
            raise RuntimeError("the round is over")
        self._turn += 1
        self.transitions += 1
        self._orders = [{} for _ in self.team_names]
        return {i: [f"turn {self._turn}: new ant spawned Worker"] for i in range(len(self.team_names))}

    def spectator_frame(self) -> dict[str, Any]:
        return {"turnNo": self._turn, "teams": [], "units": [], "food": [], "events": []}

    def results(self) -> list[dict[str, Any]]:
        return [
            {"index": i, "name": n, "score": 0, "place": 1, "points": 0, "unitsLost": 0}
            for i, n in enumerate(self.team_names)
        ]
