"""The figures of the chapter *Every rescaling, measured*.

Every rescaling is drawn with :func:`attncore.book.plotting.method_style`, so it has the
same colour, marker and label as in every other chapter. The tables these functions read are
the summaries of :mod:`attncore.simulate.study` (means over replicates with ``_se`` columns).

>>> from attncore.rescalings import get_rescaling
>>> styles = rescaling_styles({"sqrt_d": get_rescaling("sqrt_d"),
...                            "key_p_norm_3": get_rescaling("key_p_norm", p=3.0)})
>>> styles["sqrt_d"]["label"], styles["key_p_norm_3"]["label"]
('1/√d', '1/ᵖ√Σ‖k‖ᵖ, p = 3')
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import altair as alt
import matplotlib.figure
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.colors import LogNorm, to_hex
from matplotlib.lines import Line2D
from matplotlib.markers import MarkerStyle
from matplotlib.patches import Patch
from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter

from attncore.book.explorable import (
    Explorable,
    Slider,
    inline_data,
    log_ticks,
    readout,
    selects,
    vega_shape,
)
from attncore.book.plotting import method_style
from attncore.distributions import QueryKeyModel
from attncore.evidence import rescalings as ev
from attncore.rescalings import Rescaling
from attncore.simulate.study import NORMAL, Comparison
from attncore.simulate.sweep import draw_generator

__all__ = [
    "HIGHLIGHTED",
    "LEAD_RESCALINGS",
    "d_n_grid_figure",
    "d_spread_sentence",
    "families_figure",
    "family_frontiers_figure",
    "frontier_explorable",
    "frontier_figure",
    "gradients_figure",
    "grid_matrix",
    "lead_figure",
    "matched_comparisons",
    "rescaling_styles",
]

_CURVE = "0.55"
_MUTED = "#BBBBBB"
"""The ink of the rescalings a crowded figure does not highlight."""

HIGHLIGHTED = ("none", "sqrt_d", "k_total", "mup", "qk_norm")
"""The rescalings a crowded figure draws in their colours and names on their lines: no
scaling, the Transformer's 1/√d, Bernhard's 1/k_total and the two in use today that differ
most from them (1/d of μP and QK-norm); the others are drawn grey."""

LABEL_PT = 12.0
"""The size of the names written on the lines of a crowded figure."""
_EXTRA_MARKERS = ["1", "2", "3", "4"]
_RING = ("sqrt_d", "k_total")
"""The references drawn as large hollow markers, so a rescaling at the same place (for
standard normal keys 1/mean ‖k‖ at 1/√d, 1/(n√d) at 1/k_total) shows inside them."""


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


def _marker(style: Mapping[str, Any], ring: bool, size: float) -> dict[str, Any]:
    """The marker of a method for ``Line2D``: filled, or hollow and larger for a ring."""
    return dict(
        marker=style["marker"],
        color=style["color"],
        markersize=1.4 * size if ring else size,
        markerfacecolor="none" if ring else style["color"],
        markeredgewidth=1.8 if ring else 1.0,
    )


def _handles(styles: Mapping[str, dict[str, Any]]) -> list[Line2D]:
    """Legend entries, the methods of :data:`_RING` hollow as they are drawn."""
    return [
        Line2D([], [], ls="", label=s["label"], **_marker(s, name in _RING, 8))
        for name, s in styles.items()
    ]


def _curve_handle() -> Line2D:
    return Line2D([], [], color=_CURVE, lw=1.6, marker=".", label="constant factor f/√d (grey)")


def _plain_log_ticks(axis: Any) -> None:
    low, high = axis.get_view_interval()
    subs = (1.0, 2.0, 5.0) if high / low < 300 else (1.0,)  # over many decades, powers of 10
    axis.set_major_locator(LogLocator(base=10, subs=subs))
    axis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
    axis.set_minor_formatter(NullFormatter())


def _draw_curve(ax: Any, curve: pd.DataFrame, y: str) -> None:
    curve = curve.sort_values("selectivity")
    ax.plot(curve["selectivity"], curve[y], color=_CURVE, lw=1.6, zorder=1)
    ax.scatter(curve["selectivity"], curve[y], color=_CURVE, s=8, zorder=1)


def _factor_axis(ax: Any, curve: pd.DataFrame, multipliers: Sequence[float]) -> None:
    """A top axis that reads the grey curve: where the constant factors 0.01, 0.1, 1 and 10
    (times 1/√d) put the attention, so no label sits among the data."""
    by_factor = curve.sort_values("factor")
    shown, at = [], []
    for f in (0.001, 0.01, 0.1, 1.0, 10.0, 100.0):
        x = np.interp(np.log(f), np.log(multipliers), np.log(by_factor["selectivity"]))
        # near one-hot attention the selectivity stops growing: keep ticks apart
        if min(multipliers) <= f <= max(multipliers) and (not at or x - np.log(at[-1]) > 1):
            shown.append(f)
            at.append(np.exp(x))
    top = ax.twiny()
    top.set(xscale="log", xlim=ax.get_xlim(), xlabel="constant factor f of the grey curve")
    top.set_xticks(at, [f"{f:g}" for f in shown])
    top.minorticks_off()
    top.grid(False)


def _draw_points(
    ax: Any, points: pd.DataFrame, y: str, styles: Mapping[str, dict[str, Any]], size: int = 70
) -> None:
    """Each rescaling's point with its bars; those of :data:`_RING` hollow, larger and on top."""
    for name, style in styles.items():
        rows = points[points["rescaling"] == name]
        if rows.empty:
            continue
        row, ring = rows.iloc[0], name in _RING
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
        if ring:
            look = dict(s=2.2 * size, facecolor="none", edgecolor=style["color"], linewidth=1.8)
        else:
            # a white rim sets filled markers off the curve; line markers (x) have no face
            rim = "white" if MarkerStyle(style["marker"]).is_filled() else None
            look = dict(s=size, color=style["color"], edgecolor=rim, linewidth=0.6)
        ax.scatter(
            row["selectivity"], row[y], marker=style["marker"], zorder=4 if ring else 3, **look
        )


