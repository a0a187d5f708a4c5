"""Spec 7.4: botarena Domains replays export to the original's game files (new and old formats), and
original game files import into replays that `botarena view` shows (issue 13). The reference games
of section 11 (the original's own output) make the round trip byte for byte."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from botarena.bots.resolve import resolve_bot
from botarena.cli import main
from botarena.commands.domains import is_game_file
from botarena.core.registry import get_game
from botarena.core.replay import Replay, read_replay, write_replay
from botarena.games.domains.engine import DomainsEngine
from botarena.games.domains.protocol import (
    GameFileError,
    OldFormatRecorder,
    export_new,
    export_replay,
    import_game_file,
)
from botarena.games.domains.state import Order, OrderKind
from botarena.runner import run_match

FIXTURES = Path(__file__).parent / "fixtures"
GAME = get_game("domains")
REFERENCE = [FIXTURES / "dummy2p_seed1.txt", FIXTURES / "dummy4p_seed1.txt"]


def played(rng: str, players: int = 3, rounds: int = 150) -> Replay:
    overrides = {"number_of_rounds": rounds, "board_height": 16, "board_width": 18, "rng": rng}
    bots = [resolve_bot(name, GAME) for name in ("dummy", "demo", "dummy", "demo")[:players]]
    return run_match(GAME, bots, config=GAME.config(overrides=overrides), seed=21).replay


def resimulated(replay: Replay) -> tuple[str, str]:
    """The engine's own exports (the section 11 byte-exact writer) of the replay's recorded orders."""
    engine = DomainsEngine(GAME.config("default", replay.config), replay.seed, len(replay.players))
    old = OldFormatRecorder(engine.game)
    for step in replay.steps:
        lists = [[Order(u, OrderKind(k), d) for u, k, d in listed] for listed in step["record"]["orders"]]
        engine.game.play_round(lists)
        old.after_round()
    names = [p["name"] for p in replay.players]
    return export_new(engine.game, names), old.export(names)


@pytest.mark.parametrize("rng", ["pcg64", "reference"])
def test_a_botarena_replay_exports_as_the_engine_writes_the_game(rng: str) -> None:
    replay = played(rng)
    events = {e[0] for step in replay.steps for e in step["record"].get("events", [])}
    assert replay.steps and len(replay.steps) == 150 and events  # a game with fights and refusals
    records = [step["record"] for step in replay.steps]
    assert any(cell[3] > 0 for r in records for cell in r["cells"])  # ability zones (flags)
    assert any(r["bubbles"] for r in records) and any(u[4] for r in records for u in r["units"])
    new, old = resimulated(replay)
    assert export_replay(replay, "new") == new
    assert export_replay(replay, "old") == old


@pytest.mark.parametrize("path", REFERENCE, ids=lambda p: p.stem)
def test_an_original_game_file_round_trips_byte_for_byte(path: Path) -> None:
    text = path.read_text(encoding="ascii")
    assert is_game_file(path)
    replay = import_game_file(text, source=path.name)
    assert len(replay.steps) == 500 and [p["name"] for p in replay.players] == ["Dummy"] * len(replay.players)
    assert replay.config["points_per_pop"] == 5000 and replay.config["rounds_per_bubble_move"] == 5
    final = text.rstrip("\n").rsplit("\n", 1)[1].split()
    assert replay.result["details"]["points"] == [int(v) for v in final[1::2]]
    assert export_replay(replay, "new") == text


@pytest.mark.parametrize("path", REFERENCE, ids=lambda p: p.stem)
def test_the_old_format_carries_the_same_boards(path: Path) -> None:
    replay = import_game_file(path.read_text(encoding="ascii"))
    old = export_replay(replay, "old")
    again = import_game_file(old)
    assert export_replay(again, "old") == old
    assert again.result == replay.result
    kept = ("painter", "drawer")
    assert {k: again.keyframes[0]["state"][k] for k in kept} == {
        k: replay.keyframes[0]["state"][k] for k in kept
    }
    for before, after in zip(replay.steps, again.steps, strict=True):
        assert before["record"]["points"] == after["record"]["points"]
        positions = ("units", "bubbles", "bonuses")
        assert {k: [row[1:] for row in before["record"][k]] for k in positions} == {
            k: [row[1:] for row in after["record"][k]] for k in positions
        }


def test_a_broken_game_file_is_a_one_line_error() -> None:
    text = REFERENCE[0].read_text(encoding="ascii")
    with pytest.raises(GameFileError, match="bad frame line"):
        import_game_file(text.replace("\n1 9 9 ", "\n1 9 x ", 1))
    with pytest.raises(GameFileError, match="not a Domains game file"):
        import_game_file("hello\n")


def test_cli_exports_a_played_game_and_refuses_other_replays(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    replay = tmp_path / "r.json.gz"
    sets = ["--set=number_of_rounds=40", "--set=board_height=12", "--set=board_width=12"]
    assert main(["play", "domains", "dummy", "demo", "--seed", "5", "--replay", str(replay), *sets]) == 0
    for fmt in ("new", "old"):
        out = tmp_path / f"{fmt}.txt"
        assert main(["domains", "export", str(replay), str(out), "--format", fmt]) == 0
        assert out.read_text(encoding="ascii") == export_replay(read_replay(replay), fmt)  # type: ignore[arg-type]
    assert (tmp_path / "new.txt").read_text().startswith("40 12 12\n2 dummy demo\n0 0 0 ")
    assert main(["domains", "import", str(tmp_path / "new.txt"), str(tmp_path / "back.json.gz")]) == 0
    assert export_replay(read_replay(tmp_path / "back.json.gz")) == (tmp_path / "new.txt").read_text()
    drones = tmp_path / "d.json.gz"
    assert main(["play", "drones", "zergy", "adaptive", "--seed", "1", "--replay", str(drones)]) == 0
    capsys.readouterr()
    assert main(["domains", "export", str(drones), str(tmp_path / "x.txt")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "only domains replays export to game files" in err


def test_botarena_view_opens_an_original_game_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import botarena.server.viewer as viewer

    served: list[dict[str, Any]] = []

    def fake_serve(path: Path, host: str = "", port: int = 0) -> None:
        replay = read_replay(path)  # what the page would fetch from /api/replay
        served.append({"game": replay.game, "steps": len(replay.steps), "keyframes": replay.keyframes})

    monkeypatch.setattr(viewer, "serve_viewer", fake_serve)
    original = tmp_path / "game.txt"
    original.write_bytes(REFERENCE[1].read_bytes())
    assert main(["view", str(original)]) == 0
    assert served and served[0]["game"] == "domains" and served[0]["steps"] == 500
    state = served[0]["keyframes"][0]["state"]
    assert state["num_players"] == 4 and len(state["units"]) == 4  # one unit each at the start
    replay = tmp_path / "r.json.gz"
    write_replay(import_game_file(REFERENCE[0].read_text()), replay)
    assert main(["view", str(replay)]) == 0 and served[-1]["steps"] == 500
