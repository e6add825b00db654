"""Figures and reader tables of the chapter on Bernhard's figures (``bernhard_figures``).

The numbers come from :mod:`attncore.sources.bernhard`; this module only draws and formats
(figures, tables and the page's verdict lines).
The two samples of a panel have one style each across the chapter: as intended (vermilion,
solid) and as published (sky blue, dashed), colours no method of the book uses; per-rescaling
colours and markers come from :func:`attncore.book.plotting.method_style`.
"""

from __future__ import annotations

from collections.abc import Sequence

import altair as alt
import matplotlib.figure
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.ticker import FixedLocator, FormatStrFormatter, NullFormatter
from matplotlib.transforms import blended_transform_factory
from scipy import stats

from attncore.book.chapter import Chapter
from attncore.book.explorable import Explorable, Slider, inline_data, readout, selects
from attncore.book.kit import verdict_line
from attncore.book.plotting import CONTRAST, method_style
from attncore.claims.finding import Finding
from attncore.density import kde_curve
from attncore.distributions import QueryKeyModel
from attncore.sources.bernhard import PanelDraw, grid_panels, linearization

__all__ = [
    "EXPLORABLE_TITLES",
    "MEDIAN_FORMATS",
    "PANEL_TITLES",
    "SAMPLE_STYLE",
    "STATISTIC_LABELS",
    "distortion_pairs_figure",
    "linearization_figure",
    "panel_figure",
    "panel_grid_table",
    "panels_explorable",
    "sample_comparison_table",
    "scaling_label",
    "seed_spread_figure",
    "seed_spread_table",
    "show_verdict",
    "tradeoff_figure",
]

PANEL_TITLES = {
    "1a": r"(a) raw $q_i\cdot k_1$",
    "1b": r"(b) softmax, no scaling",
    "1c": r"(c) softmax of $q\cdot k/\sqrt{d}$",
    "2a": r"(a) raw $q_i\cdot k_1$",
    "2b": r"(b) softmax of $q\cdot k/\sqrt{d}$",
    "2c": r"(c) softmax of $q\cdot k/k_\mathrm{total}$",
}
EXPLORABLE_TITLES = {
    "1a": "(a) raw q·k₁",
    "1b": "(b) softmax, no scaling",
    "1c": "(c) softmax of q·k/√d",
    "2a": "(a) raw q·k₁",
    "2b": "(b) softmax of q·k/√d",
    "2c": "(c) softmax of q·k/k_total",
}
"""The panel titles of :data:`PANEL_TITLES` in plain text, for the explorable figure."""

SAMPLE_STYLE = {
    "intended": dict(color="#D55E00", ls="-"),
    "published": dict(color="#56B4E9", ls="--"),
}
"""The two samples' inks (the Okabe–Ito vermilion and sky blue, which no method of
:func:`~attncore.book.plotting.method_style` uses) and line styles."""
SAMPLES = ("intended", "published")


def scaling_label(rescaling: str | None) -> str:
    """The label of a panel's rescaling: ``raw q·k``, ``no scaling`` or the registry's label."""
    if rescaling is None:
        return "raw q·k"
    return "no scaling" if rescaling == "none" else method_style(rescaling)["label"]


def _standardized(x: np.ndarray) -> np.ndarray:
    return (x - x.mean()) / x.std()


def _signed(x: float, digits: int = 2) -> str:
    text = f"{x:+.{digits}f}"
    return text[1:] if float(text) == 0 else text