def frontier_figure(
    curve: pd.DataFrame,
    points: pd.DataFrame,
    styles: Mapping[str, dict[str, Any]],
    multipliers: Sequence[float],
) -> matplotlib.figure.Figure:
    """Distortion and gradient against selectivity for one family: the curve of constant
    factors (read on the top axis) and every rescaling, with bars of 2 standard errors."""
    fig, (ax_w, ax_g) = plt.subplots(1, 2, figsize=(11, 5.4), layout="constrained")
    for ax, y, ylabel in [
        (ax_w, "wasserstein", "W₁, distortion of the shape"),
        (ax_g, "gradient_norm", "mean ‖∂s/∂q‖ (factor included)"),
    ]:
        _draw_curve(ax, curve, y)
        _draw_points(ax, points, y, styles)
        ax.set(xscale="log", yscale="log", xlabel="selectivity 1 − H / ln n", ylabel=ylabel)
        _plain_log_ticks(ax.yaxis)
        _factor_axis(ax, curve, multipliers)
    # the upper left is empty (the curve rises to the right): names of three points go there
    for name, text, spot in [
        ("k_total", "1/k_total", (0.06, 0.45)),
        ("sqrt_d", "1/√d", (0.3, 0.72)),
        ("none", "no scaling", (0.36, 0.92)),
    ]:
        rows = points[points["rescaling"] == name]
        if rows.empty:
            continue
        colour = styles[name]["color"]
        ax_w.annotate(
            text,
            (rows["selectivity"].iloc[0], rows["wasserstein"].iloc[0]),
            xytext=spot,
            textcoords="axes fraction",
            color=colour,
            arrowprops=dict(arrowstyle="-", color=colour, lw=0.8, shrinkB=6),
        )
    return _finish(fig, [_curve_handle(), *_handles(styles)], ncol=4)


LEAD_RESCALINGS = ("sqrt_d", "none", "mup", "k_total", "log_n", "qk_norm")
"""The rescalings a reader asks about first, in the order the first page discusses them."""


