"""Tournament formats: round robins, the drones 2018 event, match seeds and option errors."""

from __future__ import annotations

import itertools
import random
from collections import Counter
from collections.abc import Callable, Mapping, Sequence

import networkx as nx  # type: ignore[import-untyped]
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from botarena.core.formats import FinishedMatch
from botarena.core.roundrobin import circle_schedule
from botarena.games.drones.event2018 import DRONES_2018_PRESET
from botarena.tournament.formats import (
    FORMATS,
    Format,
    FormatError,
    MatchSpec,
    SingleElimination,
    Swiss,
    bracket_order,
    make_format,
    match_quality,
    match_seed,
    pick_groups,
)
from botarena.tournament.ratings import MODEL

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


Result = Callable[[MatchSpec], Sequence[int] | None]


def seat_order(spec: MatchSpec) -> list[int]:
    """Seat 0 wins, seat 1 comes second, ..."""
    return list(range(1, len(spec.seats) + 1))


def random_results(seed: int, failures: bool = True) -> Result:
    """Ranks drawn from the match key: the same match always gets the same result."""

    def result(spec: MatchSpec) -> Sequence[int] | None:
        rng = random.Random(f"{seed}/{spec.key}")
        if failures and rng.random() < 0.1:
            return None
        return [rng.randint(1, len(spec.seats)) for _ in spec.seats]

    return result


def run_all(
    fmt: Format, result: Result = seat_order, shuffle: int | None = None, limit: int = 10_000
) -> tuple[list[MatchSpec], dict[str, FinishedMatch]]:
    """Drive `fmt` to the end, finishing every scheduled match at once with `result(spec)`.

    With `shuffle`, the format sees `scheduled` and `finished` in a random order at every step.
    """
    scheduled: list[MatchSpec] = []
    finished: dict[str, FinishedMatch] = {}
    rng = random.Random(shuffle)

    def view() -> tuple[list[MatchSpec], dict[str, FinishedMatch]]:
        if shuffle is None:
            return scheduled, finished
        return rng.sample(scheduled, len(scheduled)), shuffled(finished, rng.randrange(2**32))

    for _ in range(limit):
        if fmt.done(*view()):
            assert fmt.schedule(*view()) == []
            return scheduled, finished
        new = fmt.schedule(*view())
        pending = [spec for spec in scheduled if spec.key not in finished]
        assert new or pending, "not done, yet nothing scheduled and nothing running"
        known = {spec.key for spec in scheduled}
        assert all(spec.key not in known for spec in new)
        scheduled.extend(new)
        for spec in [*pending, *new]:
            finished[spec.key] = finish(spec, result(spec))
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
    from botarena.games.drones.event2018 import drones_2018_standings

    table = drones_2018_standings(["A", "B", "C", "D"], finished.values())
    assert [(s.entrant, s.rank, s.points) for s in table] == [
        ("A", 1, 2.0),
        ("D", 2, 1.5),
        ("C", 3, 1.5),
        ("B", 4, 1.0),
    ]


def test_6_3_drones_2018_odd_count_and_failed_match() -> None:
    from botarena.games.drones.event2018 import drones_2018_standings

    fmt = make_format("drones-2018", ["A", "B", "C", "D", "E"], seed=1, players=2, options={})
    matches = fmt.schedule([], {})
    assert [m.seats for m in matches if m.round == 1] == [("B", "E"), ("C", "D")]  # A has the bye
    finished = {m.key: finish(m, [1, 2], [3.0, 1.0]) for m in matches}
    finished[matches[0].key] = finish(matches[0], None)  # failed: no result, nobody played it
    table = {s.entrant: s for s in drones_2018_standings(fmt.entrants, finished.values())}
    assert table["B"].played == 3 and table["E"].played == 3
    assert table["A"].played == 4 and table["A"].round_wins + table["A"].round_losses == 16
    assert all(s.round_draws == 0 for s in table.values())


def _drones_details(draws: int, metas: Sequence[object] | None = None) -> dict[str, object]:
    details: dict[str, object] = {"roundTotals": {"player1Wins": 0, "player2Wins": 0, "draws": draws}}
    if metas is not None:
        details["meta"] = list(metas)
    return details


