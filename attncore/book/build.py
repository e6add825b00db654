"""Build the book: execute the chapters of the table of contents, then run Sphinx strictly.

Chapters are run (:func:`attncore.book.runner.run_chapter`) into a scratch run folder with the
parameters of a profile (``notebooks/profiles.yaml``); only when all succeeded are the executed
notebooks published as ``book/generated/`` and the run folders (figures, manifests) as
``_build/runs/``. Sphinx then builds into another scratch folder with ``-W -n --keep-going``;
``_build/html`` is replaced only when that build succeeds, so a failed run leaves the last good
book in place. Chapters that execute at once share one local Dask cluster for the work they
send to one (:func:`_shared_workers`).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import AbstractContextManager, contextmanager, nullcontext
from pathlib import Path
from typing import Any

import yaml

from attncore.book.budget import estimate
from attncore.book.cache import RunCache
from attncore.book.execution_report import ChapterRun, report_page
from attncore.book.paths import EXECUTION_REPORT, GENERATED, NOTEBOOKS, PROFILES_FILE, ROOT, RUNS
from attncore.book.pdf import PdfFailed, check_tools, pdf_problems, typeset, with_pdf_link
from attncore.book.pdf_edition import PDF_NAME
from attncore.book.publish import publish
from attncore.book.run_folders import RunFolderRefused, read_runs
from attncore.book.runner import (
    RUN_FOLDER,
    NotebookFailed,
    RunResult,
    WriteFailed,
    chapter_parameters,
    is_cached,
    run_chapter,
)
from attncore.checks import ParameterError
from attncore.scratch import remove_orphans, scratch_folder
from attncore.simulate.tasks import resolve_scheduler, shared_local_cluster

__all__ = ["PROFILES", "BuildFailed", "build_book", "load_profile", "start_order", "toc_chapters"]

PROFILES = ("full", "smoke")


class BuildFailed(RuntimeError):
    """The book could not be built; the last good build is untouched."""


_UNTOUCHED = "\nThe last good book in _build/html is untouched."
"""How every build failure ends: nothing it made replaced the published book."""


def toc_chapters(root: Path = ROOT) -> list[str]:
    """Names of the notebooks that the table of contents takes from ``book/generated/``,
    the root page first.

    >>> toc_chapters()[:2]
    ['introduction', 'softmax_saturation']
    """
    toc = yaml.safe_load((root / "_toc.yml").read_text())
    files: list[str] = []

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            if "file" in node:
                files.append(str(node["file"]))
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for item in node:
                walk(item)

    walk(toc)
    files.insert(0, str(toc["root"]))
    return [Path(f).name for f in files if Path(f).parent == GENERATED]


def load_profile(chapter: str, profile: str, root: Path = ROOT) -> dict[str, Any]:
    """The parameter overrides of ``chapter`` under ``profile``.

    >>> load_profile("softmax_saturation", "full")
    {}
    """
    if profile not in PROFILES:
        raise ParameterError(f"profile must be one of {', '.join(PROFILES)}, got {profile!r}")
    profiles = yaml.safe_load((root / PROFILES_FILE).read_text()) or {}
    if chapter not in profiles or profile not in profiles[chapter]:
        raise ParameterError(f"{PROFILES_FILE} has no {profile} profile for {chapter}")
    return dict(profiles[chapter][profile] or {})


def _readers(chapters: list[str], root: Path) -> set[str]:
    """The chapters that read other chapters' runs: they run after all the others."""
    return {c for c in chapters if RUN_FOLDER in chapter_parameters(root / NOTEBOOKS / f"{c}.md")}


def _estimated(chapter: str, profile: str, root: Path) -> float | None:
    """The cost model's seconds for ``chapter`` run with ``profile``, or None where the
    chapter has no cost model (:mod:`attncore.book.budget`)."""
    try:
        source = root / NOTEBOOKS / f"{chapter}.md"
        return estimate(source, load_profile(chapter, profile, root)).seconds
    except ParameterError:
        return None


def start_order(chapters: list[str], pending: list[str], profile: str, root: Path) -> list[str]:
    """``chapters`` in the order a build starts them: those to run (``pending``) longest first
    by the cost model, so the others share the cores around the longest, then the cached
    ones; ties keep the table of contents' order.

    >>> start_order(["softmax_saturation", "string_reversal"], ["softmax_saturation",
    ...             "string_reversal"], "full", ROOT)
    ['string_reversal', 'softmax_saturation']
    """
    seconds = {c: _estimated(c, profile, root) or 0.0 for c in pending}
    return sorted(chapters, key=lambda c: (c not in seconds, -seconds.get(c, 0.0)))


