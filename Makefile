# `make serve` (set up and start the web app), `make play` (set up and play in the terminal) and
# `make check` (set up and run every CI check, the browser code's included: `make js-check`).
#
# Two installs into one .venv, each with its own stamp: `serve` and `play` need only the lean one
# (the core, the web extra and the compiled core: about 110 MB), the checks need every extra (Ray,
# torch, OpenSpiel, …: about 2.2 GB).  A lean .venv is never taken as ready for the checks.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
SERVE_STAMP := $(VENV)/.serve-installed
CHECK_STAMP := $(VENV)/.check-installed
NATIVE_STAMP := build/native.stamp

.PHONY: serve play check setup setup-serve test test-fast lint types js-check bench baseline font loadtest clean

# No `pip install --upgrade pip`: the venv's own pip installs everything here, and upgrading it only
# added time to the first start.
$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

# An editable install also compiles the core (setup.py), from the C source as it is now: so the
# native stamp is set too, and the core is not compiled a second time.  The old .so is removed first
# (a new file: a running process keeps the old one).
$(SERVE_STAMP): pyproject.toml | $(BIN)/python
	rm -f src/clashofdecks/_native*.so
	$(BIN)/pip install -q -e '.[web]'
	mkdir -p build && touch $(NATIVE_STAMP) $@

# Every extra includes the web one (through dev), so the full install also makes the lean one ready.
$(CHECK_STAMP): pyproject.toml mtgrules/pyproject.toml | $(BIN)/python
	rm -f src/clashofdecks/_native*.so
	$(BIN)/pip install -q -e '.[dev,cluster,analysis,rl,train,envbench,loadtest]'
	$(BIN)/pip install -q -e './mtgrules[cli,dev]'
	mkdir -p build && touch $(NATIVE_STAMP) $(SERVE_STAMP) $@

# The compiled core (docs/native.md): rebuilt in place whenever its C source changes after the
# install; without a C compiler the build is skipped and Python runs.
$(NATIVE_STAMP): src/clashofdecks/_native.c setup.py | $(SERVE_STAMP)
	rm -f src/clashofdecks/_native*.so  # a new file: a running process keeps the old one
	$(BIN)/pip install -q --no-deps -e .
	mkdir -p build && touch $@

setup-serve: $(SERVE_STAMP) $(NATIVE_STAMP)

setup: $(CHECK_STAMP) $(NATIVE_STAMP)

serve: setup-serve
	$(BIN)/clash serve $(ARGS)

play: setup-serve
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

# The browser code (docs/web.md, "Code"): ESLint and the unit tests of its modules without DOM (Node's
# own test runner), with the dev dependencies exactly as package-lock.json locks them (npm ci, again
# whenever the lock changes).  Players need none of it: the page loads its modules as they are.
NPM_STAMP := node_modules/.ci-installed

$(NPM_STAMP): package.json package-lock.json
	npm ci --no-audit --no-fund
	touch $@

js-check: $(NPM_STAMP)
	node_modules/.bin/eslint src/clashofdecks/web/static tests/js eslint.config.js
	node --test tests/js/*.test.js

check: lint types js-check test

bench: setup
	$(BIN)/clash bench

# A second installed version for `clash bench --web --baseline-venv build/baseline-REF/venv`
# (docs/performance.md, "A baseline in the same run"): commit REF checked out in
# build/baseline-REF/src (a git worktree), installed editable (its own compiled core) into
# build/baseline-REF/venv, which takes its dependencies from this .venv.
BASELINE := build/baseline-$(REF)
baseline: setup-serve
	@test -n "$(REF)" || { echo "usage: make baseline REF=<commit>"; exit 2; }
	-git worktree remove --force $(BASELINE)/src 2>/dev/null
	rm -rf $(BASELINE)
	git worktree add --detach $(BASELINE)/src $(REF)
	$(BIN)/python -m venv $(BASELINE)/venv
	$(BIN)/python -c "import sys; print(*[p for p in sys.path if p.endswith('site-packages')], sep='\n')" \
		> "$$($(BASELINE)/venv/bin/python -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')/zz_baseline_deps.pth"
	$(BASELINE)/venv/bin/python -m pip install -q --no-deps -e $(BASELINE)/src
	@echo "baseline of $(REF): clash bench --web --baseline-venv $(BASELINE)/venv"

# The Locust load test (docs/performance.md, "Capacity with Locust"): GAMES at once against PROCESSES
# servers on DATABASE (postgresql://…; empty: SQLite, one process) for DURATION seconds; KILL=1
# SIGKILLs one server halfway; ASSIGN=same keeps both seats of a game on one server.  The summary is
# written to loadtest-results/.  The extra's two packages are installed on their own: an editable
# install of the project would compile the core again.
LOADTEST_STAMP := $(VENV)/.loadtest-installed
GAMES ?= 100
PROCESSES ?= 1
DURATION ?= 120
KILL ?= 0
ASSIGN ?= split
DATABASE ?=

$(LOADTEST_STAMP): pyproject.toml | $(SERVE_STAMP)
	$(BIN)/pip install -q 'locust>=2.20' 'websocket-client>=1.6'
	touch $@

loadtest: setup-serve $(LOADTEST_STAMP)
	$(BIN)/python -m clashofdecks.web.loadtest --games $(GAMES) --processes $(PROCESSES) \
		--duration $(DURATION) --assign $(ASSIGN) $(if $(DATABASE),--database $(DATABASE)) \
		$(if $(filter 1,$(KILL)),--kill) $(ARGS)

# The Japanese web font subset (docs/web.md, "Japanese"): rebuild it after the Japanese words change.
# FONT_SOURCE: the Noto Sans CJK collection (default: that of Debian's fonts-noto-cjk package).
font: setup
	$(BIN)/python -m clashofdecks.web.fontsubset $(if $(FONT_SOURCE),--source $(FONT_SOURCE))

clean:
	rm -rf $(VENV) node_modules build *.egg-info src/*.egg-info mtgrules/src/*.egg-info src/clashofdecks/_native*.so
