"""Verdict rules and conclusions of the chapter "Why sqrt(d)": symbolic results and Monte Carlo.

Each rule takes what the chapter computed (sympy residuals ``derived - claimed`` that hold
when they simplify to 0, and z-scores of simulated moments against closed forms) and returns a
:class:`~attncore.claims.Finding`: its verdict, the branch it took and the values that decided
it (the claim's templates in :mod:`attncore.claims.catalogue` say them). The functions at the
end return the chapter's own conclusions as a :class:`~attncore.claims.finding.Reading` (the
chapter's templates say them).

>>> footnote_variance("vaswani-variance", sp.Integer(0), {1: 0.4, 64: -1.2}, 4.0, 10_000).verdict
<Verdict.HOLDS: 'holds'>
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, fields
from typing import Any

import sympy as sp

from attncore.claims.catalogue import Verdict
from attncore.claims.finding import Finding, Reading
from attncore.claims.thresholds import decided_by
from attncore.claims.thresholds.variance import GROWN, SIMILAR, SMALLEST_D

__all__ = [
    "Counterexample",
    "any_scalar_product",
    "assumptions_necessary",
    "bound_reading",
    "cauchy_schwarz",
    "chuang_proposition",
    "chuang_proposition_5",
    "counterexample_reading",
    "density_fit",
    "footnote_variance",
    "key_length_reading",
    "moments_fit",
    "n_sqrt_d_normal",
    "other_reasons",
    "other_reasons_reading",
    "projection_reading",
    "proof_lines",
    "propositions_reading",
    "relaxed_variance",
]


def _is_zero(residual: sp.Expr) -> bool:
    return sp.simplify(sp.sympify(residual)) == 0


def _worst(zs: Mapping[object, float] | Sequence[float]) -> float:
    values = zs.values() if isinstance(zs, Mapping) else zs
    return max(abs(float(z)) for z in values)


def _written(expr: sp.Expr) -> str:
    """``expr`` simplified, as plain text (``d/2``, ``d^2 - 1``) for a template to print.

    >>> _written(sp.Symbol("d") ** 2 / 2)
    'd^2/2'
    """
    return sp.sstr(sp.simplify(sp.sympify(expr))).replace("**", "^")


def footnote_variance(
    claim: str,
    residual: sp.Expr,
    z_scores: Mapping[int, float],
    z_limit: float,
    n_pairs: int,
) -> Finding:
    """Vaswani's ``Var(q.k) = d``, the blog's ``Var(q.k / sqrt d) = 1`` or Chuang's
    ``sd(q.k) = sqrt d`` (each claim's templates name its form and, where the simulation is
    one an earlier verdict of the page reported, say so instead of repeating its numbers).

    ``residual`` is the derived closed form minus the claimed one (``d`` a symbol);
    ``z_scores`` maps each simulated ``d`` to the largest ``|z|`` of the simulated mean and
    variance against the closed forms. Holds when the residual simplifies to 0 and every
    ``|z| <= z_limit``; does not hold when the residual does not vanish; not testable when the
    two routes disagree (a correct identity with a simulation beyond ``z_limit`` points to a
    bug, not to the claim). Values: the simulated ``ds`` (lowest, highest), ``pairs``, the
    ``worst`` ``|z|``, ``z_limit``; ``residual`` (plain text) where it does not vanish.

    >>> found = footnote_variance("blog-scaled-variance", sp.Symbol("d") - 1, {4: 0.1}, 4, 10)
    >>> found.verdict, found.values["residual"]
    (<Verdict.FAILS: 'does not hold'>, 'd - 1')
    """
    symbolic = _is_zero(residual)
    worst = _worst(z_scores)
    ds = sorted(z_scores)
    values: dict[str, Any] = {
        "ds": (ds[0], ds[-1]),
        "pairs": n_pairs,
        "worst": worst,
        "z_limit": z_limit,
    }
    if not symbolic:
        return Finding(claim, Verdict.FAILS, values={**values, "residual": _written(residual)})
    verdict = Verdict.HOLDS if worst <= z_limit else Verdict.UNTESTABLE
    return Finding(claim, verdict, values=values)


def proof_lines(claim: str, residuals: Mapping[str, sp.Expr]) -> Finding:
    """A derivation of a source text, judged line by line from the residuals (derived minus
    stated) of its re-derived lines: holds when every residual simplifies to zero, does not
    hold when one does not, not testable without any line. Values: ``lines`` (k of n lines
    that simplify to zero) and their ``names`` (records of ``name``) where it holds; the
    lines that do not follow (records of ``name`` and ``residual``, ``failed``) where it
    does not.

    >>> proof_lines("blog-variance-derivation", {"line": sp.Integer(0)}).values
    {'lines': (1, 1), 'names': [{'name': 'line'}]}
    >>> proof_lines("chuang-proposition-2", {"line": sp.Symbol("a")}).values
    {'failed': [{'name': 'line', 'residual': 'a'}]}
    """
    if not residuals:
        return Finding(claim, Verdict.UNTESTABLE)
    failed = [
        {"name": name, "residual": _written(r)} for name, r in residuals.items() if not _is_zero(r)
    ]
    if failed:
        return Finding(claim, Verdict.FAILS, values={"failed": failed})
    values = {"lines": (len(residuals), len(residuals)), "names": [{"name": n} for n in residuals]}
    return Finding(claim, Verdict.HOLDS, values=values)


def chuang_proposition(number: int, residuals: Mapping[str, sp.Expr]) -> Finding:
    """Chuang's Propositions 1 to 4 from the residuals of their re-derived proof lines
    (:func:`proof_lines` for the claim ``chuang-proposition-<number>``).

    >>> chuang_proposition(1, {"line": sp.Integer(0)}).verdict
    <Verdict.HOLDS: 'holds'>
    """
    return proof_lines(f"chuang-proposition-{number}", residuals)


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


def chuang_proposition_5(rows: Sequence[Counterexample], d_k: int, z_limit: float) -> Finding:
    """Chuang's ``Var(q.k) = d_k`` under zero means, unit variances and the listed zero
    covariances, read charitably: Chuang calls the pairs "independent in the following ways".

    Does not hold when a counterexample with every listed pair *independent* breaks it; holds
    with a caveat when only uncorrelated-but-dependent ones do (then it fails only under the
    covariance reading); holds when none breaks; not testable when a simulation disagrees with
    its own closed form. Values: ``d_k`` and the ``laws`` (records of ``label``,
    ``independent``, ``simulated``, ``derived`` and ``z``, the distance from ``d_k`` in
    standard errors).

    >>> swap = Counterexample("swap", True, False, 32.0, 31.8, -0.5, 40.0)
    >>> chuang_proposition_5([swap], 16, 4.0).verdict
    <Verdict.FAILS: 'does not hold'>
    """
    laws = [
        {
            "label": r.label,
            "independent": bool(r.independent_pairs),
            "simulated": float(r.simulated),
            "derived": float(r.closed_form),
            "z": abs(float(r.z_claim)),
        }
        for r in rows
    ]
    values = {"d_k": d_k, "laws": laws}
    claim = "chuang-proposition-5"
    if any(abs(r.z_closed_form) > z_limit for r in rows):
        return Finding(claim, Verdict.UNTESTABLE, values=values)
    broken = [r for r in rows if r.breaks(d_k, z_limit)]
    if any(r.independent_pairs for r in broken):
        verdict = Verdict.FAILS
    elif broken:
        verdict = Verdict.CAVEAT
    else:
        verdict = Verdict.HOLDS
    return Finding(claim, verdict, values=values)


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
    larger by ``self_factor`` = 1 + (kappa - 1)/d_x: a note beside the verdict, not a
    failure. Values: ``d_k``; where tokens were simulated, ``worst_two`` and ``worst_self``
    (the largest ``|z|`` of each kind of pair), ``self_factor`` and ``d_x``.

    >>> relaxed_variance([0.3, -1.1], [0.2], 1.125, 16, 16, 4.0).verdict
    <Verdict.HOLDS: 'holds'>
    """
    claim = "chuang-relaxed-variance"
    if not len(two_tokens_z):
        return Finding(claim, Verdict.UNTESTABLE, values={"d_k": d_k})
    worst_two, worst_self = _worst(two_tokens_z), _worst(self_z_derived)
    values = {
        "worst_two": worst_two,
        "worst_self": worst_self,
        "self_factor": float(self_factor),
        "d_x": d_x,
        "d_k": d_k,
    }
    verdict = Verdict.HOLDS if worst_two <= z_limit else Verdict.FAILS
    return Finding(claim, verdict, values=values)


