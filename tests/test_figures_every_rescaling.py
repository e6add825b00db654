"""The figures of the chapter *Every rescaling, measured*, on small hand-made tables."""

import itertools

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import pytest
from matplotlib.text import Text

from attncore.book import figures_every_rescaling as figures
from attncore.book.explorable import datasets, read_spec
from attncore.book.plotting import method_style
from attncore.rescalings import get_rescaling
from attncore.simulate.study import (
    NORMAL,
    frontier_grid,
    frontier_points,
    run_study,
    study_families,
    study_rescalings,
)

NAMES = ["none", "sqrt_d", "k_total"]


@pytest.fixture
def grid() -> pd.DataFrame:
    """A standard normal grid whose numbers depend on ``n`` only, as for 1/k_total and 1/√d."""
    rows = []
    for (d, n), name in itertools.product(itertools.product([16, 64], [8, 64, 512]), NAMES):
        factor = {"none": 1.0, "sqrt_d": 0.1, "k_total": 0.1 / n}[name]
        rows.append(
            dict(
                rescaling=name,
                d=d,
                n=n,
                wasserstein=factor,
                selectivity=factor**2,
                gradient_norm=factor / n,
                gradient_median=factor / n,
                jacobian_norm=0.3 * factor,
                effective_share=1 - factor / 2,
                saturated_share=0.5 if name == "none" else 0.0,
            )
        )
    table = pd.DataFrame(rows)
    for column in [
        "wasserstein",
        "selectivity",
        "gradient_norm",
        "jacobian_norm",
        "saturated_share",
    ]:
        table[f"{column}_se"] = 0.0
    return table


def test_d_n_grid_draws_against_n_with_the_rescalings_colours(grid):
    fig = figures.d_n_grid_figure(grid)
    left, right = fig.axes
    assert (
        left.get_yscale() == "log" and left.get_xlabel() == right.get_xlabel() == "number of keys n"
    )
    colours = {line.get_color() for line in right.get_lines()}
    assert colours == {method_style("k_total")["color"], method_style("sqrt_d")["color"]}
    plt.close(fig)


def test_d_spread_sentence_finds_no_spread_where_d_does_not_matter(grid):
    sentence = figures.d_spread_sentence(grid)
    assert sentence.startswith("Over d from 16 to 64")
    assert sentence.count(" 0 %") == 5


def test_gradients_name_the_highlighted_lines_at_their_ends_and_grey_the_others(grid):
    """Fig. 4.5 once drew twelve coloured series with a legend beside the column: now five
    at most are coloured and named on their lines, apart from each other, the rest grey."""
    names = [*NAMES, "mup", "key_rss", "log_n"]
    styles = figures.rescaling_styles({name: get_rescaling(name) for name in names})
    copies = [  # three more rescalings, on lines between those of the fixture
        grid[grid["rescaling"] == "sqrt_d"].assign(
            rescaling=name, gradient_norm=lambda t, k=k: t["gradient_norm"] * 0.5**k
        )
        for k, name in enumerate(["mup", "key_rss", "log_n"], start=1)
    ]
    grid = pd.concat([grid, *copies])
    fig = figures.gradients_figure(grid, styles, d_ref=64, n_ref=64, threshold=0.9)
    assert len(fig.axes) == 6
    for ax in fig.axes[1::2]:  # the right column names the highlighted lines
        named = [t for t in ax.texts if t.get_text()]
        assert sorted(t.get_text() for t in named) == sorted(
            styles[n]["label"] for n in ["none", "sqrt_d", "k_total", "mup"]
        )
        boxes = [Text.get_window_extent(t) for t in named]  # the name, not its leader
        tops = sorted(box.y0 for box in boxes)
        heights = [box.height for box in boxes]
        assert min(np.diff(tops)) >= 0.95 * min(heights), "two names overlap"
    coloured = {line.get_color() for ax in fig.axes for line in ax.get_lines()}
    for name in ("key_rss", "log_n"):
        assert styles[name]["color"] not in coloured
    assert len(coloured - {"0.5", "black", figures._MUTED}) <= 5
    plt.close(fig)


def test_frontier_reads_the_factors_on_a_top_axis_with_ticks_apart():
    multipliers = np.geomspace(0.001, 100.0, 11)
    selectivity = np.minimum(1.0, 1e-2 * multipliers**2)  # stops growing near one-hot
    curve = pd.DataFrame(
        {
            "factor": multipliers,
            "selectivity": selectivity,
            "wasserstein": 0.02 + selectivity,
            "gradient_norm": multipliers / 10,
        }
    )
    points = pd.DataFrame(
        {
            "rescaling": ["sqrt_d"],
            "selectivity": [1e-3],
            "selectivity_se": [0.0],
            "wasserstein": [0.021],
            "wasserstein_se": [0.0],
            "gradient_norm": [0.1],
            "gradient_norm_se": [0.0],
        }
    )
    styles = {"sqrt_d": method_style("sqrt_d")}
    fig = figures.frontier_figure(curve, points, styles, multipliers)
    top = fig.axes[2]
    assert [t.get_text() for t in top.get_xticklabels()] == ["0.001", "0.01", "0.1", "1", "10"]
    assert np.diff(np.log10(top.get_xticks())).min() > 0.4
    plt.close(fig)


