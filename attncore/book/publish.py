"""Put a finished folder in place of an old one, so readers never see a half-written one.

Both ``attncore run`` (a chapter's run folder) and ``attncore build`` (``book/generated``,
``_build/html``) write into a scratch folder beside the target (:func:`scratch_folder`) and
publish it with :func:`publish`. A scratch folder's name carries the id of the process that
made it, so one left by a killed process is recognised and removed by the next
(:func:`remove_orphans`).

>>> import tempfile
>>> root = Path(tempfile.mkdtemp())
>>> new = scratch_folder(root, "doc"); _ = (new / "page.html").write_text("v2")
>>> publish(new, root / "site")
>>> (root / "site" / "page.html").read_text(), new.exists()
('v2', False)
"""

from __future__ import annotations

import errno
import os
import re
import shutil
import tempfile
from pathlib import Path

__all__ = ["PublishFailed", "publish", "remove_orphans", "scratch_folder"]

_ATTEMPTS = 50
"""How many times :func:`publish` tries again when other publishers of the same target keep
replacing it between its two renames."""

_SCRATCH = re.compile(r"^\.attncore-[a-z]+-(\d+)-")
"""The name of a scratch folder: its kind, then the id of the process that made it."""


class PublishFailed(OSError):
    """Other processes kept replacing the target: nothing of this publish is left."""


def scratch_folder(parent: Path, kind: str, label: str = "") -> Path:
    """A new empty folder in ``parent`` named ``.attncore-<kind>-<pid>-<label>-<random>``,
    which :func:`remove_orphans` removes once the process that made it is gone."""
    prefix = f".attncore-{kind}-{os.getpid()}-{label + '-' if label else ''}"
    return Path(tempfile.mkdtemp(prefix=prefix, dir=parent))


def remove_orphans(parent: Path) -> None:
    """Remove the scratch folders (and files) in ``parent`` whose process no longer runs
    (killed with SIGKILL, or by a full disk before it could clean up)."""
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


def publish(new: Path, target: Path) -> None:
    """Replace ``target`` by the folder ``new`` (same file system) with two renames.

    The old ``target`` is renamed aside under a name unique to this call, then ``new`` is
    renamed to ``target``, then the old one is removed. When another process publishes the
    same target between the two renames, this one tries again, so concurrent publishes end
    with one of the new folders in place, whole (the last to finish wins). If the second
    rename fails for another reason (a full disk, no permission), the old ``target`` is put
    back and the error is raised.
    """
    target.parent.mkdir(parents=True, exist_ok=True)
    for _ in range(_ATTEMPTS):
        old = scratch_folder(target.parent, "old", target.name[:40])
        try:
            target.rename(old / "folder")
        except FileNotFoundError:  # no earlier folder, or another publisher moved it
            pass
        try:
            new.rename(target)
        except OSError as error:
            if error.errno not in (errno.ENOTEMPTY, errno.EEXIST):
                _put_back(old / "folder", target)
                shutil.rmtree(old, ignore_errors=True)
                raise
            shutil.rmtree(old, ignore_errors=True)  # another publisher came in between
            continue
        shutil.rmtree(old, ignore_errors=True)
        return
    raise PublishFailed(
        errno.EBUSY, f"other processes kept replacing it ({_ATTEMPTS} tries)", str(target)
    )


def _put_back(old: Path, target: Path) -> None:
    if old.exists():
        try:
            old.rename(target)
        except OSError:  # another publisher's folder is in place by now: it wins
            pass
