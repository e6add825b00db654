"""A folder of chapter runs, read as data: a run folder from a stranger cannot run code in your
browser or read your files.

The introduction and the claims ledger read the manifests of the runs in a folder
(``-p run_folder DIR``), which a reader may have downloaded from anyone. :func:`read_runs`
takes from it only what it can check: each ``<chapter>/manifest.json`` is a regular file (no
FIFO, folder or link, nothing outside the folder) of at most :data:`MANIFEST_LIMIT` bytes,
names the chapter of its own folder, and holds fields of the types and sizes a run writes (a
verdict is one of the book's verdicts, a text at most :data:`TEXT_LIMIT` characters, a commit
is hexadecimal, no list longer than a run writes, no value nested deeper than
:data:`DEPTH_LIMIT`, one record per claim, headline and measurement), and each measurement is
one the chapter hands over, in the range of what it means (:data:`MEASURED`: a share in
[0, 1], a count a non-negative integer, a length within what the chapter's parameters allow);
anything else is refused in one line (:class:`RunFolderRefused`) naming the file and the
field. A symbolic link among the folder's entries is not followed: one named like a chapter
is refused, any other skipped with a warning, so a link of the reader's own (``latest``) does
not refuse the runs beside it. A run's
texts reach the pages only through :func:`attncore.book.markup.literal`, its evidence
references only when they name a section of the chapter
(:func:`attncore.book.sections.evidence_link`), its figures only as PNG files read by
:func:`run_figure`; nothing a manifest names (its ``source``, say) is opened.

>>> import tempfile
>>> folder = Path(tempfile.mkdtemp()); (folder / "derivations").mkdir()
>>> _ = (folder / "derivations" / "manifest.json").write_text('{"chapter": "why_sqrt_d"}')
>>> read_runs(folder)  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
attncore.book.run_folders.RunFolderRefused: run folder .../derivations/manifest.json: names ...
"""

from __future__ import annotations

import json
import math
import os
import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from attncore.book.paths import FIGURES, MANIFEST, NOTEBOOKS, ROOT
from attncore.checks import ParameterError, warn
from attncore.claims import Verdict
from attncore.evidence.length_generalization import OUTCOMES
from attncore.evidence.training import GAP_OUTCOMES
from attncore.untrusted import Missing, Refused, read_file

__all__ = [
    "DEPTH_LIMIT",
    "FIGURE_LIMIT",
    "LIST_LIMITS",
    "MANIFEST_LIMIT",
    "MEASURED",
    "TEXT_LIMIT",
    "Meaning",
    "RunFolderRefused",
    "parse_json",
    "read_runs",
    "run_figure",
]

MANIFEST_LIMIT = 2_000_000
"""Bytes a manifest may hold (the book's largest is a few tens of kilobytes)."""

TEXT_LIMIT = 4_000
"""Characters a text of a manifest may hold (the book's longest measured text is about 1,000)."""

FIGURE_LIMIT = 20_000_000
"""Bytes a figure of a run may hold (the book's largest is about 1 MB)."""

DEPTH_LIMIT = 12
"""How deeply a manifest's values may nest (a run's go five deep: a verdict's threshold's band)."""

LIST_LIMITS = {
    "verdicts": 200,
    "headlines": 20,
    "measurements": 1_000,
    "figures": 200,
    "thresholds": 50,
    "fragile": 500,
}
"""The longest list of each kind a manifest may hold: several times what the book's runs write
(at most 25 verdicts, 3 headlines, 30 measurements, 13 figures a chapter)."""

_INTEGER_DIGITS = 18
"""Digits an integer of a manifest may have (a run's counts and seeds have fewer than 11)."""

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


def _records(value: object, field: str, kind: str) -> list[dict[str, Any]]:
    if not isinstance(value, list) or not all(isinstance(v, dict) for v in value):
        raise ValueError(f"{field} must be a list of records")
    if len(value) > LIST_LIMITS[kind]:
        raise ValueError(f"{field} holds {len(value):,} records, more than {LIST_LIMITS[kind]:,}")
    return value


def _once(records: list[dict[str, Any]], key: str, field: str) -> None:
    """Refuse two records of one ``key`` (two verdicts of one claim): a page would show one."""
    seen: set[str] = set()
    for i, record in enumerate(records):
        if record[key] in seen:
            raise ValueError(f"{field}[{i}].{key} {record[key][:60]!r} appears twice")
        seen.add(record[key])


_VERDICTS = {v.value for v in Verdict}


def _verdict(value: object, field: str) -> None:
    if not (isinstance(value, str) and value in _VERDICTS):
        raise ValueError(f"{field} must be one of {', '.join(sorted(_VERDICTS))}")


