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


def test_list_table_is_numbered_and_rounded() -> None:
    import numpy as np
    import pandas as pd

    from attncore.symbolic.typeset import list_table

    frame = pd.DataFrame(
        {"ok": [np.True_, False], "n": [np.int64(12000), 3], "x": [1e-7, -0.5]},
        index=pd.Index(["a", "b"], name="law"),
    )
    text = list_table(frame, "tbl-x", "Caption.", decimals=2)
    assert text.startswith("```{list-table} Caption.\n:name: tbl-x\n:header-rows: 1")
    assert "  - yes" in text and "  - 12,000" in text and "  - 1.0e−07" in text
    assert "  - −0.50" in text and "* - law" in text