def lead_figure(
    curve: pd.DataFrame, points: pd.DataFrame, styles: Mapping[str, dict[str, Any]]
) -> matplotlib.figure.Figure:
    """The first page's figure: the curve of constant factors (distortion against
    selectivity) with the rescalings of :data:`LEAD_RESCALINGS` on it, each named beside its
    point, and the two ends of the curve named for what the attention does there.

    >>> from attncore.simulate.study import frontier_points
    >>> summary = pd.DataFrame({"family": "f", "rescaling": ["curve_000", "curve_001", "none"],
    ...     "selectivity": [0.001, 0.9, 0.5], "wasserstein": [0.01, 0.5, 0.4],
    ...     "selectivity_se": 0.0, "wasserstein_se": 0.0})
    >>> curve, points = frontier_points(summary)
    >>> fig = lead_figure(curve, points, {"none": {"color": "k", "marker": "o", "label": "x"}})
    >>> [t.get_text().split(":")[0] for t in fig.axes[0].texts]
    ['no scaling', 'uniform attention', 'one-hot attention']
    """
    fig, ax = plt.subplots(figsize=(7.2, 5.0), layout="constrained")
    _draw_curve(ax, curve, "wasserstein")
    names = {"none": "no scaling", "mup": "1/d (μP)", "qk_norm": "QK-norm"}
    shown = points[points["rescaling"].isin(LEAD_RESCALINGS)]
    _draw_points(ax, shown, "wasserstein", {r: styles[r] for r in shown["rescaling"]}, size=110)
    ax.set(xscale="log", yscale="log")
    ax.set_xlabel("selectivity 1 − H/ln n  (0: uniform, 1: one key)", fontsize=13)
    ax.set_ylabel("distortion of the shape, W₁", fontsize=13)
    _plain_log_ticks(ax.xaxis)
    _plain_log_ticks(ax.yaxis)
    ax.tick_params(labelsize=12)
    # the curve rises to the right, so the upper left of it is empty: each name sits there,
    # left of its point, moved down where it would overlap the name above
    to_axes = ax.transData + ax.transAxes.inverted()
    xy = shown[["selectivity", "wasserstein"]].to_numpy(dtype=float)
    at = to_axes.transform(xy) if len(xy) else xy
    spots: dict[int, tuple[float, float]] = {}
    for i in sorted(range(len(at)), key=lambda i: -at[i][1]):
        y = min([at[i][1] + 0.07, 0.95, *(y - 0.075 for _, y in spots.values())])
        spots[i] = (at[i][0] - 0.05, y)
    for i, (x_text, y_text) in spots.items():
        name = shown["rescaling"].iat[i]
        colour = styles[name]["color"]
        ax.annotate(
            names.get(name, styles[name]["label"]),
            tuple(xy[i]),
            xytext=(x_text, y_text),
            textcoords="axes fraction",
            color=colour,
            fontsize=13,
            fontweight="bold",
            ha="right",
            va="center",
            arrowprops=dict(arrowstyle="-", color=colour, lw=0.8, shrinkB=7),
        )
    ends = curve.sort_values("selectivity")
    for row, text, spot in [
        (ends.iloc[0], "uniform attention:\nselects nothing,\nkeeps the shape", (0.03, 0.32)),
        (ends.iloc[-1], "one-hot attention:\nselects one key,\ndistorts most", (0.72, 0.1)),
    ]:
        ax.annotate(
            text,
            (row["selectivity"], row["wasserstein"]),
            xytext=spot,
            textcoords="axes fraction",
            color="0.3",
            fontsize=12,
            arrowprops=dict(arrowstyle="-", color="0.5", lw=0.8, shrinkB=3),
        )
    return fig


_EXPLORED = ["selectivity", "wasserstein", "effective_share", "jacobian_norm", "factor"]
"""The columns of a frontier grid that the explorable frontier carries."""


