"""Test entrants shared by the tournament tests (the files themselves are in `entrants/`)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from botarena.store import Store

ENTRANTS = Path(__file__).parent / "entrants"
GATE = ENTRANTS / "gate.py"


def gate_bot(folder: Path, *, armed: bool) -> Path:
    """A copy of the gate entrant in `folder`; `armed`, it holds its 4th match (see entrants/gate.py).

    The copy names `folder` by its absolute path: a tournament runs it from its artifact's unpacked
    copy (bots/artifacts.py), so the gate's files must be found there, not beside the running file."""
    folder.mkdir()
    bot = folder / "gate.py"
    bot.write_text(GATE.read_text().replace("Path(__file__).parent", f"Path({str(folder.absolute())!r})"))
    if armed:
        (folder / "starts").mkdir()
        os.mkfifo(folder / "gate")
    return bot


def recorded_before_the_kill(db: str, name: str, matches: int) -> dict[str, Any]:
    """The finished match rows of the killed tournament `name`, by key, after checking that it was
    killed mid-way: still "running", with at least 3 and fewer than `matches` results recorded."""
    store = Store.open(db)
    try:
        tournament = store.find_tournament(name)
        assert tournament is not None and tournament.status == "running"
        before = {r.key: r for r in store.list_matches(tournament.id, status="finished")}
        assert 3 <= len(before) < matches
        return before
    finally:
        store.close()


REQUIRE_SANDBOX_ENV = "BOTARENA_REQUIRE_SANDBOX"


def sandbox_ready() -> None:
    """Skip without a sandbox locally; fail in CI (BOTARENA_REQUIRE_SANDBOX=1), where there is one."""
    import pytest

    from botarena.bots.sandbox import SandboxUnavailable, check_sandbox

    try:
        check_sandbox()
    except SandboxUnavailable as exc:
        if os.environ.get(REQUIRE_SANDBOX_ENV) == "1":
            pytest.fail(f"{REQUIRE_SANDBOX_ENV}=1 but the sandbox is unavailable: {exc}", pytrace=False)
        pytest.skip(str(exc))


def unreferenced_replays(store: Store) -> set[str]:
    """The replays kept in `store` that no match references."""
    referenced = {
        row.replay_hash
        for t in store.list_tournaments()
        for row in store.list_matches(t.id)
        if row.replay_hash
    }
    return set(store.replays.digests()) - referenced
