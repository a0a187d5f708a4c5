# botarena: two commands on a fresh machine.
#   make run    set up .venv, start the organizer's server on SQLite (./var), run a demo round robin of
#               every game's starter bots (watch them live), print the URL
#   make test   set up .venv, then ruff, mypy, and every pytest test (browser tests included)

PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed-stamp
RUN_STAMP := $(VENV)/.run-stamp
PORT   ?= 8765

.PHONY: setup run test lint typecheck pytest bench clean

# `make run` needs only botarena itself (the server and viewer included); `make test` adds the dev
# toolchain (pytest, playwright, ruff, mypy, the PostgreSQL and Dask extras).
$(RUN_STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e .
	touch $(RUN_STAMP)

# torch is pinned first to the CPU build this machine kind keeps on disk (the rl-train extra's
# range admits it, so pip takes nothing more); elsewhere PyPI's torch of that version is installed.
TORCH ?= torch==2.13.0

$(STAMP): $(RUN_STAMP)
	$(BIN)/python -m pip install --quiet '$(TORCH)'
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

setup: $(STAMP)

run: $(RUN_STAMP)
	$(BIN)/botarena serve --demo --port $(PORT)

lint: setup
	$(BIN)/ruff check src tests benchmarks examples
	$(BIN)/ruff format --check src tests benchmarks examples

typecheck: setup
	$(BIN)/mypy

pytest: setup
	$(BIN)/pytest -q -n 2 --dist loadfile --durations=25  # two workers, a file each; the slowest tests: CI must stay under 30 minutes

test: lint typecheck pytest

bench: setup
	@for script in benchmarks/*.py; do echo "== $$script"; $(BIN)/python $$script || exit 1; done

clean:
	rm -rf $(VENV) var .pytest_cache .mypy_cache .ruff_cache
