"""Attention metrics for many queries at BLAS speed, chunk by chunk of queries.

:func:`attention_metrics` computes, for each block of ``chunk_size`` queries, the scaled
logits with one BLAS product (the factor is folded into the small query block:
``(c Q_c) K^T``, or ``(g Q_c / ||q||) Khat^T`` for QK-norm), a stable softmax and every
row metric, reusing the same work buffers; the full ``n_queries x n_keys`` matrix never
exists. The entropy needs no logarithm per entry: with ``y = z - max z``,
``e = exp(y)`` and ``Z = sum e``, ``H = ln Z - sum(e y) / Z``; the largest probability is
``1 / Z``; the Jacobian norm is that of :func:`attncore.softmax.jacobian_frobenius`.

The gradient norm ``||ds/dq||`` needs two more products of the same size as the logits
(``s^T K`` and ``(s^2)^T K``), so it roughly triples the cost: it is opt-in
(``gradient=True``).

Chunks run on ``threads`` threads at once (default: every core), each thread with its own
work buffers and a one-thread BLAS (see :mod:`attncore.simulate.threads`): numpy releases
the GIL in the products and the elementwise passes, so the softmax and the metrics use
every core, not only the product. Chunks are cut by ``chunk_size`` alone and each writes
only its own rows, so the results are the same, bit for bit, whatever the number of
threads or of the machine's cores.

>>> rng = np.random.default_rng(0)
>>> Q, K = rng.standard_normal((6, 16)), rng.standard_normal((32, 16))
>>> result = attention_metrics(Q, K, "sqrt_d", chunk_size=4, columns=(0,))
>>> result.entropy.shape, result.columns.shape
((6,), (6, 1))
>>> bool((result.normalized_entropy <= 1.0).all())
True
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, DTypeLike

from attncore.checks import ParameterError, finite_array, positive_int
from attncore.measures import (
    SATURATION_THRESHOLD,
    _jk_frobenius_squared,
    _jy_squared,
    check_threshold,
    saturated_share,
)
from attncore.rescalings import Rescaling, get_rescaling, row_norms
from attncore.simulate.threads import resolve_threads, run_chunks, single_threaded_blas
from attncore.softmax import _jacobian_frobenius_rows

__all__ = ["AttentionMetrics", "attention_metrics", "default_chunk_size"]

_SPAN = 1e300
"""A shifted logit below ``-_SPAN`` has weight exactly 0; it is clipped there for the entropy."""

_CHUNK_ENTRIES = 1 << 20
"""Entries of one chunk of logits (8 MiB in float64): big enough for BLAS, small enough
for the elementwise passes to stay in cache."""


@dataclass(frozen=True)
class AttentionMetrics:
    """Per-row metrics of ``softmax(rescaled Q K^T)`` (one entry per query) and aggregates.

    ``gradient_norm`` is ``None`` unless requested; ``columns`` holds the probabilities of
    the keys ``column_indices`` (``n_queries x len(column_indices)``) or is ``None``.
    """

    entropy: np.ndarray
    normalized_entropy: np.ndarray
    effective_keys: np.ndarray
    max_probability: np.ndarray
    jacobian_frobenius: np.ndarray
    gradient_norm: np.ndarray | None
    columns: np.ndarray | None
    column_indices: tuple[int, ...]
    threshold: float
    rescaling: Rescaling
    factor: float

    @property
    def saturated_share(self) -> float:
        """Share of rows whose largest probability exceeds ``threshold``."""
        return saturated_share(self.max_probability, self.threshold)

    def aggregates(self) -> dict[str, float]:
        """Means over the rows of every per-row metric, and the share of saturated rows.

        >>> K = np.eye(4)
        >>> attention_metrics(np.zeros((3, 4)), K, "none").aggregates()["mean_effective_keys"]
        4.0
        """
        per_row = {
            "entropy": self.entropy,
            "normalized_entropy": self.normalized_entropy,
            "effective_keys": self.effective_keys,
            "max_probability": self.max_probability,
            "jacobian_frobenius": self.jacobian_frobenius,
        }
        if self.gradient_norm is not None:
            per_row["gradient_norm"] = self.gradient_norm
        means = {f"mean_{name}": float(values.mean()) for name, values in per_row.items()}
        return {**means, "saturated_share": self.saturated_share}


def default_chunk_size(n_queries: int, n_keys: int) -> int:
    """Queries per chunk: about 2^20 logits per chunk, at least 1, at most ``n_queries``.

    >>> default_chunk_size(10_000, 4096)
    256
    """
    return max(1, min(n_queries, _CHUNK_ENTRIES // n_keys))


@dataclass(frozen=True)
class _Buffers:
    """One thread's work buffers, reused for each of its chunks."""

    logits: np.ndarray
    shifted: np.ndarray
    probs: np.ndarray
    stacked: np.ndarray | None


