"""Numbers as the source texts print them, quoted so the book can compare against them.

These are data about the sources, not results: the book recomputes each one and
the tests check that the recomputed value rounds to the printed digits.

>>> BLOG_WORKED_EXAMPLE.decimals_softmax, BLOG_WORKED_EXAMPLE.decimals_jacobian
(3, 5)
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from attncore.checks import ParameterError, finite_array, finite_real, positive_int, positive_real
from attncore.softmax import entropy, jacobian, jacobian_frobenius, softmax

__all__ = [
    "BLOG_WORKED_EXAMPLE",
    "FactorSweep",
    "WorkedExample",
    "digit_matches",
    "example_factors",
    "factor_sweep",
    "scaled_variance_identity",
    "variance_ratio",
    "worked_example",
]


@dataclass(frozen=True)
class WorkedExample:
    """The blog post's worked example: a logit vector, a factor, and the printed outputs."""

    source: str
    y: tuple[float, ...]
    factor: float
    softmax_y: tuple[float, ...]
    softmax_scaled: tuple[float, ...]
    jacobian_y: tuple[tuple[float, ...], ...]
    jacobian_scaled: tuple[tuple[float, ...], ...]
    decimals_softmax: int
    decimals_jacobian: int


BLOG_WORKED_EXAMPLE = WorkedExample(
    source="pranay2025why, section Logic (printed outputs of its code cells)",
    y=(0.2, 0.4, 0.1, 0.8),
    factor=8.0,
    softmax_y=(0.202, 0.247, 0.183, 0.368),
    softmax_scaled=(0.008, 0.039, 0.004, 0.95),
    jacobian_y=(
        (0.16125, -0.04988, -0.03695, -0.07441),
        (-0.04988, 0.1859, -0.04513, -0.09089),
        (-0.03695, -0.04513, 0.14942, -0.06733),
        (-0.07441, -0.09089, -0.06733, 0.23264),
    ),
    jacobian_scaled=(
        (0.00776, -0.0003, -0.00003, -0.00743),
        (-0.0003, 0.03722, -0.00014, -0.03678),
        (-0.00003, -0.00014, 0.0035, -0.00334),
        (-0.00743, -0.03678, -0.00334, 0.04755),
    ),
    decimals_softmax=3,
    decimals_jacobian=5,
)


def worked_example(y: Sequence[float], factor: float) -> dict[str, np.ndarray]:
    """The blog's worked example recomputed for logits ``y`` and ``factor``, unrounded:
    ``s = softmax(y)``, ``s_scaled = softmax(factor y)`` and their Jacobians ``J`` and
    ``J_scaled`` (``diag(s) - s s^T``).

    >>> example = worked_example([0.2, 0.4, 0.1, 0.8], 8.0)
    >>> list(example), example["s_scaled"].round(3).tolist()
    (['s', 's_scaled', 'J', 'J_scaled'], [0.008, 0.039, 0.004, 0.95])
    """
    logits = finite_array("y", y, ndim=1)
    c = finite_real("factor", factor)
    s, s_scaled = softmax(logits), softmax(c * logits)
    return {"s": s, "s_scaled": s_scaled, "J": jacobian(s), "J_scaled": jacobian(s_scaled)}


def digit_matches(
    y: Sequence[float], factor: float, example: WorkedExample = BLOG_WORKED_EXAMPLE
) -> dict[str, bool] | None:
    """Whether each recomputed output rounds to the digits ``example`` prints, by output.

    ``None`` when ``y`` or ``factor`` differ from the example's inputs: there is then
    nothing printed to compare with.

    >>> digit_matches([0.2, 0.4, 0.1, 0.8], 8.0)
    {'softmax(y)': True, 'softmax(8y)': True, 'Jacobian of softmax(y)': True, \
'Jacobian of softmax(8y)': True}
    >>> digit_matches([1.0, 2.0], 8.0) is None
    True
    """
    if tuple(float(v) for v in y) != example.y or float(factor) != example.factor:
        return None
    computed = worked_example(y, factor)
    printed = {
        "softmax(y)": ("s", example.softmax_y, example.decimals_softmax),
        "softmax(8y)": ("s_scaled", example.softmax_scaled, example.decimals_softmax),
        "Jacobian of softmax(y)": ("J", example.jacobian_y, example.decimals_jacobian),
        "Jacobian of softmax(8y)": ("J_scaled", example.jacobian_scaled, example.decimals_jacobian),
    }
    return {
        label: bool(np.array_equal(np.round(computed[key], decimals), np.asarray(values)))
        for label, (key, values, decimals) in printed.items()
    }


