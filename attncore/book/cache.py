"""The execution cache: a chapter runs again only when something it depends on changed.

A run's key (:func:`run_key`) hashes the chapter's source, its effective parameters, the source
of the whole ``attncore`` package (an honest first approximation of what the chapter can reach),
the installed environment (every distribution's name and version) and, for a chapter that reads
other chapters' runs, their manifests. A hit copies the stored run folder (executed notebook,
figures, manifest) instead of executing, so a cached page is byte for byte the page of the run
that filled the cache. Each entry records the digest of every file it holds and is checked
against it as it is copied out: a damaged entry is never served (:class:`RunCache`).

Why not jupyter-cache, Jupyter Book's own store: it keys a notebook on its code cells only, so it
would miss a change of the library, the environment or the runs a chapter reads, and it stores
notebooks, not the figures and manifests that a run publishes beside them.

>>> import tempfile
>>> cache = RunCache(Path(tempfile.mkdtemp()))
>>> run = Path(tempfile.mkdtemp()) / "x"; run.mkdir(); _ = (run / "manifest.json").write_text("{}")
>>> cache.restore("k", Path(tempfile.mkdtemp()) / "copy")
False
>>> cache.put("k", run); copy = Path(tempfile.mkdtemp()) / "copy"
>>> cache.restore("k", copy), (copy / "manifest.json").read_text()
(True, '{}')
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import sysconfig
from functools import cache
from importlib import metadata
from pathlib import Path
from typing import Any

from attncore.book.paths import ROOT, chapter_source
from attncore.book.publish import publish
from attncore.book.run_folders import read_runs
from attncore.fingerprint import digest, files_fingerprint
from attncore.scratch import remove_orphans, scratch_folder
from attncore.untrusted import Refused, read_file, regular_files

__all__ = [
    "CACHE_DIR",
    "DamagedEntry",
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
    """The package's code and the texts it reads (the catalogue's YAML, the templates)."""
    files = [path for path in _PACKAGE.rglob("*") if path.suffix in (".py", ".yaml")]
    return files_fingerprint(files, _PACKAGE)


def code_fingerprint(source: Path) -> str:
    """A hash of the chapter ``source`` and of the ``attncore`` package's source and texts."""
    return digest(Path(source).read_bytes(), _package_fingerprint().encode())


def current_fingerprints(runs: dict[str, dict[str, Any]]) -> dict[str, str]:
    """The code fingerprint each run's chapter has now, from the chapter's source in this
    repository (empty if there is none); nothing a run's manifest names is read."""
    return {
        chapter: code_fingerprint(source) if (source := chapter_source(chapter)).is_file() else ""
        for chapter in runs
    }


@cache
def environment_fingerprint() -> str:
    """A hash of the distributions installed in this interpreter's environment (its
    site-packages), name and version, each once: it does not depend on ``sys.path`` (a
    checkout on the path adds its own ``attncore.egg-info``)."""
    paths = sysconfig.get_paths()
    where = list(dict.fromkeys([paths["purelib"], paths["platlib"]]))
    names = {
        f"{d.metadata['Name']}=={d.version}".lower()
        for d in metadata.distributions(path=where)
        if d.metadata["Name"]
    }
    return digest("\n".join(sorted(names)).encode())


def run_key(source: Path, parameters: dict[str, Any], reads: Path | None = None) -> str:
    """The cache key of running ``source`` with ``parameters``; ``reads`` is the folder of
    runs the chapter reads (the other chapters' manifests, as
    :func:`~attncore.book.run_folders.read_runs` checks them, join the key; its path does
    not)."""
    own = Path(source).stem
    runs = read_runs(reads) if reads else {}
    return digest(
        code_fingerprint(source).encode(),
        json.dumps(parameters, sort_keys=True).encode(),
        environment_fingerprint().encode(),
        *(
            chapter.encode() + json.dumps(run, sort_keys=True).encode()
            for chapter, run in runs.items()
            if chapter != own
        ),
    )


class DamagedEntry(Exception):
    """A cache entry that does not match its record of files; it has been removed."""


_RECORD = "files.json"
"""The file of an entry that records, per file of its run, the size and SHA-256."""

_RECORD_LIMIT = 1_000_000
"""Bytes an entry's record may hold (a run has a few dozen files)."""


