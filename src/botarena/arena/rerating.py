"""`botarena arena rerate`: a competition's ratings rebuilt from its recorded results and compared with
the stored ones (specs/arena.md, Ratings; goal G11).

The rated results are the competition's finished rated matches (their seats' versions from
`match_versions`, their ranks from the results), voided ones skipped, in the canonical order
(finished_at, match id); each version starts at its first activation from the version it replaced
(`versions.activated_at`, `versions.inherits_from`), under the policy's `on_new_version`. The
coordinator applies results in that same order, so the rebuilt state must equal `ratings_current`
number for number.
"""

from __future__ import annotations

from dataclasses import dataclass

from botarena.arena.competitions import policy_of
from botarena.arena.rating import Activation, RatedResult, RatingBook, VersionRating, rerate
from botarena.arena.vocabulary import MatchKind
from botarena.store import Store
from botarena.store.arena import ArenaStore
from botarena.store.arena_runs import ArenaRunStore, RatingWrite


@dataclass(frozen=True)
class RerateReport:
    """The rebuilt ratings, the stored ones, and the versions where they differ."""

    rebuilt: dict[int, VersionRating]
    stored: dict[int, VersionRating]
    results: int
    voided: int

    @property
    def differing(self) -> list[int]:
        versions = sorted(set(self.rebuilt) | set(self.stored))
        return [v for v in versions if self.rebuilt.get(v) != self.stored.get(v)]

    @property
    def equal(self) -> bool:
        return not self.differing


def rebuild(store: Store, competition_id: int) -> RerateReport:
    """The competition's ratings rebuilt from its results (LookupError for an unknown id)."""
    competition = ArenaStore(store).get_competition(competition_id)
    if competition is None:
        raise LookupError(f"no competition {competition_id}")
    runs = ArenaRunStore(store)
    matches = runs.matches(competition.tournament_id, statuses=["finished"], kind=MatchKind.RATED.value)
    history = [
        RatedResult(
            match_id=m.id,
            finished_at=m.finished_at.timestamp() if m.finished_at else 0.0,
            seats=tuple(m.versions[seat] for seat in sorted(m.versions)),
            ranks=tuple(m.ranks or ()),
            voided=m.voided,
        )
        for m in matches
        if m.ranks is not None and len(m.versions) == len(m.seats)
    ]
    lineage = [
        Activation(v.id, v.activated_at.timestamp(), v.inherits_from)
        for v in runs.versions(competition_id)
        if v.activated_at is not None
    ]
    book: RatingBook = rerate(history, lineage, policy_of(competition).on_new_version)
    stored = {v: VersionRating(r.mu, r.sigma, r.games) for v, r in runs.ratings(competition_id).items()}
    voided = sum(1 for result in history if result.voided)
    return RerateReport(dict(book.ratings), stored, len(history) - voided, voided)


def write(store: Store, competition_id: int, report: RerateReport) -> None:
    """Store the rebuilt ratings as current (`arena rerate --write`)."""
    ratings = [RatingWrite(v, r.mu, r.sigma, r.games) for v, r in report.rebuilt.items()]
    ArenaRunStore(store).replace_ratings(competition_id, ratings)
