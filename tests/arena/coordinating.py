"""A competition's coordinator in the arena's tests: `running_coordinator`, the real run in a thread
over a process pool of 2 (the executor replaced by a new one if it breaks), stopped, joined and its
pools closed at the end, an exception the run raised failing the test; and `drive`, turn by turn
over an executor the test steps itself."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from concurrent.futures import Executor
from contextlib import contextmanager
from typing import Any, Protocol

from botarena.arena.coordinator import ArenaCoordinator, CoordinatorOptions
from botarena.core.credentials import WorkerSecrets
from botarena.store import Store
from botarena.tournament.executor import close_executor, make_executor


@contextmanager
def running_coordinator(
    store: Store, competition_id: int, options: CoordinatorOptions
) -> Iterator[ArenaCoordinator]:
    secrets = WorkerSecrets.of(store.connect_url)

    def factory() -> Executor:
        return make_executor(2, credentials=secrets)

    executor = factory()
    stop = threading.Event()
    coordinator = ArenaCoordinator(
        store, competition_id, executor, executor_factory=factory, stop=stop, options=options
    )
    errors: list[BaseException] = []

    def run() -> None:
        try:
            coordinator.run()
        except BaseException as exc:  # reported below
            errors.append(exc)

    thread = threading.Thread(target=run, name="arena-coordinator", daemon=True)
    thread.start()
    try:
        yield coordinator
    finally:
        stop.set()
        thread.join(timeout=60)
        close_executor(coordinator.executor, cancel=True)
        close_executor(executor, cancel=True)
    assert errors == []


class SteppedExecutor(Protocol):
    """An executor whose submitted tasks wait until the test runs them (`run_first`)."""

    @property
    def pending(self) -> list[Any]: ...

    def run_first(self) -> Any: ...


def drive(coordinator: ArenaCoordinator, executor: SteppedExecutor, until: Callable[[], bool]) -> None:
    """Run the executor's tasks one by one, a coordinator turn after each, until `until()` holds."""
    for _ in range(400):
        coordinator.tick()
        if until():
            return
        if executor.pending:
            executor.run_first()
    raise AssertionError("the coordinator did not get there in 400 turns")