def frontier_explorable(
    grid: pd.DataFrame,
    styles: Mapping[str, dict[str, Any]],
    multipliers: Sequence[float],
    *,
    d_main: int,
    n_main: int,
) -> Explorable:
    """The left panel of :func:`frontier_figure` with sliders on ``d``, ``n`` and the
    constant factor ``f / sqrt(d)``, over a grid of
    :func:`attncore.simulate.study.frontier_grid`: the grey curve and every rescaling of
    ``styles`` at the selected ``(d, n)``, the selected factor as a black ring, and its
    numbers read out above. The axes keep one range over the grid; the sliders start at
    ``(d_main, n_main)`` and ``f = 1`` (or the multiplier nearest it)."""
    d_values, n_values = sorted(set(grid["d"])), sorted(set(grid["n"]))
    f_start = int(np.argmin(np.abs(np.log(np.asarray(multipliers)))))
    factors = [f"{f:.3g}" for f in multipliers]
    sliders = [
        Slider("d_index", "dimension d", [f"{d}" for d in d_values], d_values.index(d_main)),
        Slider("n_index", "keys n", [f"{n}" for n in n_values], n_values.index(n_main)),
        Slider("f_index", "constant factor f (c = f/√d)", factors, f_start),
    ]
    setting, factor = sliders[:2], sliders[2]
    table = grid.assign(
        d_index=grid["d"].map(d_values.index), n_index=grid["n"].map(n_values.index)
    )
    names = [f"curve_{i:03d}" for i in range(len(multipliers))]
    curve = table[table["rescaling"].isin(names)]
    curve = curve.assign(f_index=curve["rescaling"].map(names.index), f=0.0)
    curve["f"] = np.asarray(multipliers)[curve["f_index"]]
    points = table[table["rescaling"].isin(list(styles))]
    points = points.assign(rescaling=points["rescaling"].map(lambda r: styles[r]["label"]))
    shown = table[(table["selectivity"] > 0) & (table["wasserstein"] > 0)]
    x_axis, y_axis = (
        channel(
            f"{column}:Q",
            title=title,
            scale=alt.Scale(type="log", domain=_log_domain(shown[column])),
            axis=alt.Axis(values=log_ticks(*_log_domain(shown[column])), labelExpr=_LOG_LABEL),
        )
        for channel, column, title in [
            (alt.X, "selectivity", "selectivity 1 − H / ln n"),
            (alt.Y, "wasserstein", "W₁, distortion of the shape"),
        ]
    )
    visible = "datum.selectivity > 0 && datum.wasserstein > 0"
    columns = ["d_index", "n_index"]
    grey = alt.Chart(inline_data(curve[[*columns, "f_index", "f", *_EXPLORED]], "curve_data"))
    on_curve = grey.transform_filter(f"{selects(setting)} && {visible}")
    grey_ink = to_hex(_CURVE)
    line = on_curve.mark_line(color=grey_ink, point=alt.OverlayMarkDef(color=grey_ink, size=14))
    line = line.encode(x=x_axis, y=y_axis, order="f:Q").properties(name="curve")
    labels = [styles[name]["label"] for name in styles]
    colour = alt.Color(
        "rescaling:N",
        title="rescaling",
        scale=alt.Scale(domain=labels, range=[styles[name]["color"] for name in styles]),
    )
    shape = alt.Shape(
        "rescaling:N",
        scale=alt.Scale(domain=labels, range=[vega_shape(styles[n]["marker"]) for n in styles]),
    )
    marked = alt.Chart(inline_data(points[[*columns, "rescaling", *_EXPLORED]], "rescaling_data"))
    marked = marked.transform_filter(f"{selects(setting)} && {visible}")
    tooltip = [
        "rescaling:N",
        alt.Tooltip("factor:Q", title="c", format=".3g"),
        alt.Tooltip("selectivity:Q", format=".3g"),
        alt.Tooltip("wasserstein:Q", title="W₁", format=".3f"),
    ]
    rings = " || ".join(f"datum.rescaling == '{styles[name]['label']}'" for name in _RING)
    dots = (
        marked.transform_filter(f"!({rings})")
        .mark_point(filled=True, size=70, opacity=0.9, stroke="white", strokeWidth=0.6)
        .encode(x=x_axis, y=y_axis, color=colour, shape=shape, tooltip=tooltip)
        .properties(name="rescalings")
    )
    hollow = (
        marked.transform_filter(rings)
        .mark_point(filled=False, size=160, strokeWidth=2)
        .encode(x=x_axis, y=y_axis, color=colour, shape=shape, tooltip=tooltip)
        .properties(name="references")
    )
    ring = on_curve.transform_filter(factor.selects()).mark_point(
        shape="circle", size=420, filled=False, color="black", strokeWidth=2.5
    )
    ring = ring.encode(x=x_axis, y=y_axis).properties(name="factor")
    numbers = (
        grey.transform_filter(f"{selects(sliders)}")
        .transform_calculate(
            text=readout(
                ("f = ", "f", ".3g"),
                (", c = ", "factor", ".3g"),
                (": selectivity ", "selectivity", ".3g"),
                (", W₁ ", "wasserstein", ".3f"),
                (", keys / n ", "effective_share", ".3f"),
                (", ‖J‖ ", "jacobian_norm", ".3g"),
            )
        )
        .mark_text(align="left", baseline="bottom", dy=-8)
        .encode(x=alt.value(0), y=alt.value(0), text="text:N")
        .properties(name="readout")
    )
    chart = alt.layer(line, dots, hollow, ring, numbers).properties(width=430, height=330)
    return Explorable(
        chart,
        sliders,
        "Distortion W₁ against selectivity for standard normal queries and keys: the curve of "
        "constant factors f/√d and every rescaling, for the dimension d, the number of keys n "
        "and the factor f chosen with the sliders.",
    )


_LOG_LABEL = "datum.value >= 0.001 ? format(datum.value, '~g') : format(datum.value, '.0e')"
"""Tick labels of a logarithmic axis: plain down to 0.001, powers of ten below."""


def _log_domain(values: pd.Series) -> list[float]:
    """A logarithmic axis range around ``values``, a tenth of a decade beyond each end."""
    low, high = float(values.min()), float(values.max())
    return [low / 10**0.1, high * 10**0.1]


