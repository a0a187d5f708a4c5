"""What the breakout bot (bots/breakout.py) must leave behind wherever it runs: every attempt held.

`check_breakout(log)` reads one seat's log and asserts that every attempt of the bot was reported and
failed: it ran as a uid that owns nothing (a leased sandbox uid when the runner is root, else the
runner's own through a user namespace) with no capability, NoNewPrivs 1 and Seccomp 2; its
core_pattern write was refused and no script ran; no file under /proc/sys nor any other kernel knob
of /proc opened for writing; every filtered call got the filter's errno (foreign ABIs: SIGSYS), while
PER_LINUX and the personality query still work; no other uid's environment was readable; no process
but its own and bubblewrap's was visible. It returns the evidence line for the zoo's table.

`HostGuard` is the host's side: the coordinator's environment holds secrets (a store URL with a
password, a live token), core_pattern is saved before and restored after (a breach never leaves the
host changed), and afterwards the host's core_pattern and the script's marker file are as they were.
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
import shutil
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from botarena.bots import sandbox_uids

BOT = Path(__file__).parent / "bots" / "breakout.py"
CORE_PATTERN = Path("/proc/sys/kernel/core_pattern")
LINE = re.compile(r"^BREAKOUT (?P<attempt>\S+) (?P<verdict>held|BREACH) (?P<details>.*)$", re.M)


def _bot_module() -> Any:
    spec = importlib.util.spec_from_file_location("zoo_breakout_bot", BOT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)  # top level only defines things: the attack runs in setup/main
    return module


def expected_attempts() -> set[str]:
    """Every attempt the bot reports (its syscall table is the one source of the calls' names)."""
    bot = _bot_module()
    attempts = {"identity", "core_pattern", "sysctl", "proc_knobs", "environ", "processes"}
    if os.uname().machine == "x86_64":
        attempts |= {f"syscall:{name.replace(' ', '_')}" for name, *_ in bot.SYSCALLS}
        attempts |= {"syscall:x32", "syscall:int80"}
        attempts |= {f"allowed:personality_{persona:#x}" for persona in bot.ALLOWED_PERSONALITIES}
    else:
        attempts.add("syscalls")
    return attempts


def attempts_in(log: str) -> dict[str, tuple[bool, str]]:
    return {m["attempt"]: (m["verdict"] == "held", m["details"]) for m in LINE.finditer(log)}


def check_breakout(log: str, where: str = "") -> str:
    """Assert every attempt in one seat's `log` was reported and held; the evidence for the table."""
    found = attempts_in(log)
    missing = sorted(expected_attempts() - found.keys())
    assert not missing, f"{where}: the bot did not report {missing}; its log ends {log[-800:]!r}"
    breaches = {name: details for name, (held, details) in found.items() if not held}
    assert not breaches, f"{where}: the sandbox let these through: {breaches}"
    uid = int(re.search(r"uid=(\d+)", found["identity"][1]).group(1))  # type: ignore[union-attr]
    if sandbox_uids.dedicated_uids():
        assert uid in sandbox_uids.uid_range(), f"{where}: ran as uid {uid}, not a sandbox uid"
    else:
        assert uid == os.getuid(), f"{where}: ran as uid {uid}, not the runner's {os.getuid()}"
    assert "write EROFS" in found["core_pattern"][1] or "write EACCES" in found["core_pattern"][1]
    sysctls = int(found["sysctl"][1].split()[0])
    assert sysctls > 100, f"{where}: only {sysctls} files under /proc/sys were tried"
    calls = sum(name.startswith("syscall:") for name in found)
    ids = sandbox_uids.uid_range()
    who = (
        f"a uid of its own ({ids.start}-{ids.stop - 1})"
        if sandbox_uids.dedicated_uids()
        else "the runner's uid"
    )
    return (
        f"{who}, no capabilities, NoNewPrivs 1, Seccomp 2; core_pattern write refused, no script ran; "
        f"0 of {sysctls} sysctls writable; {calls} filtered calls refused; "
        "no other uid's environ readable; only its own processes visible"
    )


@dataclass
class HostGuard:
    """Secrets in the coordinator's environment, the host's core_pattern and the script's marker."""

    folder: Path
    monkeypatch: pytest.MonkeyPatch
    token: str = field(default_factory=lambda: uuid.uuid4().hex)

    def __post_init__(self) -> None:
        self.password = f"PGPASS-{self.token}"
        self.live_token = f"LIVE-TOKEN-{self.token}"
        self.secrets = (self.password, self.live_token)
        self.marker = self.folder / f"core-pattern-ran-{self.token}"
        self.core_pattern = CORE_PATTERN.read_text()
        url = f"postgresql+psycopg://botarena:{self.password}@127.0.0.1:5432/botarena"
        self.monkeypatch.setenv("BOTARENA_DB", url)
        self.monkeypatch.setenv("BOTARENA_LIVE_TOKEN", self.live_token)

    def params(self) -> dict[str, Any]:
        """What the bot attacks with: where the script would leave its mark, the coordinator's pid."""
        return {"host_marker": str(self.marker), "coordinator_pid": os.getpid()}

    def entrant(self, folder: Path) -> Path:
        """The breakout bot as a Python entrant: a folder with bot.py and its params.json."""
        folder.mkdir(parents=True)
        shutil.copy(BOT, folder / "bot.py")
        (folder / "params.json").write_text(json.dumps(self.params()))
        return folder

    def assert_untouched(self, *texts: str | bytes) -> None:
        """No secret in `texts` (replays, logs), the host's core_pattern and marker as before."""
        for text in texts:
            data = text.encode() if isinstance(text, str) else text
            for secret in self.secrets:
                assert secret.encode() not in data, "a secret of the coordinator's environment leaked"
        assert CORE_PATTERN.read_text() == self.core_pattern, "the host's core_pattern was changed"
        assert not self.marker.exists(), f"the core_pattern script ran on the host: {self.marker.read_text()}"

    def restore(self) -> None:
        """Put core_pattern back if a breach changed it (root only can; the assertion says so anyway)."""
        if CORE_PATTERN.read_text() != self.core_pattern and os.geteuid() == 0:
            CORE_PATTERN.write_text(self.core_pattern)
