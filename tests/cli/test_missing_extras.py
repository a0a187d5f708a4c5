"""A module a command needs and the installation lacks is one line naming what to install, exit 2,
never `internal error` (issue 26, item 3).

The real CLI (`botarena.cli.main`) runs in a fresh interpreter in which the module is hidden
(`sys.modules[name] = None` makes every import of it fail, as when it is not installed): each case
hides modules no other case imports, so one interpreter runs them all."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from botarena.cli import OPTIONAL_EXTRAS, missing_module_message

ROOT = Path(__file__).resolve().parents[2]

DRIVER = """
import contextlib, io, json, sys
from botarena.cli import main
results = []
for hidden, argv in json.loads(sys.argv[1]):
    for name in hidden:
        sys.modules[name] = None
    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        code = main(argv)
    results.append({"code": code, "stderr": err.getvalue()})
print(json.dumps(results))
"""


def run_hidden(cases: list[tuple[list[str], list[str]]], cwd: Path) -> list[dict[str, object]]:
    """Run each (modules to hide, argv) through the CLI in one fresh interpreter; exit codes and stderr."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT / "src"), os.environ.get("PYTHONPATH", "")])}
    env.pop("BOTARENA_DEBUG", None)
    done = subprocess.run(
        [sys.executable, "-c", DRIVER, json.dumps(cases)],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    results: list[dict[str, object]] = json.loads(done.stdout.strip().splitlines()[-1])
    return results


def test_a_missing_module_on_a_commands_path_is_one_line_naming_what_to_install(tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'db.sqlite'}"
    cases = [
        # the README's HTTP example: aiohttp is a core dependency, so its absence is a broken install
        (["aiohttp"], ["play", "devops", "http://127.0.0.1:9", "starter", "--preset", "smoke"]),
        # an optional extra: the Dask executor
        (
            ["distributed"],
            ["tournament", "drones", "--bots", "zergy,pacifist", "--db", db, "--dask", "tcp://127.0.0.1:9"],
        ),
        # an optional extra: the PostgreSQL store
        (["psycopg"], ["leaderboard", "--db", "postgresql+psycopg://u@127.0.0.1:9/x"]),
    ]
    first, dask, postgres = run_hidden(cases, tmp_path)
    for result in (first, dask, postgres):
        stderr = str(result["stderr"])
        assert result["code"] == 2, result
        assert "internal error" not in stderr and "Traceback" not in stderr, stderr
        assert stderr.startswith("botarena: error: ") and stderr.count("\n") == 1, stderr
    assert "aiohttp is missing from this installation" in str(first["stderr"])
    assert "reinstall" in str(first["stderr"])
    assert "pip install 'botarena[dask]'" in str(dask["stderr"])
    assert "pip install 'botarena[postgres]'" in str(postgres["stderr"])


def test_the_message_names_the_extra_of_an_optional_module_and_keeps_a_raisers_hint() -> None:
    missing = ModuleNotFoundError("No module named 'gymnasium'", name="gymnasium")
    assert missing_module_message(missing).endswith("pip install 'botarena[rl]'")
    nested = ModuleNotFoundError("No module named 'torch.nn'", name="torch.nn")
    assert missing_module_message(nested).endswith("pip install 'botarena[rl-train]'")
    hinted = ImportError("--dask needs dask.distributed; run: pip install 'botarena[dask]'")
    assert missing_module_message(hinted) == str(hinted)
    nameless = ImportError("cannot import name 'x' from 'y'")
    assert "reinstall" in missing_module_message(nameless)


def _distribution(requirement: str) -> str:
    """A requirement's distribution as a module name: 'psycopg[binary]>=3.1,<4' -> 'psycopg'."""
    name = requirement
    for stop in "[<>=!~; ":
        name = name.split(stop, 1)[0]
    return name.strip().lower().replace("-", "_")


@pytest.mark.parametrize("extra", ["postgres", "dask", "rl", "rl-train"])
def test_the_extras_table_agrees_with_pyproject(extra: str) -> None:
    """Every distribution an extra installs is named with that extra (modules share their
    distribution's name for all of these), and no core dependency is taken for an extra."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    requirements = project["optional-dependencies"][extra]
    wanted = {_distribution(r) for r in requirements if not r.startswith("botarena")}
    assert wanted, extra
    for module in wanted:
        assert OPTIONAL_EXTRAS.get(module) == extra, f"{module} (extra {extra}) is not in cli.OPTIONAL_EXTRAS"
    core = {_distribution(r) for r in project["dependencies"]}
    assert "aiohttp" in core, "HTTP bots need aiohttp in every install (issue 26)"
    assert not core & set(OPTIONAL_EXTRAS), core & set(OPTIONAL_EXTRAS)
