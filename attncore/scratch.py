"""Scratch files and folders named by the process that made them, so leftovers can be cleaned.

Whatever is written whole and then renamed into place (a run folder, a cache entry, a trained
run) is first written under a name ``.attncore-<kind>-<pid>-...`` beside its target. A process
killed with SIGKILL, or stopped by a full disk before it could clean up, leaves it behind;
:func:`remove_orphans` removes those whose process no longer runs.

>>> import tempfile
>>> root = Path(tempfile.mkdtemp())
>>> mine = scratch_folder(root, "run", "toy")
>>> (root / ".attncore-run-999999999-toy-x").mkdir()  # no such process
>>> remove_orphans(root); [p.name == mine.name for p in root.iterdir()]
[True]
"""

from __future__ import annotations

import os
import re
import shutil
import tempfile
from pathlib import Path

__all__ = ["remove_orphans", "scratch_file", "scratch_folder"]

_SCRATCH = re.compile(r"^\.attncore-[a-z]+-(\d+)-")
"""The name of a scratch file or folder: its kind, then the id of the process that made it."""


def _prefix(kind: str, label: str) -> str:
    return f".attncore-{kind}-{os.getpid()}-{label + '-' if label else ''}"


def scratch_folder(parent: Path, kind: str, label: str = "") -> Path:
    """A new empty folder in ``parent`` named ``.attncore-<kind>-<pid>-<label>-<random>``."""
    return Path(tempfile.mkdtemp(prefix=_prefix(kind, label), dir=parent))


def scratch_file(parent: Path, kind: str, label: str = "") -> tuple[int, Path]:
    """A new empty file in ``parent``, named as :func:`scratch_folder` names a folder, open
    for writing: its descriptor and path."""
    handle, name = tempfile.mkstemp(prefix=_prefix(kind, label), dir=parent)
    return handle, Path(name)


def remove_orphans(parent: Path) -> None:
    """Remove the scratch files and folders in ``parent`` whose process no longer runs."""
    try:
        entries = list(Path(parent).iterdir())
    except OSError:  # no such folder, or not readable: nothing of ours there
        return
    for entry in entries:
        found = _SCRATCH.match(entry.name)
        if found and not _alive(int(found[1])):
            if entry.is_dir() and not entry.is_symlink():
                shutil.rmtree(entry, ignore_errors=True)
            else:
                entry.unlink(missing_ok=True)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except (ProcessLookupError, OverflowError):  # no such process, or no such number
        return False
    except PermissionError:  # another user's process
        return True
    return True
