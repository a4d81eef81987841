# Two commands do all set-up on a fresh machine (Python 3.11+ with venv):
#   make demo   - validate the bundled sample data with the phi-wire command line
#   make test   - run the test suite (reads the phi-core corpus from ../shared/fixtures)
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin

.PHONY: demo test codegen

$(BIN)/phi-wire: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	# Byte-compile now: where PYTHONDONTWRITEBYTECODE is set, imports would compile every run.
	$(BIN)/python -m compileall -q runtime generated tools > /dev/null
	touch $@

demo: $(BIN)/phi-wire
	$(BIN)/phi-wire validate examples/

test: $(BIN)/phi-wire
	$(BIN)/python -m pytest -q

codegen: $(BIN)/phi-wire
	tools/codegen
