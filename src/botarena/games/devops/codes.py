"""Spec 7.5: the bonus codes of a running Devops game and the rules of its three routes, as plain data.

    issue    POST .../codes                       organizer (X-ORGANIZER-KEY): issue a code
    listing  GET  .../factions/{factionId}/codes  that faction's team: its usable codes
    redeem   POST .../redeem                      that faction's team: queue a code for DV-20

A team authenticates with `X-SECURE-KEY` equal to its faction's key. Codes are opaque tokens the
caller draws (the server: `secrets`, 128 bits), never from the game streams; the engine records what
DV-20 takes, so replays need no codes. The HTTP routes, and the lock that orders these calls with
the engine's turns, are the server's (`botarena.server.devops.codes`): a `CodeBook` is not
thread-safe by itself.
"""

from __future__ import annotations

import secrets
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from botarena.games.devops.config import GAME_ID
from botarena.games.devops.engine import DevopsEngine
from botarena.games.devops.observe import BONUS_TYPES

ORGANIZER_HEADER = "X-ORGANIZER-KEY"
TEAM_HEADER = "X-SECURE-KEY"


class CodeError(Exception):
    """A refused request: its HTTP status (spec 7.5's table) and a one-line reason."""

    def __init__(self, status: int, detail: str) -> None:
        super().__init__(detail)
        self.status = status
        self.detail = detail


@dataclass
class Code:
    code: str
    type: str
    game_id: str
    faction_id: int
    valid_until_turn: int
    redeemed: bool = False

    def json(self) -> dict[str, Any]:
        return {
            "code": self.code,
            "type": self.type,
            "gameId": self.game_id,
            "factionId": self.faction_id,
            "validUntilTurn": self.valid_until_turn,
        }


def _same(given: str | None, expected: str | None) -> bool:
    # constant time: a key must not leak through how long a wrong guess takes to refuse
    return bool(given) and bool(expected) and secrets.compare_digest(str(given), str(expected))


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


@dataclass
class CodeBook:
    """The issued codes of one game, its teams' keys and the organizer's key. Each route takes the
    running engine (None before it exists) and reads and changes it between the engine's phases."""

    team_keys: Mapping[int, str | None]
    organizer_key: str
    codes: dict[str, Code] = field(default_factory=dict)

    def _game(self, engine: DevopsEngine | None, game_id: str) -> DevopsEngine:
        if engine is None:
            raise CodeError(423, "the game has not started yet")
        if not secrets.compare_digest(game_id, engine.game_id):
            raise CodeError(403, f"not the running game ({game_id!r})")
        return engine

    def _team(self, engine: DevopsEngine, faction_id: Any, key: str | None) -> int:
        faction = _int(faction_id)
        if faction is None or not 1 <= faction <= engine.n or not _same(key, self.team_keys.get(faction)):
            raise CodeError(403, f"not faction {faction_id}'s team (X-SECURE-KEY)")
        return faction

    def issue(
        self, engine: DevopsEngine | None, game_id: str, body: Any, organizer_key: str | None, token: str
    ) -> dict[str, Any]:
        """POST .../codes: 201 with the code object, whose code is `token`."""
        game = self._game(engine, game_id)
        if not _same(organizer_key, self.organizer_key):
            raise CodeError(403, f"the organizer's key ({ORGANIZER_HEADER}) is missing or wrong")
        if not isinstance(body, dict):
            raise CodeError(400, "the body must be a JSON object")
        faction, kind, valid = _int(body.get("factionId")), body.get("type"), body.get("validTurns")
        if faction is None or not 1 <= faction <= game.n:
            raise CodeError(400, f"factionId must be 1..{game.n}")
        if kind not in BONUS_TYPES:
            raise CodeError(400, f"type must be one of {', '.join(BONUS_TYPES)}")
        if valid is not None and (_int(valid) is None or not 1 <= valid <= 100_000):
            raise CodeError(400, "validTurns must be an integer 1..100000")
        if game.state.finished:
            raise CodeError(423, "the game is over")
        until = game.state.turn + (valid if valid is not None else game.config.bonus_code_valid_turns)
        code = Code(token, kind, game.game_id, faction, until)
        self.codes[code.code] = code
        return code.json()

    def listing(
        self, engine: DevopsEngine | None, game_id: str, faction_id: str, key: str | None
    ) -> list[Any]:
        """GET .../factions/{factionId}/codes: 200 with the faction's issued, unredeemed, unexpired codes."""
        game = self._game(engine, game_id)
        faction = self._team(game, int(faction_id) if faction_id.isdecimal() else None, key)
        turn = game.state.turn
        codes = [c for c in self.codes.values() if c.faction_id == faction]
        return [c.json() for c in codes if not c.redeemed and turn <= c.valid_until_turn]

    def redeem(self, engine: DevopsEngine | None, game_id: str, body: Any, key: str | None) -> dict[str, Any]:
        """POST .../redeem: 202 `{"status": "queued", "type", "activatesAtTurn"}`; 423 when the game is
        over or the faction defeated, 410 when the current turn is past the code's `validUntilTurn`."""
        if (
            not isinstance(body, dict)
            or _int(body.get("factionId")) is None
            or not isinstance(body.get("code"), str)
        ):
            raise CodeError(400, 'the body must be {"factionId": int, "code": string}')
        game = self._game(engine, game_id)
        faction = self._team(game, body["factionId"], key)
        code = self.codes.get(body["code"])
        if code is None:
            raise CodeError(404, "unknown code")
        if code.faction_id != faction:
            raise CodeError(403, f"the code is not faction {faction}'s")
        if code.redeemed:
            raise CodeError(409, "the code has been redeemed already")
        state = game.state
        if state.finished or state.faction(faction).defeated:
            raise CodeError(423, "the game is over" if state.finished else "the faction is defeated")
        if state.turn > code.valid_until_turn:
            until = f"valid until turn {code.valid_until_turn}, the game is at turn {state.turn}"
            raise CodeError(410, f"the code has expired: {until}")
        turn = game.queue_redemption(faction, code.type, code.valid_until_turn)
        code.redeemed = True
        return {"status": "queued", "type": code.type, "activatesAtTurn": turn}

    # -- journal events (a killed game resumed: `botarena play --resume`) --------------------------
    @staticmethod
    def issued_event(code: dict[str, Any]) -> dict[str, Any]:
        """The journal event of an issued code (`code` as `issue` returned it)."""
        return {"game": GAME_ID, "kind": "code_issued", **code}

    def redeemed_event(self, token: str, activates_at_turn: int) -> dict[str, Any]:
        """The journal event of an accepted redemption of code `token`; `faction`, `type` and
        `validUntilTurn` are the engine's redemption fields."""
        code = self.codes[token]
        return {
            "game": GAME_ID,
            "kind": "code_redeemed",
            "code": token,
            "faction": code.faction_id,
            "type": code.type,
            "validUntilTurn": code.valid_until_turn,
            "activatesAtTurn": activates_at_turn,
        }

    def restore(self, events: Any) -> None:
        """Take back the codes issued and redeemed before a kill, from the journal's events."""
        for event in events:
            if event.get("game") != GAME_ID:
                continue
            if event.get("kind") == "code_issued":
                self.codes[event["code"]] = Code(
                    event["code"], event["type"], event["gameId"], event["factionId"], event["validUntilTurn"]
                )
            elif event.get("kind") == "code_redeemed" and event.get("code") in self.codes:
                self.codes[event["code"]].redeemed = True