def _finish(fig: matplotlib.figure.Figure, handles: list, ncol: int) -> matplotlib.figure.Figure:
    """A shared legend below the panels, in the figure's constrained layout (it makes room
    for it after the kit raises small text); the caption, not the image, carries the title."""
    fig.legend(handles=handles, loc="outside lower center", ncol=ncol, frameon=False)
    return fig


def _short(value: float) -> str:
    """0.85, 0.13, 0.02 or 3e-4: two digits where they fit, else a power of ten."""
    return f"{value:.2f}" if value >= 0.01 else f"{value:.0e}".replace("e-0", "e-")


def families_figure(
    w_matrix: pd.DataFrame,
    s_matrix: pd.DataFrame,
    styles: Mapping[str, dict[str, Any]],
) -> matplotlib.figure.Figure:
    """Heat maps of distortion (top) and selectivity (bottom), rescalings (rows, in
    ``styles``' order) by families (columns); the rows of 1/k_total and 1/√d framed in their
    colours."""
    order = list(styles)
    w_matrix, s_matrix = w_matrix.loc[order], s_matrix.loc[order]
    fig, (ax_w, ax_s) = plt.subplots(2, 1, figsize=(10, 11), sharex=True, layout="constrained")
    vmax = max(0.85, float(w_matrix.max().max()))
    image = ax_w.imshow(w_matrix.to_numpy(), cmap="magma_r", vmin=0, vmax=vmax, aspect="auto")
    fig.colorbar(image, ax=ax_w, label="W₁ (lower: shape kept)")
    floor = max(1e-6, float(s_matrix.min().min()))
    image = ax_s.imshow(
        s_matrix.to_numpy(), cmap="viridis", norm=LogNorm(vmin=floor, vmax=1.0), aspect="auto"
    )
    fig.colorbar(image, ax=ax_s, label="selectivity 1 − H / ln n (log scale)")
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
        ax.set_yticks(range(len(order)), [styles[name]["label"] for name in order])
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
    return fig


def family_frontiers_figure(
    curves: pd.DataFrame,
    points: pd.DataFrame,
    families: Sequence[str],
    styles: Mapping[str, dict[str, Any]],
) -> matplotlib.figure.Figure:
    """The distortion/selectivity curve of constant factors and every rescaling, one panel
    per family, two panels a row so that the figure fits the text column: the rescalings of
    :data:`HIGHLIGHTED` in their colours and markers (named in the legend), the others as
    small grey dots."""
    columns = 2
    rows = max(1, math.ceil(len(families) / columns))
    fig, axes = plt.subplots(
        rows,
        columns,
        figsize=(9, 2.9 * rows + 1.4),
        sharex=True,
        sharey=True,
        squeeze=False,
        layout="constrained",
    )
    shown = {name: styles[name] for name in HIGHLIGHTED if name in styles}
    muted = [name for name in styles if name not in shown]
    for ax, family in zip(axes.ravel(), families, strict=False):
        _draw_curve(ax, curves[curves["family"] == family], "wasserstein")
        mine = points[points["family"] == family]
        grey = mine[mine["rescaling"].isin(muted)]
        ax.scatter(grey["selectivity"], grey["wasserstein"], s=24, facecolor="none",
                   edgecolor="0.45", linewidth=0.9, zorder=2)  # fmt: skip
        _draw_points(ax, mine, "wasserstein", shown, size=55)
        ax.set(xscale="log", yscale="log", title=family)
        ax.xaxis.set_major_locator(LogLocator(base=10, numticks=4))
        _plain_log_ticks(ax.yaxis)
    for ax in axes.ravel()[len(families) :]:
        ax.set_visible(False)
    for ax in axes[-1]:
        ax.set_xlabel("selectivity 1 − H / ln n")
    fig.supylabel("W₁, distortion of the shape")
    other = Line2D([], [], ls="", marker="o", markerfacecolor="none", markeredgecolor="0.45",
                   label=f"the other {len(muted)} rescalings")  # fmt: skip
    handles = [_curve_handle(), *_handles(shown), *([other] if muted else [])]
    return _finish(fig, handles, ncol=3)


def grid_matrix(summary: pd.DataFrame, name: str, column: str) -> pd.DataFrame:
    """``column`` of the rescaling ``name`` as a matrix, ``n`` (rows, descending) by ``d``.

    >>> toy = pd.DataFrame({"rescaling": "r", "d": [2, 4, 2, 4], "n": [3, 3, 5, 5],
    ...                     "wasserstein": [1.0, 2.0, 3.0, 4.0]})
    >>> grid_matrix(toy, "r", "wasserstein").to_numpy().tolist()
    [[3.0, 4.0], [1.0, 2.0]]
    """
    part = summary[summary["rescaling"] == name]
    return part.pivot(index="n", columns="d", values=column).sort_index(ascending=False)