def any_scalar_product(
    z_two: float,
    z_self: float,
    z_self_factor: float,
    self_factor: float,
    d_k: int,
    z_limit: float,
    counterexamples: Sequence[Counterexample] = (),
) -> Finding:
    """Chuang, Section 1: with his four assumptions met (weights scaled so that the projected
    entries have unit variance) "any scalar products" of a query and a key have variance
    ``d_k``.

    ``z_two`` and ``z_self`` are the z-scores of the simulated variance against ``d_k`` for two
    different tokens and for a token with itself; ``z_self_factor`` that of the token with
    itself against ``self_factor * d_k``. ``counterexamples`` are those of Proposition 5: his
    assumption (iv) asks every ``Cov(q_i, k_j)`` to be zero, so only the ones with
    ``uncorrelated_vectors`` meet it, and these are dependent, so they meet it only if
    "independent in the following ways" means zero covariances (as the token with itself does).

    Does not hold when the different tokens miss ``d_k``; not testable when the token with
    itself matches neither closed form; holds with a caveat when the token with itself matches
    the larger variance or an admitted counterexample breaks it (branch ``caveat`` where a
    counterexample does, the values ``laws`` and ``itself`` saying which; ``caveat-itself``
    where only the token with itself does); holds otherwise. Values: the distances ``z_two``,
    ``z_self`` and ``z_factor`` (absolute), ``self_factor`` and ``d_k``; where it holds,
    with or without a caveat, ``excluded``: the counterexamples assumption (iv) excludes, as
    one record of their ``labels`` (none where it excludes none).

    >>> any_scalar_product(0.5, 9.0, 0.3, 1.125, 16, 4.0).branch
    'caveat-itself'
    """
    values: dict[str, Any] = {
        "z_two": abs(float(z_two)),
        "z_self": abs(float(z_self)),
        "z_factor": abs(float(z_self_factor)),
        "self_factor": float(self_factor),
        "d_k": d_k,
    }
    claim = "chuang-any-scalar-product-dk"
    if abs(z_two) > z_limit:
        return Finding(claim, Verdict.FAILS, values=values)
    self_breaks = abs(z_self) > z_limit
    if self_breaks and abs(z_self_factor) > z_limit:
        return Finding(claim, Verdict.UNTESTABLE, values=values)
    excluded = [r.label for r in counterexamples if not r.uncorrelated_vectors]
    admitted = [r for r in counterexamples if r.uncorrelated_vectors and r.breaks(d_k, z_limit)]
    values["excluded"] = [{"labels": excluded}] if excluded else []
    if not self_breaks and not admitted:
        return Finding(claim, Verdict.HOLDS, values=values)
    if not admitted:
        return Finding(claim, Verdict.CAVEAT, values=values, branch="caveat-itself")
    values["laws"] = [{"label": r.label, "simulated": float(r.simulated)} for r in admitted]
    values["itself"] = self_breaks
    return Finding(claim, Verdict.CAVEAT, values=values)


