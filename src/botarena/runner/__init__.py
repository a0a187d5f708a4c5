"""The one match loop: asks bots, enforces limits, applies penalties, writes the replay."""

from botarena.runner.match import MatchRun, run_match

__all__ = ["MatchRun", "run_match"]
