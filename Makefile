# Two entry points for a fresh machine: `make demo` (the whole pipeline on the bundled sample) and
# `make test` (unit + integration tests against a real Neo4j). Both create .venv on first use.
PYTHON ?= python3.11
VENV ?= .venv
PY := $(VENV)/bin/python

.PHONY: demo test install install-full bench clean-state

$(VENV)/.base: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e ".[dev]"
	touch $@

$(VENV)/.full: $(VENV)/.base
	$(PY) -m pip install -q -e ".[dev,train]"
	touch $@

install: $(VENV)/.base
install-full: $(VENV)/.full

demo: install
	$(VENV)/bin/graphforge demo

test: install-full
	$(PY) -m pytest

bench: install-full
	$(PY) -m bench

clean-state:
	$(VENV)/bin/graphforge db stop || true
	rm -rf .graphforge out
