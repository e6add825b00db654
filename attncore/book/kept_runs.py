"""Kept runs: a sweep too costly for every build, run once where the compute is, kept in the
repository as data with its provenance, read like any run folder and checked on every build.

A kept sweep is a folder (``kept/<name>/``) holding ``recipe.yaml`` (the stability chapter's
sweep parameters, every name of :data:`~attncore.training.stability.SWEEP_PARAMETERS`: what a
person writes), and what :func:`keep_sweep` writes from it: ``runs.csv`` and ``curves.csv``
(the tables of :func:`~attncore.training.stability.chapter_sweep`) and ``manifest.json`` (the
parameters, the commit, the fingerprint of the code the sweep ran, the machine, when it ran,
how long it took, and the SHA-256 of each table). Regenerate it with::

    python -m attncore.book.kept_runs kept/stability-widths --device cuda

(the README gives its time). :func:`read_kept` reads the folder as untrusted data (no link
followed, sizes capped, every table checked against its SHA-256 and its columns and values
against what the sweep writes) and marks it *stale* where the code the sweep imports has
changed since, or the recipe no longer says what the manifest ran. :func:`reproduce` retrains
runs of it on this machine, on the CPU, and compares their final losses with the kept ones:
the chapter re-executes two runs chosen by :func:`choose_runs` on every build.

>>> sorted({p.name for p in sweep_code()} & {"engine.py", "optimizers.py", "run_folders.py"})
['engine.py', 'optimizers.py']
"""

from __future__ import annotations

import argparse
import ast
import datetime
import functools
import hashlib
import io
import json
import multiprocessing
import platform
import shutil
import sys
import tempfile
import time
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import yaml

from attncore.book.paths import ROOT
from attncore.book.run_folders import parse_json
from attncore.checks import ParameterError
from attncore.fingerprint import files_fingerprint
from attncore.random import stream
from attncore.untrusted import Refused, read_file

__all__ = [
    "KEPT",
    "STABILITY_WIDTHS",
    "TOLERANCE_FLOOR",
    "TOLERANCE_SHARE",
    "KeptSweep",
    "choose_runs",
    "keep_sweep",
    "read_kept",
    "read_recipe",
    "reproduce",
    "sweep_by_width",
    "sweep_code",
]

KEPT = ROOT / "kept"
"""Where the kept runs live in the repository."""

STABILITY_WIDTHS = KEPT / "stability-widths"
"""The stability chapter's kept sweep: its widths over Wortsman et al.'s range of rates."""

_RECIPE, _MANIFEST = "recipe.yaml", "manifest.json"
_COLUMNS = {
    "runs.csv": ("width", "method", "seed", "lr", "initial_loss", "final_loss", "diverged"),
    "curves.csv": ("width", "method", "seed", "lr", "step", "max_logit", "entropy",
                   "mean_entropy", "log_z", "train_loss"),
}  # fmt: skip
"""The tables of a kept sweep and their columns, as :func:`~attncore.training.stability.lr_sweep`
writes them."""
_TABLE_LIMIT = 64_000_000
TOLERANCE_SHARE = 0.01
"""A re-executed run agrees with its kept final loss within this share of the seed-to-seed
standard deviation of its cell: a difference that moves the cell's mean by a fiftieth of its
standard error (five seeds) or less, far below what any verdict reads. Float rounding alone
separates the two (another device, another ensemble), and on the smooth side of the sweep,
where :func:`choose_runs` picks, training does not amplify it: fourteen runs of the first
kept sweep re-executed on a CPU differed from the GPU's by 1e-10 to 3e-8 nats, but one,
σReparam at the lowest rate (whose spectral norms the two devices compute differently), by
2e-6, half a percent of its cell's spread."""

TOLERANCE_FLOOR = 1e-6
"""The tolerance in nats where a cell's seeds agree more closely than that."""

_PICK_STREAM = 1
"""The key of :func:`choose_runs`' random stream under the chapter's seed."""
_TEXT_LIMIT = 200
"""Characters a text field of a manifest may hold (a machine's name, a commit)."""


def _module_path(name: str) -> Path | None:
    base = ROOT.joinpath(*name.split("."))
    for candidate in (base.with_suffix(".py"), base / "__init__.py"):
        if candidate.is_file():
            return candidate
    return None


