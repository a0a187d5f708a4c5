"""Issue 28 item 3: the tournament layer knows no game; a game's own formats come in through its hooks.

(a) No module under `botarena/tournament/` names a game (its id, anywhere in the text: code, strings,
docstrings and comments alike) or the 2018 drones event, and none imports a game package.
(b) A toy game that declares a format of its own (`GameInfo.tournament_formats`) gets it scheduled,
played with its preset and config, and its standings on the leaderboard, with no edit to tournament/.
"""

from __future__ import annotations

import ast
import dataclasses
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest

import botarena.tournament
from botarena.bots.resolve import TRUSTED
from botarena.core import registry
from botarena.core.formats import FinishedMatch, RoundRobin
from botarena.core.game import GameInfo, TournamentFormat
from botarena.store import Store
from botarena.tournament.formats import FORMATS, FormatError, declared_format, make_format
from botarena.tournament.leaderboard import leaderboard
from botarena.tournament.service import (
    Entrant,
    TournamentPlan,
    create_tournament,
    run_tournament,
    tournament_board,
)

TOURNAMENT_DIR = Path(botarena.tournament.__file__).parent
SHIPPED_GAMES = ("drones", "devops", "datspulse", "craftingquest", "domains", "rps")
EVENT_WORDS = re.compile(r"2018|bravolt", re.IGNORECASE)


def _tournament_modules() -> list[Path]:
    modules = sorted(TOURNAMENT_DIR.rglob("*.py"))
    assert len(modules) > 5  # the scan reads the real package, not an empty folder
    return modules


def _game_word(ids: Sequence[str]) -> re.Pattern[str]:
    return re.compile(r"\b(" + "|".join(map(re.escape, ids)) + r")\b", re.IGNORECASE)


def test_i28_3_no_tournament_module_names_a_game_or_the_2018_event() -> None:
    ids = sorted({*SHIPPED_GAMES, *registry.game_ids()})  # a game added later is covered too
    word = _game_word(ids)
    found = []
    for path in _tournament_modules():
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
            for hit in (*word.findall(line), *EVENT_WORDS.findall(line)):
                found.append(f"{path.name}:{number}: {hit!r} in {line.strip()!r}")
    assert found == []


def test_i28_3_the_scan_would_see_a_game_name() -> None:
    # The patterns above, on the kinds of text they must catch (so a passing scan means something).
    word = _game_word(SHIPPED_GAMES)
    assert word.search('if format_name == "drones-2018":') and EVENT_WORDS.search("DRONES_2018_FORMAT")
    assert word.search("# a DatsPulse round") and EVENT_WORDS.search('preset = "bravolt2018"')
    assert not word.search("corpses and subdomains_x") and not word.search("the rpsx table")


def test_i28_3_no_tournament_module_imports_a_game_package() -> None:
    imported = []
    for path in _tournament_modules():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = (
                [alias.name for alias in node.names]
                if isinstance(node, ast.Import)
                else [node.module or ""]
                if isinstance(node, ast.ImportFrom)
                else []
            )
            imported += [f"{path.name}: {name}" for name in names if name.startswith("botarena.games")]
    assert imported == []


# -- (b) a toy game declares its own format ------------------------------------------------------------


class KingsOfTheHill(RoundRobin):
    """The toy event's schedule: the circle method, the earlier-registered entrant always in seat 0."""

    name = "toy-kings"
    options = frozenset()
    two_player_only = True

    def _orient(self, a: str, b: str) -> tuple[str, str]:
        return (a, b) if self.index[a] < self.index[b] else (b, a)


def kings_standings(
    entrants: Sequence[str],
    finished: Sequence[FinishedMatch],
    details: Mapping[str, Mapping[str, Any]] | None,
) -> dict[str, Any]:
    """The toy event's section: each entrant's first places, and how many result details it was given."""
    firsts = dict.fromkeys(entrants, 0)
    for match in finished:
        if match.ranks is not None:
            for name, rank in zip(match.seats, match.ranks, strict=True):
                firsts[name] += rank == 1
    return {"kings": firsts, "kings_details": len(details or {})}


TOY_FORMAT = TournamentFormat(
    format=KingsOfTheHill,
    preset="long",
    config={"rounds": 3},
    aliases=("kings",),
    standings=kings_standings,
)


