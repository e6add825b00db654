"""Verdict rules and conclusions of the training chapter (string reversal).

Every function reads ``runs``, a table with one row per training run (a pandas DataFrame)
and the columns

- ``setup``, ``method`` (the scaling's name: ``sqrt_d``, ``constant`` for the searched beta,
  ``k_total``, ...), ``seed``;
- ``accuracy at B steps`` (validation token accuracy at budget ``B``), ``test accuracy at B
  steps`` (NaN where not measured), ``steps to target`` (first evaluated step at 95%, NaN if
  never);
- ``spread at init``, ``spread at end`` (standard deviation of the scaled logits across keys,
  mean over rows) and ``sigma_X``, ``sigma_Wq``, ``sigma_Wk`` ``at init`` / ``at end``
  (Chuang's standard deviations of the attention input and of the query and key weights),

and returns a :class:`~attncore.claims.Finding` (its claim's templates say it) or a
:class:`~attncore.claims.finding.Reading` (the chapter's templates say it). Accuracies are
compared seed by seed: a setup shows an effect only if every seed shows it.

>>> runs = example_runs(sqrt_long=0.99)
>>> chuang_string_reversal(runs, short=500, long=3000).verdict.value
'holds with a caveat'
>>> gap_conclusion(runs, short=500, long=3000).branch
'speed'
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd
from scipy import stats

from attncore.claims.catalogue import Verdict
from attncore.claims.finding import Finding, Reading
from attncore.claims.thresholds import decided_by
from attncore.claims.thresholds.training import (
    ABOUT_FIVE,
    FAST,
    GUESS,
    HALF_DATA_TARGET,
    LEARNED,
    MIN_GAP,
    SEEN_SHARE,
    UNIT,
    WEIGHT_CHANGE,
)
from attncore.claims.words import share

__all__ = [
    "GAP_OUTCOMES",
    "association",
    "bernhard_q_norm_undesirable",
    "bernhard_transformer_performance",
    "chuang_96_half_data",
    "chuang_25000_samples",
    "chuang_assumptions_invalid",
    "chuang_beta_only_at_init",
    "chuang_not_memorizing",
    "chuang_perfect_accuracy",
    "chuang_sigma_w_moving_factors",
    "chuang_string_reversal",
    "embedding_dimension",
    "example_evaluations",
    "example_runs",
    "gap_conclusion",
    "gap_outcome",
    "gaps",
    "interval",
    "is_about_five",
    "k_total_conclusion",
    "mean_and_half_width",
    "mechanism",
    "pace_story",
    "steps_text",
]

#: The coverage of the intervals over seeds the measured texts give (Student t).
INTERVAL = 0.95


def mean_and_half_width(values: Sequence[float] | pd.Series) -> tuple[float, float]:
    """The mean of ``values`` over seeds and the half-width of its 95 % Student t interval
    (NaN for a single seed): the numbers :func:`interval` writes.

    >>> [round(v, 4) for v in mean_and_half_width([0.97, 0.99, 1.0, 0.98, 0.99])]
    [0.986, 0.0142]
    >>> mean_and_half_width([0.5])
    (0.5, nan)
    """
    x = np.asarray(values, dtype=float)
    mean = float(x.mean())
    if x.size < 2:
        return mean, math.nan
    t = float(stats.t.ppf(0.5 + INTERVAL / 2, x.size - 1))
    return mean, t * float(x.std(ddof=1)) / math.sqrt(x.size)


def interval(values: Sequence[float] | pd.Series, *, share: bool = True) -> str:
    """The mean of ``values`` over seeds with its 95 % Student t interval, as percentages
    when ``share`` (clipped to 0 to 100 %); a single seed gets no interval.

    >>> interval([0.97, 0.99, 1.0, 0.98, 0.99])
    '98.6% [97.1, 100.0]'
    >>> interval([0.9998, 0.9999, 0.9999])
    '> 99.9% [99.9, 100.0]'
    >>> interval([1200.0, 1500.0, 1350.0], share=False)
    '1350 [977, 1723]'
    >>> interval([0.5])
    '50.0% (one seed)'
    """
    mean, half = mean_and_half_width(values)
    text = _pct(mean) if share else f"{mean:.0f}"
    if math.isnan(half):
        return f"{text} (one seed)"
    low, high = mean - half, mean + half
    if share:
        # outward rounding, so that an interval below 100 % never prints as [100.0, 100.0]
        low_pct = math.floor(1000 * max(low, 0.0)) / 10
        high_pct = math.ceil(1000 * min(high, 1.0)) / 10
        return f"{text} [{low_pct:.1f}, {high_pct:.1f}]"
    return f"{text} [{low:.0f}, {high:.0f}]"


def steps_text(steps: pd.Series) -> str:
    """Steps to 95 % over seeds: the median and the range of the seeds that got there, and
    how many did.

    >>> steps_text(pd.Series([1000.0, 1200.0, float("nan")]))
    'median 1100 (1000 to 1200; two of the three seeds)'
    >>> steps_text(pd.Series([float("nan")] * 2)), steps_text(pd.Series([400.0]))
    ('never', 'step 400')
    """
    reached = steps.dropna()
    if reached.empty:
        return "never"
    if len(steps) == 1:
        return f"step {reached.iloc[0]:.0f}"
    return (
        f"median {reached.median():.0f} ({reached.min():.0f} to {reached.max():.0f}; "
        f"{share(len(reached), len(steps), 'seed')})"
    )


def _acc(budget: int) -> str:
    return f"accuracy at {budget} steps"


def _test(budget: int) -> str:
    return f"test accuracy at {budget} steps"


def _part(runs: pd.DataFrame, setup: str, method: str) -> pd.DataFrame:
    return runs[(runs["setup"] == setup) & (runs["method"] == method)]


def _pct(x: float) -> str:
    """A share as a percentage to one decimal; a share below 1 never reads as 100%.

    >>> _pct(0.2345), _pct(1.0), _pct(0.99996)
    ('23.4%', '100.0%', '> 99.9%')
    """
    text = f"{100 * x:.1f}%"
    return "> 99.9%" if text == "100.0%" and x < 1 else text


def _setups(runs: pd.DataFrame) -> list[str]:
    return list(dict.fromkeys(runs["setup"]))


def _trained(runs: pd.DataFrame, method: str) -> list[str]:
    """The setups, in order, in which ``method`` has runs."""
    return [s for s in _setups(runs) if len(_part(runs, s, method))]


def gaps(
    runs: pd.DataFrame, budgets: Sequence[int], guess: float = GUESS
) -> dict[tuple[str, int], bool]:
    """Chuang's gap per setup and budget: every seed of ``sqrt_d`` below ``guess`` and
    every seed of the searched beta (``constant``) at or above :data:`LEARNED`.

    >>> gaps(example_runs(), [500])
    {('small init', 500): True, ('LayerNorm', 500): False}
    """
    found = {}
    for setup in _setups(runs):
        sqrt, searched = _part(runs, setup, "sqrt_d"), _part(runs, setup, "constant")
        for budget in budgets:
            found[setup, budget] = bool(
                len(sqrt)
                and len(searched)
                and (sqrt[_acc(budget)] < guess).all()
                and (searched[_acc(budget)] >= LEARNED).all()
            )
    return found


def _learns(runs: pd.DataFrame, setup: str, method: str, budget: int) -> bool:
    part = _part(runs, setup, method)
    return bool(len(part) and (part[_acc(budget)] >= LEARNED).all())


def is_about_five(beta: float, factor: float = ABOUT_FIVE) -> bool:
    """Whether ``beta`` is "about 5": within ``factor`` of 5.

    >>> is_about_five(4.1), is_about_five(52.6), is_about_five(3.0, factor=1.5)
    (True, False, False)
    """
    return 5 / factor <= beta <= 5 * factor


@decided_by(GUESS, ABOUT_FIVE, LEARNED)
def chuang_string_reversal(
    runs: pd.DataFrame,
    short: int,
    long: int,
    searched_betas: Mapping[str, Sequence[float]] | None = None,
    *,
    guess: float = GUESS,
    about_five: float = ABOUT_FIVE,
) -> Finding:
    """Chuang's gap, 1.5% with 1/√d against over 95% with the searched beta, "a constant ∼5".

    His model, training length and initialization are unknown, so the gap is looked for in
    every setup at both budgets. A setup in which no seed of the searched beta learns the
    task at either budget is *uninformative*: the search found no factor that learns, so a
    missing gap there says nothing either way. ``searched_betas`` gives, per setup, the beta
    of every search (over seeds and budgets). **Holds** if in every informative setup the gap
    appears at both budgets and every search's beta is about 5 (within ``about_five``);
    **holds with a caveat** if the gap appears somewhere but not so (branch ``caveat`` where
    the gap is missing somewhere, ``not-five`` where only the searched betas are off);
    **does not hold** if it appears in no informative setup at either budget; **not testable
    here** if no setup is informative. Values: ``setups`` (:func:`_gap_record` per setup),
    ``where`` (setups and budgets with the gap), ``near`` and ``rests`` (none or one record:
    the searches about 5; the setups that cannot test it), ``seeds``.

    >>> chuang_string_reversal(example_runs(searched=0.5), 500, 3000).verdict.value
    'does not hold'
    >>> runs = example_runs()
    >>> runs.loc[runs["method"] == "constant", [_acc(500), _acc(3000)]] = 0.03
    >>> chuang_string_reversal(runs, 500, 3000).verdict.value
    'not testable here'
    """
    found = gaps(runs, [short, long], guess)
    setups = _setups(runs)
    informative = [s for s in setups if any(_learns(runs, s, "constant", b) for b in (short, long))]
    betas = {s: list((searched_betas or {}).get(s, [])) for s in setups}
    near = [is_about_five(b, about_five) for s in informative for b in betas[s]]
    everywhere = all(found[s, b] for s in informative for b in (short, long))
    where = [{"setup": _named(s), "budget": b} for (s, b), g in found.items() if g]
    verdict, branch = _gap_verdict(bool(informative), everywhere, all(near), bool(where))
    outcomes = (
        {s: gap_outcome(runs, s, short, long) for s in informative}
        if verdict is Verdict.CAVEAT
        else {}
    )
    uninformative = [s for s in setups if s not in informative]
    values = {
        "setups": [
            _gap_record(runs, s, short, long, betas[s], s in informative, outcomes.get(s, "none"))
            for s in setups
        ],
        "where": where,
        "near": [{"near": (sum(near), len(near))}] if near else [],
        "rests": (
            [{"untested": _names(uninformative), "tested": _names(informative)}]
            if uninformative and informative
            else []
        ),
        "seeds": int(runs.groupby(["setup", "method"]).size().min()),
    }
    return Finding("chuang-string-reversal", verdict, values=values, branch=branch)


def _gap_verdict(
    informative: bool, everywhere: bool, near: bool, somewhere: bool
) -> tuple[Verdict, str]:
    """The verdict of :func:`chuang_string_reversal` and its branch: whether some setup is
    ``informative``, the gap appears ``everywhere`` it can be tested, every searched beta is
    ``near`` 5, and the gap appears ``somewhere``."""
    if not informative:
        return Verdict.UNTESTABLE, "untestable"
    if everywhere and near:
        return Verdict.HOLDS, "holds"
    if somewhere:
        return Verdict.CAVEAT, "not-five" if everywhere else "caveat"
    return Verdict.FAILS, "fails"


def _gap_record(
    runs: pd.DataFrame,
    setup: str,
    short: int,
    long: int,
    betas: Sequence[float],
    learns: bool,
    outcome: str,
) -> dict[str, object]:
    """What :func:`chuang_string_reversal` measured in ``setup``: the accuracies of 1/√d and
    of the searched beta at both budgets, the betas its searches found (none or one record),
    the 1/√d logit spread at initialization, whether the searched beta ``learns``, and the
    ``outcome`` of the gap after the long budget (one of :data:`GAP_OUTCOMES`; ``none`` says
    nothing)."""
    sqrt, searched = _part(runs, setup, "sqrt_d"), _part(runs, setup, "constant")
    return {
        "setup": _named(setup),
        "searches": [{"betas": list(betas)}] if betas else [],
        "short": short,
        "long": long,
        "sqrt_short": interval(sqrt[_acc(short)]),
        "beta_short": interval(searched[_acc(short)]),
        "sqrt_long": interval(sqrt[_acc(long)]),
        "beta_long": interval(searched[_acc(long)]),
        "spread": float(sqrt["spread at init"].mean()) if len(sqrt) else math.nan,
        "learns": learns,
        "outcome": [] if outcome == "none" else [outcome],
    }


#: What :func:`gap_outcome` can find in a setup: no gap at the short budget, a gap that the long
#: budget closes, a gap still open after it.
GAP_OUTCOMES = ("none", "closes", "open")


def gap_outcome(runs: pd.DataFrame, setup: str, short: int, long: int) -> str:
    """One of :data:`GAP_OUTCOMES` for ``setup``.

    >>> gap_outcome(example_runs(sqrt_long=0.5), "small init", 500, 3000)
    'open'
    >>> gap_outcome(example_runs(), "LayerNorm", 500, 3000)
    'none'
    """
    if not gaps(runs, [short, long])[setup, short]:
        return "none"
    return "closes" if _learns(runs, setup, "sqrt_d", long) else "open"


def _named(setup: str) -> str:
    """A setup's name in quotes: the names hold commas, so lists of them need the quotes."""
    return f"“{setup}”"


