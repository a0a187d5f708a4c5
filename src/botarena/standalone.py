"""One self-contained HTML page that plays one replay: `botarena view FILE --html out.html`.

It sits below every layer that shows a replay (the server's viewer, the RL envs' `render()`, the
notebook, the CLI) and imports only core: packing the static viewer (`botarena/web`) with a replay
needs no web server, so the RL layer renders without depending on the server layer (issue 28 item 7).

The page is the viewer (index.html) with everything it loads inside it: the stylesheet, the renderer
registry, the game's renderer, the player shell and the replay. Opened from `file://` it fetches
nothing and needs no server, so a replay can be shared as one file.

Each of the three (the replay's JSON, the stylesheet, the scripts) is gzip-compressed and written in
base64 in a `<script type="application/gzip" data-encoding="base64">` element of its own, and a small
inline loader expands the style and the scripts with the browser's `DecompressionStream("gzip")`; the
shell expands the replay the same way (issue 26 item 5: with the replay embedded as plain JSON a
2,400-turn Devops game made a 159 MB page; packed, a page is about 4/3 of its .json.gz file plus some
30 KB of viewer). Base64 has no `<`, `&` or quote: nothing in a bot's name or log can end an element
early, and a notebook's `srcdoc` attribute needs no escaping of the payloads.

The viewer's scripts are ES modules importing each other by relative path, and a browser loads no
module from `file://`. So they become one module, run by the loader as an inline script: the registry
at the top level (what the others import from it is then in scope), the renderer and the shell each
in a block of their own (their private names cannot collide), with their `import` lines and `export`
keywords removed. The shell finds the embedded replay and loads it; the renderer is already
registered, so it imports nothing.
"""

from __future__ import annotations

import base64
import binascii
import gzip
import re
from importlib.resources import files
from pathlib import Path

from botarena.core.replay import Replay, ReplayError, parse_replay

STYLESHEET_TAG = '<link rel="stylesheet" href="style.css">'
SCRIPT_TAG = '<script type="module" src="player.js"></script>'
GAME_ID = re.compile(r"[a-z][a-z0-9_]*\Z")
# The viewer's modules use single-line imports and plain `export` declarations; anything else
# left at the start of a line after the rewrite means a module this inliner does not understand.
IMPORT_LINE = re.compile(r'^import\s*\{[^}]*\}\s*from\s*"[^"]+";[ \t]*$\n?', re.MULTILINE)
EXPORT_KEYWORD = re.compile(r"^export\s+(?=(?:async\s+)?function\b|const\b|let\b|class\b)", re.MULTILINE)
LEFTOVER = re.compile(r"^(?:import|export)\b", re.MULTILINE)
DATA_ID = "replay-data"  # player.js reads the replay from the element of this id
CODE_ID = "viewer-code"
STYLE_ID = "viewer-style"
DATA_OPEN = f'<script type="application/gzip" data-encoding="base64" id="{DATA_ID}">'
# Runs the packed style and scripts. It is itself plain (something must be), and says in the page
# (and to the test hook) why the viewer cannot start where the browser lacks DecompressionStream.
LOADER = f"""<script type="module">
async function unpack(id) {{
  const binary = atob(document.getElementById(id).textContent);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i += 1) bytes[i] = binary.charCodeAt(i);
  const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"));
  return new Response(stream).text();
}}
try {{
  const style = document.createElement("style");
  style.textContent = await unpack("{STYLE_ID}");
  document.head.append(style);
  const code = document.createElement("script");
  code.type = "module";
  code.textContent = await unpack("{CODE_ID}");
  document.head.append(code);
}} catch (err) {{
  const why = err.message || err;
  const message = `this page cannot start its viewer: ${{why}} (it needs DecompressionStream)`;
  window.__botarena = {{ ready: false, error: message }};
  document.body.prepend(Object.assign(document.createElement("p"), {{ textContent: message }}));
}}
  </script>"""
# Level 6, as replay files are written: level 9 takes twice as long on a long game for about 1%.
GZIP_LEVEL = 6


class StandaloneError(ValueError):
    """The viewer's files cannot be inlined (a missing file, or a module shape it cannot rewrite)."""


def web_root() -> Path:
    """The folder holding the static viewer (index.html, player.js, renderers/)."""
    return Path(str(files("botarena") / "web"))


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


def _packed(element_id: str, data: bytes) -> str:
    """`data` gzip-compressed in base64, in the page element the loader or the shell expands.
    `mtime=0`: the same replay makes the same page."""
    text = base64.b64encode(gzip.compress(data, compresslevel=GZIP_LEVEL, mtime=0)).decode("ascii")
    return f'<script type="application/gzip" data-encoding="base64" id="{element_id}">{text}</script>'


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
    blocks = [_inline_module(parts[0])] + ["{\n" + _inline_module(name) + "\n}" for name in parts[1:]]
    packed = [
        _packed(DATA_ID, replay.dumps()),
        _packed(STYLE_ID, _read("style.css").encode("utf-8")),
        _packed(CODE_ID, "\n".join(blocks).encode("utf-8")),
        LOADER,
    ]
    # str.replace with a function-free replacement: the inserted text is taken literally
    return page.replace(STYLESHEET_TAG, "").replace(SCRIPT_TAG, "\n  ".join(packed))


def write_standalone_html(replay: Replay, path: str | Path) -> Path:
    """Write the page for `replay` to `path` (atomically: a temporary file, then a rename)."""
    target = Path(path)
    text = standalone_html(replay)
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = target.with_name(target.name + ".tmp")
    tmp.write_text(text, encoding="utf-8")
    tmp.replace(target)
    return target
