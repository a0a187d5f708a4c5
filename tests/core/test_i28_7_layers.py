"""Issue 28 item 7: the layers below the server never import it (or the CLI above it).

Read from the source, not by importing: an import inside a function (how optional dependencies are
loaded) counts as much as one at the top of a module."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import botarena

PACKAGE = Path(botarena.__file__).parent
ABOVE_THE_SERVER = ("botarena.server", "botarena.cli", "botarena.commands", "botarena.arena")
BELOW_THE_SERVER = ("core", "games", "bots", "runner", "rl", "testing", "standalone.py")


def imported_modules(path: Path) -> set[str]:
    """Every absolute module name `path` imports, wherever in the file the import is."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
    return names


def sources(layer: str) -> list[Path]:
    root = PACKAGE / layer
    return [root] if root.is_file() else sorted(root.rglob("*.py"))


@pytest.mark.parametrize("layer", BELOW_THE_SERVER)
def test_i28_7_layer_below_the_server_never_imports_it(layer: str) -> None:
    files = sources(layer)
    assert files, f"no sources found for {layer}"
    wrong = {
        f"{path.relative_to(PACKAGE)}: {name}"
        for path in files
        for name in imported_modules(path)
        if name.startswith(ABOVE_THE_SERVER)
    }
    assert wrong == set(), f"{layer} imports a layer above it: {sorted(wrong)}"


def test_i28_7_rl_renders_through_the_standalone_page_below_the_server() -> None:
    envs = imported_modules(PACKAGE / "rl" / "envs.py")
    assert "botarena.standalone" in envs
    assert not any(name.startswith("botarena.server") for name in envs)
