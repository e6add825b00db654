"""Synthetic score tables of the length-generalization chapter (the rows of
:func:`attncore.training.lengths.score_lengths`), shared by the rules' tests and the
reachability drivers."""

from __future__ import annotations

import pandas as pd

GOOD, BAD, MID = [1.0, 1.0, 1.0], [0.55, 0.6, 0.5], [0.8, 0.85, 0.82]
"""Accuracies of three seeds: solved, near chance, in between."""

FLAT = {"entropy": 0.6, "largest": 0.3}
FOCUSED = {"entropy": 0.05, "largest": 0.99}
SAME = {"entropy": 0.1, "largest": 0.9}
"""Attention at the longest length: flattened, focused, as at the training length."""


def frame(accuracies: dict[str, list[float]], length: int = 1000, **extra: dict) -> pd.DataFrame:
    """A score table at the training length 10 (every method 1.0, attention as :data:`SAME`)
    and at ``length``, with ``extra[method]``'s columns there."""
    rows = []
    for method, values in accuracies.items():
        for seed, value in enumerate(values):
            base = {"method": method, "seed": seed, "scale": 0.1, **SAME}
            rows.append({**base, "length": 10, "accuracy": 1.0})
            rows.append({**base, "length": length, "accuracy": value, **extra.get(method, {})})
    return pd.DataFrame(rows)
