"""Speed and memory of :func:`attncore.engine.attention_metrics`, printed as ratios.

1. 10,000 queries x 4,096 keys x d = 1,024: the engine (logits, rescaling 1/sqrt(d) or
   1/k_total, stable softmax, all row metrics; with and without the opt-in gradient norm)
   against the bare ``Q @ K.T`` measured in the same run, in float64 and float32, for
   1, 2, 4, ... threads up to the cores (``--threads 1,2,4`` to choose): the engine runs
   chunks of queries on its own threads, each with a one-thread BLAS, while the bare
   matmul uses numpy's BLAS on every core. The load average is printed at the start and
   the end: on a shared machine the ratios move with it. The CPU seconds of this process
   (all threads) and the cores kept busy (CPU / wall) show whether the threads ran at
   once; OpenBLAS threads spin while they wait, so the bare matmul's CPU time is an upper
   bound and the CPU ratio roughly a lower bound of the wall ratio on idle cores.
2. The same workload against a plain per-query loop (what the reference R code does), timed
   on a subset of the queries and extrapolated.
3. 100,000 queries x 4,096 keys x d = 256 in a fresh process (run first, printed last),
   with its peak RSS.

Run ``.venv/bin/python benchmarks/engine_speed.py`` (``--scale 0.05`` for a quick smoke
run with every size scaled down). Times are the best of ``--repeat`` runs.
"""

from __future__ import annotations

import argparse
import math
import os
import resource
import subprocess
import sys
import time
from collections.abc import Callable
from functools import partial

import numpy as np

from attncore.random import make_rng
from attncore.rescalings import get_rescaling
from attncore.simulate.engine import attention_metrics
from attncore.simulate.threads import available_cores


def best_time(run: Callable[[], object], repeat: int) -> float:
    return best_times(run, repeat)[0]


def best_times(run: Callable[[], object], repeat: int) -> tuple[float, float]:
    """Wall and CPU seconds (this process, every thread) of the fastest of ``repeat`` runs."""
    times = []
    for _ in range(repeat):
        start, cpu = time.perf_counter(), time.process_time()
        run()
        times.append((time.perf_counter() - start, time.process_time() - cpu))
    return min(times)


def scaled(size: int, scale: float) -> int:
    return max(2, round(size * scale))


def loop_reference(queries: np.ndarray, keys: np.ndarray, factor: float, gradient: bool) -> None:
    """One query at a time, as the reference R code does, with the same row metrics."""
    for q in queries:
        z = factor * (keys @ q)
        e = np.exp(z - z.max())
        s = e / e.sum()
        entropy = -np.sum(s * np.log(np.where(s > 0, s, 1.0)))
        p2, p3 = s @ s, s @ (s * s)
        (entropy, 1 / p2, s.max(), math.sqrt(max(p2 - 2 * p3 + p2 * p2, 0.0)))
        if gradient:
            np.linalg.norm(factor * s[:, None] * (keys - s @ keys))


def blas_threads() -> int:
    """Threads numpy's BLAS uses outside the engine (the bare matmul's)."""
    from threadpoolctl import threadpool_info

    counts = [lib["num_threads"] for lib in threadpool_info() if lib["user_api"] == "blas"]
    return max(counts, default=1)


