"""Bernhard's panels over a grid of (n, d): at the figures' settings they are the figures."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from attncore.book.explorable import datasets, read_spec
from attncore.book.figures_bernhard_figures import (
    DENSITY_DIGITS,
    panel_figure,
    panel_grid_table,
    panels_explorable,
)
from attncore.sources.bernhard import draw_panels, panel_records

SIZES = dict(n_queries=60, n_keys=8, d_small=4, d_large=16)
POINTS = 32


@pytest.fixture(scope="module")
def grid():
    return panel_grid_table(7, [4, 8], [4, 32], kde_points=POINTS, **SIZES)


def test_the_grid_holds_the_figures_settings_once(grid):
    assert sorted(set(grid["n"])) == [4, 8] and sorted(set(grid["d"])) == [4, 16, 32]
    assert len(grid) == 2 * 3 * 6
    assert grid.groupby(["n", "d"]).size().eq(6).all()


@pytest.mark.parametrize(("panels", "d"), [(["1a", "1b", "1c"], 4), (["2a", "2b", "2c"], 16)])
def test_at_the_figures_setting_the_grid_is_the_static_figures_top_row(grid, panels, d):
    draws = draw_panels(7, **SIZES)
    rows = panel_records(draws)
    fig = panel_figure(draws, pd.DataFrame(rows), panels, kde_points=POINTS)
    at = grid[(grid["n"] == SIZES["n_keys"]) & (grid["d"] == d)].set_index("panel")
    for ax, panel in zip(fig.axes[:3], panels, strict=True):
        intended = ax.get_lines()[0]  # the static top panel draws the intended sample first
        x, y = intended.get_xdata(), intended.get_ydata()
        assert np.array_equal(at.loc[panel, "density"], y), panel
        assert (at.loc[panel, "lo"], at.loc[panel, "hi"]) == (x[0], x[-1])
        assert at.loc[panel, "width"] == np.ptp(draws[panel].values.intended)


def test_the_page_carries_the_densities_to_their_digits(grid):
    explorable = panels_explorable(grid, n_keys=8, d_small=4, n_queries=60)
    spec = read_spec(explorable.html())
    shown = datasets(spec)["panels"]
    assert len(shown) == len(grid)
    for (_, row), (_, sent) in zip(grid.iterrows(), shown.iterrows(), strict=True):
        values = np.array(sent["density"].split(" "), dtype=float)
        np.testing.assert_allclose(values, row["density"], rtol=0.5 * 10 ** (1 - DENSITY_DIGITS))
        assert (sent["n_index"], sent["d_index"]) == (row["n_index"], row["d_index"])
    sliders = spec["usermeta"]["attncore"]["sliders"]
    assert sliders == {"n_index": ["4", "8"], "d_index": ["4", "16", "32"]}
    assert [p["value"] for p in spec["params"]] == [1, 0]  # the figures' n, Figure 1's d


def test_the_samples_table_compares_the_two_samples_without_repeating_their_statistics():
    from attncore.book.figures_bernhard_figures import sample_comparison_table
    from attncore.sources.bernhard import ks_critical, sweep

    panels, _ = sweep(range(4), ["sqrt_d"], **SIZES)
    table = sample_comparison_table(panels, ks_critical(SIZES["n_queries"]))
    assert list(table.index) == ["1a", "1b", "1c", "2a", "2b", "2c"]
    assert table["share of draws beyond the critical value"].between(0, 1).all()
    assert (table["sd of the mean over draws, intended ÷ published"] > 0).all()
    assert not any("skewness" in column or column.startswith("mean") for column in table)


@pytest.mark.parametrize("recorded", [True, False])
def test_a_verdict_is_shown_once_and_recorded_only_for_the_published_settings(
    monkeypatch, recorded
):
    import IPython.display

    from attncore.book.chapter import VERDICT_MIME, Chapter
    from attncore.book.figures_bernhard_figures import show_verdict
    from attncore.claims import Finding, Verdict
    from attncore.claims.saying import sentence

    shown = []
    monkeypatch.setattr(IPython.display, "display", lambda obj, **_: shown.append(obj))
    setting = {"sample": "intended", "unscaled": "1b", "scaled": "1c", "draws": 1}
    finding = Finding(
        "bernhard-fig1-sqrt-d-helps", Verdict.UNTESTABLE, values=setting, branch="one-draw"
    )
    show_verdict(Chapter("bernhard_figures"), finding, "sec-bernhard-sqrt-d", recorded)
    lines = [obj.data for obj in shown if isinstance(obj, IPython.display.Markdown)]
    records = [obj for obj in shown if isinstance(obj, dict) and VERDICT_MIME in obj]
    assert len(lines) == 1 and lines[0].count(sentence(finding)) == 1
    assert len(records) == int(recorded)
    assert lines[0].startswith("This run only") != recorded
