"""Put a finished folder in place of an old one, so readers never see a half-written one.

Both ``attncore run`` (a chapter's run folder) and ``attncore build`` (``book/generated``,
``_build/html``) write into a scratch folder beside the target and publish it with
:func:`publish`.

>>> import tempfile
>>> root = Path(tempfile.mkdtemp())
>>> (root / "new").mkdir(); _ = (root / "new" / "page.html").write_text("v2")
>>> publish(root / "new", root / "site")
>>> (root / "site" / "page.html").read_text(), (root / "new").exists()
('v2', False)
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

__all__ = ["publish"]


def publish(new: Path, target: Path) -> None:
    """Replace ``target`` by the folder ``new`` (same file system) with two renames.

    The old ``target`` is renamed aside under a name unique to this process, then ``new``
    is renamed to ``target``, then the old one is removed: a concurrent publish into the
    same ``target`` fails instead of nesting one folder inside the other.
    """
    target.parent.mkdir(parents=True, exist_ok=True)
    old = target.with_name(f".{target.name}.old-{os.getpid()}")
    shutil.rmtree(old, ignore_errors=True)
    if target.exists():
        target.rename(old)
    new.rename(target)
    shutil.rmtree(old, ignore_errors=True)
