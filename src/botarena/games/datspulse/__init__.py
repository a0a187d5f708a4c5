"""DatsPulse (`datspulse`): the DatsTeam ant-colony gamethon of July 2025. Rules: spec datspulse.md.

This registers the lockstep mode (§7.5) with the platform; the real-time server is
`botarena.server.datspulse` and a team's HTTP client is `botarena.games.datspulse.client`.
"""

from __future__ import annotations

from botarena.core.game import GameInfo
from botarena.games.datspulse.bots import STARTERS, RandomWalker
from botarena.games.datspulse.config import GAME_ID, PRESETS, RULES_VERSION, DatsPulseConfig
from botarena.games.datspulse.engine import DatsPulseEngine
from botarena.games.datspulse.observe import hidden_info_check
from botarena.games.datspulse.round import tournament_standings

#: The registry-wide conformance suite plays many whole matches with 1 and 100 teams, and scans every
#: payload of every seat: 3-turn rounds on maps of DP-4's automatic radius at its minimum of 300 hexes
#: per team (R = 12 for one team, 100 for a hundred) keep it to about 30 s of CPU.
CONFORMANCE_OVERRIDES = {"turns": 3, "map_hexes_per_team": 300}

GAME = GameInfo(
    id=GAME_ID,
    rules_version=RULES_VERSION,
    title="DatsPulse",
    min_players=1,
    max_players=100,
    config_class=DatsPulseConfig,
    presets=PRESETS,
    new_engine=DatsPulseEngine,
    starter_bots=STARTERS,
    random_bot=RandomWalker,
    keyframe_every=50,
    extras={
        "conformance_overrides": CONFORMANCE_OVERRIDES,
        "hidden_info_check": hidden_info_check,
        "tournament_standings": tournament_standings,
        # `make run`'s demo: the three starters in one 100-turn round per seat rotation
        "demo_tournament": {"players": 3, "overrides": {"turns": 100}},
    },
)
