"""Tournament formats: round robins, the drones 2018 event, match seeds and option errors."""

from __future__ import annotations

import itertools
import random
from collections import Counter
from collections.abc import Mapping, Sequence

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from botarena.tournament.formats import (
    DRONES_2018_PRESET,
    FORMATS,
    FinishedMatch,
    Format,
    FormatError,
    MatchSpec,
    make_format,
    match_seed,
    pick_groups,
)
from botarena.tournament.roundrobin import circle_schedule

NAMES = [f"e{i:02d}" for i in range(40)]


def finish(
    spec: MatchSpec, ranks: Sequence[int] | None, scores: Sequence[float] | None = None
) -> FinishedMatch:
    """The finished record of `spec` with the given ranks (None: the match failed)."""
    return FinishedMatch(
        key=spec.key,
        round=spec.round,
        seats=spec.seats,
        ranks=None if ranks is None else tuple(ranks),
        scores=None if scores is None else tuple(scores),
    )


def run_all(
    fmt: Format, result: object = None, limit: int = 10_000
) -> tuple[list[MatchSpec], dict[str, FinishedMatch]]:
    """Drive `fmt` to the end; each match's ranks come from `result(spec)` (default: seat order wins)."""
    scheduled: list[MatchSpec] = []
    finished: dict[str, FinishedMatch] = {}
    for _ in range(limit):
        if fmt.done(scheduled, finished):
            return scheduled, finished
        new = fmt.schedule(scheduled, finished)
        pending = [spec for spec in scheduled if spec.key not in finished]
        assert new or pending, "not done, yet nothing scheduled and nothing running"
        scheduled.extend(new)
        for spec in [*pending, *new]:
            ranks = result(spec) if callable(result) else list(range(1, len(spec.seats) + 1))
            finished[spec.key] = finish(spec, ranks)
    raise AssertionError("the format never finished")


# --- match seeds -------------------------------------------------------------------------------------


def test_match_seed_is_stable_forever() -> None:
    # Recorded values: changing the derivation would change every re-run of every tournament.
    assert match_seed(0, "r01-m001") == match_seed(0, "r01-m001")
    assert match_seed(1, "r01-m001") == 3568597193
    assert match_seed(1, "r01-m002") == 548445929
    assert all(0 <= match_seed(seed, key) < 2**32 for seed in (0, 7, 2**64 - 1) for key in ("a", "r99-m999"))
    assert match_seed(1, "r01-m001") != match_seed(2, "r01-m001")


def test_every_match_seed_derives_from_the_tournament_seed() -> None:
    for name in FORMATS:
        fmt = make_format(name, NAMES[:6], seed=42, players=2, options={})
        scheduled, _ = run_all(fmt)
        assert scheduled
        assert all(spec.seed == match_seed(42, spec.key) for spec in scheduled)
        assert len({spec.key for spec in scheduled}) == len(scheduled)


# --- errors ------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "entrants", "players", "options", "message"),
    [
        ("knockout", ["a", "b"], 2, {}, "unknown format 'knockout'"),
        ("round-robin", ["a"], 2, {}, "needs at least 2 entrants"),
        ("round-robin", ["a", "b"], 3, {}, "needs at least 3 entrants"),
        ("round-robin", ["a", "b", "a"], 2, {}, "'a' is listed twice"),
        ("round-robin", ["a", ""], 2, {}, "non-empty strings"),
        ("round-robin", ["a", "b"], 1, {}, "integer >= 2"),
        ("round-robin", ["a", "b"], 2, {"cycle": 2}, "no option 'cycle'"),
        ("round-robin", ["a", "b"], 2, {"cycles": 0}, "'cycles' must be an integer in 1..1000"),
        ("round-robin", ["a", "b"], 2, {"cycles": True}, "'cycles' must be an integer"),
        ("round-robin", ["a", "b"], 2, {"cycles": 1.5}, "'cycles' must be an integer"),
        ("round-robin", ["a", "b"], 2, {"groups": 3}, "'groups' is for matches of 3 or more"),
        ("round-robin", ["a", "b"], 2, {"players": 3}, "option 'players' is 3"),
        ("round-robin", NAMES, 5, {}, "too many"),
        ("drones-2018", ["a", "b", "c"], 3, {}, "is for 2-player matches"),
        ("drones-2018", ["a", "b"], 2, {"cycles": 2}, "has no option 'cycles'"),
    ],
)
def test_bad_formats_are_one_line_errors(
    name: str, entrants: list[str], players: int, options: dict[str, object], message: str
) -> None:
    with pytest.raises(FormatError, match=message) as caught:
        make_format(name, entrants, seed=1, players=players, options=options)
    assert "\n" not in str(caught.value)


