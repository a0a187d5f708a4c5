"""A competition for the coordinator's tests and benchmarks: drones teams whose versions are built the
way the upload route builds them (an archive checked by `arena.archive.check_upload`, packed by
`pack_upload`, stored with `put_artifact`, registered as the team's bot version, then a `received`
version), and the bots they upload: a starter's moves, one that crashes, one that times out on every
turn, one that stalls in its start exchange."""

from __future__ import annotations

import io
import zipfile
from dataclasses import dataclass
from typing import Any

from botarena.arena.archive import check_upload, pack_upload
from botarena.arena.competitions import add_team, check_setup, create_competition, policy_of
from botarena.store import Store
from botarena.store.arena import ArenaStore, CompetitionRow, TeamRow
from botarena.store.arena_runs import ArenaRunStore

# Short matches: what the tests claim is about states, results and ratings, not about play.
CONFIG: dict[str, Any] = {"rounds": 1, "turn_timeout_ms": 300, "setup_timeout_ms": 3000}
# For bots that are slow on purpose (to keep a match running while a test kills something): a turn
# limit far above their pause, so a loaded machine never turns their slowness into TIMEOUTs.
PATIENT: dict[str, Any] = {**CONFIG, "turn_timeout_ms": 5000}

STARTER = """
def act(obs):
    return {"newProducers": obs["producers"], "newSoldiers": 0, "launchAttack": False}
"""
ATTACKER = """
def act(obs):
    return {"newProducers": 0, "newSoldiers": obs["producers"], "launchAttack": obs["turn"] % 3 == 2}
"""
CRASHER = """
def act(obs):
    if obs["turn"] >= 2:
        raise ValueError("crasher gives up at turn 2")
    return {"newProducers": obs["producers"], "newSoldiers": 0, "launchAttack": False}
"""
CRASH_AT_START = """
raise RuntimeError("this bot does not even load")
"""
TIMEOUT = """
import time

def act(obs):
    time.sleep(1.0)
    return {"newProducers": obs["producers"], "newSoldiers": 0, "launchAttack": False}
"""
STALLER = """
import time

def setup(start):
    time.sleep(3600)

def act(obs):
    return {"newProducers": obs["producers"], "newSoldiers": 0, "launchAttack": False}
"""


@dataclass
class World:
    store: Store
    arena: ArenaStore
    runs: ArenaRunStore
    competition: CompetitionRow
    teams: list[TeamRow]

    def upload(self, team: TeamRow, source: str, *, note: str | None = None, activate: bool = True) -> int:
        """A `received` version of `team` whose bot.py is `source` (as the upload route stores it)."""
        return upload(self.store, self.competition, team, source, note=note, activate=activate)

    def upload_all(self, *sources: str) -> list[int]:
        """One version for each of the first teams, team i uploading `sources[i]`."""
        return [self.upload(team, source) for team, source in zip(self.teams, sources, strict=False)]

    def version(self, version_id: int) -> Any:
        return self.runs.get_version(version_id)


def zipped(files: dict[str, str]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, text in files.items():
            archive.writestr(name, text)
    return buffer.getvalue()


def upload(
    store: Store,
    competition: CompetitionRow,
    team: TeamRow,
    source: str,
    *,
    note: str | None = None,
    activate: bool = True,
) -> int:
    policy = policy_of(competition)
    checked = check_upload(zipped({"bot.py": source}), "bot.zip", policy)
    packed = pack_upload(checked, policy)
    store.put_artifact(packed.digest, packed.data)
    bot = store.register_bot(
        competition.game,
        f"arena-{competition.id}/{team.name}",
        f"arena:{packed.digest}",
        packed.digest,
        artifact=packed.digest,
        run_spec=packed.run_spec,
    )
    return ArenaRunStore(store).add_version(
        team.id, kind="upload", bot_version_id=bot.id, source_digest=packed.digest, note=note,
        activate=activate,
    )  # fmt: skip


def open_world(
    store: Store, teams: int, *, name: str = "ladder", config: dict[str, Any] | None = None, **policy: Any
) -> World:
    """A competition (phase open) of `teams` teams named t0, t1, ... with no version yet."""
    arena = ArenaStore(store)
    setup = check_setup("drones", config=CONFIG if config is None else config)
    competition, _ = create_competition(arena, name, setup, policy=policy, actor="test")
    made = [add_team(arena, competition.id, f"t{i}", actor="test")[0] for i in range(teams)]
    competition = arena.update_competition(competition.id, actor="test", phase="open")
    return World(store, arena, ArenaRunStore(store), competition, made)