def _names(setups: Sequence[str]) -> list[str]:
    """Setup names, each quoted (:func:`_named`), for a template's ``list``."""
    return [_named(s) for s in setups]


def _median_steps(runs: pd.DataFrame, setup: str, method: str) -> float:
    """Median over seeds of the steps to 95%, NaN unless every seed got there."""
    steps = _part(runs, setup, method)["steps to target"]
    return float(steps.median()) if len(steps) and steps.notna().all() else math.nan


def _apart(runs: pd.DataFrame, setup: str, method: str) -> int:
    """-1 where every seed of ``method`` reaches 95% in fewer steps than every seed of 1/√d in
    ``setup``, 1 where in more, 0 otherwise or with fewer than three seeds of either."""
    mine = _part(runs, setup, method)["steps to target"]
    theirs = _part(runs, setup, "sqrt_d")["steps to target"]
    if min(len(mine), len(theirs)) < 3 or mine.isna().any() or theirs.isna().any():
        return 0
    return -1 if mine.max() < theirs.min() else 1 if mine.min() > theirs.max() else 0


def pace_story(
    runs: pd.DataFrame, setup: str, long: int, labels: Mapping[str, str] | None = None
) -> Reading:
    """Which methods reach 95% at about the pace of 1/√d in ``setup``, which faster, which
    slower, which not within ``long`` steps. Faster (slower) where every seed of the method
    gets there before (after) every seed of 1/√d, with three seeds or more of each (by chance,
    with exchangeable seeds, at most one time in 20), or where its
    median steps are more than a factor :data:`FAST` fewer (more); else about the same. The
    steps themselves are in the chapter's tables. Branch ``reaches`` where 1/√d reaches 95%
    within ``long`` steps, ``never`` where it does not; values ``setup``, ``long`` and
    ``groups``, a record per pace that some method keeps (its ``methods``, named by
    ``labels``, and its ``pace``: ``faster``, ``same``, ``slower``, ``never``, or
    ``reached`` where 1/√d never does).

    >>> found = pace_story(example_runs(), "LayerNorm", 3000, {"constant": "β"})
    >>> found.branch, found.values["groups"]
    ('reaches', [{'methods': ['β'], 'pace': ['same']}, {'methods': ['k_total'], 'pace': ['never']}])
    """
    labels = labels or {}
    name = {m: labels.get(m, m) for m in dict.fromkeys(runs["method"])}
    reference = _median_steps(runs, setup, "sqrt_d")
    groups: dict[str, list[str]] = {"faster": [], "same": [], "slower": [], "never": []}
    for method in name:
        if method == "sqrt_d" or not len(_part(runs, setup, method)):
            continue
        steps = _median_steps(runs, setup, method)
        apart = _apart(runs, setup, method)
        if math.isnan(steps):
            groups["never"].append(name[method])
        elif math.isnan(reference) or steps * FAST < reference or apart < 0:
            groups["faster"].append(name[method])
        elif steps > FAST * max(reference, 1.0) or apart > 0:
            groups["slower"].append(name[method])
        else:
            groups["same"].append(name[method])
    never = math.isnan(reference)
    records = [
        {"methods": methods, "pace": ["reached" if never and pace == "faster" else pace]}
        for pace, methods in groups.items()
        if methods
    ]
    values = {"setup": _named(setup), "long": long, "groups": records}
    return Reading("never" if never else "reaches", values)


