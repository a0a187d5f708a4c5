"""The viewer on games that did not finish (issue 16, item 1), in headless chromium: the journal a
killed `botarena play --replay FILE` leaves plays its recorded steps, with "partial replay" where the
result would be, from `botarena view FILE` and from `botarena view FILE --html`; a game resumed
after a kill says where it went on. Any console error fails a test (the `page` fixture)."""

from __future__ import annotations

import gzip
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from partial_replays import play_partial, play_resumed
from short_replays import GAMES
from viewer_page import scrub, texts

from botarena.cli import main
from botarena.core.replay import read_replay

pytestmark = pytest.mark.browser

# Longer than the short replays where those are too short to be cut mid-way (drones' short game has
# 4 steps), and past a keyframe for devops (every 25 steps): its reader starts from the one at 25.
LONGER: dict[str, dict[str, Any]] = {"drones": {"rounds": 9}, "devops": {"turn_limit": 40}}
STOP_AFTER = {"devops": 31}  # not a keyframe step: the last keyframe is at 25
DEFAULT_STOP = 5


@pytest.fixture(scope="module")
def killed(tmp_path_factory: pytest.TempPathFactory) -> Callable[..., tuple[Path, int]]:
    """killed(game, stop_after, overrides) -> `play_partial`'s journal and steps, played once per
    module: the tests only read the file (each writes what it makes in its own tmp_path)."""
    made: dict[tuple[str, int, str], tuple[Path, int]] = {}

    def get(game: str, stop_after: int, overrides: dict[str, Any] | None = None) -> tuple[Path, int]:
        key = (game, stop_after, repr(sorted((overrides or {}).items())))
        if key not in made:
            folder = tmp_path_factory.mktemp(f"killed-{game}-{stop_after}")
            made[key] = play_partial(game, folder, stop_after, overrides)
        return made[key]

    return get


def partial_label(steps: int) -> str:
    return f"partial replay: the game did not finish ({steps} steps recorded)"


def step_through(page: Any, steps: int) -> None:
    """Step forward with the button, as a user would, from the first step to the last."""
    assert texts(page)["step-counter"] == f"1 / {steps}"
    for index in range(1, steps):
        page.get_by_test_id("forward").click()
        assert page.evaluate("window.__botarena.currentStep") == index
    shown = texts(page)
    assert shown["step-counter"] == f"{steps} / {steps}"
    assert shown["step-label"]
    assert shown["record"] and shown["record"] != "No turns yet."


def check_partial_page(page: Any, steps: int, resumed: str = "") -> None:
    assert page.evaluate("window.__botarena.stepCount") == steps
    shown = texts(page)
    assert shown["result"] == partial_label(steps)
    assert "partial" in page.get_by_test_id("result").get_attribute("class")
    assert shown["resumed"] == resumed  # hidden (no text) when the game was not resumed
    assert shown["player-0-time-match"] == "–"  # no totals recorded: nothing made up
    assert (
        page.get_by_test_id("player-0-log")
        .inner_text()
        .strip()
        .startswith("log: not recorded (the game did not finish)")
    )
    step_through(page, steps)
    assert texts(page)["result"] == partial_label(steps)  # still partial at the last recorded step


@pytest.mark.parametrize("game", GAMES)
def test_view_serves_a_killed_games_journal_as_a_partial_replay(
    killed: Any, game: str, serve: Any, open_viewer: Any, tmp_path: Path
) -> None:
    path, steps = killed(game, STOP_AFTER.get(game, DEFAULT_STOP), LONGER.get(game))
    frames = [frame["step"] for frame in read_replay(path).keyframes]
    assert frames and steps not in frames  # the viewer rebuilds the last steps from an earlier keyframe
    page = open_viewer(serve(path).url)
    check_partial_page(page, steps)
    scrub(page, 0)  # and back: the first step still draws
    assert texts(page)["step-counter"] == f"1 / {steps}"


