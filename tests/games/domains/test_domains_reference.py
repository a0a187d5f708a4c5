"""Spec section 11 (required): the reference games replay byte for byte, and table T (DR-2)."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from botarena.core.config import build_config
from botarena.games.domains.actions import order_json, parse_orders
from botarena.games.domains.config import PRESETS, DomainsConfig
from botarena.games.domains.protocol import export_new, parse_trace
from botarena.games.domains.rng import ReferenceRandom, pi_table
from botarena.games.domains.rules import DomainsGame

FIXTURES = Path(__file__).parent / "fixtures"
PI_SHA256 = "f5a98b0e7d3e1405464a3bd2e739e5bbcc515ecb77dc5888b0b2613c747b5d49"


def test_dr2_table_equals_the_fixture() -> None:
    table = pi_table()
    assert len(table) == 9973
    assert table == (FIXTURES / "pi_digits.txt").read_bytes()
    assert hashlib.sha256(table).hexdigest() == PI_SHA256
    assert table[:5] == b"31415" and table[-1:] == b"0"


def replay_reference(players: int) -> tuple[DomainsGame, str]:
    trace = parse_trace((FIXTURES / f"dummy{players}p_seed1.trace.txt").read_text(encoding="ascii"))
    config = build_config(DomainsConfig, PRESETS, "reference", {"num_players": players})
    game = DomainsGame(config, trace.seed)
    source = game.source
    assert isinstance(source, ReferenceRandom)
    assert (source.jump, source.index) == (trace.jump, trace.index_after_init)  # step 2
    assert len(trace.rounds) == config.number_of_rounds
    for number, traced in enumerate(trace.rounds):
        assert traced.round == number
        source.index = traced.index  # 3.1: the original bots' own draws
        lists = []
        for listed in traced.orders:  # 3.2: through the normal parse-time rules
            payload = {"orders": [order_json(order) for order in listed]}
            orders, status, _reason, _warnings, _detail = parse_orders(payload, config.unit_table_size)
            assert status.value == "OK"
            lists.append(orders)
        game.play_round(lists)
    assert source.index == trace.final_index  # step 4
    return game, export_new(game, ["Dummy"] * players)


@pytest.mark.parametrize(
    ("players", "size", "results"),
    [
        (2, 105_925, "Dummy 458872 Dummy 610897 "),
        (4, 170_367, "Dummy 359710 Dummy 378392 Dummy 308748 Dummy 336180 "),
    ],
)
def test_section11_reference_game_is_byte_exact(players: int, size: int, results: str) -> None:
    game, exported = replay_reference(players)
    expected = (FIXTURES / f"dummy{players}p_seed1.txt").read_bytes()
    data = exported.encode("ascii")
    assert len(expected) == size
    if data != expected:  # say where, not just that
        ours, theirs = data.split(b"\n"), expected.split(b"\n")
        first = next(i for i, (a, b) in enumerate(zip(ours, theirs, strict=False)) if a != b)
        pytest.fail(
            f"line {first + 1} differs:\n ours   {ours[first][:200]!r}\n theirs {theirs[first][:200]!r}"
        )
    assert data.splitlines()[-1].decode() == results
    assert game.finished
