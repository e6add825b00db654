"""The figures of the chapter on the critical scale (chen2025critical).

Each function takes the sweep of :func:`attncore.simulate.simplex.critical_sweep` (and the
boundaries of :func:`attncore.evidence.critical_scale.boundary_table`) and returns a
matplotlib figure; 1/√d and ln n/√d wear the colours and markers of
:func:`attncore.book.plotting.method_style`.

>>> from attncore.simulate.simplex import critical_sweep
>>> from attncore.evidence.critical_scale import boundary_table
>>> table = critical_sweep([16, 32], [0.3, 0.6], [0.5, 1.0, 2.0, 4.0], d=8, n_draws=2,
...                        n_probes=4, seed=0)
>>> bounds = boundary_table(table)
>>> figures = [phase_diagram(table, bounds), sharpening(table, [0.3]),
...            scales_against_n(table, bounds, d=8)]
>>> [len(f.axes) for f in figures]
[2, 1, 2]

The sweep across ``d`` (:func:`attncore.simulate.simplex.dimension_sweep` and
:func:`~attncore.simulate.simplex.gradient_sweep`) has a figure of its own:

>>> from attncore.evidence.critical_scale import boundary_by_d, gain_table
>>> from attncore.simulate.simplex import dimension_sweep, gradient_sweep
>>> across = dimension_sweep(32, [0.3, 0.6], [0.5, 1.0, 2.0, 4.0], [8, 16], 2, 4, seed=0)
>>> gains = gain_table(gradient_sweep(32, [0.3, 0.6], [0.5, 2.0], [8, 16], 2, 4, seed=0))
>>> len(across_d(boundary_by_d(across), gains).axes)
2
"""

from __future__ import annotations

from collections.abc import Sequence

import matplotlib.figure
import matplotlib.patheffects as effects
import matplotlib.pyplot as plt
import matplotlib.ticker as ticker
import numpy as np
import pandas as pd

from attncore.book.plotting import CONTRAST, method_style

__all__ = [
    "across_d",
    "boundary_by",
    "boundary_data",
    "boundary_with_d",
    "phase_diagram",
    "scales_against_n",
    "sharpening",
]

_SCALES = ("sqrt_d", "log_n")


def _inks(count: int) -> list[tuple[str, object]]:
    """Grey inks and line styles for ``count`` values of a contrast (darkest last)."""
    greys = np.linspace(0.7, 0.1, count) if count > 1 else [0.1]
    lines = ["-", "--", "-.", ":"]
    return [(str(round(float(g), 2)), lines[(count - 1 - i) % 4]) for i, g in enumerate(greys)]


def _mean_grid(table: pd.DataFrame, n: int) -> pd.DataFrame:
    """The mean angle ratio over the draws at ``n``: rows ``gamma``, columns ``rho``."""
    rows = table[(table["scale"] == "grid") & (table["n"] == n)]
    return rows.groupby(["gamma", "rho"])["angle_ratio"].mean().unstack("rho")


def _edges(values: np.ndarray, log: bool) -> np.ndarray:
    """Cell edges around sorted centres (midpoints; in logs when ``log``)."""
    x = np.log(values) if log else values
    if len(x) == 1:
        inner, step = x, 0.5
        edges = np.array([x[0] - step, x[0] + step])
    else:
        inner = (x[1:] + x[:-1]) / 2
        edges = np.concatenate([[2 * x[0] - inner[0]], inner, [2 * x[-1] - inner[-1]]])
    return np.exp(edges) if log else edges


def _spread(values: Sequence[float], count: int = 3) -> list[float]:
    """At most ``count`` of ``values``, spread over them (first, middle, last).

    >>> _spread([0.1, 0.2, 0.3, 0.4, 0.5])
    [0.1, 0.3, 0.5]
    """
    if len(values) <= count:
        return list(values)
    return [values[round(i * (len(values) - 1) / (count - 1))] for i in range(count)]


def boundary_by(bounds: pd.DataFrame, by: str = "n") -> pd.DataFrame:
    """The measured boundary as a table for the page: one row per ``rho`` with
    ``1/(1 - rho)``, then per value of ``by`` (a column of ``bounds``: ``n``, or ``d`` for
    :func:`~attncore.evidence.critical_scale.boundary_by_d`) the boundary over
    ``1/(1 - rho)`` with its interval (none where a single draw bracketed the crossing).

    >>> bounds = pd.DataFrame({"n": [64, 512], "rho": 0.5, "gamma_c": 2.0, "x": [1.01, 1.02],
    ...                        "x_low": [1.0, np.nan], "x_high": [1.02, np.nan],
    ...                        "draws": [2, 1]})
    >>> boundary_by(bounds).iloc[0, 1:].tolist()
    ['1.010 (1.000 to 1.020)', '1.020 (one draw, no interval)']
    """
    table = bounds.pivot_table(index="rho", columns=by, values="gamma_c").iloc[:, :1]
    table.columns = ["$1/(1 - \\rho)$"]
    for value, group in bounds.groupby(by):
        cells = group.set_index("rho")
        table[f"{by} = {value:,}"] = [
            _boundary_cell(row) for _, row in cells.loc[table.index].iterrows()
        ]
    return table.rename_axis("$\\rho$")


