# Two entry points: `make book` builds the book, `make test` runs every check CI runs.
# Both create .venv and install the locked dependency set (requirements.lock) when needed.
PYTHON ?= python3
PROFILE ?= full
VENV := .venv
BIN := $(VENV)/bin
LOCK := requirements.lock
# torch is installed on its own: its build differs by machine (the CPU wheel here and on the
# Pages runner, where the default index would serve the CUDA build), so the lock leaves it out.
TORCH := $(shell grep -oE 'torch==[0-9.]+' pyproject.toml)
# The stamp changes with pyproject.toml and the lock, so editing either reinstalls.
STAMP := $(VENV)/.installed-$(shell cat pyproject.toml $(LOCK) | cksum | cut -d' ' -f1)
LOCK_ARGS := pyproject.toml --extra book --extra test --extra torch --generate-hashes \
	--python-version 3.11 --python-platform x86_64-unknown-linux-gnu --quiet

.PHONY: book pdf test lint clean chromium tex lock colab

book: $(STAMP)
	@start=$$(date +%s); \
	$(BIN)/attncore build --profile $(PROFILE) && \
	echo "make book: $$(( $$(date +%s) - start )) s in all"

# The book and its PDF edition (_build/html/attncore.pdf, which the first page then links),
# typeset offline with Debian's TeX Live; chapters make book ran are reused from its cache.
pdf: $(STAMP) tex
	$(BIN)/attncore build --profile $(PROFILE) --pdf

# The tests run on every core (pytest-xdist), each test file on one worker (so a module's
# fixtures run once); the smoke book they read is built once per run (tests/conftest.py).
test: $(STAMP) chromium tex
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/python -m pytest --numprocesses auto --dist loadfile

lint: $(STAMP)
	$(BIN)/ruff check . && $(BIN)/ruff format --check .

$(STAMP): pyproject.toml $(LOCK)
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet --require-hashes -r $(LOCK)
	$(BIN)/python -m pip install --quiet $(TORCH)
	$(BIN)/python -m pip install --quiet --no-deps -e .
	rm -f $(VENV)/.installed-* && touch $@

# Rewrite the chapters' Colab copies (notebooks/colab/) after a chapter changed; a test fails
# while one is stale.
colab: $(STAMP)
	$(BIN)/python -m attncore.book.launch

# Refresh the lock from pyproject.toml's pins (uv reads the index's hashes; nothing is built).
lock:
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet uv==0.13.8
	$(BIN)/uv pip compile $(LOCK_ARGS) -o $(LOCK).all
	$(BIN)/uv pip compile $(LOCK_ARGS) -o $(LOCK) $$(grep -oE \
	  '^(torch|triton|nvidia-[a-z0-9-]+|cuda-[a-z0-9-]+)==' $(LOCK).all | \
	  sed 's/==//; s/^/--no-emit-package /')
	rm -f $(LOCK).all

# The browser tests open the built pages in Debian's headless Chromium.
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
chromium:
	@command -v chromium >/dev/null || { \
	  echo "installing Debian's chromium for the browser tests"; \
	  $(SUDO) apt-get update -qq && $(SUDO) apt-get install -y -qq chromium >/dev/null; }

# The PDF edition and its check need XeLaTeX, latexmk, the FreeFont fonts Sphinx's LaTeX uses
# (found through fontconfig), and poppler's pdftotext and pdffonts.
TEX_PACKAGES := texlive-xetex texlive-latex-extra texlive-fonts-recommended latexmk \
	fonts-freefont-otf fontconfig poppler-utils
tex:
	@command -v xelatex >/dev/null && command -v latexmk >/dev/null && \
	  command -v pdftotext >/dev/null && command -v fc-list >/dev/null && \
	  fc-list | grep -q FreeSerif || { \
	  echo "installing Debian's TeX Live for the PDF edition"; \
	  $(SUDO) apt-get update -qq && \
	  $(SUDO) apt-get install -y -qq $(TEX_PACKAGES) >/dev/null; }

clean:
	rm -rf _build book/generated runs
