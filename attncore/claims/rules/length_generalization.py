"""Verdict rules and conclusions of the chapter on length generalization (train short, test
long).

The rules read the table of :func:`attncore.training.lengths.score_lengths`: one row per
method, seed and test length (in bits), with the exact accuracy over all strings, the
[CLS] query's attention entropy over ``ln n`` and its largest weight in the last layer, and
the last layer's factor on ``q . k``. Every comparison of two methods is paired by seed (one
seed gives both the same initial draw and the same batches); intervals are Student-t over the
seeds, at :data:`CONFIDENCE` simultaneous over the comparisons a rule makes (Bonferroni).
The rules return data (a :class:`~attncore.claims.Finding`'s values and branch); the claims'
templates say it, and the chapter templates its own conclusions (:class:`Reading`).

>>> table = pd.DataFrame({"method": "sqrt_d", "seed": [0, 1, 0, 1], "length": [10, 10, 99, 99],
...                       "accuracy": [1.0, 1.0, 0.6, 0.8]})
>>> row = summary(table).loc[("sqrt_d", 99)]
>>> round(float(row["accuracy"]), 2), round(float(row["low"]), 2)
(0.7, -0.57)
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pandas as pd
from scipy import stats

from attncore.claims.catalogue import Verdict
from attncore.claims.finding import Finding, Reading
from attncore.claims.thresholds import decided_by
from attncore.claims.thresholds.length_generalization import CONFIDENCE, SOLVED
from attncore.claims.words import count

__all__ = [
    "CHANCE",
    "OUTCOMES",
    "accuracy_text",
    "chiang_log_n",
    "k_total_long",
    "longest_outcomes",
    "paired",
    "solved_at_longest",
    "ssmax_flattening",
    "summary",
    "temperature_differences",
    "temperature_reading",
    "temperature_table",
]

#: The accuracy of guessing FIRST's label, a fair coin's bit.
CHANCE = 0.5


def _interval(values: np.ndarray, comparisons: int, confidence: float) -> tuple[float, float]:
    """Mean and half-width of the simultaneous t interval of ``values`` (NaN below two)."""
    if len(values) < 2:
        return float(np.mean(values)), math.nan
    quantile = stats.t.ppf(1 - (1 - confidence) / (2 * comparisons), len(values) - 1)
    return float(np.mean(values)), float(quantile * np.std(values, ddof=1) / math.sqrt(len(values)))


def summary(table: pd.DataFrame, confidence: float = CONFIDENCE) -> pd.DataFrame:
    """Per method and length: the mean accuracy over the seeds and its interval (``low``,
    ``high``, one comparison each), the means of the other columns, and the seeds."""
    rows = []
    for (method, length), group in table.groupby(["method", "length"], sort=False):
        mean, half = _interval(group["accuracy"].to_numpy(), 1, confidence)
        row = {"method": method, "length": length, "accuracy": mean, "low": mean - half}
        row |= {"high": mean + half, "seeds": len(group)}
        for column in ("entropy", "largest", "scale", "factor"):
            if column in group:
                row[column] = float(group[column].mean())
        rows.append(row)
    return pd.DataFrame(rows).set_index(["method", "length"])


def paired(
    table: pd.DataFrame,
    a: str,
    b: str,
    length: int,
    column: str = "accuracy",
    comparisons: int = 1,
    confidence: float = CONFIDENCE,
) -> tuple[float, float]:
    """Mean over the seeds of ``a``'s ``column`` minus ``b``'s at ``length``, and the
    half-width of its interval (NaN with fewer than two shared seeds).

    >>> table = pd.DataFrame({"method": ["x", "x", "y", "y"], "seed": [0, 1, 0, 1],
    ...                       "length": 99, "accuracy": [0.9, 1.0, 0.5, 0.7]})
    >>> [round(v, 3) for v in paired(table, "x", "y", 99)]
    [0.35, 0.635]
    """
    at = table[table["length"] == length].set_index(["method", "seed"])[column]
    difference = (at.loc[a] - at.loc[b]).dropna().to_numpy()
    return _interval(difference, comparisons, confidence)


def _longest(table: pd.DataFrame) -> int:
    return int(table["length"].max())


#: How the findings name the methods the rules compare.
_NAMES = {"sqrt_d": "1/√d", "log_n": "ln n/√d", "k_total": "1/k_total", "ssmax_learned": "SSMax"}


def _untestable(
    claim: str, table: pd.DataFrame, train_length: int, methods: tuple[str, ...]
) -> Finding | None:
    """The finding of a rule on ``methods`` that the table cannot decide (None if it can):
    branch ``no-models`` (the methods it lacks, ``missing``), ``one-seed`` or
    ``no-longer-length`` (``train_length``)."""
    missing = [m for m in methods if m not in set(table["method"])]
    if missing:
        values = {"missing": [_NAMES.get(m, m) for m in missing]}
        return Finding(claim, Verdict.UNTESTABLE, values=values, branch="no-models")
    if table["seed"].nunique() < 2:
        return Finding(claim, Verdict.UNTESTABLE, branch="one-seed")
    if _longest(table) <= train_length:
        values = {"train_length": train_length}
        return Finding(claim, Verdict.UNTESTABLE, values=values, branch="no-longer-length")
    return None


def _unlearned(
    claim: str,
    table: pd.DataFrame,
    train_length: int,
    methods: tuple[str, ...],
    solved: float,
    confidence: float,
) -> Finding | None:
    """The finding of a rule on ``methods`` one of which did not solve FIRST at the training
    length, so has nothing to generalize (None if all did): branch ``not-learned``, with each
    such method's accuracy there (``unlearned``, records of :func:`_accuracy`)."""
    rows = summary(table, confidence)
    lost = [
        {"method": _NAMES.get(m, m), **_accuracy(rows.loc[(m, train_length)])}
        for m in methods
        if (m, train_length) in rows.index and not rows.loc[(m, train_length), "low"] >= solved
    ]
    if not lost:
        return None
    values = {"train_length": train_length, "unlearned": lost}
    return Finding(claim, Verdict.UNTESTABLE, values=values, branch="not-learned")