def k_total_conclusion(runs: pd.DataFrame, long: int) -> Reading:
    """Where 1/k_total learns the task (every seed at 95% within ``long`` steps): where it
    ends instead is in the chapter's tables. Branch ``untrained`` where no run trains it,
    ``some`` where it learns in some setups but not all (values ``good``, those setups),
    else ``count`` (values ``learned``, the setups where it learns, of those trained);
    every branch has ``long``.

    >>> found = k_total_conclusion(example_runs(), 3000)
    >>> found.branch, found.values["learned"]
    ('count', (0, 2))
    >>> k_total_conclusion(example_runs(k_total=0.99), 3000).values["good"]
    ['“small init”']
    """
    setups = _trained(runs, "k_total")
    if not setups:
        return Reading("untrained", {"long": long})
    good = [s for s in setups if _learns(runs, s, "k_total", long)]
    if good and len(good) < len(setups):
        return Reading("some", {"long": long, "good": _names(good)})
    return Reading("count", {"long": long, "learned": (len(good), len(setups))})


def _gap_follows_spread(runs: pd.DataFrame, short: int) -> tuple[list[str], dict[str, float]]:
    """The setups with the gap after ``short`` steps, if the gap appears in some setups but not
    all and exactly where the 1/√d logits start smallest (else an empty list), and the 1/√d
    logit spread at initialization per setup."""
    found = gaps(runs, [short])
    spread = {s: _part(runs, s, "sqrt_d")["spread at init"].mean() for s in _setups(runs)}
    with_gap = [s for s in spread if found[s, short]]
    without = [s for s in spread if not found[s, short]]
    if with_gap and without and max(spread[s] for s in with_gap) < min(spread[s] for s in without):
        return with_gap, spread
    return [], spread


def association(runs: pd.DataFrame, short: int) -> Reading:
    """How the gap after ``short`` steps goes with the 1/√d logit spread at initialization.

    The setups change LayerNorm and the initialization together, so the reading says what
    the runs show together, never which of the two causes the gap. Branch ``flat`` where the
    gap appears in every setup or in none (values ``where``, the setups with the gap, of
    all), ``follows`` where it appears exactly where the logits start smallest, else
    ``apart``; every branch has ``short``.

    >>> association(example_runs(), 500).branch
    'follows'
    >>> association(example_runs(searched=0.5), 500).values
    {'short': 500, 'where': (0, 2)}
    """
    found = gaps(runs, [short])
    follows, spread = _gap_follows_spread(runs, short)
    with_gap = [s for s in spread if found[s, short]]
    without = [s for s in spread if not found[s, short]]
    if not with_gap or not without:
        return Reading("flat", {"short": short, "where": (len(with_gap), len(spread))})
    return Reading("follows" if follows else "apart", {"short": short})


def mechanism(runs: pd.DataFrame, short: int) -> Reading:
    """A mechanism that would fit the association of :func:`association`, offered only when
    the runs show one (the gap after ``short`` steps where the 1/√d logits start smallest and
    not elsewhere): branch ``fits``, with ``qk_norm``, whether QK-norm was trained (the
    chapter's words on it only then); else ``none``.

    >>> mechanism(example_runs(), 500)
    Reading(branch='fits', values={'qk_norm': False})
    >>> mechanism(example_runs(searched=0.5), 500).branch
    'none'
    """
    if not _gap_follows_spread(runs, short)[0]:
        return Reading("none")
    return Reading("fits", {"qk_norm": bool(_trained(runs, "qk_norm"))})


def gap_conclusion(runs: pd.DataFrame, short: int, long: int) -> Reading:
    """The chapter's conclusion on Chuang's gap, from the verdict's data: where it appears
    after ``short`` steps and what ``long`` steps make of it (said only where it appeared);
    the numbers are in the verdict line and the tables. Branch ``none`` where the gap appears
    nowhere (values ``two``, whether there are two setups); else, by what the long budget
    makes of it, ``speed`` (1/√d learns the task in every setup with the gap), ``some`` (in
    some: values ``closes``) or ``slow`` (in none), with ``where``, the setups with the gap.
    Every branch has ``short``; all but ``none`` have ``long``.

    >>> found = gap_conclusion(example_runs(sqrt_long=0.99), 500, 3000)
    >>> found.branch, found.values["where"]
    ('speed', ['“small init”'])
    >>> gap_conclusion(example_runs(searched=0.5), 500, 3000)
    Reading(branch='none', values={'short': 500, 'two': True})
    """
    setups = _setups(runs)
    found = gaps(runs, [short])
    where = [s for (s, _), g in found.items() if g]
    if not where:
        return Reading("none", {"short": short, "two": len(setups) == 2})
    values: dict[str, object] = {"short": short, "long": long, "where": _names(where)}
    closes = [s for s in where if _learns(runs, s, "sqrt_d", long)]
    if len(closes) == len(where):
        return Reading("speed", values)
    if closes:
        return Reading("some", {**values, "closes": _names(closes)})
    return Reading("slow", values)


