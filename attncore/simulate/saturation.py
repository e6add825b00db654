"""How the softmax saturates as the spread of its logits grows.

Rows of ``n_keys`` logits are drawn iid normal with standard deviation ``spread`` (the
distribution of ``q.k / c`` for standard normal components, with ``spread = sqrt(d) / c``);
for each spread the module reports the mean over rows of the normalized entropy, the
largest probability, the effective number of keys, the Frobenius norm of the softmax
Jacobian and the share of saturated rows, each with its standard error.

>>> curve = saturation_curve([0.01, 100.0], n_keys=8, n_rows=200, seed=0)
>>> curve["entropy_ratio"].round(2).tolist()
[1.0, 0.0]
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike

from attncore.checks import ParameterError, finite_array, positive_int
from attncore.measures import check_threshold
from attncore.random import SeedLike, make_rng
from attncore.softmax import effective_keys, entropy, jacobian_frobenius, softmax

__all__ = ["ROW_METRICS", "saturation_curve"]

ROW_METRICS = {
    "entropy_ratio": "entropy / ln n",
    "max_probability": "largest probability",
    "effective_keys": "effective number of keys",
    "jacobian_norm": "Jacobian Frobenius norm",
    "saturated": "share of saturated rows",
}


def saturation_curve(
    spreads: ArrayLike,
    n_keys: int,
    n_rows: int,
    seed: SeedLike,
    threshold: float = 0.9,
) -> pd.DataFrame:
    """Mean row metrics (and standard errors, columns ``*_se``) of softmax(spread * z), z ~ N(0, 1).

    One standard normal matrix of shape ``(n_rows, n_keys)`` is drawn and multiplied by
    each spread, so the curves are smooth in the spread (common random numbers).
    A row is saturated when its largest probability exceeds ``threshold``.
    """
    grid = finite_array("spreads", spreads, ndim=1)
    if (grid <= 0).any():
        raise ParameterError("spreads must all be > 0")
    n_keys = positive_int("n_keys", n_keys, minimum=2)
    n_rows = positive_int("n_rows", n_rows, minimum=2)
    threshold = check_threshold(threshold)
    z = make_rng(seed).standard_normal((n_rows, n_keys))
    records = []
    for spread in grid:
        s = softmax(spread * z)
        rows = {
            "entropy_ratio": entropy(s, normalized=True),
            "max_probability": s.max(axis=-1),
            "effective_keys": effective_keys(s),
            "jacobian_norm": jacobian_frobenius(s),
        }
        rows["saturated"] = (rows["max_probability"] > threshold).astype(float)
        record = {"spread": float(spread)}
        for name, values in rows.items():
            record[name] = values.mean()
            record[f"{name}_se"] = values.std(ddof=1) / np.sqrt(n_rows)
        records.append(record)
    return pd.DataFrame.from_records(records)
