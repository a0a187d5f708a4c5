"""Rule tests by id (spec section 3), beyond the worked examples of section 9."""

from __future__ import annotations

import re

from domains_testkit import (
    NEVER,
    ab,
    at,
    bare_game,
    bonus,
    bubble,
    flags,
    make_config,
    mv,
    paint,
    painted,
    play,
    pos,
    rect,
    script,
    trail,
    trail_cells,
    unit,
)

from botarena.core.rng import stream
from botarena.games.domains.config import DomainsConfig
from botarena.games.domains.observe import competition_ranks
from botarena.games.domains.protocol import OldFormatRecorder, export_name, export_new, settings_block
from botarena.games.domains.rng import PERMUTATIONS, BotRandom, Pcg64Random, ScriptedRandom
from botarena.games.domains.rules import DomainsGame
from botarena.games.domains.state import Direction as D
from botarena.games.domains.state import State


def test_dr1_equal_bounds_consume_nothing_in_both_generators() -> None:
    pcg = Pcg64Random(9)
    assert pcg.draw(4, 4) == 4
    assert pcg.draw(0, 100) == int(stream(9, "domains.engine").integers(0, 101))


def test_dr3_pcg64_is_the_named_stream() -> None:
    source = Pcg64Random(123)
    reference = stream(123, "domains.engine")
    assert [source.draw(0, 9) for _ in range(20)] == [int(reference.integers(0, 10)) for _ in range(20)]


def test_dr4_bot_stream_and_permutations() -> None:
    assert len(PERMUTATIONS) == 24 and PERMUTATIONS[1] == (0, 1, 3, 2) and PERMUTATIONS[-1] == (3, 2, 1, 0)
    one, two = BotRandom(2**32 - 1), BotRandom(2**32 - 1)
    assert [one.random_number(0, 50) for _ in range(10)] == [two.random_number(0, 50) for _ in range(10)]
    assert sorted(one.random_permutation()) == [0, 1, 2, 3]


def test_dr6_dr7_setup_for_four_players() -> None:
    game = DomainsGame(make_config(num_players=4, board_height=10, board_width=12), 77)
    state = game.state
    assert all(-1 <= c <= 3 for c in state.bonus_counter)
    centres = [(8, 1), (1, 10), (8, 10), (1, 1)]
    for p, (x, y) in enumerate(centres):
        assert pos(game, p) == (x, y) and state.unit_owner[p] == p and state.unit_energy[p] == 5
        assert painted(game, p) == set(rect(x - 1, x + 1, y - 1, y + 1))
    assert state.bubble_colour.count(-1) == len(state.bubble_colour)
    assert state.bonus_pos == [-1] * 4


def test_dr12_refusals_in_order() -> None:
    game = bare_game(6, 6)
    paint(game, 0, [(0, 0)])
    unit(game, 0, 0, 0, 0)
    unit(game, 1, 0, 3, 3)
    play(game, [mv(0, D.up), mv(1, D.DR)])
    codes = [event[-1] for event in game.events]
    assert codes == ["OFF_BOARD", "DIAGONAL_OFF_PAINT"]
    assert pos(game, 0) == (0, 0) and pos(game, 1) == (3, 3)


def test_dr12_trapped_and_shut_out() -> None:
    game = bare_game(8, 8)
    paint(game, 1, rect(2, 4, 2, 4))
    for cell in rect(2, 4, 2, 4):
        game.state.ability[game.state.index(*cell)] = 5
    unit(game, 0, 0, 3, 3)  # inside p1's zone
    unit(game, 1, 0, 3, 6)  # outside
    script(game)
    play(game, [mv(0, D.down), mv(1, D.left)])
    assert pos(game, 0) == (4, 3)  # flagged to flagged: allowed
    play(game, [mv(0, D.down), mv(1, D.left)])
    assert [e[-1] for e in game.events] == ["TRAPPED", "SHUT_OUT"]
    assert pos(game, 0) == (4, 3) and pos(game, 1) == (3, 5)