_GRID_RATIOS = {
    "wasserstein": "distortion W₁",
    "selectivity": "selectivity",
    "gradient_norm": "‖∂s/∂q‖",
}
_GRID_LINES = [("-", "o"), ("--", "s"), (":", "^")]


def _over_d(ax: Any, matrix: pd.DataFrame, **style: Any) -> None:
    """One line per ``n`` (rows of ``matrix``): the median over ``d`` (columns), and the
    smallest to largest value over ``d`` shaded."""
    n = matrix.index.to_numpy(dtype=float)
    ax.fill_between(
        n, matrix.min(axis=1), matrix.max(axis=1), color=style["color"], alpha=0.2, lw=0
    )
    ax.plot(n, matrix.median(axis=1), markersize=6, lw=1.6, **style)


def d_n_grid_figure(summary: pd.DataFrame) -> matplotlib.figure.Figure:
    """Against ``n``: the ratios of 1/k_total to 1/√d (distortion, selectivity, gradient;
    left) and the effective share of keys under both (right), each the median over ``d``
    with its range over ``d`` shaded."""
    fig, (ax_r, ax_e) = plt.subplots(1, 2, figsize=(11, 5), layout="constrained")
    handles = []
    for (column, label), (ls, marker) in zip(_GRID_RATIOS.items(), _GRID_LINES, strict=True):
        ratio = grid_matrix(summary, "k_total", column) / grid_matrix(summary, "sqrt_d", column)
        _over_d(ax_r, ratio, color="0.2", ls=ls, marker=marker)
        handles.append(Line2D([], [], color="0.2", ls=ls, marker=marker, label=f"ratio of {label}"))
    ax_r.axhline(1.0, color="0.5", lw=0.8)
    ax_r.set(yscale="log", ylabel="ratio, 1/k_total over 1/√d")
    for name in ("k_total", "sqrt_d"):
        style = method_style(name)
        _over_d(ax_e, grid_matrix(summary, name, "effective_share"), **style)
        kw = dict(color=style["color"], marker=style["marker"])
        handles.append(Line2D([], [], **kw, label=f"effective keys / n, {style['label']}"))
    ax_e.set(ylim=(0, 1.05), ylabel="effective keys / n (1: uniform)")
    ticks = sorted(summary["n"].unique())
    for ax in (ax_r, ax_e):
        ax.set_xscale("log")
        ax.set_xticks(ticks, [f"{v:g}" for v in ticks])
        ax.minorticks_off()
        ax.set_xlabel("number of keys n")
    handles.append(Patch(color="0.2", alpha=0.2, label="smallest to largest over d"))
    return _finish(fig, handles, ncol=3)


def d_spread_sentence(summary: pd.DataFrame) -> str:
    """How much the lines of :func:`d_n_grid_figure` change with ``d`` at a fixed ``n``: the
    largest spread over ``d`` (largest over smallest value, less 1) at any ``n``.

    >>> toy = pd.DataFrame({"rescaling": ["k_total"] * 4 + ["sqrt_d"] * 4,
    ...     "d": [2, 4, 2, 4] * 2, "n": [3, 3, 5, 5] * 2,
    ...     "wasserstein": [1, 1.1, 1, 1, 2, 2, 2, 2], "selectivity": 1.0,
    ...     "gradient_norm": 1.0, "effective_share": [1, 1, 1, 1, 0.5, 0.5, 0.4, 0.5]})
    >>> d_spread_sentence(toy)
    'Over d from 2 to 4, at each n the ratio of distortion W₁ changes by at most 10 %, of \
selectivity by at most 0 %, of ‖∂s/∂q‖ by at most 0 %; the effective share of keys by at \
most 0 % under 1/k_total and 25 % under 1/√d.'
    """

    def spread(matrix: pd.DataFrame) -> str:
        return f"{100 * float((matrix.max(axis=1) / matrix.min(axis=1)).max() - 1):.2g} %"

    ratios = ", of ".join(
        f"{label} by at most "
        + spread(grid_matrix(summary, "k_total", column) / grid_matrix(summary, "sqrt_d", column))
        for column, label in _GRID_RATIOS.items()
    ).replace(" by", " changes by", 1)
    shares = [
        spread(grid_matrix(summary, name, "effective_share")) for name in ("k_total", "sqrt_d")
    ]
    return (
        f"Over d from {summary['d'].min()} to {summary['d'].max()}, at each n the ratio of "
        f"{ratios}; the effective share of keys by at most {shares[0]} under 1/k_total and "
        f"{shares[1]} under 1/√d."
    )