def _execute_chapters(
    profile: str, root: Path, jobs: int, cache: RunCache, force: bool
) -> list[tuple[str, RunResult, tuple[float, float]]]:
    """Run every chapter; each with its result and when it started and ended (seconds from
    the start of this call)."""
    clock = time.perf_counter()
    chapters = toc_chapters(root)
    readers = _readers(chapters, root)
    remove_orphans(root / "book")
    staging = scratch_folder(root / "book", "generated")
    results: dict[str, RunResult] = {}
    spans: dict[str, tuple[float, float]] = {}
    runs = staging / "runs"

    def run(chapter: str) -> RunResult:
        source = root / NOTEBOOKS / f"{chapter}.md"
        parameters = load_profile(chapter, profile, root)
        began = time.perf_counter() - clock
        result = run_chapter(source, parameters, runs, cache=cache, reuse=not force)
        spans[chapter] = (began, time.perf_counter() - clock)
        done = "cached" if result.cached else f"{result.seconds:.1f} s"
        print(f"[{len(results) + 1}/{len(chapters)}] {chapter}: {done}", flush=True)
        results[chapter] = result
        return result

    try:
        runs.mkdir()
        writers = [c for c in chapters if c not in readers]
        pending = [c for c in writers if force or not _cached(c, profile, root, runs, cache)]
        writers = start_order(writers, pending, profile, root)
        with _shared_workers(len(pending), jobs), ThreadPoolExecutor(max_workers=jobs) as pool:
            for future in [pool.submit(run, c) for c in writers]:
                future.result()
        for chapter in chapters:
            if chapter in readers:
                run(chapter)
        generated = staging / "generated"
        generated.mkdir()
        for chapter in chapters:
            shutil.copy2(runs / chapter / f"{chapter}.ipynb", generated / f"{chapter}.ipynb")
        publish(generated, root / GENERATED)
        publish(runs, root / RUNS)
    except (NotebookFailed, WriteFailed, ParameterError) as error:
        raise BuildFailed(f"{error}{_UNTOUCHED}") from None
    except OSError as error:
        raise BuildFailed(
            f"the executed chapters could not be written: {error.strerror or error}{_UNTOUCHED}"
        ) from None
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return [(chapter, results[chapter], spans[chapter]) for chapter in chapters]


def _cached(chapter: str, profile: str, root: Path, runs: Path, cache: RunCache) -> bool:
    source = root / NOTEBOOKS / f"{chapter}.md"
    return is_cached(source, load_profile(chapter, profile, root), runs, cache)


def _shared_workers(executing: int, jobs: int) -> AbstractContextManager:
    """One local Dask cluster for all the chapters that execute at once, when their work
    would go to a local cluster (the scheduler is ``auto`` or ``local``): each kernel's
    ``"local"`` sweeps then share its workers (one per core) instead of starting a cluster
    per kernel (:func:`attncore.simulate.tasks.shared_local_cluster`)."""
    if executing >= 2 and jobs >= 2 and resolve_scheduler() in ("auto", "local"):
        return shared_local_cluster()
    return nullcontext()


def _run_sphinx(root: Path, pdf: bool = False) -> None:
    """Build the pages of ``root`` (and with ``pdf`` the PDF edition first, which the pages
    then link and which must match them) in scratch, then publish them."""
    jupyter_book = Path(sys.executable).with_name("jupyter-book")
    remove_orphans(root)
    with _scratch(root, "sphinx") as scratch:
        environment = dict(os.environ)
        if pdf:
            try:
                edition, numbers, log = typeset(root, scratch / "latex")
            except PdfFailed as error:
                raise BuildFailed(f"{error}{_UNTOUCHED}") from None
            environment = with_pdf_link(environment)
        command = [str(jupyter_book), "build", str(root), "-W", "-n", "--keep-going"]
        command += ["--path-output", str(scratch)]
        print("[sphinx] jupyter-book build -W -n --keep-going", flush=True)
        done = subprocess.run(command, capture_output=True, text=True, check=False, env=environment)
        if done.returncode != 0:
            problems = [
                line
                for line in (done.stdout + done.stderr).splitlines()
                if "WARNING" in line or "ERROR" in line or "Error" in line
            ]
            raise BuildFailed(
                "Sphinx failed:\n"
                + "\n".join(problems[-20:] or (done.stdout + done.stderr).splitlines()[-20:])
                + _UNTOUCHED
            )
        site = scratch / "_build" / "html"
        if pdf:
            try:
                problems = pdf_problems(edition, site, numbers, log)
                if problems:
                    lines = "\n".join(problems[:20])
                    raise PdfFailed(f"the PDF does not match the pages:\n{lines}")
                shutil.copy2(edition, site / PDF_NAME)
            except (PdfFailed, OSError) as error:
                raise BuildFailed(f"{error}{_UNTOUCHED}") from None
        try:
            publish(site, root / "_build" / "html")
        except OSError as error:
            raise BuildFailed(
                f"the built pages could not be published: {error.strerror or error}{_UNTOUCHED}"
            ) from None


