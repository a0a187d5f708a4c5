"""What each player sees (spec section 4): the whole state, as plain JSON-able data; the start and end
payloads (7.1); the compact rows the replay records for the viewer; and `hidden_info_check`.

Not shown: internal counters, trail-start records, the match seed, the random state, other bots'
seeds (section 1).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from botarena.core.config import config_to_dict
from botarena.core.game import GameInfo
from botarena.core.protocol import Reply
from botarena.core.status import Status
from botarena.games.domains.bots.random import RandomLegal
from botarena.games.domains.config import DomainsConfig
from botarena.games.domains.state import State


def units_json(state: State) -> list[dict[str, Any]]:
    W = state.W
    return [
        {
            "id": u,
            "player": owner,
            "x": state.unit_pos[u] // W,
            "y": state.unit_pos[u] % W,
            "upgraded": state.unit_upgraded[u],
            "energy": state.unit_energy[u],
        }
        for u, owner in enumerate(state.unit_owner)
        if owner >= 0
    ]


def bubbles_json(state: State) -> list[dict[str, Any]]:
    W = state.W
    return [
        {
            "id": b,
            "player": colour,
            "x": state.bubble_pos[b] // W,
            "y": state.bubble_pos[b] % W,
            "rounds_to_pop": state.bubble_rtp[b],
        }
        for b, colour in enumerate(state.bubble_colour)
        if colour >= 0
    ]


def bonuses_json(state: State) -> list[dict[str, Any]]:
    W = state.W
    return [{"id": k, "x": pos // W, "y": pos % W} for k, pos in enumerate(state.bonus_pos) if pos >= 0]


# -- the replay's compact rows (step records and keyframes) -----------------------------------------
def unit_rows(state: State) -> list[list[int]]:
    """[id, player, x, y, upgraded, energy] of every living unit."""
    W = state.W
    return [
        [
            u,
            owner,
            state.unit_pos[u] // W,
            state.unit_pos[u] % W,
            int(state.unit_upgraded[u]),
            state.unit_energy[u],
        ]
        for u, owner in enumerate(state.unit_owner)
        if owner >= 0
    ]


def bubble_rows(state: State) -> list[list[int]]:
    """[id, colour, x, y, rounds_to_pop] of every bubble on the board."""
    W = state.W
    return [
        [b, colour, state.bubble_pos[b] // W, state.bubble_pos[b] % W, state.bubble_rtp[b]]
        for b, colour in enumerate(state.bubble_colour)
        if colour >= 0
    ]


def bonus_rows(state: State) -> list[list[int]]:
    """[id, x, y] of every bonus on the board."""
    W = state.W
    return [[k, pos // W, pos % W] for k, pos in enumerate(state.bonus_pos) if pos >= 0]


# -- the turn observation ---------------------------------------------------------------------------
class ObservationBuilder:
    """Builds the turn payloads of a round: the shared parts once, fresh objects for every player.

    The four boards are kept as lists of rows from one round to the next, and only the rows that
    changed are converted again; every player then gets its own copies of the rows (payloads go to
    bots that may change them, and are never read back).
    """

    BOARDS = ("painter", "drawer", "drawer_unit", "ability")

    def __init__(self, config: DomainsConfig) -> None:
        self.config = config
        self.config_json = config_to_dict(config)
        self._last: dict[str, np.ndarray] = {}
        self._rows: dict[str, list[list[int]]] = {}

    def _board(self, name: str, board: np.ndarray) -> list[list[int]]:
        last = self._last.get(name)
        if last is None:
            rows: list[list[int]] = board.tolist()
            self._rows[name] = rows
        else:
            rows = self._rows[name]
            for x in np.flatnonzero((board != last).any(axis=1)).tolist():
                rows[x] = board[x].tolist()
        self._last[name] = board.copy()
        return rows

    def observations(self, state: State) -> list[dict[str, Any]]:
        """Section 4: one observation per player, for the round about to be played."""
        H, W = state.H, state.W
        boards = [(name, self._board(name, getattr(state, name).reshape(H, W))) for name in self.BOARDS]
        copy = list.copy
        result = []
        for me in range(state.n):
            obs: dict[str, Any] = {
                "round": state.round,
                "me": me,
                "num_players": state.n,
                "rows": H,
                "cols": W,
                "points": list(state.points),
            }
            for key, rows in boards:
                obs[key] = list(map(copy, rows))
            obs["units"] = units_json(state)
            obs["bubbles"] = bubbles_json(state)
            obs["bonuses"] = bonuses_json(state)
            obs["unit_table_size"] = self.config.unit_table_size
            obs["bubble_table_size"] = self.config.bubble_table_size
            obs["config"] = dict(self.config_json)
            result.append(obs)
        return result


def start_payload(config: DomainsConfig, me: int, names: list[str], bot_seed: int) -> dict[str, Any]:
    """7.1: the `start` request payload."""
    return {
        "me": me,
        "num_players": config.num_players,
        "names": list(names),
        "config": config_to_dict(config),
        "bot_seed": bot_seed,
    }


def competition_ranks(points: list[int]) -> list[int]:
    """Section 6: by points descending; equal points share a rank (1, 1, 3)."""
    return [1 + sum(1 for other in points if other > mine) for mine in points]


def end_payload(points: list[int]) -> dict[str, Any]:
    """7.1: the `end` request payload."""
    return {"points": list(points), "ranks": competition_ranks(points)}


def hidden_info_check(game: GameInfo[DomainsConfig]) -> None:
    """Section 1 and 4: information is full, so every seat's observation is the same apart from `me`,
    and the start payloads differ only in `me` and `bot_seed` (the registry-wide suite checks seeds).

    Plays a short 2-seat match on the engine itself, the random legal bot answering every request."""
    config = game.config(overrides={"number_of_rounds": 12, "board_height": 10, "board_width": 10})
    engine = game.new_engine(config, 99, 2)
    bots = [RandomLegal(), RandomLegal()]
    starts = engine.start_requests()
    private = ("me", "bot_seed")
    first_start, second_start = ({k: v for k, v in r.payload.items() if k not in private} for r in starts)
    assert first_start == second_start
    engine.apply_start([Reply(r.seat, Status.OK, bots[r.seat].setup(r.payload)) for r in starts])
    seen: list[list[dict[str, Any]]] = [[], []]
    while requests := engine.next_requests():
        for request in requests:
            seen[request.seat].append({k: v for k, v in request.payload.items() if k != "me"})
        engine.apply([Reply(r.seat, Status.OK, bots[r.seat].act(r.payload)) for r in requests])
    assert len(seen[0]) == len(seen[1]) == 12
    for first, second in zip(*seen, strict=True):
        assert first == second
        assert set(first) == {
            "round",
            "num_players",
            "rows",
            "cols",
            "points",
            "painter",
            "drawer",
            "drawer_unit",
            "ability",
            "units",
            "bubbles",
            "bonuses",
            "unit_table_size",
            "bubble_table_size",
            "config",
        }