def assumptions_necessary(breaking: Mapping[str, tuple[sp.Expr, float]], z_limit: float) -> Finding:
    """Chuang: "the four assumptions are necessary" for the factor ``1/sqrt(d_k)``, read as
    logical necessity.

    ``breaking`` maps a law that violates one of the assumptions to the residual of its
    symbolic ``Var(q.k)`` against ``d`` (derived minus ``d``) and the z-score of the simulated
    variance against ``d``. Does not hold when such a law has variance ``d`` by both routes
    (the assumptions are sufficient, not necessary); holds when every such law misses ``d``;
    not testable when a simulation disagrees with its own closed form, or without a law
    (branch ``no-law``). Values: the ``laws`` (records of ``law``, ``exact``, whether the
    derivation gives ``d``, and ``z``, the simulation's distance from the derivation).

    >>> assumptions_necessary({"Var q = 4, Var k = 1/4": (sp.Integer(0), 0.7)}, 4.0).verdict
    <Verdict.FAILS: 'does not hold'>
    """
    claim = "chuang-assumptions-necessary"
    if not breaking:
        return Finding(claim, Verdict.UNTESTABLE, branch="no-law")
    exact = {law: _is_zero(r) for law, (r, _) in breaking.items()}
    laws = [
        {"law": law, "exact": exact[law], "z": abs(float(z))} for law, (_, z) in breaking.items()
    ]
    values = {"laws": laws}
    if any(exact[law] and abs(z) > z_limit for law, (_, z) in breaking.items()):
        return Finding(claim, Verdict.UNTESTABLE, values=values)
    if any(exact.values()):
        return Finding(claim, Verdict.FAILS, values=values)
    return Finding(claim, Verdict.HOLDS, values=values)


