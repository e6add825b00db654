"""The figures of the chapter on training stability (wortsman2024small, zhai2023stabilizing).

Each function takes the tables of :func:`attncore.training.stability.lr_sweep` and returns a
matplotlib figure; the methods the registry knows wear the colours and markers of
:func:`attncore.book.plotting.method_style`, the model options their own.

>>> import pandas as pd
>>> runs = pd.DataFrame({"method": "sqrt_d", "seed": [0, 0], "lr": [0.1, 1.0],
...                      "initial_loss": 2.0, "final_loss": [0.5, float("nan")],
...                      "diverged": [False, True]})
>>> curves = pd.DataFrame({"method": "sqrt_d", "seed": 0, "lr": [0.1, 0.1, 1.0, 1.0],
...                        "step": [0, 10] * 2, "max_logit": [1.0, 5.0, 1.0, 500.0],
...                        "entropy": [2.0, 0.5, 2.0, 0.0], "train_loss": 1.0})
>>> [len(f.axes) for f in (loss_against_rate(runs), over_training(curves, [0.1, 1.0], 10))]
[1, 4]
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import matplotlib.figure
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from attncore.book.plotting import method_style
from attncore.claims.rules.stability import LABELS
from attncore.evidence.stability import best_rates, capped, lr_sensitivity

__all__ = ["loss_against_rate", "over_training", "sensitivity_table", "style"]

_OPTIONS = {"soft_cap": ("#CC00CC", "P"), "sigma_reparam": ("#882255", "D")}
"""Colours and markers of the methods that are model options rather than registered
rescalings."""


def style(method: str) -> dict[str, Any]:
    """Colour, marker and label of a method of the sweep.

    >>> style("sigma_reparam")["label"], style("sqrt_d")["label"]
    ('σReparam', '1/√d')
    """
    if method in _OPTIONS:
        color, marker = _OPTIONS[method]
    else:
        found = method_style(
            {"qk_norm": "qk_norm_learned", "cosine": "cosine_learned"}.get(method, method)
        )
        color, marker = found["color"], found["marker"]
    return {"color": color, "marker": marker, "label": LABELS.get(method, method)}


def loss_against_rate(runs: pd.DataFrame) -> matplotlib.figure.Figure:
    """Final validation loss (capped at the initial loss) against the peak learning rate:
    every seed a point, the mean a line, per method; the initial loss dotted."""
    table = capped(runs)
    fig, ax = plt.subplots(figsize=(7.5, 4.2))
    methods = list(dict.fromkeys(table["method"]))
    offsets = np.linspace(-0.06, 0.06, len(methods)) if len(methods) > 1 else [0.0]
    for method, shift in zip(methods, offsets, strict=True):
        own = table[table["method"] == method]
        look = style(method)
        means = own.groupby("lr")["loss"].mean()
        ax.plot(means.index, means.values, color=look["color"], marker=look["marker"],
                label=look["label"], lw=1.5, ms=5)  # fmt: skip
        ax.scatter(own["lr"] * 10**shift, own["loss"], color=look["color"], s=10, alpha=0.45)
    ax.axhline(float(table["initial_loss"].mean()), color="0.4", ls=":", lw=1)
    ax.set_xscale("log")
    ax.set_xlabel("peak learning rate")
    ax.set_ylabel("final validation loss (nats)")
    ax.set_title("Final loss against the learning rate (points: seeds; dotted: initial loss)")
    ax.legend(fontsize=8, ncol=2)
    fig.tight_layout()
    return fig


def over_training(
    curves: pd.DataFrame, rates: Sequence[float], length: int
) -> matplotlib.figure.Figure:
    """The largest attention logit (top row, log scale) and the lowest head's attention
    entropy (bottom row, with ln L dashed) along training at each of ``rates``: the mean
    over the seeds per method."""
    fig, axes = plt.subplots(2, len(rates), figsize=(3.3 * len(rates) + 2.4, 5.4), sharex=True,
                             squeeze=False)  # fmt: skip
    for column, rate in enumerate(rates):
        here = curves[np.isclose(curves["lr"], rate)]
        for method in dict.fromkeys(curves["method"]):
            look = style(method)
            mean = here[here["method"] == method].groupby("step")[["max_logit", "entropy"]].mean()
            axes[0, column].plot(mean.index, mean["max_logit"], color=look["color"],
                                 label=look["label"], lw=1.4)  # fmt: skip
            axes[1, column].plot(mean.index, mean["entropy"], color=look["color"], lw=1.4)
        axes[0, column].set_yscale("log")
        axes[0, column].set_title(f"peak rate {rate:.2g}")
        axes[1, column].axhline(math.log(length), color="0.4", ls="--", lw=1)
        axes[1, column].set_xlabel("step")
    axes[0, 0].set_ylabel("largest |logit|")
    axes[1, 0].set_ylabel("lowest head's entropy (nats)")
    handles, labels = axes[0, 0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="center right", fontsize=8)
    fig.tight_layout(rect=(0, 0, 0.82, 1))
    return fig


def sensitivity_table(runs: pd.DataFrame, labels: Mapping[str, str] = LABELS) -> pd.DataFrame:
    """The page's table: per method, the learning-rate sensitivity (mean ± standard deviation
    over the seeds), the best rate, the loss there and the diverged runs."""
    sens = lr_sensitivity(runs)
    table = capped(runs)
    best = best_rates(table)
    rows = []
    for method, group in sens.groupby("method", sort=False):
        at_best = table[(table["method"] == method) & (table["lr"] == best[method])]["loss"]
        own = runs[runs["method"] == method]
        rows.append(
            {
                "method": labels.get(method, method),
                "LR sensitivity": f"{group['sensitivity'].mean():.3f}"
                + (f" ± {group['sensitivity'].std(ddof=1):.3f}" if len(group) > 1 else ""),
                "best rate": f"{best[method]:.2g}",
                "loss at the best rate": f"{at_best.mean():.2g}"
                + (f" ± {at_best.std(ddof=1):.1g}" if len(at_best) > 1 else ""),
                "diverged runs": f"{int(own['diverged'].sum())} of {len(own)}",
            }
        )
    return pd.DataFrame(rows)