def matched_comparisons(
    comparison: Comparison,
    families: Mapping[str, QueryKeyModel],
    a: str,
    references: Sequence[str],
) -> dict[str, pd.DataFrame]:
    """Per rescaling ``b`` of ``references``: ``a`` against ``b`` at ``a``'s selectivity in
    every configuration of ``comparison`` (:meth:`~attncore.simulate.study.Comparison.every`),
    paired over its draws (:func:`attncore.evidence.rescalings.matched_pairs`). The draws are
    made again from ``families`` and the comparison's seed, as
    :func:`~attncore.simulate.sweep.rescaling_sweep` made them, and must reproduce ``a``'s
    measured selectivity (:func:`attncore.evidence.rescalings.matched_draws` checks).

    >>> from attncore.simulate.study import run_comparison, study_families, study_rescalings
    >>> small = {k: r for k, r in study_rescalings().items() if k in ("sqrt_d", "k_total")}
    >>> comparison = run_comparison(study_families(), small, d_main=8, n_main=4,
    ...     n_queries=50, family_settings=[], d_values=[8], n_values=[4], grid_queries=50,
    ...     n_seeds=2, seed=0, threshold=0.9)
    >>> matched = matched_comparisons(comparison, study_families(), "k_total", ["sqrt_d"])
    >>> len(matched["sqrt_d"]), bool((matched["sqrt_d"]["selectivity_diff"].abs() < 1e-6).all())
    (9, True)
    """
    settings = comparison.settings
    seed = int(settings["seed"])
    rows: dict[str, list[dict[str, Any]]] = {b: [] for b in references}
    parts = [
        (comparison.families, settings["n_queries"], None, np.float64),
        (comparison.grid, settings["grid_queries"], NORMAL + " (grid)", np.float32),
    ]  # each with its products' precision, as run_comparison computed them
    for table, m, renamed, dtype in parts:
        for (family, d, n), part in table.groupby(["family", "d", "n"], sort=False):
            by = part.pivot(index="replicate", columns="rescaling")
            dots = []
            for replicate in by.index:
                rng = draw_generator(seed, family, d, n, replicate)
                queries, keys = families[family].sample(rng, int(m), int(n), int(d))
                dots.append(queries.astype(dtype) @ keys.T.astype(dtype))
            factors = {b: by["factor"][b] for b in references}
            found = ev.matched_draws(dots, by["factor"][a], by["selectivity"][a], factors)
            for b in references:
                rows[b] += [
                    {
                        "family": renamed or family,
                        "d": d,
                        "n": n,
                        "wasserstein_a": by["wasserstein"][a].iloc[i],
                        "wasserstein_b": found[b]["wasserstein"][i],
                        "selectivity_a": by["selectivity"][a].iloc[i],
                        "selectivity_b": found[b]["selectivity"][i],
                        "multiplier": found[b]["multiplier"],
                    }
                    for i in range(len(by))
                ]
    return {b: ev.matched_pairs(pd.DataFrame(rows[b])) for b in references}


def _name_line_ends(
    fig: matplotlib.figure.Figure, ends: Mapping[Any, Sequence[tuple[str, float, float, str]]]
) -> None:
    """For each axes of ``ends``, write each ``(name, x, y, colour)`` just right of the axes
    at the height of its line's end ``(x, y)``, moved apart so that no two names overlap,
    with a thin leader where a name had to move. The names take room the layout then gives
    them, which changes the axes' heights, so they are spaced again until that settles."""
    placed = {}
    for ax, named in ends.items():
        to_axes = ax.transData + ax.transAxes.inverted()
        anchors = sorted((float(to_axes.transform((x, y))[1]), n, c) for n, x, y, c in named)
        placed[ax] = []
        for y, name, colour in anchors:
            leader = dict(arrowstyle="-", color=colour, lw=0.7, relpos=(0, 0.5))  # from the left
            note = ax.annotate(
                name,
                xy=(1.0, y),
                xycoords="axes fraction",
                xytext=(1.04, y),
                textcoords="axes fraction",
                va="center",
                ha="left",
                color=colour,
                fontsize=LABEL_PT,
                annotation_clip=False,
                arrowprops=leader,
            )
            placed[ax].append((y, note))
    for _ in range(4):
        fig.canvas.draw()  # lay the figure out, so the axes' heights are known
        for ax, names in placed.items():
            gap = 1.25 * LABEL_PT / (ax.get_window_extent().height * 72 / fig.dpi)
            heights: list[float] = []
            for y, _ in names:
                heights.append(max(y, heights[-1] + gap) if heights else y)
            overflow = max(0.0, heights[-1] - 1.0) if heights else 0.0
            heights = [h - overflow for h in heights]  # the top name inside the axes' height
            for i in range(len(heights) - 2, -1, -1):  # none pushed into the one above it
                heights[i] = min(heights[i], heights[i + 1] - gap)
            for (y, note), height in zip(names, heights, strict=True):
                note.xyann = (1.04, height)
                note.arrow_patch.set_visible(abs(height - y) > gap / 4)


