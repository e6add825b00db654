"""The numbers the rules on Bernhard's figures read: per-draw series of the panel table of
:func:`attncore.sources.bernhard.sweep`, their means with standard errors, paired differences
and shares of draws, the signs of vanishing gradients and key 1's component against the others.

>>> e = estimate(paired(example_panels(), "intended", "1b", "1c", "wasserstein"))
>>> round(e.mean, 2), round(e.se, 3), e.n, e.above(0.3)
(0.4, 0.0, 4, True)
"""

from __future__ import annotations

import functools
import math
import operator
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from attncore.checks import finite_array
from attncore.evidence.statistics import holm, single, two_sided_p

__all__ = [
    "COMPONENT_STATISTICS",
    "Comparison",
    "Estimate",
    "PanelComponents",
    "clear_sides",
    "component_panels",
    "differing_share",
    "estimate",
    "example_components",
    "example_costs",
    "example_panels",
    "gradient_signs",
    "k_total_comparison",
    "k_total_draws",
    "left_pct",
    "paired",
    "series",
    "sign_differences",
    "sqrt_d_comparison",
    "sqrt_d_draws",
    "unscaled_comparison",
    "unscaled_draws",
]


@dataclass(frozen=True)
class Estimate:
    """A mean over draws with its standard error (sample standard deviation / sqrt(n))."""

    mean: float
    se: float
    n: int

    def above(self, mark: float, z: float = 2.0) -> bool:
        """Whether the mean is clearly above ``mark``: a t test over its ``n`` draws at the
        level of ``z`` standard errors (:func:`~attncore.evidence.statistics.single`; never
        with one draw).

        >>> Estimate(1.0, 0.1, 200).above(0.7), Estimate(1.0, 0.1, 2).above(0.7)
        (True, False)
        """
        return bool(single([self.mean - mark], [self.se], self.n, "above", z)[0])

    def below(self, mark: float, z: float = 2.0) -> bool:
        """Whether the mean is clearly below ``mark``."""
        return bool(single([self.mean - mark], [self.se], self.n, "below", z)[0])

    @property
    def pair(self) -> tuple[float, float]:
        """``(mean, se)``, the value a template says as ``mean ± se`` (its ``pm`` filter).

        >>> Estimate(0.5, 0.25, 4).pair
        (0.5, 0.25)
        """
        return (self.mean, self.se)


def estimate(values: Sequence[float] | np.ndarray | pd.Series) -> Estimate:
    """Mean and standard error of ``values`` (at least two, all finite).

    >>> e = estimate([1.0, 2.0, 3.0, 4.0])
    >>> e.mean, round(e.se, 4), e.above(1.5), e.below(5.0)
    (2.5, 0.6455, False, True)
    """
    x = finite_array("values", values, ndim=1, min_size=2)
    return Estimate(float(x.mean()), float(x.std(ddof=1) / math.sqrt(x.size)), int(x.size))


def series(panels: pd.DataFrame, sample: str, panel: str, column: str) -> pd.Series:
    """``column`` of the ``sample`` rows of ``panel``, by draw (``seed``)."""
    part = panels[(panels["panel"] == panel) & (panels["sample"] == sample)]
    return part.set_index("seed")[column].sort_index()


def paired(panels: pd.DataFrame, sample: str, base: str, other: str, column: str) -> pd.Series:
    """``column`` of panel ``base`` minus that of panel ``other``, draw by draw."""
    a, b = series(panels, sample, base, column), series(panels, sample, other, column)
    joined = pd.concat([a, b], axis=1, join="inner")
    return joined.iloc[:, 0] - joined.iloc[:, 1]


def left_pct(difference: Estimate, base: Estimate) -> float:
    """How much of ``base``'s mean is left after ``difference``'s, in percent (NaN at 0)."""
    return 100 * (1 - difference.mean / base.mean) if base.mean else math.nan


def _lower_on_both(draws: Mapping[str, pd.Series]) -> float:
    """The share of draws whose paired W₁ (``w``) and KS (``ks``) differences are both > 0."""
    return float(np.mean((draws["w"] > 0) & (draws["ks"] > 0)))