@decided_by(LEARNED)
def bernhard_transformer_performance(runs: pd.DataFrame, long: int) -> Finding:
    """Bernhard's "appears to perform well" in preliminary experiments, unspecified.

    The claim names no task, model, metric or baseline, so the rule reads it on the one task
    trained here, against 1/√d in the same runs as the baseline: in each setup where every
    seed of 1/√d learns the task (:data:`LEARNED` within ``long`` steps), 1/k_total performs
    well if every seed of it learns the task too. **Holds** if it does in every such setup;
    **holds with a caveat** if in some; **does not hold** if in none (on this task, where
    1/√d learns, 1/k_total does not); **not testable here** if 1/k_total was not trained
    (branch ``untrained``) or 1/√d learns in no setup (no baseline that learns). Values:
    ``setups`` (a record per setup: both methods' accuracies and steps to 95%), ``long``,
    ``good`` (where 1/k_total learns), ``missed`` (where 1/√d learns and 1/k_total does
    not), ``baseline`` (where 1/√d learns).

    >>> bernhard_transformer_performance(example_runs(), 3000).verdict.value
    'does not hold'
    >>> bernhard_transformer_performance(example_runs(k_total=0.99), 3000).verdict.value
    'holds with a caveat'
    """
    claim = "bernhard-transformer-performance"
    setups = _trained(runs, "k_total")
    if not setups:
        return Finding(claim, Verdict.UNTESTABLE, branch="untrained")
    baseline = [s for s in setups if _learns(runs, s, "sqrt_d", long)]
    good = [s for s in baseline if _learns(runs, s, "k_total", long)]
    records = [
        {
            "setup": _named(s),
            "k_total": interval(_part(runs, s, "k_total")[_acc(long)]),
            "sqrt": interval(_part(runs, s, "sqrt_d")[_acc(long)]),
            "k_steps": steps_text(_part(runs, s, "k_total")["steps to target"]),
            "sqrt_steps": steps_text(_part(runs, s, "sqrt_d")["steps to target"]),
        }
        for s in setups
    ]
    if not baseline:
        verdict = Verdict.UNTESTABLE
    elif len(good) == len(baseline):
        verdict = Verdict.HOLDS
    elif good:
        verdict = Verdict.CAVEAT
    else:
        verdict = Verdict.FAILS
    values = {
        "setups": records,
        "long": long,
        "good": _names(good),
        "missed": _names([s for s in baseline if s not in good]),
        "baseline": _names(baseline),
    }
    return Finding(claim, verdict, values=values)


def _from_premise(status: Mapping[str, str]) -> tuple[Verdict, list[dict[str, list[str]]]]:
    """The verdict on a claim that training ends something Chuang assumes at the start, from
    each setup's status (``unmet`` at the start, ``stays``, ``breaks``, or in between), and
    which setups it rests on: none or one record of the setups that do not start from the
    premise (``unmet``) and those that do (``rest``), the first only where some do not and
    some do.

    >>> verdict, rests = _from_premise({"a": "breaks", "b": "unmet"})
    >>> verdict.value, rests
    ('holds with a caveat', [{'unmet': ['“b”'], 'rest': ['“a”']}])
    """
    values = list(status.values())
    if "stays" in values:
        verdict = Verdict.FAILS
    elif all(v == "unmet" for v in values):
        return Verdict.UNTESTABLE, []
    elif all(v == "breaks" for v in values):
        verdict = Verdict.HOLDS
    else:
        verdict = Verdict.CAVEAT
    unmet = [s for s, v in status.items() if v == "unmet"]
    if not unmet:
        return verdict, []
    rest = [s for s, v in status.items() if v != "unmet"]
    return verdict, [{"unmet": _names(unmet), "rest": _names(rest)}]


@decided_by(UNIT, WEIGHT_CHANGE)
def chuang_beta_only_at_init(
    runs: pd.DataFrame, *, unit: float = UNIT, weight_change: float = WEIGHT_CHANGE
) -> Finding:
    """Chuang: "β = 1/√d_k is only valid at the initial point given the four assumptions at
    the initial point", since training moves sigma_Wq and sigma_Wk and with them the variance
    of the logits.

    The claim is about a change: given the assumptions at the start, 1/√d_k is valid there,
    and training ends its validity. Valid is read on the 1/√d runs as what the four
    assumptions give, a logit spread (standard deviation of the scaled logits across keys)
    within a factor ``unit`` of 1. Per setup: *premise unmet* if the spread at
    initialization is outside that band on some seed (1/√d is not valid even at the start,
    so the setup cannot show training ending its validity, neither for nor against the
    claim); *stays* if it is inside at initialization and at the end on every seed (a
    counterexample); *breaks* if inside at initialization and outside at the end on every
    seed, with sigma_Wq sigma_Wk moved by a factor ``weight_change`` on every seed, and
    *breaks without σ_W* (``alone``) if they moved less on some seed (something else moved
    the spread); *mixed* if the seeds disagree. Does not hold if some setup stays; not
    testable if the premise is unmet in every setup; holds if every setup breaks; holds with
    a caveat otherwise, the verdict then resting on the setups that start from the premise.
    This is how :func:`chuang_assumptions_invalid` reads its premise, assumption (ii) at
    step 0. Values: ``setups`` (a record per setup: its sigmas and spread at initialization
    and at the end, the change of the spread and the change the relaxed formula gives, its
    ``status``) and ``rests`` (:func:`_from_premise`).

    >>> runs = example_runs()  # spread at initialization 0.002 and 0.4: premise unmet
    >>> chuang_beta_only_at_init(runs).verdict.value
    'not testable here'
    >>> runs["spread at end"] *= 1 / runs["spread at init"]
    >>> runs["spread at init"] = 1.0
    >>> chuang_beta_only_at_init(runs).verdict.value
    'holds'
    >>> runs["spread at end"] = 1.5
    >>> chuang_beta_only_at_init(runs).verdict.value
    'does not hold'
    """
    status, records = {}, []
    for s in _trained(runs, "sqrt_d"):
        part = _part(runs, s, "sqrt_d")
        start, end = _within(part["spread at init"], unit), _within(part["spread at end"], unit)
        product = (part["sigma_Wq at end"] * part["sigma_Wk at end"]) / (
            part["sigma_Wq at init"] * part["sigma_Wk at init"]
        )
        if not start.all():
            status[s] = "unmet"
        elif end.all():
            status[s] = "stays"
        elif end.any():
            status[s] = "mixed"
        else:
            moved = bool((~_within(product, weight_change)).all())
            status[s] = "breaks" if moved else "alone"
        records.append({**_spread_record(part, product), "setup": _named(s), "status": [status[s]]})
    verdict, rests = _from_premise(status)
    values = {"setups": records, "rests": rests}
    return Finding("chuang-beta-only-at-init", verdict, values=values)


def _spread_record(part: pd.DataFrame, product: pd.Series) -> dict[str, float]:
    """The sigmas and the logit spread of one setup's 1/√d runs at initialization and at the
    end (means over seeds), the change of the spread and the change Chuang's relaxed formula
    gives with the measured sigmas (``product``: the change of sigma_Wq sigma_Wk)."""
    spread = part["spread at end"] / part["spread at init"]
    chuang = product * (part["sigma_X at end"] / part["sigma_X at init"]) ** 2
    mean = part.mean(numeric_only=True)
    return {
        "wq0": float(mean["sigma_Wq at init"]),
        "wq1": float(mean["sigma_Wq at end"]),
        "wk0": float(mean["sigma_Wk at init"]),
        "wk1": float(mean["sigma_Wk at end"]),
        "x0": float(mean["sigma_X at init"]),
        "x1": float(mean["sigma_X at end"]),
        "s0": float(mean["spread at init"]),
        "s1": float(mean["spread at end"]),
        "ratio": float(spread.mean()),
        "formula": float(chuang.mean()),
    }


def _sup(number: int) -> str:
    """An integer in superscript digits, for powers in plain text: ``_sup(20)`` is ``²⁰``."""
    return str(number).translate(str.maketrans("0123456789-", "⁰¹²³⁴⁵⁶⁷⁸⁹⁻"))