def test_6_3_drones_2018_standings_count_round_draws_and_print_the_summary() -> None:
    from botarena.games.drones.event2018 import drones_2018_standings, drones_2018_summary

    fmt = make_format("drones-2018", ["A", "B", "C"], seed=1, players=2, options={})
    matches = fmt.schedule([], {})
    assert [m.seats for m in matches] == [("B", "C"), ("A", "C"), ("A", "B")]
    scores = {("B", "C"): (792.0, 208.0), ("A", "C"): (5.0, 5.0), ("A", "B"): (0.0, 1.0)}
    draws = {("B", "C"): 0, ("A", "C"): 990, ("A", "B"): 1336}
    finished = {}
    details = {}
    for m in matches:
        one, two = scores[(m.seats[0], m.seats[1])]
        ranks = [1, 2] if one > two else [2, 1] if two > one else [1, 1]
        finished[m.key] = finish(m, ranks, [one, two])
        details[m.key] = _drones_details(draws[(m.seats[0], m.seats[1])])
    table = {s.entrant: s for s in drones_2018_standings(fmt.entrants, finished.values(), details)}
    assert (table["A"].round_draws, table["B"].round_draws, table["C"].round_draws) == (2326, 1336, 990)
    # Without the details (replays unreadable) the draws are unknown: 0, the points unchanged.
    bare = {s.entrant: s for s in drones_2018_standings(fmt.entrants, finished.values())}
    assert all(s.round_draws == 0 for s in bare.values())
    assert [bare[n].points for n in "ABC"] == [table[n].points for n in "ABC"]
    summary = drones_2018_summary(fmt.entrants, finished.values(), details)
    assert summary == {
        "A": {"C": "DRAW (W:5/ L:5/ D:990)", "B": "LOSS (W:0/ L:1/ D:1336)"},
        "B": {"C": "WIN (W:792/ L:208/ D:0)", "A": "WIN (W:1/ L:0/ D:1336)"},
        "C": {"B": "LOSS (W:208/ L:792/ D:0)", "A": "DRAW (W:5/ L:5/ D:990)"},
    }  # spec 6.3: the event's text; a failed match has no line


def test_6_3_drones_2018_notes_name_entrants_the_event_would_have_dropped() -> None:
    from botarena.games.drones.event2018 import drones_2018_notes

    fmt = make_format("drones-2018", ["A", "B", "C", "D"], seed=1, players=2, options={})
    matches = fmt.schedule([], {})
    metas = {"A": {"name": "Twin"}, "B": {"name": "Anonymous Player"}, "C": {"name": "Twin"}, "D": None}
    finished = {m.key: finish(m, [1, 1], [1.0, 1.0]) for m in matches}
    details = {m.key: _drones_details(0, [metas[name] for name in m.seats]) for m in matches}
    notes = drones_2018_notes(fmt.entrants, finished.values(), details)
    assert notes[0].startswith("every entrant is played: the 2018 event dropped a bot without meta.name")
    assert notes[1:] == [
        "B: no meta.name, the 2018 event would have dropped it",
        "C: meta.name 'Twin' as A, the 2018 event would have dropped it",
        "D: no meta.name, the 2018 event would have dropped it",
    ]
    # Unique names: only the general note.
    unique = {m.key: _drones_details(0, [{"name": n} for n in m.seats]) for m in matches}
    assert len(drones_2018_notes(fmt.entrants, finished.values(), unique)) == 1


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


@settings(max_examples=25, deadline=None)
@given(st.sampled_from(sorted(FORMATS)), st.integers(2, 9), st.integers(0, 2**32), st.integers(0, 1000))
def test_results_arrival_order_never_changes_the_schedule(name: str, n: int, seed: int, results: int) -> None:
    def build() -> Format:
        return make_format(name, NAMES[:n], seed=seed, players=2, options={})

    plain = run_all(build(), random_results(results))
    assert run_all(build(), random_results(results), shuffle=results) == plain


# --- swiss -------------------------------------------------------------------------------------------


def swiss_rounds(matches: Sequence[MatchSpec]) -> dict[int, list[MatchSpec]]:
    rounds: dict[int, list[MatchSpec]] = {}
    for spec in matches:
        rounds.setdefault(spec.round, []).append(spec)
    return rounds


