"""Crafting Quest 2 (`craftingquest`): the AI-MAS Winter Olympics 2011 challenge. Rules: spec
craftingquest.md. Two teams of three units dig, learn to read scans, buy blueprints, craft and sell;
each turn is a chain of actions answered one by one (engine.py).

The package has the shape of docs/architecture.md (config, state, actions, rules, engine, observe,
text, bots; no protocol.py: the original had no native format here) plus its own machinery:
`constants.py` (the §2.1 constants), `geometry.py` (grid, terrain, unit kinds and ids),
`scenario.py` (the CQ-26 scenario record and its validation), `maps.py` (the original `.cqm` maps:
decoder and loader, read before the engine), and the generator `generate.py` with its parts
`generate_terrain.py`, `generate_content.py` and `generate_draws.py` (CQ-5 to CQ-25).
"""

from __future__ import annotations

from botarena.core.game import DemoTournament, Dynamics, GameInfo, Information
from botarena.games.craftingquest.bots import STARTERS, RandomBot
from botarena.games.craftingquest.config import GAME_ID, PRESETS, RULES_VERSION, CraftingQuestConfig
from botarena.games.craftingquest.engine import CraftingQuestEngine
from botarena.games.craftingquest.observe import hidden_info_check
from botarena.games.craftingquest.text import keyframe_text

GAME: GameInfo[CraftingQuestConfig] = GameInfo(
    id=GAME_ID,
    rules_version=RULES_VERSION,
    title="Crafting Quest 2",
    min_players=2,
    max_players=2,
    config_class=CraftingQuestConfig,
    presets=PRESETS,
    new_engine=CraftingQuestEngine,
    starter_bots=STARTERS,
    random_bot=RandomBot,
    # a game is thousands of single-action steps, and a keyframe lists every buried cell
    keyframe_every=250,
    text_renderer=keyframe_text,
    dynamics=Dynamics.ALTERNATING,
    information=Information.HIDDEN,  # attributes are learnt from scans (spec 4.6)
    # spec 4.6: every payload of whole short games audited against the state it was built from
    hidden_info_check=hidden_info_check,
    secret_config_keys=frozenset({"scenario"}),  # CQ-26: a whole scenario, its buried layers included
    # short games on the smallest generated map keep the registry-wide suite quick
    test_overrides={"width": 50, "height": 50, "rounds": 8},
    # `make run`'s demo: one game of 40 rounds on a small generated map, quick to watch
    demo=DemoTournament(overrides={"width": 50, "height": 50, "rounds": 40}),
    rl_encoding="botarena.rl.games.craftingquest:CraftingQuestEncoding",
)
