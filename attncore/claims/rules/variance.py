"""Verdict rules and conclusions of the chapter "Why sqrt(d)": symbolic results and Monte Carlo.

Each rule takes what the chapter computed (sympy residuals ``derived - claimed`` that hold
when they simplify to 0, and z-scores of simulated moments against closed forms) and returns a
:class:`~attncore.claims.Finding` with its measured and check text. The sentence functions at
the end turn the same numbers into the chapter's glued conclusions.

>>> footnote_variance("vaswani-variance", sp.Integer(0), {1: 0.4, 64: -1.2}, 4.0, 10_000).verdict
<Verdict.HOLDS: 'holds'>
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, fields
from typing import Any

import sympy as sp

from attncore.claims.catalogue import Verdict
from attncore.claims.finding import Finding

__all__ = [
    "Counterexample",
    "bound_sentence",
    "cauchy_schwarz",
    "chuang_proposition",
    "chuang_proposition_5",
    "counterexample_sentence",
    "footnote_variance",
    "key_length_sentence",
    "moments_sentence",
    "n_sqrt_d_normal",
    "projection_sentence",
    "relaxed_variance",
]


def _is_zero(residual: sp.Expr) -> bool:
    return sp.simplify(sp.sympify(residual)) == 0


def _worst(zs: Mapping[object, float] | Sequence[float]) -> float:
    values = zs.values() if isinstance(zs, Mapping) else zs
    return max(abs(float(z)) for z in values)


def footnote_variance(
    claim: str,
    residual: sp.Expr,
    z_scores: Mapping[int, float],
    z_limit: float,
    n_pairs: int,
) -> Finding:
    """Vaswani's ``Var(q.k) = d`` or the blog's ``Var(q.k / sqrt d) = 1``.

    ``residual`` is the derived closed form minus the claimed one (``d`` a symbol);
    ``z_scores`` maps each simulated ``d`` to the largest ``|z|`` of the simulated mean and
    variance against the closed forms. Holds when the residual simplifies to 0 and every
    ``|z| <= z_limit``; does not hold when the residual does not vanish; not testable when the
    two routes disagree (a correct identity with a simulation beyond ``z_limit`` points to a
    bug, not to the claim).

    >>> footnote_variance("blog-scaled-variance", sp.Symbol("d") - 1, {4: 0.1}, 4, 10).verdict
    <Verdict.FAILS: 'does not hold'>
    """
    symbolic = _is_zero(residual)
    worst = _worst(z_scores)
    ds = sorted(z_scores)
    measured = (
        f"sympy: derived minus claimed = {sp.sstr(sp.simplify(residual))} for symbolic d; "
        f"simulation at d = {ds[0]}..{ds[-1]} ({n_pairs} pairs each): largest |z| of mean and "
        f"variance {worst:.2f} (pass mark {z_limit:g})"
    )
    check = "symbolic derivation (cumulants of independent terms) and Monte Carlo within z_limit"
    if not symbolic:
        verdict = Verdict.FAILS
    elif worst <= z_limit:
        verdict = Verdict.HOLDS
    else:
        verdict = Verdict.UNTESTABLE
        measured += "; the symbolic and simulated routes disagree, so no verdict"
    return Finding(claim, verdict, measured, check)


def chuang_proposition(number: int, residuals: Mapping[str, sp.Expr], statement: str) -> Finding:
    """Chuang's Propositions 1 to 4 from the residuals of their re-derived proof lines.

    Holds when every residual simplifies to 0, does not hold when one does not (named in the
    measured text), not testable without any checked line.

    >>> chuang_proposition(1, {"line": sp.Integer(0)}, "Var X = E X^2 - (E X)^2").verdict
    <Verdict.HOLDS: 'holds'>
    >>> chuang_proposition(2, {"line": sp.Symbol("a")}, "Cov").measured
    'the line "line" does not follow: residual a'
    """
    claim = f"chuang-proposition-{number}"
    check = "each line of the proof re-derived with sympy; residual derived - stated simplified"
    if not residuals:
        return Finding(claim, Verdict.UNTESTABLE, "no line of the proof was checked", check)
    failed = {name: r for name, r in residuals.items() if not _is_zero(r)}
    if failed:
        measured = "; ".join(
            f'the line "{name}" does not follow: residual {sp.sstr(sp.simplify(r))}'
            for name, r in failed.items()
        )
        return Finding(claim, Verdict.FAILS, measured, check)
    measured = f"{statement}: all {len(residuals)} checked lines hold ({', '.join(residuals)})"
    return Finding(claim, Verdict.HOLDS, measured, check)


@dataclass(frozen=True)
class Counterexample:
    """One simulated counterexample to Proposition 5 beside its closed form."""

    label: str
    independent_pairs: bool
    closed_form: float
    simulated: float
    z_closed_form: float
    z_claim: float

    @classmethod
    def from_table(cls, table: Any) -> list[Counterexample]:
        """One per row of a table indexed by label with a column per field (as
        :func:`attncore.simulate.montecarlo.proposition_5_table` returns).

        >>> import pandas as pd
        >>> t = pd.DataFrame({"independent_pairs": [True], "closed_form": [32.0],
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


def chuang_proposition_5(rows: Sequence[Counterexample], d_k: int, z_limit: float) -> Finding:
    """Chuang's ``Var(q.k) = d_k`` under zero means, unit variances and the listed zero
    covariances, read charitably: Chuang calls the pairs "independent in the following ways".

    Does not hold when a counterexample with every listed pair *independent* breaks it; holds
    with a caveat when only uncorrelated-but-dependent ones do (then it fails only under the
    covariance reading); holds when none breaks; not testable when a simulation disagrees with
    its own closed form.

    >>> swap = Counterexample("swap", True, 32.0, 31.8, -0.5, 40.0)
    >>> chuang_proposition_5([swap], 16, 4.0).verdict
    <Verdict.FAILS: 'does not hold'>
    """
    measured = "; ".join(
        f"{r.label}{' (every listed pair independent)' if r.independent_pairs else ''}: "
        f"Var(q.k) = {r.simulated:.1f} simulated, {r.closed_form:g} derived, instead of {d_k} "
        f"(z = {r.z_claim:.0f} against d_k)"
        for r in rows
    )
    check = f"counterexamples meeting every stated assumption, derived and simulated at d_k = {d_k}"
    if any(abs(r.z_closed_form) > z_limit for r in rows):
        return Finding(
            "chuang-proposition-5",
            Verdict.UNTESTABLE,
            measured + "; a simulation disagrees with its own closed form, so no verdict",
            check,
        )
    broken = [r for r in rows if r.breaks(d_k, z_limit)]
    if any(r.independent_pairs for r in broken):
        verdict = Verdict.FAILS
    elif broken:
        verdict = Verdict.CAVEAT
        measured += (
            "; only counterexamples with uncorrelated but dependent pairs break it: it fails "
            "if 'independent in the following ways' means zero covariances"
        )
    else:
        verdict = Verdict.HOLDS
    return Finding("chuang-proposition-5", verdict, measured, check)


def relaxed_variance(
    two_tokens_z: Sequence[float],
    self_z_derived: Sequence[float],
    self_factor: float,
    d_x: int,
    d_k: int,
    z_limit: float,
) -> Finding:
    """Chuang's ``(d_x s_X^2 s_Wq^2)(d_x s_X^2 s_Wk^2) d_k`` for projected tokens.

    Chuang says "approximated"; the formula is exact over fresh weights and two distinct
    tokens, so the rule holds when every two-token simulation is within ``z_limit`` standard
    errors of it and does not hold otherwise. A token attending to itself has the variance
    larger by ``self_factor`` = 1 + (kappa - 1)/d_x: a note in the measured text, not a failure.

    >>> relaxed_variance([0.3, -1.1], [0.2], 1.125, 16, 16, 4.0).verdict
    <Verdict.HOLDS: 'holds'>
    """
    worst_two, worst_self = _worst(two_tokens_z), _worst(self_z_derived)
    measured = (
        f"two distinct tokens: largest |z| against Chuang's formula {worst_two:.1f} (exact, not "
        f"approximate); note: a token with itself has the variance {self_factor:.4f} times his "
        f"formula at d_x = {d_x} (1 + (kappa - 1)/d_x), simulation within {worst_self:.1f} se "
        "of that factor"
    )
    check = f"symbolic derivation and Monte Carlo over fresh weights and tokens, d_k = {d_k}"
    verdict = Verdict.HOLDS if worst_two <= z_limit else Verdict.FAILS
    return Finding("chuang-relaxed-variance", verdict, measured, check)


def cauchy_schwarz(
    max_ratios: Mapping[str, float], mean_ratios: Mapping[str, float], typical: float, d: int
) -> Finding:
    """Bernhard's ``|k_i . q| / k_total <= ||q||``: a theorem, checked on simulated logits.

    Holds when no simulated ratio ``|q.k_i| / (k_total ||q||)`` exceeds 1 (up to rounding),
    does not hold otherwise.

    >>> cauchy_schwarz({"normal": 0.02}, {"normal": 0.003}, 0.003, 64).verdict
    <Verdict.HOLDS: 'holds'>
    """
    measured = "; ".join(
        f"{law}: largest ratio {max_ratios[law]:.3f}, mean {mean_ratios[law]:.4f}"
        for law in max_ratios
    )
    measured += f" (heuristic size sqrt(2/(pi d))/n = {typical:.4f})"
    check = f"symbolic (Cauchy-Schwarz) and simulated logits per law, d = {d}"
    ok = all(r <= 1 + 1e-12 for r in max_ratios.values())
    return Finding(
        "bernhard-cauchy-schwarz", Verdict.HOLDS if ok else Verdict.FAILS, measured, check
    )


def n_sqrt_d_normal(
    ratios: Mapping[int, float],
    z_scores: Mapping[int, float],
    n_keys: int,
    z_limit: float,
    tolerance: float = 0.05,
    smallest_d: int = 16,
) -> Finding:
    """Bernhard: dividing by ``n sqrt d`` "seems to exhibit similar behavior" to ``k_total``
    for standard normal components.

    ``ratios`` maps ``d`` to the mean of ``k_total / (n sqrt d)``; ``z_scores`` to its z-score
    against the exact Gamma-function value. Holds when every ratio is within ``tolerance`` of
    1; holds with a caveat when it is only for ``d >= smallest_d`` (Bernhard's smallest
    dimension, 16); does not hold when it is not even there; not testable when the simulation
    and the closed form disagree.

    >>> n_sqrt_d_normal({1: 0.80, 16: 0.985}, {1: 0.2, 16: -0.4}, 32, 4.0).verdict
    <Verdict.CAVEAT: 'holds with a caveat'>
    """
    ds = sorted(ratios)
    off = [d for d in ds if abs(ratios[d] - 1) > tolerance]
    measured = (
        f"k_total / (n sqrt d) for n = {n_keys}: "
        + ", ".join(f"{ratios[d]:.3f} at d = {d}" for d in ds)
        + f"; largest |z| against the Gamma-function closed form {_worst(z_scores):.1f}"
    )
    check = (
        f"Gamma-function closed form of E||k|| and simulated key sets; |ratio - 1| <= {tolerance}"
    )
    if _worst(z_scores) > z_limit:
        verdict = Verdict.UNTESTABLE
        measured += "; the simulation and the closed form disagree, so no verdict"
    elif not off:
        verdict = Verdict.HOLDS
    elif all(d < smallest_d for d in off):
        verdict = Verdict.CAVEAT
        measured += (
            f"; the two scales part by more than {tolerance:.0%} below d = {smallest_d} "
            f"(d = {', '.join(map(str, off))})"
        )
    else:
        verdict = Verdict.FAILS
    return Finding("bernhard-n-sqrt-d-normal", verdict, measured, check)


# --- conclusions: sentences for the chapter's prose ------------------------------------------


def moments_sentence(worst_z: float, z_limit: float, where: str) -> str:
    """Whether every simulated moment agrees with its closed form.

    >>> moments_sentence(1.2, 4.0, "across all dimensions")[:49]
    'Across all dimensions every simulated mean and va'
    """
    where = where[:1].upper() + where[1:]
    if worst_z <= z_limit:
        return (
            f"{where} every simulated mean and variance is within {worst_z:.1f} standard errors "
            f"of its closed form (pass mark {z_limit:g})."
        )
    return (
        f"{where} a simulated moment lies {worst_z:.1f} standard errors from its closed form, "
        f"beyond the pass mark of {z_limit:g}."
    )


def counterexample_sentence(rows: Sequence[Counterexample], d_k: int, z_limit: float) -> str:
    """What the counterexamples to Proposition 5 show.

    >>> row = Counterexample("swap", True, 32.0, 31.8, -0.5, 40.0)
    >>> counterexample_sentence([row], 16, 4.0)[:60]
    'At d_k = 16 the logit variance of 1 of 1 law is far from d_k'
    """
    broken = [r for r in rows if r.breaks(d_k, z_limit)]
    if not broken:
        return f"At d_k = {d_k} no law's logit variance is distinguishable from d_k."
    which = ", ".join(f"{r.label}: {r.simulated:.1f}" for r in broken)
    tail = (
        ", including a law in which every listed pair is independent"
        if any(r.independent_pairs for r in broken)
        else ""
    )
    return (
        f"At d_k = {d_k} the logit variance of {len(broken)} of {len(rows)} "
        f"law{'s' if len(rows) > 1 else ''} is far from d_k = {d_k} ({which}){tail}."
    )


def projection_sentence(worst_two: float, z_limit: float, self_factor: float, d_x: int) -> str:
    """Chuang's formula for two tokens, and the self-attention factor.

    >>> projection_sentence(1.0, 4.0, 1.125, 16)[-62:]
    'the variance is 1.1250 times larger at d_x = 16 (12.5 % more).'
    """
    first = (
        f"For two different tokens every simulation is within {worst_two:.1f} standard errors "
        "of Chuang’s formula: it is exact, not approximate."
        if worst_two <= z_limit
        else f"For two different tokens a simulation lies {worst_two:.1f} standard errors from "
        "Chuang’s formula."
    )
    return (
        f"{first} For a token attending to itself the variance is {self_factor:.4f} times larger "
        f"at d_x = {d_x} ({100 * (self_factor - 1):.1f} % more)."
    )


def key_length_sentence(ratios: Mapping[int, float], spread: Mapping[int, float]) -> str:
    """How close ``k_total / (n sqrt d)`` is to 1, at the smallest ``d >= 16`` simulated.

    >>> key_length_sentence({4: 0.94, 16: 0.985}, {4: 0.02, 16: 0.006})[:52]
    'At d = 16 the ratio k_total / (n sqrt d) is 0.9850, '
    """
    ds = sorted(ratios)
    d = next((d for d in ds if d >= 16), ds[-1])
    return (
        f"At d = {d} the ratio k_total / (n sqrt d) is {ratios[d]:.4f}, and its standard "
        f"deviation from one key set to the next is {spread[d]:.4f}."
    )


def bound_sentence(max_ratio: float, mean_ratio: float, typical: float) -> str:
    """Whether the Cauchy-Schwarz bound held, and how loose it is.

    >>> bound_sentence(0.03, 0.003, 0.0031)[-44:]
    'it is 0.0030, close to the heuristic 0.0031.'
    """
    head = (
        f"No simulated ratio exceeds 1 (the largest is {max_ratio:.3f})"
        if max_ratio <= 1 + 1e-12
        else f"A simulated ratio exceeds 1 ({max_ratio:.3f})"
    )
    near = "close to" if abs(mean_ratio / typical - 1) <= 0.5 else "far from"
    return f"{head}, and on average it is {mean_ratio:.4f}, {near} the heuristic {typical:.4f}."
