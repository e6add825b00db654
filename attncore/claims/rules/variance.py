"""Verdict rules and readings of "Why sqrt(d)" and its appendix, on the numbers of
:mod:`attncore.evidence.variance`: sympy residuals ``derived - claimed``, which hold when they
simplify to 0, and z-scores of simulated moments against closed forms."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import sympy as sp

from attncore.claims.catalogue import Verdict
from attncore.claims.finding import Finding, Reading
from attncore.claims.thresholds import decided_by, thresholds_of
from attncore.evidence import variance as evidence
from attncore.evidence.variance import Counterexample

limits = thresholds_of("variance")

__all__ = [
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


def footnote_variance(
    claim: str, residual: sp.Expr, z_scores: Mapping[int, float], z_limit: float, n_pairs: int
) -> Finding:
    """``vaswani-variance``, ``blog-scaled-variance`` or ``chuang-temperature-sd``: fails when
    ``residual`` does not vanish, else holds when every ``|z| <= z_limit`` (not testable when
    not: a correct identity its simulation misses points to a bug).

    >>> found = footnote_variance("blog-scaled-variance", sp.Symbol("d") - 1, {4: 0.1}, 4, 10)
    >>> found.verdict, found.values["residual"]
    (<Verdict.FAILS: 'does not hold'>, 'd - 1')
    """
    symbolic = evidence.is_zero(residual)
    worst = evidence.worst(z_scores)
    ds = sorted(z_scores)
    values = {"ds": (ds[0], ds[-1]), "pairs": n_pairs, "worst": worst, "z_limit": z_limit}
    if not symbolic:
        values["residual"] = evidence.written(residual)
        return Finding(claim, Verdict.FAILS, values=values)
    verdict = Verdict.HOLDS if worst <= z_limit else Verdict.UNTESTABLE
    return Finding(claim, verdict, values=values)


def proof_lines(claim: str, residuals: Mapping[str, sp.Expr]) -> Finding:
    """A derivation, from its lines' residuals: holds when every one vanishes.

    >>> proof_lines("blog-variance-derivation", {"line": sp.Integer(0)}).values
    {'lines': (1, 1), 'names': [{'name': 'line'}]}
    """
    if not residuals:
        return Finding(claim, Verdict.UNTESTABLE)
    if failed := evidence.failed_lines(residuals):
        return Finding(claim, Verdict.FAILS, values={"failed": failed})
    values = {"lines": (len(residuals), len(residuals)), "names": [{"name": n} for n in residuals]}
    return Finding(claim, Verdict.HOLDS, values=values)


def chuang_proposition(number: int, residuals: Mapping[str, sp.Expr]) -> Finding:
    """``chuang-proposition-<number>`` (1 to 4): :func:`proof_lines` of its proof.

    >>> chuang_proposition(1, {"line": sp.Integer(0)}).verdict
    <Verdict.HOLDS: 'holds'>
    """
    return proof_lines(f"chuang-proposition-{number}", residuals)


def chuang_proposition_5(rows: Sequence[Counterexample], d_k: int, z_limit: float) -> Finding:
    """``chuang-proposition-5``, read charitably: fails when a counterexample with every listed
    pair independent breaks it, a caveat when only dependent ones do.

    >>> swap = Counterexample("swap", True, False, 32.0, 31.8, -0.5, 40.0)
    >>> chuang_proposition_5([swap], 16, 4.0).verdict
    <Verdict.FAILS: 'does not hold'>
    """
    values = {"d_k": d_k, "laws": [r.record() for r in rows]}
    claim = "chuang-proposition-5"
    if any(abs(r.z_closed_form) > z_limit for r in rows):
        return Finding(claim, Verdict.UNTESTABLE, values=values)
    broken = [r for r in rows if r.breaks(d_k, z_limit)]
    if any(r.independent_pairs for r in broken):
        return Finding(claim, Verdict.FAILS, values=values)
    return Finding(claim, Verdict.CAVEAT if broken else Verdict.HOLDS, values=values)


def relaxed_variance(
    two_tokens_z: Sequence[float],
    self_z_derived: Sequence[float],
    self_factor: float,
    d_x: int,
    d_k: int,
    z_limit: float,
) -> Finding:
    """``chuang-relaxed-variance``: exact for two distinct tokens, so holds when every two-token
    ``|z| <= z_limit``; a token with itself (``self_factor`` larger) is a note.

    >>> relaxed_variance([0.3, -1.1], [0.2], 1.125, 16, 16, 4.0).verdict
    <Verdict.HOLDS: 'holds'>
    """
    claim = "chuang-relaxed-variance"
    if not len(two_tokens_z):
        return Finding(claim, Verdict.UNTESTABLE, values={"d_k": d_k})
    worst_two, worst_self = evidence.worst(two_tokens_z), evidence.worst(self_z_derived)
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
    """``chuang-any-scalar-product-dk``: fails when different tokens miss ``d_k``; a caveat when
    a token with itself matches only ``self_factor * d_k`` (``caveat-itself``) or a
    counterexample with zero ``Cov(q_i, k_j)`` (assumption (iv)) breaks it (``caveat``).

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
    """``chuang-assumptions-necessary``, as logical necessity: fails when a law violating them
    has variance ``d`` by both routes.

    >>> assumptions_necessary({"Var q = 4, Var k = 1/4": (sp.Integer(0), 0.7)}, 4.0).verdict
    <Verdict.FAILS: 'does not hold'>
    """
    claim = "chuang-assumptions-necessary"
    if not breaking:
        return Finding(claim, Verdict.UNTESTABLE, branch="no-law")
    laws = evidence.law_records(breaking)
    if any(law["exact"] and law["z"] > z_limit for law in laws):
        return Finding(claim, Verdict.UNTESTABLE, values={"laws": laws})
    verdict = Verdict.FAILS if any(law["exact"] for law in laws) else Verdict.HOLDS
    return Finding(claim, verdict, values={"laws": laws})


