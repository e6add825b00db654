"""Verdict rules and conclusions of the training chapter (string reversal), on the numbers of
:mod:`attncore.evidence.training` (its ``runs`` and ``evals`` tables).

Each returns a :class:`~attncore.claims.Finding` (its claim's templates say it) or a
:class:`~attncore.claims.finding.Reading` (the chapter's templates say it). Accuracies are
compared seed by seed: a setup shows an effect only if every seed shows it.

>>> from attncore.evidence.training import example_runs
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

from attncore.claims.catalogue import Verdict
from attncore.claims.finding import Finding, Reading
from attncore.claims.thresholds import decided_by, thresholds_of
from attncore.claims.words import interval, percentage, power, steps_text
from attncore.evidence.statistics import clear, single
from attncore.evidence.training import (
    GAP_OUTCOMES,
    accuracy_at,
    apart,
    best_exact,
    best_test_accuracy,
    difference_se,
    factor_paths,
    fewest_seeds,
    final,
    init_spread,
    largest_moves,
    median_steps,
    query_key_variances,
    runs_of,
    setups,
    spread_record,
    trained,
    variance_record,
    weight_product_change,
)

limits = thresholds_of("training")

__all__ = [
    "GAP_OUTCOMES",
    "association",
    "bernhard_q_norm_undesirable",
    "bernhard_transformer_performance",
    "blog_large_logits_learning",
    "chuang_96_half_data",
    "chuang_25000_samples",
    "chuang_assumptions_invalid",
    "chuang_beta_only_at_init",
    "chuang_compresses_time",
    "chuang_not_memorizing",
    "chuang_perfect_accuracy",
    "chuang_sigma_w_moving_factors",
    "chuang_string_reversal",
    "embedding_dimension",
    "gap_conclusion",
    "gap_outcome",
    "gaps",
    "is_about_five",
    "k_total_conclusion",
    "mechanism",
    "pace_story",
]


@decided_by(limits.LARGE_SPREAD, limits.UNIT)
def blog_large_logits_learning(
    scan: pd.DataFrame, *, large: float = limits.LARGE_SPREAD, unit: float = limits.UNIT
) -> Finding:
    """``blog-vanishing-gradients-learning`` on the runs of Chuang's searches
    (:func:`attncore.training.experiment.scan_table`), per setup and budget: runs whose logits
    start spread by ``large`` or more stay below ``LEARNED`` where some run spread by
    ``unit`` or less reaches it (holds, if at least one setup and budget shows it), or a large
    one reaches it (fails).

    >>> scan = pd.DataFrame({"setup": "a", "steps per run": 100, "β": [0.1, 100.0],
    ...                      "accuracy": [0.97, 0.01], "spread at init": [0.9, 90.0]})
    >>> blog_large_logits_learning(scan).branch
    'holds'
    """
    records, outcomes = [], []
    for (setup, steps), part in scan.groupby(["setup", "steps per run"], sort=False):
        big = part[part["spread at init"] >= large]
        small = part[part["spread at init"] <= unit]
        if big.empty or small.empty:
            outcomes.append("no-contrast")
            continue
        big_learns = bool((big["accuracy"] >= limits.LEARNED).any())
        small_learns = bool((small["accuracy"] >= limits.LEARNED).any())
        outcomes.append("fails" if big_learns else "holds" if small_learns else "short")
        records.append(
            {
                "setup": _named(str(setup)),
                "steps": int(steps),
                "big_betas": (float(big["β"].min()), float(big["β"].max())),
                "big_best": percentage(float(big["accuracy"].max())),
                "small_betas": (float(small["β"].min()), float(small["β"].max())),
                "small_best": percentage(float(small["accuracy"].max())),
            }
        )
    values = {"setups": records, "large": large, "unit": unit, "shown": outcomes.count("holds")}
    if "fails" in outcomes:
        return Finding("blog-vanishing-gradients-learning", Verdict.FAILS, values=values)
    if "holds" in outcomes:
        return Finding("blog-vanishing-gradients-learning", Verdict.HOLDS, values=values)
    branch = "untestable" if records else "no-contrast"
    return Finding("blog-vanishing-gradients-learning", Verdict.UNTESTABLE, values, branch)


def _named(setup: str) -> str:
    """A setup's name in quotes: the names hold commas, so lists of them need the quotes."""
    return f"“{setup}”"


