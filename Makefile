# crossings: the README's two commands are `make run` and `make test`.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
RUNS := data/runs

.PHONY: run test test-fast setup paper paper-pdf reference bench bench-stats bench-scale bench-precision bench-interference bench-store notebooks-sync lab docs clean help

help:
	@echo "make run          set up, run the quick profile on the embedded engines; report (paper, figures) in the run directory"
	@echo "make test         set up and run the test suite (tests/unit and tests/e2e)"
	@echo "make test-fast    set up and run the unit tests only (no subprocess, no server; seconds)"
	@echo "make notebooks-sync  bring each notebooks/*.py and its .ipynb back in step (jupytext)"
	@echo "make lab          register the venv as the Jupyter kernel 'crossings' and open JupyterLab on notebooks/"
	@echo "make docs         build the documentation site (docs/, mkdocs.yml) into site/ with mkdocs --strict"
	@echo "make paper        regenerate figures and paper.md from the committed runs in data/reference/ (E7: data/reference-history/)"
	@echo "make paper-pdf    render paper.md to paper.pdf (pandoc, then headless Chromium; numbered sections and figures)"
	@echo "make reference    re-measure every study (STUDY=E1,E3: some) as one interleaved run each, and install it"
	@echo "                  into data/reference*/ in place of that study's runs (resumable; about 108 minutes);"
	@echo "                  REPLICATE=1: run them again and install beside, in data/reference*-replicate/"
	@echo "make bench-stats  time the statistics against scipy.stats.bootstrap"
	@echo "make bench-scale  summary of a synthetic run of 1 and 10 million rows: wall, CPU time, peak memory"
	@echo "make bench        bench-stats, the harness's timed region against a bare timeit, and the speed goals"
	@echo "                  (BEFORE=PATH: a checkout to compare with, e.g. a worktree of main)"
	@echo "make bench-precision  crossings' adaptive protocol vs pyperf's defaults at equal wall time (E1, 3 repetitions)"
	@echo "make bench-interference  one E1 cell quiet and beside a logged noise generator: means, half-widths, flag recall"
	@echo "make bench-store  the results store's two layouts of 1M raw rows (Parquet in a catalogue, rows by run): times, sizes"

$(STAMP): requirements.lock requirements-mysqlclient.lock pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -r requirements.lock
	$(PY) -m pip install --quiet --no-deps -e .
	@$(PY) -m pip install --quiet -r requirements-mysqlclient.lock \
	  || echo "note: mysqlclient did not build (Debian: apt-get install default-libmysqlclient-dev pkg-config); mariadb/mysqlclient cells will be skipped"
	touch $(STAMP)

setup: $(STAMP)

run: setup
	@mkdir -p $(RUNS)
	@# tracked files never change here: `harness notebooks RUN` renders its report (a paper.md
	@# from this run, its figures, the executed notebooks) into RUN/report; `make paper` renders
	@# the committed paper.md and figures/ from data/reference/
	@$(PY) -m harness run --profile quick --engines 'sqlite/*,duckdb' > $(RUNS)/.last-run.txt; rc=$$?; \
	  run_dir=$$(tail -n 1 $(RUNS)/.last-run.txt); \
	  if [ ! -f "$$run_dir/manifest.json" ]; then exit $$rc; fi; \
	  $(PY) -m harness notebooks $$run_dir > /dev/null || exit $$?; \
	  echo "" && $(PY) -m harness headline $$run_dir 2>/dev/null; \
	  echo "" && echo "run:       $$run_dir   (summary: $(PY) -m harness summary $$run_dir)" && \
	  echo "report:    $$run_dir/report/paper.md" && \
	  echo "figures:   $$run_dir/report/figures/" && \
	  echo "notebooks: $$run_dir/report/notebooks/ (executed copies)"; \
	  exit $$rc

test: setup
	$(PY) -m pytest tests/unit tests/e2e

test-fast: setup
	$(PY) -m pytest tests/unit

notebooks-sync: setup
	$(VENV)/bin/jupytext --sync notebooks/*.py

# LAB_ARGS: more options for `jupyter lab` (the e2e test passes --no-browser, a port and a token).
# The kernel spec goes into the venv (--sys-prefix), where this jupyter looks first: no file in
# the user's home, the same for root and for a user; --allow-root only when root (containers,
# CI images). The paired .py files are hidden from the file browser: the .ipynb opens, and
# jupytext writes both on save.
LAB_ARGS ?=
lab: setup
	$(PY) -m ipykernel install --sys-prefix --name crossings --display-name "Python (crossings)"
	cd notebooks && PYTHONPATH=$(CURDIR) exec ../$(VENV)/bin/jupyter lab \
	  $$([ "$$(id -u)" = 0 ] && echo --allow-root) \
	  --MappingKernelManager.default_kernel_name=crossings \
	  --ContentsManager.hide_globs=__pycache__ --ContentsManager.hide_globs='*.pyc' \
	  --ContentsManager.hide_globs='*.py' --ContentsManager.hide_globs='.ipynb_checkpoints' $(LAB_ARGS)

docs: setup
	$(VENV)/bin/mkdocs build --strict

paper: setup
	$(PY) -m harness notebooks data/reference/*/ --paper paper.md --figures figures --executed data/reference-notebooks \
	  --history data/reference-history

paper-pdf: setup
	$(PY) -m harness.studies.paper_pdf paper.md -o paper.pdf

reference: setup
	$(PY) -m harness reference $(if $(STUDY),--study $(STUDY)) $(if $(FORCE),--force) $(if $(REPLICATE),--replicate)

bench-stats: setup
	$(PY) benchmarks/bench_stats.py

bench-scale: setup
	$(PY) benchmarks/bench_scale.py --rows 1000000
	$(PY) benchmarks/bench_scale.py --rows 10000000

bench-precision: setup
	$(PY) benchmarks/bench_precision.py

bench-interference: setup
	$(PY) benchmarks/bench_interference.py

bench-store: setup
	$(PY) benchmarks/bench_store.py

bench: bench-stats
	$(PY) benchmarks/timed_region.py
	$(PY) benchmarks/bench_speed.py $(if $(BEFORE),--before $(BEFORE))

clean:
	rm -rf data/cache data/reference-notebooks
