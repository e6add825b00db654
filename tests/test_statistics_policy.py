"""One statistics policy (:mod:`attncore.evidence.statistics`, its intervals in
:mod:`attncore.intervals`): every quantile, binomial interval and multiplicity correction is
computed there, so a rule cannot quietly use another
correction or a zero-width interval for a count."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest
from scipy import stats

from attncore import intervals
from attncore.evidence import statistics

PACKAGE = Path(statistics.__file__).resolve().parent.parent
HOMES = {Path(statistics.__file__).resolve(), Path(intervals.__file__).resolve()}

ELSEWHERE = {
    r"\.ppf\(": "a quantile (t_quantile, normal_quantile, margin)",
    r"\bbinomtest\b|proportion_ci": "a binomial interval (binomial_interval)",
    r"multipletests|bonferroni\(": "a multiplicity correction (holm)",
    r"(?:_LEVEL|\blevel|\balpha)\s*/\s*(?:2\b|\(|comparisons|tests)": "a level divided by hand",
}


@pytest.mark.parametrize("pattern", sorted(ELSEWHERE))
def test_the_policy_has_one_home(pattern):
    found = [
        f"{path.relative_to(PACKAGE)}:{number}: {line.strip()}"
        for path in sorted(PACKAGE.rglob("*.py"))
        if path not in HOMES
        for number, line in enumerate(path.read_text().splitlines(), 1)
        if re.search(pattern, line)
    ]
    assert not found, (
        f"{ELSEWHERE[pattern]} computed outside statistics.py and intervals.py:\n"
        + "\n".join(found)
    )


def test_holm_is_at_least_as_strong_as_bonferroni_and_never_weaker_than_one_test():
    rng = np.random.default_rng(0)
    for _ in range(200):
        p = rng.uniform(0, 0.1, size=rng.integers(1, 8))
        rejected = statistics.holm(p, 0.05)
        assert (rejected >= (p <= 0.05 / p.size)).all()  # Bonferroni's rejections, and more
        assert not (rejected & (p > 0.05)).any()  # nothing a single test would keep


def test_simultaneous_intervals_cover_together():
    """Bonferroni's t intervals over three means cover all three in at least 95 % of draws
    (a binomial check over 4,000 draws, 3 standard errors below the nominal level)."""
    rng = np.random.default_rng(1)
    draws, n, k = 4000, 6, 3
    x = rng.standard_normal((draws, k, n))
    half = intervals.t_quantile(0.95, n - 1, k) * x.std(axis=2, ddof=1) / np.sqrt(n)
    covered = (np.abs(x.mean(axis=2)) <= half).all(axis=1).mean()
    assert covered >= 0.95 - 3 * np.sqrt(0.95 * 0.05 / draws)


def test_a_count_gets_a_binomial_interval_never_a_point():
    low, high = intervals.binomial_interval(5, 5)
    assert 0.4 < low < 1.0 and high == 1.0
    low, high = intervals.binomial_interval(0, 20)
    assert low == 0.0 and high > 0.1


def test_two_sided_p_matches_scipy():
    diff, se, draws = 0.3, 0.12, 9
    assert statistics.two_sided_p([diff], [se], draws)[0] == pytest.approx(
        2 * stats.t.sf(diff / se, draws - 1), rel=1e-12
    )
    assert statistics.two_sided_p([-diff], [se], draws)[0] == pytest.approx(
        2 * stats.t.sf(diff / se, draws - 1), rel=1e-12
    )
