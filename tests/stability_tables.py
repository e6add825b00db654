"""Synthetic learning-rate sweep tables, shared by the stability rules' tests and the
reachability drivers.

The tables have the columns of attncore.training.stability.lr_sweep. By default 1/√d's loss
is U-shaped in the rate with a steep rise at the highest rate, its largest logit grows a
thousandfold and its entropy falls to almost 0 there; QK-norm and σReparam stay flat, with
high entropy. Each behaviour can be replaced per method (and per width, with a mapping from
width to behaviour), so each verdict can be reached on purpose.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

LRS = (1e-3, 1e-2, 1e-1, 1.0)
METHODS = ("sqrt_d", "qk_norm", "sigma_reparam")
LENGTH = 10
INITIAL = 2.4


def u_loss(lr: float, seed: int) -> float:
    """Best at 1e-2; the highest rate near the initial loss."""
    x = math.log10(lr) + 2
    return min(INITIAL, 0.2 + (0.3 * x * x if x < 0 else 0.7 * x * x)) + 0.02 * seed


def flat_loss(lr: float, seed: int) -> float:
    return 0.2 + 0.05 * abs(math.log10(lr) + 2) + 0.02 * seed


def falling_loss(lr: float, seed: int) -> float:
    """Lowest at the highest rate: nothing becomes unstable."""
    return 0.5 - 0.1 * lr + 0.01 * seed


def growing_logit(lr: float, seed: int) -> float:
    return 10.0 * (1000.0 if lr >= 1.0 else 1.0) + seed


def steady_logit(lr: float, seed: int) -> float:
    return 8.0 + seed


def collapsing_entropy(lr: float, seed: int) -> float:
    return 0.01 + 0.001 * seed if lr > 1e-2 else 1.0 + 0.01 * seed


def high_entropy(lr: float, seed: int) -> float:
    return 1.5 + 0.01 * seed


def unrelated_entropy(lr: float, seed: int) -> float:
    """An entropy pattern nearly unrelated to the losses (Spearman's ρ -0.04 with them)."""
    return ((seed + round(math.log10(lr))) % 5) * 0.1 + 0.5


def alike(loss, entropy=None) -> tuple:
    """A method whose entropy is ``entropy`` (by default equal to its loss)."""
    return (loss, steady_logit, entropy or loss)


DEFAULTS = {
    "sqrt_d": (u_loss, growing_logit, collapsing_entropy),
    "qk_norm": (flat_loss, steady_logit, high_entropy),
    "sigma_reparam": (flat_loss, steady_logit, high_entropy),
}


def sweep(seeds: int = 3, lrs=LRS, widths=(16,), **behaviour) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The run table and the curves; ``behaviour`` maps a method to its (loss, largest logit,
    lowest entropy) functions of (lr, seed), or to a mapping from width to them. A loss at or
    above the initial one is a diverged run (NaN final loss)."""
    runs, curves = [], []
    for width in widths:
        for method in METHODS:
            chosen = behaviour.get(method, DEFAULTS[method])
            loss, logit, entropy = chosen[width] if isinstance(chosen, dict) else chosen
            for lr in lrs:
                for seed in range(seeds):
                    value = loss(lr, seed)
                    diverged = value >= INITIAL
                    runs.append(
                        {"width": width, "method": method, "seed": seed, "lr": lr,
                         "initial_loss": INITIAL, "final_loss": np.nan if diverged else value,
                         "diverged": diverged}
                    )  # fmt: skip
                    top, low, uniform = logit(lr, seed), entropy(lr, seed), math.log(LENGTH)
                    for step, share in ((0, 0.0), (50, 0.5), (100, 1.0)):
                        level = uniform + share * (low - uniform)
                        curves.append(
                            {"width": width, "method": method, "seed": seed, "lr": lr,
                             "step": step, "max_logit": 1.0 + share * (top - 1.0),
                             "entropy": level, "mean_entropy": level, "log_z": 0.0,
                             "train_loss": value}
                        )  # fmt: skip
    return pd.DataFrame(runs), pd.DataFrame(curves)