def _accuracy(row: pd.Series, name: str = "accuracy") -> dict[str, float]:
    """A mean accuracy (a row of :func:`summary`) as ``name``, and its interval cut to the
    range an accuracy can take as ``name_low`` and ``name_high``.

    >>> _accuracy(pd.Series({"accuracy": 0.9, "low": 0.8, "high": 1.1}), "a")
    {'a': 0.9, 'a_low': 0.8, 'a_high': 1.0}
    """
    low, high = max(row["low"], 0.0), min(row["high"], 1.0)
    return {name: float(row["accuracy"]), f"{name}_low": float(low), f"{name}_high": float(high)}


def _change(mean: float, half: float, name: str) -> dict[str, float]:
    """A paired difference of two shares (accuracies, weights, entropies over ln n) as
    ``name``, and its interval cut to the range such a difference can take, -1 to 1, as
    ``name_low`` and ``name_high``.

    >>> _change(0.25, 1.273, "d")
    {'d': 0.25, 'd_low': -1.0, 'd_high': 1.0}
    """
    low, high = max(mean - half, -1.0), min(mean + half, 1.0)
    return {name: float(mean), f"{name}_low": float(low), f"{name}_high": float(high)}


#: What stands for an interval that a single seed cannot give.
_NO_INTERVAL = "one seed, no interval"


def accuracy_text(row: pd.Series) -> str:
    """A table's cell: a mean accuracy (a row of :func:`summary`) and its interval, cut to the
    range an accuracy can take; the mean alone where one seed gives no interval.

    >>> accuracy_text(pd.Series({"accuracy": 0.9, "low": 0.8, "high": 1.1, "seeds": 3}))
    '0.900 [0.800, 1.000]'
    >>> accuracy_text(pd.Series({"accuracy": 0.5, "low": math.nan, "high": math.nan, "seeds": 1}))
    '0.500 (one seed, no interval)'
    """
    if math.isnan(row["low"]) or math.isnan(row["high"]):
        return f"{row['accuracy']:.3f} ({_NO_INTERVAL})"
    return f"{row['accuracy']:.3f} [{max(row['low'], 0.0):.3f}, {min(row['high'], 1.0):.3f}]"


def _difference(mean: float, half: float) -> str:
    """A table's cell: a paired difference of two shares and its interval, cut to -1 to 1
    (:func:`_change`); the mean alone where one seed gives no interval.

    >>> _difference(0.25, 1.273), _difference(-0.05, 0.01), _difference(0.5, math.nan)
    ('+0.250 [-1.000, +1.000]', '-0.050 [-0.060, -0.040]', '+0.500 (one seed, no interval)')
    """
    if math.isnan(half):
        return f"{mean:+.3f} ({_NO_INTERVAL})"
    return f"{mean:+.3f} [{max(mean - half, -1.0):+.3f}, {min(mean + half, 1.0):+.3f}]"


