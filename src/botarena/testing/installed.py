"""A game package's source tree, made visible to `importlib.metadata` exactly as `pip install` would.

A game in its own package registers by a `botarena.games` entry point (docs/adding-a-game.md). Its
author, and botarena's own suite (`BOTARENA_EXTRA_GAMES`, tests/conftest.py), test it without a
throwaway virtualenv: `install_for_tests(project, into)` writes the `<name>-<version>.dist-info`
directory pip would write (METADATA and entry_points.txt, from the project's pyproject.toml) into
`into`, and puts `into` and the project's sources on `sys.path`. The registry then finds the game by
its entry point, the one mechanism an installed package uses.
"""

from __future__ import annotations

import importlib
import re
import sys
import tomllib
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from botarena.core import registry


@dataclass(frozen=True)
class TestInstall:
    """What `install_for_tests` put in place, so `uninstall` can take it away again."""

    __test__ = False  # not a pytest test class, despite its name

    dist_info: Path
    paths: tuple[str, ...]
    """The entries added to `sys.path` (the dist-info's folder, the package sources)."""
    entry_points: Mapping[str, Mapping[str, str]]
    """Group -> name -> target, as the project's pyproject.toml declares them."""


def _project(pyproject: Path) -> dict[str, Any]:
    project: dict[str, Any] = tomllib.loads(pyproject.read_text(encoding="utf-8"))["project"]
    for key in ("name", "version"):
        if key not in project:
            raise ValueError(f"{pyproject}: [project] has no {key!r} (pip needs it)")
    return project


def _entry_points_txt(groups: Mapping[str, Mapping[str, str]]) -> str:
    return "".join(
        f"[{group}]\n" + "".join(f"{name} = {target}\n" for name, target in points.items()) + "\n"
        for group, points in groups.items()
    )


def install_for_tests(project_dir: Path, into: Path) -> TestInstall:
    """Make the package at `project_dir` (a folder with pyproject.toml, its code in `src/` or at the
    top) importable and its entry points discoverable, with the dist-info written under `into`."""
    project = _project(project_dir / "pyproject.toml")
    groups: dict[str, dict[str, str]] = project.get("entry-points", {})
    dist_name = re.sub(r"[-_.]+", "_", project["name"]).lower()
    dist_info = into / f"{dist_name}-{project['version']}.dist-info"
    dist_info.mkdir(parents=True, exist_ok=True)
    metadata = f"Metadata-Version: 2.1\nName: {project['name']}\nVersion: {project['version']}\n"
    (dist_info / "METADATA").write_text(metadata, encoding="utf-8")
    (dist_info / "entry_points.txt").write_text(_entry_points_txt(groups), encoding="utf-8")
    sources = project_dir / "src" if (project_dir / "src").is_dir() else project_dir
    paths = (str(into), str(sources.resolve()))
    for path in paths:
        if path not in sys.path:
            sys.path.append(path)
    importlib.invalidate_caches()
    registry.refresh()
    return TestInstall(dist_info, paths, groups)


def uninstall(install: TestInstall) -> None:
    """Undo `install_for_tests`: its paths leave `sys.path` and its games leave the registry."""
    for path in install.paths:
        while path in sys.path:
            sys.path.remove(path)
    importlib.invalidate_caches()
    registry.refresh()


@contextmanager
def installed(project_dir: Path, into: Path) -> Iterator[TestInstall]:
    """`install_for_tests` for the length of a `with` block."""
    install = install_for_tests(project_dir, into)
    try:
        yield install
    finally:
        uninstall(install)
