"""A worker's own credentials (issue 25, item 1): match tasks name the store without its password and
carry no live token, so a worker that lacks them says so, in one line, where the match records it.

- The store's password: a task whose artifact must be fetched fails, worth retrying (another worker
  may have it), with the reason and what to set (BOTARENA_DB, PGPASSWORD, ~/.pgpass); the same task
  is played once the worker has the password in its environment or holds it (a local pool's
  worker, from its initializer).
- The live token: the match is played unstreamed (a viewer's trouble never fails a match), and the
  worker says once, in its log, that it has no token and where to put it.
"""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from botarena.bots.artifacts import ArtifactCache, materialize_specs, pack_spec
from botarena.core import credentials
from botarena.core.credentials import WorkerSecrets, hold
from botarena.core.registry import get_game
from botarena.store import Store
from botarena.store.artifacts import artifact_source, store_fetcher
from botarena.tournament import executor
from botarena.tournament.executor import MatchFailure, MatchTask, play_batch

DRONES = get_game("drones")
BOT = "def act(payload):\n    return {'newProducers': 1, 'newSoldiers': 0, 'launchAttack': False}\n"


@pytest.fixture
def bare_worker(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """A worker process with no credentials at all: none held, none in its environment, no ~/.pgpass."""
    monkeypatch.setattr(credentials, "_held", WorkerSecrets())
    for name in ("BOTARENA_DB", "BOTARENA_DB_FILE", "BOTARENA_LIVE_TOKEN", "BOTARENA_LIVE_TOKEN_FILE"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.delenv("PGPASSWORD", raising=False)
    monkeypatch.delenv("PGPASSFILE", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("BOTARENA_CACHE_DIR", str(tmp_path / "cache"))


@pytest.mark.parametrize("backend", ["postgresql"])
def test_a_worker_without_the_store_password_says_what_is_missing(
    db_url: str, bare_worker: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "bot").mkdir()
    (tmp_path / "bot" / "bot.py").write_text(BOT)
    packed = pack_spec(str(tmp_path / "bot"), DRONES)
    assert packed is not None
    with Store.open(db_url, replay_dir=tmp_path / "replays") as store:
        store.put_artifact(packed.digest, packed.data)
    source = artifact_source(db_url)
    assert credentials.url_secrets(source) == {}  # what a task carries
    task = MatchTask(
        tournament_id=1, key="r01-m001", game="drones", preset="default", overrides={"rounds": 1}, seed=1,
        seats=("a", "b"), specs=(packed.run_spec, "zergy"), artifacts=(packed.digest, None),
        artifact_source=source,
    )  # fmt: skip
    (failure,) = play_batch([task])
    assert isinstance(failure, MatchFailure) and failure.retry, failure
    assert failure.error.startswith(f"ArtifactUnavailable: cannot fetch artifact {packed.digest}: ")
    assert "no password supplied; this worker has no password for the store: set BOTARENA_DB" in failure.error
    assert "\n" not in failure.error
    # with the password in its environment, or held from its coordinator, the same task is played
    monkeypatch.setenv("BOTARENA_DB", db_url)
    specs = materialize_specs(
        task.specs, task.artifacts, store_fetcher(source), cache=ArtifactCache(tmp_path / "c1")
    )
    assert Path(specs[0]).is_dir() and specs[1] == "zergy"
    monkeypatch.delenv("BOTARENA_DB")
    hold(WorkerSecrets.of(db_url))
    specs = materialize_specs(
        task.specs, task.artifacts, store_fetcher(source), cache=ArtifactCache(tmp_path / "c2")
    )
    assert Path(specs[0]).is_dir()


def test_a_worker_without_the_live_token_plays_unstreamed_and_says_so_once(
    bare_worker: None, caplog: pytest.LogCaptureFixture, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    url = f"http://127.0.0.1:9/{tmp_path.name}"  # a server of this test's own
    task = MatchTask(
        tournament_id=1, key="k", game="drones", preset="default", overrides={}, seed=1, seats=("a", "b"),
        specs=("zergy", "adaptive"), live_url=url,
    )  # fmt: skip
    with caplog.at_level(logging.WARNING, logger=executor.__name__):
        assert executor._http_sink(task) is None
        assert executor._http_sink(task) is None
    said = [r.getMessage() for r in caplog.records if url in r.getMessage()]
    assert said == [
        f"matches are not streamed to {url}: this worker has no live token"
        " (set BOTARENA_LIVE_TOKEN (or BOTARENA_LIVE_TOKEN_FILE) in this worker's environment)"
    ]
    loose = tmp_path / "token"
    loose.write_text("t" * 20)
    loose.chmod(0o644)
    monkeypatch.setenv("BOTARENA_LIVE_TOKEN_FILE", str(loose))
    other = MatchTask(**{**task.__dict__, "live_url": url + "-2"})
    with caplog.at_level(logging.WARNING, logger=executor.__name__):
        assert executor._http_sink(other) is None  # a refused token file: unstreamed, and why
    assert any("has mode 0644: others may read it" in r.getMessage() for r in caplog.records)