@dataclass(frozen=True)
class Comparison:
    """What a rule on the panels reads: the ``estimates`` of its per-draw series, the
    ``share`` of single draws that show the claim, and the ``values`` its finding reports
    (each mean as ``(mean, se)``)."""

    estimates: dict[str, Estimate]
    share: float
    values: dict[str, Any]


def unscaled_draws(
    panels: pd.DataFrame, sample: str, panel: str, n_keys: int
) -> dict[str, pd.Series]:
    """Per draw of ``panel``: its skewness change (``skew``), median weight in units of
    1/``n_keys`` (``weight``) and KS distance from the dot products (``ks``)."""
    return {
        "skew": series(panels, sample, panel, "skewness_change"),
        "weight": series(panels, sample, panel, "q50") * n_keys,
        "ks": series(panels, sample, panel, "ks_statistic"),
    }


def unscaled_comparison(
    draws: Mapping[str, pd.Series], marks: Mapping[str, tuple[float, str]]
) -> Comparison:
    """The estimate of each series of :func:`unscaled_draws` and the share of draws in which
    every one lies past its mark (``marks``: name -> (mark, side ``>`` or ``<``))."""
    estimates = {name: estimate(s) for name, s in draws.items()}
    past = [
        draws[n] > mark if side == ">" else draws[n] < mark for n, (mark, side) in marks.items()
    ]
    share = float(np.mean(functools.reduce(operator.and_, past)))
    values = {
        "draws": draws["skew"].size,
        **{name: e.pair for name, e in estimates.items()},
        "passed_pct": 100 * share,
    }
    return Comparison(estimates, share, values)


def sqrt_d_draws(
    panels: pd.DataFrame, sample: str, unscaled: str, scaled: str
) -> dict[str, pd.Series]:
    """Paired per draw, ``unscaled`` minus ``scaled``: the W₁ (``w``) and KS (``ks``)
    distortions and the skewness change (``milder``); and ``scaled``'s skewness change
    (``skew``)."""
    return {
        "w": paired(panels, sample, unscaled, scaled, "wasserstein"),
        "ks": paired(panels, sample, unscaled, scaled, "ks_statistic"),
        "milder": paired(panels, sample, unscaled, scaled, "skewness_change"),
        "skew": series(panels, sample, scaled, "skewness_change"),
    }


def sqrt_d_comparison(
    panels: pd.DataFrame, sample: str, unscaled: str, draws: Mapping[str, pd.Series]
) -> Comparison:
    """The estimate of each series of :func:`sqrt_d_draws`, the share of draws less distorted
    on both distances, and how much of ``unscaled``'s W₁ and skewness change is left."""
    e = {name: estimate(s) for name, s in draws.items()}
    base_w = estimate(series(panels, sample, unscaled, "wasserstein"))
    base_skew = estimate(series(panels, sample, unscaled, "skewness_change"))
    share = _lower_on_both(draws)
    values = {
        "draws": draws["w"].size,
        "w": e["w"].pair,
        "w_left_pct": left_pct(e["w"], base_w),
        "ks": e["ks"].pair,
        "both_pct": 100 * share,
        "skew": e["skew"].pair,
        "milder": e["milder"].pair,
        "skew_left_pct": left_pct(e["milder"], base_skew),
    }
    return Comparison(e, share, values)


def k_total_draws(panels: pd.DataFrame, sample: str, base: str, other: str) -> dict[str, pd.Series]:
    """Paired per draw, ``base`` minus ``other``: the W₁ (``w``) and KS (``ks``) distortions;
    and the mean normalized entropy of ``other``'s rows (``entropy``)."""
    return {
        "w": paired(panels, sample, base, other, "wasserstein"),
        "ks": paired(panels, sample, base, other, "ks_statistic"),
        "entropy": series(panels, sample, other, "mean_normalized_entropy"),
    }


def k_total_comparison(
    panels: pd.DataFrame, sample: str, base: str, other: str, draws: Mapping[str, pd.Series]
) -> Comparison:
    """The estimate of each series of :func:`k_total_draws` and of the per-draw ratios of
    ``other``'s distortion to ``base``'s (``ratio_w``, ``ratio_ks``), and the share of draws
    less distorted on both distances."""
    e = {name: estimate(s) for name, s in draws.items()}
    for name, column in [("ratio_w", "wasserstein"), ("ratio_ks", "ks_statistic")]:
        o, b = series(panels, sample, other, column), series(panels, sample, base, column)
        e[name] = estimate((o / b).dropna())
    share = _lower_on_both(draws)
    values = {
        "draws": draws["w"].size,
        "w": e["w"].pair,
        "ks": e["ks"].pair,
        "both_pct": 100 * share,
        "ratio_w": e["ratio_w"].pair,
        "ratio_ks": e["ratio_ks"].pair,
        "entropy": e["entropy"].pair,
    }
    return Comparison(e, share, values)


