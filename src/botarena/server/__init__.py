"""The web side of botarena: the replay viewer now, the organizer's server later.

FastAPI and uvicorn are the `server` extra; they are imported where used, so `import botarena.server`
works without them and the functions that need them fail with the `pip install` hint.
"""

from __future__ import annotations

from botarena.server.viewer import (
    ServerDependencyError,
    create_viewer_app,
    mount_web,
    replay_response,
    serve_viewer,
)
from botarena.standalone import web_root

__all__ = [
    "ServerDependencyError",
    "create_viewer_app",
    "mount_web",
    "replay_response",
    "serve_viewer",
    "web_root",
]
