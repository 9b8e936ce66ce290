# `make serve` (set up and start the web app), `make play` (set up and play in the terminal) and
# `make check` (set up and run every CI check).
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin

.PHONY: serve play check setup test lint types bench clean

$(BIN)/clash: pyproject.toml mtgrules/pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -e '.[dev,cluster,analysis,rl,train,envbench]'
	$(BIN)/pip install -q -e './mtgrules[cli,dev]'
	touch $(BIN)/clash

setup: $(BIN)/clash

serve: setup
	$(BIN)/clash serve $(ARGS)

play: setup
	$(BIN)/clash play $(ARGS)

test: setup
	$(BIN)/pytest

lint: setup
	$(BIN)/ruff check src tests mtgrules
	$(BIN)/ruff format --check src tests mtgrules

types: setup
	$(BIN)/mypy

check: lint types test

bench: setup
	$(BIN)/clash bench

clean:
	rm -rf $(VENV) build *.egg-info src/*.egg-info mtgrules/src/*.egg-info
