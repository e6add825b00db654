"""The figures of the chapter on training stability (wortsman2024small, zhai2023stabilizing).

Each function takes the tables of :func:`attncore.training.stability.lr_sweep` and returns a
matplotlib figure; the methods the registry knows wear the colours and markers of
:func:`attncore.book.plotting.method_style`, the model options their own.

>>> import pandas as pd
>>> runs = pd.DataFrame({"width": 16, "method": "sqrt_d", "seed": [0, 0], "lr": [0.1, 1.0],
...                      "initial_loss": 2.0, "final_loss": [0.5, float("nan")],
...                      "diverged": [False, True]})
>>> curves = pd.DataFrame({"width": 16, "method": "sqrt_d", "seed": 0,
...                        "lr": [0.1, 0.1, 1.0, 1.0], "step": [0, 10] * 2,
...                        "max_logit": [1.0, 5.0, 1.0, 500.0], "log_z": [0.0, -3.0, 0.0, 9.0],
...                        "mean_entropy": [2.0, 0.5, 2.0, 0.0], "train_loss": 1.0})
>>> [len(f.axes) for f in (loss_against_rate(runs), over_training(curves, [0.1, 1.0], 10),
...                        output_logits(curves))]
[1, 4, 1]
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

__all__ = [
    "loss_against_rate",
    "output_logits",
    "over_training",
    "sensitivity_by_width",
    "sensitivity_table",
    "style",
]

_OPTIONS = {
    "soft_cap": ("#CC00CC", "P"),
    "sigma_reparam": ("#882255", "D"),
    "qk_layernorm": ("#E69F00", "X"),
    "z_loss": ("#555555", "v"),
}
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
    """Final validation loss (capped at the initial loss) against the peak learning rate, one
    panel per width: every seed a point, the mean a line, per method; the initial loss
    dotted."""
    table = capped(runs)
    widths = sorted(table["width"].unique())
    fig, axes = plt.subplots(1, len(widths), figsize=(4.2 * len(widths) + 1.0, 4.2),
                             sharey=True, squeeze=False)  # fmt: skip
    methods = list(dict.fromkeys(table["method"]))
    offsets = np.linspace(-0.06, 0.06, len(methods)) if len(methods) > 1 else [0.0]
    for ax, width in zip(axes[0], widths, strict=True):
        here = table[table["width"] == width]
        for method, shift in zip(methods, offsets, strict=True):
            own = here[here["method"] == method]
            look = style(method)
            means = own.groupby("lr")["loss"].mean()
            ax.plot(means.index, means.values, color=look["color"], marker=look["marker"],
                    label=look["label"], lw=1.5, ms=5)  # fmt: skip
            ax.scatter(own["lr"] * 10**shift, own["loss"], color=look["color"], s=10, alpha=0.45)
        ax.axhline(float(here["initial_loss"].mean()), color="0.4", ls=":", lw=1)
        ax.set_xscale("log")
        ax.set_xlabel("peak learning rate")
        ax.set_title(f"width {width}")
    axes[0, 0].set_ylabel("final validation loss (nats)")
    handles, labels = axes[0, 0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", ncol=4, fontsize=8)
    fig.tight_layout(rect=(0, 0.12, 1, 1))
    return fig


def sensitivity_by_width(
    sweeps: Mapping[str, pd.DataFrame],
) -> matplotlib.figure.Figure:
    """Learning-rate sensitivity against the width, one panel per sweep of ``sweeps`` (title
    to the table of :func:`attncore.evidence.stability.width_sensitivity`): per method, the
    sensitivity of the cell means with its bootstrap interval."""
    fig, axes = plt.subplots(1, len(sweeps), figsize=(4.4 * len(sweeps) + 1.0, 4.0),
                             sharey=True, squeeze=False)  # fmt: skip
    for ax, (title, table) in zip(axes[0], sweeps.items(), strict=True):
        methods = list(dict.fromkeys(table["method"]))
        offsets = np.linspace(-0.05, 0.05, len(methods)) if len(methods) > 1 else [0.0]
        for method, shift in zip(methods, offsets, strict=True):
            own = table[table["method"] == method].sort_values("width")
            look = style(method)
            x = own["width"] * 2**shift
            ax.errorbar(x, own["lr_sensitivity"],
                        yerr=[own["lr_sensitivity"] - own["lr_sensitivity_low"],
                              own["lr_sensitivity_high"] - own["lr_sensitivity"]],
                        color=look["color"], marker=look["marker"], label=look["label"],
                        lw=1.4, ms=5, capsize=2)  # fmt: skip
        ax.set_xscale("log", base=2)
        ax.set_xticks(
            sorted(table["width"].unique()), [str(w) for w in sorted(table["width"].unique())]
        )
        ax.set_xlabel("width (model dimension)")
        ax.set_title(title, fontsize=10)
    axes[0, 0].set_ylabel("learning-rate sensitivity (nats)")
    handles, labels = axes[0, 0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", ncol=4, fontsize=8)
    fig.tight_layout(rect=(0, 0.14, 1, 1))
    return fig


def output_logits(curves: pd.DataFrame) -> matplotlib.figure.Figure:
    """The mean ``log Z`` of the output logits at the end of training (``Z`` the sum of their
    exponentials; 0 where the logits are log-probabilities) against the peak learning rate,
    per method at the widest width: the mean over the seeds, on a symmetric log scale."""
    last = curves[curves["step"] == curves["step"].max()]
    last = last[last["width"] == last["width"].max()]
    fig, ax = plt.subplots(figsize=(7.0, 3.8))
    for method in dict.fromkeys(last["method"]):
        look = style(method)
        mean = last[last["method"] == method].groupby("lr")["log_z"].mean()
        ax.plot(mean.index, mean.values, color=look["color"], marker=look["marker"],
                label=look["label"], lw=1.4, ms=5)  # fmt: skip
    ax.axhline(0.0, color="0.4", ls=":", lw=1)
    ax.set_xscale("log")
    ax.set_yscale("symlog", linthresh=1.0)
    ax.set_xlabel("peak learning rate")
    ax.set_ylabel("mean log Z at the end")
    ax.legend(fontsize=8, ncol=4, loc="upper center", bbox_to_anchor=(0.5, -0.2))
    fig.tight_layout()
    return fig


def over_training(
    curves: pd.DataFrame, rates: Sequence[float], length: int
) -> matplotlib.figure.Figure:
    """The largest attention logit (top row, log scale) and the attention entropy, the mean
    over heads and layers (bottom row, with ln L dashed), along training at each of
    ``rates``: the mean over the seeds per method."""
    fig, axes = plt.subplots(2, len(rates), figsize=(3.3 * len(rates) + 2.4, 5.4), sharex=True,
                             squeeze=False)  # fmt: skip
    for column, rate in enumerate(rates):
        here = curves[np.isclose(curves["lr"], rate)]
        for method in dict.fromkeys(curves["method"]):
            look = style(method)
            columns = ["max_logit", "mean_entropy"]
            mean = here[here["method"] == method].groupby("step")[columns].mean()
            axes[0, column].plot(mean.index, mean["max_logit"], color=look["color"],
                                 label=look["label"], lw=1.4)  # fmt: skip
            axes[1, column].plot(mean.index, mean["mean_entropy"], color=look["color"], lw=1.4)
        axes[0, column].set_yscale("log")
        axes[0, column].set_title(f"peak rate {rate:.2g}")
        axes[1, column].axhline(math.log(length), color="0.4", ls="--", lw=1)
        axes[1, column].set_xlabel("step")
    axes[0, 0].set_ylabel("largest |logit|")
    axes[1, 0].set_ylabel("mean attention entropy (nats)")
    handles, labels = axes[0, 0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="center right", fontsize=8)
    fig.tight_layout(rect=(0, 0, 0.82, 1))
    return fig


def sensitivity_table(runs: pd.DataFrame, labels: Mapping[str, str] = LABELS) -> pd.DataFrame:
    """The page's table: per method, the learning-rate sensitivity (mean ± standard deviation
    over the seeds), the best rate, the loss there and the runs whose loss turned non-finite."""
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
                "non-finite runs": f"{int(own['diverged'].sum())} of {len(own)}",
            }
        )
    return pd.DataFrame(rows)
