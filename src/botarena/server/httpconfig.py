"""The uvicorn settings every botarena HTTP server runs with: bounded headers, timeouts, a bounded
number of connections and a bounded send queue per client.

Every server (`botarena serve`, `botarena datspulse serve`, `play --live`, `botarena view`,
`botarena devops-service`) gets its `uvicorn.Config` from `server_config`, which runs uvicorn's h11
implementation through `botarena.server.guard.GuardedH11Protocol` with the `ServerLimits` below:

- **the request head** (request line plus headers) is at most MAX_HEADER_BYTES: beyond, 431 and the
  connection is closed, whether the head came in one read or trickled in (h11 itself checks its
  buffer only while a head is incomplete, so a whole 64 KiB head read at once went through);
- **a head that is slow or never sent** is cut off `header_timeout_s` after the connection opened (or
  after the first byte of a later request on it): 408 if part of it came, else a plain close;
- **a keep-alive connection idle** longer than `idle_timeout_s` between requests is closed;
- **a request body that trickles** is cut off when it has not all arrived `body_timeout_s` after its
  head (the time the server itself is not reading, because the app has not asked for more, does not
  count): 408 if the app has not answered yet, else a close;
- **a client that does not read** what it is sent: what the server holds for one connection is
  bounded, `socket_buffer_bytes` in the kernel (SO_SNDBUF: left to itself Linux grows it to 4 MiB)
  and `send_queue_bytes` in the server's own queue (asyncio's write buffer) beyond it; a connection
  whose queue stays full for `send_timeout_s` is dropped (its queue freed, its socket closed at once);
- **at most `max_connections` connections** are open at once, fewer when the open-file limit
  (RLIMIT_NOFILE) leaves no room for them: a new connection over the bound closes the connection
  that has waited longest for a request (idle, or sending its head), or, when every connection is
  busy with a request, is answered 503 and closed.

httptools, uvicorn's default HTTP implementation when installed, buffers headers without any limit
(a 10 MiB header was answered 200, and twenty 25 MiB headers grew a server by ~400 MiB), so it is
never used.

The defaults suit a server on the open internet; an organizer changes them with environment
variables, read when a server starts (`BOTARENA_HTTP_HEADER_TIMEOUT_S=5`, see ENV_PREFIX).
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

#: The largest request line plus headers a server accepts (the blank line that ends them included).
#: A DatsPulse client sends ~200 bytes; a browser on localhost may carry a few KiB of other sites'
#: cookies. nginx's default is 4 x 8 KiB.
MAX_HEADER_BYTES = 32 * 1024
#: The HTTP implementation: h11, because it is the one whose parser can be bounded (see above).
HTTP_IMPLEMENTATION = "h11"
#: `ServerLimits` fields are read from environment variables named with this prefix and the field's
#: name in capitals: BOTARENA_HTTP_HEADER_TIMEOUT_S, BOTARENA_HTTP_MAX_CONNECTIONS, ...
ENV_PREFIX = "BOTARENA_HTTP_"
#: File descriptors kept for the server's own use (its store, replay files, the pipes of bots a
#: tournament in the server plays, the event loop's): an idle `botarena serve` holds about 20.
FD_RESERVE = 128
#: The fewest connections a server allows, whatever the open-file limit.
MIN_CONNECTIONS = 16


class LimitsError(ValueError):
    """A bad server limit (from the environment or a caller), in one line."""


@dataclass(frozen=True)
class ServerLimits:
    """How long a client may take and how much it may hold (see the module docstring)."""

    header_timeout_s: float = 10.0
    idle_timeout_s: float = 5.0
    body_timeout_s: float = 60.0
    send_timeout_s: float = 30.0
    send_queue_bytes: int = 64 * 1024
    #: The kernel's send buffer of each connection: 256 KiB still carries 2.5 MB/s over 100 ms.
    socket_buffer_bytes: int = 256 * 1024
    max_connections: int = 1000
    #: The most connections asyncio accepts in one go (uvicorn's `backlog`): the open-file budget
    #: holds max_connections plus one such burst, so that accepting never runs out of descriptors.
    accept_burst: int = 128
    #: The connections the kernel queues until they are accepted (the listen() backlog): a burst of
    #: new connections waits there instead of being dropped (which costs a client a 1 s retry).
    listen_queue: int = 2048

    def __post_init__(self) -> None:
        for field in dataclasses.fields(self):
            value = getattr(self, field.name)
            if isinstance(value, bool) or not isinstance(value, int | float) or not value > 0:
                raise LimitsError(f"the server limit {field.name} must be a positive number, not {value!r}")
            if field.type == "int" and not isinstance(value, int):
                raise LimitsError(f"the server limit {field.name} must be a whole number, not {value!r}")

    @classmethod
    def from_environ(cls, environ: Mapping[str, str] | None = None) -> ServerLimits:
        """The defaults, with each field given in the environment (ENV_PREFIX + NAME) instead."""
        source = os.environ if environ is None else environ
        given: dict[str, Any] = {}
        for field in dataclasses.fields(cls):
            name = ENV_PREFIX + field.name.upper()
            text = source.get(name)
            if text is None or not text.strip():
                continue
            try:
                given[field.name] = int(text) if field.type == "int" else float(text)
            except ValueError:
                raise LimitsError(f"{name}={text[:40]!r} is not a number") from None
        return cls(**given)

    def connection_limit(self, open_files: int | None = None) -> int:
        """How many connections may be open at once: `max_connections`, lowered so that they, one
        accept burst and FD_RESERVE fit under the soft open-file limit (`open_files`, default this
        process's RLIMIT_NOFILE)."""
        files = open_files if open_files is not None else soft_open_file_limit()
        if files is None:
            return self.max_connections
        return max(MIN_CONNECTIONS, min(self.max_connections, files - self.accept_burst - FD_RESERVE))


def soft_open_file_limit() -> int | None:
    """This process's soft RLIMIT_NOFILE, or None when it is unlimited or unknown (not Unix)."""
    try:
        import resource
    except ImportError:  # pragma: no cover - not Unix
        return None
    soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    return None if soft == resource.RLIM_INFINITY else int(soft)


def server_config(app: Any, *, limits: ServerLimits | None = None, **options: Any) -> Any:
    """A `uvicorn.Config` for `app` with `limits` (default: `ServerLimits.from_environ()`) and
    `options` (log_level, host, port, ...), to run with `botarena.server.guard.ArenaServer` (which
    sets the listen queue). Raises LimitsError for a bad limit in the environment."""
    import uvicorn

    from botarena.server.guard import guarded_protocol

    chosen = limits if limits is not None else ServerLimits.from_environ()
    options.setdefault("http", guarded_protocol(chosen))
    options.setdefault("h11_max_incomplete_event_size", MAX_HEADER_BYTES)
    options.setdefault("timeout_keep_alive", chosen.idle_timeout_s)
    options.setdefault("backlog", chosen.accept_burst)
    options.setdefault("ws", "none")  # no server here speaks WebSocket: an upgrade is a plain request
    return uvicorn.Config(app, **options)
