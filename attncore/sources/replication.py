"""The public replication of Chiang & Cholak's FIRST experiment, as its result files record it.

Camposampiero, Hilmarsson, Nowak and Pasti (ETH Zürich, 2022) trained the authors' model on
FIRST for 1,000 epochs at four training lengths, 20 runs each, with standard attention and with
the logits scaled by log n, and tested every run on 100 sampled strings of 1,000 bits. The
counts below are each run's correct test strings (of 100) at epoch 1,000, read from
``experiments/generalize/data/first{,sc}{1,2}_{models,results}.csv`` at the commit named in
``REPLICATION``; every run reached training accuracy 1.00. They are data about a source, not
results: the length chapter compares its own runs with them.

>>> summary = replication_summary()
>>> summary.loc[("log_n", 10), ["runs", "solved"]].tolist()
[20, 19]
>>> round(float(summary.loc[("standard", 10), "accuracy"]), 3)
0.513
"""

from __future__ import annotations

import pandas as pd
from scipy import stats

__all__ = ["REPLICATION", "STRINGS_PER_TEST", "replication_summary"]

REPLICATION = {
    "authors": "Camposampiero, Hilmarsson, Nowak and Pasti",
    "year": 2022,
    "address": "https://github.com/giacomocamposampiero/palindrome-transformer",
    "commit": "681d35d88ca4b9716cac8ea83d1cc7af056f53e7",
    "test_length": 1000,
    "epochs": 1000,
}
"""Where the counts come from, and the setup they share."""

STRINGS_PER_TEST = 100
"""Sampled test strings per run (the replication's ``size``)."""

_CORRECT = {
    ("standard", 10): (44, 55, 48, 44, 48, 54, 44, 56, 49, 40,
                       100, 48, 52, 48, 53, 44, 50, 49, 49, 51),
    ("standard", 30): (80, 89, 49, 44, 39, 100, 57, 68, 70, 51,
                       54, 73, 57, 100, 91, 69, 100, 100, 83, 91),
    ("standard", 100): (58, 100, 50, 100, 100, 100, 100, 100, 97, 59,
                        100, 91, 100, 100, 100, 100, 71, 100, 57, 96),
    ("standard", 300): (48, *[100] * 19),
    ("log_n", 10): (*[100] * 19, 51),
    ("log_n", 30): (100,) * 20,
    ("log_n", 100): (100,) * 20,
    ("log_n", 300): (100,) * 20,
}  # fmt: skip
"""Correct test strings of 100, per run, by (attention, training length)."""


def replication_summary(level: float = 0.95) -> pd.DataFrame:
    """Per attention and training length: runs, mean test accuracy at 1,000 bits, runs that
    solved every test string, and the Wilson interval at ``level`` of the share of runs that did.

    >>> int(replication_summary().loc[("standard", 300), "solved"])
    19
    """
    rows = []
    for (attention, train_length), correct in _CORRECT.items():
        solved = sum(c == STRINGS_PER_TEST for c in correct)
        low, high = stats.binomtest(solved, len(correct)).proportion_ci(level, method="wilson")
        rows.append({
            "attention": attention, "train_length": train_length, "runs": len(correct),
            "accuracy": sum(correct) / (STRINGS_PER_TEST * len(correct)),
            "solved": solved, "solved_low": low, "solved_high": high,
        })  # fmt: skip
    return pd.DataFrame(rows).set_index(["attention", "train_length"])
