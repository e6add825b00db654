"""The numbers the rules of "Why sqrt(d)" read: whether a symbolic residual vanishes (and how
it reads), the largest of a set of z-scores, the simulated counterexamples to Chuang's
Proposition 5, the mean squares of q·k/√d per reason and how far histograms' chi-squares lie
above their bins.

>>> import sympy as sp
>>> d = sp.Symbol("d")
>>> is_zero(sp.sin(d) ** 2 + sp.cos(d) ** 2 - 1), written(d**2 / 2), worst({1: 0.4, 64: -1.2})
(True, 'd^2/2', 1.2)
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, fields
from typing import Any

import sympy as sp

__all__ = [
    "Counterexample",
    "chi_square_excess",
    "failed_lines",
    "is_zero",
    "law_records",
    "moment_records",
    "ratio_records",
    "worst",
    "written",
]


def is_zero(residual: sp.Expr) -> bool:
    """Whether ``residual`` simplifies to 0."""
    return sp.simplify(sp.sympify(residual)) == 0


def worst(zs: Mapping[object, float] | Sequence[float]) -> float:
    """The largest ``|z|`` of ``zs`` (its values where it is a mapping)."""
    values = zs.values() if isinstance(zs, Mapping) else zs
    return max(abs(float(z)) for z in values)


def written(expr: sp.Expr) -> str:
    """``expr`` simplified, as plain text (``d/2``, ``d^2 - 1``) for a template to print."""
    return sp.sstr(sp.simplify(sp.sympify(expr))).replace("**", "^")


def failed_lines(residuals: Mapping[str, sp.Expr]) -> list[dict[str, str]]:
    """A record (``name``, ``residual`` as :func:`written`) of each line whose residual does
    not vanish.

    >>> failed_lines({"mean": sp.Integer(0), "variance": sp.Symbol("d") / 2})
    [{'name': 'variance', 'residual': 'd/2'}]
    """
    return [
        {"name": name, "residual": written(r)} for name, r in residuals.items() if not is_zero(r)
    ]


@dataclass(frozen=True)
class Counterexample:
    """One simulated counterexample to Proposition 5 beside its closed form.

    ``independent_pairs``: every pair Proposition 5 lists is independent;
    ``uncorrelated_vectors``: every ``Cov(q_i, k_j)`` is zero, as Chuang's Section 1 asks.
    """

    label: str
    independent_pairs: bool
    uncorrelated_vectors: bool
    closed_form: float
    simulated: float
    z_closed_form: float
    z_claim: float

    @classmethod
    def from_table(cls, table: Any) -> list[Counterexample]:
        """One per row of a table indexed by label with a column per field (as
        :func:`attncore.simulate.montecarlo.proposition_5_table` returns).

        >>> import pandas as pd
        >>> t = pd.DataFrame({"independent_pairs": [True], "uncorrelated_vectors": [False],
        ...                   "closed_form": [32.0],
        ...                   "simulated": [31.0], "z_closed_form": [-1.0], "z_claim": [20.0],
        ...                   "se": [1.0]}, index=["swap"])
        >>> Counterexample.from_table(t)[0].label
        'swap'
        """
        names = [f.name for f in fields(cls) if f.name != "label"]
        return [cls(str(label), **row) for label, row in table[names].iterrows()]

    def breaks(self, claim: float, z_limit: float) -> bool:
        """The closed form differs from the claim, the simulation agrees with the closed form
        and lies beyond ``z_limit`` standard errors from the claim."""
        return (
            self.closed_form != claim
            and abs(self.z_closed_form) <= z_limit
            and abs(self.z_claim) > z_limit
        )

    def record(self) -> dict[str, Any]:
        """Its ``label``, whether its pairs are ``independent``, the ``simulated`` and
        ``derived`` variance and ``z``, the simulation's distance from the claim.

        >>> Counterexample("swap", True, False, 32.0, 31.8, -0.5, -40.0).record()["z"]
        40.0
        """
        return {
            "label": self.label,
            "independent": bool(self.independent_pairs),
            "simulated": float(self.simulated),
            "derived": float(self.closed_form),
            "z": abs(float(self.z_claim)),
        }


def moment_records(second_moments: Mapping[str, float]) -> list[dict[str, Any]]:
    """A record of each reason's mean square of q·k/√d: its ``reason``, ``value`` and the
    significant ``digits`` that print it whole from 1,000 up and to three below.

    >>> moment_records({"weights": 1234.5})
    [{'reason': 'weights', 'value': 1234.5, 'digits': 4}]
    """
    return [
        {"reason": reason, "value": float(value), "digits": max(3, len(f"{abs(value):.0f}"))}
        for reason, value in second_moments.items()
    ]


def law_records(breaking: Mapping[str, tuple[sp.Expr, float]]) -> list[dict[str, Any]]:
    """A record of each law's ``Var(q.k)`` against ``d``, from its residual and the z-score of
    its simulation: the ``law``, whether the residual vanishes (``exact``) and ``|z|``.

    >>> law_records({"Var q = 4, Var k = 1/4": (sp.Integer(0), -0.7)})
    [{'law': 'Var q = 4, Var k = 1/4', 'exact': True, 'z': 0.7}]
    """
    return [
        {"law": law, "exact": is_zero(r), "z": abs(float(z))} for law, (r, z) in breaking.items()
    ]


def ratio_records(
    max_ratios: Mapping[str, float], mean_ratios: Mapping[str, float]
) -> list[dict[str, Any]]:
    """A record of each law's simulated ``|q.k_i| / (k_total ||q||)``: its ``law``, the
    ``largest`` and the ``mean``.

    >>> ratio_records({"normal": 0.02}, {"normal": 0.003})
    [{'law': 'normal', 'largest': 0.02, 'mean': 0.003}]
    """
    return [
        {"law": law, "largest": float(max_ratios[law]), "mean": float(mean_ratios[law])}
        for law in max_ratios
    ]


def chi_square_excess(fits: Mapping[int, tuple[float, int]]) -> dict[int, tuple[float, float]]:
    """Per ``d``, from its ``(chi-square, bins)``: the chi-square per bin, and how many standard
    deviations (about ``sqrt(2 bins)`` without misfit) it lies above its mean (about ``bins``).

    >>> chi_square_excess({1: (400.0, 40)})
    {1: (10.0, 40.25)}
    """
    return {d: (chi / bins, (chi - bins) / (2 * bins) ** 0.5) for d, (chi, bins) in fits.items()}
