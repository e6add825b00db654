"""The saturation chapter's figure and tables."""

import numpy as np

from attncore.book.figures_softmax_saturation import curve_table, saturation_figure
from attncore.book.plotting import method_style
from attncore.simulate.saturation import saturation_curve


def test_figure_marks_the_spreads_in_the_methods_colours():
    curve = saturation_curve(np.geomspace(0.1, 50.0, 7), n_keys=8, n_rows=50, seed=0)
    fig = saturation_figure(curve, n_keys=8, n_rows=50, uniform_norm=np.sqrt(7) / 8)
    colours = {line.get_color() for line in fig.axes[0].get_lines()}
    assert {method_style("sqrt_d")["color"], method_style("none")["color"]} <= colours
    assert len(fig.axes) == 3


def test_curve_table_is_small_and_rounded():
    curve = saturation_curve(np.geomspace(0.1, 50.0, 40), n_keys=8, n_rows=50, seed=0)
    table = curve_table(curve, [0.1, 1.0, 8.0, 50.0])
    assert len(table) == 4 and table.index.name == "spread σ"
    assert (table["Jacobian norm"] == table["Jacobian norm"].round(4)).all()
