"""Figures and reader-facing tables of the softmax-saturation chapter.

>>> import numpy as np
>>> frame = matrix_frame(np.eye(2) / 3, decimals=3)
>>> frame.to_dict()
{'s1': {'s1': 0.333, 's2': 0.0}, 's2': {'s1': 0.0, 's2': 0.333}}
"""

from __future__ import annotations

from collections.abc import Sequence

import matplotlib.figure
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from attncore.book.plotting import method_style
from attncore.simulate.saturation import ROW_METRICS

__all__ = [
    "curve_table",
    "matrix_frame",
    "probability_table",
    "saturation_figure",
]

CURVE = "black"
"""Colour of the measured curves (not a rescaling, so none of the methods' colours)."""


def matrix_frame(matrix: np.ndarray, decimals: int) -> pd.DataFrame:
    """A square matrix as a table with rows and columns ``s1, s2, ...``, rounded."""
    labels = [f"s{i + 1}" for i in range(matrix.shape[0])]
    return pd.DataFrame(np.round(matrix, decimals), index=labels, columns=labels)


def probability_table(
    y: Sequence[float], factor: float, s: np.ndarray, s_scaled: np.ndarray, decimals: int
) -> pd.DataFrame:
    """The worked example's logits and probabilities, one row per key.

    >>> probability_table([0.0, 0.0], 2.0, np.array([0.5, 0.5]), np.array([0.5, 0.5]), 3)
    ... # doctest: +NORMALIZE_WHITESPACE
             y  softmax(y)  2 y  softmax(2 y)
    key 1  0.0         0.5  0.0           0.5
    key 2  0.0         0.5  0.0           0.5
    """
    y_vec = np.asarray(y, dtype=float)
    return pd.DataFrame(
        {
            "y": y_vec,
            "softmax(y)": np.round(s, decimals),
            f"{factor:g} y": factor * y_vec,
            f"softmax({factor:g} y)": np.round(s_scaled, decimals),
        },
        index=[f"key {i + 1}" for i in range(len(y_vec))],
    )


def curve_table(curve: pd.DataFrame, spreads: Sequence[float]) -> pd.DataFrame:
    """The rows of ``curve`` nearest to each of ``spreads`` (log scale), rounded for readers.

    >>> curve = pd.DataFrame({"spread": [0.1, 1.0, 10.0], "entropy_ratio": [1.0, 0.9, 0.2],
    ...     "max_probability": [0.02, 0.1, 0.8], "effective_keys": [63.0, 40.0, 1.5],
    ...     "jacobian_norm": [0.124, 0.18, 0.17], "jacobian_norm_se": [0.0, 0.0003, 0.003],
    ...     "saturated": [0.0, 0.0, 0.5]})
    >>> curve_table(curve, [1.2, 9.0]).index.tolist()
    [1.0, 10.0]
    """
    log_grid = np.log(curve["spread"].to_numpy())
    picks = sorted({int(np.abs(log_grid - np.log(s)).argmin()) for s in spreads})
    table = curve.iloc[picks]
    shown = pd.DataFrame(
        {
            "entropy / ln n": table["entropy_ratio"].round(3),
            "largest probability": table["max_probability"].round(3),
            "effective keys": table["effective_keys"].round(1),
            "Jacobian norm": table["jacobian_norm"].round(4),
            "± s.e.": table["jacobian_norm_se"].round(4),
            "saturated share": table["saturated"].round(3),
        }
    )
    shown.index = pd.Index(table["spread"].round(3).to_numpy(), name="spread σ")
    return shown


def saturation_figure(
    curve: pd.DataFrame, n_keys: int, n_rows: int, uniform_norm: float
) -> matplotlib.figure.Figure:
    """Entropy, largest probability and Jacobian norm against the logit spread (log scale),
    with ±2 standard-error bands and the spreads of 1/√d-scaled and unscaled logits."""
    scaled, unscaled = method_style("sqrt_d"), method_style("none")
    fig, axes = plt.subplots(1, 3, figsize=(12, 4.6), sharex=True, layout="constrained")
    for ax, metric in zip(axes, ["entropy_ratio", "max_probability", "jacobian_norm"], strict=True):
        mean, se = curve[metric], curve[f"{metric}_se"]
        ax.plot(curve["spread"], mean, color=CURVE)
        ax.fill_between(curve["spread"], mean - 2 * se, mean + 2 * se, color=CURVE, alpha=0.2, lw=0)
        ax.set_xscale("log")
        ax.set_title(ROW_METRICS[metric])
        ax.set_xlabel(r"logit spread $\sigma$")
        ax.axvline(
            1.0, color=scaled["color"], ls="--", lw=1.2, label=rf"{scaled['label']}: $\sigma = 1$"
        )
        for d, style in [(64, ":"), (512, "-.")]:
            ax.axvline(
                np.sqrt(d),
                color=unscaled["color"],
                ls=style,
                lw=1.2,
                label=rf"{unscaled['label']} (unscaled), $d={d}$: $\sigma={np.sqrt(d):.1f}$",
            )
    uniform = axes[2].axhline(uniform_norm, color="#AAAAAA", lw=1, label="uniform attention")
    axes[0].set_ylim(0, 1.02)
    axes[1].set_ylim(0, 1.02)
    handles, labels = axes[0].get_legend_handles_labels()
    # one legend under the panels, clear of the curves
    fig.legend(
        [*handles, uniform],
        [*labels, uniform.get_label()],
        loc="outside lower center",
        ncol=2,
        fontsize=8,
        frameon=False,
    )
    fig.suptitle(
        f"Softmax of n = {n_keys} logits drawn iid N(0, $\\sigma^2$), mean over {n_rows} rows"
    )
    return fig
