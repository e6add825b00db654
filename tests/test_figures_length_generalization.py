"""The length chapter's figures: every legend stays inside the figure (Fig. 9.1's cosine
legend once ran past the right edge, cutting "replication, standard (0.53)")."""

from __future__ import annotations

import matplotlib
import pandas as pd

from attncore.book.figures_length_generalization import accuracy_figure
from attncore.book.plotting import fit_text

matplotlib.use("Agg")

METHODS = ["sqrt_d", "mup", "log_n", "log512_n", "learned", "ssmax_learned", "k_total"]
COSINES = ["sqrt_d", "qk_norm", "qk_norm_learned", "cosine_learned"]
TEST_TIME = ["sqrt_d + yarn", "sqrt_d + qwen"]
ANCHORS = {"replication, standard (0.53)": 0.53, "replication, log-n (0.98)": 0.98}


def test_the_accuracy_figure_keeps_both_legends_inside_the_figure() -> None:
    index = pd.MultiIndex.from_product(
        [[*METHODS, *COSINES[1:], *TEST_TIME], [10, 100, 1000, 10000]], names=["method", "length"]
    )
    summary = pd.DataFrame({"accuracy": 0.8, "low": 0.7, "high": 0.9}, index=index)
    panels = {"fixed factors and learned scales": METHODS + TEST_TIME, "cosines": COSINES}
    fig = accuracy_figure(summary, panels, ANCHORS, 10)
    fit_text(fig)
    fig.canvas.draw()
    renderer, frame = fig.canvas.get_renderer(), fig.bbox
    for ax in fig.axes:
        box = ax.get_legend().get_window_extent(renderer)
        assert frame.x0 <= box.x0 and box.x1 <= frame.x1, ax.get_title()
        assert frame.y0 <= box.y0 and box.y1 <= frame.y1, ax.get_title()