def gradient_signs(costs: pd.DataFrame, d: int) -> dict[str, pd.DataFrame]:
    """The two signs of vanishing gradients at dimension ``d`` of the cost table of
    :func:`attncore.sources.bernhard.sweep` (``jacobian_norm``, ``extreme_share``): each per
    draw (rows, by seed) without scaling (column ``none``) and with 1/√d (``sqrt_d``)."""
    part = costs[costs["d"] == d]
    return {
        m: part.pivot_table(index="seed", columns="rescaling", values=m)[["none", "sqrt_d"]]
        for m in ("jacobian_norm", "extreme_share")
    }


def sign_differences(
    wide: Mapping[str, pd.DataFrame],
) -> tuple[pd.Series, pd.Series, dict[str, float]]:
    """Of each sign of :func:`gradient_signs`, no scaling minus 1/√d draw by draw: the means
    and the standard errors (by column), and the values a finding reports (each sign's mean
    per rescaling, the Jacobian norm's difference and its standard error).

    >>> wide = {m: pd.DataFrame({"none": [0.2, 0.4], "sqrt_d": [0.3, 0.3]})
    ...         for m in ("jacobian_norm", "extreme_share")}
    >>> means, ses, values = sign_differences(wide)
    >>> float(means["jacobian_norm"]), float(ses["extreme_share"]), values["jacobian_none"]
    (0.0, 0.1, 0.30000000000000004)
    """
    draws = len(wide["jacobian_norm"])
    diffs = {m: w["none"] - w["sqrt_d"] for m, w in wide.items()}
    means = pd.Series({m: float(v.mean()) for m, v in diffs.items()})
    ses = pd.Series({m: float(v.std(ddof=1) / math.sqrt(draws)) for m, v in diffs.items()})
    by_rescaling = {m: w.mean() for m, w in wide.items()}
    values = {
        "jacobian_none": float(by_rescaling["jacobian_norm"]["none"]),
        "jacobian_sqrt_d": float(by_rescaling["jacobian_norm"]["sqrt_d"]),
        "jacobian_difference": float(means["jacobian_norm"]),
        "jacobian_se": float(ses["jacobian_norm"]),
        "extreme_none": float(by_rescaling["extreme_share"]["none"]),
        "extreme_sqrt_d": float(by_rescaling["extreme_share"]["sqrt_d"]),
    }
    return means, ses, values


def clear_sides(
    means: pd.Series, ses: pd.Series, draws: int, level: float
) -> dict[str, str | None]:
    """On which side of 0 each mean difference of :func:`sign_differences` clearly lies: a
    two-sided t test of each, corrected together by Holm at ``level``; the side of the mean
    where its test rejects (``above``, ``below``), None elsewhere.

    >>> clear_sides(pd.Series({"a": 0.5, "b": 0.0}), pd.Series({"a": 0.1, "b": 0.1}), 10, 0.05)
    {'a': 'above', 'b': None}
    """
    rejected = holm(two_sided_p(means, ses.to_numpy(), draws), level)
    return {
        m: ("above" if means[m] > 0 else "below") if r else None
        for m, r in zip(means.index, rejected, strict=True)
    }


def differing_share(ks_distances: Sequence[float], ks_critical: float) -> float:
    """The share of draws whose intended and published samples lie farther apart than the
    critical value for two independent samples.

    >>> differing_share([0.01, 0.02, 0.2], 0.086)
    0.3333333333333333
    """
    return float(np.mean(np.asarray(ks_distances, dtype=float) > ks_critical))


#: The statistics of a component compared between key 1 and the other keys.
COMPONENT_STATISTICS = ("mean", "sd", "skewness")


