"""Every code example of README.md and docs/ runs (issue 26, item 4; docs/contributing-docs.md).

A fenced block's info string says what it is: ```` ```sh runnable ```` runs, ```` ```python runnable
file=bot.py ```` is saved as that file for the page's later blocks, ```` ```sh runnable background
ready=8081 ```` is a service started in the background (waited for until port 8081 accepts) for the
page's later blocks, and ```` ```sh skip: REASON ```` is not run, for the reason given. Every python
and shell block carries one of them, every fenced block names its language (``text`` for diagrams
and output), and no example is an indented code block, so no new example can slip past unchecked.

Each page runs in a scratch folder of its own (a copy of the clone's `examples/` and `kits/`, which
the examples name by relative path) through tests/docs/run_examples.py, in one process: python
blocks with this interpreter in one namespace, shell blocks with `bash -euo pipefail` and a
`botarena` (and `python`, `python3`) on PATH that run this checkout."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import pytest
from markdown_it import MarkdownIt

ROOT = Path(__file__).resolve().parents[2]
PAGES = sorted([ROOT / "README.md", *(ROOT / "docs").glob("*.md"), *(ROOT / "docs" / "games").glob("*.md")])
MARKED_LANGUAGES = frozenset({"python", "py", "sh", "bash", "shell", "console"})
"""The languages whose blocks must say whether they run."""
COPIED = ("examples", "kits")
"""The clone's folders the examples name by relative path, copied into every page's scratch folder."""
FIXTURES: dict[str, dict[str, Path | str]] = {
    # the README's command tour plays "my_bot.py", the reader's own drones bot (the SDK's example),
    # and reads config overrides from "match.json", the reader's own (its comment shows one)
    "README.md": {"my_bot.py": ROOT / "examples" / "drones" / "my_bot.py", "match.json": '{"rounds": 5}\n'},
}
"""Files a page's examples take for granted (the reader's own bot), put in its scratch folder."""
PAGE_TIMEOUT_S = 600
GUIDE = "docs/contributing-docs.md"


@dataclass(frozen=True)
class Block:
    """One fenced code block of a page and what its info string marks it as."""

    page: str
    line: int
    language: str
    kind: str | None
    """run, file, background, skip, or None (unmarked)."""
    code: str
    file: str | None = None
    ready: int | None = None
    reason: str | None = None

    def as_job(self) -> dict[str, Any]:
        return asdict(self)


def parse_info(info: str) -> tuple[str, dict[str, Any]]:
    """The language and the marker of a fence's info string ('sh runnable background ready=8081')."""
    language, _, rest = info.strip().partition(" ")
    rest = rest.strip()
    if rest.startswith("skip:"):
        return language, {"kind": "skip", "reason": rest[len("skip:") :].strip()}
    if rest == "skip":
        return language, {"kind": "skip", "reason": ""}
    words = rest.split()
    if "runnable" not in words:
        return language, {"kind": None}
    marker: dict[str, Any] = {"kind": "run"}
    for word in words:
        if word.startswith("file="):
            marker.update(kind="file", file=word[len("file=") :])
        elif word == "background":
            marker["kind"] = "background"
        elif word.startswith("ready="):
            marker["ready"] = int(word[len("ready=") :])
    return language, marker


def page_tokens(path: Path) -> list[Any]:
    return MarkdownIt("commonmark").parse(path.read_text(encoding="utf-8"))


def blocks(path: Path) -> list[Block]:
    """The fenced code blocks of a page, in order."""
    name = str(path.relative_to(ROOT))
    found = []
    for token in page_tokens(path):
        if token.type != "fence":
            continue
        language, marker = parse_info(token.info)
        found.append(Block(name, token.map[0] + 1, language, code=token.content, **marker))
    return found


def marking_problems(path: Path) -> list[str]:
    """What keeps a page's examples from being checked: unmarked, unnamed, indented, unexplained."""
    name = str(path.relative_to(ROOT))
    problems = []
    for token in page_tokens(path):
        if token.type == "code_block":
            problems.append(f"{name}:{token.map[0] + 1}: an indented code block: fence it and mark it")
    for block in blocks(path):
        at = f"{block.page}:{block.line}"
        if not block.language:
            problems.append(
                f"{at}: a fenced block without a language (text for diagrams and output; {GUIDE})"
            )
        elif block.language in MARKED_LANGUAGES and block.kind is None:
            problems.append(
                f"{at}: a {block.language} block marked neither runnable nor skip: REASON ({GUIDE})"
            )
        if block.kind == "skip" and not block.reason:
            problems.append(f"{at}: skip without a reason (skip: what it needs that CI has not)")
        if block.kind == "background" and block.language not in ("sh", "bash", "shell"):
            problems.append(f"{at}: only shell blocks run in the background")
        if block.kind == "file" and (not block.file or "/" in block.file):
            problems.append(f"{at}: file= names a file of the page's scratch folder")
    return problems