def _top_panel(ax: plt.Axes, draw: PanelDraw, kde_points: int) -> None:
    curves = {s: kde_curve(getattr(draw.values, s), n_points=kde_points) for s in SAMPLES}
    top = max(c[1].max() for c in curves.values())
    for offset, sample in enumerate(SAMPLES):
        grid, density = curves[sample]
        style = SAMPLE_STYLE[sample]
        ax.plot(grid, density, lw=1.8, **style)
        low, high = -(0.20 - 0.09 * offset) * top, -(0.12 - 0.09 * offset) * top
        ax.vlines(getattr(draw.values, sample), low, high, color=style["color"], lw=0.6, alpha=0.6)
    ax.axhline(0, color="0.3", lw=0.6)
    ax.set_ylim(-0.22 * top, 1.1 * top)
    ticks = ax.get_yticks()
    ax.set_yticks(ticks[(ticks >= 0) & (ticks <= 1.1 * top)])
    width = np.ptp(np.concatenate([draw.values.intended, draw.values.published]))
    ax.set_title(f"{PANEL_TITLES.get(draw.panel, draw.panel)}\nx range {width:.2g}")
    ax.set_xlabel("first component of the attention" if draw.rescaling else r"$q\cdot k$")
    ax.ticklabel_format(axis="x", style="sci", scilimits=(-3, 4))


def _shape_panel(ax: plt.Axes, draw: PanelDraw, row: pd.Series, kde_points: int) -> None:
    after = _standardized(draw.values.intended)
    grid, density = kde_curve(after, n_points=kde_points)
    ax.plot(grid, density, color=SAMPLE_STYLE["intended"]["color"], lw=1.8)
    if draw.rescaling is None:
        z = np.linspace(grid.min(), grid.max(), 200)
        ax.plot(z, stats.norm.pdf(z), color="0.35", ls=":", lw=1.5)
        text = f"skewness {_signed(stats.skew(after))}"
    else:
        g_b, f_b = kde_curve(_standardized(draw.raw.intended), n_points=kde_points)
        ax.plot(g_b, f_b, color="0.45", ls="--", lw=1.3)
        text = (
            f"skewness {_signed(row.skewness)}\n"
            f"W$_1$ {row.wasserstein:.3f}, KS {row.ks_statistic:.3f}"
        )
    cap = 1.2
    if density.max() > cap:
        ax.set_ylim(0, cap)
        ax.annotate(
            f"peak {density.max():.0f}, cut off",
            xy=(grid[density.argmax()], cap),
            xytext=(0.38, 0.55),
            textcoords="axes fraction",
            fontsize=8.5,
            arrowprops=dict(arrowstyle="->", color="0.3"),
        )
    ax.set_title(text, fontsize=10)
    ax.set_xlabel("(value - mean) / sd")


def panel_figure(
    draws: dict[str, PanelDraw],
    seed_rows: pd.DataFrame,
    panels: Sequence[str],
    *,
    kde_points: int = 512,
) -> matplotlib.figure.Figure:
    """One of Bernhard's figures redrawn. Row 1: each panel on its own axes as in the paper,
    both samples with their rugs. Row 2: the intended sample standardized, against the raw
    dot products of the same draw (or N(0, 1) for a raw panel), with its distortion. The
    numbers of a panel head it and each row has its legend below it, off the data."""
    fig = plt.figure(figsize=(11.5, 8.8), layout="constrained")
    rows = fig.subfigures(2, 1, height_ratios=[1.2, 1])
    axes = np.array([row.subplots(1, 3) for row in rows])
    intended = seed_rows[seed_rows["sample"] == "intended"].set_index("panel")
    for column, panel in enumerate(panels):
        _top_panel(axes[0, column], draws[panel], kde_points)
        _shape_panel(axes[1, column], draws[panel], intended.loc[panel], kde_points)
    for ax in axes[:, 0]:
        ax.set_ylabel("density")
    top = [
        plt.Line2D(
            [],
            [],
            lw=1.8,
            **SAMPLE_STYLE["intended"],
            label="as intended: $q_i\\cdot k_1$ over the queries (lower rug)",
        ),
        plt.Line2D(
            [],
            [],
            lw=1.8,
            **SAMPLE_STYLE["published"],
            label="as published: the R code's refilled column (upper rug)",
        ),
    ]
    rows[0].legend(handles=top, loc="outside lower center", ncol=2, frameon=False)
    bottom = [
        plt.Line2D(
            [],
            [],
            color=SAMPLE_STYLE["intended"]["color"],
            lw=1.8,
            label="the panel's values (as intended), standardized",
        ),
        plt.Line2D(
            [],
            [],
            color="0.45",
            ls="--",
            lw=1.3,
            label=r"raw $q_i\cdot k_1$ of the same draw, "
            "standardized",
        ),
        plt.Line2D([], [], color="0.35", ls=":", lw=1.5, label="N(0, 1), in (a)"),
    ]
    rows[1].legend(handles=bottom, loc="outside lower center", ncol=3, frameon=False)
    return fig


