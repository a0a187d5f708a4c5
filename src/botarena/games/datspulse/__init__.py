"""DatsPulse (`datspulse`): the DatsTeam ant-colony gamethon of July 2025. Rules: spec datspulse.md.

This registers the lockstep mode (§7.5) with the platform; the real-time server is
`botarena.server.datspulse` and a team's HTTP client is `botarena.clients.datspulse`.

The package has the shape of every game (docs/architecture.md): `config`, `state`, `actions` (the §5
moves body: validation, and orders back to a body), `rules` (setup, the §3.8 transition as named
phases, §6.2 places and points), `engine` (`Round`, the round's state machine both drivers run, and
`DatsPulseEngine`), `observe` (the §4 arena, the payloads, the spectator frame, `hidden_info_check`),
`text` (`keyframe_text`) and `bots`. It has no `protocol.py`: the event's native bodies are the
observation (`/api/arena`, in `observe`) and the reply (`/api/move`, in `actions`), and the rest of
its REST API (`/api/register`, error bodies, times) belongs to the real-time server.

Its own modules, pure like the rest:

- `hexgrid`: the hex geometry (§3.1: odd-r offset coordinates, distances, rings, the numbered map);
- `mapgen`: map generation (§3.5);
- `logs`: the event's log line texts (§7.7);
- `standings`: a series' final standings (§6.3), the game's tournament leaderboard rule, and the
  achievements (§6.4).
"""

from __future__ import annotations

from botarena.core.game import DemoTournament, Dynamics, GameInfo, Information
from botarena.games.datspulse.bots import STARTERS, RandomWalker
from botarena.games.datspulse.config import GAME_ID, PRESETS, RULES_VERSION, DatsPulseConfig
from botarena.games.datspulse.engine import DatsPulseEngine
from botarena.games.datspulse.observe import hidden_info_check
from botarena.games.datspulse.standings import tournament_standings
from botarena.games.datspulse.text import keyframe_text

#: The registry-wide conformance suite plays many whole matches with 1 and 100 teams, and scans every
#: payload of every seat: 3-turn rounds on maps of DP-4's automatic radius at its minimum of 300 hexes
#: per team (R = 12 for one team, 100 for a hundred) keep it to about 30 s of CPU.
CONFORMANCE_OVERRIDES = {"turns": 3, "map_hexes_per_team": 300}

GAME: GameInfo[DatsPulseConfig] = GameInfo(
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
    text_renderer=keyframe_text,
    dynamics=Dynamics.SIMULTANEOUS,
    information=Information.HIDDEN,  # fog of war (§4)
    hidden_info_check=hidden_info_check,
    test_overrides=CONFORMANCE_OVERRIDES,
    tournament_standings=tournament_standings,
    # `make run`'s demo: the three starters in one 100-turn round per seat rotation
    demo=DemoTournament(players=3, overrides={"turns": 100}),
    rl_encoding="botarena.rl.games.datspulse:DatsPulseEncoding",
)