def test_dr13_moving_onto_own_unit_is_refused() -> None:
    game = bare_game(6, 6)
    unit(game, 0, 0, 2, 2)
    unit(game, 1, 0, 2, 3)
    play(game, [mv(0, D.right)])
    assert game.events[-1][-1] == "OWN_UNIT" and pos(game, 0) == (2, 2)


def test_dr13_bonus_upgrades_and_redraws_its_counter() -> None:
    game = bare_game(6, 6)
    unit(game, 0, 0, 2, 2)
    bonus(game, 0, 2, 3)
    source = script(game, 2)
    play(game, [mv(0, D.right)])
    assert source.calls == [(0, 4, 2)]
    assert game.state.unit_upgraded[0] and pos(game, 0) == (2, 3)
    assert game.state.bonus_pos[0] == -1 and game.state.bonus_counter[0] == 2  # 2 - 1, then +1 in K


def test_dr15_case_a_own_unit_and_null_do_nothing() -> None:
    game = bare_game(6, 6)
    unit(game, 0, 0, 2, 2)
    unit(game, 1, 0, 2, 3)
    source = script(game)
    play(game, [at(0, D.right), at(1, D.null)])
    assert source.calls == [] and game.state.unit_owner[:2] == [0, 0]


def test_f1_a_losing_attacker_dies_for_real() -> None:
    game = bare_game(6, 6)
    paint(game, 1, [(2, 3)])
    unit(game, 0, 0, 2, 2, energy=5)
    unit(game, 1, 1, 2, 3, energy=9)
    source = script(game, 1, 8)  # rolls 1 vs 8: the defender wins; the cost R(0, 0) makes no draw
    play(game, [at(0, D.right)])
    assert source.values == []
    assert game.state.unit_owner[0] == -1 and pos(game, 0) is None
    assert game.state.unit_energy[1] == 10  # no cost, then +1 on its own paint
    assert game.state.points[1] == 500 + 1


def test_dr15_case_b_attack_recolours_and_pops_bubbles() -> None:
    game = bare_game(6, 6)
    unit(game, 0, 0, 2, 2)
    bubble(game, 0, 1, 2, 3)
    bubble(game, 1, 0, 1, 2)
    play(game, [at(0, D.right)])
    assert game.state.bubble_colour[0] == 0 and game.state.bubble_rtp[0] == 2
    play(game, [at(0, D.up)])
    assert game.state.bubble_colour[1] == -1
    assert {(1, 2), (0, 2), (2, 2), (1, 1), (1, 3)} <= painted(game, 0)
    assert game.state.points[0] >= 500


def test_f2_case_c_on_an_own_unit_queues_a_free_attack() -> None:
    game = bare_game(6, 6)
    paint(game, 0, rect(1, 3, 1, 3))
    unit(game, 0, 0, 2, 2)
    unit(game, 1, 0, 2, 3)
    source = script(game)
    play(game, [mv(1, D.down), at(0, D.right)])
    assert source.calls == []
    assert game.state.unit_owner[:2] == [0, 0] and game.state.points[0] == 9


def test_dr15_case_d_no_unit_at_round_start_nothing_happens() -> None:
    game = bare_game(6, 6)
    unit(game, 0, 0, 2, 2, energy=8)
    unit(game, 1, 1, 1, 3)
    source = script(game, 0)  # p0 first: the square is empty and was empty at round start
    play(game, [at(0, D.right)], [mv(1, D.down)])
    assert source.calls == [(0, 1, 0)]
    assert game.state.unit_owner[1] == 1 and pos(game, 1) == (2, 3)


def test_dr16_ability_without_upgrade_is_refused() -> None:
    game = bare_game(6, 6)
    unit(game, 0, 0, 2, 2)
    play(game, [ab(0)])
    assert game.events[-1][-1] == "NOT_UPGRADED" and flags(game) == {}