@decided_by(SOLVED)
def chiang_log_n(
    table: pd.DataFrame,
    train_length: int,
    *,
    solved: float = SOLVED,
    confidence: float = CONFIDENCE,
) -> Finding:
    """Chiang and Cholak's FIRST: trained at ``train_length``, standard attention (1/√d) can
    fail at longer strings and ln n/√d remedies it. At the longest length: holds if 1/√d is
    not solved there and ln n/√d is solved and clearly above it (paired); holds with a caveat
    if ln n/√d is solved and 1/√d is solved too (branch ``both-solved``: nothing to remedy at
    these lengths, the claim says "can fail"), ln n/√d is solved and 1/√d not but ln n/√d is
    not clearly above it (``not-clearly-above``), or ln n/√d is clearly above 1/√d without
    being solved (``above-unsolved``); does not hold if ln n/√d is clearly not solved (its
    whole interval below ``solved``) and clearly not above 1/√d (the difference's interval at
    or below 0); not testable with one seed, no length beyond training, either method
    unsolved at the training length (:func:`_untestable`, :func:`_unlearned`), or intervals
    too wide to tell (``untestable``). Values: the lengths, the accuracies of 1/√d
    (``standard``) and ln n/√d (``scaled``) and their difference (``gain``), with intervals."""
    claim, methods = "chiang-first-log-n", ("sqrt_d", "log_n")
    why = _untestable(claim, table, train_length, methods) or _unlearned(
        claim, table, train_length, methods, solved, confidence
    )
    if why:
        return why
    longest = _longest(table)
    rows = summary(table, confidence)
    standard, scaled = rows.loc[("sqrt_d", longest)], rows.loc[("log_n", longest)]
    gain, half = paired(table, "log_n", "sqrt_d", longest, comparisons=2, confidence=confidence)
    standard_solved = standard["low"] >= solved
    scaled_solved = scaled["low"] >= solved
    above = gain - half > 0
    values = {"train_length": train_length, "longest": longest, "seeds": int(scaled["seeds"])}
    values |= _accuracy(standard, "standard") | _accuracy(scaled, "scaled")
    values |= _change(gain, half, "gain")
    if scaled_solved and above and not standard_solved:
        return Finding(claim, Verdict.HOLDS, values=values)
    if scaled_solved or above:
        branch = (
            "both-solved"
            if scaled_solved and standard_solved
            else "not-clearly-above"
            if scaled_solved
            else "above-unsolved"
        )
        return Finding(claim, Verdict.CAVEAT, values=values, branch=branch)
    if scaled["high"] < solved and gain + half <= 0:
        return Finding(claim, Verdict.FAILS, values=values)
    return Finding(claim, Verdict.UNTESTABLE, values=values)


def ssmax_flattening(
    table: pd.DataFrame, train_length: int, *, confidence: float = CONFIDENCE
) -> Finding:
    """Nakanishi's SSMax: with the softmax of 1/√d the attention flattens as the context
    grows, and SSMax (``s ln n``, ``s`` learned) keeps it focused. From the training length to
    the longest, the [CLS] query's normalised entropy under 1/√d rises clearly and its largest
    weight falls clearly (paired within seeds); at the longest length SSMax's largest weight
    is clearly above 1/√d's. Holds if all three; holds with a caveat if 1/√d flattens by one
    measure or SSMax is clearly more focused but not both parts hold; does not hold if none is
    clear, 1/√d clearly did not flatten (its entropy's interval at or below no change and
    its largest weight's at or above) and SSMax is clearly not more focused (the difference's
    interval at or below 0); not testable with one seed, no length beyond training
    (:func:`_untestable`), or when the seeds can tell neither (``untestable``). Values: the
    lengths, 1/√d's changes of ``entropy`` and ``largest`` weight, SSMax's largest weight
    minus 1/√d's (``focus``), each with its interval, and which of the three are clear
    (``rises``, ``falls``, ``focused``)."""
    claim = "nakanishi-ssmax-flattening"
    why = _untestable(claim, table, train_length, ("sqrt_d", "ssmax_learned"))
    if why:
        return why
    longest = _longest(table)
    standard = table[table["method"] == "sqrt_d"].set_index(["length", "seed"])
    change = {
        column: _interval(
            (standard.loc[longest, column] - standard.loc[train_length, column]).to_numpy(),
            3,
            confidence,
        )
        for column in ("entropy", "largest")
    }
    rises = change["entropy"][0] - change["entropy"][1] > 0
    falls = change["largest"][0] + change["largest"][1] < 0
    focus, half = paired(table, "ssmax_learned", "sqrt_d", longest, "largest", 3, confidence)
    focused = focus - half > 0
    values: dict[str, Any] = {"train_length": train_length, "longest": longest}
    values |= _change(*change["entropy"], "entropy") | _change(*change["largest"], "largest")
    values |= _change(focus, half, "focus")
    values |= {"rises": bool(rises), "falls": bool(falls), "focused": bool(focused)}
    steady = (
        change["entropy"][0] + change["entropy"][1] <= 0
        and change["largest"][0] - change["largest"][1] >= 0
    )
    if rises and falls and focused:
        verdict = Verdict.HOLDS
    elif rises or falls or focused:
        verdict = Verdict.CAVEAT
    elif steady and focus + half <= 0:
        verdict = Verdict.FAILS
    else:
        verdict = Verdict.UNTESTABLE
    return Finding(claim, verdict, values=values)


