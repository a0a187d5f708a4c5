"""The standalone viewer page, where the server's callers have always imported it.

The page builder itself is `botarena.standalone`, below the server, so that layers that must not
depend on the server (rl) can render a replay too; this module only re-exports it.
"""

from __future__ import annotations

from botarena.standalone import (
    DATA_OPEN,
    StandaloneError,
    embedded_replay,
    standalone_html,
    write_standalone_html,
)

__all__ = ["DATA_OPEN", "StandaloneError", "embedded_replay", "standalone_html", "write_standalone_html"]
