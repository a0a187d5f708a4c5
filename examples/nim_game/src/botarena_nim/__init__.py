"""Nim (`nim`): a game outside botarena, registered by its `botarena.games` entry point.

The rules:

- NIM-1: `heap_count` heaps (config), each of 1 to `heap_max` objects, drawn from the match's stream
  `nim.heaps`; the same seed gives the same heaps.
- NIM-2: each seat's start request carries its seat, the heaps and its `bot_seed`; the start reply is
  not read.
- NIM-3: the seats move in turn, seat 0 first (alternating); the seat to move is asked alone, with
  the heaps and the move number (1-based). A seat sees everything (full information).
- NIM-4: a reply is `{"heap": H, "take": N}`: H a 0-based index of a non-empty heap, 1 <= N <= that
  heap's size and N <= `max_take` when `max_take` > 0. Anything else (not an object: INVALID
  `not_object`; a bad heap or count: INVALID `bad_field`), a timeout or a crash takes one object from
  the first non-empty heap for the seat, so every move shrinks the heaps and the match ends.
- NIM-5: the seat that takes the last object wins (rank 1, score 1); the other is rank 2, score 0.
- NIM-6: each seat's end request carries the winner and the ranks.

Modules: config, state, actions (NIM-4), rules (NIM-1, NIM-4, NIM-5), engine, observe (NIM-2, NIM-3,
NIM-6), text, bots (xor, first and the random bot), rl (the optional RL encoding).
"""

from __future__ import annotations

from botarena.core.game import Dynamics, GameInfo, Information
from botarena_nim.bots import STARTERS, RandomBot
from botarena_nim.config import GAME_ID, PRESETS, RULES_VERSION, NimConfig
from botarena_nim.engine import NimEngine
from botarena_nim.text import keyframe_text

GAME = GameInfo(
    id=GAME_ID,
    rules_version=RULES_VERSION,
    title="Nim",
    min_players=2,
    max_players=2,
    dynamics=Dynamics.ALTERNATING,
    information=Information.FULL,
    config_class=NimConfig,
    presets=PRESETS,
    new_engine=NimEngine,
    starter_bots=STARTERS,
    random_bot=RandomBot,
    text_renderer=keyframe_text,
    keyframe_every=10,
    test_overrides={"heap_max": 5},
    rl_encoding="botarena_nim.rl:NimEncoding",
)
