# The two commands (see README.md):
#   make book   build the whole book: environment, data, notebooks, HTML
#   make test   run the test suite
# Everything runs inside .venv, created from requirements.lock on first use; the two peer tools
# that chapter 9 compares with (Anonymeter, the ALC package) run in .venv-peers, created from
# requirements-peers.lock (they need NumPy < 1.27 and pandas < 3; the book runs on NumPy 2).

PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.anonlab-installed
PEERS_VENV  ?= .venv-peers
PEERS_STAMP := $(PEERS_VENV)/.anonlab-peers-installed

.PHONY: book test env peers lock benchmark clean lab

book: $(STAMP) $(PEERS_STAMP)
	$(BIN)/python -m anonlab book

test: $(STAMP) $(PEERS_STAMP)
	$(BIN)/python -m pytest $(PYTEST_ARGS)

env: $(STAMP)

peers: $(PEERS_STAMP)

# The environment is rebuilt whenever the lock or the package metadata changes.
$(STAMP): requirements.lock pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -r requirements.lock
	$(BIN)/python -m pip install --quiet --disable-pip-version-check --no-deps --no-build-isolation -e .
	touch $(STAMP)

# The peers' environment: exactly the lock's versions (--no-deps: nothing else is resolved).
$(PEERS_STAMP): requirements-peers.lock
	test -x $(PEERS_VENV)/bin/python || $(PYTHON) -m venv $(PEERS_VENV)
	$(PEERS_VENV)/bin/python -m pip install --quiet --disable-pip-version-check --no-deps -r requirements-peers.lock
	touch $(PEERS_STAMP)

# Regenerate the lock from pyproject.toml (needs the dev extra: pip-tools).
lock: $(STAMP)
	$(BIN)/pip-compile --all-extras --strip-extras --no-emit-find-links --no-emit-index-url \
	    --no-emit-trusted-host --allow-unsafe -o requirements.lock pyproject.toml

lab: $(STAMP)
	$(BIN)/jupyter lab notebooks/

# Speed benchmarks: each prints ratios measured in one run (not a timed test) and writes
# _build/benchmarks/<name>.json; summary.py collects them into one JSON + table and, unless
# BENCH_BOOK=0, builds the book's runs from a cold result cache twice in the same run, serial
# (as before) and parallel, and reports wall, CPU, peak memory and load for the whole and each
# part as ratios serial / parallel, then the HTML and a rebuild with nothing changed.
BENCH_BOOK ?= 1
benchmark: $(STAMP)
	@for b in tests/benchmarks/bench_*.py; do echo "== $$b"; $(BIN)/python $$b || exit 1; done
	$(BIN)/python tests/benchmarks/summary.py $(if $(filter 1,$(BENCH_BOOK)),--book,)

clean:
	rm -rf _build book/*.ipynb book/*.results.json book/*.params.json book/*.attacks.pkl book/_generated book/_exercises book/_static/assignments