class RunCache:
    """A folder of entries, one per key: ``<key>/run/`` holds a copy of the run folder and
    ``<key>/files.json`` the size and SHA-256 of each of its files.

    An entry is written into a scratch folder and renamed into place whole, replacing an
    earlier entry of the key; it is checked file by file against its record as it is
    restored, and a damaged one (a file missing, cut short, added or changed, a link) is
    removed rather than served.
    """

    def __init__(self, folder: Path = CACHE_DIR) -> None:
        self.folder = Path(folder)

    def entry(self, key: str) -> Path:
        """Where the entry of ``key`` lives (it need not exist)."""
        return self.folder / key

    def contains(self, key: str) -> bool:
        """Whether an entry of ``key`` is stored (not yet checked: :meth:`restore` checks)."""
        return (self.entry(key) / _RECORD).is_file()

    def restore(self, key: str, target: Path) -> bool:
        """Copy the run stored under ``key`` to the new folder ``target``, checking every file
        against the entry's record; False if there is no entry. A damaged entry is removed,
        ``target`` with it, and :class:`DamagedEntry` says what was wrong."""
        entry = self.entry(key)
        if not os.path.lexists(entry):
            return False
        try:
            recorded = _read_record(entry)
            present = regular_files(entry / "run")
            if missing := sorted(set(recorded) - set(present)):
                raise Refused(f"{missing[0]} is missing")
            if extra := sorted(set(present) - set(recorded)):
                raise Refused(f"{extra[0]} is not in its record")
            for name, (size, sha) in recorded.items():
                data = read_file(entry / "run", name, limit=size)
                if len(data) != size or hashlib.sha256(data).hexdigest() != sha:
                    raise Refused(f"{name} differs from its recorded digest")
                path = target / name
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_bytes(data)
        except Refused as damage:
            shutil.rmtree(target, ignore_errors=True)
            self.remove(key)
            raise DamagedEntry(f"cache entry {entry} was damaged ({damage})") from None
        return True

    def put(self, key: str, run: Path) -> None:
        """Store a copy of the run folder ``run`` under ``key``, replacing any entry of the
        key whole; raises :class:`OSError` if the cache cannot be written (nothing is left)."""
        self.folder.mkdir(parents=True, exist_ok=True)
        remove_orphans(self.folder)
        scratch = scratch_folder(self.folder, "cache", key[:12])
        try:
            entry = scratch / "entry"
            shutil.copytree(run, entry / "run", symlinks=True)
            record = {
                name: [len(data), hashlib.sha256(data).hexdigest()]
                for name in regular_files(entry / "run")
                for data in [(entry / "run" / name).read_bytes()]
            }
            (entry / _RECORD).write_text(json.dumps({"files": record}, indent=1))
            publish(entry, self.entry(key))
        finally:
            shutil.rmtree(scratch, ignore_errors=True)

    def remove(self, key: str) -> None:
        """Remove the entry of ``key`` (renamed aside first, so it disappears at once)."""
        entry = self.entry(key)
        if not os.path.lexists(entry):
            return
        aside = scratch_folder(self.folder, "removed", key[:12])
        try:
            entry.rename(aside / "entry")
        except OSError:  # removed, or replaced, by another process meanwhile
            pass
        shutil.rmtree(aside, ignore_errors=True)


def _read_record(entry: Path) -> dict[str, tuple[int, str]]:
    """The entry's record of files, checked for shape; :class:`Refused` if it is not one."""
    try:
        record = json.loads(read_file(entry, _RECORD, limit=_RECORD_LIMIT))
    except Refused as error:
        raise Refused(f"its record: {error}") from None
    except ValueError:  # not JSON, or not UTF-8
        raise Refused(f"its record {_RECORD} is not JSON") from None
    files = record.get("files") if isinstance(record, dict) else None
    if not isinstance(files, dict) or not all(map(_is_fact, files.values())):
        raise Refused(f"its record {_RECORD} is not a list of files, sizes and digests")
    return {name: (size, sha) for name, (size, sha) in files.items()}


def _is_fact(value: object) -> bool:
    """Whether ``value`` is a file's ``[size, sha256]`` as :meth:`RunCache.put` records it."""
    return (
        isinstance(value, list)
        and len(value) == 2
        and isinstance(value[0], int)
        and value[0] >= 0
        and isinstance(value[1], str)
        and len(value[1]) == 64
    )
