"""Verdict rules and conclusions of the chapter on length generalization (train short, test
long).

The rules read the table of :func:`attncore.training.lengths.score_lengths`: one row per
method, seed and test length (in bits), with the exact accuracy over all strings, the
[CLS] query's attention entropy over ``ln n`` and its largest weight in the last layer, and
the last layer's factor on ``q . k``. Every comparison of two methods is paired by seed (one
seed gives both the same initial draw and the same batches); intervals are Student-t over the
seeds, at :data:`CONFIDENCE` simultaneous over the comparisons a rule makes (Bonferroni).

>>> table = pd.DataFrame({"method": "sqrt_d", "seed": [0, 1, 0, 1], "length": [10, 10, 99, 99],
...                       "accuracy": [1.0, 1.0, 0.6, 0.8]})
>>> row = summary(table).loc[("sqrt_d", 99)]
>>> round(float(row["accuracy"]), 2), round(float(row["low"]), 2)
(0.7, -0.57)
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
from scipy import stats

from attncore.claims.catalogue import Verdict
from attncore.claims.finding import Finding
from attncore.claims.thresholds import Threshold, decided_by
from attncore.claims.words import count, listing

__all__ = [
    "CHANCE",
    "CONFIDENCE",
    "OUTCOMES",
    "SOLVED",
    "accuracy_text",
    "chiang_log_n",
    "k_total_long",
    "longest_sentence",
    "paired",
    "solved_at_longest",
    "ssmax_flattening",
    "summary",
    "temperature_differences",
    "temperature_sentence",
    "temperature_table",
]

CONFIDENCE = Threshold(
    0.95,
    "confidence",
    "the intervals' level, simultaneous over the comparisons of one rule: the seeds and the "
    "Bonferroni correction control its errors, so no band applies",
    scale="fixed",
)
"""Confidence of the intervals over the seeds."""

SOLVED = Threshold(
    0.95,
    "solved",
    "FIRST counts as solved at a length when the lower end of the accuracy's interval is at "
    "least 0.95: the published replication's 0.98 with log-n scaling would pass, its 0.53, "
    "0.73 and 0.88 with standard attention would not",
    scale="share",
)
"""Smallest accuracy (lower interval end) read as "generalizes" at a length."""

CHANCE = 0.5
"""The accuracy of guessing FIRST's label, a fair coin's bit."""

_CHECK = (
    "FIRST trained at the chapter's length and scored exactly over all strings of each test "
    "length, paired by seed, with Student-t intervals over the seeds in brackets "
    "(simultaneous over the rule's comparisons)"
)


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


def _untestable(table: pd.DataFrame, train_length: int, methods: tuple[str, ...]) -> str:
    """Why the table cannot decide a rule on ``methods`` (empty if it can)."""
    missing = [m for m in methods if m not in set(table["method"])]
    if missing:
        return f"the run trained no models of {', '.join(missing)}"
    if table["seed"].nunique() < 2:
        return "one seed: too few seeds to tell (no interval over the seeds)"
    if _longest(table) <= train_length:
        return f"no test length beyond the training length {train_length}"
    return ""


_NAMES = {"sqrt_d": "1/√d", "log_n": "ln n/√d", "k_total": "1/k_total"}
"""How the measured texts name the methods the rules compare."""


def _unlearned(
    table: pd.DataFrame,
    train_length: int,
    methods: tuple[str, ...],
    solved: float,
    confidence: float,
) -> str:
    """Why ``methods`` cannot speak to length generalization (empty if they can): a method
    that did not solve FIRST at the training length has nothing to generalize."""
    rows = summary(table, confidence)
    lost = [
        f"{_NAMES.get(m, m)} ({accuracy_text(rows.loc[(m, train_length)])})"
        for m in methods
        if (m, train_length) in rows.index and not rows.loc[(m, train_length), "low"] >= solved
    ]
    if not lost:
        return ""
    return (
        f"not solved at the training length {train_length} (accuracy interval below {solved:g}): "
        + ", ".join(lost)
        + "; a model that did not learn FIRST has no length generalization to measure"
    )


_NO_INTERVAL = "one seed, no interval"
"""What stands for an interval that a single seed cannot give."""


def accuracy_text(row: pd.Series) -> str:
    """A mean accuracy (a row of :func:`summary`) and its interval, cut to the range an
    accuracy can take; the mean alone where one seed gives no interval.

    >>> accuracy_text(pd.Series({"accuracy": 0.9, "low": 0.8, "high": 1.1, "seeds": 3}))
    '0.900 [0.800, 1.000]'
    >>> accuracy_text(pd.Series({"accuracy": 0.5, "low": math.nan, "high": math.nan, "seeds": 1}))
    '0.500 (one seed, no interval)'
    """
    if math.isnan(row["low"]) or math.isnan(row["high"]):
        return f"{row['accuracy']:.3f} ({_NO_INTERVAL})"
    return f"{row['accuracy']:.3f} [{max(row['low'], 0.0):.3f}, {min(row['high'], 1.0):.3f}]"


def _difference(mean: float, half: float) -> str:
    """A paired difference of two shares (accuracies, weights, entropies over ln n) and its
    interval, cut to the range such a difference can take, -1 to 1; the mean alone where one
    seed gives no interval.

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
    if ln n/√d is solved and 1/√d is solved too (nothing to remedy at these lengths: the
    claim says "can fail"), or ln n/√d is clearly above 1/√d without being solved; does not
    hold if ln n/√d is clearly not solved (its whole interval below ``solved``) and clearly
    not above 1/√d (the difference's interval at or below 0); not testable with one seed, no
    length beyond training, either method unsolved at the training length, or intervals too
    wide to tell."""
    check = _CHECK + "; two comparisons at the longest length"
    why = _untestable(table, train_length, ("sqrt_d", "log_n")) or _unlearned(
        table, train_length, ("sqrt_d", "log_n"), solved, confidence
    )
    if why:
        return Finding("chiang-first-log-n", Verdict.UNTESTABLE, why, check)
    longest = _longest(table)
    rows = summary(table, confidence)
    standard, scaled = rows.loc[("sqrt_d", longest)], rows.loc[("log_n", longest)]
    gain, half = paired(table, "log_n", "sqrt_d", longest, comparisons=2, confidence=confidence)
    standard_solved = standard["low"] >= solved
    scaled_solved = scaled["low"] >= solved
    above = gain - half > 0
    measured = (
        f"trained at {train_length:,} bits, at {longest:,} bits 1/√d scores "
        f"{accuracy_text(standard)} and ln n/√d {accuracy_text(scaled)} "
        f"({int(scaled['seeds'])} seeds; difference {_difference(gain, half)}; solved: lower "
        f"end ≥ {solved:g})"
    )
    if scaled_solved and above and not standard_solved:
        verdict = Verdict.HOLDS
    elif scaled_solved or above:
        verdict = Verdict.CAVEAT
    elif scaled["high"] < solved and gain + half <= 0:
        verdict = Verdict.FAILS
    else:
        verdict = Verdict.UNTESTABLE
        measured += "; the seeds cannot tell whether ln n/√d is solved or above 1/√d"
    return Finding("chiang-first-log-n", verdict, measured, check)


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
    interval at or below 0); not testable with one seed, no length beyond training, or when
    the seeds can tell neither."""
    check = _CHECK + "; the last layer's [CLS] row, three comparisons"
    why = _untestable(table, train_length, ("sqrt_d", "ssmax_learned"))
    if why:
        return Finding("nakanishi-ssmax-flattening", Verdict.UNTESTABLE, why, check)
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
    measured = (
        f"under 1/√d, from {train_length} to {longest:,} bits the [CLS] row's entropy/ln n "
        f"changes by {_difference(*change['entropy'])} and its largest weight by "
        f"{_difference(*change['largest'])}; at {longest:,} bits SSMax's largest weight exceeds "
        f"1/√d's by {_difference(focus, half)}"
    )
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
        measured += "; the seeds can tell neither a flattening nor its absence"
    return Finding("nakanishi-ssmax-flattening", verdict, measured, check)


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
    clearly below 1/√d, or clearly unsolved but clearly above :data:`CHANCE` (it carries over
    in part); does not hold if it is clearly below 1/√d, or clearly no better than chance (its
    whole interval at or below it); not testable where the seeds cannot tell whether it is
    solved or better than chance, with one seed, no length beyond training, or either method
    unsolved at the training length. The measured text gives how its factor changed with the
    length."""
    check = _CHECK + "; one comparison at the longest length"
    why = _untestable(table, train_length, ("sqrt_d", "k_total")) or _unlearned(
        table, train_length, ("sqrt_d", "k_total"), solved, confidence
    )
    if why:
        return Finding("bernhard-k-total-long-strings", Verdict.UNTESTABLE, why, check)
    longest = _longest(table)
    rows = summary(table, confidence)
    k_total = rows.loc[("k_total", longest)]
    gap, half = paired(table, "k_total", "sqrt_d", longest, confidence=confidence)
    below = gap + half < 0
    short = rows.loc[("k_total", train_length), "scale"]
    measured = (
        f"at {longest:,} bits 1/k_total scores {accuracy_text(k_total)}, {_difference(gap, half)} "
        f"against 1/√d; its factor on q·k fell from {short:.3g} at {train_length:,} bits to "
        f"{k_total['scale']:.3g}, {short / k_total['scale']:.0f} times, as the keys went from "
        f"{train_length + 1} to {longest + 1} ({(longest + 1) / (train_length + 1):.0f} times)"
    )
    if k_total["low"] >= solved:
        verdict = Verdict.CAVEAT if below else Verdict.HOLDS
    elif below or k_total["high"] <= CHANCE:
        verdict = Verdict.FAILS
    elif k_total["high"] < solved and k_total["low"] > CHANCE:
        verdict = Verdict.CAVEAT
    else:
        verdict = Verdict.UNTESTABLE
        measured += (
            "; the seeds cannot tell whether 1/k_total is solved"
            if k_total["high"] >= solved
            else "; the seeds cannot tell whether 1/k_total is better than guessing"
        )
    return Finding("bernhard-k-total-long-strings", verdict, measured, check)


OUTCOMES = ("solved", "not solved", "one seed", "not learned", "undecided")
"""What :func:`solved_at_longest` can say of a method at the longest length."""


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


def longest_sentence(
    table: pd.DataFrame,
    labels: dict[str, str],
    train_length: int | None = None,
    named: tuple[str, ...] = ("sqrt_d", "log_n"),
) -> str:
    """Which methods are solved at the longest length (:func:`solved_at_longest`), which are
    clearly not (their whole accuracy interval below :data:`SOLVED`) and which the seeds
    cannot tell (an interval across it), by their labels; a group of more than
    :data:`LISTED` names only the ``named`` methods in it and counts the others (the
    chapter's table lists them).

    >>> table = pd.DataFrame({"method": ["a", "a", "b", "b"], "seed": [0, 1, 0, 1],
    ...                       "length": 50, "accuracy": [1.0, 1.0, 0.5, 0.5]})
    >>> longest_sentence(table, {"a": "A", "b": "B"})
    'At 50 bits, A is solved (accuracy interval at or above 0.95); B is not.'
    >>> longest_sentence(table.assign(accuracy=[1.0, 1.0, 0.5, 0.9]), {"a": "A", "b": "B"})
    'At 50 bits, A is solved (accuracy interval at or above 0.95); the seeds cannot tell \
whether B is solved (its interval reaches across 0.95).'
    >>> longest_sentence(table[table["seed"] == 0], {"a": "A", "b": "B"})
    'At 50 bits, one seed gives no interval, so whether A and B are solved is not measured.'
    >>> many = pd.concat([table[table["method"] == m].assign(method=f"{m}{i}")
    ...                   for m in "ab" for i in range(5)])
    >>> longest_sentence(many, {f"{m}{i}": f"{m.upper()}{i}" for m in "ab" for i in range(5)},
    ...                  named=("a0",))
    'At 50 bits, A0 and four other methods are solved (accuracy interval at or above 0.95); \
five methods are not.'
    """
    outcomes = solved_at_longest(table, train_length)
    groups = {o: [m for m, found in outcomes.items() if found == o] for o in OUTCOMES}
    (
        (good, many_good),
        (bad, many_bad),
        (single, many_single),
        (unlearned, many_unlearned),
        (undecided, many_undecided),
    ) = (_few(groups[outcome], labels, named) for outcome in OUTCOMES)
    parts = []
    if good:
        verb = "are" if many_good else "is"
        parts.append(f"{listing(good)} {verb} solved (accuracy interval at or above {SOLVED:g})")
    if bad:
        verb = "are not" if many_bad else "is not"
        parts.append(f"{listing(bad)} {verb}" if good else f"{listing(bad)} {verb} solved")
    if single:
        verb = "are" if many_single else "is"
        parts.append(
            f"one seed gives no interval, so whether {listing(single)} {verb} solved is not "
            "measured"
        )
    if undecided:
        verb, its = (
            ("are", "their intervals reach") if many_undecided else ("is", "its interval reaches")
        )
        parts.append(
            f"the seeds cannot tell whether {listing(undecided)} {verb} solved ({its} across "
            f"{SOLVED:g})"
        )
    if unlearned:
        verb = "are" if many_unlearned else "is"
        parts.append(f"{listing(unlearned)} {verb} not solved even at the training length")
    return f"At {_longest(table):,} bits, {'; '.join(parts)}."


LISTED = 4
"""The most methods a sentence names in one group; a longer group is counted."""


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
    """The page's table of :func:`temperature_differences`: each difference with its interval
    in brackets, cut to -1 to 1."""
    found = temperature_differences(table, names)
    columns = {
        "against the 1/√d models as trained": "change",
        "against the models trained with ln n/√d": "gap",
    }
    return pd.DataFrame(
        {
            title: [_difference(m, h) for m, h in zip(found[c], found[f"{c}_half"], strict=True)]
            for title, c in columns.items()
        },
        index=found.index.rename("temperature at test time"),
    )


_CHANGE = {
    "above": "clearly raises",
    "below": "clearly lowers",
    "unclear": "does not clearly change",
}
_GAP = {"above": "clearly above", "below": "clearly below", "unclear": "not clearly different from"}


def temperature_sentence(table: pd.DataFrame, names: dict[str, str]) -> str:
    """Whether each inference-time temperature on the 1/√d models (``names``: method ->
    label) changes their accuracy at the longest length clearly (paired), and how it compares
    with training under ln n/√d, in words (:func:`temperature_table` gives the numbers).

    >>> table = pd.DataFrame({"method": ["sqrt_d"] * 2 + ["sqrt_d + q"] * 2 + ["log_n"] * 2,
    ...                       "seed": [0, 1] * 3, "length": 50,
    ...                       "accuracy": [0.6, 0.8, 0.9, 1.0, 1.0, 1.0]})
    >>> temperature_sentence(table, {"sqrt_d + q": "Q"})
    'At 50 bits, Q does not clearly change the accuracy of the 1/√d models and leaves it not \
clearly different from training with ln n/√d.'
    >>> temperature_sentence(table[table["seed"] == 0], {"sqrt_d + q": "Q"})[:48]
    'At 50 bits, one seed gives no interval, so wheth'
    """
    longest = _longest(table)
    if table["seed"].nunique() < 2:
        labels = list(names.values())
        verb = "changes" if len(labels) == 1 else "change"
        return (
            f"At {longest:,} bits, one seed gives no interval, so whether {listing(labels)} "
            f"{verb} the accuracy of the 1/√d models is not measured."
        )
    parts = [
        f"{label} {_CHANGE[_direction(row['change'], row['change_half'])]} the accuracy of the "
        f"1/√d models and leaves it {_GAP[_direction(row['gap'], row['gap_half'])]} training "
        "with ln n/√d"
        for label, row in temperature_differences(table, names).iterrows()
    ]
    return f"At {longest:,} bits, {'; '.join(parts)}."


def _direction(mean: float, half: float) -> str:
    """``above`` or ``below`` zero when the interval excludes it, ``unclear`` otherwise."""
    return "above" if mean - half > 0 else "below" if mean + half < 0 else "unclear"
