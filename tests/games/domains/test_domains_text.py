"""`text.keyframe_text`: a keyframe as the engine stores it (`DomainsEngine.keyframe`), as ASCII in the
spec's section 9 notation."""

from __future__ import annotations

from domains_testkit import bare_game, bonus, bubble, paint, rect, trail, unit

from botarena.core.protocol import Reply
from botarena.core.registry import get_game
from botarena.core.status import Status
from botarena.games.domains.engine import DomainsEngine
from botarena.games.domains.text import keyframe_text


def engine(rows: int, cols: int, seed: int = 1) -> DomainsEngine:
    game = get_game("domains")
    config = game.config(overrides={"board_height": rows, "board_width": cols})
    built = game.new_engine(config, seed, 2)
    assert isinstance(built, DomainsEngine)
    return built


def test_the_first_keyframe_shows_the_start_squares_of_dr_7() -> None:
    """DR-7: each player's 3x3 of paint around its first unit (player 0 bottom left, 1 top right)."""
    assert keyframe_text(engine(6, 8).keyframe()) == (
        "round 0, 6x8, 2 players, points 0 0\n"
        ".....111\n"
        ".....1u1\n"
        ".....111\n"
        "000.....\n"
        "0u0.....\n"
        "000.....\n"
        "unit 0: player 0 at (4, 1), energy 5\n"
        "unit 1: player 1 at (1, 6), energy 5\n"
    )


def test_trails_flags_and_contents_use_the_section_9_notation() -> None:
    subject = engine(6, 6)
    subject.game = game = bare_game(6, 6)
    paint(game, 0, rect(0, 1, 0, 1))
    paint(game, 1, rect(3, 4, 4, 5))
    trail(game, 0, 0, [(2, 0), (2, 1)])  # over unpainted ground: lower case
    trail(game, 1, 1, [(1, 1)])  # over player 0's paint: upper case
    game.state.ability[game.state.index(4, 5)] = 3
    unit(game, 0, 0, 2, 1)
    unit(game, 1, 1, 3, 4, energy=9, upgraded=True)
    bubble(game, 0, 1, 0, 4, rtp=2)
    bonus(game, 0, 2, 3)
    assert keyframe_text(subject.keyframe()) == (
        "round 0, 6x6, 2 players, points 0 0\n"
        "00..o.\n"
        "0B....\n"
        "au.+..\n"
        "....U1\n"
        "....1!\n"
        "......\n"
        "unit 0: player 0 at (2, 1), energy 5\n"
        "unit 1: player 1 at (3, 4), energy 9, upgraded\n"
        "bubble 0: player 1 at (0, 4), pops in 2\n"
    )


def test_a_played_keyframe_shows_every_unit_and_the_points() -> None:
    game = get_game("domains")
    replay_engine = engine(12, 12, seed=7)
    bots = [game.random_bot(), game.random_bot()]
    for request in replay_engine.start_requests():
        bots[request.seat].setup(request.payload)
    for _ in range(40):
        requests = replay_engine.next_requests()
        replay_engine.apply([Reply(r.seat, Status.OK, bots[r.seat].act(r.payload)) for r in requests])
    keyframe = replay_engine.keyframe()
    lines = keyframe_text(keyframe).splitlines()
    assert lines[0] == f"round 40, 12x12, 2 players, points {keyframe['points'][0]} {keyframe['points'][1]}"
    board = lines[1:13]
    assert all(len(row) == 12 for row in board)
    for _, _, x, y, upgraded, _ in keyframe["units"]:
        assert board[x][y] == ("U" if upgraded else "u")
    assert sum(row.count("u") + row.count("U") for row in board) == len(keyframe["units"])
    assert len(lines) == 13 + len(keyframe["units"]) + len(keyframe["bubbles"])
