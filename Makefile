# The two commands of the README, and the documentation.  Each sets itself up on a fresh
# machine: a virtual environment in .venv with xmpacc installed from this checkout (not in
# editable mode, so the tests exercise the package a user installs) and the MPICH wheel's
# mpirun.
#
#   make demo   compile samples/laplace/laplace_xmp.c and run it on 4 MPI processes
#   make test   run the whole test suite (GPU tests are skipped without a GPU)
#   make docs   build the user guide (docs/) into docs/_build/html, warnings as errors
#   make lint   ruff over the whole tree (the rules are in pyproject.toml)
#
# The set-up steps are silent: what venv and pip print goes to .venv/setup.log, which is
# shown only when a step fails.  So 'make demo' prints the two build commands and the
# program's output, nothing else.

PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
SOURCES := pyproject.toml $(shell find xmpacc runtime templates -type f -not -name '*.pyc' 2>/dev/null)
LOG := $(VENV)/setup.log
PIP := $(BIN)/python -m pip --disable-pip-version-check --no-input
QUIET := >>$(LOG) 2>&1 || { cat $(LOG); exit 1; }

.PHONY: demo test docs lint install clean

$(BIN)/python:
	@$(PYTHON) -m venv $(VENV)

$(VENV)/.installed: $(SOURCES) | $(BIN)/python
	@: > $(LOG)
	@$(PIP) install --upgrade pip $(QUIET)
	@$(PIP) install --force-reinstall --no-deps . $(QUIET)
	@$(PIP) install '.[test]' $(QUIET)
	@touch $@

$(VENV)/.docs-installed: pyproject.toml | $(BIN)/python
	@: > $(LOG)
	@$(PIP) install '.[docs]' $(QUIET)
	@touch $@

install: $(VENV)/.installed

demo: $(VENV)/.installed
	$(BIN)/xmpacc samples/laplace/laplace_xmp.c -o laplace
	$(BIN)/mpirun -np 4 ./laplace

test: $(VENV)/.installed
	$(BIN)/pytest -q -n 2

lint: $(VENV)/.installed
	$(BIN)/ruff check .

docs: $(VENV)/.docs-installed
	$(BIN)/sphinx-build -W --keep-going -n -q -b html docs docs/_build/html

clean:
	rm -rf $(VENV) laplace build *.egg-info docs/_build docs/_generated
