"""One self-contained HTML page that plays one replay: `botarena view FILE --html out.html`.

The page is the viewer (index.html) with everything it loads inlined: the stylesheet, the renderer
registry, the game's renderer, the player shell, and the replay itself in a
`<script type="application/gzip" data-encoding="base64" id="replay-data">` tag: the replay's JSON
gzip-compressed and written in base64, which the page expands with the browser's own
`DecompressionStream("gzip")` (issue 26 item 5: embedded as plain JSON, a 2,400-turn Devops game made
a 159 MB page; compressed, a page is about 4/3 of its .json.gz replay plus the viewer's code). Opened
from `file://` it fetches nothing and needs no server, so a replay can be shared as one file.

The viewer's scripts are ES modules importing each other by relative path, and a browser loads no
module from `file://`. So they become one inline module: the registry at the top level (what the
others import from it is then in scope), the renderer and the shell each in a block of their own
(their private names cannot collide), with their `import` lines and `export` keywords removed. The
shell finds the embedded replay and loads it; the renderer is already registered, so it imports
nothing.
"""

from __future__ import annotations

import base64
import binascii
import gzip
import re
from pathlib import Path

from botarena.core.replay import Replay, ReplayError, parse_replay
from botarena.server.viewer import web_root

STYLESHEET_TAG = '<link rel="stylesheet" href="style.css">'
SCRIPT_TAG = '<script type="module" src="player.js"></script>'
GAME_ID = re.compile(r"[a-z][a-z0-9_]*\Z")
# The viewer's modules use single-line imports and plain `export` declarations; anything else
# left at the start of a line after the rewrite means a module this inliner does not understand.
IMPORT_LINE = re.compile(r'^import\s*\{[^}]*\}\s*from\s*"[^"]+";[ \t]*$\n?', re.MULTILINE)
EXPORT_KEYWORD = re.compile(r"^export\s+(?=(?:async\s+)?function\b|const\b|let\b|class\b)", re.MULTILINE)
LEFTOVER = re.compile(r"^(?:import|export)\b", re.MULTILINE)
DATA_OPEN = '<script type="application/gzip" data-encoding="base64" id="replay-data">'
# Level 6, as replay files are written: level 9 takes twice as long on a long game for about 1%.
GZIP_LEVEL = 6


class StandaloneError(ValueError):
    """The viewer's files cannot be inlined (a missing file, or a module shape it cannot rewrite)."""


def _read(name: str) -> str:
    path = web_root() / name
    try:
        return path.read_text(encoding="utf-8")
    except OSError as exc:
        raise StandaloneError(f"the viewer's file {name} is missing from {web_root()}: {exc}") from None


def _inline_module(name: str) -> str:
    """The module `name` with its imports and export keywords removed."""
    source = EXPORT_KEYWORD.sub("", IMPORT_LINE.sub("", _read(name)))
    leftover = LEFTOVER.search(source)
    if leftover:
        line = source[leftover.start() :].splitlines()[0]
        raise StandaloneError(f"cannot inline {name}: unsupported module line {line!r}")
    return source


def _embeddable(text: str, closing: str, name: str) -> str:
    """`text` to put between `<script>`/`<style>` tags: nothing in it may close the tag early."""
    if closing in text.lower():
        raise StandaloneError(f"cannot inline {name}: it contains {closing!r}")
    return text


def replay_data_for_html(replay: Replay) -> str:
    """The replay as the page embeds it: its JSON gzip-compressed, in base64. Base64 has no `<`,
    `&` or quote, so nothing in a bot's name or log can end the `<script>` element early or needs
    escaping in a notebook's `srcdoc` attribute; `mtime=0` makes the same replay the same page."""
    packed = gzip.compress(replay.dumps(), compresslevel=GZIP_LEVEL, mtime=0)
    return base64.b64encode(packed).decode("ascii")


def embedded_replay(page: str) -> Replay:
    """The replay a page written by `standalone_html` embeds (for tests and tools reading a page
    back). Raises ReplayError when the page holds no readable replay."""
    _, found, rest = page.partition(DATA_OPEN)
    data, closed, _ = rest.partition("</script>")
    if not found or not closed:
        raise ReplayError("not a botarena viewer page: no embedded replay")
    try:
        packed = base64.b64decode(data, validate=True)
    except binascii.Error as exc:
        raise ReplayError(f"the page's embedded replay is not base64 ({exc})") from None
    return parse_replay(packed, "the page's embedded replay")


def standalone_html(replay: Replay) -> str:
    """The whole page for `replay`, as text."""
    page = _read("index.html")
    for tag in (STYLESHEET_TAG, SCRIPT_TAG):
        if page.count(tag) != 1:
            raise StandaloneError(f"index.html no longer has exactly one {tag}")
    parts = ["registry.js"]
    if GAME_ID.match(replay.game) and (web_root() / "renderers" / f"{replay.game}.js").is_file():
        parts.append(f"renderers/{replay.game}.js")  # no renderer: the shell's generic view
    parts.append("player.js")
    blocks = [_embeddable(_inline_module(parts[0]), "</script", parts[0])]
    blocks += ["{\n" + _embeddable(_inline_module(name), "</script", name) + "\n}" for name in parts[1:]]
    style = _embeddable(_read("style.css"), "</style", "style.css")
    scripts = (
        f"{DATA_OPEN}{replay_data_for_html(replay)}</script>\n"
        f'  <script type="module">\n{chr(10).join(blocks)}\n  </script>'
    )
    # str.replace with a function-free replacement: the inlined text is taken literally
    return page.replace(STYLESHEET_TAG, f"<style>\n{style}</style>").replace(SCRIPT_TAG, scripts)


def write_standalone_html(replay: Replay, path: str | Path) -> Path:
    """Write the page for `replay` to `path` (atomically: a temporary file, then a rename)."""
    target = Path(path)
    text = standalone_html(replay)
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = target.with_name(target.name + ".tmp")
    tmp.write_text(text, encoding="utf-8")
    tmp.replace(target)
    return target
