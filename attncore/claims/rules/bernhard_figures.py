"""Verdicts on Bernhard's Figures 1 and 2 from :mod:`attncore.evidence.bernhard_figures`: a
mean over draws is *clearly* past a mark by a t test at ``Z`` standard errors, and a share
``share_required`` of single draws must agree. ``assess_*`` returns the finding and the
chapter's reading (marks and panels, no numbers)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from attncore.checks import ParameterError
from attncore.claims.catalogue import Verdict
from attncore.claims.finding import Finding, Reading
from attncore.claims.thresholds import decided_by, thresholds_of
from attncore.evidence import bernhard_figures as evidence
from attncore.evidence.statistics import clear, holm

limits = thresholds_of("bernhard_figures")

__all__ = [
    "SAME_SAMPLE_SHARE",
    "Assessment",
    "assess_k_total_better",
    "assess_other_components_similar",
    "assess_sqrt_d_helps",
    "assess_unscaled_distorts",
    "caption_queries",
    "changed_verdicts",
    "fig1_vanishing_inference",
    "published_agreement",
    "samples_differ",
]


@dataclass(frozen=True)
class Assessment:
    """A rule's finding and the chapter's reading of it (marks and panels, never numbers)."""

    finding: Finding
    conclusion: Reading


def _assessed(finding: Finding, *names: str) -> Assessment:
    """``finding`` with the reading that names the values ``names`` of it (those it has)."""
    said = {name: finding.values[name] for name in names if name in finding.values}
    return Assessment(finding, Reading(finding.branch, said))


def _untestable(
    claim: str, series: Sequence[pd.Series], setting: Mapping[str, Any]
) -> Assessment | None:
    """Branch ``one-draw`` (under two draws) or ``no-value`` (a draw has none), else None."""
    n = min(s.size for s in series)
    values, branch = ({**setting, "draws": n}, "one-draw") if n < 2 else (dict(setting), "no-value")
    if n < 2 or any(not np.all(np.isfinite(s.to_numpy(dtype=float))) for s in series):
        return _assessed(Finding(claim, Verdict.UNTESTABLE, values=values, branch=branch), "draws")
    return None


def _qualified(
    claim: str, values: Mapping[str, Any], few: bool, doubtful: bool, **doubt: Any
) -> Finding:
    """A claim not refuted: ``caveat`` if ``doubtful``, ``single-draws`` if ``few``, else holds."""
    if doubtful:
        return Finding(claim, Verdict.CAVEAT, values={**values, **doubt, "few": few})
    if few:
        return Finding(claim, Verdict.CAVEAT, values=values, branch="single-draws")
    return Finding(claim, Verdict.HOLDS, values=values)


def _against(
    estimates: Mapping[str, evidence.Estimate], groups: Mapping[str, Sequence[str]]
) -> list[str]:
    """The names of ``groups`` (name -> estimates meant to lie above 0) one of whose means is
    clearly below 0: one-sided t tests over the draws, Holm-corrected over all of them."""
    names = [m for members in groups.values() for m in members]
    e = [estimates[m] for m in names]
    below = clear([x.mean for x in e], [x.se for x in e], [x.n for x in e], "below")
    found = {m for m, b in zip(names, below, strict=True) if b}
    return [name for name, members in groups.items() if found & set(members)]


def _state(e: evidence.Estimate, mark: float, side: str) -> str:
    """``"clearly"``, ``"against"`` or ``"borderline"`` for a mean meant to lie on ``side``."""
    on, off = (e.above, e.below) if side == ">" else (e.below, e.above)
    return "clearly" if on(mark, limits.Z) else "against" if off(mark, limits.Z) else "borderline"


@decided_by(limits.SHARE_REQUIRED, limits.SKEWED, limits.NEAR_ZERO_WEIGHT, limits.Z)
def assess_unscaled_distorts(
    panels: pd.DataFrame,
    *,
    n_keys: int,
    ks_critical: float,
    share_required: float = limits.SHARE_REQUIRED,
    sample: str = "intended",
    panel: str = "1b",
    skewed: float = limits.SKEWED,
    near_zero_weight: float = limits.NEAR_ZERO_WEIGHT,
) -> Assessment:
    """``bernhard-fig1-unscaled-distorts``: fails where a mean is clearly on the wrong side of
    its mark (``against``); a caveat where one is ``borderline`` or too few draws pass all.

    >>> found = assess_unscaled_distorts(evidence.example_panels(), n_keys=32, ks_critical=0.09)
    >>> found.finding.verdict, found.finding.values["passed_pct"]
    (<Verdict.HOLDS: 'holds'>, 100.0)
    """
    claim = "bernhard-fig1-unscaled-distorts"
    draws = evidence.unscaled_draws(panels, sample, panel, n_keys)
    setting = {"panel": panel, "sample": sample, "ks_critical": ks_critical}
    if undecided := _untestable(claim, list(draws.values()), setting):
        return undecided
    marks = {"skew": (skewed, ">"), "weight": (near_zero_weight, "<"), "ks": (ks_critical, ">")}
    found = evidence.unscaled_comparison(draws, marks)
    states = {name: _state(found.estimates[name], *mark) for name, mark in marks.items()}
    values = {**setting, **found.values}
    against = [name for name, state in states.items() if state == "against"]
    borderline = [name for name, state in states.items() if state == "borderline"]
    if against:
        finding = Finding(claim, Verdict.FAILS, values={**values, "against": against})
    else:
        few = found.share < share_required
        finding = _qualified(claim, values, few, bool(borderline), borderline=borderline)
    return _assessed(finding, "against", "borderline", "few")


@decided_by(limits.SHARE_REQUIRED, limits.Z)
def assess_sqrt_d_helps(
    panels: pd.DataFrame,
    *,
    share_required: float = limits.SHARE_REQUIRED,
    sample: str = "intended",
    unscaled: str = "1b",
    scaled: str = "1c",
) -> Assessment:
    """``bernhard-fig1-sqrt-d-helps``: fails where ``scaled`` is clearly more distorted or more
    skewed (``failing``; Holm over the three), ``cannot-tell`` where neither it nor the claim
    is clear (``unclear``); a caveat where no right skew is clearly left.

    >>> assess_sqrt_d_helps(evidence.example_panels()).finding.verdict.value
    'holds'
    """
    claim = "bernhard-fig1-sqrt-d-helps"
    draws = evidence.sqrt_d_draws(panels, sample, unscaled, scaled)
    setting = {"sample": sample, "unscaled": unscaled, "scaled": scaled}
    if undecided := _untestable(claim, list(draws.values()), setting):
        return undecided
    found = evidence.sqrt_d_comparison(panels, sample, unscaled, draws)
    e, values = found.estimates, {**setting, **found.values}
    helps = e["w"].above(0, limits.Z) and e["ks"].above(0, limits.Z)
    milder = e["milder"].above(0, limits.Z)
    if not (helps and milder):
        failing = _against(e, {"distortion": ("w", "ks"), "skew": ("milder",)})
        if failing:
            finding = Finding(claim, Verdict.FAILS, values={**values, "failing": failing})
        else:
            shown = [("distortion", helps), ("skew", milder)]
            unclear = [f"{name}-unclear" for name, ok in shown if not ok]
            finding = Finding(
                claim,
                Verdict.UNTESTABLE,
                values={**values, "unclear": unclear},
                branch="cannot-tell",
            )
    else:
        finding = _qualified(
            claim, values, found.share < share_required, not e["skew"].above(0, limits.Z)
        )
    return _assessed(finding, "failing", "unclear", "few")


@decided_by(limits.SHARE_REQUIRED, limits.MUCH, limits.Z)
def assess_k_total_better(
    panels: pd.DataFrame,
    *,
    share_required: float = limits.SHARE_REQUIRED,
    sample: str = "intended",
    base: str = "2b",
    other: str = "2c",
    much: float = limits.MUCH,
    uniform_entropy: float = 0.99,
) -> Assessment:
    """``bernhard-fig2-k-total-better``: fails where ``other`` is clearly more distorted on a
    distance (Holm over the two), ``cannot-tell`` where neither that nor the claim is clear; a
    caveat where a ratio is not clearly below ``much``. Nearly uniform rows are only reported.

    >>> found = assess_k_total_better(evidence.example_panels()).finding
    >>> found.verdict.value, found.values["uniform"]
    ('holds', True)
    """
    claim = "bernhard-fig2-k-total-better"
    draws = evidence.k_total_draws(panels, sample, base, other)
    setting = {"sample": sample, "base": base, "other": other, "uniform_entropy": uniform_entropy}
    if undecided := _untestable(claim, list(draws.values()), setting):
        return undecided
    found = evidence.k_total_comparison(panels, sample, base, other, draws)
    e, values = found.estimates, {**setting, **found.values}
    if not (e["w"].above(0, limits.Z) and e["ks"].above(0, limits.Z)):
        if _against(e, {"w": ("w",), "ks": ("ks",)}):
            return _assessed(Finding(claim, Verdict.FAILS, values=values))
        undecided = Finding(claim, Verdict.UNTESTABLE, values=values, branch="cannot-tell")
        return _assessed(undecided)
    values["uniform"] = e["entropy"].mean >= uniform_entropy
    much_better = e["ratio_w"].below(much, limits.Z) and e["ratio_ks"].below(much, limits.Z)
    finding = _qualified(claim, values, found.share < share_required, not much_better)
    return _assessed(finding, "few", "uniform")


#: The side of 0 on which each sign's difference (no scaling minus 1/√d) shows vanishing
#: gradients, and the name the claim's words give the sign.
_SIGNS = {"jacobian_norm": ("below", "jacobian"), "extreme_share": ("above", "extreme")}


@decided_by(limits.FAMILY_LEVEL)
def fig1_vanishing_inference(
    costs: pd.DataFrame, *, d: int, level: float = limits.FAMILY_LEVEL
) -> Finding:
    """``bernhard-fig1-vanishing-inference``: each sign's paired difference by a one-sided t
    test, the two corrected together by Holm. Holds if both show; a caveat if one (``shown``,
    ``missing``); fails if neither and one is clearly opposite.

    >>> fig1_vanishing_inference(evidence.example_costs(), d=16).verdict.value
    'holds'
    """
    claim = "bernhard-fig1-vanishing-inference"
    wide = evidence.gradient_signs(costs, d)
    draws = len(wide["jacobian_norm"])
    if draws < 2:
        return Finding(
            claim, Verdict.UNTESTABLE, values={"d": d, "draws": draws}, branch="one-draw"
        )
    means, ses, measured = evidence.sign_differences(wide)
    values: dict[str, Any] = {"d": d, "draws": draws, **measured}
    sides = evidence.clear_sides(means, ses, draws, level)
    shown = [word for m, (side, word) in _SIGNS.items() if sides[m] == side]
    missing = [
        f"{word}-{'unclear' if sides[m] is None else 'opposite'}"
        for m, (side, word) in _SIGNS.items()
        if sides[m] != side
    ]
    if not missing:
        return Finding(claim, Verdict.HOLDS, values=values)
    if shown:
        return Finding(claim, Verdict.CAVEAT, values={**values, "shown": shown, "missing": missing})
    if any(side is not None for side in sides.values()):
        return Finding(claim, Verdict.FAILS, values={**values, "missing": missing})
    return Finding(claim, Verdict.UNTESTABLE, values=values)


def changed_verdicts(
    intended: Sequence[Finding], published: Sequence[Finding]
) -> list[dict[str, str]]:
    """The claims whose verdict on the published samples differs from that on the intended
    ones: a record of each, its ``claim`` and its verdicts ``published`` and ``intended``.

    >>> a = Finding("bernhard-fig2-k-total-better", Verdict.HOLDS)
    >>> changed_verdicts([a], [Finding(a.claim, Verdict.CAVEAT)])[0]["published"]
    'holds with a caveat'
    """
    by_claim = {f.claim: f.verdict for f in published}
    return [
        {"claim": f.claim, "published": by_claim[f.claim].value, "intended": f.verdict.value}
        for f in intended
        if by_claim.get(f.claim, f.verdict) != f.verdict
    ]


def published_agreement(intended: Sequence[Finding], published: Sequence[Finding]) -> Reading:
    """Branch ``same`` where the published samples give the intended verdicts, else ``other``
    with the ``changed`` ones (:func:`changed_verdicts`).

    >>> a = Finding("bernhard-fig2-k-total-better", Verdict.HOLDS)
    >>> published_agreement([a], [a]).branch
    'same'
    """
    changed = changed_verdicts(intended, published)
    return Reading("other", {"changed": changed}) if changed else Reading("same")


#: The share of draws with samples beyond the KS critical value that makes them differ (a majority).
def caption_queries(published_queries: Mapping[str, int], n_queries: int) -> Finding:
    """``bernhard-figure-captions-500-queries``: holds when every panel's plotted values come
    from ``n_queries`` distinct queries; ``published_queries`` gives, per panel, how many they
    come from as the R code draws them (``PanelDraw.published_queries`` of
    :mod:`attncore.sources.bernhard`).

    >>> caption_queries({"1a": 16, "1b": 16}, 500).values["panels"]
    ['1a', '1b']
    """
    if not published_queries:
        raise ParameterError("published_queries must name at least one panel")
    short = sorted(panel for panel, queries in published_queries.items() if queries < n_queries)
    panels = short or sorted(published_queries)
    values = {
        "n_queries": n_queries,
        "panels": panels,
        "published": min(published_queries.values()),
    }
    verdict = Verdict.FAILS if short else Verdict.HOLDS
    return Finding("bernhard-figure-captions-500-queries", verdict, values=values)


SAME_SAMPLE_SHARE = 0.5


def samples_differ(ks_distances: Sequence[float], ks_critical: float) -> Reading:
    """Branch ``differ`` where at least :data:`SAME_SAMPLE_SHARE` of the draws' intended and
    published samples lie farther apart than ``ks_critical``
    (:func:`~attncore.evidence.bernhard_figures.differing_share`), else ``alike``.

    >>> samples_differ([0.2, 0.3], 0.086).branch, samples_differ([0.01, 0.02, 0.2], 0.086).branch
    ('differ', 'alike')
    """
    differ = evidence.differing_share(ks_distances, ks_critical) >= SAME_SAMPLE_SHARE
    return Reading("differ" if differ else "alike")


@decided_by(limits.LAW_LEVEL, limits.NOMINAL_LEVEL, limits.Z)
def assess_other_components_similar(components: pd.DataFrame, ks_critical: float) -> Assessment:
    """``bernhard-other-components-similar``: fails where key 1 differs in law (``broken``:
    a two-sided t test of each panel's and statistic's paired difference over the draws,
    corrected together by Holm at ``LAW_LEVEL``); a caveat where a panel's share beyond
    ``ks_critical`` is clearly above ``NOMINAL_LEVEL``.

    >>> assess_other_components_similar(evidence.example_components(), 0.09).finding.verdict.value
    'holds'
    """
    claim = "bernhard-other-components-similar"
    draws = components["seed"].nunique() if len(components) else 0
    keys = components["key"].nunique() if len(components) else 0
    values: dict[str, Any] = {"draws": draws, "keys": keys}
    if draws < 2 or keys < 2:
        return _assessed(Finding(claim, Verdict.UNTESTABLE, values=values), "draws", "keys")
    panels = evidence.component_panels(components, ks_critical)
    values["panels"] = [p.record() for p in panels]
    tests = [record for p in panels for record in p.tests()]
    rejected = holm([t["p"] for t in tests], limits.LAW_LEVEL)
    broken = [
        {k: t[k] for k in ("panel", "statistic", "mean", "se")}
        for t, r in zip(tests, rejected, strict=True)
        if r
    ]
    if broken:
        finding = Finding(claim, Verdict.FAILS, values={**values, "broken": broken})
        named = [{"panel": b["panel"], "statistic": b["statistic"]} for b in broken]
        return Assessment(finding, Reading("fails", {"broken": named}))
    differing = [p.panel for p in panels if p.share.above(limits.NOMINAL_LEVEL, limits.Z)]
    if differing:
        finding = Finding(claim, Verdict.CAVEAT, values={**values, "differing": differing})
        return _assessed(finding, "differing")
    return _assessed(Finding(claim, Verdict.HOLDS, values=values))
