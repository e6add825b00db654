"""Verdict rules and readings of the chapter on length generalization, on the score table of
:func:`attncore.training.lengths.score_lengths` (numbers: :mod:`attncore.evidence`)."""

from __future__ import annotations

import math

import pandas as pd

from attncore.claims.catalogue import Verdict
from attncore.claims.finding import Finding, Reading
from attncore.claims.thresholds import decided_by, thresholds_of
from attncore.claims.words import count
from attncore.evidence import length_generalization as evidence
from attncore.evidence.length_generalization import OUTCOMES

limits = thresholds_of("length_generalization")

__all__ = [
    "CHANCE",
    "OUTCOMES",
    "chiang_log_n",
    "k_total_long",
    "layer_norm_cross_entropy",
    "longest_outcomes",
    "replication_agreement",
    "solved_at_longest",
    "ssmax_flattening",
    "temperature_reading",
]

#: The accuracy of guessing FIRST's label, a fair coin's bit.
CHANCE = 0.5

#: How the findings name the methods the rules compare.
_NAMES = {"sqrt_d": "1/√d", "log_n": "ln n/√d", "k_total": "1/k_total", "ssmax_learned": "SSMax"}


def _untestable(
    claim: str,
    table: pd.DataFrame,
    train_length: int,
    methods: tuple[str, ...],
    solved: float | None = None,
    confidence: float = limits.CONFIDENCE,
) -> Finding | None:
    """Branch ``no-models`` (``missing`` methods), ``one-seed``, ``no-longer-length`` or, given
    ``solved``, ``not-learned`` (a method unsolved at the training length has nothing to
    generalize; ``unlearned`` gives their accuracies); None where the table can decide."""
    missing = [m for m in methods if m not in set(table["method"])]
    if missing:
        values = {"missing": [_NAMES.get(m, m) for m in missing]}
        return Finding(claim, Verdict.UNTESTABLE, values=values, branch="no-models")
    if table["seed"].nunique() < 2:
        return Finding(claim, Verdict.UNTESTABLE, branch="one-seed")
    if evidence.longest(table) <= train_length:
        values = {"train_length": train_length}
        return Finding(claim, Verdict.UNTESTABLE, values=values, branch="no-longer-length")
    if solved is None:
        return None
    rows = evidence.summary(table, confidence)
    lost = [
        {"method": _NAMES.get(m, m), **evidence.accuracy_values(rows.loc[(m, train_length)])}
        for m in methods
        if (m, train_length) in rows.index and not rows.loc[(m, train_length), "low"] >= solved
    ]
    if not lost:
        return None
    values = {"train_length": train_length, "unlearned": lost}
    return Finding(claim, Verdict.UNTESTABLE, values=values, branch="not-learned")


@decided_by(limits.SOLVED)
def chiang_log_n(
    table: pd.DataFrame,
    train_length: int,
    *,
    solved: float = limits.SOLVED,
    confidence: float = limits.CONFIDENCE,
) -> Finding:
    """``chiang-first-log-n`` at the longest length, from whether ln n/√d and 1/√d are solved
    (the lower end of the interval at least ``solved``) and whether ln n/√d's paired gain is
    clearly above 0; "can fail" makes both solved a caveat (``both-solved``)."""
    claim, methods = "chiang-first-log-n", ("sqrt_d", "log_n")
    why = _untestable(claim, table, train_length, methods, solved, confidence)
    if why:
        return why
    last = evidence.longest(table)
    rows = evidence.summary(table, confidence)
    standard, scaled = rows.loc[("sqrt_d", last)], rows.loc[("log_n", last)]
    gain, half = evidence.paired(table, "log_n", "sqrt_d", last, "accuracy", 2, confidence)
    standard_solved, scaled_solved = standard["low"] >= solved, scaled["low"] >= solved
    above = gain - half > 0
    values = {"train_length": train_length, "longest": last, "seeds": int(scaled["seeds"])}
    values |= evidence.accuracy_values(standard, "standard")
    values |= evidence.accuracy_values(scaled, "scaled")
    values |= evidence.change_values(gain, half, "gain")
    if scaled_solved and above and not standard_solved:
        return Finding(claim, Verdict.HOLDS, values=values)
    if scaled_solved or above:
        branch = "not-clearly-above" if scaled_solved else "above-unsolved"
        branch = "both-solved" if scaled_solved and standard_solved else branch
        return Finding(claim, Verdict.CAVEAT, values=values, branch=branch)
    if scaled["high"] < solved and gain + half <= 0:
        return Finding(claim, Verdict.FAILS, values=values)
    return Finding(claim, Verdict.UNTESTABLE, values=values)


