"""Fingerprints: one SHA-256 over several byte strings, and over source files.

Both caches (the chapters' runs and the training runs) key their entries with these, so a key
changes exactly when one of its parts does.

>>> digest(b"a", b"bc") == digest(b"ab", b"c")
False
>>> len(files_fingerprint([Path(__file__)], Path(__file__).parent))
64
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from pathlib import Path

__all__ = ["digest", "files_fingerprint"]


def digest(*parts: bytes) -> str:
    """SHA-256 of ``parts``, each prefixed by its length, so no two splits collide."""
    h = hashlib.sha256()
    for part in parts:
        h.update(len(part).to_bytes(8, "little"))
        h.update(part)
    return h.hexdigest()


def files_fingerprint(files: Iterable[Path], root: Path) -> str:
    """A digest of the files' paths relative to ``root`` and their contents, in sorted order."""
    paths = sorted(Path(f) for f in files)
    return digest(*(p.relative_to(root).as_posix().encode() + p.read_bytes() for p in paths))