def register_toy(monkeypatch: pytest.MonkeyPatch, *formats: TournamentFormat) -> GameInfo:
    """Rock-paper-scissors under another id, declaring `formats`, registered (`register_game`) for
    this test only: monkeypatch puts the registry's tables back afterwards."""
    monkeypatch.setattr(registry, "_loaded", dict(registry._loaded))
    monkeypatch.setattr(registry, "_registered", dict(registry._registered))
    info = dataclasses.replace(registry.get_game("rps"), id="toyevent", tournament_formats=formats)
    registry.register_game(info)
    return info


@pytest.fixture
def toy_game(monkeypatch: pytest.MonkeyPatch) -> GameInfo:
    """The toy game with `TOY_FORMAT`."""
    return register_toy(monkeypatch, TOY_FORMAT)


def test_i28_3_a_declared_format_is_found_by_name_and_alias_and_only_for_its_game(toy_game: GameInfo) -> None:
    assert FORMATS["toy-kings"] is KingsOfTheHill and "toy-kings" in set(FORMATS)
    assert declared_format("kings", toy_game.id) is TOY_FORMAT
    assert declared_format("toy-kings", "rps") is None  # another game's format is not rps's
    assert declared_format("round-robin", toy_game.id) is None  # generic names are never declared
    fmt = make_format("toy-kings", ["c", "a", "b"], seed=5, players=2, game=toy_game.id)
    assert all(fmt.index[spec.seats[0]] < fmt.index[spec.seats[1]] for spec in fmt.schedule([], {}))


def test_i28_3_a_toy_games_format_is_scheduled_played_and_on_the_leaderboard(
    toy_game: GameInfo, tmp_path: Path
) -> None:
    store = Store.open(f"sqlite:///{tmp_path / 'db.sqlite'}", replay_dir=tmp_path / "replays")
    try:
        plan = TournamentPlan(
            name="kings",
            game=toy_game.id,
            format="kings",  # the alias
            entrants=[Entrant(name, name) for name in ("rock", "cycler", "copycat")],
            seed=3,
        )
        tournament = create_tournament(store, plan, isolation=TRUSTED)
        assert (tournament.format, tournament.preset, tournament.config) == (
            "toy-kings",
            "long",
            {"rounds": 3},
        )
        assert run_tournament(store, tournament.id, isolation=TRUSTED).status == "finished"
        rows = store.list_matches(tournament.id)
        order = {"rock": 0, "cycler": 1, "copycat": 2}
        assert len(rows) == 3 and all(row.status == "finished" for row in rows)
        assert all(order[row.seats[0]] < order[row.seats[1]] for row in rows)  # the toy's own seating
        finished = store.get_tournament(tournament.id)
        assert finished is not None
        board = tournament_board(store, finished)
    finally:
        store.close()
    firsts = {name: 0 for name in order}
    for row in rows:
        assert row.ranks is not None
        for name, rank in zip(row.seats, row.ranks, strict=True):
            firsts[name] += rank == 1
    assert board["kings"] == firsts and board["kings_details"] == 3  # the details were read for it
    assert {row["name"] for row in board["rows"]} == set(order)


def test_i28_3_a_declared_formats_sections_never_replace_the_leaderboards_own(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    hostile = TournamentFormat(
        format=KingsOfTheHill, standings=lambda entrants, finished, details: {"rows": []}
    )
    info = register_toy(monkeypatch, hostile)
    match = FinishedMatch("r1-m1", 1, ("a", "b"), (1, 2), (1.0, 0.0))
    with pytest.raises(ValueError, match="would replace the leaderboard's 'rows'"):
        leaderboard(["a", "b"], [match], format_name="toy-kings", game=info.id)
    plain = leaderboard(["a", "b"], [match], format_name="round-robin", game=info.id)
    assert set(plain) == {"rows", "pairs"}  # a generic format adds nothing


class KingsTwin(KingsOfTheHill):
    name = "toy-twin"


@pytest.mark.parametrize(
    ("formats", "taken"),
    [
        ((TOY_FORMAT, TournamentFormat(format=KingsOfTheHill)), "toy-kings"),  # a name twice
        ((TOY_FORMAT, TournamentFormat(format=KingsTwin, aliases=("kings",))), "kings"),  # an alias twice
        ((TournamentFormat(format=KingsTwin, aliases=("round-robin",)),), "round-robin"),  # a generic name
    ],
)
def test_i28_3_a_declared_name_or_alias_taken_twice_is_an_error(
    monkeypatch: pytest.MonkeyPatch, formats: tuple[TournamentFormat, ...], taken: str
) -> None:
    info = register_toy(monkeypatch, *formats)
    with pytest.raises(FormatError, match=f"game 'toyevent' declares format '{taken}', a name already taken"):
        make_format("toy-twin", ["a", "b"], seed=1, players=2, game=info.id)
