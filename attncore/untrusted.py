"""Reading files that may come from anyone: regular files only, no links followed, sizes capped.

A run folder downloaded from a stranger and a cache entry that something else wrote are read
through these functions. A path is walked one name at a time from a folder the user named
(``root``), each step opened without following a symbolic link, so a link anywhere below
``root`` is refused rather than followed; the file itself must be a regular file (not a FIFO,
which would block the reader, a device or a folder) no larger than the caller's limit, and no
more than that is read.

>>> import tempfile
>>> root = Path(tempfile.mkdtemp())
>>> _ = (root / "a.txt").write_text("hello"); (root / "link").symlink_to("/etc/passwd")
>>> read_file(root, "a.txt", limit=100)
b'hello'
>>> read_file(root, "link", limit=100)
Traceback (most recent call last):
...
attncore.untrusted.Refused: link is a symbolic link
>>> regular_files(root)
Traceback (most recent call last):
...
attncore.untrusted.Refused: link is a symbolic link
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path, PurePosixPath

__all__ = ["Missing", "Refused", "read_file", "regular_files"]


class Refused(ValueError):
    """A file was not read: the message names it (relative to its root) and says why."""


class Missing(Refused):
    """A file was not read because it, or a folder on its way, does not exist."""


def _parts(relative: str | PurePosixPath) -> list[str]:
    parts = PurePosixPath(relative).parts
    if not parts or PurePosixPath(relative).is_absolute() or any(p in ("..", ".") for p in parts):
        raise Refused(f"{str(relative)[:80]!r} is not a path inside its folder")
    return list(parts)


def read_file(root: Path, relative: str | PurePosixPath, limit: int) -> bytes:
    """The bytes of the regular file ``root/relative``, reached without following a link.

    Raises :class:`Refused` if a name on the way is a link or not a folder, if the file is
    not a regular file or holds more than ``limit`` bytes, and :class:`Missing` if it (or a
    folder on the way) does not exist.
    """
    parts = _parts(relative)
    shown = "/".join(parts)
    try:
        folder = os.open(root, os.O_RDONLY | os.O_DIRECTORY)
    except OSError as error:
        raise Refused(f"{root} cannot be read: {error.strerror}") from None
    try:
        for depth, part in enumerate(parts[:-1]):
            inner = _open(folder, part, "/".join(parts[: depth + 1]), directory=True)
            os.close(folder)
            folder = inner
        handle = _open(folder, parts[-1], shown, directory=False)
    finally:
        os.close(folder)
    try:
        facts = os.fstat(handle)
        if not stat.S_ISREG(facts.st_mode):
            raise Refused(f"{shown} is {_kind(facts.st_mode)}, not a regular file")
        if facts.st_size > limit:
            raise Refused(f"{shown} holds {facts.st_size:,} bytes, more than the {limit:,} allowed")
        chunks, size = [], 0
        while chunk := os.read(handle, min(1 << 20, limit + 1 - size)):
            chunks.append(chunk)
            size += len(chunk)
            if size > limit:  # it grew while being read
                raise Refused(f"{shown} holds more than the {limit:,} bytes allowed")
        return b"".join(chunks)
    finally:
        os.close(handle)


def _open(folder: int, name: str, shown: str, directory: bool) -> int:
    flags = os.O_RDONLY | os.O_NOFOLLOW | (os.O_DIRECTORY if directory else os.O_NONBLOCK)
    try:
        return os.open(name, flags, dir_fd=folder)
    except OSError as error:
        try:
            mode = os.lstat(name, dir_fd=folder).st_mode
        except OSError:
            mode = None
        if mode is not None and stat.S_ISLNK(mode):
            raise Refused(f"{shown} is a symbolic link") from None
        if error.errno == errno.ENOENT:
            raise Missing(f"{shown} does not exist") from None
        if mode is not None and directory and not stat.S_ISDIR(mode):
            raise Refused(f"{shown} is {_kind(mode)}, not a folder") from None
        raise Refused(f"{shown} cannot be read: {error.strerror}") from None


def _kind(mode: int) -> str:
    kinds = [
        (stat.S_ISDIR, "a folder"),
        (stat.S_ISFIFO, "a FIFO"),
        (stat.S_ISLNK, "a symbolic link"),
        (stat.S_ISSOCK, "a socket"),
        (stat.S_ISCHR, "a device"),
        (stat.S_ISBLK, "a device"),
        (stat.S_ISREG, "a regular file"),
    ]
    return next((name for test, name in kinds if test(mode)), "not a regular file")


def regular_files(root: Path, limit: int = 10_000) -> list[str]:
    """The paths, relative to ``root`` and sorted, of the files below it.

    Raises :class:`Refused` if an entry is a link or neither a regular file nor a folder, or
    if there are more than ``limit`` entries.
    """
    found: list[str] = []

    def walk(folder: Path, prefix: str) -> None:
        with os.scandir(folder) as entries:
            for entry in entries:
                name = prefix + entry.name
                if len(found) >= limit:
                    raise Refused(f"{root} holds more than {limit:,} files")
                if entry.is_symlink():
                    raise Refused(f"{name} is a symbolic link")
                if entry.is_dir(follow_symlinks=False):
                    walk(Path(entry.path), name + "/")
                elif entry.is_file(follow_symlinks=False):
                    found.append(name)
                else:
                    mode = entry.stat(follow_symlinks=False).st_mode
                    raise Refused(f"{name} is {_kind(mode)}, not a regular file")

    try:
        walk(Path(root), "")
    except OSError as error:
        raise Refused(f"{root} cannot be read: {error.strerror}") from None
    return sorted(found)