@settings(max_examples=40, deadline=None)
@given(st.integers(2, 12), st.integers(1, 12), st.integers(0, 2**32), st.integers(0, 1000))
def test_swiss_no_rematch_where_avoidable(n: int, rounds: int, seed: int, results: int) -> None:
    fmt = make_format("swiss", NAMES[:n], seed=seed, players=2, options={"rounds": rounds})
    matches, _ = run_all(fmt, random_results(results))
    by_round = swiss_rounds(matches)
    assert sorted(by_round) == list(range(1, rounds + 1))
    met: set[frozenset[str]] = set()
    byes: Counter[str] = Counter()
    for number in sorted(by_round):
        pairs = [frozenset(spec.seats) for spec in by_round[number]]
        playing = sorted(name for pair in pairs for name in pair)
        assert len(pairs) == n // 2 and len(playing) == len(set(playing)) == 2 * (n // 2)
        byes.update(set(NAMES[:n]) - set(playing))
        if any(pair in met for pair in pairs):
            fresh = nx.Graph()
            fresh.add_nodes_from(playing)
            fresh.add_edges_from(
                tuple(p) for p in itertools.combinations(playing, 2) if frozenset(p) not in met
            )
            assert 2 * len(nx.max_weight_matching(fresh, maxcardinality=True)) < len(playing)
        met.update(pairs)
    assert max(byes.values(), default=0) - min(byes[name] for name in NAMES[:n]) <= 1
    if rounds < n:
        assert max(byes.values(), default=0) <= 1


def test_swiss_pairs_by_score_and_gives_the_bye_to_the_lowest_ranked() -> None:
    fmt = make_format("swiss", NAMES[:5], seed=7, players=2, options={"rounds": 3})
    assert isinstance(fmt, Swiss)
    first = fmt.schedule([], {})
    assert len(first) == 2 and fmt.schedule(first, {}) == []  # round 2 waits for round 1
    ranking = fmt.standings([], {})
    bye = (set(NAMES[:5]) - {name for spec in first for name in spec.seats}).pop()
    assert bye == ranking[-1]  # everyone on 0 points: the seed-derived order decides
    finished = {spec.key: finish(spec, [1, 2]) for spec in first}
    assert not fmt.done(first, finished)
    second = fmt.schedule(first, finished)
    points = fmt.points(first, finished)
    assert sorted(points.values()) == [0.0, 0.0, 1.0, 1.0, 1.0]  # two winners and the bye
    winners = {name for name, value in points.items() if value == 1.0}
    pairs = [set(spec.seats) for spec in second]
    assert sum(1 for pair in pairs if pair <= winners) == 1  # two of the three leaders meet
    second_bye = (set(NAMES[:5]) - {name for pair in pairs for name in pair}).pop()
    assert second_bye != bye and points[second_bye] == 0.0  # the lowest-ranked without a bye


def test_swiss_failed_match_scores_nothing_but_counts_as_met() -> None:
    fmt = make_format("swiss", ["a", "b", "c", "d"], seed=1, players=2, options={"rounds": 3})
    assert isinstance(fmt, Swiss)
    first = fmt.schedule([], {})
    finished = {first[0].key: finish(first[0], None), first[1].key: finish(first[1], [1, 1])}
    assert set(fmt.points(first, finished).values()) == {0.0, 0.5}
    second = fmt.schedule(first, finished)
    assert not {frozenset(s.seats) for s in second} & {frozenset(s.seats) for s in first}


def test_swiss_seats_alternate() -> None:
    fmt = make_format("swiss", NAMES[:8], seed=3, players=2, options={"rounds": 7})
    matches, _ = run_all(fmt, random_results(5, failures=False))
    balance: Counter[str] = Counter()
    for spec in matches:
        balance[spec.seats[0]] += 1
        balance[spec.seats[1]] -= 1
    assert all(abs(value) <= 3 for value in balance.values())
    assert len({frozenset(s.seats) for s in matches}) == len(matches) == 28  # a full round robin


def test_swiss_default_rounds_and_errors() -> None:
    assert make_format("swiss", NAMES[:9], seed=0, players=2, options={}).planned_matches == 4 * 4
    with pytest.raises(FormatError, match="'swiss' is for 2-player"):
        make_format("swiss", NAMES[:9], seed=0, players=3, options={})
    with pytest.raises(FormatError, match="'rounds' must be an integer"):
        make_format("swiss", NAMES[:9], seed=0, players=2, options={"rounds": 0})