def _digits(value: float) -> int:
    """Significant digits that print ``value`` whole from 1,000 up and to three below."""
    return max(3, len(f"{abs(value):.0f}"))


@decided_by(GROWN)
def other_reasons(
    second_moments: Mapping[str, float],
    z_scores: Mapping[str, float],
    z_limit: float,
    margin: float = GROWN,
) -> Finding:
    """Bernhard: besides the dimension, "there are other reasons ... why the absolute value of
    these dot products might grow large".

    ``second_moments`` maps each reason (non-zero means, larger variances, aligned queries and
    keys, grown projection weights) to the closed-form ``E[(q.k / sqrt d)^2]`` at a fixed
    ``d`` (1 in the footnote's setting); ``z_scores`` to the largest z-score of its simulation
    against the closed forms. Holds when every reason raises it by more than ``margin``;
    holds with a caveat when some do; does not hold when none does; not testable when a
    simulation disagrees with its closed form, or without a reason (branch ``no-reason``).
    Values: the ``moments`` (records of ``reason``, ``value`` and the ``digits`` that print
    it); where some do and some do not, the reasons that do not (``flat``).

    >>> other_reasons({"means": 1.5, "weights": 16.0}, {"means": 0.3, "weights": 1.1}, 4).verdict
    <Verdict.HOLDS: 'holds'>
    """
    claim = "bernhard-other-reasons-large-dots"
    if not second_moments:
        return Finding(claim, Verdict.UNTESTABLE, branch="no-reason")
    moments = [
        {"reason": reason, "value": float(value), "digits": _digits(value)}
        for reason, value in second_moments.items()
    ]
    values: dict[str, Any] = {"moments": moments}
    if _worst(z_scores) > z_limit:
        return Finding(claim, Verdict.UNTESTABLE, values=values)
    grown = [r for r, v in second_moments.items() if v > 1 + margin]
    if len(grown) == len(second_moments):
        return Finding(claim, Verdict.HOLDS, values=values)
    if grown:
        values["flat"] = [r for r in second_moments if r not in grown]
        return Finding(claim, Verdict.CAVEAT, values=values)
    return Finding(claim, Verdict.FAILS, values=values)


def cauchy_schwarz(
    max_ratios: Mapping[str, float], mean_ratios: Mapping[str, float], typical: float, d: int
) -> Finding:
    """Bernhard's ``|k_i . q| / k_total <= ||q||``: a theorem, checked on simulated logits.

    Holds when no simulated ratio ``|q.k_i| / (k_total ||q||)`` exceeds 1 (up to rounding),
    does not hold otherwise, not testable without a simulated law. Values: ``d``; the
    ``laws`` (records of ``law``, ``largest`` and ``mean`` ratio) and the heuristic size
    ``typical``.

    >>> cauchy_schwarz({"normal": 0.02}, {"normal": 0.003}, 0.003, 64).verdict
    <Verdict.HOLDS: 'holds'>
    """
    claim = "bernhard-cauchy-schwarz"
    if not max_ratios:
        return Finding(claim, Verdict.UNTESTABLE, values={"d": d})
    laws = [
        {"law": law, "largest": float(max_ratios[law]), "mean": float(mean_ratios[law])}
        for law in max_ratios
    ]
    values = {"laws": laws, "typical": float(typical), "d": d}
    ok = all(r <= 1 + 1e-12 for r in max_ratios.values())
    return Finding(claim, Verdict.HOLDS if ok else Verdict.FAILS, values=values)


