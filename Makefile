# Developer and CI entry points. `make help` lists the targets: each documented target carries a
# `## description` after its prerequisites, which is all a new target needs to appear there.

VENV := .venv
PY := $(VENV)/bin/python
UPY := $(VENV)/bin/micropython
RUFF := $(VENV)/bin/ruff
STAMP := $(VENV)/.stamp

# MicroPython heap for the core tests: 128wK is 128 KB of 32-bit-equivalent heap (the `w` suffix
# scales by word size), close to an ESP32 heap after one growth. Override: make test-upy UPY_HEAP=2wM
UPY_HEAP ?= 128wK
export UPY_HEAP

.DEFAULT_GOAL := help
.PHONY: help venv test test-py test-upy lint fmt clean distclean

help: ## list the targets
	@grep -hE '^[a-zA-Z0-9_.-]+:.*## ' $(MAKEFILE_LIST) \
		| awk 'BEGIN {FS = ":.*## "} {printf "  %-12s %s\n", $$1, $$2}'

$(STAMP): requirements-dev.txt
	python3 -m venv $(VENV)
	$(PY) -m pip install --disable-pip-version-check -r requirements-dev.txt
	touch $@

venv: $(STAMP) ## create .venv with the pinned host tools (requirements-dev.txt)

test: lint test-py test-upy ## THE test command: lint, pytest on CPython, core tests on MicroPython

test-py: $(STAMP) ## pytest on CPython (host_tests/, includes one run under micropython)
	$(PY) -m pytest

test-upy: $(STAMP) ## host_tests/core/test_*.py under the MicroPython unix port
	$(UPY) -X heapsize=$(UPY_HEAP) tools/upytest.py

lint: $(STAMP) ## ruff lint and format check
	$(RUFF) check .
	$(RUFF) format --check .

fmt: $(STAMP) ## apply ruff fixes and formatting (`make lint` then shows what is left)
	$(RUFF) check --fix --exit-zero .
	$(RUFF) format .

clean: ## remove build output and caches (keeps .venv)
	rm -rf build .pytest_cache .ruff_cache .hypothesis test-results playwright-report
	find . -path ./$(VENV) -prune -o -name __pycache__ -type d -prune -exec rm -rf {} +
	find . -path ./$(VENV) -prune -o -name '*.mpy' -type f -exec rm -f {} +

distclean: clean ## clean, and remove .venv too
	rm -rf $(VENV)