@dataclass(frozen=True)
class PanelComponents:
    """Key 1's component against the other keys of one panel, over draws: the paired
    difference of each of :data:`COMPONENT_STATISTICS` (key 1 minus the mean of the others),
    the share of the other components beyond the KS critical value, and the mean rank
    correlation of their sd with the length of their key."""

    panel: str
    differences: dict[str, Estimate]
    share: Estimate
    correlation: float

    def tests(self) -> list[dict[str, Any]]:
        """A record (``panel``, ``statistic``, ``mean``, ``se``, ``p``) of each difference,
        ``p`` the two-sided t test's over the draws that the difference is 0."""
        return [
            {"panel": self.panel, "statistic": s, "mean": e.mean, "se": e.se}
            | {"p": float(two_sided_p([e.mean], [e.se], e.n)[0])}
            for s, e in self.differences.items()
        ]

    def record(self) -> dict[str, Any]:
        """The panel's share (percent, with its standard error) and correlation."""
        return {
            "panel": self.panel,
            "share": 100 * self.share.mean,
            "share_se": 100 * self.share.se,
            "correlation": self.correlation,
        }


def component_panels(components: pd.DataFrame, ks_critical: float) -> list[PanelComponents]:
    """Per panel of :func:`attncore.sources.bernhard_components.component_sweep` (one row per
    draw, panel and key), in order: key 1's component against the others.

    >>> [part] = component_panels(example_components(), 0.09)
    >>> part.differences["mean"], part.share.mean
    (Estimate(mean=0.0, se=0.0, n=5), 0.0)
    """
    found = []
    for panel in sorted(components["panel"].unique()):
        part = components[components["panel"] == panel]
        first = part[part["key"] == 1].set_index("seed").sort_index()
        others = part[part["key"] != 1]
        rest = others.groupby("seed")[list(COMPONENT_STATISTICS)].mean().sort_index()
        differences = {s: estimate(first[s] - rest[s]) for s in COMPONENT_STATISTICS}
        share = estimate(
            others.assign(d=others["ks_to_first"] > ks_critical).groupby("seed")["d"].mean()
        )
        correlation = float(
            part.groupby("seed")[["sd", "key_length"]]
            .apply(lambda g: g["sd"].corr(g["key_length"], method="spearman"))
            .mean()
        )
        found.append(PanelComponents(panel, differences, share, correlation))
    return found


def example_panels(draws: int = 4) -> pd.DataFrame:
    """A small panel table for examples: ``draws`` draws of the intended samples of panels 1b,
    1c, 2b and 2c, on which every rule on the panels holds.

    >>> example_panels().shape
    (16, 8)
    """
    rows = [
        {"seed": s, "panel": p, "sample": "intended", "wasserstein": w + s / 100,
         "ks_statistic": w / 2 + s / 100, "skewness_change": k + s / 10, "q50": q,
         "mean_normalized_entropy": h}
        for s in range(draws)
        for p, w, k, q, h in [
            ("1b", 0.7, 5.0, 1e-4, 0.5),
            ("1c", 0.3, 2.0, 0.02, 0.8),
            ("2b", 0.4, 0.5, 0.03, 0.9),
            ("2c", 0.03, 0.1, 0.03, 0.9999),
        ]
    ]  # fmt: skip
    return pd.DataFrame(rows)


def example_costs(draws: int = 5) -> pd.DataFrame:
    """A small cost table for examples: ``draws`` draws at d = 16 in which both signs of
    vanishing gradients show without scaling.

    >>> sorted(example_costs()["rescaling"].unique())
    ['none', 'sqrt_d']
    """
    rows = [
        {"seed": s, "d": 16, "rescaling": r, "jacobian_norm": j + s / 100, "extreme_share": e}
        for s in range(draws)
        for r, j, e in [("none", 0.2, 0.8 + s / 100), ("sqrt_d", 0.3, 0.1)]
    ]
    return pd.DataFrame(rows)


def example_components(draws: int = 5) -> pd.DataFrame:
    """A small component table for examples: ``draws`` draws of three keys of panel 1b, alike
    in law and within each draw."""
    rows = [
        {"seed": s, "panel": "1b", "key": k, "key_length": 4.0 + k / 10, "mean": 0.1,
         "sd": 0.1 + (s + k) % 3 / 100, "skewness": 1.0, "ks_to_first": 0.0}
        for s in range(draws)
        for k in (1, 2, 3)
    ]  # fmt: skip
    return pd.DataFrame(rows)
