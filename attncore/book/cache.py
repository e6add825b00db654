"""The execution cache: a chapter runs again only when something it depends on changed.

A run's key (:func:`run_key`) hashes the chapter's source, its effective parameters, the source
of the whole ``attncore`` package (an honest first approximation of what the chapter can reach),
the installed environment (every distribution's name and version) and, for a chapter that reads
other chapters' runs, their manifests. A hit copies the stored run folder (executed notebook,
figures, manifest) instead of executing, so a cached page is byte for byte the page of the run
that filled the cache.

Why not jupyter-cache, Jupyter Book's own store: it keys a notebook on its code cells only, so it
would miss a change of the library, the environment or the runs a chapter reads, and it stores
notebooks, not the figures and manifests that a run publishes beside them.

>>> import tempfile
>>> cache = RunCache(Path(tempfile.mkdtemp()))
>>> run = Path(tempfile.mkdtemp()) / "x"; run.mkdir(); _ = (run / "manifest.json").write_text("{}")
>>> cache.get("k") is None
True
>>> cache.put("k", run); (cache.get("k") / "manifest.json").read_text()
'{}'
"""

from __future__ import annotations

import json
import shutil
import tempfile
from functools import cache
from importlib import metadata
from pathlib import Path
from typing import Any

from attncore.book.paths import MANIFEST, ROOT
from attncore.fingerprint import digest, files_fingerprint

__all__ = [
    "CACHE_DIR",
    "RunCache",
    "code_fingerprint",
    "current_fingerprints",
    "environment_fingerprint",
    "run_key",
]

CACHE_DIR = ROOT / ".cache" / "chapters"
"""Where the build and ``attncore run`` keep cached runs."""

_PACKAGE = Path(__file__).resolve().parents[1]


def _package_fingerprint() -> str:
    return files_fingerprint(_PACKAGE.rglob("*.py"), _PACKAGE)


def code_fingerprint(source: Path) -> str:
    """A hash of the chapter ``source`` and of the ``attncore`` package's source."""
    return digest(Path(source).read_bytes(), _package_fingerprint().encode())


def current_fingerprints(runs: dict[str, dict[str, Any]]) -> dict[str, str]:
    """The code fingerprint each run's chapter has now (empty if its source is gone)."""
    return {
        chapter: code_fingerprint(Path(run["source"])) if Path(run["source"]).is_file() else ""
        for chapter, run in runs.items()
    }


@cache
def environment_fingerprint() -> str:
    """A hash of the installed distributions, name and version."""
    names = sorted(
        f"{d.metadata['Name']}=={d.version}".lower()
        for d in metadata.distributions()
        if d.metadata["Name"]
    )
    return digest("\n".join(names).encode())


def run_key(source: Path, parameters: dict[str, Any], reads: Path | None = None) -> str:
    """The cache key of running ``source`` with ``parameters``; ``reads`` is the folder of
    runs the chapter reads (the other chapters' manifests join the key, its path does not)."""
    own = Path(source).stem
    manifests = (
        sorted(p for p in reads.glob(f"*/{MANIFEST}") if p.parent.name != own) if reads else []
    )
    return digest(
        code_fingerprint(source).encode(),
        json.dumps(parameters, sort_keys=True).encode(),
        environment_fingerprint().encode(),
        *(p.parent.name.encode() + p.read_bytes() for p in manifests),
    )


class RunCache:
    """A folder of run folders, one per key."""

    def __init__(self, folder: Path = CACHE_DIR) -> None:
        self.folder = Path(folder)

    def get(self, key: str) -> Path | None:
        """The stored run folder of ``key``, or None."""
        path = self.folder / key
        return path if (path / MANIFEST).is_file() else None

    def put(self, key: str, run: Path) -> None:
        """Store a copy of the run folder ``run`` under ``key`` (complete or not at all)."""
        self.folder.mkdir(parents=True, exist_ok=True)
        scratch = Path(tempfile.mkdtemp(prefix=f".{key[:12]}-", dir=self.folder))
        shutil.copytree(run, scratch / "run")
        try:
            (scratch / "run").rename(self.folder / key)
        except OSError:  # another process stored the same key first
            pass
        shutil.rmtree(scratch, ignore_errors=True)
