"""Rock-paper-scissors (`rps`): the smallest game, written from docs/adding-a-game.md.

The rules:

- RPS-1: two seats play `rounds` rounds (config, default 9); the match ends after the last.
- RPS-2: each seat's start request carries its seat, the number of rounds and its `bot_seed`; the
  start reply is not read.
- RPS-3: each round both seats are asked at once (simultaneous) with the round number (1-based),
  both scores `[seat 0, seat 1]` and both moves of the previous round (`last_moves`, null before
  round 1); a seat sees everything (full information).
- RPS-4: a reply is `{"move": "rock" | "paper" | "scissors"}`. Anything else (not an object:
  INVALID `not_object`; a missing or unknown move: INVALID `bad_field`), a timeout or a crash
  forfeits the round: the seat's move is null.
- RPS-5: rock beats scissors, scissors beat paper, paper beats rock; a move beats a forfeit; equal
  moves and two forfeits draw. The round's winner scores one point.
- RPS-6: the result ranks the seats by points (equal points share rank 1); scores are the points.
- RPS-7: each seat's end request carries the final scores and ranks.

Modules: config, state, actions (RPS-4), rules (RPS-1, RPS-5, RPS-6), engine, observe (RPS-2,
RPS-3, RPS-7), text, bots (rock, cycler, copycat and the random bot).
"""

from __future__ import annotations

from botarena.core.game import Dynamics, GameInfo, Information
from botarena.games.rps.bots import STARTERS, RandomBot
from botarena.games.rps.config import GAME_ID, PRESETS, RULES_VERSION, RpsConfig
from botarena.games.rps.engine import RpsEngine
from botarena.games.rps.text import keyframe_text

GAME: GameInfo[RpsConfig] = GameInfo(
    id=GAME_ID,
    rules_version=RULES_VERSION,
    title="Rock-paper-scissors",
    min_players=2,
    max_players=2,
    dynamics=Dynamics.SIMULTANEOUS,
    information=Information.FULL,
    config_class=RpsConfig,
    presets=PRESETS,
    new_engine=RpsEngine,
    starter_bots=STARTERS,
    random_bot=RandomBot,
    keyframe_every=50,
    text_renderer=keyframe_text,
    rl_encoding="botarena.rl.games.rps:RpsEncoding",
)
