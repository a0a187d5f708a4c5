"""Run one documentation page's marked examples, in order, in the current folder (for test_examples.py).

Usage: python run_examples.py BLOCKS.json, a list of blocks as test_examples.Block.as_job writes them.
`file` blocks are written first; then python blocks run in this one interpreter with one namespace
for the page (as a reader's session or notebook would), sh blocks with `bash -euo pipefail`, and
`background` blocks are started in a session of their own, waited for (their `ready` port accepts
a connection), and stopped when the page is done. The first failing block ends the run with its
page and line, its output and exit status 1."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
import traceback
from pathlib import Path
from typing import Any

BLOCK_TIMEOUT_S = 240.0
"""A block that runs longer is a failure (a server left in the foreground, a hang), not a stuck CI."""
READY_TIMEOUT_S = 60.0


def where(block: dict[str, Any]) -> str:
    return f"{block['page']}:{block['line']}"


def fail(block: dict[str, Any], message: str) -> None:
    print(f"{where(block)}: {block['language']} example failed: {message}", file=sys.stderr, flush=True)
    raise SystemExit(1)


def run_shell(block: dict[str, Any]) -> None:
    try:
        done = subprocess.run(
            ["bash", "-euo", "pipefail", "-c", block["code"]],
            capture_output=True,
            text=True,
            timeout=BLOCK_TIMEOUT_S,
            stdin=subprocess.DEVNULL,
        )
    except subprocess.TimeoutExpired as exc:
        fail(block, f"still running after {BLOCK_TIMEOUT_S:g} s\n{exc.stdout!r}\n{exc.stderr!r}")
        return
    if done.returncode != 0:
        fail(
            block,
            f"exit status {done.returncode}\n--- stdout\n{done.stdout[-3000:]}\n"
            f"--- stderr\n{done.stderr[-3000:]}",
        )
    print(done.stdout, end="", flush=True)


def run_python(block: dict[str, Any], namespace: dict[str, Any]) -> None:
    try:
        exec(compile(block["code"], where(block), "exec"), namespace)
    except BaseException:
        fail(block, traceback.format_exc(limit=-8))


def accepts(port: int) -> bool:
    with socket.socket() as probe:
        probe.settimeout(1.0)
        return probe.connect_ex(("127.0.0.1", port)) == 0


def start_background(block: dict[str, Any]) -> subprocess.Popen[bytes]:
    """Start the block as a service of its own session and wait (bounded) until its port accepts."""
    port = block.get("ready")
    if port is not None and accepts(port):
        fail(block, f"port {port} is already in use on this machine, so the example cannot be run")
    log = open(f".background-{block['line']}.log", "wb")  # noqa: SIM115 - kept open while it runs
    process = subprocess.Popen(
        ["bash", "-euo", "pipefail", "-c", block["code"]],
        stdout=log,
        stderr=subprocess.STDOUT,
        stdin=subprocess.DEVNULL,
        start_new_session=True,
    )
    if port is not None:
        end = time.monotonic() + READY_TIMEOUT_S
        while not accepts(port):
            if process.poll() is not None:
                fail(
                    block,
                    f"exited with {process.returncode} before listening on {port}: "
                    + Path(log.name).read_text(errors="replace"),
                )
            if time.monotonic() > end:
                fail(block, f"not listening on {port} after {READY_TIMEOUT_S:g} s")
            time.sleep(0.05)
    return process


def stop(process: subprocess.Popen[bytes]) -> None:
    """Stop a background block and everything it started (its session's process group)."""
    if process.poll() is None:
        os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()


def main(jobs_file: str) -> None:
    blocks: list[dict[str, Any]] = json.loads(Path(jobs_file).read_text(encoding="utf-8"))
    for block in blocks:
        if block["kind"] == "file":
            Path(block["file"]).write_text(block["code"], encoding="utf-8")
    namespace: dict[str, Any] = {"__name__": "__main__"}
    background: list[subprocess.Popen[bytes]] = []
    try:
        for block in blocks:
            print(f"== {where(block)} ({block['kind']})", flush=True)
            if block["kind"] == "background":
                background.append(start_background(block))
            elif block["kind"] == "run" and block["language"] == "python":
                run_python(block, namespace)
            elif block["kind"] == "run":
                run_shell(block)
    finally:
        for process in background:
            stop(process)


if __name__ == "__main__":
    main(sys.argv[1])