@decided_by(SEEN_SHARE, LEARNED)
def chuang_not_memorizing(
    runs: pd.DataFrame,
    budgets: Sequence[int],
    *,
    vocab: int,
    length: int,
    parameters: int,
    overlap: int,
    n_test: int,
    seen_share: float = SEEN_SHARE,
) -> Finding:
    """Chuang: the model does not memorize, since 100% is reachable and memorizing would need
    100^20 strings, far more than its parameters.

    The test is accuracy on test strings that are not in the training set (``overlap`` of
    the ``n_test`` are). **Holds** if some method reaches :data:`LEARNED` test token accuracy
    on average over seeds, with at most ``seen_share`` of the test strings seen in training;
    **holds with a caveat** if it does with more of them seen (part of the accuracy could be
    memorized); **not testable here** if no run learned the task (branch ``unmeasured`` where
    no test accuracy was measured). The number of strings is ``vocab ** length`` (101^20 for
    0..100, where the paper counts 100^20); the conclusion does not depend on it. Values:
    ``best`` (the best mean test token accuracy, as the page writes it), ``seen`` (the test
    strings also among the training strings, of all), ``parameters``, ``strings`` (the count
    of possible strings, as a power) and ``paper`` (whether the count is the paper's 101^20
    against its 100^20).

    >>> rule = chuang_not_memorizing(example_runs(), [500], vocab=101, length=20,
    ...                              parameters=4741, overlap=0, n_test=1000)
    >>> rule.verdict.value, rule.values["strings"]
    ('holds', '101²⁰ ≈ 1.22 × 10⁴⁰')
    """
    claim = "chuang-not-memorizing"
    columns = [_test(b) for b in budgets]
    columns = [c for c in columns if c in runs]
    means = runs.groupby(["setup", "method"])[columns].mean() if columns else pd.DataFrame()
    best = float(np.nanmax(means.to_numpy())) if means.size else math.nan
    if math.isnan(best):
        return Finding(claim, Verdict.UNTESTABLE, branch="unmeasured")
    mantissa, exponent = f"{float(vocab) ** length:.2e}".split("e")
    seen = overlap / n_test if n_test else 0.0
    if best < LEARNED:
        verdict = Verdict.UNTESTABLE
    elif seen > seen_share:
        verdict = Verdict.CAVEAT
    else:
        verdict = Verdict.HOLDS
    values = {
        "best": _pct(best),
        "seen": (overlap, n_test),
        "parameters": parameters,
        "strings": f"{vocab}{_sup(length)} ≈ {mantissa} × 10{_sup(int(exponent))}",
        "paper": vocab == 101 and length == 20,
    }
    return Finding(claim, verdict, values=values)


#: Chuang's training-set size (section 3), with which he reports 1/√d_k at 1.5%.
CHUANG_TRAIN = 15_000


def _final(
    runs: pd.DataFrame, setup: str, methods: Sequence[str], long: int
) -> tuple[dict[str, pd.Series], str]:
    """Every seed's token accuracy of each of ``methods`` in ``setup`` after ``long`` steps:
    on the test strings where every run was scored there, else on the validation strings;
    with the name of the strings."""
    parts = {m: _part(runs, setup, m) for m in methods}
    test = _test(long)
    if all(test in p and p[test].notna().all() for p in parts.values()):
        return {m: p[test] for m, p in parts.items()}, "test"
    return {m: p[_acc(long)] for m, p in parts.items()}, "validation"


def _sqrt_record(runs: pd.DataFrame, setup: str, short: int, long: int) -> dict[str, str]:
    """1/√d's token accuracy in ``setup`` after ``short`` and ``long`` steps, each with the
    strings it was read on (:func:`_final`)."""
    short_values, short_strings = _final(runs, setup, ["sqrt_d"], short)
    long_values, long_strings = _final(runs, setup, ["sqrt_d"], long)
    return {
        "setup": _named(setup),
        "short_acc": interval(short_values["sqrt_d"]),
        "short_strings": short_strings,
        "long_acc": interval(long_values["sqrt_d"]),
        "long_strings": long_strings,
    }


@decided_by(LEARNED)
def chuang_25000_samples(runs: pd.DataFrame, short: int, long: int, n_train: int) -> Finding:
    """Chuang: with 1/√d_k, "to have a stable test accuracy above 95%, the training sample size
    needs to be increased from 15000 to 25000".

    Read as: with 15,000 training strings 1/√d_k does not reach a stable 95%, and with 25,000
    it does. "Stable" is read as every seed, the accuracy as the token accuracy on the test
    strings (validation where the test strings were not scored), 95% as :data:`LEARNED`.
    The chapter trains one size, ``n_train``, and Chuang gives no training length, so the
    claim can be refuted only independently of the length: **does not hold** if ``n_train``
    is at most Chuang's :data:`CHUANG_TRAIN` and every seed of 1/√d reaches :data:`LEARNED`
    in every setup already after the short budget (``short`` steps). Otherwise **not testable
    here**: where 1/√d learns only with the long budget (branch ``late``), the claim turns on
    the training length Chuang leaves open; where it falls short (``untestable``), one size
    cannot tell whether 25,000 strings would help; likewise if the chapter trains on more
    strings (``more``) or 1/√d was not trained (``untrained``). Confirming the claim takes a
    second training-set size. Values: ``n_train``, ``short``, ``long``, ``setups`` (a record
    per setup: 1/√d's accuracy at both budgets and the strings each was read on), ``fewer``
    (``n_train`` below Chuang's), ``learned`` (the setups where 1/√d learns with the long
    budget).

    >>> runs = example_runs()
    >>> chuang_25000_samples(runs, 500, 3000, 15000).verdict.value
    'not testable here'
    >>> runs.loc[runs["method"] == "sqrt_d", _acc(500)] = 0.99
    >>> runs.loc[runs["method"] == "sqrt_d", "test accuracy at 500 steps"] = 0.99
    >>> chuang_25000_samples(runs, 500, 3000, 15000).verdict.value
    'does not hold'
    """
    claim = "chuang-25000-samples"
    setups = _trained(runs, "sqrt_d")
    if not setups:
        return Finding(claim, Verdict.UNTESTABLE, branch="untrained")
    learned: dict[int, list[str]] = {short: [], long: []}
    for s in setups:
        for budget in (short, long):
            values, _ = _final(runs, s, ["sqrt_d"], budget)
            if (values["sqrt_d"] >= LEARNED).all():
                learned[budget].append(s)
    records = [_sqrt_record(runs, s, short, long) for s in setups]
    if n_train > CHUANG_TRAIN:
        verdict, branch = Verdict.UNTESTABLE, "more"
    elif len(learned[short]) == len(setups):
        verdict, branch = Verdict.FAILS, "fails"
    elif learned[long]:
        verdict, branch = Verdict.UNTESTABLE, "late"
    else:
        verdict, branch = Verdict.UNTESTABLE, "untestable"
    values = {
        "n_train": n_train,
        "short": short,
        "long": long,
        "setups": records,
        "fewer": n_train < CHUANG_TRAIN,
        "learned": _names(learned[long]),
    }
    return Finding(claim, verdict, values=values, branch=branch)


