"""The uvicorn settings every botarena HTTP server runs with: request headers are bounded.

uvicorn's default HTTP implementation is `auto`, which picks httptools when it is installed (it is,
with `uvicorn[standard]`), and httptools buffers a request's line and headers without any limit: a
10 MiB header was answered 200, and twenty 25 MiB headers grew a server by ~400 MiB. So every server
(`botarena serve`, `botarena datspulse serve`, `play --live`, `botarena view`, `botarena
devops-service`) pins the h11 implementation, whose `h11_max_incomplete_event_size` bounds the
buffered request line plus headers: a request whose head exceeds MAX_HEADER_BYTES is answered 400
("Invalid HTTP request received.") and its connection closed, after at most that many bytes plus one
socket read were held. Bodies are not affected (h11 hands them over as they arrive, and uvicorn pauses
reading while the app has not taken what it holds).
"""

from __future__ import annotations

from typing import Any

#: The largest request line plus headers a server accepts. A DatsPulse client sends ~200 bytes; a
#: browser on localhost may carry a few KiB of other sites' cookies. nginx's default is 4 x 8 KiB.
MAX_HEADER_BYTES = 32 * 1024
#: The HTTP implementation: h11, because it is the one that can bound the headers (see above).
HTTP_IMPLEMENTATION = "h11"


def server_config(app: Any, **options: Any) -> Any:
    """A `uvicorn.Config` for `app` with the bounded-header settings and `options` (log_level, ...)."""
    import uvicorn

    options.setdefault("http", HTTP_IMPLEMENTATION)
    options.setdefault("h11_max_incomplete_event_size", MAX_HEADER_BYTES)
    return uvicorn.Config(app, **options)