def speed(scale: float, repeat: int, thread_counts: list[int]) -> dict:
    m, n, d = scaled(10_000, scale), scaled(4_096, scale), scaled(1_024, scale)
    cores = available_cores()
    print(
        f"1. {m} queries x {n} keys x d = {d}, best of {repeat}, {cores} cores, "
        f"load average {os.getloadavg()[0]:.1f} at the start; bare matmul on "
        f"{blas_threads()} BLAS threads, the engine on `threads` threads of one BLAS thread"
    )
    engine_seconds = {}
    ratios = {}
    for dtype in (np.float64, np.float32):
        rng = make_rng(0)
        queries = rng.standard_normal((m, d)).astype(dtype)
        keys = rng.standard_normal((n, d)).astype(dtype)
        bare, bare_cpu = best_times(partial(np.matmul, queries, keys.T), repeat)
        logits = np.empty((m, n), dtype)
        blas = best_time(partial(np.matmul, queries, keys.T, out=logits), repeat)
        del logits
        dt = np.dtype(dtype).name
        print(
            f"   {dt}: bare Q @ K.T {bare:.3f} s, CPU {bare_cpu:.3f} s "
            f"(into a preallocated output: {blas:.3f} s)"
        )
        runs = [("sqrt_d", threads) for threads in thread_counts]
        runs += [("k_total", cores)]
        for name, threads in runs:
            for gradient in (False, True):
                run = partial(
                    attention_metrics,
                    queries,
                    keys,
                    name,
                    dtype=dtype,
                    gradient=gradient,
                    threads=threads,
                )
                seconds, cpu = best_times(run, repeat)
                engine_seconds[dt, name, gradient, threads] = seconds
                ratios[dt, name, gradient, threads] = seconds / bare
                print(
                    f"     {name:8} threads={threads:<2} gradient={gradient!s:5}  "
                    f"{seconds:7.3f} s  ratio to bare matmul {seconds / bare:.2f} "
                    f"(to preallocated {seconds / blas:.2f}); CPU {cpu:.3f} s, "
                    f"{cpu / seconds:.1f} cores busy, CPU ratio {cpu / bare_cpu:.2f}"
                )
    worst = max(
        ratio
        for (_, _, gradient, threads), ratio in ratios.items()
        if threads == cores and not gradient
    )
    print(
        f"   engine / bare matmul on all {cores} cores, without the gradient: at most "
        f"{worst:.2f} (issue 12's target: at most 2 on 2 cores, 2.5 on 16); "
        f"load average {os.getloadavg()[0]:.1f} at the end"
    )

    subset = max(1, m // 50)
    rng = make_rng(1)
    queries, keys = rng.standard_normal((subset, d)), rng.standard_normal((n, d))
    factor = get_rescaling("k_total").factor_for(keys)
    print(f"2. per-query loop on {subset} queries, extrapolated to {m} (float64, k_total)")
    for gradient in (False, True):
        run = partial(loop_reference, queries, keys, factor, gradient)
        loop = best_time(run, 1) * m / subset
        engine = engine_seconds["float64", "k_total", gradient, available_cores()]
        print(
            f"     gradient={gradient!s:5}  loop {loop:7.2f} s  engine {engine:6.3f} s  "
            f"loop / engine {loop / engine:.1f}"
        )


def peak_rss_mib() -> float:
    """Peak resident set size of this process: VmHWM (reset by exec, unlike ru_maxrss,
    which a child inherits from its parent) where /proc exists, else ru_maxrss."""
    try:
        with open("/proc/self/status") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def memory_child(scale: float) -> None:
    m, n, d = scaled(100_000, scale), scaled(4_096, scale), scaled(256, scale)
    rng = make_rng(2)
    before = peak_rss_mib()
    queries, keys = rng.standard_normal((m, d)), rng.standard_normal((n, d))
    for gradient in (False, True):
        start = time.perf_counter()
        attention_metrics(queries, keys, "k_total", gradient=gradient, columns=(0,))
        seconds = time.perf_counter() - start
        print(
            f"3. {m} queries x {n} keys x d = {d}, float64, k_total, gradient={gradient}: "
            f"{seconds:.2f} s, peak RSS so far {peak_rss_mib():.0f} MiB"
        )
    print(
        f"     Q alone {queries.nbytes / 2**20:.0f} MiB; interpreter and imports {before:.0f} MiB;"
        f" limit 1536 MiB {'met' if peak_rss_mib() < 1536 else 'NOT met'}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scale", type=float, default=1.0, help="scale every size (default 1)")
    parser.add_argument("--repeat", type=int, default=2, help="runs per timing (default 2)")
    parser.add_argument(
        "--threads",
        default=None,
        help="comma-separated engine thread counts to time (default 1, 2, ... up to the cores)",
    )
    parser.add_argument("--memory-child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.memory_child:
        memory_child(args.scale)
        return
    memory = subprocess.run(
        [sys.executable, __file__, "--memory-child", "--scale", str(args.scale)],
        check=True,
        capture_output=True,
        text=True,
    )
    cores = available_cores()
    if args.threads is None:
        powers = (2**k for k in range(cores.bit_length()))
        thread_counts = sorted({*powers, cores})
    else:
        thread_counts = [int(t) for t in args.threads.split(",")]
    speed(args.scale, args.repeat, thread_counts)
    print(memory.stdout, end="")


if __name__ == "__main__":
    main()
