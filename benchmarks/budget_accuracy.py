"""The budget estimates against measured time and memory: every chapter of the book, one profile.

For each chapter of the table of contents, :func:`attncore.book.budget.estimate` is computed
from the profile's parameters, then the chapter is executed (no cache) into a scratch folder,
in a process of its own (as ``attncore run`` would), and its wall time and peak memory
measured. The peak is the largest sum of the resident memory of every process that one
starts (the kernel, the workers of a local cluster), sampled every 50 ms: what the machine
must have free besides the command itself, which is what the budget compares its estimate
with. Printed, for time and for memory: estimate,
measured, and their ratio. A time estimate is an order of magnitude (a ratio between 1/3 and
3 is what it promises on an idle machine); a memory estimate must not fall below the peak (a
run that needs more than is free is refused on the estimate) and should stay within 1.5 times
it. The load average is printed at the start and the end, since a shared machine slows every
run (it does not change the memory).

``--extreme`` adds the extreme but valid runs that once outgrew their estimate (long test
strings with many seeds, say), each run the same way.

Run ``.venv/bin/python benchmarks/budget_accuracy.py --profile smoke`` (about 3 minutes) or
``--profile full`` (about 12 minutes on 2 cores).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

import psutil

from attncore.book.budget import estimate
from attncore.book.build import PROFILES, load_profile, toc_chapters

EXTREME = [
    ("length_generalization", {"n_seeds": 5, "steps": 10, "test_lengths": [10, 1_000_000]}),
    ("length_generalization", {"n_seeds": 50, "steps": 10, "test_lengths": [10, 1_000_000]}),
    ("softmax_saturation", {"n_keys": 65536, "n_rows": 2000, "n_spreads": 4, "n_slope_seeds": 2}),
    ("critical_scale", {"n_values": [16, 16384], "n_draws": 2, "n_gamma": 8, "d": 2048}),
]
"""Extreme but valid runs: ``(chapter, parameters)``, the profile's defaults filling the rest."""

_CHILD = """
import json, sys
from pathlib import Path
from attncore.book.runner import run_chapter
run_chapter(sys.argv[1], json.loads(sys.argv[2]), Path(sys.argv[3]))
"""


def measure(chapter: str, values: dict, scratch: str) -> tuple[float, float]:
    """Wall seconds and peak bytes (the whole process tree, sampled) of one run in a fresh
    process."""
    start = time.perf_counter()
    child = subprocess.Popen(
        [sys.executable, "-c", _CHILD, chapter, json.dumps(values), scratch],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    root, peak = psutil.Process(child.pid), 0
    while child.poll() is None:
        try:
            tree = root.children(recursive=True)
        except psutil.NoSuchProcess:
            break
        total = 0
        for process in tree:
            try:
                total += process.memory_info().rss
            except psutil.NoSuchProcess:
                pass
        peak = max(peak, total)
        time.sleep(0.05)
    took = time.perf_counter() - start
    if child.wait() != 0:
        raise SystemExit(f"{chapter} failed: {child.stderr.read().decode()[-2000:]}")
    return took, peak


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--profile", choices=PROFILES, default="smoke")
    parser.add_argument("--extreme", action="store_true", help="add the extreme runs")
    parser.add_argument("--only", nargs="*", default=None, help="chapters to measure")
    args = parser.parse_args()
    runs = [(c, load_profile(c, args.profile)) for c in toc_chapters()]
    runs = [r for r in runs if args.only is None or r[0] in args.only]
    if args.extreme:
        runs += [(c, {**load_profile(c, args.profile), **p}) for c, p in EXTREME]
    print(f"load average at start: {os.getloadavg()[0]:.2f}")
    print(f"{'chapter':<24} {'time est':>8} {'measured':>8} {'ratio':>6}   "
          f"{'MiB est':>8} {'peak':>8} {'ratio':>6}")  # fmt: skip
    worst = 0.0
    with tempfile.TemporaryDirectory() as scratch:
        for chapter, values in runs:
            guess = estimate(chapter, values)
            took, peak = measure(chapter, values, scratch)
            worst = max(worst, peak / guess.bytes)
            mib = 2**20
            print(
                f"{chapter:<24} {guess.seconds:>7.0f}s {took:>7.0f}s {guess.seconds / took:>6.2f}"
                f"   {guess.bytes / mib:>8.0f} {peak / mib:>8.0f} {guess.bytes / peak:>6.2f}",
                flush=True,
            )
    print(f"load average at end: {os.getloadavg()[0]:.2f}")
    print(f"largest peak over its estimate: {worst:.2f} (at most 1 keeps every refusal sound)")


if __name__ == "__main__":
    main()
