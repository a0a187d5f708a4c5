"""`botarena leaderboard` on a real-time DatsPulse series (spec §6.3): final standings are computed
over the final rounds only; a test series' rounds are shown per round and never summed."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import orjson
import pytest

from botarena.cli import main
from botarena.core.replay import read_replay
from botarena.games.datspulse.standings import is_test_round, tournament_standings
from botarena.store import Store

from .conftest import Client, DpServer, make_settings, run

Start = Callable[..., DpServer]


def _round(key: str, seats: Sequence[str], rows: Sequence[tuple[int, int, int, int]]) -> dict[str, Any]:
    """A finished match as the leaderboard hands it to the game: rows are (score, place, points, lost)."""
    results = [
        {"index": i, "name": f"team{i}", "score": s, "place": p, "points": pts, "unitsLost": lost}
        for i, (s, p, pts, lost) in enumerate(rows)
    ]
    return {
        "key": key,
        "round": int(key.rsplit("-", 1)[1]),
        "seats": list(seats),
        "ranks": [r[1] for r in rows],
        "scores": [float(r[0]) for r in rows],
        "details": {"turns": 4, "results": results},
    }


def test_dp63_a_test_series_is_shown_per_round_never_summed() -> None:
    matches = [
        _round("antprotocol-test-1", ["a", "b"], [(30, 1, 50, 2), (10, 2, 45, 0)]),
        _round("antprotocol-test-2", ["b", "a"], [(20, 1, 50, 1), (0, 2, 0, 3)]),
    ]
    table = tournament_standings(["a", "b"], matches)
    assert "final" not in table["title"] and "never summed" in table["title"]
    assert [(r["round"], r["name"], r["place"], r["score"], r["points"]) for r in table["rows"]] == [
        ("antprotocol-test-1", "a", 1, 30, 50),
        ("antprotocol-test-1", "b", 2, 10, 45),
        ("antprotocol-test-2", "b", 1, 20, 50),
        ("antprotocol-test-2", "a", 2, 0, 0),
    ]


def test_dp63_test_rounds_never_enter_final_sums() -> None:
    final = _round("antprotocol-final-1", ["a", "b"], [(5, 2, 45, 0), (9, 1, 50, 0)])
    test = _round("antprotocol-test-3", ["a", "b"], [(99, 1, 50, 0), (0, 2, 0, 0)])
    table = tournament_standings(["a", "b"], [final, test])
    assert table["title"] == "DatsPulse final standings (spec 6.3)"
    by_name: Mapping[str, Any] = {r["name"]: r for r in table["rows"]}
    assert (by_name["a"]["points"], by_name["a"]["calories"], by_name["a"]["rounds"]) == (45, 5, 1)
    assert (by_name["b"]["points"], by_name["b"]["calories"], by_name["b"]["rounds"]) == (50, 9, 1)
    # a realm prefix that itself holds "-test-" does not make a final round a test round
    assert not is_test_round("my-test-1-final-2") and is_test_round("my-final-1-test-2")
    assert not is_test_round("r01-m001")  # a lockstep tournament's matches


def test_dp63_botarena_leaderboard_on_a_real_time_test_series(
    start_dp: Start, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Two test rounds played over HTTP and recorded; `botarena leaderboard` shows them per round."""
    db = f"sqlite:///{tmp_path / 'dp.db'}"
    store = Store.open(db, replay_dir=tmp_path / "replays")
    try:
        settings = make_settings(
            lobby_seconds=1.0, turns=4, turn_seconds=0.1, break_seconds=0.3, rate_limit_per_second=1000
        )
        server = start_dp(settings, store)

        async def register_until_two_rounds(session: Any) -> None:
            clients = [Client(session, server.api, t) for t in ("tok-alpha", "tok-beta")]
            for _ in range(3000):  # a counted loop: register in every lobby until two rounds are recorded
                if len(server.dp.recorder.recorded) >= 2:
                    return
                for client in clients:
                    await client.call("POST", "/register")
                await asyncio.sleep(0.02)

        run(register_until_two_rounds)
        assert len(server.dp.recorder.recorded) >= 2
        server.stop()
        tournament = store.find_tournament("antprotocol-test")
        assert tournament is not None and tournament.format == "datspulse-test"
        played = [m for m in store.list_matches(tournament.id) if m.status == "finished"]
        assert len(played) >= 2
        expected = []
        for match in played:
            results = read_replay(store.replay_path(match.replay_hash or "")).result["details"]["results"]
            for row in sorted(results, key=lambda r: (r["place"], r["index"])):
                expected.append((match.key, match.seats[row["index"]], row["points"]))
    finally:
        store.close()

    assert main(["leaderboard", "antprotocol-test", "--db", db, "--json"]) == 0
    table = orjson.loads(capsys.readouterr().out)["leaderboard"]["game_standings"]
    assert "final standings" not in table["title"]
    assert sorted((r["round"], r["name"], r["points"]) for r in table["rows"]) == sorted(expected)
    assert main(["leaderboard", "antprotocol-test", "--db", db]) == 0
    out = capsys.readouterr().out
    assert "final standings" not in out and "DatsPulse test rounds" in out
