"""Core: the game interface, registry, seeds and RNG streams, statuses, replays and time budgets."""
