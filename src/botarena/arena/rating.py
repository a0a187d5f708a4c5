"""The arena's ratings (specs/arena.md, *Ratings*): OpenSkill Plackett-Luce with the tournaments' model
(`tournament.ratings.MODEL`), updated one rated result at a time in arrival order, and rebuilt from the
history by `rerate` to exactly the same numbers.

- `update` rates one match from the seats' current (mu, sigma): it costs O(players), whatever the
  history, and returns the history rows (before/after) the store keeps in `rating_history`.
- `starting_rating` is where a new version starts under the policy's `on_new_version`: `inherit_mu`
  (the previous active version's mu, sigma reset to sigma0, its games from 0 so it gets placement
  matches), `reset` (the model's prior) or `continue` (the previous version's rating and games as they
  are: the same rating carried on).
- `provisional`: fewer than P = 10 x (players - 1) rated games, or sigma still >= 0.5 sigma0.
- `RatingBook` holds the current state and applies activations and results; the coordinator keeps one
  (or the store's rows), and `rerate` replays the history through a fresh one in the canonical order
  (finished_at, match id), activations first at equal times, voided matches skipped.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from botarena.arena.policy import NewVersionRating
from botarena.tournament.ratings import MODEL

VersionId = int
MU0: float = MODEL.mu
SIGMA0: float = MODEL.sigma
PROVISIONAL_SIGMA_SHARE = 0.5  # a rating is provisional while sigma >= this share of sigma0


@dataclass(frozen=True)
class VersionRating:
    """One version's current rating and its rated games (`ratings_current`)."""

    mu: float
    sigma: float
    games: int = 0

    @property
    def ordinal(self) -> float:
        return ordinal(self.mu, self.sigma)


@dataclass(frozen=True)
class HistoryRow:
    """One seat of one rated match before and after it (`rating_history`)."""

    match_id: int
    version: VersionId
    mu_before: float
    sigma_before: float
    mu_after: float
    sigma_after: float


@dataclass(frozen=True)
class RatingUpdate:
    """What one rated result changes: each seat's new rating and the history rows, in seat order."""

    ratings: dict[VersionId, VersionRating]
    rows: tuple[HistoryRow, ...]


def placement_games(players: int, *, world: bool = False) -> int:
    """P = 10 x (players - 1): the rated games a version plays before it leaves placement. In the
    `world` format P is 10 matches whatever the seat count: each world match measures a version
    against every other seat at once, and a 100-seat DatsPulse world would otherwise stay
    provisional for 990 matches (the spec's formula read for pairs of an N-player game)."""
    return 10 if world else 10 * max(1, players - 1)


def ordinal(mu: float, sigma: float) -> float:
    """The leaderboard's number: mu - 3 sigma (openskill's ordinal)."""
    return mu - 3.0 * sigma


def provisional(rating: VersionRating, players: int, *, world: bool = False) -> bool:
    """Whether the leaderboard marks this rating provisional: fewer than P games or sigma >= 0.5 sigma0."""
    return (
        rating.games < placement_games(players, world=world)
        or rating.sigma >= PROVISIONAL_SIGMA_SHARE * SIGMA0
    )


def update(
    current: Mapping[VersionId, VersionRating], ranks: Mapping[VersionId, int], match_id: int = 0
) -> RatingUpdate:
    """Rate one match: `ranks` maps each seat's version (in seat order) to its 1-based rank, equal ranks
    tie; `current` holds at least those versions. Costs O(players)."""
    if len(ranks) < 2:
        raise ValueError(f"match {match_id}: a rated match needs 2 or more versions, got {len(ranks)}")
    seats = list(ranks)
    missing = [version for version in seats if version not in current]
    if missing:
        raise ValueError(f"match {match_id}: no current rating for version {missing[0]}")
    before = [current[version] for version in seats]
    teams = [[MODEL.rating(mu=rating.mu, sigma=rating.sigma)] for rating in before]
    rated = MODEL.rate(teams, ranks=[float(ranks[version]) for version in seats])
    after: dict[VersionId, VersionRating] = {}
    rows: list[HistoryRow] = []
    for version, old, team in zip(seats, before, rated, strict=True):
        new = VersionRating(mu=float(team[0].mu), sigma=float(team[0].sigma), games=old.games + 1)
        after[version] = new
        rows.append(HistoryRow(match_id, version, old.mu, old.sigma, new.mu, new.sigma))
    return RatingUpdate(after, tuple(rows))


