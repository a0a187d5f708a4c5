"""Every Markdown file of the repository links only to what the repository holds (issue 15, item 2).

A participant has a clone and nothing else: a relative link or image must name a file (or folder)
of the checkout, a `#anchor` into a Markdown file must name one of its headings (GitHub's slug
rules), and no page may send the reader to the organisers' private tree (`shared/specs`,
`../shared`, a `specs/<game>.md` that the repository does not have)."""

from __future__ import annotations

import os
import re
import unicodedata
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from urllib.parse import unquote

import pytest

ROOT = Path(__file__).resolve().parents[2]
SKIPPED_DIRS = {".git", "node_modules", ".venv", "venv", "var", "build", "dist", ".mypy_cache", ".ruff_cache"}
GAMES = ("drones", "domains", "devops", "datspulse", "craftingquest")

FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
INLINE_CODE = re.compile(r"(`+)(?:(?!\1).)+?\1")
# [text](target "title") and ![alt](target): the target up to whitespace or the closing parenthesis;
# a target in angle brackets may hold spaces.
INLINE_LINK = re.compile(r"!?\[(?:[^\[\]]|\[[^\]]*\])*\]\(\s*(<[^>]*>|[^\s)]+)(?:\s+\"[^\"]*\")?\s*\)")
REFERENCE_DEF = re.compile(r"^ {0,3}\[[^\]]+\]:\s*(<[^>]*>|\S+)")
HTML_TARGET = re.compile(r"<(?:a|img)\b[^>]*?\b(?:href|src)=\"([^\"]+)\"", re.IGNORECASE)
HEADING = re.compile(r"^ {0,3}(#{1,6})\s+(.*?)\s*#*\s*$")
EXTERNAL = re.compile(r"^(?:[a-z][a-z0-9+.-]*:|//)", re.IGNORECASE)
# Paths that exist only on the organisers' side, never in a clone.
OUTSIDE = re.compile(
    r"shared/(?:specs|seeds|fixtures)|\.\./shared\b|(?<![\w./-])specs/(?:" + "|".join(GAMES) + r"|<game>)\.md"
)


@dataclass(frozen=True)
class Link:
    """One link target found in a Markdown file, with its line number (1-based)."""

    source: Path
    line: int
    target: str


def markdown_files() -> list[Path]:
    """Every Markdown file of the checkout, outside dependency and build folders (pruned, not walked)."""
    found = []
    for folder, subfolders, files in os.walk(ROOT):
        subfolders[:] = [name for name in subfolders if name not in SKIPPED_DIRS]
        found += [Path(folder) / name for name in files if name.endswith(".md")]
    return sorted(found)


def prose_lines(text: str) -> Iterator[tuple[int, str]]:
    """The lines outside fenced code blocks, with inline code spans blanked (links there are text)."""
    fence: str | None = None
    for number, line in enumerate(text.splitlines(), start=1):
        match = FENCE.match(line)
        if fence is None and match:
            fence = match.group(1)[0] * len(match.group(1))
            continue
        if fence is not None:
            if match and match.group(1).startswith(fence):
                fence = None
            continue
        yield number, INLINE_CODE.sub(lambda m: " " * len(m.group(0)), line)


def links(path: Path) -> Iterator[Link]:
    """The link and image targets of one Markdown file (inline, reference definitions, HTML)."""
    for number, line in prose_lines(path.read_text(encoding="utf-8")):
        targets = [m.group(1) for m in INLINE_LINK.finditer(line)]
        targets += [m.group(1) for m in REFERENCE_DEF.finditer(line)]
        targets += [m.group(1) for m in HTML_TARGET.finditer(line)]
        for target in targets:
            yield Link(path, number, target.strip("<>"))


def github_slug(heading: str) -> str:
    """The anchor GitHub gives a heading: markup dropped, lower case, punctuation removed, spaces to '-'."""
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", heading)  # a link in a heading keeps its text
    text = re.sub(r"<[^>]+>", "", text).replace("`", "")
    text = text.lower()
    kept = []
    for char in text:
        category = unicodedata.category(char)
        if char in " -_" or category[0] in "LN" or category == "Mn":
            kept.append(char)
    return "".join(kept).replace(" ", "-")