STATISTIC_LABELS = {
    "mean": "mean",
    "sd": "sd",
    "q05": "5 % quantile",
    "q25": "25 % quantile",
    "q50": "median",
    "q75": "75 % quantile",
    "q95": "95 % quantile",
    "skewness": "skewness",
    "bw.nrd0": "bandwidth bw.nrd0",
}
"""The columns of :func:`attncore.sources.bernhard.panel_table` and their headers."""

MEDIAN_FORMATS = {"sd of the scaled logits in a row": "{:.3g}"}
"""Formats of :func:`attncore.sources.bernhard.rescaling_medians` columns whose values span
decades: the logit spread of 1/k_total is read against 1/n, so it keeps three significant
digits where the unscaled spread has two decimals."""


def sample_comparison_table(panels: pd.DataFrame, ks_critical: float) -> pd.DataFrame:
    """Per panel, how the two samples of a draw compare over draws: the median KS distance
    between them, the share of draws in which it exceeds ``ks_critical``, and how much more
    the mean of the intended sample moves from draw to draw than that of the published one
    (the ratio of their standard deviations over draws). The sample statistics themselves are
    :func:`seed_spread_table`.

    >>> rows = [{"seed": s, "panel": "1b", "sample": sample, "mean": m * (1 + s),
    ...          "ks_other_sample": 0.1 * s} for s in range(3)
    ...         for sample, m in [("intended", 0.2), ("published", 0.1)]]
    >>> sample_comparison_table(pd.DataFrame(rows), 0.15).loc["1b"].tolist()
    [0.1, 0.3333333333333333, 2.0]
    """
    rows = []
    for panel, part in panels.groupby("panel", sort=False):
        intended = part[part["sample"] == "intended"]
        published = part[part["sample"] == "published"]
        rows.append(
            {
                "panel": panel,
                "KS distance (median)": intended.ks_other_sample.median(),
                "share of draws beyond the critical value": float(
                    np.mean(intended.ks_other_sample > ks_critical)
                ),
                "sd of the mean over draws, intended ÷ published": intended["mean"].std()
                / published["mean"].std(),
            }
        )
    return pd.DataFrame(rows).set_index("panel")


def show_verdict(page: Chapter, finding: Finding, evidence: str, recorded: bool) -> None:
    """Show ``finding``'s verdict line on the page; hand it to the claims ledger only if the
    run is ``recorded`` (it has the published settings): a run with other settings shows its
    verdict as this run's alone, so that its numbers still appear once on its page.

    >>> from attncore.claims import Verdict
    >>> setting = {"sample": "intended", "unscaled": "1b", "scaled": "1c", "draws": 1}
    >>> found = Finding("bernhard-fig1-sqrt-d-helps", Verdict.UNTESTABLE, values=setting,
    ...                 branch="one-draw")
    >>> show_verdict(Chapter("bernhard_figures"), found, "sec-bernhard-sqrt-d", False)
    <IPython.core.display.Markdown object>
    """
    from IPython.display import Markdown, display

    if recorded:
        page.record(finding, evidence=evidence)
    else:
        display(
            Markdown(f"This run only, not recorded in the claims ledger: {verdict_line(finding)}")
        )


