"""The saturation chapter's figure and tables."""

import numpy as np
import pytest

from attncore.book.explorable import datasets, read_spec
from attncore.book.figures_softmax_saturation import (
    curve_table,
    example_explorable,
    example_figure,
    saturation_figure,
)
from attncore.book.plotting import method_style
from attncore.simulate.saturation import saturation_curve
from attncore.sources.blog import BLOG_WORKED_EXAMPLE as blog
from attncore.sources.blog import example_factors, factor_sweep, worked_example


def test_figure_marks_the_spreads_in_the_methods_colours():
    curve = saturation_curve(np.geomspace(0.1, 50.0, 7), n_keys=8, n_rows=50, seed=0)
    fig = saturation_figure(curve, uniform_norm=np.sqrt(7) / 8)
    colours = {line.get_color() for line in fig.axes[0].get_lines()}
    assert {method_style("sqrt_d")["color"], method_style("none")["color"]} <= colours
    assert len(fig.axes) == 3


def test_the_two_unscaled_lines_keep_their_style_names_and_differ_in_pattern():
    curve = saturation_curve(np.geomspace(0.1, 50.0, 7), n_keys=8, n_rows=50, seed=0)
    fig = saturation_figure(curve, uniform_norm=np.sqrt(7) / 8)
    lines = {line.get_linestyle(): line for line in fig.axes[0].get_lines()}
    dotted, dash_dotted = lines[":"], lines["-."]
    assert dotted.get_color() == dash_dotted.get_color()
    # the dash-dotted pattern's dash is several times the dotted pattern's dot
    dot, dash = dotted._dash_pattern[1][0], dash_dotted._dash_pattern[1][0]
    assert dash >= 4 * dot
    assert not fig.get_suptitle() and not any(ax.get_title() for ax in fig.axes)


def test_curve_table_is_small_and_rounded():
    curve = saturation_curve(np.geomspace(0.1, 50.0, 40), n_keys=8, n_rows=50, seed=0)
    table = curve_table(curve, [0.1, 1.0, 8.0, 50.0])
    assert len(table) == 4 and table.index.name == "spread σ"
    assert (table["Jacobian norm"] == table["Jacobian norm"].round(4)).all()


@pytest.mark.parametrize(("y", "factor"), [(blog.y, blog.factor), ([1.0, -2.0, 0.5], 3.7)])
def test_the_explorable_shows_the_static_figures_values_at_every_factor(y, factor):
    sweep = factor_sweep(y, example_factors(factor))
    fig = example_figure(sweep, factor)
    bars, curves = fig.axes
    heights = [p.get_height() for p in bars.patches]
    example = worked_example(y, factor)  # the chapter's tables
    assert heights == [*example["s"], *example["s_scaled"]]
    jacobian_line, entropy_line = curves.get_lines()[:2]
    assert np.array_equal(jacobian_line.get_xdata(), sweep.factors)
    data = datasets(read_spec(example_explorable(sweep, factor).html()))
    shown = data["probabilities"].pivot(index="c_index", columns="key", values="probability")
    for c, expected in [(1.0, example["s"]), (factor, example["s_scaled"])]:
        np.testing.assert_allclose(shown.loc[sweep.index(c)], expected, rtol=1e-5, atol=1e-12)
    np.testing.assert_allclose(shown.to_numpy(), sweep.probabilities, rtol=1e-5, atol=1e-12)
    measures = data["measures"].pivot(index="c_index", columns="measure", values="value")
    for line in (jacobian_line, entropy_line):
        np.testing.assert_allclose(measures[line.get_label()], line.get_ydata(), rtol=1e-5)