def test_dr17_dr18_stepping_on_an_enemy_trail_erases_it_all() -> None:
    game = bare_game(8, 8)
    unit(game, 0, 0, 3, 0)
    unit(game, 1, 1, 6, 6)
    trail(game, 1, 1, [(3, 1), (3, 2), (4, 2), (5, 2)])
    game.state.unit_record[1] = (game.state.index(2, 1), game.state.index(3, 1))
    play(game, [mv(0, D.right)])
    assert trail_cells(game, 1) == set() and game.state.unit_record[1] is None


def test_dr19_diagonal_walls_seal() -> None:
    # (1, 2) and (2, 1) touch only diagonally, yet with the trail they enclose (2, 2)
    game = bare_game(8, 8)
    paint(game, 0, [(1, 2), (2, 1)])
    unit(game, 0, 0, 1, 2)
    for step in (D.right, D.down, D.down, D.left, D.left):
        play(game, [mv(0, step)])
    assert trail_cells(game, 0) == {(1, 3), (2, 3), (3, 3), (3, 2), (3, 1)}
    assert (2, 2) not in painted(game, 0)
    play(game, [mv(0, D.up)])
    assert painted(game, 0) == {(1, 2), (2, 1), (1, 3), (2, 3), (3, 3), (3, 2), (3, 1), (2, 2)}
    assert (1, 1) not in painted(game, 0)


def test_dr21_death_erases_the_recorded_trail_but_not_orphans() -> None:
    game = bare_game(8, 8)
    paint(game, 1, [(5, 5)])
    unit(game, 0, 0, 2, 2)
    unit(game, 1, 1, 2, 3)
    trail(game, 0, 0, [(3, 2), (4, 2)])
    game.state.unit_record[0] = (game.state.index(4, 1), game.state.index(4, 2))
    trail(game, 0, 0, [(0, 6)])  # an orphan piece, not connected
    script(game, 5, 0)  # rolls 5 vs 0: the attacker wins
    play(game, [], [at(1, D.left)])
    assert game.state.unit_owner[0] == -1
    assert trail_cells(game, 0) == {(0, 6)}


def test_dr23_free_attack_skips_an_own_unit_on_the_square() -> None:
    game = bare_game(8, 8)
    paint(game, 0, [(3, 3)])
    unit(game, 0, 0, 3, 3)
    unit(game, 1, 1, 3, 4)
    unit(game, 2, 0, 4, 4)
    source = script(game, 1)  # p1 first: unit 1 leaves; the attack queues a free attack; unit 2 enters
    play(game, [at(0, D.right), mv(2, D.up)], [mv(1, D.right)])
    assert game.state.unit_owner[2] == 0 and pos(game, 2) == (3, 4)
    assert all(call[:2] == (0, 1) for call in source.calls)


def test_dr24_a_bubble_never_recoloured_never_pops() -> None:
    game = bare_game(6, 6, rounds_per_bubble_move=1000)
    bubble(game, 0, 1, 2, 2)
    for _ in range(10):
        play(game)
    assert game.state.bubble_colour[0] == 1


def test_dr26_zone_clears_a_whole_connected_enemy_zone_and_inner_own_trail() -> None:
    game = bare_game(12, 12)
    paint(game, 1, rect(0, 2, 0, 11))
    for cell in rect(0, 2, 0, 11):
        game.state.ability[game.state.index(*cell)] = 4
    unit(game, 0, 0, 4, 4, upgraded=True)
    trail(game, 0, 0, [(4, 5), (4, 6)])  # (4, 5) is inner: cleared; (4, 6) is on the ring
    game.state.unit_record[0] = (game.state.index(5, 5), game.state.index(4, 5))
    play(game, [ab(0)])
    zone = set(rect(2, 6, 2, 6))
    assert set(flags(game)) == zone  # p1's zone switched off beyond the new zone too
    assert game.state.unit_record[0] is None
    assert (4, 5) not in trail_cells(game, 0)


