"""The arena's ratings (specs/arena.md, *Ratings*; goals G6 and G11's "rerate equals the stored
ratings"): incremental OpenSkill with the tournaments' model, the new-version policies, provisional
rows, and `rerate` rebuilding exactly the incremental state from the history."""

from __future__ import annotations

import random
from collections.abc import Iterator, Mapping

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from botarena.arena.policy import NewVersionRating
from botarena.arena.rating import (
    MU0,
    SIGMA0,
    Activation,
    HistoryRow,
    RatedResult,
    RatingBook,
    VersionRating,
    ordinal,
    placement_games,
    provisional,
    rerate,
    update,
)
from botarena.tournament.ratings import MODEL


def test_ratings_update_is_the_tournaments_model_with_history_rows() -> None:
    current = {1: VersionRating(27.0, 6.0, 3), 2: VersionRating(24.0, 7.0, 0)}
    result = update(current, {2: 1, 1: 2}, match_id=9)
    expected = MODEL.rate(
        [[MODEL.rating(mu=24.0, sigma=7.0)], [MODEL.rating(mu=27.0, sigma=6.0)]], ranks=[1.0, 2.0]
    )
    assert result.ratings[2] == VersionRating(expected[0][0].mu, expected[0][0].sigma, 1)
    assert result.ratings[1] == VersionRating(expected[1][0].mu, expected[1][0].sigma, 4)
    assert [(row.match_id, row.version, row.mu_before, row.sigma_before) for row in result.rows] == [
        (9, 2, 24.0, 7.0),
        (9, 1, 27.0, 6.0),
    ]
    assert result.rows[0].mu_after == result.ratings[2].mu > 24.0  # the winner goes up


def test_ratings_equal_ranks_are_a_tie() -> None:
    current = {1: VersionRating(25.0, 8.0), 2: VersionRating(25.0, 8.0)}
    result = update(current, {1: 1, 2: 1})
    assert result.ratings[1].mu == pytest.approx(result.ratings[2].mu)
    assert result.ratings[1].sigma < 8.0


class CountingMapping(Mapping[int, VersionRating]):
    """Every version's rating, counting each read (the cost test: an update reads its seats only)."""

    def __init__(self, size: int) -> None:
        self.size = size
        self.reads = 0

    def __getitem__(self, key: int) -> VersionRating:
        if not 0 <= key < self.size:
            raise KeyError(key)
        self.reads += 1
        return VersionRating(25.0, 8.0)

    def __contains__(self, key: object) -> bool:
        return isinstance(key, int) and 0 <= key < self.size

    def __iter__(self) -> Iterator[int]:
        raise AssertionError("an update must not walk every rating")

    def __len__(self) -> int:
        raise AssertionError("an update must not count every rating")


@pytest.mark.parametrize("size", [10, 1_000_000])
def test_g6_rating_update_reads_only_its_players(size: int) -> None:
    current = CountingMapping(size)
    update(current, {3: 1, 7: 2, 5: 2})
    assert current.reads == 3


def test_ratings_bad_input_is_one_line() -> None:
    with pytest.raises(ValueError, match="needs 2 or more"):
        update({1: VersionRating(25.0, 8.0)}, {1: 1})
    with pytest.raises(ValueError, match="no current rating for version 2"):
        update({1: VersionRating(25.0, 8.0)}, {1: 1, 2: 2})
    book = RatingBook()
    book.activate(1)
    with pytest.raises(ValueError, match="sits in two seats"):
        book.record(1, (1, 1), (1, 2))


def played_book(policy: NewVersionRating) -> RatingBook:
    """Team A's version 1 beat version 2 five times, then A's version 3 arrives after 1."""
    book = RatingBook(policy)
    book.activate(1)
    book.activate(2)
    for match in range(5):
        book.record(match, (1, 2), (1, 2))
    book.activate(3, previous=1)
    return book


def test_ratings_inherit_mu_takes_the_previous_mu_with_sigma_reset() -> None:
    book = played_book(NewVersionRating.INHERIT_MU)
    assert book.ratings[3] == VersionRating(book.ratings[1].mu, SIGMA0, 0)
    assert book.ratings[3].mu > MU0


def test_ratings_reset_starts_from_the_prior() -> None:
    assert played_book(NewVersionRating.RESET).ratings[3] == VersionRating(MU0, SIGMA0, 0)


def test_ratings_continue_carries_the_rating_on() -> None:
    book = played_book(NewVersionRating.CONTINUE)
    assert book.ratings[3] == book.ratings[1]


def test_ratings_a_known_version_is_not_reset_by_activating_it_again() -> None:
    book = played_book(NewVersionRating.RESET)
    before = book.ratings[1]
    assert book.activate(1, previous=3) == before