def _names(setups: Sequence[str]) -> list[str]:
    return [_named(s) for s in setups]


def _within(values: pd.Series | np.ndarray, factor: float) -> np.ndarray:
    values = np.asarray(values, dtype=float)
    return (values <= factor) & (values >= 1 / factor)


def _learns(runs: pd.DataFrame, setup: str, method: str, budget: int) -> bool:
    """Whether every seed of ``method`` in ``setup`` is at ``LEARNED`` after ``budget``."""
    part = runs_of(runs, setup, method)
    return bool(len(part) and (part[accuracy_at(budget)] >= limits.LEARNED).all())


def gaps(
    runs: pd.DataFrame, budgets: Sequence[int], guess: float = limits.GUESS
) -> dict[tuple[str, int], bool]:
    """Chuang's gap per setup and budget: every seed of ``sqrt_d`` below ``guess`` and
    every seed of the searched beta (``constant``) at or above ``LEARNED``.

    >>> from attncore.evidence.training import example_runs
    >>> gaps(example_runs(), [500])
    {('small init', 500): True, ('LayerNorm', 500): False}
    """
    found = {}
    for setup in setups(runs):
        sqrt, searched = runs_of(runs, setup, "sqrt_d"), runs_of(runs, setup, "constant")
        for budget in budgets:
            found[setup, budget] = bool(
                len(sqrt)
                and len(searched)
                and (sqrt[accuracy_at(budget)] < guess).all()
                and (searched[accuracy_at(budget)] >= limits.LEARNED).all()
            )
    return found


def is_about_five(beta: float, factor: float = limits.ABOUT_FIVE) -> bool:
    """Whether ``beta`` is "about 5": within ``factor`` of 5.

    >>> is_about_five(4.1), is_about_five(52.6), is_about_five(3.0, factor=1.5)
    (True, False, False)
    """
    return 5 / factor <= beta <= 5 * factor


@decided_by(limits.GUESS, limits.ABOUT_FIVE, limits.LEARNED)
def chuang_string_reversal(
    runs: pd.DataFrame,
    short: int,
    long: int,
    searched_betas: Mapping[str, Sequence[float]] | None = None,
    *,
    guess: float = limits.GUESS,
    about_five: float = limits.ABOUT_FIVE,
) -> Finding:
    """``chuang-string-reversal``: the :func:`gaps` in every setup at both budgets, and each
    search's beta (``searched_betas``, per setup) :func:`is_about_five`; a setup where no seed
    of the searched beta learns at either budget cannot test the gap.

    >>> from attncore.evidence.training import example_runs
    >>> chuang_string_reversal(example_runs(searched=0.5), 500, 3000).verdict.value
    'does not hold'
    """
    every = setups(runs)
    found = gaps(runs, [short, long], guess)
    informative = [s for s in every if any(_learns(runs, s, "constant", b) for b in (short, long))]
    betas = {s: list((searched_betas or {}).get(s, [])) for s in every}
    near = [is_about_five(b, about_five) for s in informative for b in betas[s]]
    everywhere = all(found[s, b] for s in informative for b in (short, long))
    where = [{"setup": _named(s), "budget": b} for (s, b), g in found.items() if g]
    verdict, branch = _gap_verdict(bool(informative), everywhere, all(near), bool(where))
    outcomes = (
        {s: gap_outcome(runs, s, short, long) for s in informative}
        if verdict is Verdict.CAVEAT
        else {}
    )
    uninformative = [s for s in every if s not in informative]
    values = {
        "setups": [
            _gap_record(runs, s, short, long, betas[s], s in informative, outcomes.get(s, "none"))
            for s in every
        ],
        "where": where,
        "near": [{"near": (sum(near), len(near))}] if near else [],
        "rests": (
            [{"untested": _names(uninformative), "tested": _names(informative)}]
            if uninformative and informative
            else []
        ),
        "seeds": fewest_seeds(runs),
    }
    return Finding("chuang-string-reversal", verdict, values=values, branch=branch)