def seed_spread_table(
    panels: pd.DataFrame, seed_rows: pd.DataFrame, percentiles: pd.Series, seed: int
) -> pd.DataFrame:
    """Median [5 %, 95 %] over draws of the mean, sd and skewness of each panel and sample,
    with the skewness of the figures' draw and its percentile among the draws."""
    mine = seed_rows.set_index(["panel", "sample"])["skewness"]
    rows = []
    for (panel, sample), part in panels.groupby(["panel", "sample"], sort=False):
        row: dict[str, object] = {"panel": panel, "sample": sample}
        for column in ("mean", "sd", "skewness"):
            low, mid, high = part[column].quantile([0.05, 0.5, 0.95])
            row[column] = f"{mid:.3g} [{low:.3g}, {high:.3g}]"
        row[f"skewness, seed {seed}"] = f"{mine[(panel, sample)]:.3g}"
        row["percentile"] = f"{percentiles[(panel, sample)]:.0f}"
        rows.append(row)
    return pd.DataFrame(rows).set_index(["panel", "sample"])


def seed_spread_figure(
    panels: pd.DataFrame, seed_rows: pd.DataFrame, draws: dict[str, PanelDraw], seed: int
) -> matplotlib.figure.Figure:
    """The skewness of every panel and sample over the draws, the figures' draw marked."""
    n_seeds = panels["seed"].nunique()
    mine = seed_rows.set_index(["panel", "sample"])["skewness"]
    fig, axes = plt.subplots(2, 3, figsize=(10, 6.6))
    jitter = np.random.default_rng(0).uniform(-0.18, 0.18, n_seeds)  # plotting jitter only
    for ax, panel in zip(axes.ravel(), draws, strict=True):
        for x, sample in enumerate(SAMPLES):
            part = panels[(panels.panel == panel) & (panels["sample"] == sample)]
            values = part.sort_values("seed").skewness.to_numpy()
            colour = SAMPLE_STYLE[sample]["color"]
            ax.scatter(x + jitter[: values.size], values, s=7, color=colour, alpha=0.45, lw=0)
            q05, q50, q95 = np.quantile(values, [0.05, 0.5, 0.95])
            ax.vlines(x + 0.3, q05, q95, color=colour, lw=2)
            ax.plot([x + 0.24, x + 0.36], [q50, q50], color=colour, lw=2)
            ax.scatter(
                [x],
                [mine[(panel, sample)]],
                marker="D",
                s=45,
                color="k",
                zorder=5,
                edgecolor="w",
                label=f"seed {seed}" if x == 0 else None,
            )
        shown = panels[panels.panel == panel].skewness
        spread = shown.max() - shown.min()
        if shown.min() - 0.25 * spread <= 0 <= shown.max() + 0.25 * spread:
            ax.axhline(0, color="0.4", lw=0.7)  # symmetry, where it is near the data
        ax.set_xticks([0, 1], list(SAMPLES), fontsize=8.5)
        ax.set_xlim(-0.5, 1.6)
        label = scaling_label(draws[panel].rescaling)
        ax.set_title(f"{panel}: {label}, d = {draws[panel].d}", fontsize=9.5)
    for ax in axes[:, 0]:
        ax.set_ylabel("skewness of the sample")
    axes[0, 0].legend(fontsize=8, loc="best")
    fig.subplots_adjust(left=0.08, right=0.99, top=0.94, bottom=0.06, wspace=0.35, hspace=0.38)
    return fig