@decided_by(HALF_DATA_TARGET)
def chuang_96_half_data(
    runs: pd.DataFrame, short: int, long: int, n_train: int, *, target: float = HALF_DATA_TARGET
) -> Finding:
    """Chuang: "with dynamic scaling factor being implemented, the model can reach an accuracy
    higher than 96% with about half of the training data compared to the fixed scaling
    factor".

    The dynamic factor is the result of his search (his section 4 cites the results of
    section 3, where the search ends at a constant β), so it is the searched β here, not the
    book's learned β; the fixed factor is 1/√d. The claim compares the training-set sizes the
    two need, which takes at least two sizes; the chapter trains one, ``n_train``. Read on the
    token accuracy (test strings where every run was scored there, else validation) against
    ``target``, per setup and budget. It can refute the claim in one case, which does not
    depend on the training length Chuang leaves open: if at both budgets, in every setup,
    every seed of 1/√d exceeds ``target`` and no seed of the searched β does ("can reach"
    asks for one), the searched β needs more data than 1/√d here, not half: **does not
    hold**. Otherwise **not testable here** (branch ``both`` where both exceed it somewhere).
    Values: ``n_train``, ``setups`` (a record per setup and budget: both methods'
    accuracies, the searched β's best seed, the strings read) and ``both`` (the setups and
    budgets where both exceed ``target``).

    >>> chuang_96_half_data(example_runs(), 500, 3000, 15000).branch
    'both'
    >>> accuracies = [_acc(500), _acc(3000), "test accuracy at 500 steps"]
    >>> runs = example_runs()
    >>> runs.loc[runs["method"] == "sqrt_d", accuracies] = 0.99
    >>> runs.loc[runs["method"] == "constant", accuracies] = 0.5
    >>> chuang_96_half_data(runs, 500, 3000, 15000).verdict.value
    'does not hold'
    """
    methods = ["sqrt_d", "constant"]
    setups = [s for s in _setups(runs) if all(len(_part(runs, s, m)) for m in methods)]
    fixed_only, both, records = [], [], []
    for s in setups:
        for budget in (short, long):
            values, strings = _final(runs, s, methods, budget)
            fixed, searched = values["sqrt_d"], values["constant"]
            fixed_reaches = bool((fixed > target).all())
            searched_reaches = bool((searched > target).any())
            if fixed_reaches and not searched_reaches:
                fixed_only.append((s, budget))
            if fixed_reaches and searched_reaches:
                both.append({"setup": _named(s), "budget": budget})
            records.append(
                {
                    "setup": _named(s),
                    "budget": budget,
                    "fixed": interval(fixed),
                    "searched": interval(searched),
                    "best": _pct(searched.max()),
                    "strings": strings,
                }
            )
    if setups and len(fixed_only) == 2 * len(setups):
        verdict, branch = Verdict.FAILS, "fails"
    else:
        verdict, branch = Verdict.UNTESTABLE, "both" if both else "untestable"
    values = {"n_train": n_train, "setups": records, "both": both}
    return Finding("chuang-96-half-data", verdict, values=values, branch=branch)


def example_runs(
    *,
    sqrt_short: float = 0.02,
    sqrt_long: float = 0.99,
    searched: float = 0.99,
    k_total: float = 0.02,
    spread_end: float = 3.0,
    seeds: int = 2,
) -> pd.DataFrame:
    """A small synthetic ``runs`` table for the examples and tests: two setups ("small init",
    "LayerNorm"), methods ``sqrt_d``, ``constant`` and ``k_total``, budgets 500 and 3000 steps.
    In "small init" 1/√d is at ``sqrt_short`` after 500 steps and ``sqrt_long`` after 3000; in
    "LayerNorm" every method but k_total learns by step 1000.

    >>> example_runs().shape
    (12, 15)
    """
    rows = []
    for setup in ("small init", "LayerNorm"):
        small = setup == "small init"
        for method in ("sqrt_d", "constant", "k_total"):
            if method == "sqrt_d":
                short, long = (sqrt_short, sqrt_long) if small else (0.3, 0.99)
            elif method == "constant":
                short, long = (searched, searched) if small else (0.3, 0.99)
            else:
                short, long = k_total if small else 0.03, k_total if small else 0.03
            to_target = (
                1000.0
                if long >= LEARNED and (not small or method != "sqrt_d")
                else (2500.0 if long >= LEARNED else math.nan)
            )
            for seed in range(seeds):
                rows.append(
                    {
                        "setup": setup,
                        "method": method,
                        "seed": seed,
                        "accuracy at 500 steps": short,
                        "accuracy at 3000 steps": long,
                        _test(500): short if method != "k_total" else math.nan,
                        "steps to target": to_target,
                        "spread at init": 0.002 if small else 0.4,
                        "spread at end": spread_end * (0.002 if small else 0.4),
                        "sigma_X at init": 0.03 if small else 1.0,
                        "sigma_X at end": 0.1 if small else 1.0,
                        "sigma_Wq at init": 0.25,
                        "sigma_Wq at end": 0.25 * (1.5 if spread_end != 1 else 1.0),
                        "sigma_Wk at init": 0.25,
                        "sigma_Wk at end": 0.25 * (1.5 if spread_end != 1 else 1.0),
                    }
                )
    return pd.DataFrame(rows)


def _within(values: pd.Series | np.ndarray, factor: float) -> np.ndarray:
    values = np.asarray(values, dtype=float)
    return (values <= factor) & (values >= 1 / factor)


def _query_key_variances(evals: pd.DataFrame) -> tuple[pd.Series, pd.Series]:
    """Chuang's relaxed variances of the query and key entries, d_x sigma_X^2 sigma_W^2."""
    base = evals["d_x"] * evals["sigma_X"] ** 2
    return base * evals["sigma_Wq"] ** 2, base * evals["sigma_Wk"] ** 2


@decided_by(WEIGHT_CHANGE, UNIT)
def chuang_sigma_w_moving_factors(
    evals: pd.DataFrame, *, weight_change: float = WEIGHT_CHANGE, unit: float = UNIT
) -> Finding:
    """Chuang: with the training set, d_x and d_k fixed, sigma_Wq and sigma_Wk are "the actual
    moving factors" of the variance of the logits.

    Read on the 1/√d runs of ``evals`` (one row per run and evaluation, see
    :func:`example_evaluations`), per setup and seed over all evaluations: sigma_X is fixed if
    it stays within a factor ``weight_change`` of its value at step 0; sigma_Wq sigma_Wk
    moves if it leaves that band; the relaxed formula tracks the logit spread if its
    prediction of the 1/√d spread, d_x sigma_X^2 sigma_Wq sigma_Wk, keeps the ratio measured /
    predicted within a factor ``unit`` of that ratio at step 0. Holds if in every setup,
    on every seed, sigma_X is fixed, sigma_W moves and the formula tracks; holds with a caveat
    if in some setup sigma_W moves and the formula (which carries sigma_X too) tracks the
    spread, but not all of this holds everywhere (sigma_X moving too included: the input of
    attention is then learned, not the fixed training data of Chuang's premise, so it is a
    second moving factor rather than a refutation); does not hold if in no setup sigma_W moves
    with the formula tracking the spread (then the sigmas are not what moves the logits);
    not testable (branch ``untrained``) without 1/√d runs. Values: ``setups`` (a record per
    setup: the largest moves of sigma_X, of sigma_Wq sigma_Wk and of the formula's ratio),
    ``main`` (where sigma_W moves with the formula tracking), and none or one record each of
    ``alone`` (the other setups, where the caveat rests on ``main`` alone), ``moved`` (where
    sigma_X moves too) and ``missed`` (where the formula misses the spread).

    >>> chuang_sigma_w_moving_factors(example_evaluations()).verdict.value
    'holds'
    >>> chuang_sigma_w_moving_factors(example_evaluations(sigma_x_growth=3.0)).verdict.value
    'holds with a caveat'
    """
    evals = evals[evals["method"] == "sqrt_d"].sort_values("step")
    status, records = {}, []
    for setup in _setups(evals):
        status[setup], moves = _moving_factors(evals[evals["setup"] == setup], weight_change, unit)
        records.append({"setup": _named(setup), **moves})
    claim = "chuang-sigma-w-moving-factors"
    if not status:
        return Finding(claim, Verdict.UNTESTABLE, branch="untrained")
    main = [s for s, ok in status.items() if ok["moves"] and ok["tracks"]]
    if all(all(ok.values()) for ok in status.values()):
        verdict = Verdict.HOLDS
    elif main:
        verdict = Verdict.CAVEAT
    else:
        verdict = Verdict.FAILS
    x_moved = [s for s, ok in status.items() if not ok["fixed"]]
    missed = [s for s, ok in status.items() if not ok["tracks"]]
    others = [s for s in status if s not in main]
    values = {
        "setups": records,
        "main": _names(main),
        "alone": [{"others": _names(others)}] if others and main else [],
        "moved": [{"where": _names(x_moved)}] if x_moved else [],
        "missed": [{"where": _names(missed)}] if missed else [],
    }
    return Finding(claim, verdict, values=values)