def boundary_data(bounds: pd.DataFrame) -> pd.DataFrame:
    """The numbers of :func:`boundary_by` for the download: one row per ``(rho, n)`` (and
    ``d``, where ``bounds`` has that column), the boundary in units of ``1/(1 - rho)`` and its
    interval as numbers (empty where the page says there is none), and the draws that
    bracketed a crossing.

    >>> bounds = pd.DataFrame({"n": [64], "rho": 0.5, "gamma_c": 2.0, "x": [1.01],
    ...                        "x_low": [1.0], "x_high": [1.02], "draws": [2]})
    >>> list(boundary_data(bounds).columns)[:4]
    ['ρ', 'n', '1/(1 − ρ)', 'boundary over 1/(1 − ρ)']
    """
    keys = ["rho", "n", *(["d"] if "d" in bounds else [])]
    names = {
        "rho": "ρ",
        "gamma_c": "1/(1 − ρ)",
        "x": "boundary over 1/(1 − ρ)",
        "x_low": "boundary over 1/(1 − ρ), low",
        "x_high": "boundary over 1/(1 − ρ), high",
        "draws": "draws bracketing a crossing",
    }
    ordered = bounds.sort_values(keys)[[*keys, *list(names)[1:]]]
    return ordered.rename(columns=names).reset_index(drop=True)


