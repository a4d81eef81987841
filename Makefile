# Two commands do all set-up on a fresh machine (Python 3.11+ with venv):
#   make demo   - validate the bundled sample data with the phi-wire command line
#   make test   - build the wheel and sdist, install the wheel into a fresh venv, and run the test
#                 suite against that installed package from outside the source tree
# (reads the fixture corpus from ../shared/fixtures, or $PHI_WIRE_FIXTURES; the TypeScript half
# needs node 20+ and installs its pinned packages from the npm registry with `npm ci`, and so does
# the live test against the real pi: `make pi-live`)
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
DIST := build/dist
TEST_VENV := build/test-venv
NODE_TOOLS := tools/typescript
PI_LIVE := tools/pi-live
NPM_CI := npm ci --ignore-scripts --prefer-offline --no-audit --no-fund --loglevel=error

.PHONY: demo test wheel codegen node-tools pi-live

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

# The real pi, both lines, exactly as their lock files pin them (tools/pi-live/README.md), for the
# live interoperability test; no install scripts run (pi needs none). Reinstalled only when a
# lock file changes; --prefer-offline takes the tarballs from npm's cache when it has them. pi 1.5
# needs node >= 22.19: where the machine's is older, node 22 comes from the npm registry too.
PI_LIVE_NODE22 := $(if $(shell node $(PI_LIVE)/node-satisfies.mjs $(PI_LIVE)/1.5 2> /dev/null && echo yes),,$(PI_LIVE)/node22/node_modules/.package-lock.json)

$(PI_LIVE)/%/node_modules/.package-lock.json: $(PI_LIVE)/%/package.json $(PI_LIVE)/%/package-lock.json
	@command -v npm > /dev/null || { echo "make pi-live: npm is missing (install node 20.6+ with npm)"; exit 1; }
	cd $(PI_LIVE)/$* && $(NPM_CI)
	touch $@

pi-live: $(PI_LIVE)/0.73/node_modules/.package-lock.json $(PI_LIVE)/1.5/node_modules/.package-lock.json $(PI_LIVE_NODE22)

demo: $(BIN)/phi-wire
	@$(BIN)/phi-wire validate examples/

# The sdist, and the wheel built from it (so the sdist is proven complete). First the fast path's
# expressions the wheel ships, compiled for this Python (phi_wire.fastpath._shipped).
SHIPPED := runtime/fastpath/shipped-expressions
wheel: $(BIN)/phi-wire
	rm -rf $(DIST) && mkdir -p build
	$(BIN)/python tools/stage_package.py --ship $(SHIPPED) > build/wheel.log 2>&1 || (cat build/wheel.log; exit 1)
	$(BIN)/python -m build --outdir $(DIST) . >> build/wheel.log 2>&1 || (cat build/wheel.log; exit 1)
	@! grep -i deprecat build/wheel.log || (echo "make wheel: the build warns of a deprecation"; exit 1)
	@ls $(DIST)

test: wheel node-tools pi-live
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
