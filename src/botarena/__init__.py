"""botarena: an open platform for AI bot-programming games.

`botarena.play(game, bots, ...)` plays one match from Python (a notebook, a script) and returns it
with its result, its replay and an inline viewer: see `botarena.notebook`. It is imported on first
use, so `import botarena` stays light.
"""

from __future__ import annotations

__version__ = "0.1.0"

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (mypy reads the name as True)
if TYPE_CHECKING:
    from typing import Any

    from botarena.notebook import PlayedMatch, PlayError, play

__all__ = ["PlayError", "PlayedMatch", "__version__", "play"]

_LAZY = {"play", "PlayedMatch", "PlayError"}


def __getattr__(name: str) -> Any:
    """`botarena.play` and its types, imported from `botarena.notebook` when first asked for."""
    if name in _LAZY:
        from botarena import notebook

        return getattr(notebook, name)
    raise AttributeError(f"module 'botarena' has no attribute {name!r}")
