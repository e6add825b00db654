r"""LaTeX as a mathematician writes it: term order, plural counts and inline math.

sympy prints the terms of a sum in its own canonical order, which puts ``-E[X]^2`` before
``E[X^2]`` and a large-``d`` series from its smallest term up. :func:`latex` prints the same
expression with the terms of every sum ordered for a reader: an asymptotic series from its
leading term (largest power first at infinity, smallest first at a finite point) with the
remainder last; a difference of two terms positive first (``1 - \rho``, not ``-\rho + 1``);
otherwise larger total degree first, then positive terms before negative ones, and sympy's
order among equals.

>>> E, X, d = sp.Function("E"), sp.Symbol("X"), sp.Symbol("d", positive=True)
>>> latex(-E(X) ** 2 + E(X**2))
'E{\\left(X^{2} \\right)} - E^{2}{\\left(X \\right)}'
>>> latex(sp.sqrt(d) - 1 / (4 * sp.sqrt(d)) + sp.O(1 / d, (d, sp.oo)))[:35]
'\\sqrt{d} - \\frac{1}{4 \\sqrt{d}} + O'
>>> math(3 + 6 / d)
'$3 + \\frac{6}{d}$'
>>> mu, sigma = sp.symbols("mu_4 sigma", positive=True)
>>> latex(-1 + mu / sigma**4)
'\\frac{\\mu_{4}}{\\sigma^{4}} - 1'
>>> rho, t = sp.symbols("rho t")
>>> latex(1 / (1 - rho)), latex(1 - 2 * t)
('\\frac{1}{1 - \\rho}', '1 - 2 t')
>>> plural(1, "step"), plural(3, "step")
('1 step', '3 steps')
"""

from __future__ import annotations

import sympy as sp
from sympy.printing.latex import LatexPrinter

__all__ = ["latex", "math", "plural"]


def _degree(term: sp.Expr) -> sp.Expr:
    """Total numeric degree of a product's numerator in its symbols (functions and
    denominators count 0), so that ``mu_4/sigma^4 - 1`` keeps its ratio first."""
    total = sp.S.Zero
    for base, exponent in term.as_powers_dict().items():
        if isinstance(base, sp.Symbol | sp.Indexed) and exponent.is_number and exponent > 0:
            total += exponent
    return total


def _order_terms(terms: list[sp.Expr]) -> list[sp.Expr]:
    remainder = [t for t in terms if isinstance(t, sp.Order)]
    rest = [t for t in terms if not isinstance(t, sp.Order)]
    if remainder and remainder[0].variables:
        variable, point = remainder[0].variables[0], remainder[0].point[0]
        sign = -1 if point is sp.oo else 1

        def power(term: sp.Expr) -> float:
            exponent = term.as_coeff_exponent(variable)[1]
            return float(sign * exponent) if exponent.is_number else 0.0

        rest.sort(key=power)
    elif len(rest) == 2 and sum(t.could_extract_minus_sign() for t in rest) == 1:
        rest.sort(key=lambda term: term.could_extract_minus_sign())
    else:

        def key(term: sp.Expr) -> tuple[float, bool]:
            degree = _degree(term)
            return (-float(degree) if degree.is_number else 0.0, term.could_extract_minus_sign())

        rest.sort(key=key)
    return rest + remainder


class _Printer(LatexPrinter):
    def _as_ordered_terms(self, expr: sp.Expr, order: str | None = None) -> list[sp.Expr]:
        return _order_terms(list(super()._as_ordered_terms(expr, order=order)))


def latex(expr: sp.Basic, **settings: object) -> str:
    """``expr`` in LaTeX with a reader's term order (see the module docstring) and inverse
    trigonometric functions written out (``\\arccos``, not ``\\operatorname{acos}``).

    >>> print(latex(sp.acos(sp.Symbol("rho"))))
    \\arccos{\\left(\\rho \\right)}
    """
    return _Printer({"inv_trig_style": "full", **settings}).doprint(expr)


def math(expr: sp.Basic, **settings: object) -> str:
    """``expr`` as inline Markdown math, ``$...$``."""
    return f"${latex(expr, **settings)}$"


def plural(count: int, noun: str) -> str:
    """``count`` and ``noun``, pluralized with an ``s`` unless ``count`` is 1."""
    return f"{count} {noun}{'' if count == 1 else 's'}"
