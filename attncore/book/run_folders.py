"""A folder of chapter runs, read as data: a run folder from a stranger cannot run code in your
browser or read your files.

The introduction and the claims ledger read the manifests of the runs in a folder
(``-p run_folder DIR``), which a reader may have downloaded from anyone. :func:`read_runs`
takes from it only what it can check: each ``<chapter>/manifest.json`` is a regular file (no
FIFO, folder or link, nothing outside the folder) of at most :data:`MANIFEST_LIMIT` bytes,
names the chapter of its own folder, and holds fields of the types and sizes a run writes (a
verdict is one of the book's verdicts, a text at most :data:`TEXT_LIMIT` characters, a commit
is hexadecimal); anything else is refused in one line (:class:`RunFolderRefused`) naming the
file and the field. A run's texts reach the pages only through
:func:`attncore.book.markup.literal`, its evidence references only when they name a section of
the chapter (:func:`attncore.book.ledger_page.evidence_link`), its figures only as PNG files
read by :func:`run_figure`; nothing a manifest names (its ``source``, say) is opened.

>>> import tempfile
>>> folder = Path(tempfile.mkdtemp()); (folder / "x").mkdir()
>>> _ = (folder / "x" / "manifest.json").write_text('{"chapter": "why_sqrt_d"}')
>>> read_runs(folder)  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
attncore.book.run_folders.RunFolderRefused: run folder .../x/manifest.json: names chapter ...
"""

from __future__ import annotations

import json
import math
import os
import re
from pathlib import Path
from typing import Any

from attncore.book.paths import FIGURES, MANIFEST
from attncore.checks import ParameterError
from attncore.claims import Verdict
from attncore.untrusted import Missing, Refused, read_file

__all__ = [
    "FIGURE_LIMIT",
    "MANIFEST_LIMIT",
    "TEXT_LIMIT",
    "RunFolderRefused",
    "read_runs",
    "run_figure",
]

MANIFEST_LIMIT = 2_000_000
"""Bytes a manifest may hold (the book's largest is a few tens of kilobytes)."""

TEXT_LIMIT = 4_000
"""Characters a text of a manifest may hold (the book's longest measured text is about 1,000)."""

FIGURE_LIMIT = 20_000_000
"""Bytes a figure of a run may hold (the book's largest is about 1 MB)."""

_CHAPTER = re.compile(r"[a-z][a-z0-9_]*")
_HEX = re.compile(r"[0-9a-f]+")
_PNG = b"\x89PNG\r\n\x1a\n"


class RunFolderRefused(ParameterError):
    """A run folder holds something a run does not write; the message names the file and why."""


def _refuse(where: str, why: str) -> RunFolderRefused:
    return RunFolderRefused(f"run folder {where}: {why}")


def _text(value: object, field: str) -> str:
    if not isinstance(value, str):
        raise ValueError(f"{field} must be text")
    if len(value) > TEXT_LIMIT:
        raise ValueError(f"{field} holds {len(value):,} characters, more than {TEXT_LIMIT:,}")
    return value


def _records(value: object, field: str) -> list[dict[str, Any]]:
    if not isinstance(value, list) or not all(isinstance(v, dict) for v in value):
        raise ValueError(f"{field} must be a list of records")
    return value


_VERDICTS = {v.value for v in Verdict}


