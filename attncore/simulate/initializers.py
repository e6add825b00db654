"""Query and key projections as common libraries initialize them, measured on unit-variance
tokens.

The blog (pranay2025why, "Logic") says weights are "typically" drawn with zero mean and unit
variance; Chuang (chuang2023scaling, section 1) says a standard implementation initializes
``W_q``, ``W_k`` so that the entries of ``Q`` and ``K`` have unit variance, zero means and
zero covariances. This module draws the weights as the common defaults do, **re-implemented
in numpy from their documented formulas** (no deep-learning library is called), feeds them
standard normal tokens (what a LayerNorm with unit gain hands to the projections) and
measures the moments those two sentences are about.

The initializers (:data:`INITIALIZERS`), for ``W`` mapping ``d_x`` inputs to ``d_out``
outputs:

- ``torch_linear``: PyTorch ``nn.Linear(d_x, d_out)``. ``reset_parameters`` calls
  ``kaiming_uniform_(weight, a=sqrt(5))``: gain ``sqrt(2 / (1 + a^2)) = sqrt(1/3)``, bound
  ``gain * sqrt(3 / fan_in) = 1/sqrt(fan_in)``, so ``U(-1/sqrt(d_x), 1/sqrt(d_x))`` with
  variance ``1 / (3 d_x)``; the bias (on by default) is ``U(-1/sqrt(d_x), 1/sqrt(d_x))`` too
  (PyTorch documentation of ``torch.nn.Linear``, "Variables").
- ``torch_mha``: PyTorch ``nn.MultiheadAttention(d_x, heads)``. ``_reset_parameters`` calls
  ``xavier_uniform_`` on the stacked ``in_proj_weight`` of shape ``(3 d_x, d_x)``:
  ``fan_in = d_x``, ``fan_out = 3 d_x``, bound ``sqrt(6 / (fan_in + fan_out)) =
  sqrt(3 / (2 d_x))``, variance ``1 / (2 d_x)``; ``in_proj_bias`` is set to 0. Rows
  ``0..d_x`` project queries and ``d_x..2 d_x`` keys, whatever the number of heads.
- ``keras_dense``: Keras ``Dense(d_out)``: ``kernel_initializer="glorot_uniform"``, limit
  ``sqrt(6 / (fan_in + fan_out))`` with ``fan_in = d_x``, ``fan_out = d_out``, variance
  ``2 / (d_x + d_out)``; ``bias_initializer="zeros"`` (Keras documentation of ``Dense`` and
  ``GlorotUniform``).
- ``blog_unit``: the blog's sentence read literally, ``N(0, 1)`` weights.
- ``chuang_ii``: ``N(0, 1/d_x)``, the scale at which Chuang's condition (ii) holds for
  unit-variance tokens; a reference, not a library default.
- ``tied``: ``chuang_ii`` with one matrix for both, ``W_k = W_q`` (as in models that share the
  query and key projection): still ``Q = X W_q`` and ``K = X W_k`` with (ii) met, while each
  query equals its token's key, so (iv)'s covariances are not 0.

>>> t = initializer_moments(16, 16, 40, 32, seed=1)
>>> float(t.loc["keras_dense", "weight variance (formula)"])
0.0625
>>> bool(abs(t.loc["torch_mha", "Q variance"] - 0.5) < 0.1)
True
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from attncore.checks import ParameterError, positive_int
from attncore.random import SeedLike, make_rng

__all__ = ["DEFAULTS", "INITIALIZERS", "Initializer", "initializer_moments"]

Draw = tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]
"""``(W_q, W_k, b_q, b_k)`` of ``n`` initializations."""


@dataclass(frozen=True)
class Initializer:
    """One way to draw a projection: its label, whether it is a library default, and a
    function ``(rng, n, d_x, d_out) -> (W_q, W_k, b_q, b_k)`` drawing ``n`` initializations,
    ``W`` of shape ``(n, d_x, d_out)`` and ``b`` of shape ``(n, 1, d_out)`` (tokens are rows,
    ``Q = X W_q + b_q``); ``variance(d_x, d_out)`` is the
    documented variance of one weight entry."""

    label: str
    default: bool
    draw: Callable[[np.random.Generator, int, int, int], Draw]
    variance: Callable[[int, int], float]


def _uniform(rng: np.random.Generator, bound: float, *shape: int) -> np.ndarray:
    return rng.uniform(-bound, bound, size=shape)


def _torch_linear(rng: np.random.Generator, n: int, d_x: int, d_out: int) -> Draw:
    bound = 1 / math.sqrt(d_x)  # kaiming_uniform_(a=sqrt(5)); bias bound 1/sqrt(fan_in)
    wq, wk = _uniform(rng, bound, 2, n, d_x, d_out)
    bq, bk = _uniform(rng, bound, 2, n, 1, d_out)
    return wq, wk, bq, bk


def _torch_mha(rng: np.random.Generator, n: int, d_x: int, d_out: int) -> Draw:
    # xavier_uniform_ over in_proj_weight (3 d_x, d_x); nn.MultiheadAttention has d_out = d_x
    stacked = _uniform(rng, math.sqrt(6 / (d_x + 3 * d_x)), n, 3 * d_x, d_x)
    zero = np.zeros((n, 1, d_x))
    wq, wk = stacked[:, :d_x].transpose(0, 2, 1), stacked[:, d_x : 2 * d_x].transpose(0, 2, 1)
    return wq, wk, zero, zero


def _keras_dense(rng: np.random.Generator, n: int, d_x: int, d_out: int) -> Draw:
    wq, wk = _uniform(rng, math.sqrt(6 / (d_x + d_out)), 2, n, d_x, d_out)  # glorot_uniform
    zero = np.zeros((n, 1, d_out))  # bias_initializer="zeros"
    return wq, wk, zero, zero


def _normal(scale: Callable[[int], float]) -> Callable[..., Draw]:
    def draw(rng: np.random.Generator, n: int, d_x: int, d_out: int) -> Draw:
        wq, wk = rng.standard_normal((2, n, d_x, d_out)) * scale(d_x)
        zero = np.zeros((n, 1, d_out))
        return wq, wk, zero, zero

    return draw


def _tied(scale: Callable[[int], float]) -> Callable[..., Draw]:
    def draw(rng: np.random.Generator, n: int, d_x: int, d_out: int) -> Draw:
        w = rng.standard_normal((n, d_x, d_out)) * scale(d_x)
        zero = np.zeros((n, 1, d_out))
        return w, w, zero, zero

    return draw


INITIALIZERS: dict[str, Initializer] = {
    "torch_linear": Initializer(
        "PyTorch nn.Linear", True, _torch_linear, lambda d_x, d_out: 1 / (3 * d_x)
    ),
    "torch_mha": Initializer(
        "PyTorch nn.MultiheadAttention", True, _torch_mha, lambda d_x, d_out: 1 / (2 * d_x)
    ),
    "keras_dense": Initializer(
        "Keras Dense (Glorot uniform)", True, _keras_dense, lambda d_x, d_out: 2 / (d_x + d_out)
    ),
    "blog_unit": Initializer(
        "N(0, 1), the blog's reading", False, _normal(lambda d_x: 1.0), lambda d_x, d_out: 1.0
    ),
    "chuang_ii": Initializer(
        "N(0, 1/d_x), Chuang's (ii)",
        False,
        _normal(lambda d_x: 1 / math.sqrt(d_x)),
        lambda d_x, d_out: 1 / d_x,
    ),
    "tied": Initializer(
        "N(0, 1/d_x), tied W_k = W_q",
        False,
        _tied(lambda d_x: 1 / math.sqrt(d_x)),
        lambda d_x, d_out: 1 / d_x,
    ),
}
"""The initializers measured, by name (see the module docstring for the formulas)."""

DEFAULTS = [name for name, init in INITIALIZERS.items() if init.default]
"""The names of the library defaults."""

_COVARIANCES = {
    "q_i k_i": lambda q, k: q * k,
    "q_ij k_ij'": lambda q, k: q * np.roll(k, 1, axis=2),
    "q_i k_i'": lambda q, k: q * np.roll(k, 1, axis=1),
    "q_i q_i'": lambda q, k: q * np.roll(q, 1, axis=1),
    "k_i k_i'": lambda q, k: k * np.roll(k, 1, axis=1),
}
"""Products whose means estimate Chuang's covariances (iv): same token, other coordinate of
the same token, and distinct tokens (each token against the next one)."""


def _mean_se(per_draw: np.ndarray) -> tuple[float, float]:
    return float(per_draw.mean()), float(per_draw.std(ddof=1) / math.sqrt(per_draw.size))


def initializer_moments(
    d_x: int,
    d_k: int,
    n_inits: int,
    n_tokens: int,
    seed: SeedLike,
    names: Sequence[str] = tuple(INITIALIZERS),
) -> pd.DataFrame:
    """Moments of freshly initialized ``W_q``, ``W_k`` and of ``Q = X W_q + b_q``,
    ``K = X W_k + b_k`` for ``n_tokens`` standard normal tokens of dimension ``d_x``, over
    ``n_inits`` independent initializations (``d_k`` outputs; ``torch_mha`` always has
    ``d_x``).

    Standard errors are over initializations (entries that share a weight matrix are not
    independent): every estimate is the mean of one value per initialization. One row per
    initializer (index: its name) with ``label``, ``default``, ``weight mean`` and its
    ``z`` (mean / SE), ``weight variance`` with ``SE`` and ``(formula)``, ``Q variance``,
    ``K variance`` with SEs and ``(formula)`` (``d_x`` times the weight variance, plus the
    bias variance), ``largest |mean z|`` over Q and K, ``largest |cov z|`` and
    ``largest |corr|`` over the covariances of :data:`_COVARIANCES`.

    >>> t = initializer_moments(8, 4, 30, 16, 3, ["torch_linear"])
    >>> round(float(t.loc["torch_linear", "Q, K variance (formula)"]), 4)  # 8/24 + 1/24
    0.375
    """
    d_x, d_k = positive_int("d_x", d_x), positive_int("d_k", d_k)
    n_inits, n_tokens = positive_int("n_inits", n_inits, 2), positive_int("n_tokens", n_tokens, 2)
    unknown = [n for n in names if n not in INITIALIZERS]
    if unknown:
        raise ParameterError(f"unknown initializers {unknown}; known: {', '.join(INITIALIZERS)}")
    rng = make_rng(seed)
    rows = {}
    for name in names:
        init = INITIALIZERS[name]
        wq, wk, bq, bk = init.draw(rng, n_inits, d_x, d_k)
        x = rng.standard_normal((n_inits, n_tokens, d_x))
        q, k = x @ wq + bq, x @ wk + bk
        w = np.concatenate([wq.reshape(n_inits, -1), wk.reshape(n_inits, -1)], axis=1)
        per_draw = {"w": w.mean(axis=1), "w2": w.var(axis=1)}
        per_draw |= {"q": q.mean(axis=(1, 2)), "k": k.mean(axis=(1, 2))}
        per_draw |= {"q2": (q**2).mean(axis=(1, 2)), "k2": (k**2).mean(axis=(1, 2))}
        per_draw |= {c: f(q, k).mean(axis=(1, 2)) for c, f in _COVARIANCES.items()}
        est = {key: _mean_se(v) for key, v in per_draw.items()}
        weight_var = init.variance(d_x, d_k if name != "torch_mha" else d_x)
        bias_var = 1 / (3 * d_x) if name == "torch_linear" else 0.0
        var_q, var_k = est["q2"][0], est["k2"][0]
        cov_z = [abs(est[c][0]) / est[c][1] for c in _COVARIANCES]
        corr = [abs(est[c][0]) / math.sqrt(var_q * var_k) for c in _COVARIANCES]
        rows[name] = {
            "label": init.label,
            "default": init.default,
            "weight mean": est["w"][0],
            "weight mean z": est["w"][0] / est["w"][1],
            "weight variance": est["w2"][0],
            "weight variance SE": est["w2"][1],
            "weight variance (formula)": weight_var,
            "Q variance": var_q,
            "Q variance SE": est["q2"][1],
            "K variance": var_k,
            "K variance SE": est["k2"][1],
            "Q, K variance (formula)": d_x * weight_var + bias_var,
            "largest |mean z|": max(abs(est[c][0]) / est[c][1] for c in ("q", "k")),
            "largest |cov z|": max(cov_z),
            "largest |corr|": max(corr),
        }
    return pd.DataFrame.from_dict(rows, orient="index")