def variance_ratio(y: Sequence[float], factor: float) -> tuple[float, float]:
    """``Var(factor y) / Var(y)`` for the entries of ``y``, exactly and in floating point.

    The exact ratio uses rational arithmetic on the floats as stored (no rounding at all);
    the second is numpy's ``var`` ratio. Population and sample variance give the same ratio.

    >>> variance_ratio([0.2, 0.4, 0.1, 0.8], 8.0)
    (64.0, 64.0)
    """
    logits = finite_array("y", y, ndim=1)
    c = finite_real("factor", factor)
    if np.ptp(logits) == 0:
        raise ValueError("y must not be constant: its variance is 0")

    def variance(values: list[Fraction]) -> Fraction:
        mean = sum(values, Fraction(0)) / len(values)
        return sum(((v - mean) ** 2 for v in values), Fraction(0)) / len(values)

    exact = [Fraction(float(v)) for v in logits]
    ratio = variance([Fraction(c) * v for v in exact]) / variance(exact)
    return float(ratio), float(np.var(c * logits) / np.var(logits))


def scaled_variance_identity(n_values: int = 4) -> bool:
    """Whether sympy derives ``Var(cY) = c^2 Var(Y)`` for a general random variable ``Y``
    taking ``n_values`` symbolic values with symbolic probabilities (summing to 1).

    >>> scaled_variance_identity()
    True
    """
    import sympy as sp

    c = sp.Symbol("c", real=True)
    values = sp.symbols(f"y_1:{n_values + 1}", real=True)
    weights = sp.symbols(f"p_1:{n_values}", positive=True)
    probabilities = [*weights, 1 - sum(weights)]

    def variance(xs: list[sp.Expr]) -> sp.Expr:
        mean = sum(p * x for p, x in zip(probabilities, xs, strict=True))
        return sum(p * (x - mean) ** 2 for p, x in zip(probabilities, xs, strict=True))

    residual = variance([c * v for v in values]) - c**2 * variance(list(values))
    return bool(sp.expand(residual) == 0)


def example_factors(factor: float, per_octave: int = 4, octaves: int = 3) -> np.ndarray:
    """The factors on which the worked example is followed as its spread grows: powers of 2
    with ``per_octave`` steps per doubling, covering at least ``octaves`` doublings below the
    smaller of 1 and ``factor`` and above the larger, with 1 and ``factor`` themselves.

    >>> example_factors(8.0, per_octave=1, octaves=1).tolist()
    [0.5, 1.0, 2.0, 4.0, 8.0, 16.0]
    >>> example_factors(3.0, per_octave=1, octaves=0).tolist()
    [1.0, 2.0, 3.0, 4.0]
    """
    c = positive_real("factor", factor)
    steps = positive_int("per_octave", per_octave)
    octaves = positive_int("octaves", octaves, minimum=0)
    low = math.floor(steps * (math.log2(min(1.0, c)) - octaves) + 1e-9)
    high = math.ceil(steps * (math.log2(max(1.0, c)) + octaves) - 1e-9)
    powers = np.exp2(np.arange(low, high + 1) / steps)
    return np.unique(np.concatenate([powers, [1.0, c]]))


@dataclass(frozen=True)
class FactorSweep:
    """The softmax of ``factor * y`` for every factor of ``factors``: one row of
    ``probabilities`` per factor, with the Frobenius norm of its Jacobian, its entropy over
    ``ln n`` and its largest probability."""

    y: np.ndarray
    factors: np.ndarray
    probabilities: np.ndarray
    jacobian_norm: np.ndarray
    entropy_ratio: np.ndarray
    max_probability: np.ndarray

    def index(self, factor: float) -> int:
        """The row of ``factor``, which must be one of the sweep's factors."""
        found = np.flatnonzero(self.factors == factor)
        if not found.size:
            raise ParameterError(f"factor must be one of the sweep's factors, got {factor!r}")
        return int(found[0])


def factor_sweep(y: Sequence[float], factors: Sequence[float]) -> FactorSweep:
    """The worked example for every factor of ``factors`` (each > 0).

    >>> sweep = factor_sweep([0.2, 0.4, 0.1, 0.8], example_factors(8.0))
    >>> row = sweep.index(8.0)
    >>> sweep.probabilities[row].round(3).tolist(), round(float(sweep.jacobian_norm[row]), 4)
    ([0.008, 0.039, 0.004, 0.95], 0.081)
    """
    logits = finite_array("y", y, ndim=1)
    if logits.size < 2:
        raise ParameterError(f"y must hold at least 2 logits, got {logits.size}")
    grid = np.array([positive_real("factor", f) for f in factors], dtype=float)
    if not grid.size:
        raise ParameterError("factors must hold at least one factor")
    s = softmax(grid[:, None] * logits[None, :])
    return FactorSweep(
        y=logits,
        factors=grid,
        probabilities=s,
        jacobian_norm=jacobian_frobenius(s),
        entropy_ratio=entropy(s, normalized=True),
        max_probability=s.max(axis=1),
    )
