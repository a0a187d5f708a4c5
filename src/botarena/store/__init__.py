"""Persistence: bots, tournaments, matches, results and ratings (SQLAlchemy, SQLite or PostgreSQL);
replays as files addressed by content hash.

    store = Store.open()                       # sqlite:///./var/botarena.db, migrated
    store = Store.open("postgresql://user:pw@host/db")
"""

from __future__ import annotations

from botarena.store.engine import DEFAULT_URL
from botarena.store.rows import (
    MATCH_STATUSES,
    TOURNAMENT_STATUSES,
    BotVersionRow,
    EntrantRow,
    MatchRow,
    MatchStatus,
    RatingRow,
    StoreError,
    TournamentRow,
    TournamentStatus,
)
from botarena.store.store import Store

__all__ = [
    "DEFAULT_URL",
    "MATCH_STATUSES",
    "TOURNAMENT_STATUSES",
    "BotVersionRow",
    "EntrantRow",
    "MatchRow",
    "MatchStatus",
    "RatingRow",
    "Store",
    "StoreError",
    "TournamentRow",
    "TournamentStatus",
]