@decided_by(SOLVED)
def k_total_long(
    table: pd.DataFrame,
    train_length: int,
    *,
    solved: float = SOLVED,
    confidence: float = CONFIDENCE,
) -> Finding:
    """Bernhard's 1/k_total, a rescaling that depends on the keys and so on their number, read
    at a number of keys it was not trained at: at the longest length, holds if 1/k_total is
    solved and not clearly below 1/√d (paired); holds with a caveat if it is solved but
    clearly below 1/√d (branch ``below``), or clearly unsolved but clearly above
    :data:`CHANCE` (``caveat``: it carries over in part); does not hold if it is clearly below
    1/√d (``fails``), or clearly no better than chance (``chance``: its whole interval at or
    below it); not testable where the seeds cannot tell whether it is solved
    (``untestable``) or better than chance (``guessing``), with one seed, no length beyond
    training, or either method unsolved at the training length (:func:`_untestable`,
    :func:`_unlearned`). Values: its accuracy and its difference to 1/√d (``gap``) with their
    intervals, and how its factor on q·k changed with the length and the number of keys."""
    claim, methods = "bernhard-k-total-long-strings", ("sqrt_d", "k_total")
    why = _untestable(claim, table, train_length, methods) or _unlearned(
        claim, table, train_length, methods, solved, confidence
    )
    if why:
        return why
    longest = _longest(table)
    rows = summary(table, confidence)
    k_total = rows.loc[("k_total", longest)]
    gap, half = paired(table, "k_total", "sqrt_d", longest, confidence=confidence)
    below = gap + half < 0
    values = _k_total_values(rows, train_length, longest) | _change(gap, half, "gap")
    if k_total["low"] >= solved:
        verdict, branch = (Verdict.CAVEAT, "below") if below else (Verdict.HOLDS, "holds")
    elif below or k_total["high"] <= CHANCE:
        verdict, branch = Verdict.FAILS, "fails" if below else "chance"
    elif k_total["high"] < solved and k_total["low"] > CHANCE:
        verdict, branch = Verdict.CAVEAT, "caveat"
    else:
        verdict = Verdict.UNTESTABLE
        branch = "untestable" if k_total["high"] >= solved else "guessing"
    return Finding(claim, verdict, values=values, branch=branch)


def _k_total_values(rows: pd.DataFrame, train_length: int, longest: int) -> dict[str, Any]:
    """1/k_total's accuracy at ``longest`` with its interval (:func:`_accuracy`), and its
    factor on q·k there and at ``train_length`` (``factor_short``, ``factor_long``, ``fall``
    the ratio), beside the number of keys at each (``keys_short``, ``keys_long``,
    ``key_growth`` the ratio)."""
    short, long = rows.loc[("k_total", train_length), "scale"], rows.loc[("k_total", longest)]
    values: dict[str, Any] = {"train_length": train_length, "longest": longest}
    values |= _accuracy(long, "k_total")
    values |= {"factor_short": float(short), "factor_long": float(long["scale"])}
    values |= {"fall": float(short / long["scale"]), "keys_short": train_length + 1}
    values |= {"keys_long": longest + 1, "key_growth": (longest + 1) / (train_length + 1)}
    return values


#: What :func:`solved_at_longest` can say of a method at the longest length.
OUTCOMES = ("solved", "not solved", "one seed", "not learned", "undecided")


