"""Chunks on threads: every chunk once, errors raised, BLAS pinned to one thread and restored."""

from __future__ import annotations

import threading

import numpy as np
import pytest
from threadpoolctl import threadpool_info

from attncore.checks import ParameterError
from attncore.simulate.threads import (
    available_cores,
    resolve_threads,
    run_chunks,
    single_threaded_blas,
)


def blas_threads() -> list[int]:
    return [lib["num_threads"] for lib in threadpool_info() if lib["user_api"] == "blas"]


@pytest.mark.parametrize("threads", [1, 2, 3, 8])
def test_every_chunk_runs_once_with_one_buffer_per_thread(threads):
    seen, buffers_made = [], []
    lock = threading.Lock()

    def make_buffers():
        with lock:
            buffers_made.append(threading.get_ident())
        return np.empty(4)

    def task(index, buffer):
        buffer[:] = index
        with lock:
            seen.append((index, threading.get_ident()))

    run_chunks(task, n_chunks=5, threads=threads, make_buffers=make_buffers)
    assert sorted(index for index, _ in seen) == list(range(5))
    assert len(buffers_made) == min(threads, 5)
    assert {ident for _, ident in seen} <= set(buffers_made)


def test_no_chunk_makes_one_buffer_and_runs_nothing():
    made = []
    run_chunks(lambda i, b: made.append(i), n_chunks=0, threads=4, make_buffers=lambda: None)
    assert made == []


@pytest.mark.parametrize("threads", [1, 2])
def test_an_error_in_a_chunk_is_raised_and_stops_the_rest(threads):
    done = []

    def task(index, _):
        if index == 3:
            raise ValueError("chunk 3 failed")
        done.append(index)

    with pytest.raises(ValueError, match="chunk 3 failed"):
        run_chunks(task, n_chunks=1000, threads=threads, make_buffers=lambda: None)
    assert len(done) < 999


def test_blas_is_pinned_inside_and_restored_after_even_when_nested():
    before = blas_threads()
    with single_threaded_blas():
        assert set(blas_threads()) <= {1}
        with single_threaded_blas():
            assert set(blas_threads()) <= {1}
        assert set(blas_threads()) <= {1}
    assert blas_threads() == before


def test_threads_default_to_the_cores_and_are_checked():
    assert resolve_threads(None) == available_cores() >= 1
    assert resolve_threads(np.int64(2)) == 2
    with pytest.raises(ParameterError, match=r"^threads must be an integer >= 1, got True$"):
        resolve_threads(True)