def test_dr27_bubbles_do_not_cross_flag_boundaries() -> None:
    game = bare_game(6, 6, rounds_per_bubble_move=1)
    bubble(game, 0, 0, 2, 2)
    for cell in [(2, 1), (2, 3), (1, 2)]:
        game.state.ability[game.state.index(*cell)] = 50
    source = script(game)
    play(game)
    assert pos_of_bubble(game, 0) == (3, 2) and source.calls == []  # one candidate: no draw


def pos_of_bubble(game: DomainsGame, b: int) -> tuple[int, int]:
    return game.state.xy(game.state.bubble_pos[b])


def test_dr29_units_at_the_cap_do_not_respawn() -> None:
    game = bare_game(6, 6, max_number_of_units=1)
    paint(game, 0, rect(0, 1, 0, 1))
    unit(game, 0, 0, 0, 0)
    game.state.respawn_counter = [0, NEVER]
    for _ in range(6):
        play(game)
    assert game.state.living_units(0) == [0] and game.state.respawn_counter[0] == 0


def test_dr29_dr30_spawns_on_free_own_squares() -> None:
    game = bare_game(6, 6, rounds_per_respawn=1, rounds_per_bubble=1)
    paint(game, 0, [(0, 0), (0, 1)])
    unit(game, 0, 0, 0, 0)
    game.state.respawn_counter = [0, NEVER]
    game.state.bubble_counter = [0, NEVER]
    play(game)
    state = game.state
    assert state.unit_owner[1] == 0 and pos(game, 1) == (0, 1)  # one free square: no draw
    assert state.bubble_colour[0] == -1 and state.bubble_counter[0] == 0  # no room: counter steps back


def test_dr31_no_empty_square_skips_without_drawing() -> None:
    game = bare_game(6, 6, max_number_of_bonuses=1)
    k = 0
    for x in range(6):
        for y in range(6):
            bubble(game, k, 0, x, y)
            k += 1
    game.state.bonus_counter = [10]
    source = ScriptedRandom([])
    game.source = source
    play(game)
    assert game.state.bonus_pos == [-1] and source.calls == []


def test_dr32_energy_gain_loss_and_the_upgraded_exemption() -> None:
    game = bare_game(6, 6)
    paint(game, 0, [(0, 0)])
    paint(game, 1, [(5, 5), (5, 4)])
    unit(game, 0, 0, 0, 0, energy=20)
    unit(game, 1, 0, 5, 5, energy=5)
    unit(game, 2, 0, 5, 4, energy=5, upgraded=True)
    unit(game, 3, 0, 3, 3, energy=1)
    play(game)
    assert game.state.unit_energy[:4] == [20, 4, 5, 1]


def test_dr35_the_game_never_ends_early() -> None:
    game = DomainsGame(make_config(number_of_rounds=3, board_height=6, board_width=6), 4)
    for _ in range(3):
        assert not game.finished
        play(game)
    assert game.finished and len(game.frames) == 4


def test_section6_competition_ranking() -> None:
    assert competition_ranks([10, 10, 3]) == [1, 1, 3]
    assert competition_ranks([1, 5, 5, 9]) == [4, 2, 2, 1]


def test_section74_names_settings_and_old_format() -> None:
    assert export_name("My Bot\t2", 0) == "My_Bot_2" and export_name("", 3) == "player3"
    block = settings_block(DomainsConfig())
    lines = block.splitlines()
    assert len(lines) == 22 and "ROUNDS_PER_BUBBLE_MOVE5" in lines and "ABILITY SIZE\t\t5" in lines
    game = DomainsGame(make_config(number_of_rounds=2, board_height=6, board_width=6), 8)
    recorder = OldFormatRecorder(game)
    for _ in range(2):
        play(game)
        recorder.after_round()
    old = recorder.export(["a", "b"]).splitlines()
    assert old[0] == "2 6 6" and old[1] == "2 a b"
    frames = old[2:5]
    assert [f.split(" ")[0] for f in frames] == ["0", "0", "1"]
    assert all(len(f.split(" ")[-1]) == 72 for f in frames)  # 36 cells, two codes each
    new = export_new(game, ["a", "b"]).splitlines()
    assert new[-1].startswith("a ") and new[-1].endswith(" ")


