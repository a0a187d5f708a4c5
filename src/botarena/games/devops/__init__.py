"""The Devops Game (`devops`): Ghent University's DevOps course game. Rules: spec devops.md.

The package has the shape of every game (docs/architecture.md): config, state, actions (the typed
moves and their enums, DV-5's move table), rules (the phases of a turn), engine, observe, text and
bots/ (one `FactionLogic` starter per module, `random.py` the random legal bot, `logic.py` the
in-process adapter). Beyond the shape: `protocol.py`, the course's native JSON calls (its move
factory), and `codes.py`, the plain-data rules of the spec 7.5 bonus codes whose HTTP routes are the
server's (`botarena.server.devops`).
"""

from __future__ import annotations

from botarena.core.game import Dynamics, GameInfo, Information
from botarena.games.devops.bots import STARTERS, RandomBot
from botarena.games.devops.config import GAME_ID, PRESETS, RULES_VERSION, DevopsConfig
from botarena.games.devops.engine import DevopsEngine
from botarena.games.devops.observe import hidden_info_check
from botarena.games.devops.text import keyframe_text

GAME: GameInfo[DevopsConfig] = GameInfo(
    id=GAME_ID,
    rules_version=RULES_VERSION,
    title="Devops Game",
    min_players=2,
    max_players=64,
    config_class=DevopsConfig,
    presets=PRESETS,
    new_engine=DevopsEngine,
    starter_bots=STARTERS,
    random_bot=RandomBot,
    keyframe_every=25,
    validation_preset="smoke",  # specs/arena.md: a new version is validated on a 12x12, 60-turn map
    text_renderer=keyframe_text,
    dynamics=Dynamics.SIMULTANEOUS,
    information=Information.HIDDEN,  # bombs show only in a SAPPER's own view (spec 4)
    hidden_info_check=hidden_info_check,
    # 64 factions need room (DV-6); short games keep the registry-wide suite quick
    test_overrides={
        "map_width_min": 48,
        "map_width_max": 48,
        "map_height_min": 40,
        "map_height_max": 40,
        "turn_limit": 25,
    },
    rl_encoding="botarena.rl.games.devops:DevopsEncoding",
    live_routes="botarena.server.devops.codes:live_routes",  # spec 7.5: the bonus-code routes
    url_bot="botarena.bots.devops_http:DevopsHttpBot",  # spec 7.1: the course's HTTP contract
)