def starting_rating(policy: NewVersionRating, previous: VersionRating | None) -> VersionRating:
    """Where a new version starts under `on_new_version`, given the team's previous active version's
    current rating (None for a team's first version: the model's prior under every policy)."""
    if previous is None or policy == NewVersionRating.RESET:
        return VersionRating(MU0, SIGMA0, 0)
    if policy == NewVersionRating.INHERIT_MU:
        return VersionRating(previous.mu, SIGMA0, 0)
    return previous


@dataclass(frozen=True)
class Activation:
    """Version `version` became active at `at`, after `previous` (the team's last active version, or
    None): the lineage entry `rerate` needs to start it as the incremental state did."""

    version: VersionId
    at: float
    previous: VersionId | None = None


@dataclass(frozen=True)
class RatedResult:
    """One recorded result of a rated match: versions in seat order with their ranks."""

    match_id: int
    finished_at: float
    seats: tuple[VersionId, ...]
    ranks: tuple[int, ...]
    voided: bool = False


@dataclass
class RatingBook:
    """The current rating of every version, changed by activations and rated results, and the history
    rows those results produced (in the order they were applied)."""

    policy: NewVersionRating = NewVersionRating.INHERIT_MU
    ratings: dict[VersionId, VersionRating] = field(default_factory=dict)
    history: list[HistoryRow] = field(default_factory=list)

    def activate(self, version: VersionId, previous: VersionId | None = None) -> VersionRating:
        """Start `version` from `previous` under the policy (a version already rated keeps its rating:
        identical bytes are the same version, so re-activating it resets nothing)."""
        if version in self.ratings:
            return self.ratings[version]
        base = None if previous is None else self.ratings.get(previous)
        start = starting_rating(self.policy, base)
        self.ratings[version] = start
        return start

    def record(self, match_id: int, seats: Sequence[VersionId], ranks: Sequence[int]) -> RatingUpdate:
        """Apply one rated result (every seat's version must have been activated)."""
        if len(seats) != len(ranks):
            raise ValueError(f"match {match_id}: {len(ranks)} ranks for {len(seats)} seats")
        if len(set(seats)) != len(seats):
            raise ValueError(f"match {match_id}: a version sits in two seats")
        result = update(self.ratings, dict(zip(seats, ranks, strict=True)), match_id)
        self.ratings.update(result.ratings)
        self.history.extend(result.rows)
        return result


def rerate(
    history: Iterable[RatedResult],
    lineage: Iterable[Activation],
    policy: NewVersionRating = NewVersionRating.INHERIT_MU,
) -> RatingBook:
    """The ratings rebuilt from the recorded results in the canonical order (finished_at, match id),
    each version started at its activation (activations come before results at the same time, in
    (at, version) order); voided matches are skipped. Equals the incremental state when the results
    were applied in that order."""
    events: list[tuple[float, int, int, Activation | RatedResult]] = [
        (entry.at, 0, entry.version, entry) for entry in lineage
    ]
    events.extend((result.finished_at, 1, result.match_id, result) for result in history if not result.voided)
    events.sort(key=lambda event: event[:3])
    book = RatingBook(policy)
    for _, _, _, event in events:
        if isinstance(event, Activation):
            book.activate(event.version, event.previous)
        else:
            book.record(event.match_id, event.seats, event.ranks)
    return book
