"""The platform's Engine for Domains: requests, verdicts, replay records and keyframes around
the pure rules of `rules.DomainsGame`.

Each round is one batch: every seat gets a `turn` request with the section 4 observation; the replies
become order lists (section 5, `actions.judge`), then the round runs (DR-9 .. DR-34). The step record
carries what the viewer needs to redraw the round without re-simulating it: the squares whose
paint, trail or flag changed, and the full (small) unit, bubble and bonus lists.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable
from typing import Any, Self

from botarena.core.game import Engine, MatchResult, Step, deepcopy_sharing
from botarena.core.protocol import MessageType, Reply, Request, Verdict
from botarena.core.rng import bot_seed
from botarena.core.status import Reason, Status
from botarena.games.domains.actions import judge
from botarena.games.domains.config import GAME_ID, DomainsConfig
from botarena.games.domains.observe import (
    ObservationBuilder,
    bonus_rows,
    bubble_rows,
    competition_ranks,
    end_payload,
    start_payload,
    unit_rows,
)
from botarena.games.domains.rules import DomainsGame
from botarena.games.domains.state import State


class DomainsEngine(Engine[DomainsConfig]):
    """One Domains match between 2-4 seats (the config's `num_players` follows the seat count)."""

    def __init__(self, config: DomainsConfig, seed: int, num_players: int | None = None) -> None:
        if num_players is not None and num_players != config.num_players:
            config = dataclasses.replace(config, num_players=num_players)
            config.check()
        self.config = config
        self.seed = seed
        self.names = [f"player{p}" for p in range(config.num_players)]
        self.game = DomainsGame(config, seed)
        self.observer = ObservationBuilder(config)

    @property
    def state(self) -> State:
        return self.game.state

    # -- cloning -------------------------------------------------------------------------------------
    def clone(self) -> Self:
        """`Engine.clone`: the state, the random source's position and the export frames are copied;
        the config, the board geometry's masks and the reference source's digit table are shared; the
        clone's observation builder starts with an empty cache (it rebuilds its rows on first use)."""
        fresh = ObservationBuilder(self.config)
        return deepcopy_sharing(self, self.clone_shared(), {id(self.observer): fresh})

    def clone_shared(self) -> Iterable[object]:
        shared: list[object] = [self.config, self.game.config, self.game.geo]
        digits = getattr(self.game.source, "_digits", None)  # ReferenceRandom's table T (DR-2)
        if digits is not None:
            shared.append(digits)
        return shared

    # -- start ---------------------------------------------------------------------------------------
    def start_requests(self) -> list[Request]:
        timeout = self.config.setup_timeout_ms
        return [
            Request(
                p,
                start_payload(self.config, p, self.names, bot_seed(self.seed, GAME_ID, p)),
                timeout,
                MessageType.START,
            )
            for p in range(self.config.num_players)
        ]

    def apply_start(self, replies: list[Reply]) -> list[Verdict]:
        """7.1: the start reply's content is ignored; its status is recorded."""
        return [Verdict(r.seat, r.status, r.reason, list(r.warnings)) for r in replies]

    # -- rounds --------------------------------------------------------------------------------------
    def next_requests(self) -> list[Request]:
        if self.game.finished:
            return []
        state = self.state
        timeout = self.config.turn_timeout_ms
        return [
            Request(p, obs, timeout, MessageType.TURN, state.round)
            for p, obs in enumerate(self.observer.observations(state))
        ]

    def apply(self, replies: list[Reply]) -> Step:
        U = self.config.unit_table_size
        orders: list[list[Any]] = [[] for _ in range(self.config.num_players)]
        verdicts: list[Verdict] = []
        for reply in replies:
            listed, verdict = judge(reply, U)
            orders[reply.seat] = listed
            verdicts.append(verdict)
        round_number = self.state.round
        self.game.play_round(orders)
        state = self.state
        record: dict[str, Any] = {
            "round": round_number,
            "orders": [[[o.unit, int(o.kind), o.dir] for o in listed] for listed in orders],
            "points": list(state.points),
            "cells": self.game.changes,
            "units": unit_rows(state),
            "bubbles": bubble_rows(state),
            "bonuses": bonus_rows(state),
        }
        if self.game.events:
            record["events"] = self.game.events
        return Step(record, verdicts)

    # -- end -----------------------------------------------------------------------------------------
    def end_requests(self) -> list[Request]:
        timeout = self.config.turn_timeout_ms
        payload = end_payload(self.state.points)
        return [
            Request(
                p,
                {**payload, "points": list(payload["points"]), "ranks": list(payload["ranks"])},
                timeout,
                MessageType.END,
                self.state.round,
            )
            for p in range(self.config.num_players)
        ]

    def apply_end(self, replies: list[Reply]) -> list[Verdict]:
        verdicts = []
        for r in replies:
            if r.status is Status.OK and not isinstance(r.payload, dict):
                verdicts.append(
                    Verdict(r.seat, Status.INVALID, Reason.NOT_OBJECT, detail="end reply must be an object")
                )
            else:
                verdicts.append(Verdict(r.seat, r.status, r.reason, list(r.warnings)))
        return verdicts

    def result(self) -> MatchResult:
        points = list(self.state.points)
        ranks = competition_ranks(points)
        return MatchResult(ranks=ranks, scores=[float(p) for p in points], details={"points": points})

    def keyframe(self) -> dict[str, Any]:
        """The whole visible state: flat row-major boards and the tables, and the match's player count
        (the effective `num_players`: the engine follows the seat count, whatever config it was given)."""
        state = self.state
        return {
            "num_players": state.n,
            "round": state.round,
            "rows": state.H,
            "cols": state.W,
            "points": list(state.points),
            "painter": state.painter.tolist(),
            "drawer": state.drawer.tolist(),
            "ability": state.ability.tolist(),
            "units": unit_rows(state),
            "bubbles": bubble_rows(state),
            "bonuses": bonus_rows(state),
        }
