"""Verdicts on the three visual claims of Bernhard's Figures 1 and 2, and the sentences that
state them.

Every rule reads one table of per-draw statistics, the long table of
:func:`attncore.sources.bernhard.sweep` (columns ``seed``, ``panel``, ``sample`` and the
distortion statistics of each softmax panel), for one sample, ``"intended"`` or
``"published"``. A draw is one independent simulation of all six panels, so every comparison
of two panels is paired draw by draw, and every mean over draws carries its standard error:
a mean is *clearly* beyond a mark when it is beyond it by more than :data:`Z` standard errors.
Besides the means, each rule asks how often a single draw (what one printed figure shows)
agrees, against the share ``share_required``.

Each rule comes in two forms: ``assess_*`` returns an :class:`Assessment` (the
:class:`~attncore.claims.Finding` and the sentence that states the result in words), and the
plain rule returns only the finding. The numbers live in the finding's measured text, which the
chapter shows once, in its verdict line; the conclusion says what they mean without repeating
them, so that a page can state it elsewhere (its takeaways) and link to the numbers.

>>> import pandas as pd
>>> rows = [
...     {"seed": s, "panel": p, "sample": "intended", "wasserstein": w, "ks_statistic": w / 2,
...      "skewness_change": 3 * w, "q50": 1e-4, "mean_normalized_entropy": 0.9}
...     for s in range(4) for p, w in [("1b", 0.7 + s / 100), ("1c", 0.3 + s / 100)]
... ]
>>> sqrt_d_helps(pd.DataFrame(rows)).verdict.value
'holds'
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import stats

from attncore.checks import ParameterError
from attncore.claims.catalogue import Verdict
from attncore.claims.finding import Finding
from attncore.claims.statistics import clear, level, single
from attncore.claims.thresholds import Threshold, decided_by

__all__ = [
    "SAME_SAMPLE_SHARE",
    "Assessment",
    "Estimate",
    "Z",
    "assess_k_total_better",
    "assess_other_components_similar",
    "assess_sqrt_d_helps",
    "assess_unscaled_distorts",
    "changed_verdicts",
    "differing_share",
    "estimate",
    "fig1_vanishing_inference",
    "k_total_better",
    "other_components_similar",
    "published_agreement_sentence",
    "samples_differ_sentence",
    "sqrt_d_helps",
    "unscaled_distorts",
]

Z = Threshold(
    2.0,
    "z",
    "two standard errors, the usual mark of a single comparison; with few draws a t test over "
    f"them at the same level ({100 * level(2.0):.1f} %) asks for more",
    scale="fixed",
)
"""The level, in standard errors of a normal statistic, at which a mean counts as clearly
beyond a mark: a t test over its draws (:func:`attncore.claims.statistics.single`)."""

SHARE_REQUIRED = Threshold(
    0.95,
    "share_required",
    "'it is apparent / clear from the plot' read as: a single draw, what one printed figure "
    "shows, shows it 19 times in 20",
    scale="share",
)
"""The share of single draws that must show what a figure is said to show."""

SKEWED = Threshold(
    1.0,
    "skewed",
    "a skewness above 1 marks a highly skewed sample by the usual convention: 'pronounced'",
)
"""The skewness change above which a right skew counts as pronounced."""

NEAR_ZERO_WEIGHT = Threshold(
    0.1,
    "near_zero_weight",
    "a median weight below a tenth of the uniform share 1/n is 'weighted heavily near 0'",
)
"""The median weight, in units of 1/n, below which the weights sit heavily near 0."""

MUCH = Threshold(
    0.5,
    "much",
    "'much better' read as less than half the distortion, on both distances",
)
"""The ratio of distortions below which one scaling keeps the shape much better."""


@dataclass(frozen=True)
class Estimate:
    """A mean over draws with its standard error (sample standard deviation / sqrt(n))."""

    mean: float
    se: float
    n: int

    def above(self, mark: float) -> bool:
        """Whether the mean is clearly above ``mark``: a t test over its ``n`` draws at the
        level of :data:`Z` standard errors (never with one draw).

        >>> Estimate(1.0, 0.1, 200).above(0.7), Estimate(1.0, 0.1, 2).above(0.7)
        (True, False)
        """
        return bool(single([self.mean - mark], [self.se], self.n, "above", Z)[0])

    def below(self, mark: float) -> bool:
        """Whether the mean is clearly below ``mark``."""
        return bool(single([self.mean - mark], [self.se], self.n, "below", Z)[0])

    def text(self, digits: int = 2) -> str:
        """``mean ± se`` with ``digits`` decimals; a standard error that would print as zero
        gets one significant digit instead.

        >>> Estimate(0.99986, 0.000004, 10).text(5)
        '0.99986 ± 4e-06'
        """
        se = f"{self.se:.{digits}f}"
        if self.se > 0 and float(se) == 0:
            se = f"{self.se:.1g}"
        return f"{self.mean:.{digits}f} ± {se}"


def estimate(values: Sequence[float] | np.ndarray | pd.Series) -> Estimate:
    """Mean and standard error of ``values`` (at least two, all finite).

    >>> e = estimate([1.0, 2.0, 3.0, 4.0])
    >>> e.mean, round(e.se, 4), e.above(1.5), e.below(5.0)
    (2.5, 0.6455, False, True)
    """
    x = np.asarray(values, dtype=float)
    if x.ndim != 1 or x.size < 2 or not np.all(np.isfinite(x)):
        raise ParameterError(f"values must be at least 2 finite numbers, got {x.size}")
    return Estimate(float(x.mean()), float(x.std(ddof=1) / math.sqrt(x.size)), int(x.size))


@dataclass(frozen=True)
class Assessment:
    """A rule's finding and the sentence that states its result in words: no number of the
    measured text, which the page shows once, in the verdict line."""

    finding: Finding
    conclusion: str


def _series(panels: pd.DataFrame, sample: str, panel: str, column: str) -> pd.Series:
    part = panels[(panels["panel"] == panel) & (panels["sample"] == sample)]
    return part.set_index("seed")[column].sort_index()


def _testable(*series: pd.Series) -> str | None:
    """Why the series cannot be judged, or ``None``."""
    n = min(s.size for s in series)
    if n < 2:
        return f"{n} draw(s): a standard error needs at least 2"
    if any(not np.all(np.isfinite(s.to_numpy(dtype=float))) for s in series):
        return "some draws have no value"
    return None


def _untestable(claim: str, reason: str, what: str) -> Assessment:
    return Assessment(
        Finding(claim, Verdict.UNTESTABLE, f"nothing measured: {reason}", what),
        f"This run cannot judge the claim: {reason}.",
    )


def _pct(share: float) -> str:
    return f"{100 * share:.0f} %"


def _state(e: Estimate, mark: float, side: str) -> str:
    """``"clearly"``, ``"against"`` or ``"borderline"`` for a mean meant to lie on ``side``."""
    if e.above(mark) if side == ">" else e.below(mark):
        return "clearly"
    if e.below(mark) if side == ">" else e.above(mark):
        return "against"
    return "borderline"


@decided_by(SHARE_REQUIRED, SKEWED, NEAR_ZERO_WEIGHT, Z)
def assess_unscaled_distorts(
    panels: pd.DataFrame,
    *,
    n_keys: int,
    ks_critical: float,
    share_required: float = SHARE_REQUIRED,
    sample: str = "intended",
    panel: str = "1b",
    skewed: float = SKEWED,
    near_zero_weight: float = NEAR_ZERO_WEIGHT,
) -> Assessment:
    """Bernhard, Figure 1(b): without scaling the softmax "severely distorts" the shape, which
    is "weighted heavily near 0 and has a pronounced right skew".

    Read as three marks, each on the mean over draws: a skewness change above ``skewed`` (a
    highly skewed sample by the usual convention: "pronounced"), a median weight below
    ``near_zero_weight`` of the uniform share ``1/n`` ("heavily near 0"), and a KS distance
    from the raw shape above ``ks_critical`` (a distortion no sampling noise explains). Holds
    if every mean is clearly beyond its mark and at least ``share_required`` of single draws
    pass all three; does not hold if a mean is clearly on the wrong side; otherwise holds
    with a caveat.

    >>> rows = [{"seed": s, "panel": "1b", "sample": "intended", "skewness_change": 5.0 + s,
    ...          "q50": 1e-4, "ks_statistic": 0.4} for s in range(3)]
    >>> assess_unscaled_distorts(pd.DataFrame(rows), n_keys=32, ks_critical=0.09).finding.verdict
    <Verdict.HOLDS: 'holds'>
    """
    claim = "bernhard-fig1-unscaled-distorts"
    skew = _series(panels, sample, panel, "skewness_change")
    weight = _series(panels, sample, panel, "q50") * n_keys
    ks = _series(panels, sample, panel, "ks_statistic")
    check = (
        f"means over draws ({sample} samples of panel {panel}) beyond each mark by more than "
        f"{Z:g} standard errors: skewness change > {skewed:.3g} (highly skewed, the usual "
        f"convention), median weight < {near_zero_weight:.3g}/n, KS > {ks_critical:.3f} (5 % "
        f"critical value for two samples of this size); and all three in at least "
        f"{_pct(share_required)} of single draws"
    )
    reason = _testable(skew, weight, ks)
    if reason:
        return _untestable(claim, reason, check)
    marks = {
        "skewness change": (estimate(skew), skewed, ">", 2),
        "median weight in units of 1/n": (estimate(weight), near_zero_weight, "<", 4),
        "KS distance": (estimate(ks), ks_critical, ">", 3),
    }
    states = {name: _state(e, mark, side) for name, (e, mark, side, _) in marks.items()}
    share = float(np.mean((skew > skewed) & (weight < near_zero_weight) & (ks > ks_critical)))
    measured = (
        f"panel {panel}, {skew.size} draws, {sample} samples: "
        + ", ".join(f"{name} {e.text(digits)}" for name, (e, _, _, digits) in marks.items())
        + f"; all three marks passed in {_pct(share)} of draws"
    )
    against = [name for name, state in states.items() if state == "against"]
    borderline = [name for name, state in states.items() if state == "borderline"]
    if against:
        verdict = Verdict.FAILS
        measured += f"; on the wrong side of its mark: {', '.join(against)}"
        conclusion = (
            f"Without scaling the output is not severely distorted by the book's marks: the "
            f"{' and the '.join(against)} of the mean draw fall on the wrong side."
        )
    elif borderline or share < share_required:
        verdict = Verdict.CAVEAT
        why, words = [], []
        if borderline:
            why.append(f"within {Z:g} standard errors of its mark: {', '.join(borderline)}")
            words.append(f"the {' and the '.join(borderline)} cannot be told from the mark")
        if share < share_required:
            why.append(f"fewer than {_pct(share_required)} of draws pass all three")
            words.append("too few single draws show all three signs together")
        measured += "; " + "; ".join(why)
        conclusion = (
            "Without scaling the output is distorted on average, but not unmistakably: "
            + " and ".join(words)
            + "."
        )
    else:
        verdict = Verdict.HOLDS
        conclusion = (
            "All three signs of a severe distortion hold together, on average and in single "
            "draws, so Bernhard's reading of Figure 1(b) is not an artefact of his seed."
        )
    return Assessment(Finding(claim, verdict, measured, check), conclusion)


def unscaled_distorts(panels: pd.DataFrame, **options: object) -> Finding:
    """The finding of :func:`assess_unscaled_distorts`."""
    return assess_unscaled_distorts(panels, **options).finding  # type: ignore[arg-type]


def _paired(panels: pd.DataFrame, sample: str, base: str, other: str, column: str) -> pd.Series:
    """``column`` of panel ``base`` minus that of panel ``other``, draw by draw."""
    a, b = _series(panels, sample, base, column), _series(panels, sample, other, column)
    joined = pd.concat([a, b], axis=1, join="inner")
    return joined.iloc[:, 0] - joined.iloc[:, 1]


@decided_by(SHARE_REQUIRED, Z)
def assess_sqrt_d_helps(
    panels: pd.DataFrame,
    *,
    share_required: float = SHARE_REQUIRED,
    sample: str = "intended",
    unscaled: str = "1b",
    scaled: str = "1c",
) -> Assessment:
    """Bernhard, Figure 1(c): dividing by sqrt(d) leaves "a mild right skew that was not present
    in the distribution before" but helps "preserve the general shape of the distribution
    compared to not scaling at all".

    "Mild" is read against panel 1b's "pronounced" skew, draw by draw: the skewness change of
    1c clearly smaller than that of 1b. "Helps" means the Wasserstein-1 and KS distortions of
    1c are both clearly smaller than those of 1b (paired per draw). Holds if both are true,
    a right skew is clearly there, and at least ``share_required`` of single draws show 1c
    less distorted on both distances; does not hold if 1c is not clearly less distorted or
    its skew is not clearly milder; otherwise holds with a caveat.

    >>> rows = [{"seed": s, "panel": p, "sample": "intended", "wasserstein": w,
    ...          "ks_statistic": w, "skewness_change": 10 * w}
    ...         for s in range(3) for p, w in [("1b", 0.7 - s / 50), ("1c", 0.7 + s / 50)]]
    >>> sqrt_d_helps(pd.DataFrame(rows)).verdict.value
    'does not hold'
    """
    claim = "bernhard-fig1-sqrt-d-helps"
    d_w = _paired(panels, sample, unscaled, scaled, "wasserstein")
    d_ks = _paired(panels, sample, unscaled, scaled, "ks_statistic")
    d_skew = _paired(panels, sample, unscaled, scaled, "skewness_change")
    skew = _series(panels, sample, scaled, "skewness_change")
    check = (
        f"paired over draws ({sample} samples): the W₁ and KS distortions of {scaled} below "
        f"those of {unscaled} by more than {Z:g} standard errors of the mean difference "
        f"('helps'); the skewness change of {scaled} below that of {unscaled} the same way "
        f"('mild', read against the 'pronounced' skew of {unscaled}) and above 0 ('right "
        f"skew'); and {scaled} less distorted on both distances in at least "
        f"{_pct(share_required)} of single draws"
    )
    reason = _testable(d_w, d_ks, d_skew, skew)
    if reason:
        return _untestable(claim, reason, check)
    e_w, e_ks, e_skew, e_right = estimate(d_w), estimate(d_ks), estimate(d_skew), estimate(skew)
    base_w = estimate(_series(panels, sample, unscaled, "wasserstein"))
    base_skew = estimate(_series(panels, sample, unscaled, "skewness_change"))
    share = float(np.mean((d_w > 0) & (d_ks > 0)))
    w_left = 1 - e_w.mean / base_w.mean if base_w.mean else math.nan
    skew_left = 1 - e_skew.mean / base_skew.mean if base_skew.mean else math.nan
    measured = (
        f"{d_w.size} draws, {sample} samples: W₁ lower by {e_w.text(3)} "
        f"(left: {100 * w_left:.0f} % of the W₁ of {unscaled}), KS lower by {e_ks.text(3)}, "
        f"both lower in {_pct(share)} of draws; skewness change {e_right.text(2)}, "
        f"{e_skew.text(2)} below that of {unscaled} (left: {100 * skew_left:.0f} % of it)"
    )
    helps = e_w.above(0) and e_ks.above(0)
    milder = e_skew.above(0)
    if not (helps and milder):
        verdict = Verdict.FAILS
        missing = [
            text
            for text, ok in [
                (
                    f"the distortion of {scaled} is not clearly smaller than that of {unscaled}",
                    helps,
                ),
                (f"its skew is not clearly milder than that of {unscaled}", milder),
            ]
            if not ok
        ]
        conclusion = "Dividing by √d does not help as claimed: " + " and ".join(missing) + "."
    elif not e_right.above(0) or share < share_required:
        verdict = Verdict.CAVEAT
        why, words = [], []
        if not e_right.above(0):
            why.append("no right skew clearly left")
            words.append("no right skew is clearly left, unlike the paper's panel")
        if share < share_required:
            why.append(f"both lower in fewer than {_pct(share_required)} of draws")
            words.append("too few single draws show the improvement")
        measured += "; " + "; ".join(why)
        conclusion = (
            "Dividing by √d lowers the distortion on average, but " + " and ".join(words) + "."
        )
    else:
        verdict = Verdict.HOLDS
        conclusion = (
            "Dividing by √d lowers both distances, on average and in single draws; the right "
            "skew it leaves is clearly there and clearly milder than without scaling, which is "
            "what Bernhard's 'mild' says next to his panel (b)."
        )
    return Assessment(Finding(claim, verdict, measured, check), conclusion)


def sqrt_d_helps(panels: pd.DataFrame, **options: object) -> Finding:
    """The finding of :func:`assess_sqrt_d_helps`."""
    return assess_sqrt_d_helps(panels, **options).finding  # type: ignore[arg-type]


@decided_by(SHARE_REQUIRED, MUCH, Z)
def assess_k_total_better(
    panels: pd.DataFrame,
    *,
    share_required: float = SHARE_REQUIRED,
    sample: str = "intended",
    base: str = "2b",
    other: str = "2c",
    much: float = MUCH,
    uniform_entropy: float = 0.99,
) -> Assessment:
    """Bernhard, Figure 2: pre-dividing by k_total "preserves the shape of the distribution
    much better than pre-dividing by sqrt(d)".

    Paired per draw: the W₁ and KS distortions of panel ``other`` (1/k_total) clearly below
    those of ``base`` (1/sqrt(d)) is "better"; "much better" is the book's reading that the
    mean ratio of the two distortions is clearly below ``much`` on both distances. Does not
    hold if not clearly better. Holds if much better and better in at least
    ``share_required`` of single draws; otherwise holds with a caveat. Where the mean
    normalized entropy of the rows is at least ``uniform_entropy``, the shape is kept because
    the softmax barely acts: the conclusion and the measured text say so, but the verdict,
    on a claim about shape, does not hold it against the claim.

    >>> rows = [{"seed": s, "panel": p, "sample": "intended", "wasserstein": w,
    ...          "ks_statistic": w, "mean_normalized_entropy": h}
    ...         for s in range(3) for p, w, h in [("2b", 0.4 + s / 50, 0.87), ("2c", 0.03, 0.9999)]]
    >>> k_total_better(pd.DataFrame(rows)).verdict.value
    'holds'
    """
    claim = "bernhard-fig2-k-total-better"
    d_w = _paired(panels, sample, base, other, "wasserstein")
    d_ks = _paired(panels, sample, base, other, "ks_statistic")
    w_base, w_other = (_series(panels, sample, p, "wasserstein") for p in (base, other))
    ks_base, ks_other = (_series(panels, sample, p, "ks_statistic") for p in (base, other))
    entropy = _series(panels, sample, other, "mean_normalized_entropy")
    check = (
        f"paired over draws ({sample} samples): the W₁ and KS distortions of {other} below "
        f"those of {base} by more than {Z:g} standard errors ('better'); the mean per-draw "
        f"ratio of the distortions below {much:g} by more than {Z:g} standard errors on both "
        f"distances ('much better', the book's reading); better on both distances in at least "
        f"{_pct(share_required)} of single draws; nearly uniform rows of {other} (mean "
        f"normalized entropy ≥ {uniform_entropy:g}) are reported, not held against a claim "
        "about shape"
    )
    reason = _testable(d_w, d_ks, entropy)
    if reason:
        return _untestable(claim, reason, check)
    ratio_w = (w_other / w_base).dropna()
    ratio_ks = (ks_other / ks_base).dropna()
    e_w, e_ks, e_h = estimate(d_w), estimate(d_ks), estimate(entropy)
    e_rw, e_rks = estimate(ratio_w), estimate(ratio_ks)
    share = float(np.mean((d_w > 0) & (d_ks > 0)))
    measured = (
        f"{d_w.size} draws, {sample} samples: W₁ lower by {e_w.text(3)}, KS lower by "
        f"{e_ks.text(3)}, both lower in {_pct(share)} of draws; distortion ratios "
        f"{other}/{base}: W₁ {e_rw.text(3)}, KS {e_rks.text(3)}; mean normalized entropy "
        f"of the rows of {other} {e_h.text(5)}"
    )
    better = e_w.above(0) and e_ks.above(0)
    if not better:
        verdict = Verdict.FAILS
        conclusion = (
            "Dividing by k_total does not clearly keep the shape better than √d: on at least "
            "one of the two distances the paired difference is within the noise or against it."
        )
        return Assessment(Finding(claim, verdict, measured, check), conclusion)
    why, words = [], []
    if not (e_rw.below(much) and e_rks.below(much)):
        why.append(f"ratios not clearly below {much:g}")
        words.append("not by the factor that 'much better' asks for")
    if share < share_required:
        why.append(f"both lower in fewer than {_pct(share_required)} of draws")
        words.append("too few single draws show it")
    uniform = e_h.mean >= uniform_entropy
    note = (
        "its rows of attention are nearly uniform: the shape is kept because the softmax "
        "barely acts, at the price of selectivity"
        if uniform
        else "its rows of attention stay selective"
    )
    if uniform:
        measured += "; nearly uniform rows (the book's note, not part of the claim)"
    if why:
        verdict = Verdict.CAVEAT
        measured += "; " + "; ".join(why)
        conclusion = (
            f"With 1/k_total both distances are smaller, but {' and '.join(words)}; {note}."
        )
    else:
        verdict = Verdict.HOLDS
        conclusion = (
            f"With 1/k_total both distances are much smaller, on average and in single draws; "
            f"{note}."
        )
    return Assessment(Finding(claim, verdict, measured, check), conclusion)


def k_total_better(panels: pd.DataFrame, **options: object) -> Finding:
    """The finding of :func:`assess_k_total_better`."""
    return assess_k_total_better(panels, **options).finding  # type: ignore[arg-type]


FAMILY_LEVEL = Threshold(
    0.05,
    "level",
    "the family-wise 5 % over the two comparisons (Bonferroni)",
    scale="fixed",
)


@decided_by(FAMILY_LEVEL)
def fig1_vanishing_inference(
    costs: pd.DataFrame, *, d: int, level: float = FAMILY_LEVEL
) -> Finding:
    """Bernhard, on Figure 1(b): "it is apparent that applying softmax to the unscaled dot
    product would be prone to vanishing gradient issues".

    ``costs`` is the per-draw table of :func:`attncore.sources.bernhard.sweep` (rescalings
    ``none`` and ``sqrt_d`` on the dot products of each draw, with ``jacobian_norm`` and
    ``extreme_share``); ``d`` is Figure 1's dimension. Paired over draws, with one-sided t
    tests Bonferroni-corrected over the two comparisons: without scaling the mean Jacobian
    norm of the rows is lower, and the share of first components near 0 or 1 (his section 6 sign of
    vanishing gradients) is higher, than with 1/√d. **Holds** if both; **holds with a
    caveat** if one; **does not hold** if the opposite of one is clear and neither holds;
    **not testable here** with fewer than two draws or when the draws cannot tell.

    >>> rows = [{"seed": s, "d": 16, "rescaling": r, "jacobian_norm": j + s / 100,
    ...          "extreme_share": e} for s in range(5)
    ...         for r, j, e in [("none", 0.2, 0.8 + s / 100), ("sqrt_d", 0.3, 0.1)]]
    >>> fig1_vanishing_inference(pd.DataFrame(rows), d=16).verdict.value
    'holds'
    """
    claim = "bernhard-fig1-vanishing-inference"
    part = costs[costs["d"] == d]
    wide = {
        m: part.pivot_table(index="seed", columns="rescaling", values=m)[["none", "sqrt_d"]]
        for m in ("jacobian_norm", "extreme_share")
    }
    check = (
        f"the dot products of every draw at d = {d}, without scaling and with 1/√d: mean "
        "Jacobian norm of the rows and share of first components below 1/(10 n) or above 0.9, "
        "paired over draws, one-sided t tests Bonferroni-corrected over the two comparisons"
    )
    draws = len(wide["jacobian_norm"])
    if draws < 2:
        return Finding(claim, Verdict.UNTESTABLE, f"{draws} draw(s): a test needs 2", check)
    diffs = {m: w["none"] - w["sqrt_d"] for m, w in wide.items()}
    means = pd.Series({m: float(v.mean()) for m, v in diffs.items()})
    ses = pd.Series({m: float(v.std(ddof=1) / math.sqrt(draws)) for m, v in diffs.items()})
    sides = {"jacobian_norm": "below", "extreme_share": "above"}
    found = {
        m: bool(clear(means[[m]], ses[[m]].to_numpy(), draws, sides[m], level / 2).iloc[0])
        for m in sides
    }
    opposite = {
        m: bool(
            clear(
                means[[m]],
                ses[[m]].to_numpy(),
                draws,
                "above" if sides[m] == "below" else "below",
                level / 2,
            ).iloc[0]
        )
        for m in sides
    }
    means_of = {m: w.mean() for m, w in wide.items()}
    measured = (
        f"{draws} draws at d = {d}: mean Jacobian norm of the rows "
        f"{means_of['jacobian_norm']['none']:.3f} without scaling against "
        f"{means_of['jacobian_norm']['sqrt_d']:.3f} with 1/√d (paired difference "
        f"{means['jacobian_norm']:.3f}, standard error {ses['jacobian_norm']:.3f}); first "
        "components near 0 "
        f"or 1 {means_of['extreme_share']['none']:.1%} against "
        f"{means_of['extreme_share']['sqrt_d']:.1%}"
    )
    if all(found.values()):
        verdict = Verdict.HOLDS
    elif any(found.values()):
        verdict = Verdict.CAVEAT
        words = {
            "jacobian_norm": (
                "the unscaled Jacobian norm is clearly larger, not smaller",
                "the unscaled Jacobian norm is not clearly smaller",
            ),
            "extreme_share": (
                "clearly fewer components sit near 0 or 1 without scaling",
                "not clearly more components sit near 0 or 1 without scaling",
            ),
        }
        present = {
            "jacobian_norm": "the softmax's own gradient is clearly smaller without scaling",
            "extreme_share": "Bernhard's own sign is there (clearly more first components near "
            "0 or 1 without scaling, section 6)",
        }
        shown = next(m for m, ok in found.items() if ok)
        missing = [words[m][0 if opposite[m] else 1] for m, ok in found.items() if not ok]
        measured += f"; one of the two signs: {present[shown]}, but {' and '.join(missing)}"
    elif any(opposite.values()):
        verdict = Verdict.FAILS
        measured += "; the unscaled softmax keeps a gradient at least as large here"
    else:
        verdict = Verdict.UNTESTABLE
        measured += "; the draws cannot tell the two apart"
    return Finding(claim, verdict, measured, check)


def changed_verdicts(intended: Sequence[Finding], published: Sequence[Finding]) -> list[str]:
    """The claims whose verdict on the published samples differs from that on the intended
    ones, each with both verdicts.

    >>> a = Finding("bernhard-fig2-k-total-better", Verdict.HOLDS, "", "")
    >>> changed_verdicts([a], [a])
    []
    """
    by_claim = {f.claim: f for f in published}
    return [
        f"{f.claim} {by_claim[f.claim].verdict.value} (intended: {f.verdict.value})"
        for f in intended
        if f.claim in by_claim and by_claim[f.claim].verdict != f.verdict
    ]


def published_agreement_sentence(intended: Sequence[Finding], published: Sequence[Finding]) -> str:
    """Whether the rules give the same verdicts on the published samples as on the intended
    ones (matched by claim).

    >>> a = Finding("bernhard-fig2-k-total-better", Verdict.HOLDS, "", "")
    >>> b = Finding("bernhard-fig2-k-total-better", Verdict.CAVEAT, "", "")
    >>> published_agreement_sentence([a], [a])
    'On the published samples the same rules give the same verdicts.'
    >>> published_agreement_sentence([a], [b])  # doctest: +ELLIPSIS
    'On the published samples the rules give other verdicts: bernhard-fig2-... (intended: holds).'
    """
    differ = changed_verdicts(intended, published)
    if not differ:
        return "On the published samples the same rules give the same verdicts."
    return "On the published samples the rules give other verdicts: " + "; ".join(differ) + "."


SAME_SAMPLE_SHARE = 0.5
"""The share of draws whose two samples are farther apart than the KS critical value at and
above which the published and intended samples are called different samples (a majority)."""


def differing_share(ks_distances: Sequence[float], ks_critical: float) -> float:
    """The share of draws whose intended and published samples lie farther apart than the
    critical value for two independent samples.

    >>> differing_share([0.01, 0.02, 0.2], 0.086)
    0.3333333333333333
    """
    return float(np.mean(np.asarray(ks_distances, dtype=float) > ks_critical))


def samples_differ_sentence(ks_distances: Sequence[float], ks_critical: float) -> str:
    """Whether the intended and published samples of one draw are the same sample, judged by
    their KS distances over draws against the critical value for independent samples, in
    words (the share itself is :func:`differing_share`).

    >>> samples_differ_sentence([0.2, 0.3, 0.25], 0.086)[:50]
    'The two samples of a draw are not the same sample:'
    >>> samples_differ_sentence([0.01, 0.02, 0.2], 0.086)
    'Most draws cannot tell the two samples of a draw apart.'
    """
    if differing_share(ks_distances, ks_critical) >= SAME_SAMPLE_SHARE:
        return (
            "The two samples of a draw are not the same sample: in at least half of the draws "
            "they lie farther apart than two independent samples of one law would."
        )
    return "Most draws cannot tell the two samples of a draw apart."


COMPONENT_STATISTICS = ("mean", "sd", "skewness")
"""The statistics of a component compared between key 1 and the other keys."""

LAW_LEVEL = Threshold(
    0.01,
    "law_level",
    "the keys are exchangeable by construction, so a false 'does not hold' should be rare: 1 "
    "run in 100",
    scale="fixed",
)
"""Family-wise level of the in-law comparison of key 1 with the other keys: the keys are
exchangeable by construction, so a false "does not hold" should be rare (1 run in 100)."""

NOMINAL_LEVEL = Threshold(
    0.05, "nominal_level", "the 5 % level of the KS critical value", scale="fixed"
)
"""The level of the KS critical value: the share of components that would pass it by chance
if they were independent samples of one law."""


@decided_by(LAW_LEVEL, NOMINAL_LEVEL, Z)
def assess_other_components_similar(components: pd.DataFrame, ks_critical: float) -> Assessment:
    """Bernhard: "By symmetry, the other components should look similar."

    ``components`` is :func:`attncore.sources.bernhard_components.component_sweep` (one row
    per draw, panel and key). Two readings, both measured:

    - *in law*: over draws, the mean, standard deviation and skewness of component 1 minus
      those of the other components (averaged over the other keys of the same draw) has
      mean 0. A mean clearly away from 0, beyond a two-sided Student t band (draws - 1
      degrees of freedom) at the family-wise level :data:`LAW_LEVEL`, Bonferroni-corrected
      over every panel and statistic, breaks the symmetry: **does not hold**;
    - *within one draw*, which is what one figure shows: the share of components whose KS
      distance from component 1 exceeds ``ks_critical``. If in some panel it is clearly
      (:data:`Z` standard errors over draws) above :data:`NOMINAL_LEVEL`, the components of
      one fixed key set differ beyond chance: **holds with a caveat** (the correlation of a
      component's standard deviation with the length of its key is reported as the reason);
    - otherwise **holds**; **not testable** with fewer than two draws or keys.

    >>> rows = [{"seed": s, "panel": "1b", "key": k, "key_length": 4.0, "mean": 0.1,
    ...          "sd": 0.1 + (s + k) % 3 / 100, "skewness": 1.0, "ks_to_first": 0.0}
    ...         for s in range(5) for k in (1, 2, 3)]
    >>> assess_other_components_similar(pd.DataFrame(rows), 0.09).finding.verdict.value
    'holds'
    """
    claim = "bernhard-other-components-similar"
    what = (
        "every key's component over the queries against key 1's: in law over draws (paired "
        "differences of mean, sd and skewness, Bonferroni-corrected Student t bands) "
        f"and within a draw (share of KS distances above the {100 * NOMINAL_LEVEL:.0f} % "
        "critical value)"
    )
    draws = components["seed"].nunique() if len(components) else 0
    keys = components["key"].nunique() if len(components) else 0
    if draws < 2 or keys < 2:
        return _untestable(claim, f"{draws} draw(s) of {keys} key(s)", what)
    panels = sorted(components["panel"].unique())
    # Student t (draws - 1 degrees of freedom): the standard errors come from few draws
    level = LAW_LEVEL / 2 / (len(panels) * len(COMPONENT_STATISTICS))
    z_law = float(stats.t.ppf(1 - level, df=draws - 1))
    broken, broken_at, shares, lengths = [], [], {}, {}
    for panel in panels:
        part = components[components["panel"] == panel]
        first = part[part["key"] == 1].set_index("seed").sort_index()
        others = part[part["key"] != 1]
        rest = others.groupby("seed")[list(COMPONENT_STATISTICS)].mean().sort_index()
        for statistic in COMPONENT_STATISTICS:
            e = estimate(first[statistic] - rest[statistic])
            if abs(e.mean) > z_law * e.se:
                broken.append(f"{panel} {statistic} ({e.mean:.3g} ± {e.se:.2g})")
                broken_at.append((panel, statistic))
        shares[panel] = estimate(
            others.assign(d=others["ks_to_first"] > ks_critical).groupby("seed")["d"].mean()
        )
        lengths[panel] = float(
            part.groupby("seed")[["sd", "key_length"]]
            .apply(lambda g: g["sd"].corr(g["key_length"], method="spearman"))
            .mean()
        )
    within = ", ".join(
        f"{p} {_pct(s.mean)} ± {_pct(s.se)} and {lengths[p]:.2f}" for p, s in shares.items()
    )
    measured = (
        f"{draws} draws of {keys} keys; within a draw, per panel, the share of the other "
        f"components beyond the KS critical value and the rank correlation of their sd with "
        f"the length of their key: {within}"
    )
    differing = [p for p, s in shares.items() if s.above(NOMINAL_LEVEL)]
    if broken:
        measured += "; key 1 differs from the others in law: " + ", ".join(broken)
        conclusion = (
            "Over draws, the first component differs systematically from the others (in "
            + ", ".join(f"{panel} {statistic}" for panel, statistic in broken_at)
            + "): the symmetry the paper relies on does not show here."
        )
        return Assessment(Finding(claim, Verdict.FAILS, measured, what), conclusion)
    head = (
        "Over draws, the first component has the same mean, spread and skewness as the others "
        "within the standard errors: the symmetry holds in law."
    )
    if differing:
        conclusion = (
            f"{head} Within one draw, however, more components differ from the first than "
            f"chance would make them in panels {', '.join(differing)}; their spread goes with "
            "the length of their key, so one figure shows one key's component, not a typical "
            "one."
        )
        return Assessment(Finding(claim, Verdict.CAVEAT, measured, what), conclusion)
    conclusion = (
        f"{head} Within one draw no more components differ from the first than chance "
        "would make them."
    )
    return Assessment(Finding(claim, Verdict.HOLDS, measured, what), conclusion)


def other_components_similar(components: pd.DataFrame, ks_critical: float) -> Finding:
    """The finding of :func:`assess_other_components_similar`."""
    return assess_other_components_similar(components, ks_critical).finding
