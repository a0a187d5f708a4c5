"""A tiny kit for Python bots that speak the generic JSON-lines protocol (docs/protocol.md).

    python -m botarena.kit path/to/bot.py

runs the bot file as a protocol bot: a subprocess that reads request envelopes on stdin and writes
one reply line per request on stdout. The file defines, in order of preference, `create_bot()`
(a factory), a class `Bot`, or a function `act(payload)`; the bot is the same shape as an
in-process bot: an object with `act(payload)` and optional `setup(payload)` and `end(payload)`, or
a plain function used as `act`.

From your own script, `serve(bot)` does the same for an object or function already in hand.

- `print()` and anything else written to stdout goes to stderr (the bot's log): the protocol has
  the real stdout to itself, so debugging output never corrupts it.
- An exception in the bot's code is answered `{"error": "<Type>: <message>"}` (a game maps that to
  CRASHED `bot_error`) and its traceback goes to stderr; the bot keeps serving.
- The process exits when stdin closes, which the runner does after the `end` request.

This module is kept free of heavy imports: a bot's start-up time counts against `setup_timeout_ms`.
"""

from __future__ import annotations

import importlib.util
import os
import sys
from collections.abc import Callable
from typing import Any

try:
    import orjson

    def _dumps(value: Any) -> bytes:
        return orjson.dumps(value)

    _loads: Callable[[bytes], Any] = orjson.loads
except ImportError:  # the kit must also run from a bare checkout
    import json

    def _dumps(value: Any) -> bytes:
        return json.dumps(value, separators=(",", ":"), allow_nan=False).encode()

    _loads = json.loads

__all__ = ["load_bot", "main", "serve"]


def _no_reply(payload: Any) -> Any:
    return {}


def _error(exc: BaseException, where: str = "") -> dict[str, str]:
    import traceback  # only on the error path: it is slow to import

    traceback.print_exception(exc, file=sys.stderr)
    sys.stderr.flush()
    prefix = f"{where}: " if where else ""
    return {"error": f"{prefix}{type(exc).__name__}: {exc}"[:1000]}


_METHODS = {"start": "setup", "turn": "act", "end": "end"}


def _handlers(bot: Any) -> dict[str, Callable[[Any], Any]]:
    act = getattr(bot, "act", None)
    if act is None and callable(bot):
        act = bot
    if act is None:
        raise TypeError(f"{type(bot).__name__} has no act(payload) and is not callable")
    return {
        "start": getattr(bot, "setup", _no_reply),
        "turn": act,
        "end": getattr(bot, "end", _no_reply),
    }


def _protocol_stdout() -> int:
    """A private fd for protocol lines; fd 1 and sys.stdout are pointed at stderr."""
    sys.stdout.flush()
    out = os.dup(1)
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    return out


def serve(bot: Any = None, *, factory: Callable[[], Any] | None = None) -> None:
    """Serve one bot over stdin/stdout until stdin closes.

    Give either the bot (an object with `act` and optional `setup`/`end`, or a function), or a
    zero-argument `factory` that builds it; an exception from the factory is reported on every
    request as `{"error": ...}` (the match records CRASHED `bot_error`), with its traceback on stderr.
    """
    out = _protocol_stdout()
    handlers: dict[str, Callable[[Any], Any]] | None = None
    failure: dict[str, str] | None = None
    try:
        handlers = _handlers(factory() if factory is not None else bot)
    except Exception as exc:
        failure = _error(exc, "startup")
    stdin = sys.stdin.buffer
    write = os.write
    while True:
        line = stdin.readline()
        if not line:
            return
        if not line.strip():
            continue
        try:
            message = _loads(line)
            request_id = message["id"]
            kind = str(message.get("type", "turn"))
            payload = message.get("payload")
        except Exception as exc:
            # No id to echo: say so on stderr; the runner will time this request out.
            print(f"[kit] unreadable request line: {exc}", file=sys.stderr, flush=True)
            continue
        if failure is not None:
            reply_payload: Any = failure
        else:
            assert handlers is not None
            handler = handlers.get(kind, _no_reply)
            try:
                reply_payload = handler(payload)
            except Exception as exc:
                reply_payload = _error(exc, _METHODS.get(kind, kind))
        try:
            data = _dumps({"id": request_id, "payload": reply_payload})
        except Exception as exc:
            data = _dumps({"id": request_id, "payload": _error(exc, "reply not JSON-serialisable")})
        data += b"\n"
        while data:
            written = write(out, data)
            data = data[written:]


def module_bot_factory(module: Any) -> Callable[[], Any] | None:
    """The bot factory a loaded bot module defines: `create_bot()`, a class `Bot`, or module-level
    `act` (with optional `setup`/`end`) made into an object; None if it defines none of them.

    One rule for both ways an entrant's file runs: in-process (`botarena play`) and through this
    kit (tournaments, sandboxed), so the file behaves the same in both.
    """
    for attribute in ("create_bot", "Bot"):
        factory = getattr(module, attribute, None)
        if callable(factory):
            return factory  # type: ignore[no-any-return]
    if not callable(getattr(module, "act", None)):
        return None
    from types import SimpleNamespace

    hooks = {
        hook: getattr(module, hook)
        for hook in ("setup", "act", "end")
        if callable(getattr(module, hook, None))
    }
    return lambda: SimpleNamespace(**hooks)


def load_bot(path: str) -> Callable[[], Any]:
    """A factory for the bot defined in the Python file `path` (create_bot, Bot, or act)."""
    path = os.path.abspath(path)
    if not os.path.isfile(path):
        raise FileNotFoundError(f"no such bot file: {path}")
    folder = os.path.dirname(path)
    if folder not in sys.path:
        sys.path.insert(0, folder)  # the bot may import its sibling modules
    name = os.path.splitext(os.path.basename(path))[0].replace("-", "_") or "bot"
    spec = importlib.util.spec_from_file_location(f"_botarena_kit_{name}", path)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot load {path} as a Python module")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    factory = module_bot_factory(module)
    if factory is not None:
        return factory
    raise AttributeError(f"{path} defines none of create_bot(), class Bot, act(payload)")


def main(argv: list[str] | None = None) -> int:
    """`python -m botarena.kit path/to/bot.py`: serve that bot over stdin/stdout."""
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1 or args[0] in ("-h", "--help"):
        print("usage: python -m botarena.kit path/to/bot.py", file=sys.stderr)
        return 2
    try:
        factory = load_bot(args[0])
    except Exception as exc:
        failure = exc  # reported by serve(), on stderr and in every reply

        def factory() -> Any:
            raise failure

    serve(factory=factory)
    return 0


if __name__ == "__main__":
    sys.exit(main())