# --- single elimination ------------------------------------------------------------------------------


def test_bracket_order_is_the_standard_seeding() -> None:
    assert bracket_order(2) == [1, 2]
    assert bracket_order(8) == [1, 8, 4, 5, 2, 7, 3, 6]


def test_elimination_higher_seeds_win_and_top_seeds_get_the_byes() -> None:
    names = NAMES[:6]
    fmt = make_format("single-elimination", names, seed=1, players=2, options={})
    assert isinstance(fmt, SingleElimination)
    first = fmt.schedule([], {})
    assert [(s.key, s.seats) for s in first] == [("r01-m002", ("e03", "e04")), ("r01-m004", ("e02", "e05"))]
    matches, finished = run_all(fmt)  # seat 0 (the higher seed in game 1) always wins
    assert [(s.round, s.seats) for s in matches] == [
        (1, ("e03", "e04")),
        (1, ("e02", "e05")),
        (2, ("e00", "e03")),
        (2, ("e01", "e02")),
        (3, ("e00", "e01")),
    ]
    assert fmt.champion(finished) == "e00"
    assert [(p.name, p.place) for p in fmt.placings(finished)] == [
        ("e00", 1),
        ("e01", 2),
        ("e02", 3),
        ("e03", 3),
        ("e04", 5),
        ("e05", 5),
    ]


def test_elimination_schedules_a_match_as_soon_as_both_sides_are_known() -> None:
    fmt = make_format("single-elimination", NAMES[:8], seed=1, players=2, options={})
    first = fmt.schedule([], {})
    assert len(first) == 4
    finished = {spec.key: finish(spec, [1, 2]) for spec in first[:2]}
    assert [s.seats for s in fmt.schedule(first, finished)] == [("e00", "e03")]


def test_elimination_draws_are_replayed_with_seats_swapped_then_the_higher_seed_advances() -> None:
    fmt = make_format("single-elimination", ["a", "b"], seed=1, players=2, options={"replays": 2})
    assert isinstance(fmt, SingleElimination)
    matches, finished = run_all(fmt, lambda spec: [1, 1])
    assert [(s.key, s.seats) for s in matches] == [
        ("r01-m001", ("a", "b")),
        ("r01-m001-g2", ("b", "a")),
        ("r01-m001-g3", ("a", "b")),
    ]
    assert fmt.champion(finished) == "a"
    # the lower seed wins the replay: it advances
    matches, finished = run_all(fmt, lambda spec: [1, 1] if spec.key == "r01-m001" else [1, 2])
    assert len(matches) == 2 and fmt.champion(finished) == "b"


def test_elimination_failed_match_is_replayed_like_a_draw() -> None:
    fmt = make_format("single-elimination", ["a", "b", "c"], seed=1, players=2, options={"replays": 1})
    assert isinstance(fmt, SingleElimination)
    matches, finished = run_all(fmt, lambda spec: None)
    assert [s.key for s in matches] == ["r01-m002", "r01-m002-g2", "r02-m001", "r02-m001-g2"]
    assert fmt.champion(finished) == "a"  # nothing ever decided: higher seeds advance
    fmt0 = make_format("single-elimination", ["a", "b", "c"], seed=1, players=2, options={"replays": 0})
    assert len(run_all(fmt0, lambda spec: None)[0]) == 2


@settings(max_examples=40, deadline=None)
@given(st.integers(2, 20), st.integers(0, 3), st.integers(0, 1000))
def test_elimination_every_entrant_but_one_is_knocked_out_once(n: int, replays: int, results: int) -> None:
    fmt = make_format("single-elimination", NAMES[:n], seed=results, players=2, options={"replays": replays})
    assert isinstance(fmt, SingleElimination)
    matches, finished = run_all(fmt, random_results(results))
    pairings = {spec.key.split("-g")[0] for spec in matches}
    assert len(pairings) == n - 1
    placings = fmt.placings(finished)
    assert sum(1 for p in placings if p.place == 1) == 1
    assert placings[0].name == fmt.champion(finished)
    size = 1 << (n - 1).bit_length()
    round_one = {name for spec in matches if spec.round == 1 for name in spec.seats}
    assert round_one.isdisjoint(NAMES[: size - n])  # the top seeds have the byes
    for spec in matches:
        assert spec.key.count("-g") == 0 or 2 <= int(spec.key.split("-g")[1]) <= replays + 1


