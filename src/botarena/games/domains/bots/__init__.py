"""Starter bots for Domains (spec section 10): `demo`, `dummy` and `surveyor`."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from botarena.games.domains.bots.demo import Demo
from botarena.games.domains.bots.dummy import Dummy
from botarena.games.domains.bots.surveyor import Surveyor

STARTERS: dict[str, Callable[[], Any]] = {
    "demo": Demo,
    "dummy": Dummy,
    "surveyor": Surveyor,
}