def test_bad_seed_is_a_format_error() -> None:
    with pytest.raises(FormatError, match="seed"):
        make_format("round-robin", ["a", "b"], seed=-1, players=2, options={})


def test_runner_options_are_accepted_and_ignored() -> None:
    fmt = make_format("round-robin", ["a", "b"], seed=1, players=2, options={"players": 2, "pace_ms": 50})
    assert len(fmt.schedule([], {})) == 1
    assert (
        make_format("round-robin", ["a", "b"], seed=1, players=2, options={"cycles": 2.0}).planned_matches
        == 2
    )


# --- round robin (2 players) -------------------------------------------------------------------------


@settings(max_examples=40, deadline=None)
@given(st.integers(2, 13), st.integers(1, 4), st.integers(0, 2**32))
def test_round_robin_every_pair_meets_cycles_times_with_balanced_seats(
    n: int, cycles: int, seed: int
) -> None:
    fmt = make_format("round-robin", NAMES[:n], seed=seed, players=2, options={"cycles": cycles})
    matches = fmt.schedule([], {})
    pairs = Counter(frozenset(spec.seats) for spec in matches)
    assert len(pairs) == n * (n - 1) // 2
    assert set(pairs.values()) == {cycles}
    seat0 = Counter(spec.seats[0] for spec in matches)
    played = Counter(name for spec in matches for name in spec.seats)
    for name in NAMES[:n]:
        assert abs(2 * seat0[name] - played[name]) <= 1  # seat 0 in half the matches, +-1 when odd
    if cycles % 2 == 0:
        ordered = Counter(spec.seats for spec in matches)
        assert all(ordered[(a, b)] == ordered[(b, a)] for a, b in ordered)  # cycle 2 swaps the seats
    for number in {spec.round for spec in matches}:
        playing = [name for spec in matches if spec.round == number for name in spec.seats]
        assert len(playing) == len(set(playing))  # nobody plays twice in a round
    assert [(s.round, s.key) for s in matches] == sorted((s.round, s.key) for s in matches)


def test_round_robin_rounds_follow_the_circle_method() -> None:
    fmt = make_format("round-robin", ["A", "B", "C", "D"], seed=3, players=2, options={"cycles": 2})
    matches = fmt.schedule([], {})
    assert [m.key for m in matches[:3]] == ["r01-m001", "r01-m002", "r02-m001"]
    first = [[frozenset(spec.seats) for spec in matches if spec.round == r] for r in (1, 2, 3)]
    assert first == [[frozenset(p) for p in pairs] for pairs in circle_schedule(["A", "B", "C", "D"])]
    assert [m.seats for m in matches if m.round == 4] == [m.seats[::-1] for m in matches if m.round == 1]


def test_round_robin_schedules_once_and_is_done_when_all_finished_or_failed() -> None:
    fmt = make_format("round-robin", ["A", "B", "C"], seed=3, players=2, options={})
    first = fmt.schedule([], {})
    assert len(first) == 3 and fmt.planned_matches == 3
    assert fmt.schedule(first, {}) == []
    assert fmt.schedule(first[:1], {}) == first[1:]  # a resumed run adds only what is missing
    finished = {first[0].key: finish(first[0], [1, 2]), first[1].key: finish(first[1], None)}
    assert not fmt.done(first, finished)
    finished[first[2].key] = finish(first[2], [1, 1])
    assert fmt.done(first, finished)  # the failed match is no result, and is not replayed
    assert fmt.schedule(first, finished) == []


def test_round_robin_key_widths_keep_keys_sortable() -> None:
    fmt = make_format("round-robin", NAMES[:12], seed=1, players=2, options={"cycles": 10})
    keys = [spec.key for spec in fmt.schedule([], {})]
    assert keys[0] == "r001-m001" and keys[-1] == "r110-m006"
    assert keys == sorted(keys)


# --- round robin (3..N players) ----------------------------------------------------------------------


@settings(max_examples=30, deadline=None)
@given(st.integers(3, 5), st.integers(0, 4), st.integers(1, 2))
def test_round_robin_groups_rotate_every_seat_fairly(players: int, extra: int, cycles: int) -> None:
    n = players + extra
    fmt = make_format("round-robin", NAMES[:n], seed=5, players=players, options={"cycles": cycles})
    matches = fmt.schedule([], {})
    groups = Counter(frozenset(spec.seats) for spec in matches)
    assert set(groups) == {frozenset(g) for g in itertools.combinations(NAMES[:n], players)}
    assert set(groups.values()) == {players * cycles}
    for group in groups:
        seatings = [spec.seats for spec in matches if frozenset(spec.seats) == group]
        for name in group:  # each member sits in each seat equally often
            assert Counter(seats.index(name) for seats in seatings) == dict.fromkeys(range(players), cycles)
    seat_counts = Counter((name, spec.seats.index(name)) for spec in matches for name in spec.seats)
    assert len(set(seat_counts.values())) == 1  # and so over the whole tournament


