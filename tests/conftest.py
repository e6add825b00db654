"""Shared fixtures: a build of the whole book (smoke profile unless :data:`PROFILE` says
otherwise) in a scratch copy of the repository."""

from __future__ import annotations

import fcntl
import os
import shutil
from pathlib import Path

import jupytext
import nbformat
import pytest

from attncore.book.build import build_book
from attncore.book.cache import RunCache
from attncore.book.pdf import missing_tools

REPO = Path(__file__).resolve().parent.parent
BOOK_SOURCES = ["_config.yml", "_toc.yml", "_static", "book", "notebooks", "CITATION.cff"]
CACHE = ".cache/chapters"
"""Where a scratch copy's build keeps its cache (not the repository's)."""
PROFILE = os.environ.get("ATTNCORE_TEST_PROFILE", "smoke")
"""The profile of the book the page tests read: ``smoke`` in CI; ``ATTNCORE_TEST_PROFILE=full``
runs the same checks on the full book (about 11 minutes more on 2 cores)."""
WITH_PDF = bool(os.environ.get("CI")) or not missing_tools()
"""Whether that book is built with its PDF edition (checked against its pages as it is built):
always under CI, where ``make test`` installs TeX Live, and wherever its tools are found."""


KERNEL = {"name": "python3", "display_name": "Python 3", "language": "python"}

HEADLESS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
]  # fmt: skip
"""Headless Chromium's flags for the browser tests: no GPU, and no requests of its own
(updates, sync, background fetches), so a page's resources are all it loads."""


def write_chapter(path: Path, prose: str = "A chapter.", body: str = "x = n + 1") -> Path:
    """Write a one-parameter toy chapter to ``path`` (fast to run: no imports)."""
    parameters = nbformat.v4.new_code_cell("n: int = 1  # a number, in [0, 10]")
    parameters.metadata["tags"] = ["parameters", "remove-cell"]
    cells = [nbformat.v4.new_markdown_cell(prose), parameters, nbformat.v4.new_code_cell(body)]
    nb = nbformat.v4.new_notebook(cells=cells, metadata={"kernelspec": KERNEL})
    jupytext.write(nb, path, fmt="md:myst")
    return path


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
def built_book(tmp_path_factory: pytest.TempPathFactory, request: pytest.FixtureRequest) -> Path:
    """Root of a scratch repository copy whose book was built with :data:`PROFILE`, once per
    test run: under pytest-xdist (``make test`` runs a worker per core) the first worker that
    needs it builds it while the others wait, and all read the same copy (no test writes to
    it: those that change a book change a copy of it)."""
    shared = tmp_path_factory.getbasetemp()
    if hasattr(request.config, "workerinput"):  # a worker of pytest-xdist
        shared = shared.parent  # the run's folder, above each worker's own
    root, built = shared / "built_book", shared / "built_book.done"
    with (shared / "built_book.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes
        if not built.exists():
            shutil.rmtree(root, ignore_errors=True)  # what a failed build left
            root.mkdir(exist_ok=True)
            sources = copy_book_sources(root)
            build_book(PROFILE, root=sources, cache=RunCache(root / CACHE), pdf=WITH_PDF)
            built.touch()
    return root