@decided_by(limits.GROWN)
def other_reasons(
    second_moments: Mapping[str, float],
    z_scores: Mapping[str, float],
    z_limit: float,
    margin: float = limits.GROWN,
) -> Finding:
    """``bernhard-other-reasons-large-dots``: holds when every reason's mean square of q·k/√d
    exceeds ``1 + margin``, a caveat when some do.

    >>> other_reasons({"means": 1.5, "weights": 16.0}, {"means": 0.3, "weights": 1.1}, 4).verdict
    <Verdict.HOLDS: 'holds'>
    """
    claim = "bernhard-other-reasons-large-dots"
    if not second_moments:
        return Finding(claim, Verdict.UNTESTABLE, branch="no-reason")
    values: dict[str, Any] = {"moments": evidence.moment_records(second_moments)}
    if evidence.worst(z_scores) > z_limit:
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
    """``bernhard-cauchy-schwarz``: holds when no simulated ratio exceeds 1 (up to rounding).

    >>> cauchy_schwarz({"normal": 0.02}, {"normal": 0.003}, 0.003, 64).verdict
    <Verdict.HOLDS: 'holds'>
    """
    claim = "bernhard-cauchy-schwarz"
    if not max_ratios:
        return Finding(claim, Verdict.UNTESTABLE, values={"d": d})
    laws = evidence.ratio_records(max_ratios, mean_ratios)
    values = {"laws": laws, "typical": float(typical), "d": d}
    ok = all(r <= 1 + 1e-12 for r in max_ratios.values())
    return Finding(claim, Verdict.HOLDS if ok else Verdict.FAILS, values=values)


@decided_by(limits.SIMILAR, limits.SMALLEST_D)
def n_sqrt_d_normal(
    ratios: Mapping[int, float],
    z_scores: Mapping[int, float],
    n_keys: int,
    z_limit: float,
    tolerance: float = limits.SIMILAR,
    smallest_d: int = limits.SMALLEST_D,
) -> Finding:
    """``bernhard-n-sqrt-d-normal``: holds when every ratio is within ``tolerance`` of 1, a
    caveat when only from ``smallest_d`` on.

    >>> n_sqrt_d_normal({1: 0.80, 16: 0.985}, {1: 0.2, 16: -0.4}, 32, 4.0).values["off"]
    [1]
    """
    ds = sorted(ratios)
    off = [d for d in ds if abs(ratios[d] - 1) > tolerance]
    worst = evidence.worst(z_scores)
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


def moments_fit(worst_z: float, z_limit: float) -> Reading:
    """Branch ``within`` where the worst simulated moment is within ``z_limit`` standard errors
    of its closed form, else ``beyond``.

    >>> moments_fit(1.2, 4.0)
    Reading(branch='within', values={'worst': 1.2, 'z_limit': 4.0})
    """
    branch = "within" if worst_z <= z_limit else "beyond"
    return Reading(branch, {"worst": float(worst_z), "z_limit": z_limit})


def counterexample_reading(rows: Sequence[Counterexample], d_k: int, z_limit: float) -> Reading:
    """Which counterexamples break Proposition 5: ``none``, ``dependent`` (only dependent pairs),
    ``one-law`` (the only law, pairs independent) or ``including``.

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
    """Branch ``exact`` where two different tokens agree with Chuang's formula, else ``off``.

    >>> projection_reading(1.0, 4.0).branch
    'exact'
    """
    return Reading("exact" if worst_two <= z_limit else "off", {"worst": float(worst_two)})


def other_reasons_reading(
    second_moments: Mapping[str, float], margin: float = limits.GROWN
) -> Reading:
    """Which reasons raise the mean square of q·k/√d above ``1 + margin``: ``none``, ``each``,
    ``one`` (the one tried) or ``some``.

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
    """``k_total / (n sqrt d)`` at the smallest ``d >= 16`` simulated (else the largest).

    >>> key_length_reading({4: 0.94, 16: 0.985}, {4: 0.02, 16: 0.006}).values["d"]
    16
    """
    ds = sorted(ratios)
    d = next((d for d in ds if d >= 16), ds[-1])
    return Reading("at", {"d": d, "ratio": float(ratios[d]), "spread": float(spread[d])})


def bound_reading(max_ratio: float, mean_ratio: float, typical: float) -> Reading:
    """Branch ``within`` the Cauchy-Schwarz bound or ``exceeds``; ``near``: the mean ratio within
    half of the heuristic ``typical``.

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
    """Branch ``hold`` where every numbered proposition's finding holds, else ``not-all``.

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
    """Branch ``fits`` where every chi-square is at most ``z_limit`` standard deviations above
    its bins (:func:`~attncore.evidence.variance.chi_square_excess`), else ``departs``.

    >>> density_fit({1: (41.0, 40), 16: (38.0, 40)}, 4.0).branch
    'fits'
    """
    excess = evidence.chi_square_excess(fits)
    bad = [d for d in sorted(fits) if excess[d][1] > z_limit]
    if not bad:
        fitted = [{"d": d, "per_bin": excess[d][0]} for d in sorted(fits)]
        return Reading("fits", {"fits": fitted, "z_limit": z_limit})
    misfits = [{"d": d, "per_bin": excess[d][0], "z": excess[d][1]} for d in bad]
    return Reading("departs", {"misfits": misfits, "z_limit": z_limit})
