"""`botarena.play` (issue 17, deliverable 5): one match from Python, its result, its replay, and the
inline viewer a notebook shows (`_repr_html_`: the `view --html` page in an iframe's srcdoc)."""

from __future__ import annotations

import re
import subprocess
import sys
import textwrap
import types
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest

import botarena
from botarena.bots.inprocess import PythonBot
from botarena.core.game import GameInfo, MatchResult
from botarena.core.registry import all_games
from botarena.core.replay import Replay, read_replay
from botarena.notebook import PlayedMatch, PlayError
from botarena.runner.verify import verify_replay
from botarena.standalone import standalone_html
from botarena.testing.play import blanked

GAMES = all_games()


def lineup(game: GameInfo) -> list[str]:
    """Two different starter bots (or as many as the game's smallest match seats)."""
    names = sorted(game.starter_bots)
    seats = max(game.min_players, 2)
    return [names[seat % len(names)] for seat in range(seats)]


class IframeFinder(HTMLParser):
    """The attributes of every <iframe> of a piece of HTML, decoded as a browser decodes them."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.iframes: list[dict[str, str | None]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "iframe":
            self.iframes.append(dict(attrs))


def iframes(markup: str) -> list[dict[str, str | None]]:
    finder = IframeFinder()
    finder.feed(markup)
    finder.close()
    return finder.iframes


# -- every game ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("game", GAMES, ids=lambda game: game.id)
def test_play_every_game_with_its_starters(game: GameInfo) -> None:
    names = lineup(game)
    match = botarena.play(game.id, names, seed=11, config=dict(game.test_overrides))
    assert isinstance(match, PlayedMatch)
    assert (match.game, match.seed) == (game.id, 11)
    assert isinstance(match.result, MatchResult) and isinstance(match.replay, Replay)
    assert len(match.ranks) == len(match.scores) == len(names) and min(match.ranks) == 1
    assert match.players == names
    replay = match.replay
    assert (replay.game, replay.seed, replay.preset) == (game.id, 11, "default")
    assert replay.result == match.result.to_json()
    for key, value in game.test_overrides.items():
        assert replay.config[key] == value, f"config key {key} was not played"
    report = verify_replay(replay)
    assert report.identical and report.steps_checked == len(replay.steps), report

    shown = repr(match)
    assert "\n" not in shown and shown.startswith(f"<PlayedMatch {game.id} seed=11, ")
    assert all(f"{name} rank" in shown for name in names)

    frames = iframes(match._repr_html_())
    assert len(frames) == 1, "_repr_html_ is not one iframe"
    assert frames[0]["srcdoc"] == standalone_html(replay), "the srcdoc is not the view --html page"
    assert frames[0]["width"] == "100%" and int(frames[0]["height"] or 0) >= 400


def test_the_same_seed_plays_the_same_match_and_no_seed_draws_one() -> None:
    one = botarena.play("rps", ["random", "cycler"], seed=5)
    two = botarena.play("rps", ["random", "cycler"], seed=5)
    assert blanked(one.replay) == blanked(two.replay)
    drawn = botarena.play("rps", ["random", "cycler"])
    assert 0 <= drawn.seed < 2**32 and drawn.replay.seed == drawn.seed


def test_preset_and_config_object() -> None:
    match = botarena.play("rps", ["rock", "cycler"], seed=1, preset="long")
    assert len(match.replay.steps) == 99 and match.replay.preset == "long"
    game = botarena.notebook._game("rps")  # a config built elsewhere is taken as it is
    match = botarena.play("rps", ["rock", "cycler"], seed=1, config=game.config("default", {"rounds": 4}))
    assert len(match.replay.steps) == 4


def test_markup_in_a_name_stays_inside_the_srcdoc() -> None:
    class Sneaky:
        def act(self, observation: dict[str, Any]) -> dict[str, str]:
            return {"move": "paper"}

    bot = PythonBot(Sneaky, name='"></iframe><script>alert(1)</script>&amp;\r')
    match = botarena.play("rps", [bot, "rock"], seed=2, config={"rounds": 2})
    markup = match._repr_html_()
    assert markup.count("<iframe") == 1 and markup.endswith("></iframe>")
    assert "<script" not in markup and "\r" not in markup
    (frame,) = iframes(markup)
    assert frame["srcdoc"] == standalone_html(match.replay)


# -- every kind of bot --------------------------------------------------------------------------------


class Paper:
    def act(self, observation: dict[str, Any]) -> dict[str, str]:
        return {"move": "paper"}


def scissors(observation: dict[str, Any]) -> dict[str, str]:
    return {"move": "scissors"}


BOT_FILE = """
def act(observation):
    return {"move": "scissors"}
