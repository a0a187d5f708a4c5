"""Issue 18, item 1 (the acceptance test): a tournament on a Dask cluster whose workers start in
other directories, with no access to the bots' original paths, plays every match from the bots'
artifacts in the store, and gives the results of the same tournament played inline.

The workers (a LocalCluster of 2 processes, shared by the module) are moved into empty folders of
their own and given a fresh artifact cache; the bots' folder is deleted before the cluster plays.
"""

from __future__ import annotations

import os
import shutil
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from botarena.bots.node import NodeUnavailableError, check_node
from botarena.bots.resolve import Isolation, untrusted
from botarena.bots.sandbox import SandboxUnavailable, check_sandbox
from botarena.core.replay import read_replay
from botarena.store import Store
from botarena.tournament.executor import close_executor, dask_executor
from botarena.tournament.service import Entrant, TournamentPlan, create_tournament, run_tournament

distributed = pytest.importorskip("distributed")

HELPER = """def move(obs):
    return {"newProducers": obs["producers"], "newSoldiers": 1, "launchAttack": obs["turn"] % 4 == 0}
"""
QUIET = """def act(obs):
    return {"newProducers": obs["producers"], "newSoldiers": 0, "launchAttack": obs["turn"] % 3 == 0}
"""
CRASHING = "def act(obs):\n    raise RuntimeError('the edited file, never the stored version')\n"
KIT = Path(__file__).resolve().parents[2] / "kits"


@pytest.fixture(scope="module")
def cluster() -> Iterator[Any]:
    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None, host="127.0.0.1"
    ) as cluster:
        yield cluster


def _move_worker(home: str) -> str:
    """On a worker: work in an empty folder of its own, cache artifacts in `home`/cache (shared by
    the machine's workers, as `BOTARENA_CACHE_DIR` would be)."""
    folder = Path(home) / f"worker-{os.getpid()}"
    folder.mkdir()
    os.chdir(folder)
    os.environ["BOTARENA_CACHE_DIR"] = str(Path(home) / "cache")
    return os.getcwd()


@pytest.fixture
def workers(cluster: Any, tmp_path: Path) -> Path:
    """The cluster's workers, moved away from the test's folders; their home (cache in home/cache)."""
    home = tmp_path / "workers"
    home.mkdir()
    with distributed.Client(cluster.scheduler_address, set_as_default=False) as client:
        places = client.run(_move_worker, str(home))
    assert len(set(places.values())) == 2 and all(Path(p).parent == home for p in places.values())
    return home


@pytest.fixture
def store(db_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Store]:
    monkeypatch.setenv("BOTARENA_CACHE_DIR", str(tmp_path / "coordinator-cache"))  # the inline runs'
    store = Store.open(db_url, replay_dir=tmp_path / "replays")
    yield store
    store.close()


def isolation() -> Isolation:
    """Sandboxed where this machine can (CI requires it), else unsandboxed subprocesses."""
    try:
        check_sandbox()
    except SandboxUnavailable as exc:
        if os.environ.get("BOTARENA_REQUIRE_SANDBOX") == "1":
            pytest.fail(f"the sandbox is unavailable: {exc}", pytrace=False)
        return untrusted(None)
    return untrusted()


def results(store: Store, tournament_id: int) -> dict[str, tuple[Any, ...]]:
    return {
        row.key: (row.status, tuple(row.seats), row.seed, row.ranks, row.scores)
        for row in store.list_matches(tournament_id)
    }


def on_dask(store: Store, tournament_id: int, cluster: Any) -> Any:
    executor = dask_executor(cluster.scheduler_address)  # what `--dask ADDRESS` does
    try:
        return run_tournament(store, tournament_id, executor, isolation=isolation())
    finally:
        close_executor(executor)


def all_ok(store: Store, tournament_id: int) -> None:
    """Every match finished and every seat's every reply was OK: each bot ran as written."""
    for row in store.list_matches(tournament_id):
        assert row.status == "finished", (row.key, row.error)
        replay = read_replay(store.replay_path(row.replay_hash))
        assert all(set(seat) == {"OK"} for seat in replay.statuses), (row.key, replay.logs)


def drones_bots(folder: Path) -> list[Entrant]:
    """A Python file bot, a folder bot importing its sibling module, a starter bot, and a 2018
    JavaScript bot through the Node adapter where node is installed."""
    (folder / "folderbot").mkdir(parents=True)
    (folder / "folderbot" / "helper.py").write_text(HELPER)
    (folder / "folderbot" / "bot.py").write_text(
        "from helper import move\n\n\ndef act(obs):\n    return move(obs)\n"
    )
    (folder / "quiet.py").write_text(QUIET)
    entrants = [
        Entrant("file", str(folder / "quiet.py")),
        Entrant("folder", str(folder / "folderbot")),
        Entrant("starter", "tactician"),
    ]
    try:
        check_node()
    except NodeUnavailableError:
        return entrants
    shutil.copy(KIT / "drones-js" / "bots" / "adaptive-defender.js", folder / "defender.js")
    return [*entrants, Entrant("js", str(folder / "defender.js"))]


