"""Issue 28, item 2: `cli.py` is a thin typer app, each command lives in its module of commands/, and
every command line of botarena is parsed by typer (no argparse, no hand-read sys.argv)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[2] / "src" / "botarena"
CLI_MAX_LINES = 200
FUNCTION_MAX_LINES = 60

RAW_ARGV_ALLOWED = {
    # the in-sandbox bot runner: it starts once per bot process, inside the seal, where every
    # millisecond of import counts and its one positional argument needs no parser
    "kit.py",
}


def _functions(path: Path) -> list[tuple[str, int]]:
    """(name, lines) of every function and method in `path`, nested ones included."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return [
        (node.name, (node.end_lineno or node.lineno) - node.lineno + 1)
        for node in ast.walk(tree)
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
    ]


def _command_files() -> list[Path]:
    return [SRC / "cli.py", *sorted((SRC / "commands").glob("*.py"))]


def test_i28_2_cli_py_is_thin() -> None:
    lines = (SRC / "cli.py").read_text(encoding="utf-8").count("\n")
    assert lines < CLI_MAX_LINES, f"cli.py has {lines} lines"
    names = {name for name, _ in _functions(SRC / "cli.py")}
    assert names == {"_user_errors", "_one_line", "missing_module_message", "main"}


@pytest.mark.parametrize("path", _command_files(), ids=lambda path: path.name)
def test_i28_2_no_command_function_is_over_60_lines(path: Path) -> None:
    long = [(name, n) for name, n in _functions(path) if n > FUNCTION_MAX_LINES]
    assert long == [], f"{path.name}: functions over {FUNCTION_MAX_LINES} lines: {long}"


def _parses_argv_by_hand(path: Path) -> list[str]:
    """What in `path` parses a command line outside typer: an argparse import, a read of sys.argv."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import) and any(alias.name == "argparse" for alias in node.names):
            found.append(f"line {node.lineno}: import argparse")
        elif isinstance(node, ast.ImportFrom) and node.module == "argparse":
            found.append(f"line {node.lineno}: from argparse import")
        elif isinstance(node, ast.Attribute) and node.attr == "argv" and _is_sys(node.value):
            found.append(f"line {node.lineno}: sys.argv")
    return found


def _is_sys(node: ast.expr) -> bool:
    return isinstance(node, ast.Name) and node.id == "sys"


def test_i28_2_no_argparse_or_raw_argv_in_src() -> None:
    offenders = {
        str(path.relative_to(SRC)): found
        for path in sorted(SRC.rglob("*.py"))
        if str(path.relative_to(SRC)) not in RAW_ARGV_ALLOWED and (found := _parses_argv_by_hand(path))
    }
    assert offenders == {}


def test_i28_2_the_layout_checks_see_what_they_look_for(tmp_path: Path) -> None:
    """The AST probes above find what they are meant to (so a pass is no blind spot)."""
    sample = tmp_path / "sample.py"
    body = "\n".join(f"    x = {i}" for i in range(61))
    sample.write_text(f"import argparse\nimport sys\n\ndef long():\n{body}\n\nARGS = sys.argv[1:]\n")
    assert _functions(sample) == [("long", 62)]
    assert _parses_argv_by_hand(sample) == ["line 1: import argparse", "line 67: sys.argv"]