def _gap_verdict(
    informative: bool, everywhere: bool, near: bool, somewhere: bool
) -> tuple[Verdict, str]:
    """The verdict and branch of :func:`chuang_string_reversal`."""
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
    """What :func:`chuang_string_reversal` measured in ``setup``, with whether the searched
    beta ``learns`` and the gap's ``outcome`` (:data:`GAP_OUTCOMES`; ``none`` says nothing)."""
    sqrt, searched = runs_of(runs, setup, "sqrt_d"), runs_of(runs, setup, "constant")
    return {
        "setup": _named(setup),
        "searches": [{"betas": list(betas)}] if betas else [],
        "short": short,
        "long": long,
        "sqrt_short": interval(sqrt[accuracy_at(short)]),
        "beta_short": interval(searched[accuracy_at(short)]),
        "sqrt_long": interval(sqrt[accuracy_at(long)]),
        "beta_long": interval(searched[accuracy_at(long)]),
        "spread": init_spread(runs, setup),
        "learns": learns,
        "outcome": [] if outcome == "none" else [outcome],
    }


def gap_outcome(runs: pd.DataFrame, setup: str, short: int, long: int) -> str:
    """One of :data:`GAP_OUTCOMES` for ``setup``.

    >>> from attncore.evidence.training import example_runs
    >>> gap_outcome(example_runs(sqrt_long=0.5), "small init", 500, 3000)
    'open'
    """
    if not gaps(runs, [short, long])[setup, short]:
        return "none"
    return "closes" if _learns(runs, setup, "sqrt_d", long) else "open"


def pace_story(
    runs: pd.DataFrame, setup: str, long: int, labels: Mapping[str, str] | None = None
) -> Reading:
    """The methods (named by ``labels``) by their pace to 95 % against 1/√d in ``setup``:
    faster (slower) where every seed is :func:`~attncore.evidence.training.apart` from 1/√d's
    or the median steps are fewer (more) by more than a factor ``FAST``.

    >>> from attncore.evidence.training import example_runs
    >>> found = pace_story(example_runs(), "LayerNorm", 3000, {"constant": "β"})
    >>> found.branch, found.values["groups"]
    ('reaches', [{'methods': ['β'], 'pace': ['same']}, {'methods': ['k_total'], 'pace': ['never']}])
    """
    labels = labels or {}
    name = {m: labels.get(m, m) for m in dict.fromkeys(runs["method"])}
    reference = median_steps(runs, setup, "sqrt_d")
    groups: dict[str, list[str]] = {"faster": [], "same": [], "slower": [], "never": []}
    for method in name:
        if method == "sqrt_d" or not len(runs_of(runs, setup, method)):
            continue
        steps = median_steps(runs, setup, method)
        side = apart(runs, setup, method)
        if math.isnan(steps):
            groups["never"].append(name[method])
        elif math.isnan(reference) or steps * limits.FAST < reference or side < 0:
            groups["faster"].append(name[method])
        elif steps > limits.FAST * max(reference, 1.0) or side > 0:
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


@decided_by(limits.FAST)
def chuang_compresses_time(
    runs: pd.DataFrame, search_steps: Mapping[str, int], *, fast: float = limits.FAST
) -> Finding:
    """``chuang-compresses-data-and-time``, its time: per setup, the searched β (``constant``)
    reaches 95 % faster than 1/√d (as :func:`pace_story` reads faster) counting the steps its
    search spent (``search_steps``, by setup): in every setup (holds), only without counting
    them somewhere (caveat, branch ``without-cost``), nowhere (fails).

    >>> from attncore.evidence.training import example_runs
    >>> found = chuang_compresses_time(example_runs(), {"small init": 9000, "LayerNorm": 9000})
    >>> found.branch
    'without-cost'
    """
    claim = "chuang-compresses-data-and-time"
    records, faster, with_cost = [], 0, 0
    for setup in setups(runs):
        if not (len(runs_of(runs, setup, "sqrt_d")) and len(runs_of(runs, setup, "constant"))):
            continue
        reference, own = median_steps(runs, setup, "sqrt_d"), median_steps(runs, setup, "constant")
        cost = int(search_steps.get(setup, 0))
        if not math.isnan(own):
            faster += bool(
                math.isnan(reference)
                or own * fast < reference
                or apart(runs, setup, "constant") < 0
            )
            with_cost += bool(math.isnan(reference) or (own + cost) * fast < reference)
        records.append(
            {
                "setup": _named(setup),
                "searched": steps_text(runs_of(runs, setup, "constant")["steps to target"]),
                "fixed": steps_text(runs_of(runs, setup, "sqrt_d")["steps to target"]),
                "cost": cost,
            }
        )
    values = {"setups": records, "faster": faster, "with_cost": with_cost, "n": len(records)}
    if not records:
        return Finding(claim, Verdict.UNTESTABLE, values=values)
    if with_cost == len(records):
        return Finding(claim, Verdict.HOLDS, values=values)
    if faster:
        return Finding(claim, Verdict.CAVEAT, values=values, branch="without-cost")
    return Finding(claim, Verdict.FAILS, values=values)


