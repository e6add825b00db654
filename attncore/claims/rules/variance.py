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
from attncore.claims.thresholds import Threshold, decided_by
from attncore.claims.words import count as count_words
from attncore.claims.words import number, share

GROWN = Threshold(
    0.1,
    "margin",
    "a mean square of q·k/√d that grows by more than 10 % over its value 1 has grown: the "
    "softmax of logits 5 % wider moves visibly",
)
"""The rise of the mean square of q·k/√d above 1 from which a reason counts as growing it."""

SIMILAR = Threshold(
    0.05,
    "tolerance",
    "two factors within 5 % of each other give logits within 5 %, too close for the curve of "
    "distortion to tell apart",
)
"""How far k_total/(n√d) may be from 1 for the two to "behave similarly"."""

SMALLEST_D = Threshold(
    16, "smallest_d", "Bernhard's smallest dimension, 16 (his Figure 1)", scale="fixed"
)
"""The smallest d from which Bernhard's statement is read."""

__all__ = [
    "Counterexample",
    "agreement_sentence",
    "any_scalar_product",
    "assumptions_necessary",
    "bound_sentence",
    "cauchy_schwarz",
    "chuang_proposition",
    "chuang_proposition_5",
    "counterexample_sentence",
    "density_fit_sentence",
    "footnote_variance",
    "key_length_sentence",
    "moments_sentence",
    "n_sqrt_d_normal",
    "other_reasons",
    "other_reasons_sentence",
    "projection_sentence",
    "proof_lines",
    "propositions_sentence",
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
    claimed: str = "the claimed closed form",
    simulated_for: str = "",
) -> Finding:
    """Vaswani's ``Var(q.k) = d`` or the blog's ``Var(q.k / sqrt d) = 1``.

    ``claimed`` names the claimed form in the measured text; ``simulated_for``, where the
    simulation is one an earlier verdict of the page reported (the claim it was reported
    for, in words), says so instead of repeating its numbers.

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
    residual_text = "simplifies to zero" if symbolic else f"is {_inline(sp.simplify(residual))}"
    simulated = (
        f"the simulation is the one reported for {simulated_for}"
        if simulated_for
        else f"simulated at d = {ds[0]} to {ds[-1]} with {n_pairs:,} pairs each, every mean and "
        f"variance lies within {worst:.2f} standard errors of it (pass mark {z_limit:g})"
    )
    gives = "gives" if symbolic else "misses"
    measured = (
        f"the derivation for a symbolic d {gives} {claimed} (derived minus claimed "
        f"{residual_text}); {simulated}"
    )
    check = "symbolic derivation (cumulants of independent terms) and a simulation at each d"
    if not symbolic:
        verdict = Verdict.FAILS
    elif worst <= z_limit:
        verdict = Verdict.HOLDS
    else:
        verdict = Verdict.UNTESTABLE
        measured += "; the symbolic and simulated routes disagree, so no verdict"
    return Finding(claim, verdict, measured, check)


def _inline(expr: sp.Expr) -> str:
    """``expr`` as inline Markdown math (the measured text is read as MyST)."""
    return f"${sp.latex(expr)}$"


def proof_lines(claim: str, residuals: Mapping[str, sp.Expr]) -> Finding:
    """A derivation of a source text, judged line by line from the residuals (derived minus
    stated) of its re-derived lines: holds when every residual simplifies to zero, does not
    hold when one does not (named in the measured text), not testable without any line. The
    names are listed apart by semicolons, since a name may hold a comma.

    >>> proof_lines("blog-variance-derivation", {"line": sp.Integer(0)}).measured
    're-derived with sympy, its one line (line) simplifies to zero, derived minus stated'
    >>> proof_lines("chuang-proposition-2", {"line": sp.Symbol("a")}).measured
    'the line "line" does not follow: derived minus stated is $a$, not zero'
    """
    check = "each line of the argument re-derived with sympy; derived minus stated simplified"
    if not residuals:
        return Finding(claim, Verdict.UNTESTABLE, "no line of the argument was checked", check)
    failed = {name: r for name, r in residuals.items() if not _is_zero(r)}
    if failed:
        measured = "; ".join(
            f'the line "{name}" does not follow: derived minus stated is '
            f"{_inline(sp.simplify(r))}, not zero"
            for name, r in failed.items()
        )
        return Finding(claim, Verdict.FAILS, measured, check)
    count = len(residuals)
    lines = {1: "its one line", 2: "both of its lines"}.get(
        count, f"all {number(count)} of its lines"
    )
    verb = "simplifies" if count == 1 else "simplify"
    measured = (
        f"re-derived with sympy, {lines} ({'; '.join(residuals)}) {verb} to zero, derived "
        "minus stated"
    )
    return Finding(claim, Verdict.HOLDS, measured, check)


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
    its own closed form.

    >>> swap = Counterexample("swap", True, False, 32.0, 31.8, -0.5, 40.0)
    >>> chuang_proposition_5([swap], 16, 4.0).verdict
    <Verdict.FAILS: 'does not hold'>
    """
    measured = "; ".join(
        f"{r.label}{' (every listed pair independent)' if r.independent_pairs else ''}: "
        f"logit variance {r.simulated:.1f} simulated and {r.closed_form:g} derived, instead of "
        f"{d_k} ({abs(r.z_claim):.0f} standard errors away)"
        for r in rows
    )
    check = (
        "counterexamples with every listed covariance zero (independent pairs marked), derived "
        f"and simulated at d_k = {d_k}"
    )
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
    check = f"symbolic derivation and Monte Carlo over fresh weights and tokens, d_k = {d_k}"
    if not len(two_tokens_z):
        return Finding(
            "chuang-relaxed-variance", Verdict.UNTESTABLE, "no pair of tokens was simulated", check
        )
    worst_two, worst_self = _worst(two_tokens_z), _worst(self_z_derived)
    measured = (
        f"two distinct tokens: largest |z| against Chuang's formula {worst_two:.1f} (exact, not "
        f"approximate); note: a token with itself has the variance {self_factor:.4f} times his "
        f"formula at d_x = {d_x} (1 + (κ − 1)/d_x with κ the token kurtosis), simulation within "
        f"{worst_self:.1f} standard errors of that"
    )
    verdict = Verdict.HOLDS if worst_two <= z_limit else Verdict.FAILS
    return Finding("chuang-relaxed-variance", verdict, measured, check)


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
    the larger variance or an admitted counterexample breaks it; holds otherwise.

    >>> any_scalar_product(0.5, 9.0, 0.3, 1.125, 16, 4.0).verdict
    <Verdict.CAVEAT: 'holds with a caveat'>
    """
    measured = (
        f"with unit-variance projections, two different tokens: logit variance {abs(z_two):.1f} "
        f"standard errors from d_k = {d_k}; a token with itself: {abs(z_self):.1f} standard "
        f"errors from d_k and {abs(z_self_factor):.1f} from {self_factor:.4f} d_k"
    )
    check = (
        "Monte Carlo over fresh weights and tokens, the two kinds of pair apart; the "
        "counterexamples to Proposition 5 against assumption (iv)"
    )
    claim = "chuang-any-scalar-product-dk"
    if abs(z_two) > z_limit:
        return Finding(claim, Verdict.FAILS, measured, check)
    self_breaks = abs(z_self) > z_limit
    if self_breaks and abs(z_self_factor) > z_limit:
        measured += "; the token with itself matches neither closed form, so no verdict"
        return Finding(claim, Verdict.UNTESTABLE, measured, check)
    excluded = [r.label for r in counterexamples if not r.uncorrelated_vectors]
    admitted = [r for r in counterexamples if r.uncorrelated_vectors and r.breaks(d_k, z_limit)]
    if excluded:
        measured += (
            f"; assumption (iv) excludes the counterexample{'s' if len(excluded) > 1 else ''} "
            f"{', '.join(excluded)} of Proposition 5 (q_i correlated with some k_j)"
        )
    dependent = [f"the token with itself, {self_factor:.4f} d_k"] if self_breaks else []
    dependent += [f"{r.label}, {r.simulated:.1f} instead of {d_k}" for r in admitted]
    if not dependent:
        return Finding(claim, Verdict.HOLDS, measured, check)
    measured += (
        f"; queries and keys uncorrelated but dependent break it ({'; '.join(dependent)}): "
        "they meet assumption (iv) only if 'independent in the following ways' means zero "
        "covariances"
    )
    return Finding(claim, Verdict.CAVEAT, measured, check)


def assumptions_necessary(breaking: Mapping[str, tuple[sp.Expr, float]], z_limit: float) -> Finding:
    """Chuang: "the four assumptions are necessary" for the factor ``1/sqrt(d_k)``, read as
    logical necessity.

    ``breaking`` maps a law that violates one of the assumptions to the residual of its
    symbolic ``Var(q.k)`` against ``d`` (derived minus ``d``) and the z-score of the simulated
    variance against ``d``. Does not hold when such a law has variance ``d`` by both routes
    (the assumptions are sufficient, not necessary); holds when every such law misses ``d``;
    not testable when a simulation disagrees with its own closed form, or without a law.

    >>> assumptions_necessary({"Var q = 4, Var k = 1/4": (sp.Integer(0), 0.7)}, 4.0).verdict
    <Verdict.FAILS: 'does not hold'>
    """
    claim, check = (
        "chuang-assumptions-necessary",
        "laws that break an assumption, derived and simulated",
    )
    if not breaking:
        return Finding(claim, Verdict.UNTESTABLE, "no law breaking an assumption was tried", check)
    exact = {law: _is_zero(r) for law, (r, _) in breaking.items()}
    measured = "; ".join(
        f"{law}: logit variance {'exactly' if exact[law] else 'not'} d by the derivation, "
        f"simulation within {abs(z):.1f} standard errors of the derivation"
        for law, (_, z) in breaking.items()
    )
    if any(exact[law] and abs(z) > z_limit for law, (_, z) in breaking.items()):
        measured += "; a simulation disagrees with its closed form, so no verdict"
        return Finding(claim, Verdict.UNTESTABLE, measured, check)
    if any(exact.values()):
        measured += "; the assumptions are sufficient for Var(q·k) = d, not necessary"
        return Finding(claim, Verdict.FAILS, measured, check)
    return Finding(claim, Verdict.HOLDS, measured, check)


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
    holds with a caveat when some do; does not hold when none does; not testable without a
    reason or when a simulation disagrees with its closed form.

    >>> other_reasons({"means": 1.5, "weights": 16.0}, {"means": 0.3, "weights": 1.1}, 4).verdict
    <Verdict.HOLDS: 'holds'>
    """
    claim = "bernhard-other-reasons-large-dots"
    check = "closed forms of the mean and variance of q·k/√d at a fixed d, each simulated"
    if not second_moments:
        return Finding(claim, Verdict.UNTESTABLE, "no reason was tried", check)
    measured = "the mean square of q·k/√d, 1 in the footnote's setting, is " + ", ".join(
        f"{value:,.0f} with {reason}" if value >= 1000 else f"{value:.3g} with {reason}"
        for reason, value in second_moments.items()
    )
    if _worst(z_scores) > z_limit:
        measured += "; a simulation disagrees with its closed form, so no verdict"
        return Finding(claim, Verdict.UNTESTABLE, measured, check)
    grown = [r for r, v in second_moments.items() if v > 1 + margin]
    if len(grown) == len(second_moments):
        return Finding(claim, Verdict.HOLDS, measured, check)
    if grown:
        measured += "; not grown for " + ", ".join(r for r in second_moments if r not in grown)
        return Finding(claim, Verdict.CAVEAT, measured, check)
    return Finding(claim, Verdict.FAILS, measured, check)


