"""A running round's journal, and the round rebuilt from it when a killed server restarts.

While a round runs, the recorder writes its replay as a journal (`botarena.core.journal`) to
`<data>/journals/<series name>/<round name>.json.gz`, where `<data>` is the folder of the store's
`replays/`, and flushes it after every transition (a turn lasts seconds, so that costs nothing and a
kill loses at most the step being written). When the round ends and its replay is in the store, the
journal is deleted.

When the server restarts with the same series and finds the round it left running, `rebuild_round`
reads that round's journal and re-runs its recorded steps through the lockstep engine
(`runner.verify.ReplayRerun`: any difference refuses), which gives the round's state at its last
recorded step, N. The series then goes on with that round live: the same seed, config and teams
(their registrations are restored, so their clients keep playing), the clock rebased so that turn
N + 1 comes one `turn_seconds` after the restart. The replay keeps steps 1..N, records a `resumes`
entry after step N, and verifies as one whole game. A round that cannot be rebuilt is marked failed,
as before, with one log line saying why.

The journal's `resume` header says which round it is:
`{"format": "datspulse-round/1", "botarena": version, "series": name, "round": number,
"name": round name, "teams": [...], "seed": seed, "preset": preset}`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from botarena import __version__
from botarena.core.replay import Replay, ReplayError
from botarena.server.datspulse.driver import replay_config

JOURNAL_FORMAT = "datspulse-round/1"
JOURNALS_DIR = "journals"
_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")


class ResumeRefused(Exception):
    """A round that cannot be resumed; str() is the one-line reason."""


@dataclass
class ResumedRound:
    """A round rebuilt from its journal, at its last recorded step (see the module docstring)."""

    number: int
    name: str
    teams: list[str]
    seed: int
    replay: Replay
    engine: Any  # botarena.games.datspulse.engine.DatsPulseEngine, its round at step `steps`
    journal: Path

    @property
    def steps(self) -> int:
        return len(self.replay.steps)


def journals_root(replay_root: Path) -> Path:
    """The folder of every series' round journals, next to the store's `replays/` folder."""
    return replay_root.parent / JOURNALS_DIR


def journal_dir(root: Path, series_name: str) -> Path:
    """The folder of one series' round journals."""
    return root / _safe(series_name)


def journal_path(folder: Path, round_name: str) -> Path:
    """The journal file of the round called `round_name`."""
    return folder / f"{_safe(round_name)}.json.gz"


def _safe(name: str) -> str:
    """A file name made of `name` (any character but letters, digits, `.`, `_` and `-` becomes `_`)."""
    cleaned = _UNSAFE.sub("_", name).lstrip(".")
    return cleaned or "_"


def resume_header(
    *, series: str, number: int, name: str, teams: list[str], seed: int, preset: str
) -> dict[str, Any]:
    """The journal's `resume` section for a round: what a restarted server checks before going on."""
    return {
        "format": JOURNAL_FORMAT,
        "botarena": __version__,
        "series": series,
        "round": number,
        "name": name,
        "teams": list(teams),
        "seed": seed,
        "preset": preset,
    }


def rebuild_round(
    path: Path, *, series: str, name: str, number: int, teams: list[str], seed: int, config: Any
) -> ResumedRound:
    """The round `name` (as the store knows it: its number, teams and seed) rebuilt from its journal at
    `path`, with the current game `config`. Raises ResumeRefused with the reason it cannot be."""
    from botarena.core.journal import read_journal

    if not path.exists():
        raise ResumeRefused(f"no journal at {path}")
    try:
        journal = read_journal(path)
    except ReplayError as exc:
        raise ResumeRefused(str(exc)) from None
    replay, header = journal.replay, journal.resume
    _check_header(header, series=series, name=name, number=number, teams=teams, seed=seed)
    if replay.seed != seed or [p.get("name") for p in replay.players] != teams:
        raise ResumeRefused(f"{path}: its replay's seed or teams differ from the store's")
    if replay.config != replay_config(config, number):
        raise ResumeRefused(f"{path}: the game config changed since the round started")
    engine = _rerun(replay, path)
    replay.partial = False
    replay.resumes.append(
        {
            "after_step": len(replay.steps),
            "replies": [],  # real-time teams get no start request (§7.6): nothing to re-send
            "created_by": f"botarena {__version__} datspulse server",
        }
    )
    return ResumedRound(number, name, list(teams), seed, replay, engine, path)


def _check_header(header: Any, *, series: str, name: str, number: int, teams: list[str], seed: int) -> None:
    if not isinstance(header, dict) or header.get("format") != JOURNAL_FORMAT:
        raise ResumeRefused("its journal was not written by the DatsPulse server")
    if header.get("botarena") != __version__:
        raise ResumeRefused(
            f"it was played by botarena {header.get('botarena')}, this is {__version__}:"
            " another version may play the round differently"
        )
    expected = {"series": series, "name": name, "round": number, "teams": teams, "seed": seed}
    for key, value in expected.items():
        if header.get(key) != value:
            raise ResumeRefused(f"its journal's {key} is {header.get(key)!r}, the store has {value!r}")


def _rerun(replay: Replay, path: Path) -> Any:
    """Re-run the recorded steps through a fresh lockstep engine (every record and keyframe checked);
    returns the engine, its round at the last recorded step."""
    from botarena.runner.verify import ReplayRerun, RerunMismatch

    try:
        rerun = ReplayRerun(replay)
        for _ in rerun.rerun_recorded():
            pass
        rerun.catch_up()
    except RerunMismatch as mismatch:
        raise ResumeRefused(
            f"{path}: its steps do not re-run (differs at {mismatch.where}: {mismatch.detail})"
        ) from None
    except Exception as exc:  # a damaged journal whose lines parse but make no game
        raise ResumeRefused(f"{path}: its steps do not re-run ({type(exc).__name__}: {exc})") from None
    return rerun.engine