def _write_report(
    root: Path,
    results: list[tuple[str, RunResult, tuple[float, float]]],
    estimates: dict[str, float | None],
    profile: str,
    jobs: int,
) -> None:
    """Write the execution report of this build (:mod:`attncore.book.execution_report`), with
    the cost model's ``estimates`` of the chapters it ran."""
    try:
        runs = read_runs(root / RUNS)
    except RunFolderRefused as error:
        raise BuildFailed(f"{error}{_UNTOUCHED}") from None
    done = [
        ChapterRun(chapter, result.cached, estimates[chapter]) for chapter, result, _ in results
    ]
    spans = [span for _, result, span in results if not result.cached]
    wall = max(end for _, end in spans) - min(start for start, _ in spans) if spans else 0.0
    page = root / EXECUTION_REPORT
    scratch = page.with_name(f".{page.name}.{os.getpid()}")
    try:
        scratch.write_text(report_page(runs, done, profile, jobs, wall), encoding="utf-8")
        os.replace(scratch, page)
    except OSError as error:
        scratch.unlink(missing_ok=True)
        raise BuildFailed(
            f"the execution report could not be written: {error.strerror or error}"
        ) from None


@contextmanager
def _scratch(parent: Path, kind: str) -> Iterator[Path]:
    folder = scratch_folder(parent, kind)
    try:
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def build_book(
    profile: str = "full",
    root: Path = ROOT,
    jobs: int | None = None,
    force: bool = False,
    cache: RunCache | None = None,
    pdf: bool = False,
) -> Path:
    """Execute every chapter with ``profile`` and build ``_build/html``; return its index page.

    Chapters whose run is in ``cache`` (by default the repository's) are not executed again
    unless ``force``; the others run ``jobs`` at a time (default: one per core), and the
    chapters that read other chapters' runs after them. With ``pdf``, the build also makes
    the PDF edition (:mod:`attncore.book.pdf`), ``_build/html/attncore.pdf``, checked against
    the pages, which link it; the tools it needs are checked before any chapter runs.
    """
    start = time.perf_counter()
    if pdf:
        check_tools()
    jobs = jobs or os.cpu_count() or 1
    results = _execute_chapters(profile, root, jobs, cache or RunCache(), force)
    estimates = {
        chapter: None if result.cached else _estimated(chapter, profile, root)
        for chapter, result, _ in results
    }
    _write_report(root, results, estimates, profile, jobs)
    sphinx_start = time.perf_counter()
    _run_sphinx(root, pdf)
    sphinx_seconds = time.perf_counter() - sphinx_start
    index = root / "_build" / "html" / "index.html"
    print("\nSummary (each chapter's time, when it ran in the build, the cost model's estimate)")
    for chapter, result, (began, ended) in results:
        done = "cached" if result.cached else f"{result.seconds:7.1f} s"
        guess = estimates[chapter]
        ran = "" if result.cached else f"  from {began:4.0f} to {ended:4.0f} s"
        print(f"  {chapter:<32} {done:>9}{ran}" + (f"  (estimated {guess:.0f} s)" if guess else ""))
    pages = "sphinx (PDF, then strict pages)" if pdf else "sphinx (strict)"
    print(f"  {pages:<32} {sphinx_seconds:7.1f} s")
    total = time.perf_counter() - start
    print(f"  {'total':<32} {total:7.1f} s  ({profile} profile, {jobs} jobs)")
    print(f"Book: {index}")
    return index
