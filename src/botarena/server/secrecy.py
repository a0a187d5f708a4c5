"""What of a match the public and the teams may read while it is played: one rule (DESIGN principle 7).

A match's seed determines everything its rules hide: the fog of war, mines and hidden attributes of
the HIDDEN-information games, and in every game the seats' bot seeds, which no seat sees of another
(`botarena.core.game.Information`). A tournament's seed (a DatsPulse series' seed) determines the
seed of every one of its matches, and a game's `GameInfo.secret_config_keys` fix hidden content
outright (an explicit scenario, the seats' own seeds). So until a match is over, a route that a
spectator or a team can reach shows

- its seed as None, and a tournament's seed as None until the whole tournament is over;
- its config without the game's secret keys, until the tournament is over (every match of a
  tournament plays the same config, so a finished match's replay leaves them out too);
- `hidden`: the names of what it withholds (`seed`, `config.<key>`), so a page can say so.

Public rules (map sizes, turn limits, the choice of a published map) stay. Once a match is over its
replay is public, seed included: a match seed derives from the tournament seed through a one-way
hash (`botarena.tournament.formats.match_seed`, the DatsPulse server's `series.round_seed`), so it
tells nothing of the matches still to come.

`public_view(game, data, shown)` applies the rule to the JSON of a tournament, a match or a replay
(header); `Shown` says what the state of the match and of its tournament lets through. The routes of
`botarena.server.app` and the public `LiveHub` call it; nothing else removes a secret. A request with
the organizer key (`X-Organizer-Key`, when the server has one) sees everything.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

#: Match and tournament statuses after which nothing of them is secret any more.
OVER_STATUSES = frozenset({"finished", "failed"})
ORGANIZER_HEADER = "x-organizer-key"
ORGANIZER_KEY_PATTERN = r"^[!#-~]{16,256}$"
"""An organizer key: 16 to 256 printable ASCII characters, no spaces or quotes (it goes in a header)."""


def check_organizer_key(key: str) -> str:
    """`key` if it can be an organizer key (ORGANIZER_KEY_PATTERN), else ValueError (one line)."""
    if not re.fullmatch(ORGANIZER_KEY_PATTERN, key):
        raise ValueError(
            "an organizer key must be 16 to 256 printable ASCII characters without spaces or quotes"
            " (make one: python -c 'import secrets; print(secrets.token_urlsafe())')"
        )
    return key


def is_over(status: str | None) -> bool:
    """True once a match or tournament with this status can no longer be played on (finished or
    failed); scheduled, created and running ones keep their secrets."""
    return status in OVER_STATUSES


@dataclass(frozen=True)
class Shown:
    """What a route may show: the seed (its match, or its tournament, is over) and the secret
    config keys (the tournament is over)."""

    seed: bool
    secret_config: bool

    @classmethod
    def everything(cls) -> Shown:
        """The organizer's view, and anything once its tournament is over."""
        return cls(seed=True, secret_config=True)

    @classmethod
    def nothing_secret(cls) -> Shown:
        """A running match: its live header."""
        return cls(seed=False, secret_config=False)

    @classmethod
    def of_tournament(cls, status: str | None) -> Shown:
        over = is_over(status)
        return cls(seed=over, secret_config=over)

    @classmethod
    def of_match(cls, status: str | None, tournament_status: str | None) -> Shown:
        """A match's own seed once it is over; the shared config's secrets once its tournament is."""
        return cls(seed=is_over(status), secret_config=is_over(tournament_status))


def secret_config_keys(game: str) -> frozenset[str] | None:
    """The game's `GameInfo.secret_config_keys`; None for a game that is not registered (a store
    written by another version): then every config key is withheld."""
    from botarena.core.registry import UnknownGameError, get_game

    try:
        return get_game(game).secret_config_keys
    except UnknownGameError:
        return None


def withholds_config(game: str, config: Any) -> bool:
    """True when `public_view` would take something out of `config` (a secret key with a value)."""
    if not isinstance(config, Mapping):
        return False
    keys = secret_config_keys(game)
    if keys is None:
        return bool(config)
    return any(config.get(key) is not None for key in keys)


def public_view(game: str, data: Mapping[str, Any], shown: Shown) -> dict[str, Any]:
    """`data` (a tournament's, a match's or a replay's JSON object, with `seed` and/or `config`
    fields) as the public may read it: a shallow copy with the seed set to None and the secret
    config keys left out, as far as `shown` does not let them through, and `hidden` listing what
    was withheld (`[]` when nothing was). `data` itself is not changed."""
    view = dict(data)
    hidden: list[str] = []
    if not shown.seed and view.get("seed") is not None:
        view["seed"] = None
        hidden.append("seed")
    config = view.get("config")
    if not shown.secret_config and isinstance(config, Mapping):
        keys = secret_config_keys(game)
        secret = set(config) if keys is None else keys & set(config)
        if secret:
            view["config"] = {key: value for key, value in config.items() if key not in secret}
            hidden.extend(f"config.{key}" for key in sorted(secret))
    view["hidden"] = hidden
    return view