def cauchy_schwarz(
    max_ratios: Mapping[str, float], mean_ratios: Mapping[str, float], typical: float, d: int
) -> Finding:
    """Bernhard's ``|k_i . q| / k_total <= ||q||``: a theorem, checked on simulated logits.

    Holds when no simulated ratio ``|q.k_i| / (k_total ||q||)`` exceeds 1 (up to rounding),
    does not hold otherwise, not testable without a simulated law.

    >>> cauchy_schwarz({"normal": 0.02}, {"normal": 0.003}, 0.003, 64).verdict
    <Verdict.HOLDS: 'holds'>
    """
    check = f"symbolic (Cauchy-Schwarz) and simulated logits per law, d = {d}"
    if not max_ratios:
        return Finding("bernhard-cauchy-schwarz", Verdict.UNTESTABLE, "no law was simulated", check)
    measured = "; ".join(
        f"{law}: largest ratio {max_ratios[law]:.3f}, mean {mean_ratios[law]:.4f}"
        for law in max_ratios
    )
    measured += f" (heuristic size √(2/(πd))/n = {typical:.4f})"
    ok = all(r <= 1 + 1e-12 for r in max_ratios.values())
    return Finding(
        "bernhard-cauchy-schwarz", Verdict.HOLDS if ok else Verdict.FAILS, measured, check
    )


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
    and the closed form disagree.

    >>> n_sqrt_d_normal({1: 0.80, 16: 0.985}, {1: 0.2, 16: -0.4}, 32, 4.0).verdict
    <Verdict.CAVEAT: 'holds with a caveat'>
    """
    ds = sorted(ratios)
    off = [d for d in ds if abs(ratios[d] - 1) > tolerance]
    measured = (
        f"k_total / (n√d) for n = {n_keys}: "
        + ", ".join(f"{ratios[d]:.3f} at d = {d}" for d in ds)
        + f"; largest |z| against the Gamma-function closed form {_worst(z_scores):.1f}"
    )
    check = f"Gamma-function closed form of E‖k‖ and simulated key sets; |ratio − 1| ≤ {tolerance}"
    if _worst(z_scores) > z_limit:
        verdict = Verdict.UNTESTABLE
        measured += "; the simulation and the closed form disagree, so no verdict"
    elif not off:
        verdict = Verdict.HOLDS
    elif all(d < smallest_d for d in off):
        verdict = Verdict.CAVEAT
        measured += (
            f"; the two scales part by more than {tolerance:.0%} below d = {smallest_d:g} "
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
    """What the counterexamples to Proposition 5 show, in words (the verdict line and the
    table give the variances).

    >>> row = Counterexample("swap", True, False, 32.0, 31.8, -0.5, 40.0)
    >>> counterexample_sentence([row], 16, 4.0)
    'At d_k = 16 the logit variance of the one law is far from d_k, and in it every listed \
pair is independent.'
    """
    broken = [r for r in rows if r.breaks(d_k, z_limit)]
    if not broken:
        return f"At d_k = {d_k} no law's logit variance is distinguishable from d_k."
    which = share(len(broken), len(rows), "law")
    if not any(r.independent_pairs for r in broken):
        return f"At d_k = {d_k} the logit variance of {which} is far from d_k."
    if len(rows) == 1:
        return (
            f"At d_k = {d_k} the logit variance of {which} is far from d_k, and in it every "
            "listed pair is independent."
        )
    return (
        f"At d_k = {d_k} the logit variance of {which} is far from d_k, including a law in "
        "which every listed pair is independent."
    )


def projection_sentence(worst_two: float, z_limit: float) -> str:
    """Whether the simulations of two different tokens agree with Chuang's formula, in words
    (the verdict line gives the distances; the chapter states the token with itself).

    >>> projection_sentence(1.0, 4.0)[:60]
    'For two different tokens every simulation agrees with Chuang'
    """
    if worst_two <= z_limit:
        return (
            "For two different tokens every simulation agrees with Chuang’s formula within the "
            "pass mark: it is exact, not approximate."
        )
    return "For two different tokens a simulation lies beyond the pass mark from Chuang’s formula."


def agreement_sentence(worst_z: float, z_limit: float, where: str) -> str:
    """Whether every simulated moment agrees with its closed form, in words (for a finding
    whose verdict line gives the largest distance).

    >>> agreement_sentence(1.2, 4.0, "across all dimensions")
    'Across all dimensions every simulated mean and variance agrees with its closed form \
within the pass mark.'
    """
    where = where[:1].upper() + where[1:]
    if worst_z <= z_limit:
        return (
            f"{where} every simulated mean and variance agrees with its closed form within the "
            "pass mark."
        )
    return f"{where} a simulated moment lies beyond the pass mark from its closed form."


def other_reasons_sentence(second_moments: Mapping[str, float], margin: float = GROWN) -> str:
    """Which reasons raise the mean square of q·k/√d above 1, in words (the verdict line
    gives the values).

    >>> other_reasons_sentence({"means 0.5": 5.5, "alignment": 1.01})
    'means 0.5 raises the mean square of q·k/√d above its value 1 in the footnote’s \
setting; alignment does not'
    """
    grown = [r for r, v in second_moments.items() if v > 1 + margin]
    flat = [r for r in second_moments if r not in grown]
    if not grown:
        return "none of the reasons tried raises the mean square of q·k/√d above its value 1"
    head = (
        f"each of the {count_words(len(grown), 'reason')} tried"
        if not flat and len(grown) > 1
        else ", ".join(grown)
    )
    verb = "raises" if head.startswith("each") or len(grown) == 1 else "raise"
    tail = f"; {', '.join(flat)} {'does' if len(flat) == 1 else 'do'} not" if flat else ""
    return (
        f"{head} {verb} the mean square of q·k/√d above its value 1 in the footnote’s setting{tail}"
    )


def key_length_sentence(ratios: Mapping[int, float], spread: Mapping[int, float]) -> str:
    """How close ``k_total / (n sqrt d)`` is to 1, at the smallest ``d >= 16`` simulated.

    >>> key_length_sentence({4: 0.94, 16: 0.985}, {4: 0.02, 16: 0.006})[:45]
    'At d = 16 the ratio k_total / (n√d) is 0.9850'
    """
    ds = sorted(ratios)
    d = next((d for d in ds if d >= 16), ds[-1])
    return (
        f"At d = {d} the ratio k_total / (n√d) is {ratios[d]:.4f}, and its standard "
        f"deviation from one key set to the next is {spread[d]:.4f}."
    )


def bound_sentence(max_ratio: float, mean_ratio: float, typical: float) -> str:
    """Whether the Cauchy-Schwarz bound held, and how loose it is: the rest of a sentence
    the page begins.

    >>> bound_sentence(0.03, 0.003, 0.0031)[-44:]
    'it is 0.0030, close to the heuristic 0.0031.'
    """
    head = (
        f"no simulated ratio exceeds 1 (the largest is {max_ratio:.3f})"
        if max_ratio <= 1 + 1e-12
        else f"a simulated ratio exceeds 1 ({max_ratio:.3f})"
    )
    near = "close to" if abs(mean_ratio / typical - 1) <= 0.5 else "far from"
    return f"{head}, and on average it is {mean_ratio:.4f}, {near} the heuristic {typical:.4f}."


def propositions_sentence(findings: Mapping[int, Finding]) -> str:
    """Whether Chuang's numbered propositions hold, from their findings (number -> finding).

    >>> ok = proof_lines("chuang-proposition-1", {"line": sp.Integer(0)})
    >>> propositions_sentence({1: ok, 2: ok})
    "Chuang's Propositions 1 to 2 hold: every line of their proofs, re-derived with sympy, \
simplifies to zero."
    """
    numbers = sorted(findings)
    failed = [n for n in numbers if findings[n].verdict is not Verdict.HOLDS]
    span = f"{numbers[0]} to {numbers[-1]}" if len(numbers) > 1 else f"{numbers[0]}"
    if not failed:
        return (
            f"Chuang's Propositions {span} hold: every line of their proofs, re-derived with "
            "sympy, simplifies to zero."
        )
    named = ", ".join(f"{n} ({findings[n].verdict.value})" for n in failed)
    return f"Of Chuang's Propositions {span}, not every one holds as stated: {named}."


def density_fit_sentence(fits: Mapping[int, tuple[float, int]], z_limit: float) -> str:
    """Whether histograms fit the exact density, from ``d -> (chi-square, bins)``.

    Without misfit a chi-square over ``bins`` bins has mean about ``bins`` and standard
    deviation about ``sqrt(2 bins)``; a histogram fits when its chi-square is at most
    ``z_limit`` such standard deviations above ``bins``.

    >>> density_fit_sentence({1: (41.0, 40), 16: (38.0, 40)}, 4.0)
    'At every d shown (1, 16) the histogram fits the exact density within sampling noise \
(chi-square per bin 1.02, 0.95; pass mark 4 standard deviations).'
    >>> density_fit_sentence({1: (400.0, 40)}, 4.0)
    'The histogram departs from the exact density at d = 1 (chi-square per bin 10.00, 40.2 \
standard deviations above its expected value); pass mark 4.'
    """
    z = {d: (chi - bins) / (2 * bins) ** 0.5 for d, (chi, bins) in fits.items()}
    per_bin = {d: chi / bins for d, (chi, bins) in fits.items()}
    bad = [d for d in sorted(fits) if z[d] > z_limit]
    if not bad:
        ds = ", ".join(f"{d}" for d in sorted(fits))
        values = ", ".join(f"{per_bin[d]:.2f}" for d in sorted(fits))
        shown = f"At every d shown ({ds})" if len(fits) > 1 else f"At the d shown ({ds})"
        return (
            f"{shown} the histogram fits the exact density within sampling noise "
            f"(chi-square per bin {values}; pass mark {z_limit:g} standard deviations)."
        )
    where = "; ".join(
        f"d = {d} (chi-square per bin {per_bin[d]:.2f}, {z[d]:.1f} standard deviations above "
        "its expected value)"
        for d in bad
    )
    return f"The histogram departs from the exact density at {where}; pass mark {z_limit:g}."