def test_round_robin_with_as_many_players_as_entrants() -> None:
    fmt = make_format("round-robin", ["a", "b", "c", "d"], seed=0, players=4, options={})
    assert [spec.seats for spec in fmt.schedule([], {})] == [
        ("a", "b", "c", "d"),
        ("b", "c", "d", "a"),
        ("c", "d", "a", "b"),
        ("d", "a", "b", "c"),
    ]


@settings(max_examples=30, deadline=None)
@given(st.integers(4, 30), st.integers(3, 4), st.integers(1, 60), st.integers(0, 1000))
def test_groups_option_keeps_appearances_even(n: int, players: int, count: int, seed: int) -> None:
    groups = pick_groups(NAMES[:n], players, count, seed)
    assert len(groups) == count
    appearances = Counter(name for group in groups for name in group)
    assert max(appearances.values()) - min(appearances.get(name, 0) for name in NAMES[:n]) <= 1
    assert all(len(set(group)) == players for group in groups)


def test_groups_option_in_the_format() -> None:
    fmt = make_format("round-robin", NAMES[:20], seed=9, players=4, options={"groups": 10})
    matches = fmt.schedule([], {})
    assert len(matches) == 40  # 10 groups x 4 seat rotations
    assert len({frozenset(spec.seats) for spec in matches}) == 10  # ten different groups
    assert fmt.planned_matches == 40


# --- the drones 2018 event (spec 2.3 and 6.3) --------------------------------------------------------


def test_e18_schedule_and_standings() -> None:
    fmt = make_format("drones-2018", ["A", "B", "C", "D"], seed=2018, players=2, options={})
    matches = fmt.schedule([], {})
    assert [(m.round, m.seats) for m in matches] == [
        (1, ("A", "D")),
        (1, ("B", "C")),
        (2, ("A", "C")),
        (2, ("D", "B")),
        (3, ("A", "B")),
        (3, ("C", "D")),
    ]  # E18: R1 A-D, B-C; R2 A-C, D-B; R3 A-B, C-D, PLAYER 1 (seat 0) named first
    assert DRONES_2018_PRESET == "bravolt2018"
    wins = {("A", "D"): (600, 400), ("B", "C"): (500, 500), ("A", "C"): (300, 700)}
    wins |= {("D", "B"): (0, 0), ("A", "B"): (510, 490), ("C", "D"): (480, 520)}
    finished = {}
    for spec in matches:
        one, two = wins[(spec.seats[0], spec.seats[1])]
        ranks = [1, 2] if one > two else [2, 1] if two > one else [1, 1]
        finished[spec.key] = finish(spec, ranks, [float(one), float(two)])
    assert fmt.done(matches, finished)
    from botarena.tournament.formats import drones_2018_standings

    table = drones_2018_standings(["A", "B", "C", "D"], finished.values())
    assert [(s.entrant, s.rank, s.points) for s in table] == [
        ("A", 1, 2.0),
        ("D", 2, 1.5),
        ("C", 3, 1.5),
        ("B", 4, 1.0),
    ]


def test_6_3_drones_2018_odd_count_and_failed_match() -> None:
    from botarena.tournament.formats import drones_2018_standings

    fmt = make_format("drones-2018", ["A", "B", "C", "D", "E"], seed=1, players=2, options={})
    matches = fmt.schedule([], {})
    assert [m.seats for m in matches if m.round == 1] == [("B", "E"), ("C", "D")]  # A has the bye
    finished = {m.key: finish(m, [1, 2], [3.0, 1.0]) for m in matches}
    finished[matches[0].key] = finish(matches[0], None)  # failed: no result, nobody played it
    table = {s.entrant: s for s in drones_2018_standings(fmt.entrants, finished.values())}
    assert table["B"].played == 3 and table["E"].played == 3
    assert table["A"].played == 4 and table["A"].round_wins + table["A"].round_losses == 16
    assert all(s.round_draws == 0 for s in table.values())


# --- determinism -------------------------------------------------------------------------------------


def shuffled(finished: Mapping[str, FinishedMatch], seed: int) -> dict[str, FinishedMatch]:
    items = list(finished.items())
    random.Random(seed).shuffle(items)
    return dict(items)


@pytest.mark.parametrize("name", ["round-robin", "drones-2018"])
def test_same_inputs_same_schedule(name: str) -> None:
    a = make_format(name, NAMES[:7], seed=11, players=2, options={})
    b = make_format(name, NAMES[:7], seed=11, players=2, options={})
    assert run_all(a) == run_all(b)
    c = make_format(name, NAMES[:7], seed=12, players=2, options={})
    assert [s.seed for s in run_all(a)[0]] != [s.seed for s in run_all(c)[0]]
