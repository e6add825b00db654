"""The budget estimates against measured times: every chapter of the book, one profile.

For each chapter of the table of contents, :func:`attncore.book.budget.estimate` is computed
from the profile's parameters, then the chapter is executed (no cache) into a scratch folder
and its wall time measured. Printed: estimate, measured, and their ratio (an estimate is an
order of magnitude; a ratio between 1/3 and 3 is what it promises on an idle machine). The
load average is printed at the start and the end, since a shared machine slows every run.

Run ``.venv/bin/python benchmarks/budget_accuracy.py --profile smoke`` (about 3 minutes) or
``--profile full`` (about 10 minutes on 2 cores).
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from pathlib import Path

from attncore.book.budget import estimate
from attncore.book.build import PROFILES, load_profile, toc_chapters
from attncore.book.runner import run_chapter


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--profile", choices=PROFILES, default="smoke")
    args = parser.parse_args()
    print(f"load average at start: {os.getloadavg()[0]:.2f}")
    print(f"{'chapter':<24} {'estimate':>9} {'measured':>9} {'ratio':>6}")
    with tempfile.TemporaryDirectory() as scratch:
        for chapter in toc_chapters():
            values = load_profile(chapter, args.profile)
            guess = estimate(chapter, values).seconds
            start = time.perf_counter()
            run_chapter(chapter, values, Path(scratch))
            took = time.perf_counter() - start
            print(f"{chapter:<24} {guess:>8.0f}s {took:>8.0f}s {guess / took:>6.2f}")
    print(f"load average at end: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