def test_dr5_tables_start_empty() -> None:
    config = make_config(board_height=6, board_width=7, num_players=3)
    state = State.empty(config)
    size = 6 * 7
    for table in (
        state.painter,
        state.drawer,
        state.drawer_unit,
        state.unit_at,
        state.bubble_at,
        state.bonus_at,
    ):
        assert table.shape == (size,) and (table == -1).all()
    assert (state.ability == 0).all()  # no flag
    assert state.unit_owner == [-1] * config.unit_table_size  # every unit slot free
    assert state.unit_energy == [0] * config.unit_table_size
    assert not any(state.unit_upgraded) and state.unit_record == [None] * config.unit_table_size
    assert state.bubble_colour == [-1] * config.bubble_table_size
    assert state.bubble_rtp == [0] * config.bubble_table_size
    assert state.bubble_moves == [0] * config.bubble_table_size
    assert state.bonus_pos == [-1] * config.bonus_table_size  # every bonus off board
    assert (
        state.points == [0, 0, 0] and state.respawn_counter == [0, 0, 0] and state.bubble_counter == [0, 0, 0]
    )
    assert state.round == 0
    # the export's first frame is taken against that empty board: exactly the 2 x 9 start squares
    game = DomainsGame(make_config(board_height=6, board_width=6), 3)
    label, d0, d1, cells = game.frames[0].split(" ")
    assert (label, d0, d1) == ("0", "0", "0")
    assert len(re.findall(r"\d+\D\D", cells)) == 18


def test_dr9_round_start_snapshot_is_taken_before_any_order() -> None:
    game = bare_game(8, 8)
    paint(game, 0, [(2, 2)])
    unit(game, 0, 0, 2, 2, energy=5)
    unit(game, 1, 1, 2, 3, energy=5)
    # p1 first: unit 1 steps diagonally-adjacent to (2, 2); p0 then attacks the square it left.
    # S0 still has unit 1 on (2, 3) and it is in range, so a fair fight follows: rolls 5 vs 0.
    source = script(game, 1, 5, 0)
    play(game, [at(0, D.right)], [mv(1, D.down)])
    assert source.values == [] and source.calls == [(0, 1, 1), (0, 5, 5), (0, 5, 0)]
    assert game.state.unit_owner[1] == -1 and pos(game, 1) is None
    assert pos(game, 0) == (2, 2)


def test_dr9_round_start_clears_killed_marks_and_queues() -> None:
    game = bare_game(12, 12)
    unit(game, 0, 0, 2, 2)
    unit(game, 1, 1, 8, 8, upgraded=True)
    unit(game, 2, 1, 2, 3)
    # leftovers of an earlier round: a stale kill mark on unit 1, a stale ability of unit 0 and a
    # stale free attack of unit 0 on unit 2's square
    game._killed = {1}
    game._ability_queue = [0]
    game._free_attacks = [(0, game.state.index(2, 2), game.state.index(2, 3))]
    source = script(game)
    play(game, [], [ab(1)])
    assert source.calls == []  # no stale fight
    assert game.state.unit_owner[:3] == [0, 1, 1]
    assert set(flags(game)) == set(rect(6, 10, 6, 10))  # only unit 1's zone, though it was "killed"