@pytest.mark.parametrize("game", ["drones", "devops"])
def test_view_html_plays_a_partial_replay_from_file(
    killed: Any, game: str, page: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path, steps = killed(game, STOP_AFTER.get(game, DEFAULT_STOP), LONGER.get(game))
    html = tmp_path / f"{game}.html"
    assert main(["view", str(path), "--html", str(html)]) == 0
    assert partial_label(steps) in capsys.readouterr().out
    page.route(
        "**/*", lambda route: route.continue_() if route.request.url.startswith("file:") else route.abort()
    )
    page.goto(html.as_uri())
    page.wait_for_function("window.__botarena && (window.__botarena.ready || window.__botarena.error)")
    assert page.evaluate("window.__botarena.error") is None
    check_partial_page(page, steps)


@pytest.mark.parametrize("game", ["drones", "devops"])
def test_a_resumed_game_says_where_it_went_on(
    game: str, serve: Any, open_viewer: Any, tmp_path: Path
) -> None:
    stop = STOP_AFTER.get(game, DEFAULT_STOP)
    replay, path = play_resumed(game, tmp_path, stop, LONGER.get(game))
    assert [entry["after_step"] for entry in replay.resumes] == [stop]
    page = open_viewer(serve(path).url)
    steps = len(replay.steps)
    shown = texts(page)
    assert shown["resumed"] == f"resumed after step {stop}"
    assert "partial" not in shown["result"] and shown["result"] not in ("", "in progress")
    assert "partial" not in page.get_by_test_id("result").get_attribute("class")
    scrub(page, steps - 1)
    assert texts(page)["step-counter"] == f"{steps} / {steps}"


def test_a_resumed_game_killed_again_is_partial_and_resumed(
    serve: Any, open_viewer: Any, tmp_path: Path
) -> None:
    stop, again = STOP_AFTER["devops"], STOP_AFTER["devops"] + 3
    replay, path = play_resumed("devops", tmp_path, stop, LONGER["devops"], killed_again_after=again)
    assert replay.partial and len(replay.steps) == again
    assert [entry["after_step"] for entry in replay.resumes] == [stop]
    page = open_viewer(serve(path).url)
    check_partial_page(page, again, resumed=f"resumed after step {stop}")


def test_loading_a_finished_replay_after_a_partial_one_clears_the_label(
    killed: Any, serve: Any, open_viewer: Any, tmp_path: Path, zergy_replay: tuple[Any, Path]
) -> None:
    path, steps = killed("drones", DEFAULT_STOP, LONGER["drones"])
    page = open_viewer(serve(path).url)
    assert texts(page)["result"] == partial_label(steps)
    page.evaluate("(r) => window.__botarena.load(r)", zergy_replay[0].to_json())
    page.wait_for_function("window.__botarena.ready")
    shown = texts(page)
    assert "partial" not in shown["result"] and shown["result"] not in ("", "in progress")
    assert "partial" not in page.get_by_test_id("result").get_attribute("class")
    assert shown["resumed"] == ""


def upload(page: Any, name: str, data: bytes) -> str | None:
    """Open `data` as the file `name` with the page's "Open replay…" input; the error shown, if any."""
    page.set_input_files(
        "[data-testid=file]", files=[{"name": name, "mimeType": "application/octet-stream", "buffer": data}]
    )
    page.wait_for_function("window.__botarena.ready || window.__botarena.error")
    return page.evaluate("window.__botarena.error")  # type: ignore[no-any-return]


@pytest.fixture
def empty_viewer(serve: Any, page: Any, zergy_replay: tuple[Any, Path]) -> Any:
    page.goto(serve(zergy_replay[1]).url + "/")  # no ?replay=: the viewer waits for a file
    page.wait_for_selector("#welcome-text:has-text('Open a replay file')")
    return page


def test_opening_a_killed_games_file_in_the_page_reads_it_as_partial(
    killed: Any, empty_viewer: Any, tmp_path: Path
) -> None:
    """The file itself, cut mid-flush as a kill leaves it (no server to read it): the page inflates
    the gzip stream as far as it goes and reads the journal's complete lines, as `read_replay` does."""
    path, steps = killed("devops", STOP_AFTER["devops"], LONGER["devops"])
    raw = path.read_bytes()
    with pytest.raises(EOFError, match="end-of-stream"):
        gzip.decompress(raw)  # really cut: not a whole gzip stream
    assert upload(empty_viewer, "killed.json.gz", raw) is None
    assert empty_viewer.evaluate("window.__botarena.stepCount") == steps
    check_partial_page(empty_viewer, steps)
    expected = read_replay(path).to_json()
    shown = empty_viewer.evaluate(
        "() => { const r = window.__botarena.replay; return {steps: r.steps, keyframes: r.keyframes}; }"
    )
    assert shown == {"steps": expected["steps"], "keyframes": expected["keyframes"]}


def test_opening_an_uncompressed_journal_cut_mid_line(killed: Any, empty_viewer: Any, tmp_path: Path) -> None:
    path, _ = killed("drones", DEFAULT_STOP, LONGER["drones"])
    text = read_journal_text(path)
    cut = text[: text.rindex(b'{"step"') + 40]  # the kill came while that step's line was written
    steps = sum(line.startswith(b'{"step"') for line in cut.split(b"\n")[:-1])  # the whole lines
    assert steps == read_replay_bytes(cut, tmp_path) >= DEFAULT_STOP - 1
    assert upload(empty_viewer, "killed.json", cut) is None
    check_partial_page(empty_viewer, steps)


def test_a_journal_without_its_header_is_one_line(empty_viewer: Any) -> None:
    error = upload(empty_viewer, "cut.json", b'{"journal": 1, "header": {"game": "dro')
    assert error == "cut.json: this replay journal's header is missing or cut short"


def read_journal_text(path: Path) -> bytes:
    """A journal file's text as far as it inflates."""
    from botarena.core.replay import decompress_prefix

    return decompress_prefix(path.read_bytes())


def read_replay_bytes(data: bytes, folder: Path) -> int:
    """The steps `read_replay` finds in these bytes."""
    copy = folder / "copy.json"
    copy.write_bytes(data)
    return len(read_replay(copy).steps)


@pytest.mark.parametrize("game", ["drones", "devops"])
def test_a_game_killed_before_its_first_step_shows_no_steps(
    killed: Any, game: str, serve: Any, open_viewer: Any, tmp_path: Path
) -> None:
    path, _ = killed(game, DEFAULT_STOP, LONGER.get(game))
    text = read_journal_text(path)
    before_steps = tmp_path / f"{game}.start-only.json"
    before_steps.write_bytes(text[: text.index(b'{"step"')])  # header, start, first keyframe
    assert read_replay(before_steps).steps == []
    page = open_viewer(serve(before_steps).url)
    shown = texts(page)
    assert page.evaluate("window.__botarena.stepCount") == 0
    assert shown["result"] == "partial replay: the game did not finish (0 steps recorded)"
    assert shown["step-counter"] == "0 / 0"
    assert shown["record"] == "No turns yet."