@decided_by(SIMILAR, SMALLEST_D)
def n_sqrt_d_normal(
    ratios: Mapping[int, float],
    z_scores: Mapping[int, float],
    n_keys: int,
    z_limit: float,
    tolerance: float = SIMILAR,
    smallest_d: int = SMALLEST_D,
) -> Finding:
    """Bernhard: dividing by ``n sqrt d`` "seems to exhibit similar behavior" to ``k_total``
    for standard normal components.

    ``ratios`` maps ``d`` to the mean of ``k_total / (n sqrt d)``; ``z_scores`` to its z-score
    against the exact Gamma-function value. Holds when every ratio is within ``tolerance`` of
    1; holds with a caveat when it is only for ``d >= smallest_d`` (Bernhard's smallest
    dimension, 16); does not hold when it is not even there; not testable when the simulation
    and the closed form disagree. Values: ``n`` (keys), the ``ratios`` (records of ``d`` and
    ``ratio``), the ``worst`` ``|z|``; where it holds with a caveat, the ``d`` that part
    (``off``).

    >>> n_sqrt_d_normal({1: 0.80, 16: 0.985}, {1: 0.2, 16: -0.4}, 32, 4.0).values["off"]
    [1]
    """
    ds = sorted(ratios)
    off = [d for d in ds if abs(ratios[d] - 1) > tolerance]
    worst = _worst(z_scores)
    values: dict[str, Any] = {
        "n": n_keys,
        "ratios": [{"d": d, "ratio": float(ratios[d])} for d in ds],
        "worst": worst,
    }
    claim = "bernhard-n-sqrt-d-normal"
    if worst > z_limit:
        return Finding(claim, Verdict.UNTESTABLE, values=values)
    if not off:
        return Finding(claim, Verdict.HOLDS, values=values)
    if all(d < smallest_d for d in off):
        return Finding(claim, Verdict.CAVEAT, values={**values, "off": off})
    return Finding(claim, Verdict.FAILS, values=values)


# --- conclusions: readings for the chapter's prose -------------------------------------------


def moments_fit(worst_z: float, z_limit: float) -> Reading:
    """Whether every simulated moment agrees with its closed form: branch ``within`` (every
    one within ``z_limit`` standard errors) or ``beyond``; values ``worst`` and ``z_limit``.

    >>> moments_fit(1.2, 4.0)
    Reading(branch='within', values={'worst': 1.2, 'z_limit': 4.0})
    """
    branch = "within" if worst_z <= z_limit else "beyond"
    return Reading(branch, {"worst": float(worst_z), "z_limit": z_limit})


def counterexample_reading(rows: Sequence[Counterexample], d_k: int, z_limit: float) -> Reading:
    """What the counterexamples to Proposition 5 show (the verdict line and the table give
    the variances): branch ``none`` (no law breaks it), ``dependent`` (only laws with
    dependent pairs do), ``one-law`` (the one law, every listed pair independent, does) or
    ``including`` (laws do, one with every listed pair independent among them); values
    ``d_k`` and ``broken`` (k of n laws).

    >>> row = Counterexample("swap", True, False, 32.0, 31.8, -0.5, 40.0)
    >>> counterexample_reading([row], 16, 4.0)
    Reading(branch='one-law', values={'d_k': 16, 'broken': (1, 1)})
    """
    broken = [r for r in rows if r.breaks(d_k, z_limit)]
    values = {"d_k": d_k, "broken": (len(broken), len(rows))}
    if not broken:
        return Reading("none", values)
    if not any(r.independent_pairs for r in broken):
        return Reading("dependent", values)
    return Reading("one-law" if len(rows) == 1 else "including", values)


def projection_reading(worst_two: float, z_limit: float) -> Reading:
    """Whether the simulations of two different tokens agree with Chuang's formula (the
    verdict line gives the distances): branch ``exact`` or ``off``; value ``worst``.

    >>> projection_reading(1.0, 4.0).branch
    'exact'
    """
    return Reading("exact" if worst_two <= z_limit else "off", {"worst": float(worst_two)})


def other_reasons_reading(second_moments: Mapping[str, float], margin: float = GROWN) -> Reading:
    """Which reasons raise the mean square of q·k/√d above 1 (the verdict line gives the
    values): branch ``none``, ``each`` (every one of several), ``one`` (the one tried) or
    ``some``; values ``reasons`` (how many), ``grown`` and ``flat`` (the reasons that do and
    those that do not).

    >>> other_reasons_reading({"means 0.5": 5.5, "alignment": 1.01})
    Reading(branch='some', values={'reasons': 2, 'grown': ['means 0.5'], 'flat': ['alignment']})
    """
    grown = [r for r, v in second_moments.items() if v > 1 + margin]
    flat = [r for r in second_moments if r not in grown]
    values = {"reasons": len(second_moments), "grown": grown, "flat": flat}
    if not grown:
        return Reading("none", values)
    if flat:
        return Reading("some", values)
    return Reading("each" if len(grown) > 1 else "one", values)


