"""GameOfDrones (`drones`): the Bravo LT Code Challenge 2018 game. Rules: spec drones.md.

The package has the shape of docs/architecture.md:

- `config.py`: `DronesConfig` (spec 2.1), `PRESETS` (`default`, `bravolt2018`), the 2018 event's config (2.3);
- `state.py`: `MatchState` and its two `Side`s, plain data;
- `actions.py`: a reply judged into an effective action, `seed` (5.2) and `bravolt2018` (5.3);
- `rules.py`: the rules GD-1 .. GD-25 as phase functions over the state, in the spec's order;
- `engine.py`: `DronesEngine`, which sequences the phases over the match's exchanges and records it;
- `observe.py`: the start, turn and end payloads (section 4) and the round result as a seat sees it;
- `text.py`: `keyframe_text` (a stored keyframe as ASCII) and `render_step` (a turn or round record);
- `protocol.py`: the original 2018 engine's MatchResult JSON, byte for byte (spec 7.5);
- `event2018.py`: the 2018 event as a tournament format the game declares (spec 2.3, 6.3);
- `bots/`: `STARTERS` (spec 10), the random legal bot in `bots/random.py`;
- `batch.py` (with `batchrng.py` and `bots/batch.py`): N matches stepped together in numpy, with
  the starters as batched policies, for research at scale (docs/games/drones.md, *Batched simulation*).

One module more, on the bot side: `api.py`, the typed player API (SDK) for Python bot authors
(`Bot`, `Observation`, `Action`, ...; examples/drones), as Domains' `api.py` is for Domains. The
engine never imports it.
"""

from __future__ import annotations

from botarena.core.game import Dynamics, GameInfo, Information, Kits
from botarena.games.drones.bots import STARTERS
from botarena.games.drones.bots.random import RandomLegal
from botarena.games.drones.config import GAME_ID, PRESETS, RULES_VERSION, DronesConfig
from botarena.games.drones.engine import DronesEngine
from botarena.games.drones.event2018 import EVENT_2018
from botarena.games.drones.observe import hidden_info_check
from botarena.games.drones.protocol import original_result_json
from botarena.games.drones.text import keyframe_text

GAME: GameInfo[DronesConfig] = GameInfo(
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
    text_renderer=keyframe_text,
    dynamics=Dynamics.SIMULTANEOUS,
    information=Information.HIDDEN,  # during a round a side sees nothing of the other (spec 4.5)
    hidden_info_check=hidden_info_check,
    secret_config_keys=frozenset({"player_seeds"}),  # GD-4: a seat never sees the other's playerSeed
    native_result_json=original_result_json,  # spec 7.5, for `botarena play --original-json`
    kits=Kits(js="drones-js"),  # kits/drones-js/adapter.mjs runs 2018 bots unmodified (spec 7.3)
    # spec 2.3: `botarena tournament drones --format drones_2018_event` (or `drones-2018`, the name
    # stored with the tournament) plays the 2018 event: its schedule, preset bravolt2018, the
    # event's config and the spec 6.3 standings on the leaderboard.
    tournament_formats=(EVENT_2018,),
    rl_encoding="botarena.rl.games.drones:DronesEncoding",
)
