"""A transformer for FIRST built by hand, with and without layer normalization: the mechanism
by which Chiang and Cholak (chiang2022overcoming) bring the cross-entropy arbitrarily close to
zero at any length, against Hahn's lemma that a change of one input symbol moves the output
by O(1/n).

The network (the book's, in the spirit of their construction, not their weights) reads a
bit string ``w_1 ... w_n`` after a [CLS] position whose embedding is zero. Each position
``i`` carries ``(w_i, [i = 1], c_i, o+, o-)``; a feed-forward layer writes
``c_i = ReLU(w_i + [i = 1] - 1)`` (1 only where the first bit is 1), and one attention head,
query bias 1 against key ``[i = 1]``, gives position 1 the logit 1 and every other position 0,
so its weight at [CLS] is ``e / (e + n)``. Its value ``c_i - [i = 1] / 2`` is zero except at
position 1, where it is ``w_1 - 1/2``; it is written to ``o+`` and its negative to ``o-``.
[CLS]'s residual is then ``h (0, 0, 0, 1, -1)`` with ``h = (w_1 - 1/2) e / (e + n)``. The
classifier's logit is ``scale (o+ - o-) / 2`` of that vector, or of its layer normalization
(mean and variance over the five entries, ``eps`` added to the variance). Without it the logit
shrinks like 1/n; with it and ``eps = 0`` the vector is ``sign(h)`` times a fixed one whatever
n, so the cross-entropy depends on ``scale`` alone and goes to 0 as ``scale`` grows.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from attncore.checks import ParameterError, positive_int
from attncore.random import stream

__all__ = ["TORCH_EPS", "WIDTH", "closed_form", "cross_entropy_table", "first_logits"]

WIDTH = 5
"""The entries of every position: ``w``, ``[i = 1]``, ``c``, ``o+``, ``o-``."""

TORCH_EPS = 1e-5
"""PyTorch's default ``eps`` of ``nn.LayerNorm``, which the trained models of the book use."""

_STRINGS = 16
"""Random strings scored per length (half of them start with 1); every string of a length
gives the same logit as the others with its first bit, which the test checks."""


_STREAM = 71
"""The key of the strings' random stream under the seed (with the length)."""


def _layer_norm(x: np.ndarray, eps: float) -> np.ndarray:
    centred = x - x.mean(axis=-1, keepdims=True)
    variance = (centred**2).mean(axis=-1, keepdims=True)
    with np.errstate(invalid="ignore", divide="ignore"):
        normed = centred / np.sqrt(variance + eps)
    return np.nan_to_num(normed)  # a zero vector with eps = 0 stays zero


def first_logits(
    bits: np.ndarray, scale: float, *, layer_norm: bool, eps: float = 0.0
) -> np.ndarray:
    """The classifier's logit for each string of ``bits`` (``strings x n`` of 0 and 1): the
    network's forward pass at [CLS], position by position (each entry of the positions' vectors
    an array of its own).

    >>> first_logits(np.array([[1, 0, 0], [0, 1, 1]]), 2.0, layer_norm=True).round(4).tolist()
    [3.1623, -3.1623]
    """
    strings, n = bits.shape
    w = bits.astype(float)
    at_first = (np.arange(n) == 0).astype(float)[None, :]
    c = np.maximum(w + at_first - 1.0, 0.0)  # the feed-forward layer
    # the head at [CLS]: query bias 1 against key [i = 1]; [CLS] (logit 0, value 0) sees itself
    logits = np.concatenate([np.zeros((1, 1)), at_first], axis=1)
    weights = np.exp(logits - logits.max())
    weights /= weights.sum()
    values = c - at_first / 2
    h = values @ weights[0, 1:]
    cls = np.zeros((strings, WIDTH))
    cls[:, 3], cls[:, 4] = h, -h  # the head's output, added to [CLS]'s zero embedding
    out = _layer_norm(cls, eps) if layer_norm else cls
    return scale * (out[:, 3] - out[:, 4]) / 2


def _bits_of_cross_entropy(logits: np.ndarray, labels: np.ndarray) -> float:
    """The mean cross-entropy in bits of a logistic classifier's ``logits`` on ``labels``."""
    signed = np.where(labels == 1, logits, -logits)
    return float(np.mean(np.logaddexp(0.0, -signed)) / np.log(2.0))


def closed_form(length: int, scale: float, *, layer_norm: bool, eps: float = 0.0) -> float:
    """The cross-entropy in bits at ``length`` from the formula of the module's docstring (the
    independent route to :func:`cross_entropy_table`).

    >>> round(closed_form(10**6, 1.0, layer_norm=False), 4)
    1.0
    """
    h = 0.5 * np.e / (np.e + length)
    z = scale * h
    if layer_norm:
        z = scale * h / np.sqrt(2 * h**2 / WIDTH + eps)
    return float(np.logaddexp(0.0, -z) / np.log(2.0))


def cross_entropy_table(
    lengths: Sequence[int], scales: Sequence[float], eps: float, seed: int = 0
) -> pd.DataFrame:
    """The cross-entropy (bits per string) of the constructed network on random strings of
    each length, at each output scale, without layer normalization and with it (``eps``).
    Columns ``length, scale, layer_norm, eps, cross_entropy, accuracy``.

    >>> table = cross_entropy_table([10, 1000], [1.0, 30.0], eps=0.0)
    >>> bool(table.query("layer_norm and scale == 30").cross_entropy.max() < 1e-15)
    True
    """
    lengths = [positive_int("lengths", n, minimum=2) for n in lengths]
    if not scales or any(not np.isfinite(s) or s <= 0 for s in scales):
        raise ParameterError(f"scales must be finite and > 0, got {list(scales)!r}")
    if not np.isfinite(eps) or eps < 0:
        raise ParameterError(f"eps must be finite and >= 0, got {eps!r}")
    rows = []
    for n in lengths:
        rng = stream(seed, _STREAM, n)
        bits = rng.integers(0, 2, size=(_STRINGS, n))
        bits[:, 0] = np.arange(_STRINGS) % 2
        for layer_norm in (False, True):
            for scale in scales:
                z = first_logits(bits, float(scale), layer_norm=layer_norm, eps=eps)
                rows.append({
                    "length": n, "scale": float(scale), "layer_norm": layer_norm, "eps": eps,
                    "cross_entropy": _bits_of_cross_entropy(z, bits[:, 0]),
                    "accuracy": float(np.mean((z > 0) == (bits[:, 0] == 1))),
                })  # fmt: skip
    return pd.DataFrame(rows)
