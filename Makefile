# Two commands do all set-up on a fresh machine (Python 3.11+ with venv):
#   make demo   - validate the bundled sample data with the phi-wire command line
#   make test   - build the wheel and sdist, install the wheel into a fresh venv, and run the test
#                 suite against that installed package from outside the source tree
# (reads the fixture corpus from ../shared/fixtures, or $PHI_WIRE_FIXTURES; the TypeScript half
# needs node 20+ and installs its pinned packages from the npm registry with `npm ci`)
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
DIST := build/dist
TEST_VENV := build/test-venv
NODE_TOOLS := tools/typescript

.PHONY: demo test wheel codegen node-tools

# The development environment: an editable install with the workshop's tools (codegen, mypy).
# What pip and the build print goes to build/venv.log, shown only if a step fails: make demo's
# own output is the set-up's one line and the validator's report. Byte-compile now: where
# PYTHONDONTWRITEBYTECODE is set, imports would compile every run.
$(BIN)/phi-wire: pyproject.toml
	@echo "make: setting up $(VENV) (an editable install with the workshop's tools, about a minute)"
	@mkdir -p build
	@($(PYTHON) -m venv $(VENV) \
		&& $(BIN)/python -m pip install --quiet --upgrade pip \
		&& $(BIN)/python -m pip install --quiet -e '.[dev]' \
		&& $(BIN)/python -m compileall -q runtime generated tools) > build/venv.log 2>&1 \
		|| (cat build/venv.log; echo "make: setting up $(VENV) failed (build/venv.log)"; exit 1)
	@touch $@

# The workshop's node packages (TypeScript generator, ajv, tsc), exactly as the lock file pins them;
# no install scripts run. tools/codegen and the TypeScript tests use them.
$(NODE_TOOLS)/node_modules/.package-lock.json: $(NODE_TOOLS)/package.json $(NODE_TOOLS)/package-lock.json
	cd $(NODE_TOOLS) && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error
	touch $@

node-tools: $(NODE_TOOLS)/node_modules/.package-lock.json

demo: $(BIN)/phi-wire
	@$(BIN)/phi-wire validate examples/

# The sdist, and the wheel built from it (so the sdist is proven complete).
wheel: $(BIN)/phi-wire
	rm -rf $(DIST) && mkdir -p build
	$(BIN)/python -m build --outdir $(DIST) . > build/wheel.log 2>&1 || (cat build/wheel.log; exit 1)
	@! grep -i deprecat build/wheel.log || (echo "make wheel: the build warns of a deprecation"; exit 1)
	@ls $(DIST)

test: wheel node-tools
	rm -rf $(TEST_VENV)
	$(PYTHON) -m venv $(TEST_VENV)
	$(TEST_VENV)/bin/python -m pip install --quiet --upgrade pip
	$(TEST_VENV)/bin/python -m pip install --quiet "$$(ls $(DIST)/*.whl)[test]"
	cd "$$(mktemp -d)" && PHI_WIRE_TEST_INSTALLED=1 \
		PHI_WIRE_FIXTURES="$${PHI_WIRE_FIXTURES:-$(CURDIR)/../shared/fixtures}" \
		"$(CURDIR)/$(TEST_VENV)/bin/python" -m pytest -q -c "$(CURDIR)/pyproject.toml" \
		--rootdir "$(CURDIR)" "$(CURDIR)/tests"

codegen: $(BIN)/phi-wire node-tools
	tools/codegen
