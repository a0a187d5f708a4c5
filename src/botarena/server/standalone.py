"""One self-contained HTML page that plays one replay: `botarena view FILE --html out.html`.

The page is the viewer (index.html) with everything it loads inlined: the stylesheet, the renderer
registry, the game's renderer, the player shell, and the replay itself as JSON in a
`<script type="application/json" id="replay-data">` tag. Opened from `file://` it fetches nothing
and needs no server, so a replay can be shared as one file.

The viewer's scripts are ES modules importing each other by relative path, and a browser loads no
module from `file://`. So they become one inline module: the registry at the top level (what the
others import from it is then in scope), the renderer and the shell each in a block of their own
(their private names cannot collide), with their `import` lines and `export` keywords removed. The
shell finds the embedded replay and loads it; the renderer is already registered, so it imports
nothing.
"""

from __future__ import annotations

import re
from pathlib import Path

from botarena.core.replay import Replay
from botarena.server.viewer import web_root

STYLESHEET_TAG = '<link rel="stylesheet" href="style.css">'
SCRIPT_TAG = '<script type="module" src="player.js"></script>'
GAME_ID = re.compile(r"[a-z][a-z0-9_]*\Z")
# The viewer's modules use single-line imports and plain `export` declarations; anything else
# left at the start of a line after the rewrite means a module this inliner does not understand.
IMPORT_LINE = re.compile(r'^import\s*\{[^}]*\}\s*from\s*"[^"]+";[ \t]*$\n?', re.MULTILINE)
EXPORT_KEYWORD = re.compile(r"^export\s+(?=(?:async\s+)?function\b|const\b|let\b|class\b)", re.MULTILINE)
LEFTOVER = re.compile(r"^(?:import|export)\b", re.MULTILINE)


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


def replay_json_for_html(replay: Replay) -> str:
    """The replay as JSON text safe inside a `<script>` element: every `<` is written `\\u003c`
    (JSON has `<` only inside strings, where the escape means the same), so no `</script>` or
    `<!--` in a bot's name or log can end the element."""
    return replay.dumps().decode("utf-8").replace("<", "\\u003c")


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
        f'<script type="application/json" id="replay-data">{replay_json_for_html(replay)}</script>\n'
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
