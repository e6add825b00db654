r"""The model of Chen, Lin, Polyanskiy and Rigollet (chen2025critical), simulated.

``n`` tokens in an almost-simplex configuration, normalised onto the unit sphere (the paper's
pre-layer normalisation ``y = x / ||x||``), pass through one attention layer whose query, key
and value maps are the identity and whose logits are ``beta <y_i, y_j>``, with
``beta = gamma ln n``; residual connections and MLPs are left out, as in the paper's figure.
What is measured is the ratio of the angle between two outputs to the angle between the two
inputs (0: the tokens collapsed onto one direction; 1: attention is the identity), with the
attention's self weight and the normalised entropy of its rows.

The book's realisation of "almost": token ``i`` is
``x_i = sqrt(d) (sqrt(rho) u + sqrt(1 - rho) z_i)`` with ``u`` a fixed unit vector and the
``z_i`` independent uniform directions in the ``d - 1`` dimensions orthogonal to it, so
``<y_i, y_j> = rho + (1 - rho) <z_i, z_j>``: pairwise correlation ``rho`` on average, perturbed
by a random term of standard deviation ``(1 - rho) / sqrt(d - 1)``. The token dimension ``d``
sets the size of the perturbation; orthonormal ``z_i`` (``d = n + 1``) give the exact simplex.
The norm ``sqrt(d)`` is what a LayerNorm leaves (unit-variance components); the
normalisation removes it, and a rescaling ``c`` of ``q . k`` on such tokens is ``beta = c d``
(:func:`registry_gamma`).

>>> rng = np.random.default_rng(0)
>>> x = simplex_tokens(random_directions(6, 3, rng), rho=0.5)
>>> bool(np.allclose(np.linalg.norm(x, axis=1), 2.0))
True
>>> [point] = attention_layer(x, [50.0], n_probes=3)
>>> round(point.angle_ratio, 3), round(point.self_weight, 3)  # attention is the identity
(1.0, 1.0)
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from attncore.checks import ParameterError, finite_array, finite_real, positive_int
from attncore.random import stream
from attncore.rescalings import get_rescaling
from attncore.simulate.tasks import run_tasks
from attncore.simulate.threads import single_threaded_blas
from attncore.softmax import entropy, softmax

__all__ = [
    "LayerPoint",
    "attention_layer",
    "critical_sweep",
    "dimension_sweep",
    "gradient_gain",
    "gradient_sweep",
    "normalise",
    "pair_angles",
    "random_directions",
    "registry_gamma",
    "simplex_tokens",
]


def random_directions(n: int, m: int, rng: np.random.Generator) -> np.ndarray:
    """``n`` independent directions drawn uniformly on the unit sphere of ``R^m`` (rows).

    >>> random_directions(3, 2, np.random.default_rng(1)).shape
    (3, 2)
    """
    n = positive_int("n", n, minimum=2)
    m = positive_int("m", m)
    draws = rng.standard_normal((n, m))
    norms = np.linalg.norm(draws, axis=1, keepdims=True)
    while not np.all(norms > 0):  # a draw of exact zeros has probability 0; redraw it anyway
        zero = norms[:, 0] == 0
        draws[zero] = rng.standard_normal((int(zero.sum()), m))
        norms = np.linalg.norm(draws, axis=1, keepdims=True)
    return draws / norms


def simplex_tokens(directions: np.ndarray, rho: float) -> np.ndarray:
    """Tokens ``x_i = sqrt(d) (sqrt(rho) u + sqrt(1 - rho) z_i)`` in ``d = m + 1`` dimensions,
    ``u`` the first axis and ``z_i`` the rows of ``directions`` (unit vectors of ``R^m``);
    ``rho`` in [0, 1).

    Orthonormal directions (``np.eye(n)``) give the exact simplex: every pair at inner
    product ``rho`` after normalisation.

    >>> y = normalise(simplex_tokens(np.eye(3), rho=0.25))
    >>> (y @ y.T).round(2).tolist()
    [[1.0, 0.25, 0.25], [0.25, 1.0, 0.25], [0.25, 0.25, 1.0]]
    """
    z = finite_array("directions", directions, ndim=2)
    rho = finite_real("rho", rho)
    if not 0 <= rho < 1:
        raise ParameterError(f"rho must be in [0, 1), got {rho!r}")
    if not np.allclose(np.linalg.norm(z, axis=1), 1.0):
        raise ParameterError("directions must be unit vectors (rows of norm 1)")
    n, m = z.shape
    common = np.full((n, 1), math.sqrt(rho))
    return math.sqrt(m + 1) * np.hstack([common, math.sqrt(1 - rho) * z])


def normalise(tokens: np.ndarray) -> np.ndarray:
    """The paper's pre-layer normalisation ``N(x) = x / ||x||``, row by row (rows must not
    be 0); rows are divided by their largest entry first, so no norm overflows.

    >>> normalise(np.array([[3.0, 4.0], [0.0, 1e300]])).tolist()
    [[0.6, 0.8], [0.0, 1.0]]
    """
    x = finite_array("tokens", tokens, ndim=2)
    scale = np.abs(x).max(axis=1, keepdims=True)
    if not np.all(scale > 0):
        raise ParameterError("tokens must have rows of length > 0 to be normalised")
    unit = x / scale
    return unit / np.linalg.norm(unit, axis=1, keepdims=True)


def pair_angles(vectors: np.ndarray) -> np.ndarray:
    """The angle between every pair of rows (``i < j``, in ``np.triu_indices`` order), as
    ``2 atan2(||a - b||, ||a + b||)`` of the unit rows: accurate for tiny angles too, where
    ``arccos`` of the cosine loses every digit.

    >>> pair_angles(np.array([[1.0, 0.0], [0.0, 2.0], [1.0, 1e-9]])).round(9).tolist()
    [1.570796327, 0.0, 1.570796326]
    """
    unit = normalise(vectors)
    i, j = np.triu_indices(len(unit), k=1)
    a, b = unit[i], unit[j]
    return 2 * np.arctan2(np.linalg.norm(a - b, axis=1), np.linalg.norm(a + b, axis=1))


@dataclass(frozen=True)
class LayerPoint:
    """What one attention layer did to its first ``n_probes`` tokens: the mean over their
    pairs of output angle / input angle, and the mean over their rows of the self weight
    ``A_ii`` and of the normalised entropy ``H / ln n``."""

    angle_ratio: float
    self_weight: float
    entropy: float


def attention_layer(tokens: np.ndarray, betas: Sequence[float], n_probes: int) -> list[LayerPoint]:
    """Normalise ``tokens`` (rows), apply attention with logits ``beta <y_i, y_j>`` and the
    identity as value, for each ``beta`` of ``betas``, and measure the outputs of the first
    ``n_probes`` tokens (one :class:`LayerPoint` per ``beta``). Each probe attends to all
    ``n`` tokens.

    >>> x = simplex_tokens(np.eye(4), rho=0.5)
    >>> [round(p.self_weight, 3) for p in attention_layer(x, [0.0, 100.0], n_probes=4)]
    [0.25, 1.0]
    """
    y = normalise(tokens)
    betas = [finite_real("beta", beta) for beta in betas]
    n_probes = positive_int("n_probes", n_probes, minimum=2)
    if n_probes > len(y):
        raise ParameterError(f"n_probes must be at most the number of tokens ({len(y)})")
    probes = y[:n_probes]
    inner = probes @ y.T
    before = pair_angles(probes)
    if not betas:
        return []
    every = softmax(np.asarray(betas)[:, None, None] * inner)  # (betas, probes, n)
    outputs = (every.reshape(-1, len(y)) @ y).reshape(len(betas), n_probes, -1)  # one product
    points = []
    for weights, output in zip(every, outputs, strict=True):
        after = pair_angles(output)
        points.append(
            LayerPoint(
                angle_ratio=float((after / before).mean()),
                self_weight=float(np.diagonal(weights).mean()),
                entropy=float(entropy(weights, normalized=True).mean()),
            )
        )
    return points


def gradient_gain(tokens: np.ndarray, betas: Sequence[float], vectors: np.ndarray) -> list[float]:
    r"""How much of a change to a token's own input reaches its output, for each ``beta`` of
    ``betas``: the root mean square singular value of the Jacobian of output ``i`` with
    respect to its normalised input ``y_i``, over the first ``len(vectors)`` tokens.

    With weights ``A_ij`` and output ``m_i``, that Jacobian on the sphere's tangent is
    ``J_i = (A_ii I + beta C_i) P_i``, where ``C_i = sum_j A_ij (y_j - m_i)(y_j - m_i)^T`` and
    ``P_i = I - y_i y_i^T``. The gain is ``sqrt(sum_i ||J_i||_F^2 / (p (d - 1)))`` over the
    ``p`` probes, each ``||J_i||_F^2`` estimated as the mean of ``||J_i v||^2`` over the
    ``vectors[i]`` (shape ``(p, d, k)``, standard normal; Hutchinson's estimator, unbiased).
    It is 1 where attention is the identity (``J_i = P_i``) and near 0 where a token's output
    hardly depends on its own input.

    >>> rng = np.random.default_rng(0)
    >>> x = simplex_tokens(random_directions(64, 7, rng), rho=0.5)
    >>> [round(g, 2) for g in gradient_gain(x, [0.0, 200.0], rng.standard_normal((4, 8, 64)))]
    [0.02, 1.0]
    """
    y = normalise(tokens)
    betas = [finite_real("beta", beta) for beta in betas]
    v = finite_array("vectors", vectors, ndim=3)
    probes, d, k = v.shape
    if d != y.shape[1] or not 1 <= probes <= len(y):
        raise ParameterError(
            f"vectors must have shape (p, {y.shape[1]}, k) with p at most {len(y)}, got {v.shape}"
        )
    n, own = len(y), y[:probes]
    tangent = v - own[:, :, None] * np.einsum("pd,pdk->pk", own, v)[:, None, :]  # P_i v
    columns = tangent.transpose(1, 0, 2).reshape(d, probes * k)  # every P_i v, side by side
    s = (y @ columns).reshape(n, probes, k).transpose(1, 0, 2)  # y_j . P_i v
    inner, diagonal = own @ y.T, (np.arange(probes), np.arange(probes))
    gains = []
    for beta in betas:
        weights = softmax(beta * inner)  # (p, n)
        centred = s - np.einsum("pn,pnk->pk", weights, s)[:, None, :]  # (y_j - m_i) . P_i v
        weighted = (weights[:, :, None] * centred).transpose(1, 0, 2).reshape(n, probes * k)
        spread = (y.T @ weighted).reshape(d, probes, k).transpose(1, 0, 2)  # C_i P_i v
        jv = weights[diagonal][:, None, None] * tangent + beta * spread
        gains.append(float(math.sqrt(np.mean(np.sum(jv * jv, axis=1)) / (d - 1))))
    return gains


def registry_gamma(rescaling: str, n: int, d: int) -> float:
    """``gamma = beta / ln n`` of a registered rescaling (:mod:`attncore.rescalings`) on
    ``n`` tokens of dimension ``d`` with norm ``sqrt(d)``: the rescaling multiplies
    ``q . k = d <y_i, y_j>`` (query, key and value maps the identity) by its factor ``c``, so
    ``beta = c d``.

    >>> registry_gamma("sqrt_d", n=64, d=64) == 8 / math.log(64)  # 1/sqrt(d): beta = sqrt(d)
    True
    >>> registry_gamma("log_n", n=64, d=64)  # ln n / sqrt(d): gamma = sqrt(d)
    8.0
    """
    n = positive_int("n", n, minimum=2)
    d = positive_int("d", d)
    keys = np.ones((n, d))  # rows of norm sqrt(d), as the tokens of the simulation
    return get_rescaling(rescaling).factor_for(keys) * d / math.log(n)


_POINT = ("angle_ratio", "self_weight", "entropy")


def _draw(task: tuple) -> list[dict]:
    """One task of :func:`critical_sweep`: one draw of the directions at one ``n``, every
    ``rho`` and every ``gamma`` (the grid's, then each rescaling's) on that draw."""
    n, draw, d, rho_values, gamma_values, rescalings, n_probes, seed = task
    directions = random_directions(n, d - 1, stream(seed, n, draw))
    gammas = [("grid", g) for g in gamma_values]
    gammas += [(name, registry_gamma(name, n, d)) for name in rescalings]
    rows = []
    with single_threaded_blas():  # the same products, bit for bit, on any machine
        for rho in rho_values:
            tokens = simplex_tokens(directions, rho)
            betas = [gamma * math.log(n) for _, gamma in gammas]
            for (scale, gamma), point in zip(
                gammas, attention_layer(tokens, betas, n_probes), strict=True
            ):
                rows.append(
                    {"n": n, "draw": draw, "rho": rho, "scale": scale, "gamma": gamma}
                    | {name: getattr(point, name) for name in _POINT}
                )
    return rows


def _checked_list(name: str, values: Sequence[float], low: float, high: float) -> list[float]:
    checked = [finite_real(name, v) for v in values]
    if not checked or any(not low <= v <= high for v in checked):
        raise ParameterError(f"{name} must be a non-empty list of numbers in [{low}, {high}]")
    return checked


def critical_sweep(
    n_values: Sequence[int],
    rho_values: Sequence[float],
    gamma_values: Sequence[float],
    d: int,
    n_draws: int,
    n_probes: int,
    seed: int,
    rescalings: Sequence[str] = ("sqrt_d", "log_n"),
    scheduler: object = None,
) -> pd.DataFrame:
    """The angle ratio, self weight and entropy over a grid of ``(rho, gamma)`` for every
    ``n``, on ``n_draws`` independent draws of the almost-simplex in dimension ``d``; each
    draw is also measured at the ``gamma`` each registered rescaling of ``rescalings`` gives
    (:func:`registry_gamma`).

    One row per ``(n, draw, rho, scale, gamma)``; ``scale`` is ``"grid"`` or the
    rescaling's name. Each ``(n, draw)`` is one task of
    :func:`~attncore.simulate.tasks.run_tasks` drawing from ``stream(seed, n, draw)``, so the
    table does not depend on where the tasks run, nor on the other ``n`` of the list.

    >>> table = critical_sweep([16], [0.5], [0.5, 4.0], d=8, n_draws=2, n_probes=4, seed=0)
    >>> table.groupby("scale")["gamma"].first().round(2).to_dict()
    {'grid': 0.5, 'log_n': 2.83, 'sqrt_d': 1.02}
    >>> table[table["scale"] == "grid"].groupby("gamma")["angle_ratio"].mean().round(2).tolist()
    [0.17, 0.92]
    """
    ns = [positive_int("n", n, minimum=2) for n in n_values]
    if not ns:
        raise ParameterError("n_values must name at least one number of tokens")
    rhos = _checked_list("rho_values", rho_values, 0.0, 0.99)
    gammas = _checked_list("gamma_values", gamma_values, 0.0, 1e3)
    d = positive_int("d", d, minimum=2)
    n_draws = positive_int("n_draws", n_draws)
    n_probes = positive_int("n_probes", n_probes, minimum=2)
    if n_probes > min(ns):
        raise ParameterError(f"n_probes must be at most the smallest n ({min(ns)})")
    for name in rescalings:
        get_rescaling(name)
    tasks = [
        (n, draw, d, rhos, gammas, tuple(rescalings), n_probes, seed)
        for n in ns
        for draw in range(n_draws)
    ]
    keys = [(n, draw) for n, draw, *_ in tasks]
    results = run_tasks(_draw, tasks, keys=keys, scheduler=scheduler)
    return pd.DataFrame([row for rows in results for row in rows])


def dimension_sweep(
    n: int,
    rho_values: Sequence[float],
    gamma_values: Sequence[float],
    d_values: Sequence[int],
    n_draws: int,
    n_probes: int,
    seed: int,
    scheduler: object = None,
) -> pd.DataFrame:
    """:func:`critical_sweep` on the ``gamma`` grid alone at one ``n``, for each token
    dimension of ``d_values``, with a column ``d``. A draw at a given ``d`` is the one
    :func:`critical_sweep` makes there (``stream(seed, n, draw)``).

    >>> table = dimension_sweep(16, [0.5], [0.5, 4.0], [8, 32], n_draws=2, n_probes=4, seed=0)
    >>> table.groupby("d").size().to_dict()
    {8: 4, 32: 4}
    """
    ds = _checked_dimensions(d_values)
    tables = [
        critical_sweep(
            [n], rho_values, gamma_values, d, n_draws, n_probes, seed, (), scheduler
        ).assign(d=d)
        for d in ds
    ]
    return pd.concat(tables, ignore_index=True)


def _checked_dimensions(d_values: Sequence[int]) -> list[int]:
    ds = [positive_int("d", d, minimum=2) for d in d_values]
    if not ds or len(set(ds)) != len(ds):
        raise ParameterError("d_values must name at least one token dimension, each once")
    return ds


def _gradients(task: tuple) -> list[dict]:
    """One task of :func:`gradient_sweep`: one draw at one ``d``, every ``rho`` and factor."""
    n, d, draw, rho_values, factors, n_probes, n_vectors, seed = task
    directions = random_directions(n, d - 1, stream(seed, n, draw))
    vectors = stream(seed, n, draw, d).standard_normal((n_probes, d, n_vectors))
    rows = []
    with single_threaded_blas():
        for rho in rho_values:
            gammas = [factor / (1 - rho) for factor in factors]
            betas = [gamma * math.log(n) for gamma in gammas]
            gains = gradient_gain(simplex_tokens(directions, rho), betas, vectors)
            for factor, gamma, gain in zip(factors, gammas, gains, strict=True):
                rows.append(
                    {"d": d, "n": n, "draw": draw, "rho": rho, "factor": factor}
                    | {"gamma": gamma, "gain": gain}
                )
    return rows


def gradient_sweep(
    n: int,
    rho_values: Sequence[float],
    factors: Sequence[float],
    d_values: Sequence[int],
    n_draws: int,
    n_probes: int,
    seed: int,
    n_vectors: int = 2,
    scheduler: object = None,
) -> pd.DataFrame:
    """:func:`gradient_gain` at ``gamma = factor / (1 - rho)`` (``factor`` times the exact
    simplex's critical scale) for every ``factor``, ``rho`` and token dimension of
    ``d_values``, on the draws of :func:`critical_sweep` at ``n``, with ``n_vectors`` random
    vectors per probe (drawn from ``stream(seed, n, draw, d)``, the same at every ``rho`` and
    ``factor``). One row per ``(d, draw, rho, factor)``.

    >>> table = gradient_sweep(64, [0.5], [0.5, 2.0], [8], n_draws=2, n_probes=4, seed=0)
    >>> table.groupby("factor")["gain"].mean().round(1).tolist()
    [0.4, 0.9]
    """
    n = positive_int("n", n, minimum=2)
    rhos = _checked_list("rho_values", rho_values, 0.0, 0.99)
    factors = _checked_list("factors", factors, 1e-3, 1e3)
    ds = _checked_dimensions(d_values)
    n_draws = positive_int("n_draws", n_draws)
    n_probes = positive_int("n_probes", n_probes, minimum=2)
    n_vectors = positive_int("n_vectors", n_vectors)
    if n_probes > n:
        raise ParameterError(f"n_probes must be at most n ({n})")
    tasks = [
        (n, d, draw, rhos, factors, n_probes, n_vectors, seed)
        for d in ds
        for draw in range(n_draws)
    ]
    keys = [(d, draw) for _, d, draw, *_ in tasks]
    results = run_tasks(_gradients, tasks, keys=keys, scheduler=scheduler)
    return pd.DataFrame([row for rows in results for row in rows])