def ssmax_flattening(
    table: pd.DataFrame, train_length: int, *, confidence: float = limits.CONFIDENCE
) -> Finding:
    """``nakanishi-ssmax-flattening`` on the changes of :func:`evidence.flattening`: holds where
    1/√d's entropy clearly ``rises``, its largest weight clearly ``falls`` and SSMax is clearly
    ``focused``, a caveat where some are; fails where all three clearly go the other way."""
    claim = "nakanishi-ssmax-flattening"
    why = _untestable(claim, table, train_length, ("sqrt_d", "ssmax_learned"))
    if why:
        return why
    names = ("entropy", "largest", "focus")
    change = evidence.flattening(table, train_length, confidence)
    (entropy, e_half), (largest, l_half), (focus, half) = (change[name] for name in names)
    rises, falls, focused = entropy - e_half > 0, largest + l_half < 0, focus - half > 0
    values = {"train_length": train_length, "longest": evidence.longest(table)}
    for name in names:
        values |= evidence.change_values(*change[name], name)
    values |= {"rises": bool(rises), "falls": bool(falls), "focused": bool(focused)}
    steady = entropy + e_half <= 0 and largest - l_half >= 0
    if rises and falls and focused:
        verdict = Verdict.HOLDS
    elif rises or falls or focused:
        verdict = Verdict.CAVEAT
    elif steady and focus + half <= 0:
        verdict = Verdict.FAILS
    else:
        verdict = Verdict.UNTESTABLE
    return Finding(claim, verdict, values=values)


@decided_by(limits.SOLVED)
def k_total_long(
    table: pd.DataFrame,
    train_length: int,
    *,
    solved: float = limits.SOLVED,
    confidence: float = limits.CONFIDENCE,
) -> Finding:
    """``bernhard-k-total-long-strings`` at the longest length, from whether 1/k_total is
    solved, clearly unsolved, clearly below 1/√d (paired ``gap``) and clearly above or at most
    :data:`CHANCE`; the branch says which. The sentence raises a possibility, so 1/k_total
    failing (branches ``fails`` and ``chance``) leaves it open: not testable here."""
    claim, methods = "bernhard-k-total-long-strings", ("sqrt_d", "k_total")
    why = _untestable(claim, table, train_length, methods, solved, confidence)
    if why:
        return why
    last = evidence.longest(table)
    rows = evidence.summary(table, confidence)
    k_total = rows.loc[("k_total", last)]
    gap, half = evidence.paired(table, "k_total", "sqrt_d", last, confidence=confidence)
    below = gap + half < 0
    values = evidence.k_total_values(rows, train_length, last)
    values |= evidence.change_values(gap, half, "gap")
    if k_total["low"] >= solved:
        verdict, branch = (Verdict.CAVEAT, "below") if below else (Verdict.HOLDS, "holds")
    elif below or k_total["high"] <= CHANCE:  # one rescaling: the possibility stays open
        verdict, branch = Verdict.UNTESTABLE, "fails" if below else "chance"
    elif k_total["high"] < solved and k_total["low"] > CHANCE:
        verdict, branch = Verdict.CAVEAT, "caveat"
    else:
        verdict = Verdict.UNTESTABLE
        branch = "untestable" if k_total["high"] >= solved else "guessing"
    return Finding(claim, verdict, values=values, branch=branch)


