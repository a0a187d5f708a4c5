"""Checks a game author runs on a game: golden replays (`botarena.testing.golden`)."""