def distortion_pairs_figure(
    panels: pd.DataFrame,
    seed_rows: pd.DataFrame,
    draws: dict[str, PanelDraw],
    seed: int,
    pairs: Sequence[tuple[str, str]] = (("1b", "1c"), ("2b", "2c")),
) -> matplotlib.figure.Figure:
    """Per pair of panels, the ratio of their W1 distortions draw by draw (intended samples,
    the second panel's over the first's), one dot per draw on a logarithmic axis, the
    figures' draw marked: left of 1 the second panel's scaling distorts less."""
    intended = panels[panels["sample"] == "intended"]
    wide = intended.pivot(index="seed", columns="panel", values="wasserstein")
    mine = seed_rows[seed_rows["sample"] == "intended"].set_index("panel").wasserstein
    fig, ax = plt.subplots(figsize=(9, 1.6 + 1.3 * len(pairs)), layout="constrained")
    jitter = np.random.default_rng(0).uniform(-0.22, 0.22, len(wide))  # plotting jitter only
    names, ratios = [], []
    for row, (base, better) in enumerate(pairs):
        ratio = wide[better] / wide[base]
        ratios.append(ratio)
        ax.scatter(ratio, row + jitter, s=14, alpha=0.6, color=CONTRAST[1], lw=0,
                   label="one draw" if row == 0 else None)  # fmt: skip
        ax.scatter([mine[better] / mine[base]], [row], marker="D", s=55, color="k",
                   edgecolor="w", zorder=5, label=f"seed {seed}" if row == 0 else None)  # fmt: skip
        label_base = scaling_label(draws[base].rescaling)
        label_better = scaling_label(draws[better].rescaling)
        share = f"{100 * float((ratio < 1).mean()):.0f} %"
        names.append(
            f"Figure {base[0]}, d = {draws[base].d}:\n{label_better} over {label_base},\n"
            f"below 1 in {share} of draws"
        )
    every = pd.concat(ratios)
    low = min(every.min(), mine[[b for _, b in pairs]].min()) * 0.7
    ax.axvline(1, color="0.4", lw=1, ls="--", label="equal distortion")
    ax.set(xscale="log", xlim=(low, 1.25), ylim=(len(pairs) - 0.5, -0.5))
    ticks = [t for t in (0.01, 0.02, 0.03, 0.05, 0.1, 0.2, 0.3, 0.5, 1.0) if low <= t]
    ax.xaxis.set_major_locator(FixedLocator(ticks))
    ax.xaxis.set_major_formatter(FormatStrFormatter("%g"))
    ax.xaxis.set_minor_formatter(NullFormatter())
    ax.set_yticks(range(len(pairs)), names)
    ax.set_xlabel("ratio of the $W_1$ distortions, second scaling over first (log scale)")
    fig.legend(loc="outside lower center", ncol=3, frameon=False)
    return fig


def linearization_figure(draw: PanelDraw) -> matplotlib.figure.Figure:
    """``n s_1`` against the centred scaled logit for 1/sqrt(d) (left) and 1/k_total (right)
    on one draw, with the linearization ``1 + z_1 - z̄``."""
    fig, axes = plt.subplots(1, 2, figsize=(10, 4.6), layout="constrained")
    for ax, name in zip(axes, ["sqrt_d", "k_total"], strict=True):
        lin = linearization(draw, name)
        colour = method_style(name)["color"]
        ax.scatter(lin["centred"], lin["weight"], s=8, alpha=0.5, color=colour, lw=0)
        line = np.linspace(lin["centred"].min(), lin["centred"].max(), 50)
        ax.plot(line, 1 + line, color="k", lw=1.2)
        ax.set_xlabel(r"centred scaled logit $z_1 - \bar z$")
        ax.set_title(
            f"{scaling_label(name)}, d = {draw.d}\nsd of a row of logits {lin['row_sd']:.2g}"
        )
    axes[0].set_ylabel(r"$n\,s_1$ (1 is uniform attention)")
    handles = [
        plt.Line2D(
            [], [], color="0.4", marker="o", ls="", label="one query (colour of the scaling)"
        ),
        plt.Line2D([], [], color="k", lw=1.2, label=r"linear: $1 + z_1 - \bar z$"),
    ]
    fig.legend(handles=handles, loc="outside lower center", ncol=2, frameon=False)
    return fig