def solved_at_longest(
    table: pd.DataFrame,
    train_length: int | None = None,
    *,
    solved: float = SOLVED,
    confidence: float = CONFIDENCE,
) -> dict[str, str]:
    """Per method, one of :data:`OUTCOMES` at the longest length: ``"solved"`` when the lower
    end of its accuracy's interval is at least ``solved``, ``"not solved"`` when the whole
    interval is below, ``"undecided"`` when it reaches across ``solved``, ``"one seed"`` when a
    single seed gives no interval, and, given ``train_length``, ``"not learned"`` when the
    method is not solved even there (nothing to generalize).

    >>> table = pd.DataFrame({"method": ["a", "a", "b", "b", "c"], "seed": [0, 1, 0, 1, 0],
    ...                       "length": 50, "accuracy": [1.0, 1.0, 0.5, 0.9, 1.0]})
    >>> solved_at_longest(table)
    {'a': 'solved', 'b': 'undecided', 'c': 'one seed'}
    >>> solved_at_longest(table.assign(accuracy=[1.0, 1.0, 0.5, 0.5, 1.0]))["b"]
    'not solved'
    >>> short = table.assign(length=5)
    >>> solved_at_longest(pd.concat([short, table]), train_length=5)
    {'a': 'solved', 'b': 'not learned', 'c': 'one seed'}
    """
    rows = summary(table, confidence)
    at = rows.xs(_longest(table), level="length")["low"]
    high = rows.xs(_longest(table), level="length")["high"]
    trained = (
        rows.xs(train_length, level="length")["low"]
        if train_length is not None and train_length in rows.index.get_level_values("length")
        else pd.Series(dtype=float)
    )

    def outcome(method: str, low: float) -> str:
        if math.isnan(low):
            return OUTCOMES[2]
        if trained.get(method, math.inf) < solved:
            return OUTCOMES[3]
        if low >= solved:
            return OUTCOMES[0]
        return OUTCOMES[1] if high[method] < solved else OUTCOMES[4]

    return {str(method): outcome(method, low) for method, low in at.items()}


#: The order in which :func:`longest_outcomes` gives the groups of :data:`OUTCOMES`.
_SAID = ("solved", "not solved", "one seed", "undecided", "not learned")


def longest_outcomes(
    table: pd.DataFrame,
    labels: dict[str, str],
    train_length: int | None = None,
    named: tuple[str, ...] = ("sqrt_d", "log_n"),
) -> list[Reading]:
    """The methods at the longest length grouped by their outcome of
    :func:`solved_at_longest`: one :class:`Reading` per outcome that some method has, its
    branch the outcome (solved, not solved, one seed, undecided, not learned, in that order),
    its values the ``methods`` by their labels, whether they are ``many`` (more than one) and
    the ``solved`` threshold. A group of more than :data:`LISTED` names only the ``named``
    methods in it and counts the others (the chapter's table lists them).

    >>> table = pd.DataFrame({"method": ["a", "a", "b", "b"], "seed": [0, 1, 0, 1],
    ...                       "length": 50, "accuracy": [1.0, 1.0, 0.5, 0.9]})
    >>> [(r.branch, r.values["methods"]) for r in longest_outcomes(table, {"a": "A", "b": "B"})]
    [('solved', ['A']), ('undecided', ['B'])]
    >>> many = pd.concat([table[table["method"] == m].assign(method=f"{m}{i}")
    ...                   for m in "ab" for i in range(5)])
    >>> labels = {f"{m}{i}": f"{m.upper()}{i}" for m in "ab" for i in range(5)}
    >>> found = longest_outcomes(many, labels, named=("a0",))
    >>> [(r.values["methods"], r.values["many"]) for r in found]
    [(['A0', 'four other methods'], True), (['five methods'], True)]
    """
    outcomes = solved_at_longest(table, train_length)
    readings = []
    for outcome in _SAID:
        methods = [m for m, found in outcomes.items() if found == outcome]
        if methods:
            names, many = _few(methods, labels, named)
            values = {"methods": names, "many": many, "solved": float(SOLVED)}
            readings.append(Reading(outcome, values))
    return readings


#: The most methods a sentence names in one group; a longer group is counted.
LISTED = 4


def _few(
    methods: list[str], labels: dict[str, str], named: tuple[str, ...]
) -> tuple[list[str], bool]:
    """The labels of ``methods`` for a sentence, and whether they are more than one: all of
    them up to :data:`LISTED`, else the ``named`` ones and a count of the others."""
    if len(methods) <= LISTED:
        return [labels[m] for m in methods], len(methods) > 1
    shown = [labels[m] for m in methods if m in named]
    if not shown:
        return [count(len(methods), "method")], True
    return [*shown, count(len(methods) - len(shown), "other method")], True