def _number(value: object, field: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise ValueError(f"{field} must be a finite number")
    return float(value)


@dataclass(frozen=True)
class Meaning:
    """What a measurement's value may be: a number in ``[low, high]`` (a whole number if
    ``integer``), the largest of the run's own values of the chapter parameters ``equals``
    (checked against their declarations), or one of ``outcomes``.

    >>> Meaning(0, 1).check(0.5, "share"), Meaning(outcomes=("a",)).check("a", "o")
    (0.5, 'a')
    >>> Meaning(0, 1).check(-0.0001, "share")
    Traceback (most recent call last):
    ...
    ValueError: share must be a number in [0, 1], got -0.0001
    """

    low: float = -math.inf
    high: float = math.inf
    integer: bool = False
    equals: tuple[str, ...] = ()
    outcomes: tuple[str, ...] = ()

    def check(self, value: object, field: str) -> float | str:
        if self.outcomes:
            if not (isinstance(value, str) and value in self.outcomes):
                raise ValueError(f"{field} must be one of {', '.join(self.outcomes)}")
            return value
        number = _number(value, field)
        whole = " whole" if self.integer else ""
        if not self.low <= number <= self.high or (self.integer and not number.is_integer()):
            raise ValueError(
                f"{field} must be a{whole} number in [{self.low:g}, {self.high:g}], "
                f"got {number:.6g}"
            )
        return number + 0.0  # no -0


_SHARE, _COUNT = Meaning(0, 1), Meaning(0, 10**6, integer=True)
_SIZE = Meaning(1e-12, 1e12)
"""A size of a run's numbers (a norm, a spread): positive, and neither so small nor so large
that a ratio of two of them could overflow."""
_MODEL = {"d_model": Meaning(1, 2**16, integer=True), "n_layers": Meaning(1, 256, integer=True)}
"""The width and depth of a chapter's trained model, the scale page one gives its evidence."""

MEASURED: dict[str, dict[str, Meaning]] = {
    "every_rescaling": {
        "d": Meaning(equals=("d_main",)),
        "n": Meaning(equals=("n_main",)),
        "threshold": Meaning(equals=("threshold",)),
        "draws": Meaning(equals=("n_seeds",)),
        r"[a-z0-9_]+\.selectivity": Meaning(-1e-9, 1),  # 1 - H/ln n, rounding aside
        r"[a-z0-9_]+\.selectivity_se": Meaning(0, 1),
        r"[a-z0-9_]+\.(jacobian_norm|gradient_norm)": _SIZE,
        r"[a-z0-9_]+\.saturated_share": _SHARE,
    },
    "length_generalization": {
        "train_length": Meaning(equals=("train_length",)),
        "longest": Meaning(equals=("train_length", "test_lengths")),
        r"[a-z0-9_]+( \+ [a-z0-9_]+)?\.longest": Meaning(outcomes=OUTCOMES),
        **_MODEL,
    },
    "stability": {**_MODEL, r"[a-z0-9_]+\.sensitivity": Meaning(0, 1e3)},
    "bernhard_figures": {
        r"refill\.differing_share": _SHARE,
        r"refill\.samples": Meaning(outcomes=("differ", "alike")),
        r"refill\.changed_verdicts": _COUNT,
    },
    "string_reversal": {
        r"gap_[a-z0-9]+": Meaning(outcomes=GAP_OUTCOMES),
        r"spread_[a-z0-9]+": _SIZE,
    },
}
"""The measurements each chapter hands the first page (by a pattern of their names), with what
each value may be."""


@cache
def _declared(chapter: str) -> dict[str, Any]:
    from attncore.book.runner import chapter_parameters, find_chapter  # runner imports this

    return chapter_parameters(find_chapter(chapter))


def _largest(chapter: str, names: tuple[str, ...], run: dict[str, Any]) -> float:
    """The largest of the run's own values of the parameters ``names``, each valid."""
    given = run.get("parameters")
    values: list[float] = []
    for name in names:
        if not isinstance(given, dict) or name not in given:
            raise ValueError(f"parameters.{name} is missing")
        try:
            value = _declared(chapter)[name].validate(given[name])
        except ParameterError:
            raise ValueError(f"parameters.{name} is not a value the chapter allows") from None
        values += value if isinstance(value, list) else [value]
    return max(values)


def _measurement(chapter: str, record: dict[str, Any], run: dict[str, Any], field: str) -> None:
    """Check that ``record`` is a measurement ``chapter`` hands over, of a value it can be."""
    name, value = record["name"], record.get("value")
    meanings = MEASURED.get(chapter, {})
    meaning = next((m for pattern, m in meanings.items() if re.fullmatch(pattern, name)), None)
    if meaning is None:
        raise ValueError(f"{field}.name {name[:60]!r} is not a measurement of {chapter}")
    if not meaning.equals:
        meaning.check(value, f"{field}.value")
    elif _number(value, f"{field}.value") != (own := _largest(chapter, meaning.equals, run)):
        raise ValueError(
            f"{field}.value must be the run's own {', '.join(meaning.equals)}: {own:g}"
        )


def _depth(value: object) -> int:
    """How deeply ``value`` nests lists and objects (a number or a text: 0), without recursion."""
    deepest, stack = 0, [(value, 0)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict | list):
            deepest = max(deepest, depth + 1)
            stack.extend(
                (v, depth + 1) for v in (item.values() if isinstance(item, dict) else item)
            )
    return deepest


class _NumberRefused(ValueError):
    """A number of a manifest that no run writes (raised while the JSON is parsed)."""


def _bounded_integer(text: str) -> int:
    if len(text.lstrip("-")) > _INTEGER_DIGITS:
        raise _NumberRefused(f"an integer of {len(text):,} digits")
    return int(text)


def _finite_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise _NumberRefused(f"a number out of range, {text[:20]}")
    return value


def parse_json(data: bytes) -> object:
    """The JSON value of ``data``: no NaN or infinity, no integer of more than 18 digits, no
    nesting deeper than :data:`DEPTH_LIMIT`; ValueError naming the first thing refused."""
    try:
        value = json.loads(
            data,
            parse_int=_bounded_integer,
            parse_float=_finite_float,
            parse_constant=_finite_float,
        )
    except RecursionError:
        raise ValueError(f"nests more deeply than {DEPTH_LIMIT} levels") from None
    except _NumberRefused as error:
        raise ValueError(f"is not JSON a run writes: {error}") from None
    except ValueError:  # not JSON, or not UTF-8
        raise ValueError("is not JSON") from None
    if _depth(value) > DEPTH_LIMIT:
        raise ValueError(f"nests more deeply than {DEPTH_LIMIT} levels")
    return value


def _check_thresholds(record: dict[str, Any], where: str) -> None:
    """The thresholds that decided a verdict and its changes inside their bands, as
    :func:`attncore.book.kit.verdict_record` writes them (both lists may be absent)."""
    for field in ("thresholds", "fragile"):
        record.setdefault(field, [])
    thresholds = _records(record["thresholds"], f"{where}.thresholds", "thresholds")
    for j, threshold in enumerate(thresholds):
        at = f"{where}.thresholds[{j}]"
        _text(threshold.get("name"), f"{at}.name")
        _text(threshold.get("reason"), f"{at}.reason")
        _number(threshold.get("value"), f"{at}.value")
        band = threshold.get("band")
        if band is not None and not (isinstance(band, list) and len(band) == 2):
            raise ValueError(f"{at}.band must be two numbers")
        for k, end in enumerate(band or []):
            _number(end, f"{at}.band[{k}]")
    for j, flip in enumerate(_records(record["fragile"], f"{where}.fragile", "fragile")):
        at = f"{where}.fragile[{j}]"
        _text(flip.get("threshold"), f"{at}.threshold")
        _number(flip.get("value"), f"{at}.value")
        _verdict(flip.get("verdict"), f"{at}.verdict")


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
    verdicts = _records(run["verdicts"], "verdicts", "verdicts")
    for i, record in enumerate(verdicts):
        for key in ("claim", "measured", "check", "evidence"):
            _text(record.get(key), f"verdicts[{i}].{key}")
        _text(record.setdefault("catch", ""), f"verdicts[{i}].catch")
        _text(record.setdefault("branch", ""), f"verdicts[{i}].branch")
        _verdict(record.get("verdict"), f"verdicts[{i}].verdict")
        _check_thresholds(record, f"verdicts[{i}]")
    _once(verdicts, "claim", "verdicts")
    headlines = _records(run["headlines"], "headlines", "headlines")
    for i, record in enumerate(headlines):
        for key in ("name", "text", "evidence"):
            _text(record.get(key), f"headlines[{i}].{key}")
        if record.get("chapter") != folder:
            raise ValueError(f"headlines[{i}].chapter must be its folder's, {folder}")
    _once(headlines, "name", "headlines")
    measurements = _records(run["measurements"], "measurements", "measurements")
    for i, record in enumerate(measurements):
        for key in ("name", "evidence"):
            _text(record.get(key), f"measurements[{i}].{key}")
        if record.get("chapter") != folder:
            raise ValueError(f"measurements[{i}].chapter must be its folder's, {folder}")
        _measurement(folder, record, run, f"measurements[{i}]")
    _once(measurements, "name", "measurements")
    for i, record in enumerate(_records(run["figures"], "figures", "figures")):
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
        found = [e for e in os.scandir(folder) if not e.name.startswith(".")]
    except OSError as error:
        raise _refuse(str(folder), f"cannot be read ({error.strerror})") from None
    chapters = {source.stem for source in (ROOT / NOTEBOOKS).glob("*.md")}
    for entry in sorted(e.name for e in found if e.is_symlink()):
        if entry in chapters:  # where the chapter's run would be: not the reader's own link
            raise _refuse(str(folder), f"{entry} is a symbolic link")
        warn(f"run folder {folder}: skipped {entry[:60]!r}, a symbolic link (not followed)")
    folders = sorted(e.name for e in found if e.is_dir(follow_symlinks=False))
    for entry in (e for e in folders if e not in chapters):
        warn(f"run folder {folder}: skipped {entry[:60]!r}, not a chapter's folder")
    entries = [e for e in folders if e in chapters]
    for name in entries:
        where = f"{folder / name / MANIFEST}"
        try:
            data = read_file(folder, f"{name}/{MANIFEST}", limit=MANIFEST_LIMIT)
        except Missing:
            continue  # not a run: another folder of the reader's
        except Refused as error:
            raise _refuse(str(folder), str(error)) from None
        try:
            run = _check_run(parse_json(data), name)
        except ValueError as error:  # not JSON a run writes, or a field a run does not write
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
