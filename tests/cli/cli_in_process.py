"""`botarena ARGS` run in this process, through `botarena.cli.main` (what the `botarena` script
calls: the same exit code and the same stdout and stderr), in a given folder and environment.

A fresh Python start costs ~0.5 s, more than most of the short games the CLI tests play: a test
whose claim is not about the process itself (a signal, `os._exit`, the interpreter) runs here."""

from __future__ import annotations

import contextlib
import io
import os
import subprocess
from collections.abc import Mapping
from pathlib import Path
from unittest import mock

from botarena.cli import main


def botarena_in_process(
    *args: str, cwd: Path | None = None, env: Mapping[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """`botarena ARGS` in `cwd` (default: here) with `env` (default: this one) as the environment,
    answered as `subprocess.run(..., capture_output=True, text=True)` would."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.ExitStack() as stack:
        if cwd is not None:
            stack.enter_context(contextlib.chdir(cwd))
        if env is not None:
            stack.enter_context(mock.patch.dict(os.environ, env, clear=True))
        stack.enter_context(contextlib.redirect_stdout(out))
        stack.enter_context(contextlib.redirect_stderr(err))
        code = main(list(args))
    return subprocess.CompletedProcess(["botarena", *args], code, out.getvalue(), err.getvalue())