def test_every_example_is_marked_runnable_or_skipped_with_a_reason() -> None:
    problems = [problem for page in PAGES for problem in marking_problems(page)]
    assert not problems, "\n".join(problems)


def test_the_marking_check_reports_what_would_slip(tmp_path: Path) -> None:
    """The checker itself: each kind of unchecked example is reported, a marked one is not."""
    page = ROOT / "docs" / "_probe_.md"
    text = (
        "```sh\nbotarena games\n```\n\n"  # unmarked
        "```python skip:\nx = 1\n```\n\n"  # skip without a reason
        "```\nbotarena games\n```\n\n"  # no language
        "para\n\n    botarena games\n\n"  # indented
        "```sh runnable\nbotarena games\n```\n\n"  # fine
        "```python skip: needs a GPU\nx = 1\n```\n"  # fine
    )
    try:
        page.write_text(text, encoding="utf-8")
        problems = marking_problems(page)
    finally:
        page.unlink()
    assert len(problems) == 4, problems
    assert [p.split(":")[1] for p in problems] == ["15", "1", "5", "9"], problems
    assert parse_info("sh runnable background ready=8081") == ("sh", {"kind": "background", "ready": 8081})
    assert parse_info("python runnable file=bot.py") == ("python", {"kind": "file", "file": "bot.py"})


def _shims(folder: Path) -> Path:
    """A bin folder whose `botarena`, `python` and `python3` run this checkout with this interpreter."""
    folder.mkdir()
    commands = {
        "botarena": f'exec "{sys.executable}" -m botarena.cli "$@"\n',
        "python": None,
        "python3": None,
    }
    for name, body in commands.items():
        shim = folder / name
        shim.write_text("#!/bin/sh\n" + (body or f'exec "{sys.executable}" "$@"\n'), encoding="utf-8")
        shim.chmod(0o755)
    return folder


def _scratch(tmp_path: Path, page: str) -> Path:
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    for name in COPIED:
        shutil.copytree(
            ROOT / name, scratch / name, ignore=shutil.ignore_patterns("node_modules", "__pycache__")
        )
    for name, source in FIXTURES.get(page, {}).items():
        if isinstance(source, Path):
            shutil.copyfile(source, scratch / name)
        else:
            (scratch / name).write_text(source, encoding="utf-8")
    return scratch


def _environment(tmp_path: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("BOTARENA_") and k != "VIRTUAL_ENV"}
    env["PYTHONPATH"] = str(ROOT / "src")
    env["PATH"] = os.pathsep.join([str(_shims(tmp_path / "bin")), env.get("PATH", "")])
    env["BOTARENA_CACHE_DIR"] = str(tmp_path / "cache")  # never the reader's (or CI's) home
    env["HOME"] = str(tmp_path / "home")
    env["MPLBACKEND"] = "Agg"
    return env


RUN_PAGES = [page for page in PAGES if any(b.kind in ("run", "background") for b in blocks(page))]


@pytest.mark.parametrize("page", RUN_PAGES, ids=[str(p.relative_to(ROOT)) for p in RUN_PAGES])
def test_the_examples_of_a_page_run(page: Path, tmp_path: Path) -> None:
    name = str(page.relative_to(ROOT))
    jobs = [block.as_job() for block in blocks(page) if block.kind in ("run", "file", "background")]
    scratch = _scratch(tmp_path, name)
    (tmp_path / "home").mkdir()
    jobs_file = tmp_path / "jobs.json"
    jobs_file.write_text(json.dumps(jobs), encoding="utf-8")
    done = subprocess.run(
        [sys.executable, str(Path(__file__).with_name("run_examples.py")), str(jobs_file)],
        cwd=scratch,
        env=_environment(tmp_path),
        capture_output=True,
        text=True,
        timeout=PAGE_TIMEOUT_S,
    )
    assert done.returncode == 0, f"{done.stderr[-6000:]}\n--- the page's output so far\n{done.stdout[-3000:]}"