def _moving_factors(
    part: pd.DataFrame, weight_change: float, unit: float
) -> tuple[dict[str, bool], dict[str, float]]:
    """Over the seeds of one setup's 1/√d evaluations: whether sigma_X stays ``fixed``,
    sigma_Wq sigma_Wk ``moves`` and the relaxed formula ``tracks`` the spread on every seed,
    and the largest moves of each (``x``, ``w``, ``miss``) as factors from step 0."""
    ok = {"fixed": True, "moves": True, "tracks": True}
    x_moves, w_moves, misses = [], [], []
    for _, run in part.groupby("seed"):
        x = run["sigma_X"].to_numpy() / run["sigma_X"].iloc[0]
        w = (run["sigma_Wq"] * run["sigma_Wk"]).to_numpy()
        w = w / w[0]
        predicted = (
            run["d_x"] * run["sigma_X"] ** 2 * run["sigma_Wq"] * run["sigma_Wk"]
        ).to_numpy()
        ratio = run["spread"].to_numpy() / predicted
        ratio = ratio / ratio[0]
        ok["fixed"] &= bool(_within(x, weight_change).all())
        ok["moves"] &= bool((~_within(w, weight_change)).any())
        ok["tracks"] &= bool(_within(ratio, unit).all())
        x_moves.append(max(x.max(), 1 / x.min()))
        w_moves.append(max(w.max(), 1 / w.min()))
        misses.append(max(ratio.max(), 1 / ratio.min()))
    moves = {"x": float(max(x_moves)), "w": float(max(w_moves)), "miss": float(max(misses))}
    return ok, moves


@decided_by(UNIT)
def chuang_assumptions_invalid(evals: pd.DataFrame, *, unit: float = UNIT) -> Finding:
    """Chuang: assumption (ii), unit variance of the query and key entries, "is not valid right
    after the training ... is initiated", and without it (iii) and (iv) are invalid.

    The claim is about a change: (ii) holds at the initial point, as Chuang assumes, and
    training breaks it. The runs record sigma_X, sigma_Wq, sigma_Wk and the logit spread at
    every evaluation, not the means of q and k or their covariances: the rule tests the
    variance part of (ii) with Chuang's relaxed formula, Var(q_ij) ~ d_x sigma_X^2 sigma_Wq^2
    (and the same for k), and reports the 1/√d logit spread, about 1 when (ii) to (iv) all
    hold. Per setup of the 1/√d runs, (ii) is met at an evaluation if both variances are
    within a factor ``unit`` of 1. A setup is *unmet at step 0* if (ii) fails at step 0 on
    some seed (the run does not start from Chuang's premise, so it can neither confirm nor
    refute that training breaks (ii)); *stays* if (ii) is met at step 0 and at the end on
    every seed (a counterexample); *breaks* if met at step 0 and unmet at every later
    evaluation on every seed; *breaks later* otherwise. Does not hold if some setup stays;
    not testable if every setup is unmet at step 0; holds if every setup breaks; holds with a
    caveat otherwise, the verdict then resting on the setups that start from the premise.
    :func:`chuang_beta_only_at_init` reads its premise, 1/√d valid at initialization, the
    same way. Values: ``setups`` (a record per setup: both variances at step 0 and at the
    last step, the spread there, its ``status``) and ``rests`` (:func:`_from_premise`).

    >>> chuang_assumptions_invalid(example_evaluations()).verdict.value
    'holds'
    >>> chuang_assumptions_invalid(example_evaluations(sigma_w_growth=1.0)).verdict.value
    'does not hold'
    >>> chuang_assumptions_invalid(example_evaluations(unit_at_init=False)).verdict.value
    'not testable here'
    >>> small = example_evaluations(unit_at_init=False).query("setup == 'small init'")
    >>> mixed = pd.concat([small, example_evaluations().query("setup == 'LayerNorm'")])
    >>> chuang_assumptions_invalid(mixed).verdict.value
    'holds with a caveat'
    """
    evals = evals[evals["method"] == "sqrt_d"].sort_values("step")
    status, records = {}, []
    for setup in _setups(evals):
        part = evals[evals["setup"] == setup]
        var_q, var_k = _query_key_variances(part)
        status[setup] = _premise_status(part, var_q, var_k, unit)
        at = part.groupby("step")
        ends = (part["step"] == part["step"].min(), part["step"] == part["step"].max())
        records.append(
            {
                "setup": _named(setup),
                "q0": float(var_q[ends[0]].mean()),
                "k0": float(var_k[ends[0]].mean()),
                "q1": float(var_q[ends[1]].mean()),
                "k1": float(var_k[ends[1]].mean()),
                "step": int(part["step"].max()),
                "s0": float(at["spread"].mean().iloc[0]),
                "s1": float(at["spread"].mean().iloc[-1]),
                "status": [status[setup]],
            }
        )
    verdict, rests = _from_premise(status)
    values = {"setups": records, "rests": rests}
    return Finding("chuang-assumptions-invalid-in-training", verdict, values=values)


def _premise_status(part: pd.DataFrame, var_q: pd.Series, var_k: pd.Series, unit: float) -> str:
    """Whether (ii) is ``unmet`` at step 0 on some seed of one setup, ``stays`` met at the end
    on every seed, ``breaks`` from the first evaluation after step 0 on, or breaks ``later``."""
    met = pd.Series(_within(var_q, unit) & _within(var_k, unit), index=part.index)
    first, kept, later = [], [], []
    for _, run in part.groupby("seed"):
        steps = met[run.index].to_numpy()
        first.append(bool(steps[0]))
        kept.append(bool(steps[0] and steps[-1]))
        later.append(bool(steps[0] and not steps[1:].any()))
    if not all(first):
        return "unmet"
    if all(kept):
        return "stays"
    return "breaks" if all(later) else "later"


