"""Synthetic critical-scale sweep tables, shared by the rules' tests and the reachability
drivers.

A table has the columns of attncore.simulate.simplex.critical_sweep: its angle ratio is a
logistic curve in ln(gamma (1 - rho)) that reaches the boundary's level (critical_level at
odds 1) at a chosen centre, with a width that may shrink with n, and a little noise per draw,
so each verdict can be reached on purpose.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from attncore.evidence import critical_scale as evidence

GAMMAS = np.geomspace(0.25, 25, 40)
RHOS = (0.2, 0.5, 0.8)


def synthetic(
    ns=(64, 4096),
    rhos=RHOS,
    draws=5,
    centre=lambda n, rho: 1.0,
    width=lambda n: 1 / math.log(n),
    floor=lambda n, rho: 0.0,
    gammas=GAMMAS,
    fixed=None,
) -> pd.DataFrame:
    """The grid rows, then a sqrt_d row per (n, draw, rho) from ``fixed(n, rho)`` giving its
    (angle ratio, entropy)."""
    rng = np.random.default_rng(0)
    rows = []
    for n in ns:
        for draw in range(draws):
            for rho in rhos:
                level = evidence.critical_level(rho, 1.0)
                x = np.log(gammas * (1 - rho) / centre(n, rho)) / width(n)
                x += math.log(level / (1 - level))
                ratio = floor(n, rho) + (1 - floor(n, rho)) / (1 + np.exp(-x))
                ratio = np.clip(ratio + rng.normal(0, 1e-4, len(gammas)), 0, 1)
                for gamma, value in zip(gammas, ratio, strict=True):
                    rows.append(
                        {"n": n, "draw": draw, "rho": rho, "scale": "grid", "gamma": gamma,
                         "angle_ratio": value, "self_weight": 0.5, "entropy": 0.5}
                    )  # fmt: skip
                if fixed is not None:
                    ratio_fixed, entropy = fixed(n, rho)
                    rows.append(
                        {"n": n, "draw": draw, "rho": rho, "scale": "sqrt_d",
                         "gamma": 8 / math.log(n), "self_weight": 0.5,
                         "angle_ratio": ratio_fixed + rng.normal(0, 1e-3),
                         "entropy": entropy + rng.normal(0, 1e-3)}
                    )  # fmt: skip
    return pd.DataFrame(rows)


def two_draws(first: dict, second: dict) -> pd.DataFrame:
    """Two synthetic draws that disagree, draw 0 from the arguments ``first`` of
    :func:`synthetic` and draw 1 from ``second``, so that the intervals are wide."""
    one = synthetic(draws=1, **first)
    other = synthetic(draws=1, **second).assign(draw=1)
    return pd.concat([one, other], ignore_index=True)