@cache
def anchors(path: Path) -> frozenset[str]:
    """The anchors of a Markdown file's headings, numbered as GitHub numbers repeated slugs."""
    seen: dict[str, int] = {}
    result = set()
    for _, line in prose_lines(path.read_text(encoding="utf-8").replace("`", "\x00")):
        match = HEADING.match(line.replace("\x00", "`"))
        if not match:
            continue
        slug = github_slug(match.group(2))
        count = seen.get(slug, 0)
        seen[slug] = count + 1
        result.add(slug if count == 0 else f"{slug}-{count}")
    return frozenset(result)


def broken(link: Link) -> str | None:
    """Why a link does not resolve inside the repository, or None when it does."""
    target = link.target
    if EXTERNAL.match(target):
        return None
    file_part, _, anchor = target.partition("#")
    resolved = (link.source.parent / unquote(file_part)).resolve() if file_part else link.source
    if not resolved.is_relative_to(ROOT):
        return "points outside the repository"
    if not resolved.exists():
        return "no such file"
    in_markdown = resolved.suffix == ".md" and resolved.is_file()
    if anchor and in_markdown and unquote(anchor).lower() not in anchors(resolved):
        return f"no heading with anchor #{anchor} in {resolved.relative_to(ROOT)}"
    return None


def _where(path: Path, line: int) -> str:
    return f"{path.relative_to(ROOT)}:{line}"


def test_the_markdown_files_are_found() -> None:
    names = {str(path.relative_to(ROOT)) for path in markdown_files()}
    assert "README.md" in names
    assert "docs/protocol.md" in names
    assert not any("node_modules" in name for name in names)


def test_every_relative_link_and_image_resolves_inside_the_repository() -> None:
    problems = []
    for path in markdown_files():
        for link in links(path):
            reason = broken(link)
            if reason:
                problems.append(f"{_where(path, link.line)}: ({link.target}) {reason}")
    assert not problems, "\n".join(problems)


def test_no_page_sends_the_reader_outside_the_repository() -> None:
    problems = []
    for path in markdown_files():
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
            for match in OUTSIDE.finditer(line):
                problems.append(f"{_where(path, number)}: mentions {match.group(0)!r}")
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("game", GAMES)
def test_every_game_has_a_rules_page_listed_in_the_readme_section_the_rules(game: str) -> None:
    page = ROOT / "docs" / "games" / f"{game}.md"
    assert page.is_file(), f"docs/games/{game}.md is missing"
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "\n## The rules\n" in readme, "README.md has no section 'The rules'"
    section = readme.split("\n## The rules\n", 1)[1].split("\n## ", 1)[0]
    assert f"](docs/games/{game}.md)" in section


@pytest.mark.parametrize(
    ("heading", "slug"),
    [
        ("The rules", "the-rules"),
        ("2. Messages", "2-messages"),
        ("`start`: the setup payload", "start-the-setup-payload"),
        ("Limits, statuses & penalties (DR-12)", "limits-statuses--penalties-dr-12"),
        ("Crafting Quest 2 — a turn", "crafting-quest-2--a-turn"),
        ("See [the protocol](protocol.md)", "see-the-protocol"),
        ("snake_case keys", "snake_case-keys"),
    ],
)
def test_slugs_follow_github(heading: str, slug: str) -> None:
    assert github_slug(heading) == slug


def test_a_checker_that_finds_nothing_would_be_caught(tmp_path: Path) -> None:
    """The checker itself: a missing file, a missing anchor and an outside path are all reported."""
    page = ROOT / "docs" / "protocol.md"
    assert broken(Link(page, 1, "no-such-file.md")) == "no such file"
    assert broken(Link(page, 1, "../../outside.md")) == "points outside the repository"
    assert broken(Link(page, 1, "#no-such-heading")) is not None
    assert broken(Link(page, 1, "#1-framing")) is None
    assert broken(Link(page, 1, "https://example.org/x")) is None
    assert OUTSIDE.search("the rules are in `shared/specs/devops.md`")
    assert OUTSIDE.search("see specs/drones.md, section 4")
    assert not OUTSIDE.search("see docs/games/drones.md")
    sample = tmp_path / "x.md"
    sample.write_text("```\n[a](nowhere.md)\n```\nand `[b](nowhere.md)` and [c](here.md)\n", encoding="utf-8")
    assert [link.target for link in links(sample)] == ["here.md"]