def sweep_code(module: str = "attncore.training.stability") -> list[Path]:
    """The source files of ``module`` and of every ``attncore`` module it imports from,
    directly or not: the code a kept sweep computes with. (A package's ``__init__.py`` counts
    only where a module imports from the package itself: the re-exports of a package a module
    is merely inside do not change its numbers.)"""
    seen: dict[str, Path] = {}
    pending = [module]
    while pending:
        name = pending.pop()
        path = _module_path(name)
        if path is None or name in seen:
            continue
        seen[name] = path
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                submodules = [f"{node.module}.{a.name}" for a in node.names]
                found = [m for m in submodules if _module_path(m) is not None]
                names = found if len(found) == len(submodules) else [node.module, *found]
            elif isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            else:
                continue
            pending += [n for n in names if n.split(".")[0] == "attncore"]
    return sorted(seen.values())


def code_fingerprint() -> str:
    """The fingerprint of :func:`sweep_code`'s files as they are now."""
    return files_fingerprint(sweep_code(), ROOT)


def read_recipe(folder: Path) -> dict[str, Any]:
    """The sweep parameters of ``folder``'s ``recipe.yaml``, every one named once."""
    from attncore.training.stability import SWEEP_PARAMETERS

    try:
        recipe = yaml.safe_load(read_file(folder, _RECIPE, 100_000))
    except (Refused, yaml.YAMLError) as error:
        why = f"{_RECIPE} cannot be read: {error}"
        raise ParameterError(f"kept sweep {folder.name}: {why}") from None
    if not isinstance(recipe, dict) or set(recipe) != set(SWEEP_PARAMETERS):
        raise ParameterError(
            f"kept sweep {folder.name}: {_RECIPE} must name exactly {', '.join(SWEEP_PARAMETERS)}"
        )
    return recipe


def _checked_recipe(folder: Path) -> dict[str, Any]:
    """The recipe of ``folder``, every value within the stability chapter's declared ranges."""
    from attncore.book.parameters import validate_parameters
    from attncore.book.runner import chapter_parameters, find_chapter

    recipe = read_recipe(folder)
    declared = chapter_parameters(find_chapter("stability"))
    try:
        return validate_parameters(declared, recipe)
    except ParameterError as error:
        raise ParameterError(f"kept sweep {folder.name}: {_RECIPE}: {error}") from None


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _machine(device: str) -> str:
    import torch

    where = torch.cuda.get_device_name() if device == "cuda" else platform.processor() or "CPU"
    python = platform.python_version()
    return f"{where}, {platform.machine()}, Python {python}, torch {torch.__version__}"