"""


def moves(match: PlayedMatch, seat: int) -> set[str]:
    return {step["record"]["moves"][seat] for step in match.replay.steps}


def test_bots_of_every_kind(tmp_path: Path) -> None:
    file = tmp_path / "snip.py"
    file.write_text(BOT_FILE, encoding="utf-8")
    module = types.ModuleType("paper_module")
    module.act = lambda observation: {"move": "paper"}  # type: ignore[attr-defined]
    kinds: list[tuple[Any, str, str]] = [
        ("rock", "rock", "rock"),  # a starter's name
        (str(file), "snip", "scissors"),  # a .py file
        (file, "snip", "scissors"),  # a path object
        (f"{sys.executable} -m botarena.kit {file}", "", "scissors"),  # a command line (subprocess)
        (Paper, "Paper", "paper"),  # a bot class
        (Paper(), "Paper", "paper"),  # a bot object
        (lambda: Paper(), "<lambda>", "paper"),  # a factory
        (scissors, "scissors", "scissors"),  # an act(observation) function
        (module, "paper_module", "paper"),  # a module with act()
        (PythonBot(Paper, name="mine"), "mine", "paper"),  # a Bot
    ]
    for bot, name, move in kinds:
        match = botarena.play("rps", [bot, "rock"], seed=3, config={"rounds": 3})
        assert moves(match, 0) == {move}, f"{bot!r}: played {moves(match, 0)}"
        assert moves(match, 1) == {"rock"}
        if name:
            assert match.players[0] == name
        assert set(match.replay.statuses[0]) == {"OK"}, f"{bot!r}: {match.replay.statuses[0]}"


# -- bad input: one clear error -----------------------------------------------------------------------

ONE_BOT = PythonBot(Paper, name="paper")


@pytest.mark.parametrize(
    ("game", "bots", "options", "message"),
    [
        ("nosuchgame", ["rock", "rock"], {}, r"unknown game 'nosuchgame' \(known: .*drones"),
        ("rps", ["rock", "nosuchbot"], {}, r"seat 1: unknown bot 'nosuchbot': not a starter bot of rps"),
        ("rps", ["rock", 42], {}, r"seat 1: int is not a bot: give a starter bot's name \(copycat"),
        ("rps", ["rock"], {}, r"rps needs 2 players, got 1"),
        ("rps", "rock", {}, r"bots must be a list of bots"),
        ("rps", ["rock", "rock"], {"config": {"nope": 1}}, r"rps config: .*nope"),
        ("rps", ["rock", "rock"], {"config": {"rounds": 0}}, r"rps config: .*rounds"),
        ("rps", ["rock", "rock"], {"config": ["rounds"]}, r"config must be a dict of rps config overrides"),
        ("rps", ["rock", "rock"], {"preset": "nosuchpreset"}, r"rps config: .*nosuchpreset"),
        ("rps", ["rock", "rock"], {"seed": -1}, r"match seed must be an integer"),
        ("rps", ["rock", "rock"], {"seed": 2**64}, r"match seed must be an integer"),
        (7, ["rock", "rock"], {}, r"game must be a game id"),
        ("rps", [ONE_BOT, ONE_BOT], {}, r"seat 1: the same Bot object sits in two seats"),
    ],
)
def test_bad_input_is_one_clear_error(game: Any, bots: Any, options: dict[str, Any], message: str) -> None:
    with pytest.raises(PlayError, match=message) as caught:
        botarena.play(game, bots, **options)
    assert isinstance(caught.value, ValueError)
    assert "\n" not in str(caught.value)
    error = caught.value  # no chained traceback: the one line is the whole story
    assert error.__cause__ is None and (error.__context__ is None or error.__suppress_context__)


def test_a_bot_file_that_fails_to_load_is_one_clear_error(tmp_path: Path) -> None:
    broken = tmp_path / "broken.py"
    broken.write_text("raise RuntimeError('oops')\n", encoding="utf-8")
    with pytest.raises(PlayError, match=r"seat 0: cannot load Python bot .*broken.py: RuntimeError: oops"):
        botarena.play("rps", [broken, "rock"])


def test_a_misbehaving_bot_is_recorded_not_raised() -> None:
    def crash(observation: dict[str, Any]) -> dict[str, str]:
        raise RuntimeError("boom")

    match = botarena.play("rps", [crash, "rock"], seed=4, config={"rounds": 2})
    assert match.ranks == [2, 1]
    assert "CRASHED" in repr(match) and "crash rank 2" in repr(match)


# -- files and the package ----------------------------------------------------------------------------


def test_save_writes_the_replay_or_the_page(tmp_path: Path) -> None:
    match = botarena.play("rps", ["rock", "cycler"], seed=8, config={"rounds": 3})
    written = match.save(tmp_path / "out" / "match.json.gz")
    assert written == tmp_path / "out" / "match.json.gz"
    assert read_replay(written).dumps() == match.replay.dumps()
    page = match.save(tmp_path / "match.html")
    assert page.read_text(encoding="utf-8") == standalone_html(match.replay) == match.html()


def test_import_botarena_stays_light_and_play_is_there_when_asked_for() -> None:
    code = textwrap.dedent(
        """
        import sys, botarena
        heavy = sorted(m for m in sys.modules if m.startswith(("botarena.", "numpy", "typing")))
        assert not heavy, heavy
        import botarena.notebook
        assert botarena.play is botarena.notebook.play
        assert botarena.PlayedMatch is botarena.notebook.PlayedMatch
        assert botarena.PlayError is botarena.notebook.PlayError
        try:
            botarena.nothing_here
        except AttributeError as error:
            assert "nothing_here" in str(error)
        else:
            raise AssertionError("botarena.nothing_here")
        """
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr


# -- the documented examples run as written -----------------------------------------------------------

ROOT = Path(__file__).resolve().parents[2]
PYTHON_BLOCK = re.compile(r"```python runnable[^\n]*\n(.*?)```", re.DOTALL)
"""The runnable python blocks (docs/contributing-docs.md: the info string says `runnable`)."""


def test_the_examples_of_the_notebook_docs_run_and_print_what_they_say(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)  # the README's cell saves a file
    readme = (ROOT / "README.md").read_text(encoding="utf-8").split("\n## Notebooks\n", 1)[1]
    page = (ROOT / "docs" / "notebooks.md").read_text(encoding="utf-8")
    for where, text in (("README.md", readme.split("\n## ", 1)[0]), ("docs/notebooks.md", page)):
        blocks = PYTHON_BLOCK.findall(text)
        assert blocks, f"{where} has no python example"
        namespace: dict[str, Any] = {}
        for block in blocks:
            exec(compile(block, where, "exec"), namespace)
            # a last line `# value` documents what the block's last expression shows
            *body, last = block.rstrip("\n").splitlines()
            if last.startswith("# ") and body:
                shown = eval(body[-1].removeprefix("print(repr(").removesuffix("))"), namespace)
                assert repr(shown) == last[2:], f"{where}: {body[-1]} shows {shown!r}"
    assert (tmp_path / "match.json.gz").is_file()
