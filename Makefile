# Two commands set everything up on a fresh machine: `make demo` and `make test`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: demo test properties install bench clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip

$(STAMP): $(BIN)/python pyproject.toml
	$(BIN)/pip install --quiet -e ".[test]"
	touch $(STAMP)

install: $(STAMP)

demo: $(STAMP)
	$(BIN)/fireplan demo

# The property tests run with the fixed "ci" example budget (tests/conftest.py) so CI stays well under 10 minutes,
# and the tests are shared among the machine's cores (pytest-xdist, at most 4 processes).
test: $(STAMP)
	HYPOTHESIS_PROFILE=ci $(BIN)/python -m pytest -q -n auto --maxprocesses 4

# The same properties searched harder (200 examples each, random): about a minute.
properties: $(STAMP)
	HYPOTHESIS_PROFILE=deep $(BIN)/python -m pytest -q tests/properties

bench: $(STAMP)
	$(BIN)/python experiments/bench_sight.py

clean:
	rm -rf $(VENV) build *.egg-info
