"""Put a finished folder in place of an old one, so readers never see a half-written one.

Both ``attncore run`` (a chapter's run folder) and ``attncore build`` (``book/generated``,
``_build/html``) write into a scratch folder beside the target
(:func:`attncore.scratch.scratch_folder`) and publish it with :func:`publish`.

>>> import tempfile
>>> root = Path(tempfile.mkdtemp())
>>> new = scratch_folder(root, "doc"); _ = (new / "page.html").write_text("v2")
>>> publish(new, root / "site")
>>> (root / "site" / "page.html").read_text(), new.exists()
('v2', False)
"""

from __future__ import annotations

import errno
import shutil
from pathlib import Path

from attncore.scratch import scratch_folder

__all__ = ["PublishFailed", "publish"]

_ATTEMPTS = 50
"""How many times :func:`publish` tries again when other publishers of the same target keep
replacing it between its two renames."""


class PublishFailed(OSError):
    """Other processes kept replacing the target: nothing of this publish is left."""


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
