# Two commands: `make run` (the main job on the bundled dumps) and `make test`.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed-stamp

# Prefect runs without a server: an in-process ephemeral API under .prefect/.
export PREFECT_HOME := $(CURDIR)/.prefect
export PREFECT_SERVER_ANALYTICS_ENABLED := false
export PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS ?= 90
export PREFECT_LOGGING_LEVEL ?= WARNING
export PREFECT_SERVER_LOGGING_LEVEL ?= CRITICAL

.PHONY: install run test lint bench clean

install: $(STAMP)

$(STAMP): pyproject.toml requirements.lock
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -r requirements.lock
	$(PY) -m pip install --quiet --no-deps -e .
	touch $(STAMP)

run: install
	$(VENV)/bin/scorehouse run

test: install lint
	$(PY) -m pytest -q

lint: install
	$(VENV)/bin/lint-imports

clean:
	rm -rf $(VENV) scorehouse-data .prefect .pytest_cache .hypothesis