def gradients_figure(
    summary: pd.DataFrame,
    styles: Mapping[str, dict[str, Any]],
    d_ref: int,
    n_ref: int,
    threshold: float,
) -> matplotlib.figure.Figure:
    """The mean softmax Jacobian norm (top), the share of rows whose largest probability
    exceeds ``threshold`` (middle) and the gradient reaching the query (bottom), against ``d``
    at ``n_ref`` (left) and against ``n`` at ``d_ref`` (right). The rescalings of
    :data:`HIGHLIGHTED` are drawn in their colours (1/√d and 1/k_total as rings) and named at
    the right end of their lines; the others are thin grey lines."""
    fig, axes = plt.subplots(3, 2, figsize=(10.5, 11), sharey="row", layout="constrained")
    sweeps = [("d", "n", n_ref), ("n", "d", d_ref)]
    rows = [
        ("jacobian_norm", r"mean $\|J\|_F$, softmax Jacobian"),
        ("saturated_share", f"share of rows with\nlargest probability > {threshold:g}"),
        ("gradient_norm", r"mean $\|\partial s/\partial q\|_F$"),
    ]
    shown = [name for name in HIGHLIGHTED if name in styles]
    muted = [name for name in styles if name not in shown]
    ends: list[list[tuple[str, float, float, str]]] = [[] for _ in rows]
    for col, (axis, fixed, value) in enumerate(sweeps):
        part = summary[summary[fixed] == value]
        for name in muted + shown:  # the highlighted on top
            style, line = styles[name], part[part["rescaling"] == name].sort_values(axis)
            if line.empty:
                continue
            for row, (column, _) in enumerate(rows):
                ax = axes[row, col]
                if name in muted:
                    ax.plot(line[axis], line[column], color=_MUTED, lw=1.0, zorder=1)
                    continue
                # a ring goes under the filled markers, so one at its place shows inside it
                ring = name in _RING
                kw = dict(**_marker(style, ring, 5), lw=1.6, zorder=1.9 if ring else 2)
                ax.errorbar(line[axis], line[column], yerr=2 * line[f"{column}_se"], **kw)
                if col == 1:
                    last = line.iloc[-1]
                    ends[row].append((style["label"], last[axis], last[column], style["color"]))
            if name == "none":
                axes[2, col].plot(
                    line[axis], line["gradient_median"], color="black", ls="--", lw=1.2
                )
        ticks = np.array(sorted(part[axis].unique()), dtype=float)
        n_of = ticks if axis == "n" else np.full_like(ticks, n_ref)
        axes[0, col].plot(ticks, np.sqrt(n_of - 1) / n_of, color="0.5", ls=":", lw=2)
        axes[2, col].set_yscale("log")
        for ax in axes[:, col]:
            ax.set_xscale("log")
            ax.set_xticks(ticks, [f"{v:g}" for v in ticks])
            ax.minorticks_off()
        swept = "dimension d" if axis == "d" else "number of keys n"
        axes[2, col].set_xlabel(f"{swept} ({fixed} = {value})")
    axes[0, 0].set_ylim(0, None)
    axes[1, 0].set_ylim(-0.03, 1.03)
    for row, (_, label) in enumerate(rows):
        axes[row, 0].set_ylabel(label)
    handles = [
        Line2D([], [], color=_MUTED, lw=1.0, label=f"the other {len(muted)} rescalings"),
        Line2D(
            [], [], color="0.5", ls=":", lw=2, label=r"uniform attention: $\|J\|_F = \sqrt{n-1}/n$"
        ),
        Line2D([], [], color="black", ls="--", lw=1.2, label="no scaling, median over queries"),
    ]
    fig.legend(handles=handles[0 if muted else 1 :], loc="outside lower center", ncol=2,
               frameon=False)  # fmt: skip
    _name_line_ends(fig, {axes[row, 1]: named for row, named in enumerate(ends)})
    return fig
