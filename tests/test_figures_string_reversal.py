"""The learning-curve figure of the training chapter, on hand-made curves."""

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from attncore.book import figures_string_reversal as figures
from attncore.book.plotting import method_style

STEPS = np.arange(0, 3001, 50)


def _curves(rises: dict[str, float], setup: str = "s") -> pd.DataFrame:
    """Logistic curves over two seeds, each method's mean reaching 0.5 at its step."""
    frames = [
        pd.DataFrame(
            {
                "setup": setup,
                "method": name,
                "seed": seed,
                "step": STEPS,
                "token accuracy": 1 / (1 + np.exp(-(STEPS - middle - 20 * seed) / 60)),
            }
        )
        for name, middle in rises.items()
        for seed in (-1, 1)
    ]
    return pd.concat(frames, ignore_index=True)


def test_crowded_window_holds_the_bundle_and_leaves_the_late_curve_out():
    curves = _curves({"sqrt_d": 850, "constant": 880, "mup": 950, "k_total": 1600})
    start, stop = figures.crowded_window(curves)
    assert 600 <= start < 850 - 130 and 950 + 130 < stop <= 1300
    assert figures.crowded_window(_curves({"sqrt_d": 9000})) == (0.0, 3000.0)


def test_learning_curves_stretch_the_window_below_each_setup_in_the_methods_styles():
    rises = {"sqrt_d": 850, "constant": 880, "k_total": 1600}
    curves = pd.concat([_curves(rises, "a"), _curves(rises, "b")])
    fig = figures.learning_curves_figure(curves, list(rises), {"a": 1.0, "b": 2.0}, 469, 3000)
    top, zoom = fig.axes[1], fig.axes[3]
    assert top.get_xlim() == (0, 3000)
    assert zoom.get_xlim() == figures.crowded_window(_curves(rises))
    drawn = {(line.get_color(), line.get_marker()) for line in zoom.get_lines()}
    assert {(method_style(n)["color"], method_style(n)["marker"]) for n in rises} <= drawn
    plt.close(fig)