def chuang_perfect_accuracy(
    runs: pd.DataFrame, budgets: Sequence[int], labels: Mapping[str, str] | None = None
) -> Finding:
    """Chuang: 100% accuracy is achievable within the ensemble, and a model at 100% flips any
    string of the same length and range. ``labels`` names the methods for the reader.

    Read as whole-string accuracy (exact match: every token right) on the test strings, the
    strictest reading of "100% accuracy". Holds with a caveat if some run reverses every test
    string at some budget (caveat: only the test strings are tried, not "any" string such as
    constant or edge-case strings). "Achievable" is a claim that some model can get there, so
    runs that all fall short cannot refute it: the verdict is then "not testable here", with the
    best accuracy reached; likewise if no test exact match was measured (branch
    ``unmeasured``). Values: ``perfect`` (the runs that reverse every test string, of those
    scored), ``best`` (the best whole-string accuracy) and the ``setup``, ``method`` and
    ``seed`` of the run that reached it.

    >>> runs = example_runs()
    >>> runs["test exact at 500 steps"] = 0.9
    >>> chuang_perfect_accuracy(runs, [500]).verdict.value
    'not testable here'
    >>> runs.loc[0, "test exact at 500 steps"] = 1.0
    >>> chuang_perfect_accuracy(runs, [500]).verdict.value
    'holds with a caveat'
    """
    claim = "chuang-perfect-accuracy"
    columns = [f"test exact at {b} steps" for b in budgets if f"test exact at {b} steps" in runs]
    values = runs[columns].to_numpy(dtype=float) if columns else np.empty((0, 0))
    if not values.size or np.isnan(values).all():
        return Finding(claim, Verdict.UNTESTABLE, branch="unmeasured")
    best = runs.assign(best=np.nanmax(np.where(np.isnan(values), -1.0, values), axis=1))
    best = best[best["best"] >= 0]
    perfect = best[best["best"] >= 1.0]
    top = best.loc[best["best"].idxmax()]
    verdict = Verdict.CAVEAT if len(perfect) else Verdict.UNTESTABLE
    found = {
        "perfect": (len(perfect), len(best)),
        "best": float(top["best"]),
        "setup": _named(top["setup"]),
        "method": (labels or {}).get(top["method"], top["method"]),
        "seed": int(top["seed"]),
    }
    return Finding(claim, verdict, values=found)


def _difference_se(a: pd.Series, b: pd.Series) -> float:
    """The standard error of the difference of the means of ``a`` and ``b`` (0 where either
    has a single seed)."""
    if min(len(a), len(b)) > 1:
        return math.sqrt(a.var(ddof=1) / len(a) + b.var(ddof=1) / len(b))
    return 0.0


@decided_by(FAST, MIN_GAP)
def bernhard_q_norm_undesirable(
    runs: pd.DataFrame, long: int, *, fast: float = FAST, min_gap: float = MIN_GAP
) -> Finding:
    """Bernhard: dividing the attention logits by ||q|| would make them independent of ||q||,
    "which seems undesirable".

    QK-norm (fixed gain, ``qk_norm``) is the proxy trained here: its logits do not depend on
    ||q||, but it also normalizes k and multiplies by a gain. Against 1/√d in the same runs,
    per setup: QK-norm is worse if its mean validation token accuracy after ``long`` steps is
    lower by more than twice the standard error of the difference and by at least
    ``min_gap``, or it reaches 95% later by a factor ``fast`` (or never, where 1/√d does).
    **Holds with a caveat** if it is worse in some setup (evidence for the claim, through a
    proxy); **does not hold** if it is worse in none: a logit independent of ‖q‖ does no harm
    on this task (the verdict is about this task and this proxy); **not testable here** if
    QK-norm was not trained (branch ``untrained``), or either method has one seed in a setup
    (``one-seed``: no spread to judge a difference by). Values: ``long``, ``setups`` (a
    record per setup: both methods' accuracies, the standard error of the difference, their
    steps to 95%) and ``worse`` (where QK-norm trains worse).

    >>> runs = example_runs()
    >>> runs.loc[runs["method"] == "k_total", "method"] = "qk_norm"
    >>> bernhard_q_norm_undesirable(runs, 3000).verdict.value
    'holds with a caveat'
    >>> runs = example_runs(k_total=0.99)
    >>> runs.loc[runs["method"] == "k_total", "method"] = "qk_norm"
    >>> runs.loc[runs["method"] == "qk_norm", [_acc(3000), "steps to target"]] = [0.99, 1000.0]
    >>> bernhard_q_norm_undesirable(runs, 3000).verdict.value
    'does not hold'
    """
    claim = "bernhard-q-norm-undesirable"
    setups = [s for s in _trained(runs, "qk_norm") if len(_part(runs, s, "sqrt_d"))]
    if not setups:
        return Finding(claim, Verdict.UNTESTABLE, branch="untrained")
    worse, records = [], []
    single = False
    for s in setups:
        qk, ref = _part(runs, s, "qk_norm")[_acc(long)], _part(runs, s, "sqrt_d")[_acc(long)]
        single |= min(len(qk), len(ref)) < 2
        se = _difference_se(qk, ref)
        lower = qk.mean() < ref.mean() - max(2 * se, min_gap)
        qk_steps, ref_steps = _median_steps(runs, s, "qk_norm"), _median_steps(runs, s, "sqrt_d")
        slower = not math.isnan(ref_steps) and (math.isnan(qk_steps) or qk_steps > fast * ref_steps)
        if lower or slower:
            worse.append(s)
        records.append(
            {
                "setup": _named(s),
                "qk": interval(qk),
                "sqrt": interval(ref),
                "se": _pct(se),
                "qk_steps": steps_text(_part(runs, s, "qk_norm")["steps to target"]),
                "sqrt_steps": steps_text(_part(runs, s, "sqrt_d")["steps to target"]),
            }
        )
    values = {"long": long, "setups": records, "worse": _names(worse)}
    if single:
        return Finding(claim, Verdict.UNTESTABLE, values=values, branch="one-seed")
    return Finding(claim, Verdict.CAVEAT if worse else Verdict.FAILS, values=values)


def embedding_dimension(d_model: int, n_heads: int) -> Finding:
    """The blog: "d_k is the embedding dimension". Vaswani et al. (section 3.2.2) project
    the ``d_model``-dimensional embeddings to ``d_k`` dimensions in each of ``n_heads``
    heads, d_k = d_model / h. **Does not hold** where the model trained here has d_k below
    its embedding width (more than one head); **holds with a caveat** where they are equal
    (one head: equal here, but d_k is defined as the projected width). Values: ``d_model``,
    ``heads``, ``d_k``.

    >>> embedding_dimension(16, 2).verdict.value, embedding_dimension(16, 1).verdict.value
    ('does not hold', 'holds with a caveat')
    """
    d_k = d_model // n_heads
    verdict = Verdict.CAVEAT if d_k == d_model else Verdict.FAILS
    values = {"d_model": d_model, "heads": n_heads, "d_k": d_k}
    return Finding("blog-embedding-dimension", verdict, values=values)


def example_evaluations(
    *,
    sigma_x_growth: float = 1.0,
    sigma_w_growth: float = 2.0,
    spread_drift: float = 1.0,
    unit_at_init: bool = True,
    seeds: int = 2,
) -> pd.DataFrame:
    """A small synthetic ``evals`` table (one row per 1/√d run and evaluation, steps 0, 50,
    100): two setups, d_x = 16, d_k = 8. sigma_X grows by ``sigma_x_growth`` and sigma_Wq,
    sigma_Wk by ``sigma_w_growth`` from step 0 to step 50 and stay there; the spread follows
    the relaxed formula times ``spread_drift`` after step 0. With ``unit_at_init`` the query
    and key variances of the formula are 1 at step 0.

    >>> example_evaluations().shape
    (12, 10)
    """
    sigma_w0 = 0.25 if unit_at_init else 0.1
    rows = []
    for setup in ("small init", "LayerNorm"):
        for seed in range(seeds):
            for step in (0, 50, 100):
                moved = step > 0
                sigma_x = 1.0 * (sigma_x_growth if moved else 1.0)
                sigma_w = sigma_w0 * (sigma_w_growth if moved else 1.0)
                spread = 16 * sigma_x**2 * sigma_w**2 * (spread_drift if moved else 1.0)
                rows.append(
                    {
                        "setup": setup,
                        "method": "sqrt_d",
                        "seed": seed,
                        "step": step,
                        "d_x": 16,
                        "d_k": 8,
                        "spread": spread,
                        "sigma_X": sigma_x,
                        "sigma_Wq": sigma_w,
                        "sigma_Wk": sigma_w,
                    }
                )
    return pd.DataFrame(rows)