def k_total_conclusion(runs: pd.DataFrame, long: int) -> Reading:
    """Where 1/k_total learns the task within ``long`` steps: branch ``untrained``, ``some``
    (learns in some setups, ``good``) or ``count`` (``learned`` of those trained).

    >>> from attncore.evidence.training import example_runs
    >>> k_total_conclusion(example_runs(k_total=0.99), 3000).values["good"]
    ['“small init”']
    """
    tried = trained(runs, "k_total")
    if not tried:
        return Reading("untrained", {"long": long})
    good = [s for s in tried if _learns(runs, s, "k_total", long)]
    if good and len(good) < len(tried):
        return Reading("some", {"long": long, "good": _names(good)})
    return Reading("count", {"long": long, "learned": (len(good), len(tried))})


def _gap_split(runs: pd.DataFrame, short: int) -> tuple[list[str], list[str], bool]:
    """The setups with and without the gap after ``short`` steps, and whether it appears in
    some but not all, exactly where the 1/√d logits start smallest."""
    found = gaps(runs, [short])
    spread = {s: init_spread(runs, s) for s in setups(runs)}
    with_gap = [s for s in spread if found[s, short]]
    without = [s for s in spread if not found[s, short]]
    smallest = (
        with_gap and without and max(spread[s] for s in with_gap) < min(spread[s] for s in without)
    )
    return with_gap, without, bool(smallest)


def association(runs: pd.DataFrame, short: int) -> Reading:
    """How the gap after ``short`` steps goes with the 1/√d logit spread at initialization
    (:func:`_gap_split`). The setups change LayerNorm and the initialization together, so it
    never says which of the two causes the gap.

    >>> from attncore.evidence.training import example_runs
    >>> association(example_runs(searched=0.5), 500).values
    {'short': 500, 'where': (0, 2)}
    """
    with_gap, without, follows = _gap_split(runs, short)
    if not with_gap or not without:
        where = (len(with_gap), len(with_gap) + len(without))
        return Reading("flat", {"short": short, "where": where})
    return Reading("follows" if follows else "apart", {"short": short})


def mechanism(runs: pd.DataFrame, short: int) -> Reading:
    """A mechanism for the :func:`association`, offered (branch ``fits``, with whether
    QK-norm was trained) only where the gap follows the spread; else ``none``.

    >>> from attncore.evidence.training import example_runs
    >>> mechanism(example_runs(), 500)
    Reading(branch='fits', values={'qk_norm': False})
    """
    if not _gap_split(runs, short)[2]:
        return Reading("none")
    return Reading("fits", {"qk_norm": bool(trained(runs, "qk_norm"))})


def gap_conclusion(runs: pd.DataFrame, short: int, long: int) -> Reading:
    """The chapter's conclusion on the gap after ``short`` steps: branch ``none`` where it
    appears nowhere; else what ``long`` steps make of it where it appears: ``speed`` (1/√d
    learns in every such setup), ``some`` or ``slow`` (in none).

    >>> from attncore.evidence.training import example_runs
    >>> gap_conclusion(example_runs(searched=0.5), 500, 3000)
    Reading(branch='none', values={'short': 500, 'two': True})
    """
    found = gaps(runs, [short])
    where = [s for (s, _), g in found.items() if g]
    if not where:
        return Reading("none", {"short": short, "two": len(setups(runs)) == 2})
    values: dict[str, object] = {"short": short, "long": long, "where": _names(where)}
    closes = [s for s in where if _learns(runs, s, "sqrt_d", long)]
    if len(closes) == len(where):
        return Reading("speed", values)
    if closes:
        return Reading("some", {**values, "closes": _names(closes)})
    return Reading("slow", values)