def _float_dtype(dtype: DTypeLike) -> np.dtype:
    dt = np.dtype(dtype)
    if dt not in (np.dtype(np.float64), np.dtype(np.float32)):
        raise ParameterError(f"dtype must be float64 or float32, got {dt}")
    return dt


def _column_indices(columns: Sequence[int], n_keys: int) -> tuple[int, ...]:
    indices = tuple(positive_int("columns", c, minimum=0) for c in columns)
    for c in indices:
        if c >= n_keys:
            raise ParameterError(f"columns must be key indices in [0, {n_keys - 1}], got {c}")
    return indices


def attention_metrics(
    queries: ArrayLike,
    keys: ArrayLike,
    rescaling: str | Rescaling = "sqrt_d",
    *,
    chunk_size: int | None = None,
    dtype: DTypeLike = np.float64,
    threshold: float = SATURATION_THRESHOLD,
    gradient: bool = False,
    columns: Sequence[int] = (),
    threads: int | None = None,
) -> AttentionMetrics:
    """Row metrics of ``softmax(rescaling(Q, K))`` computed chunk by chunk of queries.

    ``dtype`` is the precision of the BLAS products (the dominant cost); the softmax and
    the metrics always run in float64 on each chunk. ``threshold`` defines a saturated
    row (largest probability above it). ``gradient=True`` adds ``||ds/dq||_F`` per row,
    including the rescaling's factor (see :mod:`attncore.measures`). ``columns`` selects
    keys whose probabilities are returned, e.g. ``(0,)`` for the first component.
    ``threads`` is the number of chunks computed at once (default: the cores this process
    may use); it changes the speed, never a bit of the results.

    Memory, besides the inputs and the per-row outputs, is bounded by the chunk size times
    the number of threads: each thread holds about ``b x chunk_size x n_keys`` float64
    entries, ``b`` about 2 to 3 without the gradient and 4 to 7 with it (QK-norm's
    gradient needs the most); with the default chunk of 2^20 logits, 16-24 MiB per thread
    without the gradient and at most about 56 MiB with it (measured with tracemalloc).

    >>> K = np.array([[1.0, 0.0], [0.0, 1.0]])
    >>> r = attention_metrics([[1.0, 0.0], [0.0, 0.0]], K, "none", gradient=True)
    >>> r.max_probability.round(4).tolist(), r.gradient_norm.round(4).tolist()
    ([0.7311, 0.5], [0.3932, 0.5])
    >>> attention_metrics([[1.0, 0.0]], [[0.0, 0.0], [0.0, 0.0]], "k_total")
    Traceback (most recent call last):
    ...
    attncore.checks.ParameterError: k_total must be a finite real number > 0, got 0.0
    """
    q = finite_array("queries", queries, ndim=2)
    k = finite_array("keys", keys, ndim=2).astype(np.float64, copy=False)
    (m, d), n = q.shape, k.shape[0]
    if k.shape[1] != d:
        raise ParameterError(f"keys must have as many columns as queries ({d}), got {k.shape[1]}")
    positive_int("n_keys", n, minimum=2)
    rescaling = get_rescaling(rescaling)
    chunk = (
        default_chunk_size(m, n) if chunk_size is None else positive_int("chunk_size", chunk_size)
    )
    chunk = min(chunk, m)
    dt = _float_dtype(dtype)
    threshold = check_threshold(threshold)
    if not isinstance(gradient, bool):
        raise ParameterError(f"gradient must be True or False, got {gradient!r}")
    indices = _column_indices(columns, n)
    workers = resolve_threads(threads)
    factor = rescaling.factor_for(k)

    if rescaling.cosine:
        k = k / row_norms("keys", k)[:, None]
        # checked here for every row, so an error names the row of the whole input
        query_scale = factor / row_norms("queries", q)
    else:
        query_scale = None
    with np.errstate(over="ignore"):  # keys too large for dt overflow the logits, reported there
        keys_t = k.astype(dt).T
        key_sq_norms = np.einsum("ij,ij->i", k, k).astype(dt)
    log_n = np.log(n)

    out = {name: np.empty(m) for name in ("entropy", "effective", "top", "jacobian")}
    grad = np.empty(m) if gradient else None
    picked = np.empty((m, len(indices))) if indices else None

    def buffers() -> _Buffers:
        logits = np.empty((chunk, n), dt)
        return _Buffers(
            logits=logits,
            shifted=logits if dt == np.float64 else np.empty((chunk, n)),
            probs=np.empty((chunk, n)),
            stacked=np.empty((2 * chunk, n), dt) if gradient else None,
        )

    def one_chunk(index: int, work: _Buffers) -> None:
        start = index * chunk
        stop = min(start + chunk, m)
        rows = stop - start
        with np.errstate(over="ignore"):  # an overflow shows in the logits, reported below
            if query_scale is None:
                q_chunk = q[start:stop] * factor
            else:
                q_chunk = q[start:stop] * query_scale[start:stop, None]
        z, y, p = work.logits[:rows], work.shifted[:rows], work.probs[:rows]
        with np.errstate(over="ignore", invalid="ignore"):  # overflow is reported just below
            np.matmul(q_chunk.astype(dt, copy=False), keys_t, out=z)
        top = z.max(axis=1, keepdims=True)
        if not np.isfinite(top).all():  # a logit overflowed the dtype (inf or nan)
            row = start + int(np.flatnonzero(~np.isfinite(top[:, 0]))[0])
            raise ParameterError(
                f"the scaled logits of query {row} overflow {np.dtype(dt).name}; "
                "scale the queries or keys down, or use float64"
            )
        with np.errstate(over="ignore"):  # a logit below -max of the dtype: its weight is 0
            np.subtract(z, top, out=y, dtype=y.dtype)
        np.exp(y, out=p)
        total = p.sum(axis=1)
        inverse = 1.0 / total
        with np.errstate(invalid="ignore"):  # 0 * -inf, mended below
            entropy = np.log(total) - np.einsum("ij,ij->i", p, y) * inverse
        spread = ~np.isfinite(entropy)  # rows whose logits span more than the dtype's range
        if spread.any():
            clipped = np.maximum(y[spread], -_SPAN)  # exp(-_SPAN) is 0: the weights stay put
            entropy[spread] = np.log(total[spread]) - (
                np.einsum("ij,ij->i", p[spread], clipped) * inverse[spread]
            )
        out["entropy"][start:stop] = entropy
        out["top"][start:stop] = inverse
        p *= inverse[:, None]
        out["effective"][start:stop] = 1.0 / np.einsum("ij,ij->i", p, p)
        if picked is not None:
            picked[start:stop] = p[:, indices]
        if grad is not None:
            jk2 = _jk_frobenius_squared(p, keys_t.T, key_sq_norms, work.stacked)
            if query_scale is not None:
                jk2 = np.maximum(jk2 - _jy_squared(p, y) / factor**2, 0.0)
                grad[start:stop] = np.abs(query_scale[start:stop]) * np.sqrt(jk2)
            else:
                grad[start:stop] = abs(factor) * np.sqrt(jk2)
        # last, because it sets the row maxima of p to 0 in place
        out["jacobian"][start:stop] = _jacobian_frobenius_rows(p, overwrite=True)

    with single_threaded_blas():
        run_chunks(one_chunk, -(-m // chunk), workers, buffers)

    return AttentionMetrics(
        entropy=out["entropy"],
        normalized_entropy=out["entropy"] / log_n,
        effective_keys=out["effective"],
        max_probability=out["top"],
        jacobian_frobenius=out["jacobian"],
        gradient_norm=grad,
        columns=picked,
        column_indices=indices,
        threshold=threshold,
        rescaling=rescaling,
        factor=factor,
    )
