"""Random generators from seeds: the same seed gives bit-identical draws.

Every simulation in attncore takes a ``seed`` (an ``int``) or a ready
:class:`numpy.random.Generator`; :func:`make_rng` turns the first into the second
through a :class:`numpy.random.SeedSequence`, and :func:`spawn` derives independent
child generators (one per seed of a sweep) without overlapping streams.

>>> make_rng(1).standard_normal(2).tolist() == make_rng(1).standard_normal(2).tolist()
True
"""

from __future__ import annotations

import numpy as np

from attncore.checks import ParameterError

__all__ = ["SeedLike", "make_rng", "spawn", "stream"]

SeedLike = int | np.random.Generator


def make_rng(seed: SeedLike) -> np.random.Generator:
    """Return a PCG64 generator for ``seed`` (an int >= 0), or ``seed`` itself if a Generator.

    >>> float(make_rng(2023).uniform()) == float(make_rng(2023).uniform())
    True
    """
    if isinstance(seed, np.random.Generator):
        return seed
    if isinstance(seed, bool) or not isinstance(seed, int | np.integer) or seed < 0:
        raise ParameterError(f"seed must be an integer >= 0 or a numpy Generator, got {seed!r}")
    return np.random.Generator(np.random.PCG64(np.random.SeedSequence(int(seed))))


def spawn(seed: int, count: int) -> list[np.random.Generator]:
    """Return ``count`` independent generators derived from ``seed``.

    >>> a, b = spawn(7, 2)
    >>> bool(a.uniform() != b.uniform())
    True
    """
    if isinstance(seed, bool) or not isinstance(seed, int | np.integer) or seed < 0:
        raise ParameterError(f"seed must be an integer >= 0, got {seed!r}")
    if isinstance(count, bool) or not isinstance(count, int | np.integer) or count < 1:
        raise ParameterError(f"count must be an integer >= 1, got {count!r}")
    children = np.random.SeedSequence(int(seed)).spawn(int(count))
    return [np.random.Generator(np.random.PCG64(c)) for c in children]


def stream(seed: int, *key: int) -> np.random.Generator:
    """The generator of the task named by the integers ``key`` under ``seed``.

    A task's stream depends only on its own key, never on which other tasks run, in what
    order or on which worker, so a sweep gives the same numbers however it is split.

    >>> float(stream(1, 16, 0).uniform()) == float(stream(1, 16, 0).uniform())
    True
    >>> float(stream(1, 16, 0).uniform()) == float(stream(1, 16, 1).uniform())
    False
    """
    if isinstance(seed, bool) or not isinstance(seed, int | np.integer) or seed < 0:
        raise ParameterError(f"seed must be an integer >= 0, got {seed!r}")
    sequence = np.random.SeedSequence(int(seed), spawn_key=tuple(int(k) for k in key))
    return np.random.Generator(np.random.PCG64(sequence))
