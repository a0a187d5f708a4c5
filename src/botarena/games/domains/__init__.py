"""Domains (`domains`): the painting game of DarkJaslo/Domains for 2-4 players. Rules: spec domains.md.

The package has the shape of docs/architecture.md (`config`, `state`, `actions`, `rules`, `engine`,
`observe`, `text`, `bots/` with `random.py`, and `protocol` for the original's game files and
reference traces), plus Domains' own modules:

- `api.py`: the Python player API of spec 7.2 (the original C++ API's names; a `Player` is a bot);
- `bitboard.py`: boards as Python integers, for the enclosure (DR-19) and the starter bots' searches;
- `rng.py`: the random sources of DR-1 (the original's pi-digit `reference` generator, PCG64) and
  the bots' own `randomNumber`.

Outside the package: `botarena domains export|import` (`botarena.commands.domains`) and the C++
kit's compiler (`botarena.bots.cppkit`).
"""

from __future__ import annotations

from botarena.core.game import Dynamics, GameInfo, Information, Kits
from botarena.games.domains.bots import STARTERS
from botarena.games.domains.bots.random import RandomLegal
from botarena.games.domains.config import GAME_ID, PRESETS, RULES_VERSION, DomainsConfig
from botarena.games.domains.engine import DomainsEngine
from botarena.games.domains.observe import hidden_info_check
from botarena.games.domains.text import keyframe_text

GAME: GameInfo[DomainsConfig] = GameInfo(
    id=GAME_ID,
    rules_version=RULES_VERSION,
    title="Domains",
    min_players=2,
    max_players=4,
    config_class=DomainsConfig,
    presets=PRESETS,
    new_engine=DomainsEngine,
    starter_bots=STARTERS,
    random_bot=RandomLegal,
    keyframe_every=50,
    text_renderer=keyframe_text,
    dynamics=Dynamics.SIMULTANEOUS,
    information=Information.FULL,
    kits=Kits(cpp="domains-cpp"),
    hidden_info_check=hidden_info_check,
    test_overrides={"number_of_rounds": 60, "board_height": 20, "board_width": 20},
    rl_encoding="botarena.rl.games.domains:DomainsEncoding",
)