def _number(value: object, field: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise ValueError(f"{field} must be a finite number")
    return float(value)


def _check_thresholds(record: dict[str, Any], where: str) -> None:
    """The thresholds that decided a verdict and its changes inside their bands, as
    :func:`attncore.book.kit.verdict_record` writes them (both lists may be absent)."""
    for field in ("thresholds", "fragile"):
        record.setdefault(field, [])
    for j, threshold in enumerate(_records(record["thresholds"], f"{where}.thresholds")):
        at = f"{where}.thresholds[{j}]"
        _text(threshold.get("name"), f"{at}.name")
        _text(threshold.get("reason"), f"{at}.reason")
        _number(threshold.get("value"), f"{at}.value")
        band = threshold.get("band")
        if band is not None and not (isinstance(band, list) and len(band) == 2):
            raise ValueError(f"{at}.band must be two numbers")
        for k, end in enumerate(band or []):
            _number(end, f"{at}.band[{k}]")
    for j, flip in enumerate(_records(record["fragile"], f"{where}.fragile")):
        at = f"{where}.fragile[{j}]"
        _text(flip.get("threshold"), f"{at}.threshold")
        _number(flip.get("value"), f"{at}.value")
        if flip.get("verdict") not in _VERDICTS:
            raise ValueError(f"{at}.verdict must be one of {', '.join(sorted(_VERDICTS))}")


def _check_run(run: object, folder: str) -> dict[str, Any]:
    """The manifest ``run`` of the folder ``folder``, if every field it uses has the type and
    size a run writes; ValueError naming the field otherwise."""
    if not isinstance(run, dict):
        raise ValueError("is not a JSON object")
    if run.get("chapter") != folder:
        raise ValueError(
            f"names chapter {str(run.get('chapter'))[:60]!r}, not its folder's, {folder}"
        )
    _text(run.get("code"), "code")
    if not (isinstance(run.get("parameters_hash"), str) and _HEX.fullmatch(run["parameters_hash"])):
        raise ValueError("parameters_hash must be hexadecimal")
    if len(run["parameters_hash"]) > 64:
        raise ValueError("parameters_hash must be at most 64 characters")
    revision = run.get("revision")
    if not (
        isinstance(revision, dict)
        and isinstance(revision.get("dirty"), bool)
        and isinstance(revision.get("commit"), str)
        and (revision["commit"] == "unknown" or _HEX.fullmatch(revision["commit"]))
        and len(revision["commit"]) <= 64
    ):
        raise ValueError("revision must hold a hexadecimal commit and whether it was dirty")
    for field in ("verdicts", "headlines", "measurements", "figures"):
        run.setdefault(field, [])
    for i, record in enumerate(_records(run["verdicts"], "verdicts")):
        for key in ("claim", "measured", "check", "evidence"):
            _text(record.get(key), f"verdicts[{i}].{key}")
        if record.get("verdict") not in _VERDICTS:
            raise ValueError(f"verdicts[{i}].verdict must be one of {', '.join(sorted(_VERDICTS))}")
        _check_thresholds(record, f"verdicts[{i}]")
    for i, record in enumerate(_records(run["headlines"], "headlines")):
        for key in ("name", "text", "evidence"):
            _text(record.get(key), f"headlines[{i}].{key}")
        if record.get("chapter") != folder:
            raise ValueError(f"headlines[{i}].chapter must be its folder's, {folder}")
    for i, record in enumerate(_records(run["measurements"], "measurements")):
        for key in ("name", "evidence"):
            _text(record.get(key), f"measurements[{i}].{key}")
        if record.get("chapter") != folder:
            raise ValueError(f"measurements[{i}].chapter must be its folder's, {folder}")
        value = record.get("value")
        if isinstance(value, str):
            _text(value, f"measurements[{i}].value")
        else:
            _number(value, f"measurements[{i}].value")
    for i, record in enumerate(_records(run["figures"], "figures")):
        name = _text(record.get("file"), f"figures[{i}].file")
        if not re.fullmatch(rf"{FIGURES}/[A-Za-z0-9_-]+\.png", name):
            raise ValueError(f"figures[{i}].file must be {FIGURES}/NAME.png")
    return run


def read_runs(folder: Path) -> dict[str, dict[str, Any]]:
    """The manifests of the chapter runs in ``folder``, by chapter name, each checked (see
    the module's description); :class:`RunFolderRefused` names the first that is not a
    run's. Folders whose names start with a dot (scratch folders) are skipped."""
    folder = Path(folder)
    runs = {}
    try:
        entries = sorted(
            entry.name
            for entry in os.scandir(folder)
            if not entry.name.startswith(".")
            and (entry.is_dir(follow_symlinks=False) or entry.is_symlink())
        )
    except OSError as error:
        raise _refuse(str(folder), f"cannot be read ({error.strerror})") from None
    for name in entries:
        where = f"{folder / name / MANIFEST}"
        try:
            data = read_file(folder, f"{name}/{MANIFEST}", limit=MANIFEST_LIMIT)
        except Missing:
            continue  # not a run: another folder of the reader's
        except Refused as error:
            raise _refuse(str(folder), str(error)) from None
        if not _CHAPTER.fullmatch(name):
            raise _refuse(where, "its folder's name is not a chapter's name")
        try:
            parsed = json.loads(data)
        except ValueError:  # not JSON, or not UTF-8
            raise _refuse(where, "is not JSON") from None
        try:
            run = _check_run(parsed, name)
        except ValueError as error:  # a field a run does not write
            raise _refuse(where, str(error)) from None
        runs[name] = run
        for figure in run["figures"]:
            run_figure(folder, name, Path(figure["file"]).stem)
    return runs


def run_figure(folder: Path, chapter: str, name: str) -> bytes | None:
    """The PNG bytes of the figure ``name`` of the run of ``chapter`` in ``folder``, or None if
    there is none; :class:`RunFolderRefused` if it is a link, lies outside the folder, is not a
    regular file or not a PNG, or holds more than :data:`FIGURE_LIMIT` bytes."""
    if not (_CHAPTER.fullmatch(chapter) and re.fullmatch(r"[A-Za-z0-9_-]+", name)):
        raise _refuse(str(folder), f"{chapter!r}, {name!r} do not name a figure")
    relative = f"{chapter}/{FIGURES}/{name}.png"
    try:
        data = read_file(Path(folder), relative, limit=FIGURE_LIMIT)
    except Missing:
        return None
    except Refused as error:
        raise _refuse(str(folder), str(error)) from None
    if not data.startswith(_PNG):
        raise _refuse(str(folder), f"{relative} is not a PNG image")
    return data