def test_gradients_show_the_saturated_share_of_every_rescaling(grid):
    styles = figures.rescaling_styles({name: get_rescaling(name) for name in NAMES})
    fig = figures.gradients_figure(grid, styles, d_ref=64, n_ref=64, threshold=0.9)
    middle = fig.axes[2]
    assert middle.get_ylabel().endswith("> 0.9") and middle.get_ylim()[1] > 1
    heights = {line.get_color(): line.get_ydata().max() for line in middle.get_lines()}
    assert heights[method_style("none")["color"]] == 0.5
    assert heights[method_style("sqrt_d")["color"]] == 0.0
    plt.close(fig)


def test_gradients_draw_the_references_as_rings_under_the_other_markers(grid):
    """1/(n√d) sits on 1/k_total for standard normal keys: a larger hollow marker underneath
    leaves both in sight."""
    styles = figures.rescaling_styles({name: get_rescaling(name) for name in NAMES})
    fig = figures.gradients_figure(grid, styles, d_ref=64, n_ref=64, threshold=0.9)
    by_colour = {line.get_color(): line for line in fig.axes[5].get_lines()}
    ring, filled = by_colour[styles["k_total"]["color"]], by_colour[styles["none"]["color"]]
    assert ring.get_markerfacecolor() == "none" and filled.get_markerfacecolor() != "none"
    assert ring.get_markersize() > filled.get_markersize()
    assert ring.get_zorder() < filled.get_zorder()
    plt.close(fig)


@pytest.fixture(scope="module")
def explored():
    """A small study and the explorable grid of its standard normal curve, one seed."""
    families, rescalings, multipliers = study_families(), study_rescalings(), [0.05, 1.0, 20.0]
    sizes = dict(n_queries=60, n_seeds=2, seed=3, threshold=0.9)
    study = run_study(families, rescalings, multipliers, d_main=8, n_main=4, d_values=[8],
                      n_values=[4], grid_queries=50, **sizes)  # fmt: skip
    grid = frontier_grid(families[NORMAL], rescalings, multipliers, [4, 8], [4, 16], **sizes)
    return study, grid, rescalings, multipliers


def test_the_explorable_grid_at_the_main_setting_is_the_static_frontiers_draws(explored):
    study, grid, rescalings, multipliers = explored
    main_summary = study.summaries()[0]
    curves, points = frontier_points(main_summary[main_summary["family"] == NORMAL])
    at = grid[(grid["d"] == 8) & (grid["n"] == 4)].set_index("rescaling")
    columns = ["selectivity", "wasserstein", "effective_share", "jacobian_norm", "factor"]
    for table in (curves, points):
        for _, row in table.iterrows():
            assert at.loc[row["rescaling"], columns].tolist() == row[columns].tolist()
    fig = figures.frontier_figure(curves, points, figures.rescaling_styles(rescalings),
                                  multipliers)  # fmt: skip
    line = fig.axes[0].get_lines()[0]  # the grey curve, sorted by selectivity
    shown = at.loc[curves["rescaling"]].sort_values("selectivity")
    assert np.array_equal(line.get_xdata(), shown["selectivity"])
    assert np.array_equal(line.get_ydata(), shown["wasserstein"])
    plt.close(fig)


def test_the_explorable_frontier_carries_the_grid_and_starts_at_the_main_setting(explored):
    _, grid, rescalings, multipliers = explored
    styles = figures.rescaling_styles(rescalings)
    spec = read_spec(
        figures.frontier_explorable(grid, styles, multipliers, d_main=8, n_main=4).html()
    )
    sliders = spec["usermeta"]["attncore"]["sliders"]
    assert sliders == {"d_index": ["4", "8"], "n_index": ["4", "16"],
                       "f_index": ["0.05", "1", "20"]}  # fmt: skip
    assert [p["value"] for p in spec["params"]] == [1, 0, 1]
    data = datasets(spec)
    curve, marked = data["curve_data"], data["rescaling_data"]
    assert len(curve) == 2 * 2 * len(multipliers) and len(marked) == 2 * 2 * len(rescalings)
    for _, row in curve.iterrows():
        d, n = [4, 8][int(row["d_index"])], [4, 16][int(row["n_index"])]
        name = f"curve_{int(row['f_index']):03d}"
        expected = grid.set_index(["d", "n", "rescaling"]).loc[(d, n, name)]
        for column in ["selectivity", "wasserstein", "effective_share", "jacobian_norm"]:
            assert row[column] == pytest.approx(expected[column], rel=1e-5, abs=1e-12)
        assert row["f"] == pytest.approx(multipliers[int(row["f_index"])], rel=1e-6)
    assert set(marked["rescaling"]) == {style["label"] for style in styles.values()}