def tradeoff_figure(
    costs: pd.DataFrame, rescalings: Sequence[str], d_small: int, n_keys: int
) -> matplotlib.figure.Figure:
    """W1 distortion against the mean largest probability, median and 5-95 % over draws, per
    rescaling (named beside its points) and dimension (hollow: ``d_small``)."""
    fig, ax = plt.subplots(figsize=(8, 5), layout="constrained")
    for (d, name), part in sorted(
        costs.groupby(["d", "rescaling"], sort=False), key=lambda item: -item[0][0]
    ):
        style = method_style(name)
        x, y = part.mean_max_probability, part.wasserstein
        hollow = d == d_small
        ax.errorbar(
            x.median(),
            y.median(),
            xerr=[[x.median() - x.quantile(0.05)], [x.quantile(0.95) - x.median()]],
            yerr=[[y.median() - y.quantile(0.05)], [y.quantile(0.95) - y.median()]],
            fmt=style["marker"],
            color=style["color"],
            ms=10 if hollow else 7,
            capsize=2,
            mfc="none" if hollow else style["color"],
            mew=1.5,
        )
    for name in rescalings:
        part = costs[costs.rescaling == name]
        right = part.mean_max_probability.max() < 0.3  # the name goes where there is room
        x = part.mean_max_probability.max() if right else part.mean_max_probability.min()
        y = part.wasserstein.median()
        ax.annotate(
            scaling_label(name),
            (x, y),
            xytext=(14 if right else -14, 0),
            textcoords="offset points",
            ha="left" if right else "right",
            va="center",
            color=method_style(name)["color"],
        )
    ax.axvline(1 / n_keys, color="0.4", ls=":", lw=1.2)
    ax.text(
        1 / n_keys,
        0.98,
        " uniform: 1/n",
        transform=blended_transform_factory(ax.transData, ax.transAxes),
        va="top",
    )
    ax.set_xscale("log")
    ax.set_xlim(0.6 / n_keys, 1.3)
    ax.xaxis.set_major_locator(
        FixedLocator([t for t in (0.01, 0.03, 0.1, 0.3, 1.0) if t > 0.6 / n_keys])
    )
    ax.xaxis.set_major_formatter(FormatStrFormatter("%g"))
    ax.xaxis.set_minor_formatter(NullFormatter())
    ax.set_ylim(-0.03, 1.0)
    ax.set_xlabel("mean largest probability of a row (selectivity)")
    ax.set_ylabel(r"$W_1$ distortion of the first component")
    d_large = max(costs.d)
    handles = [
        plt.Line2D([], [], color="0.3", marker="o", mfc="none", ls="", label=f"d = {d_small}"),
        plt.Line2D([], [], color="0.3", marker="o", ls="", label=f"d = {d_large}"),
        plt.Line2D([], [], color="0.3", marker="|", ls="", ms=12, label="5 % to 95 % of draws"),
    ]
    fig.legend(handles=handles, loc="outside lower center", ncol=3, frameon=False)
    return fig


def panel_grid_table(
    seed: int,
    n_values: Sequence[int],
    d_values: Sequence[int],
    *,
    n_keys: int,
    n_queries: int,
    d_small: int,
    d_large: int,
    model: QueryKeyModel | None = None,
    kde_points: int = 512,
) -> pd.DataFrame:
    """The top row of :func:`panel_figure` (the density of each panel's intended sample, by
    :func:`~attncore.density.kde_curve`) at every ``(n, d)`` of the grid of
    :func:`~attncore.sources.bernhard.grid_panels` over ``n_values`` and ``n_keys`` and over
    ``d_values``, ``d_small`` and ``d_large`` (the figures' settings): one row per setting
    and panel, with ``n``, ``d`` and their indices ``n_index`` and ``d_index`` in the sorted
    grid, the ends ``lo`` and ``hi`` of the density's equally spaced points, the ``density``
    there (an array), the ``skewness`` and the ``width`` (maximum minus minimum) of the sample.

    >>> table = panel_grid_table(1000, [8], [4], n_keys=8, n_queries=50, d_small=4,
    ...                          d_large=16, kde_points=16)
    >>> len(table), sorted(set(table["d"])), table["density"].iloc[0].shape
    (12, [4, 16], (16,))
    """
    ns, ds = sorted({*n_values, n_keys}), sorted({*d_values, d_small, d_large})
    rows = []
    draws = grid_panels(
        seed, ns, ds, n_queries=n_queries, d_small=d_small, d_large=d_large, model=model
    )
    for n, d, panels in draws:
        for panel, draw in panels.items():
            grid, density = kde_curve(draw.values.intended, n_points=kde_points)
            rows.append(
                {
                    "n": n,
                    "d": d,
                    "n_index": ns.index(n),
                    "d_index": ds.index(d),
                    "panel": panel,
                    "lo": grid[0],
                    "hi": grid[-1],
                    "density": density,
                    "skewness": float(stats.skew(draw.values.intended)),
                    "width": float(np.ptp(draw.values.intended)),
                }
            )
    return pd.DataFrame(rows)