def test_elimination_errors() -> None:
    with pytest.raises(FormatError, match="is for 2-player"):
        make_format("single-elimination", NAMES[:4], seed=1, players=4, options={})
    with pytest.raises(FormatError, match=r"'replays' must be an integer in 0\.\.99"):
        make_format("single-elimination", NAMES[:4], seed=1, players=2, options={"replays": -1})


# --- ladder ------------------------------------------------------------------------------------------


@settings(max_examples=40, deadline=None)
@given(st.integers(2, 12), st.integers(2, 4), st.integers(1, 40), st.integers(0, 2**32), st.integers(0, 1000))
def test_ladder_never_starves_anyone(n: int, players: int, total: int, seed: int, results: int) -> None:
    players = min(players, n)
    fmt = make_format("ladder", NAMES[:n], seed=seed, players=players, options={"matches": total})
    matches, _ = run_all(fmt, random_results(results))
    assert len(matches) == total
    wave = n // players
    games: Counter[str] = Counter()
    for number in sorted({spec.round for spec in matches}):
        in_wave = [spec for spec in matches if spec.round == number]
        assert len(in_wave) == (wave if number * wave <= total else total - (number - 1) * wave)
        seated = [name for spec in in_wave for name in spec.seats]
        assert len(seated) == len(set(seated)) == players * len(in_wave)
        games.update(seated)
        assert max(games.values()) - min(games[name] for name in NAMES[:n]) <= 1  # after every wave


def test_ladder_waits_for_each_wave_and_counts_failed_matches_as_games() -> None:
    fmt = make_format("ladder", NAMES[:5], seed=4, players=2, options={"matches": 6})
    wave1 = fmt.schedule([], {})
    assert [s.key for s in wave1] == ["w0001-m01", "w0001-m02"]
    assert fmt.schedule(wave1, {wave1[0].key: finish(wave1[0], [1, 2])}) == []
    finished = {s.key: finish(s, None) for s in wave1}
    wave2 = fmt.schedule(wave1, finished)
    idle = (set(NAMES[:5]) - {n for s in wave1 for n in s.seats}).pop()
    assert idle in {n for s in wave2 for n in s.seats}  # the one who sat out plays first
    assert not fmt.done([*wave1, *wave2], finished)


def test_ladder_default_matches_and_seat_rotation() -> None:
    fmt = make_format("ladder", NAMES[:6], seed=2, players=3, options={})
    assert fmt.planned_matches == 20  # about ten games each
    matches, _ = run_all(fmt, random_results(1))
    seats = Counter((name, spec.seats.index(name)) for spec in matches for name in spec.seats)
    for name in NAMES[:6]:
        counts = [seats[(name, seat)] for seat in range(3)]
        assert max(counts) - min(counts) <= 2


def test_ladder_quality_prefers_close_ratings_and_uncertain_ones() -> None:
    ratings = {
        "anchor": MODEL.rating(mu=25.0, sigma=3.0),
        "close": MODEL.rating(mu=26.0, sigma=3.0),
        "far": MODEL.rating(mu=40.0, sigma=3.0),
        "unsure": MODEL.rating(mu=26.0, sigma=8.0),
    }
    games = {"anchor": 4}
    quality = {
        name: match_quality(["anchor"], name, ratings, games, {}) for name in ("close", "far", "unsure")
    }
    assert quality["close"] > quality["far"]
    assert quality["unsure"] > quality["close"]
    repeat = match_quality(["anchor"], "close", ratings, games, {("anchor", "close"): 4})
    assert repeat < quality["close"]


def test_ladder_matches_a_strong_pair_together() -> None:
    # a and b beat c and d every time: once rated, the ladder pairs like with like.
    strong = {"a", "b"}

    def result(spec: MatchSpec) -> list[int]:
        one, two = spec.seats
        if (one in strong) == (two in strong):
            return [1, 2]
        return [1, 2] if one in strong else [2, 1]

    fmt = make_format("ladder", ["a", "b", "c", "d"], seed=8, players=2, options={"matches": 40})
    matches, _ = run_all(fmt, result)
    late = [frozenset(spec.seats) for spec in matches if spec.round > 10]
    assert sum(1 for pair in late if pair in ({"a", "b"}, {"c", "d"})) > len(late) / 2