def test_dr11_orders_for_units_not_owned_now_are_refused() -> None:
    game = bare_game(8, 8)
    unit(game, 0, 0, 2, 2, energy=5)
    unit(game, 1, 1, 2, 3, energy=5)
    # p1 first: unit 1 attacks unit 0 and wins (5 vs 0); p0's order for its now dead unit 0 is
    # refused, as are p0's orders for p1's unit and for a free slot
    source = script(game, 1, 5, 0)  # then p0 alone: no more interleaving draws
    play(game, [mv(0, D.down), mv(1, D.down), mv(5, D.up)], [at(1, D.left)])
    assert source.values == [] and source.calls == [(0, 1, 1), (0, 5, 5), (0, 5, 0)]
    refusals = [e for e in game.events if e[-1] == "NOT_OWNED"]
    assert [(e[0], e[1]) for e in refusals] == [(0, 0), (0, 1), (0, 5)]
    assert game.state.unit_owner[0] == -1 and pos(game, 0) is None
    assert pos(game, 1) == (2, 3) and game.state.unit_owner[5] == -1
    # an owned unit's order goes on to the move rule
    play(game, [], [mv(1, D.down)])
    assert pos(game, 1) == (3, 3) and game.events == []


def test_dr14_relocation_then_draw() -> None:
    game = bare_game(6, 6)
    paint(game, 0, [(2, 2)])
    unit(game, 0, 0, 2, 2)
    play(game, [mv(0, D.right)])
    state = game.state
    a, d = state.index(2, 2), state.index(2, 3)
    assert state.unit_at[a] == -1 and state.unit_at[d] == 0 and pos(game, 0) == (2, 3)
    assert trail_cells(game, 0) == {(2, 3)} and state.unit_record[0] == (a, d)  # draw ran (DR-17 step 3)


def test_dr14_a_winning_mover_relocates_onto_the_loser_square() -> None:
    game = bare_game(6, 6)
    unit(game, 0, 0, 2, 2, energy=5)
    unit(game, 1, 1, 2, 3, energy=5)
    source = script(game, 5, 0)  # fair fight, the attacker wins; its cost R(0, 0) draws nothing
    play(game, [mv(0, D.right)])
    assert source.values == []
    assert pos(game, 0) == (2, 3) and game.state.unit_at[game.state.index(2, 2)] == -1
    assert game.state.unit_owner[1] == -1


def test_dr28_count_lists_painted_squares_in_row_major_order_and_ticks_flags() -> None:
    game = bare_game(6, 6)
    paint(game, 0, [(3, 1), (0, 4), (1, 0), (1, 5)])
    paint(game, 1, [(2, 2)])
    trail(game, 3, 0, [(5, 5)])  # a trail is not paint: not counted
    state = game.state
    state.ability[state.index(0, 4)] = 1
    state.ability[state.index(4, 4)] = 3
    play(game)
    assert [state.xy(int(q)) for q in state.owned[0]] == [(0, 4), (1, 0), (1, 5), (3, 1)]
    assert [state.xy(int(q)) for q in state.owned[1]] == [(2, 2)]
    assert state.ability[state.index(0, 4)] == 0 and flags(game) == {(4, 4): 2}
    assert painted(game, 0) == {(3, 1), (0, 4), (1, 0), (1, 5)}  # the flag going off keeps the paint


def test_dr33_square_points() -> None:
    game = bare_game(6, 6, points_per_square=3)
    paint(game, 0, rect(0, 1, 0, 1))
    paint(game, 1, [(5, 5)])
    game.state.points = [10, 0]
    play(game)
    assert game.state.points == [10 + 3 * 4, 3 * 1]
    play(game)
    assert game.state.points == [10 + 2 * 3 * 4, 2 * 3 * 1]


def test_dr34_end_of_round_frame_against_s0_and_p0_then_next_round() -> None:
    game = bare_game(6, 6)
    paint(game, 1, [(5, 5)])
    unit(game, 0, 0, 2, 2)
    game.state.points = [100, 7]
    game.frames = ["initial"]
    play(game, [mv(0, D.right)])
    # squares 14 (left, now empty: sq 0 ':', ct 13 'G') and 15 (unit of p0: ':' ':'); deltas from P0
    assert game.frames == ["initial", "0 0 1 14:G1::"]
    assert game.state.points == [100, 8] and game.state.round == 1
    play(game)
    assert game.frames[-1] == "1 0 1 " and game.state.round == 2  # no change: ends after the last delta