def solved_at_longest(
    table: pd.DataFrame,
    train_length: int | None = None,
    *,
    solved: float = limits.SOLVED,
    confidence: float = limits.CONFIDENCE,
) -> dict[str, str]:
    """Per method, one of :data:`OUTCOMES` at the longest length: its accuracy's interval at or
    above ``solved``, wholly below, across it, none (one seed), or, given ``train_length``, not
    solved even there.

    >>> table = pd.DataFrame({"method": ["a", "a", "b", "b", "c"], "seed": [0, 1, 0, 1, 0],
    ...                       "length": 50, "accuracy": [1.0, 1.0, 0.5, 0.9, 1.0]})
    >>> solved_at_longest(table)
    {'a': 'solved', 'b': 'undecided', 'c': 'one seed'}
    >>> short = table.assign(length=5)
    >>> solved_at_longest(pd.concat([short, table]), train_length=5)
    {'a': 'solved', 'b': 'not learned', 'c': 'one seed'}
    """
    rows = evidence.summary(table, confidence)
    at, high = (rows.xs(evidence.longest(table), level="length")[c] for c in ("low", "high"))
    known = train_length is not None and train_length in rows.index.get_level_values("length")
    trained = rows.xs(train_length, level="length")["low"] if known else pd.Series(dtype=float)

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
    """One :class:`Reading` per outcome of :func:`solved_at_longest` that some method has (in
    the order of ``_SAID``): the ``methods`` by their labels, whether ``many``, and the
    ``solved`` threshold. A group of more than :data:`LISTED` names only its ``named``
    methods and counts the others.

    >>> table = pd.DataFrame({"method": ["a", "a", "b", "b"], "seed": [0, 1, 0, 1],
    ...                       "length": 50, "accuracy": [1.0, 1.0, 0.5, 0.9]})
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
            values = {"methods": names, "many": many, "solved": float(limits.SOLVED)}
            readings.append(Reading(outcome, values))
    return readings


#: The most methods a sentence names in one group; a longer group is counted.
LISTED = 4


def _few(
    methods: list[str], labels: dict[str, str], named: tuple[str, ...]
) -> tuple[list[str], bool]:
    """The labels of ``methods`` for a sentence, and whether they are more than one."""
    if len(methods) <= LISTED:
        return [labels[m] for m in methods], len(methods) > 1
    shown = [labels[m] for m in methods if m in named]
    if not shown:
        return [count(len(methods), "method")], True
    return [*shown, count(len(methods) - len(shown), "other method")], True


_CHANGE = {"above": "raises", "below": "lowers", "unclear": "unchanged"}
#: The keys of a temperature's change (against 1/√d as trained) and gap (against ln n/√d).
_GAP = {"above": "above", "below": "below", "unclear": "level"}


def temperature_reading(table: pd.DataFrame, names: dict[str, str]) -> Reading:
    """Per inference-time temperature on the 1/√d models (``names``: method -> label), whether
    it clearly changes their accuracy at the longest length and how it compares with training
    under ln n/√d (branch ``paired``); ``one-seed`` where no interval can tell.

    >>> table = pd.DataFrame({"method": ["sqrt_d", "sqrt_d + q", "log_n"], "seed": 0,
    ...                       "length": 50, "accuracy": [0.6, 0.9, 1.0]})
    >>> temperature_reading(table, {"sqrt_d + q": "Q"}).values
    {'longest': 50, 'labels': ['Q'], 'many': False}
    """
    last = evidence.longest(table)
    if table["seed"].nunique() < 2:
        labels = list(names.values())
        return Reading("one-seed", {"longest": last, "labels": labels, "many": len(labels) > 1})
    records = [
        {
            "label": str(label),
            "change": [_CHANGE[_direction(row["change"], row["change_half"])]],
            "gap": [_GAP[_direction(row["gap"], row["gap_half"])]],
        }
        for label, row in evidence.temperature_differences(table, names).iterrows()
    ]
    return Reading("paired", {"longest": last, "temperatures": records})


def _direction(mean: float, half: float) -> str:
    """``above`` or ``below`` zero when the interval excludes it, ``unclear`` otherwise."""
    return "above" if mean - half > 0 else "below" if mean + half < 0 else "unclear"


def replication_agreement(differences: pd.DataFrame) -> Reading:
    """Per row of :func:`evidence.replication_differences`, whether the difference's interval
    holds 0 (``agrees``), lies ``above`` or ``below`` it, or is missing (``alone``); branch
    ``alike`` where every row agrees, ``compared`` (the other ``rows``) or ``none``.

    >>> rows = pd.DataFrame({"difference": [0.37, 0.03], "half": [0.1, 0.05], "method": "x"})
    >>> found = replication_agreement(rows)
    >>> found.branch, [row["side"] for row in found.values["rows"]], found.values["alike"]
    ('compared', [['above']], 1)
    """
    rows = []
    for row in differences.to_dict("records"):
        low, high = row["difference"] - row["half"], row["difference"] + row["half"]
        side = "agrees" if low <= 0 <= high else "above" if low > 0 else "below"
        side = "alone" if math.isnan(row["half"]) else side
        rows.append({**row, "method": [row["method"]], "side": [side]})
    other = [row for row in rows if row["side"] != ["agrees"]]
    if not rows or not other:
        widest = max((row["half"] for row in rows), default=0.0)
        return Reading("alike" if rows else "none", {"count": len(rows), "widest": widest})
    return Reading("compared", {"rows": other, "alike": len(rows) - len(other)})


@decided_by(limits.CLOSE_TO_ZERO)
def layer_norm_cross_entropy(
    table: pd.DataFrame, eps: float, *, close_to_zero: float = limits.CLOSE_TO_ZERO
) -> Finding:
    """``chiang-layer-norm-cross-entropy``, on the constructed FIRST network's table
    (:func:`attncore.simulate.first_construction.cross_entropy_table`): a model is one output
    scale, and what it guarantees is its largest cross-entropy over the lengths
    (:func:`evidence.worst_over_lengths`). Holds where, with layer normalization, the
    largest scale keeps it below ``close_to_zero`` bits at every length (``scale``: the
    smallest that does); branch ``without-too`` where the network without the normalization
    does as well over these lengths (too short to show Hahn's limitation); fails where the
    largest scale does not."""
    claim = "chiang-layer-norm-cross-entropy"
    worst = evidence.worst_over_lengths(table)
    normed, plain = worst[worst["layer_norm"]], worst[~worst["layer_norm"]]
    top, plain_top = normed.iloc[-1], plain.iloc[-1]
    values = {
        "eps": eps, "target": close_to_zero, "shortest": int(table["length"].min()),
        "longest": int(table["length"].max()), "scale_max": float(top["scale"]),
        "worst": float(top["worst"]), "worst_length": int(top["worst_length"]),
        "plain": float(plain_top["worst"]), "plain_length": int(plain_top["worst_length"]),
        "plain_accuracy": float(table.loc[~table["layer_norm"], "accuracy"].min()),
    }  # fmt: skip
    if top["worst"] >= close_to_zero:
        return Finding(claim, Verdict.FAILS, values=values)
    values["scale"] = float(normed.loc[normed["worst"] < close_to_zero, "scale"].iloc[0])
    branch = "without-too" if plain_top["worst"] < close_to_zero else "holds"
    return Finding(claim, Verdict.HOLDS, values=values, branch=branch)
