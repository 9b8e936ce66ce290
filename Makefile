# `make serve` (set up and start the web app), `make play` (set up and play in the terminal) and
# `make check` (set up and run every CI check).
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin

.PHONY: serve play check setup test test-fast lint types bench clean

$(BIN)/clash: pyproject.toml mtgrules/pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -e '.[dev,cluster,analysis,rl,train,envbench]'
	$(BIN)/pip install -q -e './mtgrules[cli,dev]'
	touch $(BIN)/clash

# The compiled core (docs/native.md): rebuilt in place whenever its C source changes (an editable
# install builds it only once); without a C compiler the build is skipped and Python runs.
NATIVE_STAMP := build/native.stamp
$(NATIVE_STAMP): src/clashofdecks/_native.c setup.py | $(BIN)/clash
	rm -f src/clashofdecks/_native*.so  # a new file: a running process keeps the old one
	$(BIN)/pip install -q --no-deps -e .
	mkdir -p build && touch $@

setup: $(BIN)/clash $(NATIVE_STAMP)

serve: setup
	$(BIN)/clash serve $(ARGS)

play: setup
	$(BIN)/clash play $(ARGS)

test: setup
	$(BIN)/pytest

# The everyday subset (under a minute on an idle 2-core machine): every test not marked slow
# (tests/conftest.py lists the slow modules, which are not even imported). `make test` runs them all.
test-fast: setup
	$(BIN)/pytest --fast tests mtgrules/tests

lint: setup
	$(BIN)/ruff check src tests mtgrules
	$(BIN)/ruff format --check src tests mtgrules

types: setup
	$(BIN)/mypy

check: lint types test

bench: setup
	$(BIN)/clash bench

clean:
	rm -rf $(VENV) build *.egg-info src/*.egg-info mtgrules/src/*.egg-info src/clashofdecks/_native*.so
