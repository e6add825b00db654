"""Build the book: execute the chapters of the table of contents, then run Sphinx strictly.

Chapters are run (:func:`attncore.book.runner.run_chapter`) into a scratch run folder with the
parameters of a profile (``notebooks/profiles.yaml``); only when all succeeded are the executed
notebooks published as ``book/generated/`` and the run folders (figures, manifests) as
``_build/runs/``. Sphinx then builds into another scratch folder with ``-W -n --keep-going``;
``_build/html`` is replaced only when that build succeeds, so a failed run leaves the last good
book in place.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import yaml

from attncore.book.paths import GENERATED, PROFILES_FILE, ROOT
from attncore.book.publish import publish
from attncore.book.runner import NotebookFailed, run_chapter
from attncore.checks import ParameterError

__all__ = ["PROFILES", "BuildFailed", "build_book", "load_profile", "toc_chapters"]

PROFILES = ("full", "smoke")
RUNS = Path("_build") / "runs"
"""Where a build keeps its chapters' run folders (figures, manifests), relative to a root."""


class BuildFailed(RuntimeError):
    """The book could not be built; the last good build is untouched."""


def toc_chapters(root: Path = ROOT) -> list[str]:
    """Names of the notebooks that the table of contents takes from ``book/generated/``.

    >>> "softmax_saturation" in toc_chapters()
    True
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


def _execute_chapters(profile: str, root: Path) -> list[tuple[str, float]]:
    chapters = toc_chapters(root)
    timings = []
    staging = Path(tempfile.mkdtemp(prefix=".generated-", dir=root / "book"))
    try:
        runs = staging / "runs"
        for index, chapter in enumerate(chapters, start=1):
            print(f"[{index}/{len(chapters)}] executing {chapter} ({profile})", flush=True)
            source = root / "notebooks" / f"{chapter}.md"
            result = run_chapter(source, load_profile(chapter, profile, root), runs)
            print(f"    done in {result.seconds:.1f} s", flush=True)
            timings.append((chapter, result.seconds))
        generated = staging / "generated"
        generated.mkdir()
        for chapter in chapters:
            shutil.copy2(runs / chapter / f"{chapter}.ipynb", generated / f"{chapter}.ipynb")
        publish(generated, root / GENERATED)
        publish(runs, root / RUNS)
    except (NotebookFailed, ParameterError) as error:
        raise BuildFailed(f"{error}\nThe last good book in _build/html is untouched.") from None
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return timings


def _run_sphinx(root: Path) -> None:
    jupyter_book = Path(sys.executable).with_name("jupyter-book")
    with tempfile.TemporaryDirectory(prefix=".build-", dir=root) as scratch:
        command = [str(jupyter_book), "build", str(root), "-W", "-n", "--keep-going"]
        command += ["--path-output", scratch]
        print("[sphinx] jupyter-book build -W -n --keep-going", flush=True)
        done = subprocess.run(command, capture_output=True, text=True, check=False)
        if done.returncode != 0:
            problems = [
                line
                for line in (done.stdout + done.stderr).splitlines()
                if "WARNING" in line or "ERROR" in line or "Error" in line
            ]
            raise BuildFailed(
                "Sphinx failed:\n"
                + "\n".join(problems[-20:] or (done.stdout + done.stderr).splitlines()[-20:])
                + "\nThe last good book in _build/html is untouched."
            )
        publish(Path(scratch) / "_build" / "html", root / "_build" / "html")


def build_book(profile: str = "full", root: Path = ROOT) -> Path:
    """Execute every chapter with ``profile`` and build ``_build/html``; return its index page."""
    start = time.perf_counter()
    timings = _execute_chapters(profile, root)
    sphinx_start = time.perf_counter()
    _run_sphinx(root)
    sphinx_seconds = time.perf_counter() - sphinx_start
    index = root / "_build" / "html" / "index.html"
    print("\nSummary")
    for chapter, seconds in timings:
        print(f"  {chapter:<32} {seconds:7.1f} s")
    print(f"  {'sphinx (strict)':<32} {sphinx_seconds:7.1f} s")
    print(f"  {'total':<32} {time.perf_counter() - start:7.1f} s  ({profile} profile)")
    print(f"Book: {index}")
    return index
