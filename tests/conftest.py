"""Shared fixtures: a smoke-profile build of the whole book in a scratch copy of the repository."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from attncore.book.build import build_book
from attncore.book.cache import RunCache

REPO = Path(__file__).resolve().parent.parent
BOOK_SOURCES = ["_config.yml", "_toc.yml", "_static", "book", "notebooks"]
CACHE = ".cache/chapters"
"""Where a scratch copy's build keeps its cache (not the repository's)."""


def copy_book_sources(destination: Path) -> Path:
    """Copy what the book build reads (not its generated output) into ``destination``."""
    for name in BOOK_SOURCES:
        source = REPO / name
        if source.is_dir():
            shutil.copytree(source, destination / name, ignore=shutil.ignore_patterns("generated"))
        else:
            shutil.copy2(source, destination / name)
    return destination


@pytest.fixture(scope="session")
def built_book(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Root of a scratch repository copy whose book was built with the smoke profile."""
    root = copy_book_sources(tmp_path_factory.mktemp("book"))
    build_book("smoke", root=root, cache=RunCache(root / CACHE))
    return root