def _sweep_width(
    width: int, recipe: dict[str, Any], device: str, engine: str
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The tables of ``recipe``'s sweep at one ``width`` (a width's runs depend on no other's)."""
    from attncore.training.stability import chapter_sweep

    only = {**recipe, "widths": [width]}
    return chapter_sweep(only, engine=engine, device=device, scheduler="synchronous")


def sweep_by_width(
    recipe: dict[str, Any], *, device: str, engine: str = "auto", processes: int = 1
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The tables of ``recipe``'s sweep, each width trained on its own, in ``processes``
    processes at once (on one GPU their small kernels interleave); the same numbers as one
    :func:`~attncore.training.stability.chapter_sweep` of every width, in its order."""
    work = functools.partial(_sweep_width, recipe=recipe, device=device, engine=engine)
    widths = list(recipe["widths"])
    if processes == 1:
        parts = [work(width) for width in widths]
    else:
        spawn = multiprocessing.get_context("spawn")  # a CUDA context does not survive a fork
        with ProcessPoolExecutor(min(processes, len(widths)), mp_context=spawn) as pool:
            parts = list(pool.map(work, widths))
    return tuple(pd.concat(tables, ignore_index=True) for tables in zip(*parts, strict=True))


def keep_sweep(
    folder: Path, *, device: str, commit: str, engine: str = "auto", processes: int = 1
) -> Path:
    """Run the sweep of ``folder``'s recipe on ``device`` (``processes`` widths at once, see
    :func:`sweep_by_width`) and write its tables and manifest there (into a new folder first,
    so a failed run leaves the kept one as it was). ``commit`` is the commit of the code (the
    tree must hold no other changes to the files of :func:`sweep_code`)."""
    recipe = read_recipe(folder)
    started = datetime.datetime.now(datetime.UTC)
    clock = time.perf_counter()
    runs, curves = sweep_by_width(recipe, device=device, engine=engine, processes=processes)
    seconds = time.perf_counter() - clock
    tables = {"runs.csv": runs, "curves.csv": curves}
    with tempfile.TemporaryDirectory(dir=folder.parent) as scratch:
        staged = Path(scratch) / folder.name
        shutil.copytree(folder, staged)
        digests = {}
        for name, table in tables.items():
            data = table[list(_COLUMNS[name])].to_csv(index=False, float_format="%.9g").encode()
            (staged / name).write_bytes(data)
            digests[name] = _sha256(data)
        manifest = {
            "parameters": recipe, "commit": commit, "code": code_fingerprint(),
            "machine": _machine(device), "device": device,
            "ran_at": started.isoformat(timespec="seconds"), "seconds": round(seconds, 1),
            "tables": digests,
        }  # fmt: skip
        (staged / _MANIFEST).write_text(json.dumps(manifest, indent=1) + "\n")
        backup = Path(scratch) / "previous"
        folder.rename(backup)
        staged.rename(folder)
    return folder


@dataclass(frozen=True)
class KeptSweep:
    """A kept sweep as :func:`read_kept` found it: its tables, parameters and provenance, and
    whether it is ``stale`` (its code or recipe changed since; ``why`` says which)."""

    name: str
    runs: pd.DataFrame
    curves: pd.DataFrame
    parameters: dict[str, Any]
    commit: str
    machine: str
    device: str
    ran_at: str
    seconds: float
    stale: bool
    why: str


def _text(manifest: dict[str, Any], key: str, where: str) -> str:
    value = manifest.get(key)
    if not isinstance(value, str) or not value or len(value) > _TEXT_LIMIT:
        raise ParameterError(f"kept sweep {where}: {_MANIFEST} field {key} must be a short text")
    return value


def _table(folder: Path, name: str, digest: object) -> pd.DataFrame:
    """Table ``name`` of ``folder``, after its SHA-256 is found equal to ``digest`` and its
    columns and values to what the sweep writes."""
    from attncore.training.stability import METHODS

    where = f"kept sweep {folder.name}: {name}"
    data = read_file(folder, name, _TABLE_LIMIT)
    if _sha256(data) != digest:
        raise ParameterError(
            f"{where} is not the table its manifest recorded (its SHA-256 differs): it was "
            "changed after the run"
        )
    table = pd.read_csv(io.BytesIO(data), dtype={"method": str})
    if tuple(table.columns) != _COLUMNS[name]:
        raise ParameterError(f"{where} must have the columns {', '.join(_COLUMNS[name])}")
    if not table["method"].isin(list(METHODS)).all():
        raise ParameterError(f"{where} names a method the sweep does not have")
    numbers = table.drop(columns=["method"])
    if name == "runs.csv":
        if not table["diverged"].isin([True, False]).all():
            raise ParameterError(f"{where}: diverged must be True or False")
        table["diverged"] = table["diverged"].astype(bool)
        known = ~table["diverged"]
        numbers = numbers.drop(columns=["diverged", "final_loss"]).assign(
            final_loss=table["final_loss"].where(known, 0.0)
        )
    else:  # a measure of a diverged run may be infinite or missing; where and when may not
        numbers = numbers[["width", "seed", "lr", "step"]]
    if not np.isfinite(numbers.to_numpy(dtype=float, na_value=np.nan)).all():
        raise ParameterError(f"{where} holds a number that is not finite")
    return table


def read_kept(folder: Path) -> KeptSweep:
    """The kept sweep in ``folder``, read as untrusted data; a one-line
    :class:`~attncore.checks.ParameterError` naming what is wrong otherwise."""
    folder = Path(folder)
    where = folder.name
    try:
        manifest = parse_json(read_file(folder, _MANIFEST, 1_000_000))
    except (Refused, ValueError) as error:
        raise ParameterError(f"kept sweep {where}: {_MANIFEST} cannot be read: {error}") from None
    if not isinstance(manifest, dict) or not isinstance(manifest.get("tables"), dict):
        raise ParameterError(f"kept sweep {where}: {_MANIFEST} is not a kept sweep's manifest")
    try:
        runs = _table(folder, "runs.csv", manifest["tables"].get("runs.csv"))
        curves = _table(folder, "curves.csv", manifest["tables"].get("curves.csv"))
    except Refused as error:
        raise ParameterError(f"kept sweep {where}: {error}") from None
    seconds = manifest.get("seconds")
    if not isinstance(seconds, int | float) or not 0 <= seconds < 1e7:
        raise ParameterError(f"kept sweep {where}: {_MANIFEST} field seconds must be a duration")
    parameters = manifest.get("parameters")
    recipe = _checked_recipe(folder)
    reasons = []
    if parameters != recipe:
        reasons.append(f"{_RECIPE} no longer says what the manifest ran")
    if _text(manifest, "code", where) != code_fingerprint():
        reasons.append("the code it ran has changed since")
    return KeptSweep(
        name=where, runs=runs, curves=curves, parameters=recipe,
        commit=_text(manifest, "commit", where), machine=_text(manifest, "machine", where),
        device=_text(manifest, "device", where), ran_at=_text(manifest, "ran_at", where),
        seconds=float(seconds), stale=bool(reasons), why="; ".join(reasons),
    )  # fmt: skip


def choose_runs(kept: KeptSweep, seed: int, count: int = 2) -> pd.DataFrame:
    """``count`` runs of ``kept`` to re-execute, drawn with ``seed``: of the narrowest width,
    each of another method, each at a rate at least ten times below its method's best there
    (or the lowest rate; the side where training is smooth, so that float rounding is not
    amplified)."""
    from attncore.evidence.stability import best_rates, capped

    narrow = kept.runs[kept.runs["width"] == kept.runs["width"].min()]
    best = narrow["method"].map(best_rates(capped(narrow)))
    lowest = narrow["lr"] == narrow["lr"].min()
    smooth = narrow[((narrow["lr"] * 10 <= best * (1 + 1e-9)) | lowest) & ~narrow["diverged"]]
    rng = stream(seed, _PICK_STREAM)
    methods = sorted(set(smooth["method"]))
    picked = rng.choice(len(methods), size=min(count, len(methods)), replace=False)
    rows = []
    for index in sorted(picked):
        own = smooth[smooth["method"] == methods[index]].sort_values(["lr", "seed"])
        rows.append(own.iloc[int(rng.integers(len(own)))])
    return pd.DataFrame(rows).reset_index(drop=True)


def reproduce(kept: KeptSweep, picks: pd.DataFrame, engine: str = "eager") -> pd.DataFrame:
    """Retrain each run of ``picks`` (rows of ``kept.runs``) alone on the CPU with the kept
    parameters; the picks with ``loss`` (this machine's final loss), ``difference`` (it minus
    the kept one), ``tolerance`` (:data:`TOLERANCE_SHARE` of its cell's seed-to-seed standard
    deviation, at least :data:`TOLERANCE_FLOOR`) and whether it ``agrees``."""
    from attncore.training.data import reversal_data
    from attncore.training.stability import lr_sweep

    p = kept.parameters
    data = reversal_data(
        p["seed"], n_train=p["n_train"], n_val=p["n_val"], n_test=16, length=p["length"],
        vocab=p["vocab"],
    )  # fmt: skip
    losses = []
    for pick in picks.itertuples():
        runs, _ = lr_sweep(
            data, [pick.method], [float(pick.lr)], [int(pick.seed)], steps=p["steps"],
            widths=[int(pick.width)], n_layers=p["n_layers"], head_dim=p["head_dim"],
            batch_size=p["batch_size"], warmup=p["warmup"], records=p["records"], cap=p["cap"],
            engine=engine, scheduler="synchronous",
        )  # fmt: skip
        losses.append(float(runs["final_loss"].iloc[0]))
    out = picks.copy()
    out["loss"] = losses
    out["difference"] = out["loss"] - out["final_loss"]
    cells = kept.runs.groupby(["width", "method", "lr"])["final_loss"].std(ddof=1)
    spread = [float(cells.loc[(p.width, p.method, p.lr)]) for p in picks.itertuples()]
    out["tolerance"] = np.maximum(TOLERANCE_FLOOR, TOLERANCE_SHARE * np.nan_to_num(spread))
    out["agrees"] = out["difference"].abs() <= out["tolerance"]
    return out


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m attncore.book.kept_runs FOLDER [--device cuda] [--commit SHA]
    [--processes N]``."""
    parser = argparse.ArgumentParser(description="Run a kept sweep's recipe and keep its tables.")
    parser.add_argument("folder", type=Path)
    parser.add_argument("--device", choices=("cpu", "cuda"), default="cpu")
    parser.add_argument("--engine", choices=("auto", "compiled", "eager"), default="auto")
    parser.add_argument("--commit", help="the commit of the code (default: git's HEAD)")
    parser.add_argument("--processes", type=int, default=1, help="widths trained at once")
    args = parser.parse_args(argv)
    if args.processes < 1:
        print(f"--processes must be an integer >= 1, got {args.processes}", file=sys.stderr)
        return 2
    commit = args.commit
    if commit is None:
        from attncore.book.manifest import source_revision

        revision = source_revision()
        if revision.dirty:
            print("the tree has uncommitted changes: commit them first", file=sys.stderr)
            return 2
        commit = revision.commit
    try:
        keep_sweep(
            args.folder, device=args.device, commit=commit, engine=args.engine,
            processes=args.processes,
        )  # fmt: skip
    except ParameterError as error:
        print(error, file=sys.stderr)
        return 2
    print(f"kept {args.folder}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
