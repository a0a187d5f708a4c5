"""One package per game; each imports botarena.core only."""
