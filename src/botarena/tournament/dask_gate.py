"""Which Dask workers a tournament's matches go to (issue 25): never to one that cannot play them.

A sandboxed tournament's matches go only to workers that passed the sandbox probe. `SandboxGate` is
a Dask worker plugin: the scheduler keeps it and runs its `setup` on every worker, those there when
the coordinator registers it and every one that joins later, before that worker takes any match of
the tournament. `setup` runs `check_worker_sandbox` (the same `check_sandbox` that the coordinator's
own machine passed) and gives a worker that passes the gate's resource, one unit per thread; the
coordinator asks one unit for every match task, so the scheduler routes matches to those workers
alone. A worker that fails keeps its one-line reason, which the coordinator logs once.

A worker whose own machine fails a match later (its artifact cache full or read-only: `unfit_worker`
of a MatchFailure) is left out for the rest of the run: from then on every task names the other
workers (`workers=[...]`, a hard restriction: a loose one would let Dask's work stealing hand a task
to a worker without the resource). A task whose named workers have all gone meanwhile is sent again
(`stranded`). With no worker left that can play, `halt_reason` says why, and the coordinator stops.

This module imports `distributed`; the coordinator imports it only for a Dask executor.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
from concurrent.futures import Executor
from typing import TYPE_CHECKING, Any

from distributed.diagnostics.plugin import WorkerPlugin

if TYPE_CHECKING:
    from botarena.bots.sandbox import SandboxPolicy

log = logging.getLogger(__name__)

# (worker address, gate name) -> "" (passed) or the reason it cannot play, in each worker process
_verdicts: dict[tuple[str, str], str] = {}


def gate_name(policy: SandboxPolicy) -> str:
    """The plugin's and the resource's name for `policy` (two policies, two gates: each its own probe)."""
    return f"botarena-sandbox-{hashlib.sha256(repr(policy).encode()).hexdigest()[:12]}"


def _probe(policy: SandboxPolicy) -> str:
    """On a worker: "" if it can sandbox bots with `policy`, else the one-line reason."""
    from botarena.tournament.executor import check_worker_sandbox

    try:
        check_worker_sandbox(policy)
    except Exception as exc:  # SandboxUnavailable, or a probe that broke: this worker plays nothing
        return str(exc) if str(exc) else type(exc).__name__
    return ""


class SandboxGate(WorkerPlugin):
    """Runs the sandbox probe on a worker as it joins; a worker that passes gets the gate's resource."""

    idempotent = True  # registered again (another coordinator, a resume): nothing changes

    def __init__(self, policy: SandboxPolicy) -> None:
        self.policy = policy
        self.name = gate_name(policy)

    async def setup(self, worker: Any) -> None:
        # the probe starts a sandbox (a subprocess): off the worker's event loop
        problem = await asyncio.get_running_loop().run_in_executor(None, _probe, self.policy)
        _verdicts[(worker.address, self.name)] = problem
        if problem:
            log.warning("this worker takes no sandboxed botarena matches: %s", problem)
            return
        await worker.set_resources(**{self.name: worker.state.nthreads})


def _verdict(name: str, dask_worker: Any = None) -> tuple[str | None, int]:
    """On a worker (`Client.run`): its gate's verdict ("" passed, a reason, None: not probed yet)
    and its threads."""
    return _verdicts.get((dask_worker.address, name)), int(dask_worker.state.nthreads)


class DaskGate:
    """The coordinator's view of a Dask cluster's workers: which ones may take its matches."""

    def __init__(self, executor: Executor, client: Any, policy: SandboxPolicy | None) -> None:
        self.client = client
        self.name = gate_name(policy) if policy is not None else None
        self.executor = executor
        if policy is not None:
            # the plugin's setup runs on every worker there now before this returns, and on every
            # worker that joins later; matches then ask for its resource (ClientExecutor kwargs)
            client.register_plugin(SandboxGate(policy), name=self.name)
            self.executor = client.get_executor(pure=False, resources={self.name: 1})
        self.threads: dict[str, int] = {}  # the workers there at the last look, and their threads
        self.refused: dict[str, str] = {}  # workers whose probe failed (they lack the resource): why
        self.left_out: dict[str, str] = {}  # workers whose machine failed a match in this run: why
        self.pending: set[str] = set()  # workers whose probe has not answered yet

    def refresh(self) -> None:
        """Look at the cluster's workers again (they come and go), logging each new refusal once."""
        if self.name is None:  # unsandboxed: every worker may play
            found = {address: ("", int(n)) for address, n in self.client.nthreads().items()}
        else:
            answers = self.client.run(_verdict, self.name, on_error="return")
            found = {a: v for a, v in answers.items() if not isinstance(v, BaseException)}
        self.threads = {address: threads for address, (_, threads) in found.items()}
        self.pending = {address for address, (verdict, _) in found.items() if verdict is None}
        for address, (verdict, _) in found.items():
            if verdict and address not in self.refused:
                self.refused[address] = verdict
                log.warning("the Dask worker %s takes no matches: %s", address, verdict)

    def leave_out(self, address: str, reason: str) -> None:
        """`address` takes no more matches of this run: its own machine failed one (logged once)."""
        if address in self.left_out or address in self.refused:
            return
        self.left_out[address] = reason
        log.warning("the Dask worker %s takes no more matches of this run: %s", address, reason)

    def fit(self) -> list[str]:
        """The workers there that may take matches (their probe passed, nothing went wrong since)."""
        out = self.refused.keys() | self.left_out.keys() | self.pending
        return sorted(address for address in self.threads if address not in out)

    def slots(self) -> int:
        """Threads of the workers that may take matches (at least 1: a task waits for one to come)."""
        return max(1, sum(self.threads[address] for address in self.fit()))

    def route(self) -> dict[str, Any]:
        """The submit keywords that keep a task off the workers left out ({} while none is there)."""
        fit = self.fit()
        if not fit or not any(address in self.threads for address in self.left_out):
            return {}
        return {"workers": fit, "allow_other_workers": False}

    def stranded(self, route: dict[str, Any]) -> bool:
        """Whether a task submitted with `route` waits for workers that are all gone (or left out)."""
        named: list[str] = route.get("workers") or []
        return bool(named) and not set(named) & set(self.fit())

    def halt_reason(self) -> str | None:
        """Why no match can be played now: every worker there cannot take one (None otherwise, and
        while there is no worker at all or one not probed yet: the cluster may still bring one)."""
        if not self.threads or self.pending or self.fit():
            return None
        why = {**self.refused, **self.left_out}
        reasons = sorted({why[address] for address in self.threads if address in why})
        return "no Dask worker can play this tournament's matches: " + "; ".join(reasons)
