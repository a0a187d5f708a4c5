"""botarena: an open platform for AI bot-programming games."""

__version__ = "0.1.0"
