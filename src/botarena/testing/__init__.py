"""`botarena.testing`: the checks a game author runs on a game, as PettingZoo ships its `api_test`.

    from botarena.testing import check_game
    from botarena.games.mygame import GAME

    check_game(GAME)   # raises AssertionError naming the first check that fails, and its rule

`check_game` runs every check of `CHECKS` (name -> function; `RULES` gives each one's rule) on short
matches of in-process bots, with the game's `test_overrides` on its default preset. Each check is also
a public function of its own, `check_<name>(game)`, so a test suite can run them one by one (the
project's own tests/conformance does, over every registered game). The game must be registered
(`botarena.core.registry`), because a replay is re-run by the game id it names.

The checks (docs/adding-a-game.md says what each one asks of a game):

- `declaration`: GameInfo is consistent (seats, dynamics, information, a hidden_info_check for
  HIDDEN information, starter bots, `overage_bank_ms` in the config);
- `random_play`: the random bot in every seat plays to the end with every verdict OK;
- `exchange`: one start request first, turn requests only, one end request last, for every seat;
- `starter_bots`: every ordered pair of starter bots plays without a failed exchange;
- `bad_replies`: garbage replies and a bot's exceptions become recorded statuses, never a crash;
- `determinism`: the same seed gives the byte-identical replay, another seed another one;
- `replay_reruns`: a written replay reads back unchanged and re-runs identically;
- `requests_are_queries`: `next_requests()` asked twice gives the same requests and changes nothing;
- `engine_copies`: an engine survives `copy.deepcopy` and `pickle` mid-game and the copy plays on
  identically;
- `keyframes_json`: every keyframe is JSON;
- `text_renderer`: the game's `text_renderer` draws every keyframe as a str;
- `dynamics`: ALTERNATING asks one seat per batch, SIMULTANEOUS several;
- `seeds_private`: no request shows the match seed or another seat's bot seed;
- `payloads_fresh`: bots that scribble over their requests change nothing;
- `hidden_info`: the game's own `hidden_info_check`, when it declares one.

`botarena.testing.golden` records and compares golden replays (a short match kept byte for byte).

This package imports the runner: product code never imports it (docs/architecture.md, the layers).
"""

from __future__ import annotations

from botarena.testing.conformance import (
    CHECKS,
    RULES,
    check_bad_replies,
    check_declaration,
    check_determinism,
    check_dynamics,
    check_engine_copies,
    check_exchange,
    check_game,
    check_hidden_info,
    check_keyframes_json,
    check_payloads_fresh,
    check_random_play,
    check_replay_reruns,
    check_requests_are_queries,
    check_seeds_private,
    check_starter_bots,
    check_text_renderer,
)

__all__ = [
    "CHECKS",
    "RULES",
    "check_bad_replies",
    "check_declaration",
    "check_determinism",
    "check_dynamics",
    "check_engine_copies",
    "check_exchange",
    "check_game",
    "check_hidden_info",
    "check_keyframes_json",
    "check_payloads_fresh",
    "check_random_play",
    "check_replay_reruns",
    "check_requests_are_queries",
    "check_seeds_private",
    "check_starter_bots",
    "check_text_renderer",
]
