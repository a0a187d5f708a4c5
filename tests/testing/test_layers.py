"""`botarena.testing` imports the runner, so product code never imports it (docs/architecture.md)."""

from __future__ import annotations

import re
from pathlib import Path

import botarena

SRC = Path(botarena.__file__).parent
IMPORTS_TESTING = re.compile(r"^\s*(from|import)\s+botarena\.testing\b", re.MULTILINE)


def test_no_product_module_imports_botarena_testing() -> None:
    importers = [
        str(path.relative_to(SRC))
        for path in SRC.rglob("*.py")
        if path.parent.name != "testing" and IMPORTS_TESTING.search(path.read_text(encoding="utf-8"))
    ]
    assert importers == []
    assert (SRC / "testing" / "__init__.py").exists()


def _botarena_imports(path: Path) -> list[str]:
    """Every botarena module a file imports, at any depth (deferred imports included)."""
    import ast

    found: list[str] = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("botarena"):
            found.append(node.module)
        elif isinstance(node, ast.Import):
            found += [alias.name for alias in node.names if alias.name.startswith("botarena")]
    return found


def test_game_packages_import_only_core_and_themselves() -> None:
    """docs/architecture.md: a game package imports botarena.core and its own package only; web
    routes, services, HTTP clients and kit compilers live in the layers above."""
    wrong = []
    for package in sorted(p for p in (SRC / "games").iterdir() if (p / "__init__.py").exists()):
        allowed = ("botarena.core", f"botarena.games.{package.name}")
        for path in package.rglob("*.py"):
            wrong += [
                f"{path.relative_to(SRC)}: {module}"
                for module in _botarena_imports(path)
                if not module.startswith(allowed)
            ]
    assert wrong == []


def test_game_packages_open_no_socket_thread_or_server() -> None:
    """No game package reaches the network, starts threads or serves HTTP (docs/architecture.md)."""
    forbidden = re.compile(
        r"^\s*(import|from)\s+(socket|threading|asyncio|aiohttp|httpx|fastapi|uvicorn|subprocess)\b", re.M
    )
    offenders = [
        str(path.relative_to(SRC))
        for path in (SRC / "games").rglob("*.py")
        if forbidden.search(path.read_text())
    ]
    assert offenders == []
