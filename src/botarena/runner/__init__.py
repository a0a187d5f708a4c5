"""The one match loop: asks bots, enforces limits, applies penalties, writes the replay."""

from botarena.runner.match import MatchRun, ResumeError, resume_match, run_match

__all__ = ["MatchRun", "ResumeError", "resume_match", "run_match"]
