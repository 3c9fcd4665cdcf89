# Two commands: `make run` (the main job on the bundled dumps) and `make test`.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed-stamp


.PHONY: install run test test-fast lint browser clean

install: $(STAMP)

$(STAMP): pyproject.toml requirements.lock
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -r requirements.lock
	$(PY) -m pip install --quiet --no-deps -e .
	touch $(STAMP)

run: install
	$(VENV)/bin/scorehouse run

test: install lint browser
	$(PY) -m pytest -q

# The suite without the tests marked slow (the reliability harness, the large ranks): for a quick check while working.
test-fast: install lint
	$(PY) -m pytest -q -m 'not slow'

# The HTML report is tested in a real headless Chromium: Debian's, installed here when missing.
browser:
	@test -x /usr/bin/chromium || { \
	  if [ "$$(id -u)" = 0 ]; then apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; \
	  else echo "The report test needs Chromium: run 'sudo apt-get install chromium' (Debian) and retry" >&2; exit 1; fi; }

# import-linter reads top-level packages only: it checks a tree of links that lays the stage
# folders out as they are installed (scorehouse/flows -> flows ...).
lint: install
	rm -rf .lint && mkdir -p .lint/scorehouse
	for entry in scorehouse/* flows warehouse transforms aggregators reports; do ln -s "$(CURDIR)/$$entry" .lint/scorehouse/; done
	cd .lint && PYTHONPATH=. ../$(VENV)/bin/lint-imports --config ../pyproject.toml --no-cache
	$(VENV)/bin/ruff check --no-cache .

clean:
	rm -rf $(VENV) scorehouse-data .pytest_cache .hypothesis .lint