def plan(name: str, entrants: list[Entrant], game: str = "drones", **fields: Any) -> TournamentPlan:
    return TournamentPlan(name=name, game=game, format="round-robin", entrants=entrants, seed=7, **fields)


def test_workers_in_other_directories_play_bots_whose_files_are_gone(
    store: Store, tmp_path: Path, cluster: Any, workers: Path
) -> None:
    bots = tmp_path / "bots"
    entrants = drones_bots(bots)
    inline = create_tournament(store, plan("inline", entrants), isolation=isolation())
    assert run_tournament(store, inline.id, isolation=isolation()).status == "finished"
    remote = create_tournament(store, plan("dask", entrants), isolation=isolation())
    shutil.rmtree(bots)  # nobody can read the originals any more

    summary = on_dask(store, remote.id, cluster)

    count = len(entrants) * (len(entrants) - 1) // 2
    assert summary.status == "finished" and summary.played == count and summary.failed == 0
    assert results(store, remote.id) == results(store, inline.id)
    all_ok(store, remote.id)
    shipped = {e.artifact for e in remote.entrants if e.artifact is not None}
    assert len(shipped) == len(entrants) - 1  # every entrant but the starter bot is an artifact
    assert {p.name for p in (workers / "cache" / "artifacts").iterdir()} == shipped  # fetched by the workers


class _StopAfterFirst:
    """A progress sink that stops the run once one match is done."""

    def __init__(self, stop: threading.Event) -> None:
        self.stop = stop

    def update(self, *, total: int, done: int, running: int, failed: int) -> None:
        if done >= 1:
            self.stop.set()


def test_resuming_after_the_original_was_edited_and_deleted_plays_the_stored_version(
    store: Store, tmp_path: Path, cluster: Any, workers: Path
) -> None:
    bot = tmp_path / "mine.py"
    bot.write_text(QUIET)
    entrants = [Entrant("mine", str(bot)), Entrant("a", "tactician"), Entrant("b", "adaptive")]
    reference = create_tournament(store, plan("reference", entrants), isolation=isolation())
    run_tournament(store, reference.id, isolation=isolation())
    resumed = create_tournament(store, plan("resumed", entrants), isolation=isolation())
    stop = threading.Event()
    first = run_tournament(
        store, resumed.id, progress=_StopAfterFirst(stop), stop=stop, isolation=isolation()
    )
    assert first.status == "stopped" and first.played == 1

    bot.write_text(CRASHING)  # edited: a tournament created now gets a new version of the bot
    edited = create_tournament(store, plan("edited", entrants), isolation=isolation())
    assert edited.entrants[0].version == resumed.entrants[0].version + 1
    assert edited.entrants[0].artifact != resumed.entrants[0].artifact
    bot.unlink()  # and then deleted

    summary = on_dask(store, resumed.id, cluster)
    assert summary.status == "finished" and summary.played == 2
    assert results(store, resumed.id) == results(store, reference.id)
    all_ok(store, resumed.id)


CPP_PLAYER = KIT / "domains-cpp" / "bots" / "AIDemo.cc"
SMALL_DOMAINS = {"number_of_rounds": 6, "board_height": 14, "board_width": 14}


@pytest.mark.skipif(shutil.which("g++") is None, reason="g++ is not installed")
def test_a_cpp_kit_bot_ships_as_source_and_is_built_on_the_worker(
    tmp_path: Path, cluster: Any, workers: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Domains' C++ kit (spec 7.3): the artifact is the source; the worker compiles it (sealed, cached
    by content in its own cache) after unpacking. SQLite only: the store's part is the same as above,
    and a compile is the slow part."""
    store = Store.open(f"sqlite:///{tmp_path / 'arena.db'}", replay_dir=tmp_path / "replays")
    source = tmp_path / "bots" / "AIMine.cc"
    source.parent.mkdir()
    shutil.copy(CPP_PLAYER, source)
    entrants = [Entrant("cpp", str(source)), Entrant("dummy", "dummy")]
    fields: dict[str, Any] = {"overrides": SMALL_DOMAINS}
    remote = create_tournament(store, plan("dask", entrants, "domains", **fields), isolation=isolation())
    inline = create_tournament(store, plan("inline", entrants, "domains", **fields), isolation=isolation())
    assert remote.entrants[0].run_spec == "{artifact}/AIMine.cc"
    shutil.rmtree(source.parent)

    summary = on_dask(store, remote.id, cluster)
    assert summary.status == "finished" and summary.played == 1 and summary.failed == 0
    builds = list((workers / "cache" / "domains-cpp").glob("*/AIMine"))
    assert len(builds) == 1  # compiled on a worker, from the unpacked source
    # The reference, played here from the same artifact (its build found in the workers' cache).
    monkeypatch.setenv("BOTARENA_CACHE_DIR", str(workers / "cache"))
    assert run_tournament(store, inline.id, isolation=isolation()).status == "finished"
    assert results(store, remote.id) == results(store, inline.id)
    all_ok(store, remote.id)
    store.close()
