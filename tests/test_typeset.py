"""Tests of attncore.symbolic.typeset: a reader's term order, inline math, plurals."""

import sympy as sp

from attncore.symbolic.notation import Expectation, Variance, d, t
from attncore.symbolic.typeset import latex, math, plural

X = sp.Symbol("X")


def test_positive_terms_come_first() -> None:
    text = latex(sp.Eq(Variance(X), -(Expectation(X) ** 2) + Expectation(X**2)))
    assert text.index(r"\mathbb{E}\left[X^{2}\right]") < text.index(r"- \mathbb{E}\left[X\right]")


def test_larger_degree_first_then_constants() -> None:
    assert latex(6 / d + 3) == r"3 + \frac{6}{d}"
    assert latex(2 * d + d**2) == r"d^{2} + 2 d"


def test_series_at_infinity_starts_from_the_leading_term() -> None:
    series = sp.sqrt(d) - 1 / (4 * sp.sqrt(d)) + 1 / (32 * d ** sp.Rational(3, 2))
    text = latex(series + sp.O(d ** sp.Rational(-5, 2), (d, sp.oo)))
    assert text.startswith(r"\sqrt{d} - \frac{1}{4 \sqrt{d}}") and text.index("O") > 0
    assert text.rstrip().endswith(r"\infty\right)")


def test_series_at_zero_starts_from_the_smallest_power() -> None:
    text = latex(d * t**4 / 4 + d * t**2 / 2 + sp.O(t**6))
    assert text.index("t^{2}") < text.index("t^{4}") < text.index("O")


def test_math_wraps_and_plural_counts() -> None:
    assert math(d) == "$d$"
    assert [plural(n, "step") for n in (0, 1, 2)] == ["0 steps", "1 step", "2 steps"]
