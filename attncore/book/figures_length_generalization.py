"""Figures of the chapter on length generalization: accuracy, attention entropy and largest
weight against the test length, one line per method (its mean over the seeds) with the
interval of the accuracy as a band.

A method is a trained scaling (:func:`attncore.book.plotting.method_style`) or
``"<scaling> + <temperature>"``, a trained scaling with an inference-time temperature, drawn in
the scaling's colour with its own line style.

>>> method_label("sqrt_d + yarn")
'1/√d + YaRN'
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import matplotlib.pyplot as plt
import pandas as pd
from matplotlib.figure import Figure
from matplotlib.ticker import FuncFormatter

from attncore.book.plotting import CONTRAST, method_style
from attncore.evidence.length_generalization import accuracy_text

__all__ = ["accuracy_figure", "attention_figure", "ladder_rows", "method_label", "replication_rows"]

TEMPERATURE_LABELS = {"yarn": "YaRN", "qwen": "Qwen log-n"}
"""How an inference-time temperature is named in labels."""

_DASHES = {"yarn": (0, (5, 2)), "qwen": (0, (1, 1.5))}
_MARKERS = {"yarn": "s", "qwen": "^"}
"""A temperature's own dash and open marker, so that its curve and legend entry differ from
the trained model's at a glance, not only by the dash."""

_plain = FuncFormatter(lambda value, _: f"{value:g}")


def method_label(method: str) -> str:
    """The label of a trained scaling, or of one with an inference-time temperature."""
    base, _, temperature = method.partition(" + ")
    label = method_style(base)["label"].replace(" (g = auto)", "")
    return f"{label} + {TEMPERATURE_LABELS[temperature]}" if temperature else label


def _style(method: str) -> dict[str, Any]:
    base, _, temperature = method.partition(" + ")
    style = method_style(base)
    return {
        "color": style["color"],
        "marker": _MARKERS.get(temperature, style["marker"]),
        "markerfacecolor": "white" if temperature else style["color"],
        "ls": _DASHES.get(temperature, "-"),
        "label": method_label(method),
        "markersize": 5,
        "lw": 1.4,
    }


def accuracy_figure(
    summary: pd.DataFrame,
    panels: Mapping[str, Sequence[str]],
    anchors: Mapping[str, float],
    train_length: int,
) -> Figure:
    """One panel per entry of ``panels`` (title -> methods): accuracy against test length,
    mean over the seeds with its interval as a band; ``anchors`` (label -> accuracy at 1,000
    bits) are drawn as black markers; the training length as a grey line."""
    fig, axes = plt.subplots(
        1, len(panels), figsize=(5.2 * len(panels), 5.4), sharey=True, layout="constrained"
    )
    axes = [axes] if len(panels) == 1 else list(axes)
    shown = summary.loc[[m for methods in panels.values() for m in methods], "low"]
    floor = min(0.4, max(0.0, float(shown.min()) - 0.02))  # no band cut off below
    for ax, (title, methods) in zip(axes, panels.items(), strict=True):
        for method in methods:
            rows = summary.loc[method].sort_index()
            style = _style(method)
            ax.plot(rows.index, rows["accuracy"], **style)
            ax.fill_between(
                rows.index,
                rows["low"].clip(0, 1),
                rows["high"].clip(0, 1),
                color=style["color"],
                alpha=0.12,
                lw=0,
            )
        for i, (label, value) in enumerate(anchors.items()):
            marker = "*" if i % 2 else "P"
            ax.plot([1000], [value], ls="", marker=marker, color=CONTRAST[0], ms=9, label=label)
        ax.axvline(train_length, color=CONTRAST[1], lw=0.8, ls=":")
        ax.set_xscale("log")
        ax.xaxis.set_major_formatter(_plain)
        ax.set_xlabel("test length (bits)")
        ax.set_title(title)
        ax.set_ylim(floor, 1.03)
        columns = 1 if len(methods) + len(anchors) <= 6 else 2  # no wider than its panel
        ax.legend(fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.16), ncol=columns)
    axes[0].set_ylabel("accuracy (exact over all strings)")
    return fig  # the constrained layout keeps the legends below the panels inside the figure


def attention_figure(summary: pd.DataFrame, methods: Sequence[str], train_length: int) -> Figure:
    """The [CLS] query's attention in the last layer against test length: entropy over ln n
    (left) and largest weight (right), means over the seeds."""
    fig, (left, right) = plt.subplots(1, 2, figsize=(10.4, 5.0))
    for method in methods:
        rows = summary.loc[method].sort_index()
        style = _style(method)
        left.plot(rows.index, rows["entropy"], **style)
        right.plot(rows.index, rows["largest"], **{**style, "label": None})
    for ax, label in ((left, "entropy / ln n"), (right, "largest attention weight")):
        ax.axvline(train_length, color=CONTRAST[1], lw=0.8, ls=":")
        ax.set_xscale("log")
        ax.xaxis.set_major_formatter(_plain)
        ax.set_xlabel("test length (bits)")
        ax.set_ylabel(label)
        ax.set_ylim(-0.02, 1.02)
    fig.legend(fontsize=7, loc="lower center", ncol=4, bbox_to_anchor=(0.5, 0.0))
    fig.tight_layout(rect=(0, 0.12, 1, 1))
    return fig