def boundary_with_d(
    bounds: pd.DataFrame, across: pd.DataFrame, d: int
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The page's table of the measured boundary (:func:`boundary_by`): a column per ``n`` of
    ``bounds`` (measured at ``d``), then one per other ``d`` of ``across`` (rows of
    :func:`~attncore.evidence.critical_scale.boundary_by_d`, at one ``n``); and its numbers
    for the download (:func:`boundary_data`, one row per ``(rho, n, d)``).

    >>> bounds = pd.DataFrame({"n": [64], "rho": 0.5, "gamma_c": 2.0, "x": [1.01],
    ...                        "x_low": [1.0], "x_high": [1.02], "draws": [2]})
    >>> table, data = boundary_with_d(bounds, bounds.assign(d=[16]), d=8)
    >>> list(table.columns), data[["n", "d"]].values.tolist()
    (['$1/(1 - \\\\rho)$', 'n = 64', 'd = 16'], [[64, 8], [64, 16]])
    """
    others = across[across["d"] != d]
    table = boundary_by(bounds)
    if len(others):
        table = table.join(boundary_by(others, "d").iloc[:, 1:])
    every = pd.concat([bounds.assign(d=d), others], ignore_index=True)
    return table, boundary_data(every)


def _boundary_cell(row: pd.Series) -> str:
    """One boundary and its interval; the mean alone where the draws give no interval."""
    if np.isnan(row["x"]):
        return "not bracketed"
    if np.isnan(row["x_low"]) or np.isnan(row["x_high"]):
        why = "one draw, " if row.get("draws", 2) < 2 else ""
        return f"{row['x']:.3f} ({why}no interval)"
    return f"{row['x']:.3f} ({row['x_low']:.3f} to {row['x_high']:.3f})"


def _n_ticks(ax: plt.Axes, ns: np.ndarray) -> None:
    """Ticks at the simulated ``n``, written out."""
    ax.set_xticks(ns, [f"{n:,}" for n in ns])
    ax.xaxis.set_minor_formatter(ticker.NullFormatter())
    ax.xaxis.set_minor_locator(ticker.NullLocator())


def phase_diagram(table: pd.DataFrame, bounds: pd.DataFrame) -> matplotlib.figure.Figure:
    """The mean angle ratio over ``(rho, gamma)`` at the largest ``n`` (colour), the curve
    ``1/(1 - rho)`` (dashed), the measured boundary with its intervals (points), and the
    ``gamma`` of 1/√d at each ``n`` and of ln n/√d (horizontal lines)."""
    n_max = int(table["n"].max())
    means = _mean_grid(table, n_max)
    rhos, gammas = means.columns.to_numpy(float), means.index.to_numpy(float)
    fig, ax = plt.subplots(figsize=(8.5, 6), layout="constrained")
    mesh = ax.pcolormesh(
        _edges(rhos, log=False), _edges(gammas, log=True), means.to_numpy(),
        cmap="viridis", vmin=0, vmax=1, shading="flat",
    )  # fmt: skip
    fig.colorbar(mesh, ax=ax, label="output angle / input angle")
    curve = np.linspace(rhos.min(), rhos.max(), 200)
    ax.plot(curve, 1 / (1 - curve), color="white", ls="--", lw=2, label="1/(1 − ρ)")
    last = bounds[bounds["n"] == n_max].dropna(subset=["gamma"])
    ax.errorbar(
        last["rho"], last["gamma"],
        yerr=[last["gamma"] - last["gamma_low"], last["gamma_high"] - last["gamma"]],
        fmt="o", color="white", mec=CONTRAST[0], ms=6, capsize=3,
        label=f"measured boundary, n = {n_max}",
    )  # fmt: skip
    fixed = table[table["scale"] == "sqrt_d"].groupby("n")["gamma"].first()
    style = method_style("sqrt_d")
    halo = [effects.withStroke(linewidth=4, foreground="white")]
    for i, (n, gamma) in enumerate(fixed.items()):
        ax.axhline(gamma, color=style["color"], lw=2, ls=(0, (2 + 2 * i, 2)), path_effects=halo)
        ax.annotate(
            f"1/√d, n = {n}", (rhos.min(), gamma), xytext=(2, 3), textcoords="offset points",
            color=CONTRAST[0], fontsize=9, path_effects=halo,
        )  # fmt: skip
    logn = table[table["scale"] == "log_n"]["gamma"].iloc[0]
    ax.axhline(logn, color=method_style("log_n")["color"], lw=2, path_effects=halo)
    ax.annotate(
        "ln n/√d, every n", (rhos.min(), logn), xytext=(2, 3), textcoords="offset points",
        color=CONTRAST[0], fontsize=9, path_effects=halo,
    )  # fmt: skip
    ax.set(
        yscale="log", xlabel="correlation ρ between tokens", ylabel="γ = β / ln n",
        title=f"Angle ratio after one attention layer, n = {n_max}",
        ylim=(gammas.min(), gammas.max()),
    )  # fmt: skip
    ax.legend(loc="upper left", framealpha=0.85)
    return fig


def sharpening(table: pd.DataFrame, rhos: Sequence[float]) -> matplotlib.figure.Figure:
    """The angle ratio against ``gamma / gamma_c`` at each ``n`` (mean and the range of the
    draws) for each of ``rhos``, one panel each, with the critical scale marked."""
    fig, axes = plt.subplots(
        1, len(rhos), figsize=(4.2 * len(rhos), 4.2), layout="constrained", squeeze=False
    )
    grid = table[table["scale"] == "grid"]
    ns = sorted(grid["n"].unique())
    inks = _inks(len(ns))
    for ax, rho in zip(axes[0], rhos, strict=True):
        rows = grid[np.isclose(grid["rho"], rho)]
        for (colour, line), n in zip(inks, ns, strict=True):
            curve = rows[rows["n"] == n].groupby("gamma")["angle_ratio"]
            x = curve.mean().index.to_numpy() * (1 - rho)
            ax.fill_between(x, curve.min(), curve.max(), color=colour, alpha=0.25, lw=0)
            ax.plot(x, curve.mean(), color=colour, ls=line, lw=2, label=f"n = {n}")
        ax.axvline(1, color=CONTRAST[0], ls="--", lw=1)
        ax.set(xscale="log", xlabel="γ / γ_c = γ(1 − ρ)", title=f"ρ = {rho:g}", ylim=(-0.02, 1.02))
        ax.set_xlim(0.1, 10)
    axes[0][0].set_ylabel("output angle / input angle")
    axes[0][-1].legend(loc="lower right")
    return fig


def scales_against_n(table: pd.DataFrame, bounds: pd.DataFrame, d: int) -> matplotlib.figure.Figure:
    """Left: ``gamma`` of 1/√d and ln n/√d against ``n`` beside the measured boundary of each
    ``rho`` (dotted, labelled). Right: the angle ratio at the scale of each against ``n``,
    mean and the range of the draws, per ``rho``."""
    fig, (ax_gamma, ax_ratio) = plt.subplots(1, 2, figsize=(11, 4.6), layout="constrained")
    ns = np.array(sorted(table["n"].unique()))
    for scale in _SCALES:
        style = method_style(scale)
        gammas = table[table["scale"] == scale].groupby("n")["gamma"].first()
        ax_gamma.plot(
            gammas.index, gammas.to_numpy(), color=style["color"], marker=style["marker"],
            lw=2, label=f"{style['label']} (d = {d})",
        )  # fmt: skip
    boundary = bounds.groupby("rho")["gamma"].mean()
    for rho, gamma in boundary.items():
        ax_gamma.axhline(gamma, color=CONTRAST[1], lw=0.8, ls=":")
        ax_gamma.annotate(
            f"ρ = {rho:g}", (1.0, gamma), xycoords=("axes fraction", "data"), xytext=(3, 0),
            textcoords="offset points", va="center", fontsize=9, color=CONTRAST[2],
            annotation_clip=False,
        )  # fmt: skip
    ax_gamma.set_xscale("log")
    ax_gamma.set_yscale("log")
    _n_ticks(ax_gamma, ns)
    ax_gamma.yaxis.set_major_locator(ticker.LogLocator(base=10, subs=(1, 2, 3, 5)))
    ax_gamma.yaxis.set_major_formatter(ticker.FuncFormatter(lambda v, _: f"{v:g}"))
    ax_gamma.yaxis.set_minor_formatter(ticker.NullFormatter())
    ax_gamma.set(
        xlabel="number of tokens n", ylabel="γ = β / ln n",
        title="Scale against the measured boundaries (dotted)",
    )  # fmt: skip
    ax_gamma.legend(loc="upper center", bbox_to_anchor=(0.5, -0.16), ncol=2, frameon=False)
    rhos = _spread(sorted(table["rho"].unique()))
    for scale in _SCALES:
        style = method_style(scale)
        rows = table[table["scale"] == scale]
        for (_, line), rho in zip(_inks(len(rhos)), rhos, strict=True):
            by_n = rows[np.isclose(rows["rho"], rho)].groupby("n")["angle_ratio"]
            ax_ratio.fill_between(ns, by_n.min(), by_n.max(), color=style["color"], alpha=0.2, lw=0)
            ax_ratio.plot(
                ns, by_n.mean(), color=style["color"], ls=line, marker=style["marker"], ms=5,
                label=f"{style['label']}, ρ = {rho:g}",
            )  # fmt: skip
    ax_ratio.set_xscale("log")
    _n_ticks(ax_ratio, ns)
    ax_ratio.set(
        xlabel="number of tokens n", ylabel="output angle / input angle",
        title="Angle ratio at each scale", ylim=(-0.02, 1.02),
    )  # fmt: skip
    ax_ratio.legend(loc="upper center", bbox_to_anchor=(0.5, -0.16), ncol=2, frameon=False)
    return fig


def across_d(bounds: pd.DataFrame, gains: pd.DataFrame) -> matplotlib.figure.Figure:
    """Left: the measured boundary over ``1/(1 - rho)`` against ``rho`` at each ``d`` (rows of
    :func:`~attncore.evidence.critical_scale.boundary_by_d`, with their intervals), beside 1
    (dashed). Right: the gradient's gain against ``gamma / gamma_c`` at each ``d`` (rows of
    :func:`~attncore.evidence.critical_scale.gain_table`: the line joins the means over the
    ``rho``, the band spans them), with the critical scale marked (dashed)."""
    fig, (ax_bound, ax_gain) = plt.subplots(1, 2, figsize=(11, 4.6), layout="constrained")
    ds = sorted(bounds["d"].unique())
    for (colour, line), d in zip(_inks(len(ds)), ds, strict=True):
        rows = bounds[bounds["d"] == d].sort_values("rho")
        ax_bound.errorbar(
            rows["rho"], rows["x"], yerr=[rows["x"] - rows["x_low"], rows["x_high"] - rows["x"]],
            color=colour, ls=line, marker="o", ms=4, capsize=3, lw=1.5, label=f"d = {d:,}",
        )  # fmt: skip
        by_factor = gains[gains["d"] == d].groupby("factor")["gain"]
        factors = by_factor.mean().index.to_numpy()
        low, high = by_factor.min(), by_factor.max()
        ax_gain.fill_between(factors, low, high, color=colour, alpha=0.25, lw=0)
        ax_gain.plot(
            factors, by_factor.mean(), color=colour, ls=line, marker="o", ms=4, lw=2,
            label=f"d = {d:,}",
        )  # fmt: skip
    ax_bound.axhline(1, color=CONTRAST[0], ls="--", lw=1)
    n = int(bounds["n"].max())
    ax_bound.set(
        xlabel="correlation ρ between tokens", ylabel="boundary / (1/(1 − ρ))",
        title=f"Measured boundary, n = {n:,}",
    )  # fmt: skip
    ax_gain.axvline(1, color=CONTRAST[0], ls="--", lw=1)
    ax_gain.set(
        xscale="log", yscale="log", xlabel="γ / γ_c = γ(1 − ρ)",
        ylabel="gain (RMS singular value)", title=f"Gradient to a token's own input, n = {n:,}",
    )  # fmt: skip
    factors = np.sort(gains["factor"].unique())
    ax_gain.set_xticks(factors, [f"{f:g}" for f in factors])
    ax_gain.xaxis.set_minor_locator(ticker.NullLocator())
    handles, labels = ax_gain.get_legend_handles_labels()  # one legend for both panels
    fig.legend(handles, labels, loc="outside lower center", ncol=len(ds), frameon=False)
    return fig
