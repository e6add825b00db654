"""What a chapter run records: its parameters, the code it ran, the figures and verdicts.

Each run of a chapter writes one folder ``<output>/<chapter>/`` holding the executed
notebook, ``figures/*.png`` and ``manifest.json``; a new run of the chapter replaces the
whole folder, so no figure or verdict of an earlier run survives it. The claims ledger
reads the manifests of the runs in one output folder
(:func:`attncore.book.run_folders.read_runs`).

>>> rev = Revision("0123456789abcdef0123456789abcdef01234567", dirty=False)
>>> rev.short
'0123456789ab'
>>> parameters_hash({"seed": 1, "n": 4}) == parameters_hash({"n": 4, "seed": 1})
True
"""

from __future__ import annotations

import hashlib
import json
import subprocess
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from attncore.book.paths import MANIFEST, ROOT

__all__ = ["Revision", "commit_date", "parameters_hash", "source_revision", "write_manifest"]


@dataclass(frozen=True)
class Revision:
    """The commit of the source tree a run used, and whether the tree had uncommitted changes."""

    commit: str
    dirty: bool

    @property
    def short(self) -> str:
        return self.commit[:12]

    def __str__(self) -> str:
        return self.short + (" (with uncommitted changes)" if self.dirty else "")


def _git(root: Path, *args: str) -> str | None:
    """The output of ``git args`` in ``root``, or ``None`` where git or a checkout is missing."""
    try:
        done = subprocess.run(
            ["git", "-C", str(root), *args], capture_output=True, text=True, check=False
        )
    except OSError:
        return None
    return done.stdout.strip() if done.returncode == 0 else None


def source_revision(root: Path = ROOT) -> Revision:
    """The git revision of ``root``; ``unknown`` outside a git checkout."""
    commit = _git(root, "rev-parse", "HEAD")
    if commit is None:
        return Revision("unknown", dirty=True)
    status = _git(
        root, "status", "--porcelain", "--untracked-files=no", "--", "attncore", "notebooks"
    )
    return Revision(commit, dirty=bool(status))


def commit_date(revision: Revision, root: Path = ROOT) -> str | None:
    """The day (``YYYY-MM-DD``) ``revision``'s commit was made, or ``None`` if it is unknown.

    >>> commit_date(Revision("unknown", dirty=True)) is None
    True
    """
    if revision.commit == "unknown":
        return None
    return _git(root, "show", "-s", "--format=%cs", revision.commit) or None


def parameters_hash(parameters: dict[str, Any]) -> str:
    """A short hash of a parameter set, independent of the order of its names."""
    text = json.dumps(parameters, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()[:12]


def write_manifest(
    folder: Path,
    chapter: str,
    parameters: dict[str, Any],
    revision: Revision,
    **fields: Any,
) -> Path:
    """Write ``folder/manifest.json`` for one run of ``chapter``: its parameters and their
    hash, the revision of the source tree, and ``fields`` (version, code fingerprint, time
    taken, figures, verdicts)."""
    record = {
        "chapter": chapter,
        "parameters": parameters,
        "parameters_hash": parameters_hash(parameters),
        "revision": asdict(revision),
        **fields,
    }
    path = folder / MANIFEST
    path.write_text(json.dumps(record, indent=1))
    return path
