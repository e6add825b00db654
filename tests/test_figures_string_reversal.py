"""The figures of the training chapter, on hand-made curves and searches."""

from types import SimpleNamespace

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import pytest

from attncore.book import figures_string_reversal as figures
from attncore.book.plotting import method_style
from attncore.book.tables import numbered_table

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


def test_search_lines_each_have_an_ink_of_their_own():
    def run(beta):
        history = [(0.1, 0.2), (1.0, 0.9), (10.0, 0.5), (beta, 0.95)]
        result = SimpleNamespace(history=history, scan_evaluations=3)
        return SimpleNamespace(result=result, beta=beta, evaluations=4)

    searches = {("a", 469): run(0.4), ("a", 938): run(0.25)}
    fig = figures.search_figure(searches, ["a"], d_k=8)
    ax = fig.axes[0]
    lines = [line for line in ax.get_lines() if not line.get_label().startswith("_")]
    vertical = {line.get_label(): line.get_color() for line in lines}
    assert len(set(vertical.values())) == 4
    assert vertical["1/√d"] == method_style("sqrt_d")["color"]
    assert (
        vertical["469 steps per run: searched β = 0.4 (4 runs)"]
        == (method_style("constant")["color"])
    )
    assert [t.get_text() for t in ax.get_xticklabels()][:2] == ["0.01", "0.1"]
    plt.close(fig)


def test_attention_rows_share_a_scale_and_their_labels_do_not_meet():
    curves = _curves({"sqrt_d": 850, "constant": 880}, "a")
    curves = pd.concat([curves, curves.assign(setup="b")])
    curves["logit spread"] = 0.01 + curves["token accuracy"]
    curves["mirrored weight"] = curves["token accuracy"]
    fig = figures.attention_figure(curves, ["sqrt_d", "constant"], {"a": 1.0, "b": 2.0}, 469, 20)
    fig.canvas.draw()
    spread, weight = (ax.yaxis.label for ax in fig.axes[0:3:2])
    top, bottom = (label.get_window_extent() for label in (spread, weight))
    assert top.x0 == pytest.approx(bottom.x0, abs=1e-6) and top.y0 > bottom.y1
    assert fig.axes[1].get_ylim() == fig.axes[0].get_ylim()
    ticks = [t.get_text() for t in fig.axes[0].get_yticklabels()]
    assert "1" in ticks and not any("$" in t for t in ticks)
    plt.close(fig)


def test_accuracy_tables_give_intervals_and_no_cell_reads_as_a_quotation():
    from attncore.evidence.training import example_runs

    runs = example_runs()
    runs.loc[runs["method"] == "constant", "accuracy at 3000 steps"] = 0.9999
    rows = []
    for (setup, method), part in runs.groupby(["setup", "method"], sort=False):
        rows.append(
            {
                "setup": setup,
                "method": method,
                "accuracy at 500 steps": part["accuracy at 500 steps"].mean(),
                "accuracy at 3000 steps": part["accuracy at 3000 steps"].mean(),
                "steps to target (median)": part["steps to target"].median(),
            }
        )
    summary = pd.DataFrame(rows)
    betas = {"small init": 5.0, "LayerNorm": 0.4}
    tables = "\n".join(
        numbered_table(part, name, caption, index="method", formats=formats, transpose=False)
        for part, name, caption, formats, _ in figures.summary_tables(
            summary, 500, 3000, betas, runs
        )
    )
    assert "\\> 99.9 [" in tables and "(%)" in tables  # the unit in the header, once
    assert not any(line.lstrip(" -").startswith(">") for line in tables.splitlines())
    assert "median 1000 (1000 to 1000; both seeds)" in tables


def test_every_method_the_chapter_can_train_has_a_row_in_its_methods_table():
    from attncore.training import METHODS

    assert set(METHODS["all"]) <= set(figures.METHOD_ROWS)


def test_the_downloaded_tables_hold_numbers_where_the_page_shows_text():
    from attncore.evidence.training import example_runs

    runs = example_runs(seeds=3)
    runs.loc[runs["seed"] == 0, "accuracy at 500 steps"] += 0.01
    summary = pd.concat(
        [
            pd.DataFrame(
                {
                    "setup": setup,
                    "method": list(dict.fromkeys(part["method"])),
                    "accuracy at 500 steps": part.groupby("method", sort=False)[
                        "accuracy at 500 steps"
                    ].mean(),
                    "accuracy at 3000 steps": 0.5,
                    "steps to target (median)": 1000.0,
                    "logit spread at init": 0.1,
                }
            )
            for setup, part in runs.groupby("setup", sort=False)
        ]
    )
    betas = {"small init": 5.0, "LayerNorm": 0.4}
    for shown, _, _, _, data in figures.summary_tables(summary, 500, 3000, betas, runs):
        assert list(data.index) == list(shown.index)
        assert all(pd.api.types.is_numeric_dtype(data[c]) for c in data)
    accuracy = figures.summary_tables(summary, 500, 3000, betas, runs)[0][4]
    mean, half = accuracy.loc[
        "1/√d",
        [
            "validation accuracy at 500 steps (%)",
            "validation accuracy at 500 steps (%): 95 % half-width",
        ],
    ]
    assert mean == pytest.approx(100 * (0.02 + 0.01 / 3)) and 0 < half < 5
