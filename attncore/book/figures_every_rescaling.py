"""The figures of the chapter *Every rescaling, measured*.

Every rescaling is drawn with :func:`attncore.book.plotting.method_style`, so it has the
same colour, marker and label as in every other chapter. The tables these functions read are
the summaries of :mod:`attncore.simulate.study` (means over replicates with ``_se`` columns).

>>> from attncore.rescalings import get_rescaling
>>> styles = rescaling_styles({"sqrt_d": get_rescaling("sqrt_d"),
...                            "key_p_norm_3": get_rescaling("key_p_norm", p=3.0)})
>>> styles["sqrt_d"]["label"], styles["key_p_norm_3"]["label"]
('1/√d', '1/(Σ‖k‖^p)^(1/p), p = 3')
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import matplotlib.figure
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.colors import LogNorm, TwoSlopeNorm
from matplotlib.lines import Line2D
from matplotlib.markers import MarkerStyle
from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter

from attncore.book.plotting import method_style
from attncore.rescalings import Rescaling

__all__ = [
    "d_n_grid_figure",
    "families_figure",
    "family_frontiers_figure",
    "frontier_figure",
    "gradients_figure",
    "grid_matrix",
    "rescaling_styles",
]

_CURVE = "0.55"
_EXTRA_MARKERS = ["1", "2", "3", "4"]


def rescaling_styles(rescalings: Mapping[str, Rescaling]) -> dict[str, dict[str, Any]]:
    """Colour, marker and label per table name, from the book's one style per method; a
    registered rescaling that appears twice (two values of ``p``) gets other markers."""
    styles, seen = {}, {}
    for name, r in rescalings.items():
        style = method_style(r.name, **dict(r.params))
        count = seen.get(r.name, 0)
        if count:
            style["marker"] = _EXTRA_MARKERS[(count - 1) % len(_EXTRA_MARKERS)]
        seen[r.name] = count + 1
        styles[name] = style
    return styles


def _handles(styles: Mapping[str, dict[str, Any]]) -> list[Line2D]:
    return [
        Line2D([], [], ls="", marker=s["marker"], color=s["color"], markersize=8, label=s["label"])
        for s in styles.values()
    ]


def _curve_handle() -> Line2D:
    return Line2D([], [], color=_CURVE, lw=1.6, marker=".", label="constant factor f/√d")


def _plain_log_ticks(axis: Any) -> None:
    axis.set_major_locator(LogLocator(base=10, subs=(1.0, 2.0, 5.0)))
    axis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
    axis.set_minor_formatter(NullFormatter())


def _draw_curve(ax: Any, curve: pd.DataFrame, y: str, multipliers: Sequence[float] | None) -> None:
    curve = curve.sort_values("selectivity")
    ax.plot(curve["selectivity"], curve[y], color=_CURVE, lw=1.6, zorder=1)
    ax.scatter(curve["selectivity"], curve[y], color=_CURVE, s=8, zorder=1)
    if multipliers is None:
        return
    by_factor = curve.sort_values("factor")
    for f in (0.01, 0.1, 1.0, 10.0):
        if min(multipliers) <= f <= max(multipliers):
            at = np.log(f), np.log(multipliers)
            x = np.interp(*at, np.log(by_factor["selectivity"]))
            yv = np.interp(*at, np.log(by_factor[y]))
            ax.annotate(
                f"f = {f:g}",
                (np.exp(x), np.exp(yv)),
                xytext=(4, -12),
                textcoords="offset points",
                fontsize=8,
                color="0.35",
            )


def _draw_points(
    ax: Any, points: pd.DataFrame, y: str, styles: Mapping[str, dict[str, Any]], size: int = 70
) -> None:
    for name, style in styles.items():
        rows = points[points["rescaling"] == name]
        if rows.empty:
            continue
        row = rows.iloc[0]
        ax.errorbar(
            row["selectivity"],
            row[y],
            xerr=2 * row["selectivity_se"],
            yerr=2 * row[f"{y}_se"],
            fmt="none",
            ecolor=style["color"],
            elinewidth=1,
            zorder=2,
        )
        ax.scatter(
            row["selectivity"],
            row[y],
            marker=style["marker"],
            color=style["color"],
            s=size,
            # a white rim sets filled markers off the curve; line markers (x) have no face
            edgecolor="white" if MarkerStyle(style["marker"]).is_filled() else None,
            linewidth=0.6,
            zorder=3,
        )


def frontier_figure(
    curve: pd.DataFrame,
    points: pd.DataFrame,
    styles: Mapping[str, dict[str, Any]],
    multipliers: Sequence[float],
    title: str,
) -> matplotlib.figure.Figure:
    """Distortion and gradient against selectivity for one family: the curve of constant
    factors and every rescaling, with bars of 2 standard errors."""
    fig, (ax_w, ax_g) = plt.subplots(1, 2, figsize=(13, 5.2))
    for ax, y, panel in [
        (ax_w, "wasserstein", "Distortion of the shape against selectivity"),
        (ax_g, "gradient_norm", "Gradient reaching the query against selectivity"),
    ]:
        _draw_curve(ax, curve, y, multipliers)
        _draw_points(ax, points, y, styles)
        ax.set(
            xscale="log",
            yscale="log",
            xlabel="selectivity  1 − H / ln n   (0: uniform attention, 1: one-hot)",
            title=panel,
        )
        _plain_log_ticks(ax.yaxis)
    ax_w.set_ylabel("W₁ between standardized q·k₁ and softmax(…)₁")
    ax_g.set_ylabel("mean ‖∂s/∂q‖ (includes the factor)")
    for name, text, offset in [
        ("k_total", "1/k_total:\nalmost no distortion,\nalmost no selectivity", (-95, 28)),
        ("none", "no scaling", (-60, 8)),
        ("sqrt_d", "1/√d", (-30, 10)),
    ]:
        rows = points[points["rescaling"] == name]
        if rows.empty:
            continue
        colour = styles[name]["color"]
        ax_w.annotate(
            text,
            (rows["selectivity"].iloc[0], rows["wasserstein"].iloc[0]),
            xytext=offset,
            textcoords="offset points",
            fontsize=9,
            color=colour,
            arrowprops=dict(arrowstyle="-", color=colour, lw=0.8),
        )
    return _finish(fig, [_curve_handle(), *_handles(styles)], title)


def _finish(fig: matplotlib.figure.Figure, handles: list, title: str) -> matplotlib.figure.Figure:
    """A shared legend below the panels, the title above, and a tight layout."""
    fig.legend(
        handles=handles,
        loc="upper center",
        bbox_to_anchor=(0.5, 0.0),
        ncol=5,
        fontsize=9.5,
        frameon=False,
    )
    fig.suptitle(title, y=1.0)
    fig.tight_layout()
    return fig


def _short(value: float) -> str:
    """0.85, 0.13, 0.02 or 3e-4: two digits where they fit, else a power of ten."""
    return f"{value:.2f}" if value >= 0.01 else f"{value:.0e}".replace("e-0", "e-")


def families_figure(
    w_matrix: pd.DataFrame,
    s_matrix: pd.DataFrame,
    styles: Mapping[str, dict[str, Any]],
    title: str,
) -> matplotlib.figure.Figure:
    """Heat maps of distortion and selectivity, rescalings (rows, in ``styles``' order) by
    families (columns); the rows of 1/k_total and 1/√d framed in their colours."""
    order = list(styles)
    w_matrix, s_matrix = w_matrix.loc[order], s_matrix.loc[order]
    fig, (ax_w, ax_s) = plt.subplots(1, 2, figsize=(15, 6.2), sharey=True)
    vmax = max(0.85, float(w_matrix.max().max()))
    image = ax_w.imshow(w_matrix.to_numpy(), cmap="magma_r", vmin=0, vmax=vmax, aspect="auto")
    fig.colorbar(image, ax=ax_w, label="W₁ (distortion of the shape)", shrink=0.85)
    floor = max(1e-6, float(s_matrix.min().min()))
    image = ax_s.imshow(
        s_matrix.to_numpy(), cmap="viridis", norm=LogNorm(vmin=floor, vmax=1.0), aspect="auto"
    )
    fig.colorbar(image, ax=ax_s, label="selectivity 1 − H / ln n (log scale)", shrink=0.85)
    for ax, matrix in [(ax_w, w_matrix), (ax_s, s_matrix)]:
        for i in range(matrix.shape[0]):
            for j in range(matrix.shape[1]):
                value = matrix.iloc[i, j]
                if ax is ax_w:
                    dark, text = value > 0.45, f"{value:.2f}"
                else:
                    dark = np.log(value / floor) < 0.6 * np.log(1 / floor)
                    text = _short(value)
                ax.text(
                    j,
                    i,
                    text,
                    ha="center",
                    va="center",
                    fontsize=7.5,
                    color="white" if dark else "black",
                )
        ax.set_xticks(range(matrix.shape[1]), matrix.columns, rotation=30, ha="right")
        ax.grid(False)
        for name in ("k_total", "sqrt_d"):
            if name in order:
                ax.add_patch(
                    plt.Rectangle(
                        (-0.5, order.index(name) - 0.5),
                        matrix.shape[1],
                        1,
                        fill=False,
                        ec=styles[name]["color"],
                        lw=2,
                    )
                )
    ax_w.set_yticks(range(len(order)), [styles[name]["label"] for name in order])
    ax_w.set_title("Distortion W₁ (lower: shape kept)")
    ax_s.set_title("Selectivity (lower: closer to uniform attention)")
    fig.suptitle(title, y=1.0)
    fig.tight_layout()
    return fig


def family_frontiers_figure(
    curves: pd.DataFrame,
    points: pd.DataFrame,
    families: Sequence[str],
    styles: Mapping[str, dict[str, Any]],
    title: str,
) -> matplotlib.figure.Figure:
    """The distortion/selectivity curve of constant factors and every rescaling, one panel
    per family."""
    columns = 4
    rows = max(1, math.ceil(len(families) / columns))
    fig, axes = plt.subplots(
        rows, columns, figsize=(16, 3.8 * rows), sharex=True, sharey=True, squeeze=False
    )
    for ax, family in zip(axes.ravel(), families, strict=False):
        _draw_curve(ax, curves[curves["family"] == family], "wasserstein", None)
        _draw_points(ax, points[points["family"] == family], "wasserstein", styles, size=45)
        ax.set(xscale="log", yscale="log", title=family)
        _plain_log_ticks(ax.yaxis)
    for ax in axes.ravel()[len(families) :]:
        ax.set_visible(False)
    for ax in axes[-1]:
        ax.set_xlabel("selectivity 1 − H / ln n")
    for ax in axes[:, 0]:
        ax.set_ylabel("W₁")
    fig.legend(
        handles=[_curve_handle(), *_handles(styles)],
        loc="lower center",
        ncol=7,
        fontsize=8.5,
        bbox_to_anchor=(0.5, -0.08),
        frameon=False,
    )
    fig.suptitle(title, y=1.0)
    fig.tight_layout()
    return fig


def _ratio_panel(fig: Any, ax: Any, ratio: pd.DataFrame, title: str, fmt: str) -> None:
    logs = np.log10(ratio.to_numpy(dtype=float))
    span = max(1.0, float(np.nanmax(np.abs(logs))))
    image = ax.imshow(logs, cmap="RdBu_r", norm=TwoSlopeNorm(0.0, -span, span), aspect="auto")
    fig.colorbar(image, ax=ax, label="log₁₀ ratio", shrink=0.9)
    for i in range(ratio.shape[0]):
        for j in range(ratio.shape[1]):
            ax.text(
                j,
                i,
                fmt.format(ratio.iloc[i, j]),
                ha="center",
                va="center",
                fontsize=8,
                color="white" if abs(logs[i, j]) > 0.6 * span else "black",
            )
    ax.set_xticks(range(ratio.shape[1]), ratio.columns)
    ax.set_yticks(range(ratio.shape[0]), ratio.index)
    ax.set(xlabel="dimension d", ylabel="number of keys n", title=title)
    ax.grid(False)


def grid_matrix(summary: pd.DataFrame, name: str, column: str) -> pd.DataFrame:
    """``column`` of the rescaling ``name`` as a matrix, ``n`` (rows, descending) by ``d``.

    >>> toy = pd.DataFrame({"rescaling": "r", "d": [2, 4, 2, 4], "n": [3, 3, 5, 5],
    ...                     "wasserstein": [1.0, 2.0, 3.0, 4.0]})
    >>> grid_matrix(toy, "r", "wasserstein").to_numpy().tolist()
    [[3.0, 4.0], [1.0, 2.0]]
    """
    part = summary[summary["rescaling"] == name]
    return part.pivot(index="n", columns="d", values=column).sort_index(ascending=False)


def d_n_grid_figure(summary: pd.DataFrame, title: str) -> matplotlib.figure.Figure:
    """Ratios of 1/k_total to 1/√d over the grid (distortion, selectivity, gradient) and
    the effective share of keys under 1/k_total."""
    ratios = {
        column: grid_matrix(summary, "k_total", column) / grid_matrix(summary, "sqrt_d", column)
        for column in ("wasserstein", "selectivity", "gradient_norm")
    }
    share = grid_matrix(summary, "k_total", "effective_share")
    fig, axes = plt.subplots(2, 2, figsize=(14, 10.5))
    _ratio_panel(
        fig, axes[0, 0], ratios["wasserstein"], "Distortion W₁: 1/k_total over 1/√d", "{:.2g}"
    )
    _ratio_panel(
        fig, axes[0, 1], ratios["selectivity"], "Selectivity: 1/k_total over 1/√d", "{:.0e}"
    )
    _ratio_panel(
        fig, axes[1, 0], ratios["gradient_norm"], "Mean ‖∂s/∂q‖: 1/k_total over 1/√d", "{:.0e}"
    )
    ax = axes[1, 1]
    image = ax.imshow(share.to_numpy(), cmap="Greens", vmin=0, vmax=1, aspect="auto")
    fig.colorbar(image, ax=ax, label="effective keys / n", shrink=0.9)
    for i in range(share.shape[0]):
        for j in range(share.shape[1]):
            value = share.iloc[i, j]
            colour = "white" if value > 0.6 else "black"
            ax.text(j, i, f"{value:.3f}", ha="center", va="center", fontsize=8, color=colour)
    ax.set_xticks(range(share.shape[1]), share.columns)
    ax.set_yticks(range(share.shape[0]), share.index)
    ax.set(
        xlabel="dimension d",
        ylabel="number of keys n",
        title="Effective keys / n under 1/k_total (1: uniform)",
    )
    ax.grid(False)
    fig.suptitle(title, y=1.0)
    fig.tight_layout()
    return fig


def gradients_figure(
    summary: pd.DataFrame,
    styles: Mapping[str, dict[str, Any]],
    d_ref: int,
    n_ref: int,
    threshold: float,
    title: str,
) -> matplotlib.figure.Figure:
    """Against ``d`` at ``n_ref`` (top) and against ``n`` at ``d_ref`` (bottom): the mean
    softmax Jacobian norm, the share of saturated rows, and the gradient reaching the query."""
    fig, axes = plt.subplots(2, 3, figsize=(17, 9.5))
    panels = [
        ("jacobian_norm", "mean ‖J‖_F (softmax Jacobian)", "linear"),
        ("saturated_share", f"share of rows with max s > {threshold:g}", "linear"),
        ("gradient_norm", "‖∂s/∂q‖_F (includes the factor)", "log"),
    ]
    for row, (axis, fixed, value) in enumerate([("d", "n", n_ref), ("n", "d", d_ref)]):
        part = summary[summary[fixed] == value]
        for name, style in styles.items():
            line = part[part["rescaling"] == name].sort_values(axis)
            if line.empty:
                continue
            kw = dict(color=style["color"], marker=style["marker"], markersize=5, lw=1.4)
            for ax, (column, _, _) in zip(axes[row], panels, strict=True):
                ax.errorbar(line[axis], line[column], yerr=2 * line[f"{column}_se"], **kw)
            if name == "none":
                axes[row, 2].plot(
                    line[axis], line["gradient_median"], color="black", ls="--", lw=1.2
                )
        ticks = np.array(sorted(part[axis].unique()), dtype=float)
        uniform = (
            np.sqrt(ticks - 1) / ticks
            if axis == "n"
            else np.full_like(ticks, math.sqrt(n_ref - 1) / n_ref)
        )
        axes[row, 0].plot(ticks, uniform, color="0.5", ls=":", lw=2)
        axes[row, 0].set_ylim(0, None)
        axes[row, 1].set_ylim(-0.02, 1.02)
        for ax, (_, ylabel, yscale) in zip(axes[row], panels, strict=True):
            ax.set(
                xscale="log",
                yscale=yscale,
                xlabel="dimension d" if axis == "d" else "number of keys n",
                ylabel=ylabel,
                title=f"{ylabel.split(' (')[0]}, {fixed} = {value}",
            )
            ax.set_xticks(ticks, [f"{v:g}" for v in ticks])
            ax.minorticks_off()
    extra = [
        Line2D([], [], color="0.5", ls=":", lw=2, label="uniform attention: √(n−1)/n"),
        Line2D([], [], color="black", ls="--", lw=1.2, label="no scaling, median over queries"),
    ]
    return _finish(fig, [*_handles(styles), *extra], title)
