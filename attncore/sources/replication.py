"""The public replication of Chiang & Cholak's FIRST experiment, as its result files record it.

Camposampiero, Hilmarsson, Nowak and Pasti (ETH Zürich, 2022) trained the authors' model on
FIRST for 1,000 epochs at four training lengths, 20 runs each, with standard attention and with
the logits scaled by log n, and tested every run on 100 sampled strings of 1,000 bits. The
counts below are each run's correct test strings (of 100) at epoch 1,000 and at epoch 100 (the
authors' own budget), with the mean test cross-entropy at epoch 100, read from
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

from attncore.intervals import binomial_interval, t_quantile

__all__ = [
    "REPLICATION",
    "STRINGS_PER_TEST",
    "replication_at_100_epochs",
    "replication_summary",
    "runs_at_100_epochs",
]

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
        low, high = binomial_interval(solved, len(correct), level)
        rows.append({
            "attention": attention, "train_length": train_length, "runs": len(correct),
            "accuracy": sum(correct) / (STRINGS_PER_TEST * len(correct)),
            "solved": solved, "solved_low": low, "solved_high": high,
        })  # fmt: skip
    return pd.DataFrame(rows).set_index(["attention", "train_length"])


_AT_100_EPOCHS = {
    ("standard", 10): (
        (52, 54, 54, 53, 50, 53, 50, 52, 50, 57, 47, 60, 58, 58, 56, 59, 52, 53, 52, 48),
        (4.5168, 4.8195, 3.7709, 4.8148, 5.2748, 4.8681, 5.105, 4.9559, 5.216, 4.367,
         2.071, 4.1484, 4.1978, 4.1494, 4.6674, 4.2959, 4.0246, 4.9637, 4.3329, 5.4131),
    ),
    ("standard", 30): (
        (74, 69, 67, 55, 51, 100, 49, 71, 49, 87, 74, 71, 41, 100, 82, 68, 100, 100, 69, 74),
        (1.0921, 1.386, 1.5998, 3.4929, 3.2261, 0.0001, 3.9172, 1.6276, 4.0911, 0.5699,
         1.7322, 1.0536, 3.6608, 0.0, 0.5725, 1.2993, 0.0, 0.0001, 1.4997, 1.0337),
    ),
    ("standard", 100): (
        (68, 100, 48, 100, 100, 100, 100, 100, 100, 89, 100, 99, 100, 100, 100, 100, 90, 100,
         56, 56),
        (0.6852, 0.0006, 3.0543, 0.0002, 0.0005, 0.0006, 0.0002, 0.0005, 0.0024, 0.283,
         0.0002, 0.0319, 0.0006, 0.0004, 0.0009, 0.0045, 0.1918, 0.0008, 1.3408, 1.2239),
    ),
    ("standard", 300): (
        (49, 48, 46, 51, 42, 46, 50, 46, 53, 47, 46, 44, 43, 44, 49, 55, 42, 44, 44, 42),
        (0.6942, 0.6958, 0.7, 0.6931, 0.6994, 0.6944, 0.6932, 0.6945, 0.6917, 0.6967,
         0.6944, 0.6933, 0.7054, 0.703, 0.6936, 0.6919, 0.6995, 0.696, 0.6992, 0.6973),
    ),
    ("log_n", 10): ((*[100] * 19, 48), (*[0.0] * 19, 5.3825)),
    ("log_n", 30): ((100,) * 20, (0.0,) * 20),
    ("log_n", 100): ((100,) * 20, (0.0,) * 20),
    ("log_n", 300): ((100,) * 20, (0.0,) * 20),
}  # fmt: skip
"""Per run at epoch 100: correct test strings of 100 and the mean test cross-entropy (nats,
rounded to 4 decimals in the files), by (attention, training length)."""


def runs_at_100_epochs() -> dict[tuple[str, int], list[float]]:
    """Each run's test accuracy at 1,000 bits at epoch 100, by (attention, training length).

    >>> runs_at_100_epochs()[("log_n", 10)][-1]
    0.48
    """
    return {
        key: [c / STRINGS_PER_TEST for c in correct] for key, (correct, _) in _AT_100_EPOCHS.items()
    }


def replication_at_100_epochs(level: float = 0.95) -> pd.DataFrame:
    """Per attention and training length, at epoch 100 (the authors' 100 epochs of 100
    strings): runs, the mean test accuracy at 1,000 bits over the runs with its Student-t
    interval at ``level``, widened to hold the Wilson interval of all the runs' strings together
    (``accuracy_low``, ``accuracy_high``: runs alike in every string are not certain), and the
    mean test cross-entropy.

    >>> table = replication_at_100_epochs()
    >>> round(float(table.loc[("standard", 10), "accuracy"]), 3)
    0.534
    >>> table.loc[("log_n", 30), ["accuracy_low", "accuracy_high"]].round(3).tolist()
    [0.998, 1.0]
    """
    rows = []
    for (attention, train_length), (correct, losses) in _AT_100_EPOCHS.items():
        accuracy = pd.Series(correct, dtype=float) / STRINGS_PER_TEST
        half = t_quantile(level, len(accuracy) - 1) * accuracy.sem()
        low, high = binomial_interval(sum(correct), STRINGS_PER_TEST * len(correct), level)
        rows.append({
            "attention": attention, "train_length": train_length, "runs": len(accuracy),
            "accuracy": accuracy.mean(),
            "accuracy_low": max(0.0, min(accuracy.mean() - half, low)),
            "accuracy_high": min(1.0, max(accuracy.mean() + half, high)),
            "cross_entropy": sum(losses) / len(losses),
        })  # fmt: skip
    return pd.DataFrame(rows).set_index(["attention", "train_length"])
