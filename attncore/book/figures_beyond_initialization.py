"""The figures of the chapter "Beyond initialization", one function each.

Every rescaling is drawn with its colour, marker and label from
:func:`attncore.book.plotting.method_style`.

>>> import pandas as pd
>>> t = pd.DataFrame({"weight growth": [1.0, 2.0], "rescaling": ["sqrt_d"] * 2,
...                   "sd of scaled logits": [1.0, 4.0], "entropy / ln n": [0.8, 0.5],
...                   "largest probability": [0.2, 0.6]})
>>> weight_growth_figure(t, "title").axes[0].get_yscale()
'log'
"""

from __future__ import annotations

from collections.abc import Mapping

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from attncore.book.plotting import CONTRAST, method_style
from attncore.sources.chuang import BetaSearchResult

__all__ = [
    "aligned_keys_figure",
    "beta_search_figure",
    "fixed_weights_table",
    "standard_init_figure",
    "weight_growth_figure",
]

_GROWTH_PANELS = ["sd of scaled logits", "entropy / ln n", "largest probability"]


def weight_growth_figure(table: pd.DataFrame, title: str) -> Figure:
    """Logit sd (log scale), entropy ratio and largest probability against the weight growth,
    one line per rescaling, with the relaxed formula's ``growth^2`` on the left."""
    fig, axes = plt.subplots(1, 3, figsize=(13, 4.8), sharex=True, layout="constrained")
    for name, part in table.groupby("rescaling", sort=False):
        style = method_style(str(name))
        for ax, column in zip(axes, _GROWTH_PANELS, strict=True):
            ax.plot(part["weight growth"], part[column], **style)
    for ax, column in zip(axes, _GROWTH_PANELS, strict=True):
        ax.set(xlabel=r"$\sigma_W$ / initial $\sigma_W$", title=column)
    growth = np.unique(table["weight growth"])
    axes[0].plot(growth, growth**2, color="grey", ls=":", label=r"$(\sigma_W/\sigma_{init})^2$")
    axes[0].set_yscale("log")
    handles, labels = axes[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="outside lower center", ncol=len(labels), fontsize=8)
    axes[1].set_ylim(0, 1.02)
    axes[2].set_ylim(0, 1.02)
    fig.suptitle(title)
    return fig


def fixed_weights_table(conditional: np.ndarray, structured: pd.DataFrame, d_x: int) -> str:
    """A Markdown table of the variance of the scaled logit given the weights: over the
    random draws ``conditional`` (median and 5-95 % range), for each pair of ``structured``
    (rows of :func:`attncore.simulate.weights.structured_weight_table`) with whether it
    lies in that range, and Chuang's value 1.

    >>> t = pd.DataFrame({"weights": ["rank one"], "entry sd of W_q": [0.125],
    ...                   "entry sd of W_k": [0.125], "Var(q·k/√d_k | W)": [16.0]})
    >>> table = fixed_weights_table(np.array([0.8, 1.0, 1.2]), t, 64).splitlines()
    >>> table[2].split(" | ")[-2:]
    ['1.00 (0.82 to 1.18)', '|']
    >>> table[3]
    '| rank one | 0.125 | 0.125 | 16.00 | no |'
    >>> table[4]
    "| Chuang's formula at the initial sd | | | 1.00 | yes |"
    """
    low, median, high = np.quantile(conditional, [0.05, 0.5, 0.95])
    sd = f"{1 / np.sqrt(d_x):.4g} (drawn)"

    def inside(value: float) -> str:
        return "yes" if low <= value <= high else "no"

    rows = [
        [
            f"{len(conditional):,} random draws: median (5-95 % range)",
            sd,
            sd,
            f"{median:.2f} ({low:.2f} to {high:.2f})",
            "",
        ],
        *(
            [
                str(r["weights"]),
                f"{r['entry sd of W_q']:.4g}",
                f"{r['entry sd of W_k']:.4g}",
                f"{r['Var(q·k/√d_k | W)']:.2f}",
                inside(r["Var(q·k/√d_k | W)"]),
            ]
            for _, r in structured.iterrows()
        ),
        ["Chuang's formula at the initial sd", "", "", "1.00", inside(1.0)],
    ]
    head = [
        "weights",
        "entry sd of W_q",
        "entry sd of W_k",
        "Var(q·k/√d ∣ W_q, W_k)",
        "within the random draws' 5-95 % range",
    ]
    lines = [head, [":--", "--:", "--:", "--:", ":--"], *rows]
    return "\n".join("| " + " | ".join(cells) + " |" for cells in lines).replace("|  |", "| |")


def aligned_keys_figure(table: pd.DataFrame, limits: Mapping[float, float], n_keys: int) -> Figure:
    """Mean weight on the aligned key (``± 2`` standard errors) against the width, one line
    per scaling and correlation; ``limits`` maps each correlation to its ``1/d`` limit."""
    fig, ax = plt.subplots(figsize=(7.5, 4))
    dashes = ["-", "--", ":", "-."]
    rhos = list(dict.fromkeys(table["rho"]))
    for (rho, scaling), part in table.groupby(["rho", "scaling"], sort=False):
        style = method_style(str(scaling))
        style["label"] = rf"{style['label']}, $\rho$ = {rho:g}"
        ls = dashes[rhos.index(rho) % len(dashes)]
        ax.errorbar(part["d"], part["weight"], yerr=2 * part["se"], ls=ls, **style)
        if scaling == "mup":
            ax.axhline(limits[rho], color=style["color"], lw=0.8, ls=ls, alpha=0.6)
    ax.axhline(1 / n_keys, color="grey", lw=0.8, label="uniform: 1/n")
    ax.set(xscale="log", xlabel="width d", ylabel="mean weight on the aligned key", ylim=(0, 1.02))
    ax.legend(fontsize=8, ncol=2)
    return fig