def test_ratings_provisional_until_p_games_and_sigma_below_half() -> None:
    assert placement_games(2) == 10 and placement_games(4) == 30
    assert placement_games(100, world=True) == 10  # a world match measures every seat at once
    assert provisional(VersionRating(30.0, 1.0, 9), 100, world=True)
    assert not provisional(VersionRating(30.0, 1.0, 10), 100, world=True)
    assert provisional(VersionRating(30.0, 1.0, 10), 100)  # (N-player pairs: P = 990 games)
    assert provisional(VersionRating(30.0, 1.0, 9), 2)
    assert not provisional(VersionRating(30.0, 1.0, 10), 2)
    assert provisional(VersionRating(30.0, 0.5 * SIGMA0, 50), 2)
    assert not provisional(VersionRating(30.0, 0.49 * SIGMA0, 50), 2)
    assert ordinal(30.0, 2.0) == 24.0 == VersionRating(30.0, 2.0).ordinal


@st.composite
def competitions(draw: st.DrawFn) -> tuple[list[Activation | RatedResult], int]:
    """A competition's events in arrival order (strictly later each): teams' versions activated one
    after another, rated results between the active versions (some voided later), match ids in no
    particular order."""
    teams = draw(st.integers(2, 4))
    active: dict[int, int] = {}
    events: list[Activation | RatedResult] = []
    next_version = 1
    ids = draw(st.permutations(list(range(1, 61))))
    time = 0.0
    for team in range(teams):
        active[team] = next_version
        events.append(Activation(next_version, time, None))
        next_version += 1
        time += 1.0
    for step in range(draw(st.integers(0, 60))):
        time += draw(st.sampled_from([0.001, 1.0, 7.5]))
        if draw(st.integers(0, 5)) == 0:
            team = draw(st.integers(0, teams - 1))
            events.append(Activation(next_version, time, active[team]))
            active[team] = next_version
            next_version += 1
            continue
        players = draw(st.integers(2, teams))
        seated = draw(st.permutations(sorted(active)))[:players]
        ranks = tuple(draw(st.integers(1, players)) for _ in seated)
        voided = draw(st.integers(0, 9)) == 0
        events.append(RatedResult(ids[step], time, tuple(active[t] for t in seated), ranks, voided))
    return events, draw(st.integers(0, 2**32))


@settings(max_examples=60, deadline=None)
@given(competitions(), st.sampled_from(list(NewVersionRating)))
def test_g11_rerate_equals_the_incremental_state(
    competition: tuple[list[Activation | RatedResult], int], policy: NewVersionRating
) -> None:
    events, shuffle_seed = competition
    incremental = RatingBook(policy)
    rows: list[HistoryRow] = []
    for event in events:  # arrival order, as the coordinator records them
        if isinstance(event, Activation):
            incremental.activate(event.version, event.previous)
        elif not event.voided:
            rows.extend(incremental.record(event.match_id, event.seats, event.ranks).rows)
    shuffled = list(events)
    random.Random(shuffle_seed).shuffle(shuffled)  # rerate sorts: the store's order is not trusted
    history = [event for event in shuffled if isinstance(event, RatedResult)]
    lineage = [event for event in shuffled if isinstance(event, Activation)]
    rebuilt = rerate(history, lineage, policy)
    assert rebuilt.ratings == incremental.ratings  # exactly: the same floats from the same steps
    assert rebuilt.history == incremental.history == rows  # rating_history rebuilt row for row


def test_g11_rerate_orders_by_finish_time_then_match_id_and_skips_voided() -> None:
    lineage = [Activation(1, 0.0), Activation(2, 0.0)]
    history = [
        RatedResult(7, 5.0, (1, 2), (2, 1)),
        RatedResult(3, 5.0, (1, 2), (1, 2)),
        RatedResult(1, 9.0, (2, 1), (1, 2), voided=True),
        RatedResult(2, 1.0, (1, 2), (1, 1)),
    ]
    book = RatingBook()
    book.activate(1)
    book.activate(2)
    for match_id, seats, ranks in ((2, (1, 2), (1, 1)), (3, (1, 2), (1, 2)), (7, (1, 2), (2, 1))):
        book.record(match_id, seats, ranks)
    assert rerate(history, lineage).ratings == book.ratings
    assert rerate(history, lineage).ratings[1].games == 3


def test_g11_rerate_refuses_a_result_for_a_version_never_activated() -> None:
    with pytest.raises(ValueError, match="no current rating for version 2"):
        rerate([RatedResult(1, 1.0, (1, 2), (1, 2))], [Activation(1, 0.0)])
