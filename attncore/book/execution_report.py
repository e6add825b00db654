"""The book's execution report: how the build that made these pages ran each chapter.

``attncore build`` writes the page (``book/execution.md``, :data:`EXECUTION_REPORT`) after the
chapters ran and before the pages are built, from the run folders' manifests (read as data
from anyone: :func:`attncore.book.run_folders.read_runs` checks them, every text is escaped, a
field that is not what a run writes shows as a dash) and what only the build knows: its
profile, which chapters it took from the cache, the cost model's estimate of each chapter it
ran, its jobs and how long the chapters took on the wall clock.

>>> run = {"parameters_hash": "ab12", "revision": {"commit": "0" * 40, "dirty": False},
...        "code": "c" * 64, "seconds": 12.5, "ran_at": "2026-11-28T09:00:00Z"}
>>> page = report_page({"why_sqrt_d": run}, [ChapterRun("why_sqrt_d", False, 10.0)],
...                    "full", jobs=2, wall=13.0)
>>> "| {doc}`generated/why_sqrt_d` | ab12 | 00000000 | cccccccc |" in page
True
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from attncore.book.markup import literal

__all__ = ["ChapterRun", "report_page"]

_WHEN = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ")
_HEX = re.compile(r"[0-9a-f]{8,64}")
_NOTHING = "—"
_SHOWN = 8
"""Characters of a hash the report shows."""


@dataclass(frozen=True)
class ChapterRun:
    """What the build knows of one chapter's run: whether it came from the cache, and the
    cost model's estimate in seconds (None for a cached run or a chapter it cannot
    estimate)."""

    chapter: str
    cached: bool
    estimate: float | None


def report_page(
    runs: Mapping[str, Mapping[str, Any]],
    done: Sequence[ChapterRun],
    profile: str,
    jobs: int,
    wall: float,
) -> str:
    """The report's MyST Markdown: one row per chapter of ``done`` (in the book's order) from
    its manifest in ``runs``, and the totals of the chapters this build executed against
    their estimates (``wall``: seconds from the first chapter's start to the last's end)."""
    rows = [_row(run, runs.get(run.chapter, {})) for run in done]
    ran = [run for run in done if not run.cached]
    seconds = sum(_seconds(runs.get(run.chapter, {})) or 0.0 for run in ran)
    estimated = sum(run.estimate or 0.0 for run in ran)
    lines = [
        "# Execution report",
        "",
        f"How the build of these pages ran each chapter, with the profile "
        f"`{literal(profile)}` and {jobs} chapters at a time. A chapter taken from the cache "
        "was not run again: its row is the run that made it, with that run's time. The "
        "estimate is the cost model's, made before a chapter runs. Parameters, commit and code "
        "are the first characters of their hashes (a commit marked * had uncommitted changes).",
        "",
        "| chapter | parameters | commit | code | ran at (UTC) | seconds | cached | estimate (s) |",
        "|---|---|---|---|---|---:|---|---:|",
        *rows,
        "",
        f"This build ran {len(ran)} of its {len(done)} chapters (the others came from the "
        f"cache). Their seconds add up to {seconds:,.0f} s, against the estimates' "
        f"{estimated:,.0f} s; run {jobs} at a time, they took {wall:,.0f} s on the wall clock.",
        "",
    ]
    return "\n".join(lines)


def _row(run: ChapterRun, manifest: Mapping[str, Any]) -> str:
    revision = manifest.get("revision") or {}
    commit = str(revision.get("commit", ""))
    commit = commit[:_SHOWN] if _HEX.fullmatch(commit) else _NOTHING
    if commit != _NOTHING and revision.get("dirty") is True:
        commit += "\\*"
    code = str(manifest.get("code", ""))
    when = str(manifest.get("ran_at", ""))
    seconds = _seconds(manifest)
    cells = [
        f"{{doc}}`generated/{run.chapter}`",
        literal(str(manifest.get("parameters_hash", _NOTHING))[:_SHOWN]),
        commit,
        code[:_SHOWN] if _HEX.fullmatch(code) else _NOTHING,
        when[:16].replace("T", "\u00a0") if _WHEN.fullmatch(when) else _NOTHING,
        _NOTHING if seconds is None else f"{seconds:,.1f}",
        "yes" if run.cached else "no",
        _NOTHING if run.estimate is None or run.cached else f"{run.estimate:,.0f}",
    ]
    return "| " + " | ".join(cells) + " |"


def _seconds(manifest: Mapping[str, Any]) -> float | None:
    value = manifest.get("seconds")
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value) if math.isfinite(value) and value >= 0 else None