def temperature_differences(table: pd.DataFrame, names: dict[str, str]) -> pd.DataFrame:
    """Per inference-time temperature on the 1/√d models (``names``: method -> label), at the
    longest length: the paired difference in accuracy against the models as trained
    (``change``) and against the models trained with ln n/√d (``gap``), each with the
    half-width of its interval, simultaneous over all the comparisons (NaN with one seed).

    >>> table = pd.DataFrame({"method": ["sqrt_d"] * 2 + ["sqrt_d + q"] * 2 + ["log_n"] * 2,
    ...                       "seed": [0, 1] * 3, "length": 50,
    ...                       "accuracy": [0.6, 0.8, 0.9, 1.0, 1.0, 1.0]})
    >>> temperature_differences(table, {"sqrt_d + q": "Q"}).round(3).loc["Q"].tolist()
    [0.25, 1.273, -0.05, 1.273]
    """
    longest, comparisons = _longest(table), 2 * len(names)
    rows = {}
    for method, label in names.items():
        change = paired(table, method, "sqrt_d", longest, comparisons=comparisons)
        gap = paired(table, method, "log_n", longest, comparisons=comparisons)
        rows[label] = {"change": change[0], "change_half": change[1], "gap": gap[0]}
        rows[label]["gap_half"] = gap[1]
    return pd.DataFrame.from_dict(rows, orient="index")


def temperature_table(table: pd.DataFrame, names: dict[str, str]) -> pd.DataFrame:
    """The page's table of :func:`temperature_differences`: each difference (columns
    ``change`` and ``gap``, the chapter titles them) with its interval in brackets, cut to -1
    to 1."""
    found = temperature_differences(table, names)
    return pd.DataFrame(
        {
            c: [_difference(m, h) for m, h in zip(found[c], found[f"{c}_half"], strict=True)]
            for c in ("change", "gap")
        },
        index=found.index.rename("temperature at test time"),
    )


_CHANGE = {"above": "raises", "below": "lowers", "unclear": "unchanged"}
#: The keys a temperature's record gives for the direction of its change (against the 1/√d models as
#: trained) and of its gap (against training with ln n/√d).
_GAP = {"above": "above", "below": "below", "unclear": "level"}


def temperature_reading(table: pd.DataFrame, names: dict[str, str]) -> Reading:
    """Whether each inference-time temperature on the 1/√d models (``names``: method ->
    label) changes their accuracy at the longest length clearly (paired), and how it compares
    with training under ln n/√d (:func:`temperature_table` gives the numbers). Branch
    ``paired``: per temperature a record of its ``label``, the ``change`` (a one-key list,
    ``raises``, ``lowers`` or ``unchanged``) and the ``gap`` (``above``, ``below`` or
    ``level``); ``one-seed`` where a single seed gives no interval, with the ``labels`` and
    whether there are ``many``. Both give the ``longest`` length.

    >>> table = pd.DataFrame({"method": ["sqrt_d"] * 2 + ["sqrt_d + q"] * 2 + ["log_n"] * 2,
    ...                       "seed": [0, 1] * 3, "length": 50,
    ...                       "accuracy": [0.6, 0.8, 0.9, 1.0, 1.0, 1.0]})
    >>> temperature_reading(table, {"sqrt_d + q": "Q"}).values["temperatures"]
    [{'label': 'Q', 'change': ['unchanged'], 'gap': ['level']}]
    >>> temperature_reading(table[table["seed"] == 0], {"sqrt_d + q": "Q"}).branch
    'one-seed'
    """
    longest = _longest(table)
    if table["seed"].nunique() < 2:
        labels = list(names.values())
        return Reading("one-seed", {"longest": longest, "labels": labels, "many": len(labels) > 1})
    records = [
        {
            "label": str(label),
            "change": [_CHANGE[_direction(row["change"], row["change_half"])]],
            "gap": [_GAP[_direction(row["gap"], row["gap_half"])]],
        }
        for label, row in temperature_differences(table, names).iterrows()
    ]
    return Reading("paired", {"longest": longest, "temperatures": records})


def _direction(mean: float, half: float) -> str:
    """``above`` or ``below`` zero when the interval excludes it, ``unclear`` otherwise."""
    return "above" if mean - half > 0 else "below" if mean + half < 0 else "unclear"
