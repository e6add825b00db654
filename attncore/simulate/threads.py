"""Chunks of work on every core, with results that do not depend on the number of threads.

:func:`run_chunks` hands chunk indices, in order, to a few threads; each thread owns its
work buffers and writes only its chunk's rows, so the result is the same whatever the
number of threads or the order in which chunks finish. numpy releases the GIL in large
elementwise passes, reductions and BLAS products, so the threads run at once.

:func:`single_threaded_blas` pins the BLAS library to one thread while it is entered:
OpenBLAS blocks a product's inner dimension differently with one thread than with two for
some sizes (e.g. ``(256 x 1000) @ (1000 x 4096)``), so a product that used every core
would give results that move in the last bits with the machine's core count. Threads of
our own, each calling a one-thread BLAS, keep every product the same and do not
oversubscribe the cores. The limit is process-wide (BLAS libraries have no per-thread
setting): it is taken by the first caller, kept while any caller is inside, and restored
by the last one, so concurrent callers in threads (e.g. a threaded Dask worker) are safe.

>>> import numpy as np
>>> squares = np.zeros(10)
>>> def fill(index, buffer):
...     rows = slice(3 * index, 3 * index + 3)
...     squares[rows] = np.arange(10.0)[rows] ** 2
>>> run_chunks(fill, n_chunks=4, threads=2, make_buffers=lambda: None)
>>> squares.tolist()[:4]
[0.0, 1.0, 4.0, 9.0]
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from typing import TypeVar

from threadpoolctl import ThreadpoolController

from attncore.checks import positive_int

__all__ = ["available_cores", "resolve_threads", "run_chunks", "single_threaded_blas"]

Buffers = TypeVar("Buffers")

_blas_lock = threading.Lock()
_blas_depth = 0
_blas_limit: object | None = None
_controller: ThreadpoolController | None = None


def available_cores() -> int:
    """Cores this process may run on (its CPU affinity where the system tells it).

    >>> available_cores() >= 1
    True
    """
    if hasattr(os, "sched_getaffinity"):
        return max(1, len(os.sched_getaffinity(0)))
    return max(1, os.cpu_count() or 1)


def resolve_threads(threads: int | None) -> int:
    """``threads`` checked (an integer >= 1), or :func:`available_cores` when ``None``.

    >>> resolve_threads(3)
    3
    >>> resolve_threads(0)
    Traceback (most recent call last):
    ...
    attncore.checks.ParameterError: threads must be an integer >= 1, got 0
    """
    return available_cores() if threads is None else positive_int("threads", threads)


@contextmanager
def single_threaded_blas() -> Iterator[None]:
    """BLAS limited to one thread while any caller is inside (re-entrant, thread-safe).

    >>> import numpy as np
    >>> with single_threaded_blas():
    ...     float((np.ones((2, 3)) @ np.ones(3)).sum())
    6.0
    """
    global _blas_depth, _blas_limit, _controller
    with _blas_lock:
        if _blas_depth == 0:
            if _controller is None:
                _controller = ThreadpoolController()
            _blas_limit = _controller.limit(limits=1, user_api="blas")
        _blas_depth += 1
    try:
        yield
    finally:
        with _blas_lock:
            _blas_depth -= 1
            if _blas_depth == 0 and _blas_limit is not None:
                _blas_limit.restore_original_limits()
                _blas_limit = None


def run_chunks(
    task: Callable[[int, Buffers], None],
    n_chunks: int,
    threads: int,
    make_buffers: Callable[[], Buffers],
) -> None:
    """``task(index, buffers)`` for every chunk index, on ``min(threads, n_chunks)`` threads.

    Each thread calls ``make_buffers()`` once and reuses what it returns for all its
    chunks, so memory grows with the number of threads, not with the number of chunks.
    Indices are handed out in increasing order as threads free up. ``task`` must write
    only its own chunk's part of the outputs. With one thread everything runs in the
    caller's thread. The first error stops the other threads after their current chunk
    and is raised here.
    """
    workers = max(1, min(threads, n_chunks))
    if workers == 1:
        buffers = make_buffers()
        for index in range(n_chunks):
            task(index, buffers)
        return
    indices = iter(range(n_chunks))
    lock = threading.Lock()
    stop = threading.Event()

    def work() -> None:
        buffers = make_buffers()
        while not stop.is_set():
            with lock:
                index = next(indices, None)
            if index is None:
                return
            try:
                task(index, buffers)
            except BaseException:
                stop.set()
                raise

    with ThreadPoolExecutor(max_workers=workers, thread_name_prefix="attncore") as pool:
        futures = [pool.submit(work) for _ in range(workers)]
        try:
            for future in futures:
                future.result()
        finally:
            stop.set()