@decided_by(limits.LEARNED)
def bernhard_transformer_performance(runs: pd.DataFrame, long: int) -> Finding:
    """``bernhard-transformer-performance``: in each setup where 1/√d learns the task within
    ``long`` steps (the baseline), whether 1/k_total does too.

    >>> from attncore.evidence.training import example_runs
    >>> bernhard_transformer_performance(example_runs(k_total=0.99), 3000).verdict.value
    'holds with a caveat'
    """
    claim = "bernhard-transformer-performance"
    tried = trained(runs, "k_total")
    if not tried:
        return Finding(claim, Verdict.UNTESTABLE, branch="untrained")
    baseline = [s for s in tried if _learns(runs, s, "sqrt_d", long)]
    good = [s for s in baseline if _learns(runs, s, "k_total", long)]
    records = [
        {
            "setup": _named(s),
            "k_total": interval(runs_of(runs, s, "k_total")[accuracy_at(long)]),
            "sqrt": interval(runs_of(runs, s, "sqrt_d")[accuracy_at(long)]),
            "k_steps": steps_text(runs_of(runs, s, "k_total")["steps to target"]),
            "sqrt_steps": steps_text(runs_of(runs, s, "sqrt_d")["steps to target"]),
        }
        for s in tried
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
    each setup's status (``unmet`` at the start, ``stays``, ``breaks``, or in between), and the
    record of the setups it rests on where some start ``unmet`` and some do not."""
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


@decided_by(limits.UNIT, limits.WEIGHT_CHANGE)
def chuang_beta_only_at_init(
    runs: pd.DataFrame, *, unit: float = limits.UNIT, weight_change: float = limits.WEIGHT_CHANGE
) -> Finding:
    """``chuang-beta-only-at-init``, per setup of 1/√d (:func:`_from_premise`): the spread
    within ``unit`` of 1 on every seed at initialization (else ``unmet``) and at the end
    (``stays``), or at the end on none, with sigma_Wq sigma_Wk moved by ``weight_change``.

    >>> from attncore.evidence.training import example_runs
    >>> chuang_beta_only_at_init(example_runs()).verdict.value  # spreads 0.002, 0.4 at init
    'not testable here'
    """
    status, records = {}, []
    for s in trained(runs, "sqrt_d"):
        part = runs_of(runs, s, "sqrt_d")
        start, end = _within(part["spread at init"], unit), _within(part["spread at end"], unit)
        product = weight_product_change(part)
        if not start.all():
            status[s] = "unmet"
        elif end.all():
            status[s] = "stays"
        elif end.any():
            status[s] = "mixed"
        else:
            moved = bool((~_within(product, weight_change)).all())
            status[s] = "breaks" if moved else "alone"
        records.append({**spread_record(part, product), "setup": _named(s), "status": [status[s]]})
    verdict, rests = _from_premise(status)
    return Finding("chuang-beta-only-at-init", verdict, values={"setups": records, "rests": rests})


@decided_by(limits.SEEN_SHARE, limits.LEARNED)
def chuang_not_memorizing(
    runs: pd.DataFrame,
    budgets: Sequence[int],
    *,
    vocab: int,
    length: int,
    parameters: int,
    overlap: int,
    n_test: int,
    seen_share: float = limits.SEEN_SHARE,
) -> Finding:
    """``chuang-not-memorizing``: the best mean test token accuracy against ``LEARNED``,
    with ``overlap`` of the ``n_test`` test strings seen in training against ``seen_share``.
    There are ``vocab ** length`` strings (101^20 for 0..100, where the paper counts 100^20).

    >>> from attncore.evidence.training import example_runs
    >>> rule = chuang_not_memorizing(example_runs(), [500], vocab=101, length=20,
    ...                              parameters=4741, overlap=0, n_test=1000)
    >>> rule.verdict.value, rule.values["strings"]
    ('holds', '101²⁰ ≈ 1.22 × 10⁴⁰')
    """
    claim = "chuang-not-memorizing"
    best = best_test_accuracy(runs, budgets)
    if math.isnan(best):
        return Finding(claim, Verdict.UNTESTABLE, branch="unmeasured")
    seen = overlap / n_test if n_test else 0.0
    if best < limits.LEARNED:
        verdict = Verdict.UNTESTABLE
    elif seen > seen_share:
        verdict = Verdict.CAVEAT
    else:
        verdict = Verdict.HOLDS
    values = {
        "best": percentage(best),
        "seen": (overlap, n_test),
        "parameters": parameters,
        "strings": power(vocab, length),
        "paper": vocab == 101 and length == 20,
    }
    return Finding(claim, verdict, values=values)


#: Chuang's training-set size (section 3), with which he reports 1/√d_k at 1.5%.
CHUANG_TRAIN = 15_000


def _sqrt_record(runs: pd.DataFrame, setup: str, short: int, long: int) -> dict[str, str]:
    """1/√d's token accuracy in ``setup`` after ``short`` and ``long`` steps, each with the
    strings it was read on (:func:`~attncore.evidence.training.final`)."""
    short_values, short_strings = final(runs, setup, ["sqrt_d"], short)
    long_values, long_strings = final(runs, setup, ["sqrt_d"], long)
    return {
        "setup": _named(setup),
        "short_acc": interval(short_values["sqrt_d"]),
        "short_strings": short_strings,
        "long_acc": interval(long_values["sqrt_d"]),
        "long_strings": long_strings,
    }


@decided_by(limits.LEARNED)
def chuang_25000_samples(runs: pd.DataFrame, short: int, long: int, n_train: int) -> Finding:
    """``chuang-25000-samples``: does not hold where ``n_train`` is at most
    :data:`CHUANG_TRAIN` and every seed of 1/√d learns in every setup within ``short`` steps;
    else not testable: confirming it takes a second training-set size.

    >>> from attncore.evidence.training import example_runs
    >>> chuang_25000_samples(example_runs(), 500, 3000, 15000).branch
    'late'
    """
    claim = "chuang-25000-samples"
    tried = trained(runs, "sqrt_d")
    if not tried:
        return Finding(claim, Verdict.UNTESTABLE, branch="untrained")
    learned: dict[int, list[str]] = {short: [], long: []}
    for s in tried:
        for budget in (short, long):
            values, _ = final(runs, s, ["sqrt_d"], budget)
            if (values["sqrt_d"] >= limits.LEARNED).all():
                learned[budget].append(s)
    records = [_sqrt_record(runs, s, short, long) for s in tried]
    if n_train > CHUANG_TRAIN:
        verdict, branch = Verdict.UNTESTABLE, "more"
    elif len(learned[short]) == len(tried):
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


@decided_by(limits.HALF_DATA_TARGET)
def chuang_96_half_data(
    runs: pd.DataFrame,
    short: int,
    long: int,
    n_train: int,
    *,
    target: float = limits.HALF_DATA_TARGET,
) -> Finding:
    """``chuang-96-half-data``, the dynamic factor read as the searched beta (his section 4
    cites section 3's search): does not hold where at both budgets in every setup every seed
    of 1/√d exceeds ``target`` and no seed of the searched beta does; else not testable.

    >>> from attncore.evidence.training import example_runs
    >>> chuang_96_half_data(example_runs(), 500, 3000, 15000).branch
    'both'
    """
    methods = ["sqrt_d", "constant"]
    tried = [s for s in setups(runs) if all(len(runs_of(runs, s, m)) for m in methods)]
    fixed_only, both, records = [], [], []
    for s in tried:
        for budget in (short, long):
            values, strings = final(runs, s, methods, budget)
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
                    "best": percentage(searched.max()),
                    "strings": strings,
                }
            )
    if tried and len(fixed_only) == 2 * len(tried):
        verdict, branch = Verdict.FAILS, "fails"
    else:
        verdict, branch = Verdict.UNTESTABLE, "both" if both else "untestable"
    values = {"n_train": n_train, "setups": records, "both": both}
    return Finding("chuang-96-half-data", verdict, values=values, branch=branch)


def _moves(
    paths: Sequence[tuple[np.ndarray, ...]], weight_change: float, unit: float
) -> dict[str, bool]:
    """Whether on every seed's :func:`~attncore.evidence.training.factor_paths` sigma_X stays
    ``fixed`` within ``weight_change``, sigma_Wq sigma_Wk ``moves`` out of it and the formula
    ``tracks`` the spread within ``unit``."""
    return {
        "fixed": all(bool(_within(x, weight_change).all()) for x, _, _ in paths),
        "moves": all(bool((~_within(w, weight_change)).any()) for _, w, _ in paths),
        "tracks": all(bool(_within(ratio, unit).all()) for _, _, ratio in paths),
    }


@decided_by(limits.WEIGHT_CHANGE)
def chuang_sigma_w_moving_factors(
    evals: pd.DataFrame, *, weight_change: float = limits.WEIGHT_CHANGE, unit: float = limits.UNIT
) -> Finding:
    """``chuang-sigma-w-moving-factors``, per setup of 1/√d (:func:`_moves`): holds if sigma_W
    moves while sigma_X stays fixed everywhere, with a caveat if sigma_W moves somewhere
    (sigma_X moving too is a second, learned factor, not a refutation). Whether the relaxed
    formula tracks the spread (within ``unit``) is reported, not held against the sentence,
    which names the moving factors.

    >>> from attncore.evidence.training import example_evaluations
    >>> chuang_sigma_w_moving_factors(example_evaluations()).verdict.value
    'holds'
    """
    evals = evals[evals["method"] == "sqrt_d"].sort_values("step")
    status, records = {}, []
    for setup in setups(evals):
        paths = factor_paths(evals[evals["setup"] == setup])
        status[setup] = _moves(paths, weight_change, unit)
        records.append({"setup": _named(setup), **largest_moves(paths)})
    claim = "chuang-sigma-w-moving-factors"
    if not status:
        return Finding(claim, Verdict.UNTESTABLE, branch="untrained")
    main = [s for s, ok in status.items() if ok["moves"]]
    if all(ok["moves"] and ok["fixed"] for ok in status.values()):
        verdict = Verdict.HOLDS
    elif main:
        verdict = Verdict.CAVEAT
    else:
        verdict = Verdict.FAILS
    x_moved = [s for s, ok in status.items() if not ok["fixed"]]
    missed = [s for s, ok in status.items() if not ok["tracks"]]
    others = [s for s in status if s not in main]

    def where(found: list[str]) -> list[str]:  # "every setup" rather than each name again
        return ["every setup"] if len(found) == len(status) > 1 else _names(found)

    values = {
        "setups": records,
        "main": where(main),
        "alone": [{"others": _names(others)}] if others and main else [],
        "moved": [{"where": where(x_moved)}] if x_moved else [],
        "missed": [{"where": where(missed)}] if missed else [],
    }
    return Finding(claim, verdict, values=values)


@decided_by(limits.UNIT)
def chuang_assumptions_invalid(evals: pd.DataFrame, *, unit: float = limits.UNIT) -> Finding:
    """``chuang-assumptions-invalid-in-training``: (ii) is met where both
    :func:`~attncore.evidence.training.query_key_variances` are within ``unit`` of 1, read
    per setup (:func:`_premise_status`) and premise as :func:`chuang_beta_only_at_init` does.

    >>> from attncore.evidence.training import example_evaluations
    >>> chuang_assumptions_invalid(example_evaluations(sigma_w_growth=1.0)).verdict.value
    'does not hold'
    """
    evals = evals[evals["method"] == "sqrt_d"].sort_values("step")
    status, records = {}, []
    for setup in setups(evals):
        part = evals[evals["setup"] == setup]
        var_q, var_k = query_key_variances(part)
        status[setup] = _premise_status(part, var_q, var_k, unit)
        record = variance_record(part, var_q, var_k)
        records.append({"setup": _named(setup), **record, "status": [status[setup]]})
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
    """``chuang-perfect-accuracy``, on whole-string accuracy on the test strings: holds with a
    caveat where some run reverses every test string at some budget, else not testable
    ("achievable" cannot be refuted). ``labels`` names the methods.

    >>> from attncore.evidence.training import example_runs
    >>> runs = example_runs().assign(**{"test exact at 500 steps": 0.9})
    >>> runs.loc[0, "test exact at 500 steps"] = 1.0
    >>> chuang_perfect_accuracy(runs, [500]).verdict.value
    'holds with a caveat'
    """
    claim = "chuang-perfect-accuracy"
    best = best_exact(runs, budgets)
    if best is None:
        return Finding(claim, Verdict.UNTESTABLE, branch="unmeasured")
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


@decided_by(limits.FAST, limits.MIN_GAP)
def bernhard_q_norm_undesirable(
    runs: pd.DataFrame, long: int, *, fast: float = limits.FAST, min_gap: float = limits.MIN_GAP
) -> Finding:
    """``bernhard-q-norm-undesirable``, QK-norm against 1/√d, t tests over seeds: a caveat where
    clearly lower after ``long`` steps (Holm over setups) by over ``min_gap`` or ``fast`` times
    slower somewhere; fails where clearly within ``min_gap`` everywhere; else ``cannot-tell``.

    >>> from attncore.evidence.training import example_runs
    >>> runs = example_runs().replace({"method": {"k_total": "qk_norm"}})
    >>> bernhard_q_norm_undesirable(runs, 3000).verdict.value
    'holds with a caveat'
    """
    claim = "bernhard-q-norm-undesirable"
    tried = [s for s in trained(runs, "qk_norm") if len(runs_of(runs, s, "sqrt_d"))]
    if not tried:
        return Finding(claim, Verdict.UNTESTABLE, branch="untrained")
    gaps, ses, seeds, slower, records = [], [], [], [], []
    for s in tried:
        qk_runs, ref_runs = runs_of(runs, s, "qk_norm"), runs_of(runs, s, "sqrt_d")
        qk, ref = qk_runs[accuracy_at(long)], ref_runs[accuracy_at(long)]
        seeds.append(min(len(qk), len(ref)))
        se = difference_se(qk, ref)
        gaps.append(float(qk.mean() - ref.mean()))
        ses.append(se)
        qk_steps, ref_steps = median_steps(runs, s, "qk_norm"), median_steps(runs, s, "sqrt_d")
        slower.append(
            not math.isnan(ref_steps) and (math.isnan(qk_steps) or qk_steps > fast * ref_steps)
        )
        records.append(
            {
                "setup": _named(s),
                "qk": interval(qk),
                "sqrt": interval(ref),
                "se": percentage(se),
                "qk_steps": steps_text(qk_runs["steps to target"]),
                "sqrt_steps": steps_text(ref_runs["steps to target"]),
            }
        )
    gap = np.asarray(gaps)
    lower = clear(gap, ses, seeds, "below").to_numpy() & (gap < -min_gap)
    # within min_gap: a tie of seeds alike (100 % against 100 %) is within it, not noise
    within = single(gap + min_gap, ses, seeds, "above")
    worse = [s for s, low, slow in zip(tried, lower, slower, strict=True) if low or slow]
    values = {"long": long, "setups": records, "worse": _names(worse)}
    if min(seeds) < 2:
        return Finding(claim, Verdict.UNTESTABLE, values=values, branch="one-seed")
    if worse:
        return Finding(claim, Verdict.CAVEAT, values=values)
    unclear = [s for s, ok in zip(tried, within, strict=True) if not ok]
    if not unclear:
        return Finding(claim, Verdict.UNTESTABLE, values=values, branch="fails")  # a proxy
    values["unclear"] = _names(unclear)
    return Finding(claim, Verdict.UNTESTABLE, values=values, branch="cannot-tell")


def embedding_dimension(d_model: int, n_heads: int) -> Finding:
    """``blog-embedding-dimension``: d_k = d_model / h (Vaswani et al., section 3.2.2); does
    not hold where d_k is below d_model (more than one head), holds with a caveat where equal.

    >>> embedding_dimension(16, 2).verdict.value, embedding_dimension(16, 1).verdict.value
    ('does not hold', 'holds with a caveat')
    """
    d_k = d_model // n_heads
    verdict = Verdict.CAVEAT if d_k == d_model else Verdict.FAILS
    values = {"d_model": d_model, "heads": n_heads, "d_k": d_k}
    return Finding("blog-embedding-dimension", verdict, values=values)