_DENSITY_LABEL = "datum.value >= 10000 ? format(datum.value, '.0e') : format(datum.value, '~r')"
"""Density ticks: plain up to 10,000, powers of ten above (a spike of the unscaled panel at
large d reaches 1e23)."""

DENSITY_DIGITS = 4
"""Significant digits of the densities the page carries: a thousandth of a panel's height
is far below a pixel, and the page stays light."""


def panels_explorable(
    table: pd.DataFrame, *, n_keys: int, d_small: int, n_queries: int
) -> Explorable:
    """Bernhard's six panels with sliders on ``n`` and ``d`` over the grid of ``table``
    (:func:`panel_grid_table`): Figure 1's row and Figure 2's row at the selected ``(n, d)``,
    each panel on its own axes as in the paper, with the range and the skewness of its
    sample. The sliders start at ``n_keys`` and ``d_small``."""
    n_values, d_values = sorted(set(table["n"])), sorted(set(table["d"]))
    n_slider = Slider("n_index", "keys n", [f"{n}" for n in n_values], list(n_values).index(n_keys))
    d_slider = Slider(
        "d_index", "dimension d", [f"{d}" for d in d_values], list(d_values).index(d_small)
    )
    points = len(table["density"].iloc[0])
    data = inline_data(
        table.drop(columns=["n", "d"]).assign(
            density=[" ".join(f"{v:.{DENSITY_DIGITS}g}" for v in row) for row in table["density"]]
        ),
        "panels",
    )
    rows = []
    figures = {"1": "Figure 1: no scaling against 1/√d", "2": "Figure 2: 1/√d against 1/k_total"}
    for figure, name in figures.items():
        panels = []
        for panel in [p for p in EXPLORABLE_TITLES if p.startswith(figure)]:
            base = alt.Chart(data).transform_filter(
                f"{selects([n_slider, d_slider])} && datum.panel == '{panel}'"
            )
            curve = (
                base.transform_calculate(value="split(datum.density, ' ')")
                .transform_flatten(["value"])
                .transform_window(j="row_number()")
                .transform_calculate(
                    x=f"datum.lo + (datum.j - 1) * (datum.hi - datum.lo) / {points - 1}",
                    density="toNumber(datum.value)",
                )
                .mark_line(color=SAMPLE_STYLE["intended"]["color"])
                .encode(
                    x=alt.X(
                        "x:Q",
                        title=None,
                        scale=alt.Scale(zero=False, nice=False),
                        axis=alt.Axis(format="~r", tickCount=3),
                    ),
                    y=alt.Y(
                        "density:Q",
                        title="density" if panel.endswith("a") else None,
                        axis=alt.Axis(labelExpr=_DENSITY_LABEL, tickCount=4, minExtent=36),
                    ),
                )
                .properties(name=f"panel_{panel}")
            )
            numbers = (
                base.transform_calculate(
                    text="'range ' + (datum.width < 0.01 ? format(datum.width, '.1e')"
                    " : format(datum.width, '.2~r')) + ', '"
                    f" + {readout(('skewness ', 'skewness', '.2f'))}"
                )
                .mark_text(align="left", baseline="bottom", dy=-4, fontSize=11)
                .encode(x=alt.value(0), y=alt.value(0), text="text:N")
                .properties(name=f"readout_{panel}")
            )
            panels.append(
                alt.layer(curve, numbers).properties(
                    width=175,
                    height=120,
                    title=alt.Title(EXPLORABLE_TITLES[panel], offset=20),
                )
            )
        rows.append(alt.hconcat(*panels, spacing=12).properties(title=name))
    return Explorable(
        alt.vconcat(*rows, spacing=16),
        [n_slider, d_slider],
        f"Bernhard's six panels, densities of the first attention component over {n_queries} "
        "queries, for the number of keys n and the dimension d chosen with the sliders.",
    )
