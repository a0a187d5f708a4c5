"""GameOfDrones (`drones`): the Bravo LT Code Challenge 2018 game. Rules: docs in spec drones.md."""

from __future__ import annotations

from botarena.core.game import Dynamics, GameInfo, Information, Kits, TournamentPreset
from botarena.games.drones.bots import STARTERS
from botarena.games.drones.bots.testing import RandomLegal
from botarena.games.drones.config import EVENT_2018_CONFIG, GAME_ID, PRESETS, RULES_VERSION, DronesConfig
from botarena.games.drones.observe import hidden_info_check
from botarena.games.drones.protocol import original_result_json
from botarena.games.drones.rules import DronesEngine

EVENT_2018_TOURNAMENT = TournamentPreset(
    format="drones-2018",
    preset="bravolt2018",
    config={k: v for k, v in EVENT_2018_CONFIG.items() if k != "rules"},
)
"""Spec 2.3, the tournament preset `drones_2018_event`: format, game preset and config overrides."""

GAME = GameInfo(
    id=GAME_ID,
    rules_version=RULES_VERSION,
    title="GameOfDrones",
    min_players=2,
    max_players=2,
    config_class=DronesConfig,
    presets=PRESETS,
    new_engine=DronesEngine,
    starter_bots=STARTERS,
    random_bot=RandomLegal,
    keyframe_every=100,
    dynamics=Dynamics.SIMULTANEOUS,
    information=Information.HIDDEN,  # during a round a side sees nothing of the other (spec 4.5)
    hidden_info_check=hidden_info_check,
    native_result_json=original_result_json,  # spec 7.5, for `botarena play --original-json`
    kits=Kits(js="drones-js"),  # kits/drones-js/adapter.mjs runs 2018 bots unmodified (spec 7.3)
    # spec 2.3: `botarena tournament drones --format drones_2018_event` plays the 2018 event: the
    # `drones-2018` format (the name stored with the tournament), preset bravolt2018 and the
    # event's config. `drones-2018` given as the format is an alias with the same behaviour.
    tournament_presets={name: EVENT_2018_TOURNAMENT for name in ("drones_2018_event", "drones-2018")},
)