_FLOOR = 1e-20
"""Where the layer-norm figure draws a cross-entropy below it (on its logarithmic axis)."""


def layer_norm_figure(table: pd.DataFrame, scales: Sequence[float]) -> Figure:
    """The constructed FIRST network's cross-entropy against the length (log axis, values
    below :data:`_FLOOR` drawn at it): without layer normalization, then with it at each
    ``eps`` of ``table``; one line per output scale of ``scales``."""
    panels = [(False, None)] + [(True, e) for e in sorted(table["eps"].unique())]
    fig, axes = plt.subplots(1, len(panels), figsize=(10.4, 4.4), sharey=True)
    dashes = ("-", "--", ":", "-.")
    for ax, (normed, eps) in zip(axes, panels, strict=True):
        rows = table[table["layer_norm"] == normed]
        rows = rows if eps is None else rows[rows["eps"] == eps]
        for i, scale in enumerate(scales):
            line = rows[rows["scale"] == scale].drop_duplicates("length").sort_values("length")
            style = {"color": CONTRAST[i % 3], "ls": dashes[i % 4], "marker": "o", "ms": 3}
            values = line["cross_entropy"].clip(lower=_FLOOR)
            ax.plot(line["length"], values, label=f"output scale {scale:g}", **style)
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.xaxis.set_major_formatter(_plain)
        ax.set_xlabel("length (bits)")
        ax.set_ylim(_FLOOR / 3, 3)
        ax.set_title("no layer normalization" if eps is None else f"layer norm., ε = {eps:g}")
    axes[0].set_ylabel("cross-entropy (bits per string)")
    axes[0].legend(fontsize=8, loc="lower left")
    fig.tight_layout()
    return fig


_AUTHORS_METHODS = {"standard": "standard", "log_n": "log-n scaling"}
"""How the tables name the authors' two attentions."""


def _interval_cell(mean: float, low: float, high: float) -> str:
    return accuracy_text(pd.Series({"accuracy": mean, "low": low, "high": high}))


def replication_rows(
    replicated: pd.DataFrame, published: pd.DataFrame, length: int
) -> pd.DataFrame:
    """The page's table of the authors' setup run here (rows of
    :func:`attncore.evidence.length_generalization.replication_table`) beside the replication
    (rows of :func:`attncore.sources.replication.replication_at_100_epochs`) at ``length``
    bits: one row per training length and attention.

    >>> here = pd.DataFrame({"train_length": 10, "method": ["standard"], "test_length": 1000,
    ...     "accuracy_mean": 0.6, "accuracy_low": 0.5, "accuracy_high": 0.7,
    ...     "cross_entropy_mean": 1.5, "seeds": 20})
    >>> there = pd.DataFrame({"accuracy": [0.534], "accuracy_low": [0.52],
    ...     "accuracy_high": [0.55], "cross_entropy": [4.5]},
    ...     index=pd.MultiIndex.from_tuples([("standard", 10)]))
    >>> replication_rows(here, there, 1000).iloc[0].tolist()
    ['0.600 [0.500, 0.700]', '1.5', '0.534 [0.520, 0.550]', '4.5']
    """
    rows = []
    for r in replicated[replicated["test_length"] == length].itertuples():
        key = (r.method, r.train_length)
        theirs = published.loc[key] if key in published.index else None
        rows.append({
            "trained at": f"{r.train_length} bits, {_AUTHORS_METHODS[r.method]}",
            "here: accuracy": _interval_cell(r.accuracy_mean, r.accuracy_low, r.accuracy_high),
            "here: cross-entropy": f"{r.cross_entropy_mean:.2g}",
            "replication: accuracy": "not run" if theirs is None else _interval_cell(
                theirs["accuracy"], theirs["accuracy_low"], theirs["accuracy_high"]),
            "replication: cross-entropy":
                "–" if theirs is None else f"{theirs['cross_entropy']:.2g}",
        })  # fmt: skip
    return pd.DataFrame(rows).set_index("trained at")


def ladder_rows(ladder: pd.DataFrame) -> pd.DataFrame:
    """One row per setup (rows of
    :func:`attncore.evidence.length_generalization.replication_table` at one test length with a
    column ``setup``, in order): each attention's mean accuracy over the seeds and its interval.

    >>> ladder = pd.DataFrame({"setup": "the authors' setup", "method": ["standard"],
    ...     "accuracy_mean": 0.6, "accuracy_low": 0.0, "accuracy_high": 1.0})
    >>> ladder_rows(ladder).iloc[0].tolist()
    ['0.600 [0.000, 1.000]']
    """
    rows: dict[str, dict[str, str]] = {}
    for r in ladder.itertuples():
        cell = _interval_cell(r.accuracy_mean, r.accuracy_low, r.accuracy_high)
        rows.setdefault(r.setup, {})[_AUTHORS_METHODS[r.method]] = cell
    return pd.DataFrame.from_dict(rows, orient="index").rename_axis("setup")
