"""The "first component" of vector attention, as intended and as published.

Bernhard's figures plot the first component of the rescaled vector attention over 500
queries: as intended, ``s(q_i)_1`` for every query ``i``, i.e. column 0 of the
``n_queries x n_keys`` attention matrix. His R code (package ``attnsims``) collects the
per-query vectors one after another and refills them into an ``n_queries x n_keys``
matrix column by column (R's ``matrix(..., nrow = n_queries)``) without a transpose; the
plotted column 0 then holds the row-major flattening's first ``n_queries`` entries: for
32 keys and 500 queries, all 32 entries of queries 1 to 15 and the first 20 of query 16.
The marginal distribution is the same, the sample is not (it mixes keys and reuses 16
queries).

>>> A = np.arange(6.0).reshape(3, 2)
>>> first_component(A).tolist(), first_component(A, as_published=True).tolist()
([0.0, 2.0, 4.0], [0.0, 1.0, 2.0])
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from attncore.checks import finite_array

__all__ = ["BERNHARD_PANELS", "FirstComponent", "first_component", "published_matrix"]


def published_matrix(attention: ArrayLike) -> np.ndarray:
    """The matrix the reference R code ends up with: the per-query rows of ``attention``
    (``n_queries x n_keys``) concatenated and refilled column by column.

    >>> published_matrix(np.arange(6.0).reshape(3, 2)).tolist()
    [[0.0, 3.0], [1.0, 4.0], [2.0, 5.0]]
    """
    a = finite_array("attention", attention, ndim=2)
    return np.reshape(a.ravel(order="C"), a.shape, order="F")


def first_component(attention: ArrayLike, *, as_published: bool = False) -> np.ndarray:
    """Column 0 of ``attention`` (``n_queries x n_keys``), or of the R code's refilled
    matrix if ``as_published``.

    >>> first_component([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], as_published=True).tolist()
    [1.0, 2.0]
    """
    a = finite_array("attention", attention, ndim=2)
    return (published_matrix(a) if as_published else a)[:, 0].copy()


@dataclass(frozen=True)
class FirstComponent:
    """One panel's first component over the queries, as intended and as published."""

    intended: np.ndarray
    published: np.ndarray


BERNHARD_PANELS: dict[str, tuple[int, str | None]] = {
    "1a": (16, None),
    "1b": (16, "none"),
    "1c": (16, "sqrt_d"),
    "2a": (256, None),
    "2b": (256, "sqrt_d"),
    "2c": (256, "k_total"),
}
"""Bernhard's Figures 1 and 2: panel -> (d, rescaling), ``None`` for raw dot products.
:func:`attncore.bernhard.draw_panels` draws them."""
