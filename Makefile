# The two commands of the README.  Each sets itself up on a fresh machine: a virtual
# environment in .venv with xmpacc installed from this checkout (not in editable mode,
# so the tests exercise the package a user installs) and the MPICH wheel's mpirun.
#
#   make demo   compile samples/laplace/laplace_xmp.c and run it on 4 MPI processes
#   make test   run the whole test suite (GPU tests are skipped without a GPU)

PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
SOURCES := pyproject.toml $(shell find xmpacc runtime templates -type f -not -name '*.pyc' 2>/dev/null)

.PHONY: demo test install clean

$(VENV)/.installed: $(SOURCES)
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q --force-reinstall --no-deps .
	$(BIN)/python -m pip install -q '.[test]'
	touch $@

install: $(VENV)/.installed

demo: $(VENV)/.installed
	$(BIN)/xmpacc samples/laplace/laplace_xmp.c -o laplace
	$(BIN)/mpirun -np 4 ./laplace

test: $(VENV)/.installed
	$(BIN)/pytest -q -n 2

clean:
	rm -rf $(VENV) laplace build *.egg-info
