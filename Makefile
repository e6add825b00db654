# Two entry points: `make book` builds the book, `make test` runs every check CI runs.
# Both create .venv and install the pinned dependencies of pyproject.toml when needed.
PYTHON ?= python3
PROFILE ?= full
VENV := .venv
BIN := $(VENV)/bin
# The stamp changes with pyproject.toml, so editing a pin reinstalls.
STAMP := $(VENV)/.installed-$(shell cat pyproject.toml | cksum | cut -d' ' -f1)

.PHONY: book test lint clean chromium

book: $(STAMP)
	@start=$$(date +%s); \
	$(BIN)/attncore build --profile $(PROFILE) && \
	echo "make book: $$(( $$(date +%s) - start )) s in all"

test: $(STAMP) chromium
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/python -m pytest

lint: $(STAMP)
	$(BIN)/ruff check . && $(BIN)/ruff format --check .

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[book,test,torch]'
	rm -f $(VENV)/.installed-* && touch $@

# The browser tests open the built pages in Debian's headless Chromium.
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
chromium:
	@command -v chromium >/dev/null || { \
	  echo "installing Debian's chromium for the browser tests"; \
	  $(SUDO) apt-get update -qq && $(SUDO) apt-get install -y -qq chromium >/dev/null; }

clean:
	rm -rf _build book/generated runs
