"""Every path the book machinery uses, in one place.

The repository root is found from this file, so the paths hold whatever the working
directory is; a build of a scratch copy passes its own ``root``.

>>> (ROOT / "_toc.yml").is_file(), chapter_source("softmax_saturation").name
(True, 'softmax_saturation.md')
"""

from __future__ import annotations

from pathlib import Path

__all__ = [
    "EXPLORABLES",
    "FIGURES",
    "GENERATED",
    "MANIFEST",
    "NOTEBOOKS",
    "PROFILES_FILE",
    "ROOT",
    "RUNS",
    "TABLES",
    "chapter_source",
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

RUNS = Path("_build") / "runs"
"""Where a book build keeps its chapters' run folders (figures, tables, manifests), relative
to a root."""

MANIFEST = "manifest.json"
"""The file of a chapter's run that records what it ran with and what it produced."""


def chapter_source(name: str, root: Path = ROOT) -> Path:
    """The MyST source of chapter ``name`` under ``root`` (it need not exist)."""
    return root / NOTEBOOKS / f"{name}.md"