def beta_search_figure(
    betas: np.ndarray,
    values: np.ndarray,
    search: BetaSearchResult,
    beta_star: float,
    noisy: pd.DataFrame,
    shares: Mapping[int, float],
    miss_decades: float,
) -> Figure:
    """Left: the objective with the points the search evaluated (decade scan, then
    golden-section search). Right: how far each noisy search ended from the optimum, per
    subsample size, with the share of misses (``shares``) under each size, clear of the
    dots."""
    fig, (ax, ax_err) = plt.subplots(
        1, 2, figsize=(12, 5.2), gridspec_kw={"width_ratios": [3, 2]}, layout="constrained"
    )
    ax.plot(betas, values, color="grey", lw=1, label="objective (mean log-likelihood)")
    seen_betas, seen_values = zip(*search.history, strict=True)
    scan = search.scan_evaluations
    ax.scatter(
        seen_betas[:scan], seen_values[:scan], color=CONTRAST[0], zorder=3, label="decade scan"
    )
    ax.scatter(
        seen_betas[scan:],
        seen_values[scan:],
        color=CONTRAST[1],
        marker="s",
        s=14,
        zorder=3,
        label="golden-section search",
    )
    ax.axvline(beta_star, color=CONTRAST[2], ls="--", lw=1, label=rf"$\beta^*$ = {beta_star:g}")
    ax.axvline(search.beta, color=CONTRAST[0], ls=":", lw=1.5, label=rf"found: {search.beta:.3f}")
    top = float(values.max())
    ax.set(
        xscale="log", xlabel=r"$\beta$", ylabel="mean log-likelihood", ylim=(top - 2.5, top + 0.1)
    )
    ax.legend(fontsize=8, loc="upper center", bbox_to_anchor=(0.5, -0.18), ncol=3)
    for position, (_, part) in enumerate(noisy.groupby("items")):
        jitter = np.random.default_rng(0).uniform(-0.15, 0.15, len(part))  # spreads the dots
        ax_err.scatter(
            position + jitter, part["error"], s=8, alpha=0.5, color=CONTRAST[position % 2]
        )
    ax_err.axhline(miss_decades, color="k", lw=1, ls="--")
    ax_err.annotate(  # the line named beside the axes, off the dots
        f"miss:\n{miss_decades:g}\ndecade",
        xy=(1, miss_decades),
        xycoords=("axes fraction", "data"),
        xytext=(4, 0),
        textcoords="offset points",
        ha="left",
        va="center",
        fontsize=9,
        annotation_clip=False,
    )
    sizes = sorted(noisy["items"].unique())
    ax_err.set(
        xticks=range(len(sizes)),
        xticklabels=[f"{i}\n{100 * shares[int(i)]:.0f} % miss" for i in sizes],
        yscale="log",
        xlabel="items per evaluation",
        ylabel=r"$|\log_{10}(\beta_{found}/\hat\beta)|$",
        title="Noisy objective",
    )
    return fig


def standard_init_figure(table: pd.DataFrame, d_x: int, d_k: int) -> Figure:
    """Variance of one weight entry (left) and of the Q and K entries on unit-variance tokens
    (right) per initializer, log scale, with +-2 standard errors and the documented formula
    (open marker); the dashed line is the 1 of the blog (left) and of Chuang (right).

    >>> import pandas as pd
    >>> t = pd.DataFrame({"label": ["a"], "default": [True], "weight variance": [0.01],
    ...     "weight variance SE": [1e-4], "weight variance (formula)": [0.01],
    ...     "Q variance": [0.5], "Q variance SE": [0.01], "K variance": [0.5],
    ...     "K variance SE": [0.01], "Q, K variance (formula)": [0.5]})
    >>> len(standard_init_figure(t, 8, 4).axes)
    2
    """
    fig, axes = plt.subplots(
        1, 2, figsize=(12, 0.6 * len(table) + 3.0), sharey=True, layout="constrained"
    )
    y = np.arange(len(table))[::-1]
    colours = ["black" if d else "grey" for d in table["default"]]
    panels = [
        (
            axes[0],
            [("weight variance", 0.0)],
            "weight variance (formula)",
            "weight (entry of $W_q$, $W_k$)",
            "blog: 1",
        ),
        (
            axes[1],
            [("Q variance", 0.12), ("K variance", -0.12)],
            "Q, K variance (formula)",
            "Q and K entries",
            "Chuang: 1",
        ),
    ]
    for ax, columns, formula, title, one in panels:
        for column, shift in columns:
            marker = "o" if column != "K variance" else "s"
            ax.errorbar(
                table[column], y + shift, xerr=2 * table[f"{column} SE"], fmt="none", ecolor=colours
            )
            ax.scatter(
                table[column],
                y + shift,
                c=colours,
                marker=marker,
                zorder=3,
                label=column.split()[0],
            )
        ax.scatter(
            table[formula],
            y,
            facecolors="none",
            edgecolors="tab:red",
            s=90,
            zorder=2,
            label="documented formula",
        )
        ax.axvline(1.0, color="grey", ls="--", label=one)
        ax.set(xscale="log", title=title, xlabel="variance (log scale)")
        # below the axes: the points span the whole width
        ax.legend(fontsize=8, loc="upper center", bbox_to_anchor=(0.5, -0.22), ncol=2)
    axes[0].set_yticks(y, table["label"])
    fig.suptitle(f"Fresh initializations, unit-variance tokens: d_x = {d_x}, d = {d_k}")
    return fig
