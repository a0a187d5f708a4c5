"""node_bot's plumbing: finding node and the adapter, and clear errors (most tests need no real Node)."""

from __future__ import annotations

import importlib.resources
import os
from pathlib import Path

import pytest
from drones_js_helpers import needs_node

from botarena.bots import node as jsbot
from botarena.bots.node import (
    MIN_NODE,
    NodeUnavailableError,
    check_node,
    find_adapter,
    node_bot,
    node_command,
    node_version,
)

REPO = Path(__file__).resolve().parents[2]


def fake_node(folder: Path, version: str) -> Path:
    """An executable that answers `--version` like node would."""
    path = folder / "node"
    path.write_text(f"#!/bin/sh\necho {version}\n")
    path.chmod(0o755)
    return path


def test_find_adapter_in_the_source_checkout() -> None:
    assert find_adapter() == REPO / "kits" / "drones-js" / "adapter.mjs"


def test_find_adapter_in_an_installed_wheel(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # The wheel maps the top-level `kits` folder to `botarena/_kits` (pyproject force-include).
    package = tmp_path / "botarena"
    adapter = package / "_kits" / "drones-js" / "adapter.mjs"
    adapter.parent.mkdir(parents=True)
    adapter.write_text("// installed\n")
    monkeypatch.setattr(importlib.resources, "files", lambda name: package)
    assert find_adapter() == adapter


def test_find_adapter_missing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(importlib.resources, "files", lambda name: tmp_path)
    monkeypatch.setattr(jsbot, "__file__", str(tmp_path / "a" / "b" / "jsbot.py"))
    with pytest.raises(FileNotFoundError, match=r"adapter\.mjs"):
        find_adapter()


def test_node_missing_is_a_clear_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(jsbot.NODE_ENV, raising=False)
    monkeypatch.setenv("PATH", str(tmp_path))
    assert node_version() is None
    with pytest.raises(NodeUnavailableError, match=r"Node\.js 20\.19\.0 or newer .* `node` is not on PATH"):
        node_bot(REPO / "kits" / "drones-js" / "bots" / "zergy.js")
    monkeypatch.setenv(jsbot.NODE_ENV, str(tmp_path / "nowhere"))
    with pytest.raises(NodeUnavailableError, match=r"BOTARENA_NODE=.* is not an executable"):
        check_node()


@pytest.mark.parametrize("version", ["v18.20.4", "v20.18.3", "v20.0.0"])
def test_old_node_is_a_clear_error(tmp_path: Path, version: str) -> None:
    node = fake_node(tmp_path, version)
    assert node_version(str(node)) is not None
    assert node_version(str(node)) < MIN_NODE  # type: ignore[operator]
    with pytest.raises(NodeUnavailableError, match=f"Node.js {version[1:]} .* too old: .* 20.19.0 or newer"):
        node_bot("bot.js", node=str(node))


def test_unrunnable_node_is_a_clear_error(tmp_path: Path) -> None:
    node = fake_node(tmp_path, "not-a-version")
    assert node_version(str(node)) is None
    with pytest.raises(NodeUnavailableError, match="cannot run"):
        check_node(str(node))


def test_node_from_the_environment_variable(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    node = fake_node(tmp_path, "v22.3.1")
    monkeypatch.setenv(jsbot.NODE_ENV, str(node))
    assert node_version() == (22, 3, 1)
    assert check_node() == str(node)


def test_command_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    node = str(fake_node(tmp_path, "v20.19.0"))
    monkeypatch.chdir(tmp_path)
    argv = node_command("bots/x.js", node=node)
    assert argv == [node, "--max-old-space-size=1024", str(find_adapter()), str(tmp_path / "bots" / "x.js")]
    argv = node_command("x.js", node=node, heap_mb=None, node_flags=["--permission", "--allow-fs-read=*"])
    assert argv[1:3] == ["--permission", "--allow-fs-read=*"]
    assert os.path.isabs(argv[-1])


@needs_node
def test_node_bot_describes_itself() -> None:
    bot = node_bot(REPO / "kits" / "drones-js" / "bots" / "zergy.js")
    assert bot.describe()["kind"] == "node"
    assert bot.name == "zergy"
    assert node_bot("x.js", name="custom").name == "custom"
    assert node_version() is not None and node_version() >= MIN_NODE  # type: ignore[operator]
