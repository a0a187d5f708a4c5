"""`random_walker` (spec §10.1): every ant walks a random path of 1..speed steps.

Each step goes to a random neighbour the team has seen on the map (so it exists) and that the path has
not visited yet, its start hex included; when no such neighbour is known the path ends there. Stone,
occupied hexes and MP are not checked: the engine settles them at the transition (§5), which shows that
such moves are harmless.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from botarena.games.datspulse.bots.common import SeededBot, hex_of, living_ants, wire
from botarena.games.datspulse.hexgrid import Hex, neighbours


class RandomWalker(SeededBot):
    """§10.1: the trivial bot."""

    def plan(self, arena: Mapping[str, Any]) -> list[dict[str, Any]]:
        moves: list[dict[str, Any]] = []
        for ant in living_ants(arena):
            path = self._walk(hex_of(ant), self.params[int(ant["type"])].speed)
            if path:
                moves.append({"ant": ant["id"], "path": wire(path)})
        return moves

    def _walk(self, start: Hex, speed: int) -> list[Hex]:
        length = self.rng.randint(1, speed)
        tiles = self.memory.tiles
        visited = {start}
        path: list[Hex] = []
        here = start
        for _ in range(length):
            options = [n for n in neighbours(*here) if n in tiles and n not in visited]
            if not options:
                break
            here = self.rng.choice(options)
            visited.add(here)
            path.append(here)
        return path
