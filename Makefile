# mrc-p4 — entry points.  `make run` is the main job, `make test` the test suite.
# Both create .venv from the pinned requirements.txt on first use.

PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

# P4 programs checked by `make run`: the top levels of every architecture (p4src/*.p4
# v1model, p4src/pna/, p4src/tna/) and examples; p4src/include/ holds shared pieces.
P4_PROGRAMS := $(filter-out p4src/include/%,$(wildcard p4src/*.p4 p4src/*/*.p4 examples/*.p4))
P4_INCLUDES := $(if $(wildcard p4src/include),-I p4src/include)

.PHONY: setup test lint run

setup: $(STAMP)

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

# Reinstall only when the pins, the package metadata or its C extensions change (setup.py
# builds behavioral_model/pipeline/_native.c and fabric/sim/_eventq.c where a C compiler
# is found; without one the pipeline and the simulator run in Python alone).
$(STAMP): requirements.txt pyproject.toml setup.py behavioral_model/pipeline/_native.c \
          behavioral_model/pipeline/_parseplan.c behavioral_model/pipeline/_native.h \
          fabric/sim/_eventq.c | $(BIN)/python
	$(BIN)/pip install --quiet -r requirements.txt
	$(BIN)/pip install --quiet -e .
	touch $@

lint: setup
	$(BIN)/ruff check .

# The suite runs on two pytest-xdist workers, one per core (tests/conftest.py groups it by
# file, docs/testing.md); TEST_WORKERS=0 runs it in one process. -rsx lists the reason of
# every skip and expected failure, so none passes for a pass unseen.
TEST_WORKERS ?= 2

test: setup
	$(BIN)/ruff check .
	$(BIN)/pytest -q -rsx -n $(TEST_WORKERS) --dist loadgroup --durations=25

# Main job: parse and type-check every P4 program with our frontend, then run the
# fabric demo (fabric/, docs/fabric.md): the default scenarios on the small
# fabrics in virtual time, a summary table, report.json and plots in out/.
run: setup
	@if [ -z "$(strip $(P4_PROGRAMS))" ]; then \
	    echo "make run: no P4 programs yet (looked for p4src/*.p4 and examples/*.p4); nothing to check."; \
	    exit 0; \
	fi; \
	failed=0; \
	for prog in $(P4_PROGRAMS); do \
	    echo "check $$prog $(P4_INCLUDES)"; \
	    $(BIN)/python -m behavioral_model check $$prog $(P4_INCLUDES) || failed=$$((failed + 1)); \
	done; \
	if [ $$failed -ne 0 ]; then echo "make run: $$failed program(s) failed the check"; exit 1; fi; \
	echo "make run: checked $(words $(P4_PROGRAMS)) program(s): $(P4_PROGRAMS)"
	$(BIN)/python -m fabric run --out out
