"""Figures and reader-facing tables of the softmax-saturation chapter.

>>> import numpy as np
>>> frame = matrix_frame(np.eye(2) / 3, decimals=3)
>>> frame.to_dict()
{'s1': {'s1': 0.333, 's2': 0.0}, 's2': {'s1': 0.0, 's2': 0.333}}
"""

from __future__ import annotations

from collections.abc import Sequence

import altair as alt
import matplotlib.figure
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.ticker import FuncFormatter

from attncore.book.explorable import Explorable, Slider, inline_data, readout
from attncore.book.plotting import method_style
from attncore.simulate.saturation import ROW_METRICS
from attncore.sources.blog import FactorSweep

__all__ = [
    "curve_table",
    "example_explorable",
    "example_figure",
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


UNSCALED_DASHES = {64: ":", 512: "-."}
"""The line style of the unscaled spread at each marked d: dotted and dash-dotted."""

_DISTINCT_PATTERNS = {"lines.dotted_pattern": [1, 1.6], "lines.dashdot_pattern": [7, 2.5, 1.2, 2.5]}
"""Dots close together and long dashes between single dots, so that the two grey lines of
:data:`UNSCALED_DASHES` cannot be taken for one another (matplotlib's defaults, 1-1.65 and
6.4-1.6-1-1.6, look alike at the book's line widths); the styles keep their names."""


def saturation_figure(curve: pd.DataFrame, uniform_norm: float) -> matplotlib.figure.Figure:
    """Entropy, largest probability and Jacobian norm against the logit spread (log scale),
    with ±2 standard-error bands and the spreads of 1/√d-scaled and unscaled logits. Each
    panel names its measure on its vertical axis; the figure has no title (its caption says
    what it shows).

    >>> from attncore.simulate.saturation import saturation_curve
    >>> curve = saturation_curve(np.geomspace(0.1, 50.0, 5), n_keys=8, n_rows=20, seed=0)
    >>> fig = saturation_figure(curve, uniform_norm=np.sqrt(7) / 8)
    >>> [ax.get_ylabel() for ax in fig.axes], fig.get_suptitle()
    (['entropy / ln n', 'largest probability', 'Jacobian Frobenius norm'], '')
    """
    scaled, unscaled = method_style("sqrt_d"), method_style("none")
    fig, axes = plt.subplots(1, 3, figsize=(12, 4.2), sharex=True, layout="constrained")
    for ax, metric in zip(axes, ["entropy_ratio", "max_probability", "jacobian_norm"], strict=True):
        mean, se = curve[metric], curve[f"{metric}_se"]
        ax.plot(curve["spread"], mean, color=CURVE)
        ax.fill_between(curve["spread"], mean - 2 * se, mean + 2 * se, color=CURVE, alpha=0.2, lw=0)
        ax.set_xscale("log")
        ax.set_ylabel(ROW_METRICS[metric])
        ax.set_xlabel(r"logit spread $\sigma$")
        ax.axvline(
            1.0, color=scaled["color"], ls="--", lw=1.2, label=rf"{scaled['label']}: $\sigma = 1$"
        )
        for d, style in UNSCALED_DASHES.items():
            with plt.rc_context(_DISTINCT_PATTERNS):
                ax.axvline(
                    np.sqrt(d),
                    color=unscaled["color"],
                    ls=style,
                    lw=1.6,
                    label=rf"{unscaled['label']} (unscaled), $d={d}$: $\sigma={np.sqrt(d):.1f}$",
                )
    # each line named on it in the middle panel, away from the curve (low at σ = 1, high
    # at the unscaled spreads)
    for x, y, text in [(1.0, 0.97, "1/√d"), (8.0, 0.03, "d = 64"), (np.sqrt(512), 0.03, "d = 512")]:
        axes[1].annotate(
            text, (x, y), xytext=(3, 0), textcoords="offset points", rotation=90,
            ha="left", va="top" if y > 0.5 else "bottom", fontsize=9,
        )  # fmt: skip
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
    return fig


REFERENCE = "#8C8C8C"
"""Colour of the logits at factor 1, the reference the scaled row is compared with."""

_MEASURES = {"jacobian_norm": "‖J‖_F, Jacobian norm", "entropy_ratio": "entropy / ln n"}


def example_figure(sweep: FactorSweep, factor: float) -> matplotlib.figure.Figure:
    """The worked example as its logits are multiplied by a growing factor c: left, the
    softmax of y and of ``factor`` y per key; right, the Jacobian norm and the normalized
    entropy of the softmax of c y over every factor of ``sweep``, with 1 and ``factor``
    marked."""
    one, scaled = sweep.index(1.0), sweep.index(factor)
    keys = np.arange(1, sweep.y.size + 1)
    fig, (bars, curves) = plt.subplots(
        1, 2, figsize=(10, 4.2), layout="constrained", width_ratios=[1, 1.3]
    )
    width = 0.4
    bars.bar(keys - width / 2, sweep.probabilities[one], width, color=REFERENCE, label="c = 1: y")
    bars.bar(
        keys + width / 2,
        sweep.probabilities[scaled],
        width,
        color=CURVE,
        label=f"c = {factor:g}: {factor:g} y",
    )
    bars.set(xticks=keys, xlabel="key i", ylabel="softmax(c y)ᵢ", ylim=(0, 1))
    bars.legend(loc="upper left", frameon=False)
    for (key, label), style in zip(_MEASURES.items(), ["-", "--"], strict=True):
        curves.plot(sweep.factors, getattr(sweep, key), color=CURVE, ls=style, label=label)
    for at, colour in ((one, REFERENCE), (scaled, CURVE)):
        curves.axvline(sweep.factors[at], color=colour, lw=1, ls=":")
        for key in _MEASURES:
            curves.plot(sweep.factors[at], getattr(sweep, key)[at], "o", color=colour, ms=6)
    curves.set(xscale="log", xlabel="factor c on the logits", ylim=(0, 1.02))
    curves.xaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
    curves.legend(loc="center left", frameon=False)
    return fig


def example_explorable(sweep: FactorSweep, factor: float) -> Explorable:
    """:func:`example_figure` with a slider on the factor c over every factor of ``sweep``:
    the softmax of c y per key (grey ticks: c = 1), and where c puts the Jacobian norm and
    the normalized entropy, read out above the curves."""
    slider = Slider(
        "c_index", "factor c on the logits", [f"{c:.3g}" for c in sweep.factors], sweep.index(1.0)
    )
    n_keys = sweep.y.size
    rows = pd.DataFrame(
        {
            "c_index": np.repeat(np.arange(sweep.factors.size), n_keys),
            "key": np.tile(np.arange(1, n_keys + 1), sweep.factors.size),
            "probability": sweep.probabilities.ravel(),
        }
    )
    measures = pd.DataFrame(
        {
            "c_index": np.tile(np.arange(sweep.factors.size), len(_MEASURES)),
            "c": np.tile(sweep.factors, len(_MEASURES)),
            "measure": np.repeat(list(_MEASURES.values()), sweep.factors.size),
            "value": np.concatenate([getattr(sweep, key) for key in _MEASURES]),
        }
    )
    readouts = pd.DataFrame(
        {
            "c_index": np.arange(sweep.factors.size),
            "c": sweep.factors,
            "max_probability": sweep.max_probability,
            **{key: getattr(sweep, key) for key in _MEASURES},
        }
    )
    probabilities = alt.Chart(inline_data(rows, "probabilities"))
    key_axis = alt.X("key:O", title="key i", axis=alt.Axis(labelAngle=0))
    p_axis = alt.Y("probability:Q", title="softmax(c y)ᵢ", scale=alt.Scale(domain=[0, 1]))
    shown = (
        probabilities.transform_filter(slider.selects())
        .mark_bar(color=CURVE, size=22)
        .encode(x=key_axis, y=p_axis, tooltip=["key:O", alt.Tooltip("probability:Q", format=".3f")])
        .properties(name="probabilities")
    )
    reference = (
        probabilities.transform_filter(f"datum.c_index == {sweep.index(1.0)}")
        .mark_tick(color=REFERENCE, thickness=3, size=30)
        .encode(x=key_axis, y=p_axis)
    )
    low, high = sweep.factors[0], sweep.factors[-1]
    ticks = [t for t in (0.1, 0.3, 1, 3, 10, 30, 100, 300, 1000, 3000, 10000) if low <= t <= high]
    c_axis = alt.X(
        "c:Q",
        title="factor c on the logits",
        scale=alt.Scale(type="log", domain=[sweep.factors[0], sweep.factors[-1]]),
        axis=alt.Axis(values=ticks, format="~g"),
    )
    value_axis = alt.Y("value:Q", title=None, scale=alt.Scale(domain=[0, 1]))
    style = alt.StrokeDash(
        "measure:N",
        scale=alt.Scale(domain=list(_MEASURES.values()), range=[[1, 0], [6, 4]]),
        legend=alt.Legend(title=None, orient="bottom", symbolType="stroke", symbolStrokeWidth=2),
    )
    lines = (
        alt.Chart(inline_data(measures, "measures"))
        .mark_line(color=CURVE)
        .encode(x=c_axis, y=value_axis, strokeDash=style)
    )
    current = alt.Chart(inline_data(readouts, "readouts")).transform_filter(slider.selects())
    rule = current.mark_rule(color=CURVE, strokeDash=[2, 2]).encode(x="c:Q")
    dots = (
        lines.transform_filter(slider.selects())
        .mark_point(filled=True, color=CURVE, size=60)
        .encode(x=c_axis, y=value_axis)
        .properties(name="measures")
    )
    numbers = (
        current.transform_calculate(
            text=readout(
                ("c = ", "c", ".3g"),
                (": largest probability ", "max_probability", ".3f"),
                (", entropy / ln n ", "entropy_ratio", ".3f"),
                (", ‖J‖_F ", "jacobian_norm", ".3g"),
            )
        )
        .mark_text(align="left", baseline="bottom", dy=-8)
        .encode(x=alt.value(0), y=alt.value(0), text="text:N")
        .properties(name="readout")
    )
    chart = alt.hconcat(
        alt.layer(reference, shown).properties(width=220, height=220),
        alt.layer(lines, rule, dots).properties(width=300, height=220),
    )
    chart = alt.vconcat(
        numbers.properties(width=560, height=1, view=alt.ViewBackground(stroke=None)),
        chart,
        spacing=4,
    )
    return Explorable(
        chart,
        [slider],
        f"The softmax of the post's {n_keys} logits times a factor c chosen with the slider, "
        "and the Jacobian norm and normalized entropy at that factor.",
    )
