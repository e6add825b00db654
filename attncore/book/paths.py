"""Every path the book machinery uses, in one place.

The repository root is found from this file, so the paths hold whatever the working
directory is; a build of a scratch copy passes its own ``root``.

>>> (ROOT / "_toc.yml").is_file(), chapter_source("softmax_saturation").name
(True, 'softmax_saturation.md')
"""

from __future__ import annotations

import os
from pathlib import Path

__all__ = [
    "DATA_DICTIONARY",
    "EXECUTION_REPORT",
    "EXPLORABLES",
    "FIGURES",
    "GENERATED",
    "MANIFEST",
    "NOTEBOOKS",
    "PAPERS_VARIABLE",
    "PROFILES_FILE",
    "ROOT",
    "RUNS",
    "SOURCE_TEXTS",
    "TABLES",
    "chapter_source",
    "papers_folder",
]

ROOT = Path(__file__).resolve().parents[2]
"""The repository root: ``_config.yml``, ``_toc.yml``, ``notebooks/``, ``book/``."""

NOTEBOOKS = Path("notebooks")
"""Chapter sources (MyST Markdown notebooks), relative to a root."""

PROFILES_FILE = NOTEBOOKS / "profiles.yaml"
"""The ``full`` and ``smoke`` parameter profiles of every chapter, relative to a root."""

GENERATED = Path("book") / "generated"
"""Where the build puts executed chapters for Sphinx, relative to a root."""

FIGURES = "figures"
"""The folder of a chapter's run that holds its figures."""

EXPLORABLES = "explorables"
"""The folder of a chapter's run that holds its explorable figures' specifications and data."""

TABLES = "tables"
"""The folder of a chapter's run that holds its tables as CSV files."""

EXECUTION_REPORT = Path("book") / "execution.md"
"""The page a book build writes to say how it ran each chapter
(:mod:`attncore.book.execution_report`), relative to a root; not committed."""

DATA_DICTIONARY = "datapackage.json"
"""The file in a run's :data:`TABLES` that says what each column of its CSV files is (a
Frictionless Data Package, :func:`attncore.book.tidy_data.data_package`)."""

RUNS = Path("_build") / "runs"
"""Where a book build keeps its chapters' run folders (figures, tables, manifests), relative
to a root."""

MANIFEST = "manifest.json"
"""The file of a chapter's run that records what it ran with and what it produced."""


def chapter_source(name: str, root: Path = ROOT) -> Path:
    """The MyST source of chapter ``name`` under ``root`` (it need not exist)."""
    return root / NOTEBOOKS / f"{name}.md"


PAPERS_VARIABLE = "ATTNCORE_PAPERS"
"""The environment variable that names the folder of the four source texts, where it is not
``../shared/papers`` beside the repository root."""

SOURCE_TEXTS = {
    "vaswani2017attention": "vaswani-2017-scaled-dot-product-attention-excerpt.md",
    "pranay2025why": "blog-2025-why-scale-the-scaled-dot-product.md",
    "bernhard2023alternatives": "bernhard-2023-alternatives-to-the-scaled-dot-product.md",
    "chuang2023scaling": "chuang-2023-the-scaling-factor-in-self-attention.md",
}
"""The file of each source text (by its BibTeX key) in :func:`papers_folder`."""


def papers_folder(root: Path = ROOT) -> Path:
    """The folder of the source texts: :data:`PAPERS_VARIABLE` if set, else
    ``../shared/papers`` beside ``root`` (it need not exist)."""
    named = os.environ.get(PAPERS_VARIABLE)
    return Path(named) if named else root.parent / "shared" / "papers"
