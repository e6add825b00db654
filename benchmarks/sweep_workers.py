"""Two sweeps of the book on 1 and 2 Dask workers, printed as times and ratios.

1. Bernhard's seeds: :func:`attncore.sources.bernhard.sweep` over ``--seeds`` draws of the
   six panels at the published sizes (500 queries, 32 keys, d = 16 and 256), the spread
   over seeds of the ``bernhard_figures`` chapter (200 draws in its full profile).
2. The every_rescaling grid: :func:`attncore.simulate.sweep.rescaling_sweep` of every
   rescaling of the study over the chapter's standard normal grid (d in 16..1024, n in
   8..4096, 200 queries, 3 draws: 105 draws in float32, without gradients).

Each sweep runs in a plain loop (``synchronous``, one core), then on a
:class:`distributed.LocalCluster` on loopback: one worker process with one thread, two
worker processes with one thread each, and one worker process with two threads. Every
time is the best of ``--repeat`` runs (the machine may be shared: the load average is
printed at the start and the end); the cluster's start is timed apart, once per layout.
Every run's tables are checked equal, byte for byte as CSV, to the plain loop's.

Run ``.venv/bin/python benchmarks/sweep_workers.py`` (``--seeds 40 --repeat 1`` for a quick
look).
"""

from __future__ import annotations

import argparse
import os
import time
from collections.abc import Callable

import numpy as np
import pandas as pd

from attncore.random import spawn
from attncore.simulate.study import NORMAL, study_families, study_rescalings
from attncore.simulate.sweep import rescaling_sweep
from attncore.simulate.tasks import start_local_cluster
from attncore.sources import bernhard

LAYOUTS = {
    "1 process": None,
    "cluster 1 worker x 1 thread": (1, 1),
    "cluster 2 workers x 1 thread": (2, 1),
    "cluster 1 worker x 2 threads": (1, 2),
}


def bernhard_seeds(seeds: int) -> Callable[[object], list[pd.DataFrame]]:
    def run(scheduler: object) -> list[pd.DataFrame]:
        return list(bernhard.sweep(spawn(1000, seeds), scheduler=scheduler))

    return run


def rescaling_grid(scheduler: object) -> list[pd.DataFrame]:
    table = rescaling_sweep(
        {NORMAL: study_families()[NORMAL]},
        study_rescalings(),
        [16, 32, 64, 128, 256, 512, 1024],
        [8, 32, 128, 512, 4096],
        n_queries=200,
        n_seeds=3,
        seed=20231121,
        dtype=np.float32,
        scheduler=scheduler,
    )
    return [table]


def best(run: Callable[[], list[pd.DataFrame]], repeat: int) -> tuple[float, list[pd.DataFrame]]:
    times, out = [], []
    for _ in range(repeat):
        start = time.perf_counter()
        out = run()
        times.append(time.perf_counter() - start)
    return min(times), out


def csv_bytes(tables: list[pd.DataFrame]) -> list[bytes]:
    return [t.to_csv().encode() for t in tables]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=200, help="draws of Bernhard's panels")
    parser.add_argument("--repeat", type=int, default=3, help="runs per time (the best is kept)")
    args = parser.parse_args()
    from distributed import Client

    sweeps = {
        f"Bernhard's seeds ({args.seeds} draws)": bernhard_seeds(args.seeds),
        "every_rescaling grid (105 draws)": rescaling_grid,
    }
    print(f"load average at the start: {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores")
    times: dict[tuple[str, str], float] = {}
    reference: dict[str, list[bytes]] = {}
    starts: dict[str, float] = {}
    for layout, shape in LAYOUTS.items():
        cluster = client = None
        scheduler: object = "synchronous"
        if shape is not None:
            start = time.perf_counter()
            cluster = start_local_cluster(workers=shape[0], threads=shape[1])
            client = Client(cluster)
            starts[layout] = time.perf_counter() - start
            scheduler = client
        try:
            for name, sweep in sweeps.items():
                seconds, tables = best(lambda s=sweep, c=scheduler: s(c), args.repeat)
                times[name, layout] = seconds
                got = csv_bytes(tables)
                if name not in reference:
                    reference[name] = got
                elif got != reference[name]:
                    raise SystemExit(f"{name} on {layout}: tables differ from the plain loop")
        finally:
            if client is not None:
                client.close()
            if cluster is not None:
                cluster.close()
    print(f"load average at the end: {os.getloadavg()[0]:.2f}")
    print(f"\nbest of {args.repeat} runs, seconds (ratio: the plain loop's time over this one)")
    width = max(len(layout) for layout in LAYOUTS)
    for name in sweeps:
        print(f"\n{name}")
        serial = times[name, "1 process"]
        for layout in LAYOUTS:
            seconds = times[name, layout]
            print(f"  {layout:<{width}}  {seconds:7.2f} s  x{serial / seconds:4.2f}")
    print("\ncluster start (once per layout):")
    for layout, seconds in starts.items():
        print(f"  {layout:<{width}}  {seconds:7.2f} s")
    print("\nevery table identical to the plain loop's, byte for byte as CSV")


if __name__ == "__main__":
    main()
