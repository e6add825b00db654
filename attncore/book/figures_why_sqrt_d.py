"""The figures of the chapter "Why sqrt(d)": simulated moments and densities beside closed forms.

Each function takes the tables the chapter computed and returns a matplotlib figure; the
colours of the unscaled and the 1/sqrt(d)-scaled logits are those of
:func:`attncore.book.plotting.method_style`.

>>> import pandas as pd
>>> table = pd.DataFrame({"variance": [1.0, 4.1], "variance se": [0.01, 0.05],
...                       "kurtosis": [9.1, 4.4], "kurtosis se": [0.3, 0.1]}, index=[1, 4])
>>> len(variance_and_kurtosis(table).axes)
2
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

import matplotlib.figure
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from attncore.book.plotting import CONTRAST, method_style
from attncore.simulate.montecarlo import HistogramFit

__all__ = ["exact_density", "projected_variance", "variance_and_kurtosis"]


def variance_and_kurtosis(moments: pd.DataFrame) -> matplotlib.figure.Figure:
    """Simulated ``Var(q.k)`` and ``Var(q.k / sqrt d)`` against ``d`` and 1 (left), excess
    kurtosis against ``6/d`` (right), with ``+-2`` standard errors, one legend below both;
    ``moments`` is indexed by ``d`` with the columns of
    :meth:`~attncore.simulate.montecarlo.ClosedFormComparison.row`.
    """
    fig, (ax_var, ax_kurt) = plt.subplots(1, 2, figsize=(11, 4.8), layout="constrained")
    ds = moments.index.to_numpy(dtype=float)
    grid = np.geomspace(ds.min(), ds.max(), 100)
    none, scaled = method_style("none")["color"], method_style("sqrt_d")["color"]
    var, se = moments["variance"].to_numpy(), moments["variance se"].to_numpy()
    ax_var.errorbar(ds, var, yerr=2 * se, fmt="o", color=none, label=r"simulated Var($q\cdot k$)")
    ax_var.errorbar(
        ds,
        var / ds,
        yerr=2 * se / ds,
        fmt="s",
        color=scaled,
        label=r"simulated Var($q\cdot k/\sqrt{d}$)",
    )
    ax_var.plot(grid, grid, color=none, lw=1, label="closed form: d")
    ax_var.plot(grid, np.ones_like(grid), color=scaled, lw=1, label="closed form: 1")
    ax_var.set(
        xscale="log", yscale="log", xlabel="d", ylabel="variance", title="Variance of the logit"
    )
    ax_kurt.errorbar(
        ds,
        moments["kurtosis"] - 3,
        yerr=2 * moments["kurtosis se"],
        fmt="o",
        color=CONTRAST[0],
        label="simulated excess kurtosis",
    )
    ax_kurt.plot(grid, 6 / grid, color=CONTRAST[0], lw=1, label="closed form: 6/d")
    ax_kurt.axhline(0, color="grey", lw=0.8)
    ax_kurt.set(
        xscale="log",
        xlabel="d",
        ylabel="kurtosis - 3",
        title=r"Tails of $q\cdot k$, standard normal components",
    )
    handles = [h for ax in (ax_var, ax_kurt) for h in ax.get_legend_handles_labels()[0]]
    fig.legend(handles=handles, loc="outside lower center", ncol=3, frameon=False)
    return fig


def exact_density(
    fits: Mapping[int, HistogramFit], pdf: Callable[[np.ndarray, int], np.ndarray]
) -> matplotlib.figure.Figure:
    """One panel per ``d``: the histogram of ``q.k / sqrt d``, its exact density ``pdf(x, d)``
    and N(0, 1)."""
    fig, axes = plt.subplots(1, len(fits), figsize=(4 * len(fits), 3.8), layout="constrained")
    axes = np.atleast_1d(axes)
    x = np.linspace(-5, 5, 801)
    for ax, (d, fit) in zip(axes, fits.items(), strict=True):
        exact = pdf(x, d)
        ax.bar(fit.centres, fit.density, width=fit.width, color=CONTRAST[3], label="simulated")
        ax.plot(x, exact, color=CONTRAST[0], lw=1.5, label="exact variance-gamma density")
        normal = np.exp(-(x**2) / 2) / np.sqrt(2 * np.pi)
        ax.plot(x, normal, color=CONTRAST[2], ls="--", lw=1, label="N(0, 1)")
        top = max(0.8, 1.1 * exact[np.abs(x) > 0.05].max())
        ax.set(title=f"d = {d}", xlabel=r"$q\cdot k/\sqrt{d}$", ylim=(0, top))
    handles, _ = axes[0].get_legend_handles_labels()
    fig.legend(handles=handles, loc="outside lower center", ncol=3, fontsize=8, frameon=False)
    return fig


def projected_variance(
    projection: pd.DataFrame, d_x: int, d_k: int, self_factor: float
) -> matplotlib.figure.Figure:
    """``Var(q.k)`` for projected tokens against Chuang's formula (left) and the ratio to it
    with the derived self-attention factor (right). ``projection`` has the columns
    ``sigma_W``, ``pair``, ``variance``, ``variance se`` and ``Chuang's formula``."""
    fig, (ax, ax_ratio) = plt.subplots(1, 2, figsize=(11, 4.6), layout="constrained")
    for pair, colour, marker in [
        ("two tokens", CONTRAST[0], "o"),
        ("token with itself", CONTRAST[1], "s"),
    ]:
        part = projection[projection["pair"] == pair]
        formula = part["Chuang's formula"]
        style = {"fmt": marker, "color": colour, "label": f"simulated, {pair}"}
        ax.errorbar(part["sigma_W"], part["variance"], yerr=2 * part["variance se"], **style)
        ax_ratio.errorbar(
            part["sigma_W"],
            part["variance"] / formula,
            yerr=2 * part["variance se"] / formula,
            capsize=3,
            **style,
        )
    two = projection[projection["pair"] == "two tokens"].sort_values("sigma_W")
    ax.plot(
        two["sigma_W"], two["Chuang's formula"], color=CONTRAST[0], lw=1, label="Chuang's formula"
    )
    ax.set(
        xscale="log",
        yscale="log",
        xlabel=r"weight standard deviation $\sigma_W$",
        ylabel=r"Var($q\cdot k$)",
        title=f"Projected tokens, $d_x$ = {d_x}, $d_k$ = {d_k}",
    )
    ax_ratio.axhline(1.0, color=CONTRAST[0], lw=1, label="Chuang's formula")
    label = f"derived self-attention factor {self_factor:.3f}"
    ax_ratio.axhline(self_factor, color=CONTRAST[1], lw=1, ls="--", label=label)
    ax_ratio.set(
        xscale="log",
        xlabel=r"weight standard deviation $\sigma_W$",
        ylabel="simulated / Chuang's formula",
        title=r"Ratio to Chuang's formula ($\pm 2$ se)",
    )
    by_label = {}
    for axis in (ax, ax_ratio):
        for handle, name in zip(*axis.get_legend_handles_labels(), strict=True):
            by_label.setdefault(name, handle)
    fig.legend(
        handles=list(by_label.values()),
        loc="outside lower center",
        ncol=2,
        fontsize=8,
        frameon=False,
    )
    return fig