def key_length_reading(ratios: Mapping[int, float], spread: Mapping[int, float]) -> Reading:
    """How close ``k_total / (n sqrt d)`` is to 1, at the smallest ``d >= 16`` simulated
    (else the largest): branch ``at``; values ``d``, ``ratio`` and ``spread``.

    >>> key_length_reading({4: 0.94, 16: 0.985}, {4: 0.02, 16: 0.006}).values["d"]
    16
    """
    ds = sorted(ratios)
    d = next((d for d in ds if d >= 16), ds[-1])
    return Reading("at", {"d": d, "ratio": float(ratios[d]), "spread": float(spread[d])})


def bound_reading(max_ratio: float, mean_ratio: float, typical: float) -> Reading:
    """Whether the Cauchy-Schwarz bound held, and how loose it is: branch ``within`` (no
    simulated ratio above 1, up to rounding) or ``exceeds``; values ``largest``, ``mean``,
    ``typical`` and ``near`` (the mean within half of the heuristic ``typical``).

    >>> bound_reading(0.03, 0.003, 0.0031).values["near"]
    True
    """
    values = {
        "largest": float(max_ratio),
        "mean": float(mean_ratio),
        "typical": float(typical),
        "near": abs(mean_ratio / typical - 1) <= 0.5,
    }
    return Reading("within" if max_ratio <= 1 + 1e-12 else "exceeds", values)


def propositions_reading(findings: Mapping[int, Finding]) -> Reading:
    """Whether Chuang's numbered propositions hold, from their findings (number -> finding):
    branch ``hold`` or ``not-all``; values ``span`` (first and last number) and, where not
    all hold, the ``failed`` ones (records of ``number`` and ``verdict``).

    >>> ok = proof_lines("chuang-proposition-1", {"line": sp.Integer(0)})
    >>> propositions_reading({1: ok, 2: ok})
    Reading(branch='hold', values={'span': (1, 2)})
    """
    numbers = sorted(findings)
    failed = [n for n in numbers if findings[n].verdict is not Verdict.HOLDS]
    values: dict[str, Any] = {"span": (numbers[0], numbers[-1])}
    if not failed:
        return Reading("hold", values)
    values["failed"] = [{"number": n, "verdict": findings[n].verdict.value} for n in failed]
    return Reading("not-all", values)


def density_fit(fits: Mapping[int, tuple[float, int]], z_limit: float) -> Reading:
    """Whether histograms fit the exact density, from ``d -> (chi-square, bins)``.

    Without misfit a chi-square over ``bins`` bins has mean about ``bins`` and standard
    deviation about ``sqrt(2 bins)``; a histogram fits when its chi-square is at most
    ``z_limit`` such standard deviations above ``bins``. Branch ``fits`` (values: ``fits``,
    records of ``d`` and ``per_bin``, the chi-square per bin) or ``departs`` (values:
    ``misfits``, records of ``d``, ``per_bin`` and ``z``, the standard deviations above the
    expected value); both with ``z_limit``.

    >>> density_fit({1: (41.0, 40), 16: (38.0, 40)}, 4.0).branch
    'fits'
    >>> density_fit({1: (400.0, 40)}, 4.0).values["misfits"][0]["z"]
    40.25
    """
    z = {d: (chi - bins) / (2 * bins) ** 0.5 for d, (chi, bins) in fits.items()}
    per_bin = {d: chi / bins for d, (chi, bins) in fits.items()}
    bad = [d for d in sorted(fits) if z[d] > z_limit]
    if not bad:
        fitted = [{"d": d, "per_bin": per_bin[d]} for d in sorted(fits)]
        return Reading("fits", {"fits": fitted, "z_limit": z_limit})
    misfits = [{"d": d, "per_bin": per_bin[d], "z": z[d]} for d in bad]
    return Reading("departs", {"misfits": misfits, "z_limit": z_limit})
