"""The study of every rescaling: its families, its sweeps and the curve of constant factors."""

from __future__ import annotations

import numpy as np
import pytest

from attncore.checks import ParameterError
from attncore.simulate.study import (
    GRADIENT_NAMES,
    GRID_NAMES,
    NORMAL,
    family_moments,
    frontier_points,
    run_comparison,
    run_study,
    study_families,
    study_rescalings,
)
from attncore.simulate.sweep import rescaling_sweep, summarize

SMALL = dict(
    d_main=8,
    n_main=4,
    n_queries=50,
    d_values=[8, 16],
    n_values=[4, 8],
    grid_queries=50,
    n_seeds=2,
    seed=3,
    threshold=0.9,
)
"""The sizes both small sweeps share (the comparison adds one family setting)."""


def small_study(**overrides):
    return run_study(study_families(), study_rescalings(), [0.01, 1.0, 100.0], **SMALL | overrides)


def small_comparison(**overrides):
    few = {name: r for name, r in study_rescalings().items() if name in GRADIENT_NAMES}
    arguments = SMALL | {"family_settings": [(16, 8)]} | overrides
    return run_comparison(study_families(), few, **arguments)


def test_the_study_is_the_sweeps_it_is_made_of():
    study = small_study()
    alone = rescaling_sweep(
        {NORMAL: study_families()[NORMAL]},
        study_rescalings(),
        [8],
        [4],
        n_queries=50,
        n_seeds=2,
        seed=3,
        gradient=True,
    )
    part = study.main.query("family == @NORMAL and not rescaling.str.startswith('curve_')")
    np.testing.assert_allclose(part["wasserstein"], alone["wasserstein"])
    assert study.grid["family"].unique().tolist() == [NORMAL]
    # every rescaling on the row and the column through the main setting, only the unscaled
    # softmax and 1/sqrt(d) elsewhere
    off = study.grid.query("d != @study.d_ref and n != @study.n_ref")
    assert set(off["rescaling"]) == set(GRID_NAMES)
    assert set(study.grid.query("d == @study.d_ref")["rescaling"]) == set(study_rescalings())


def test_the_comparison_runs_on_the_study_draws():
    study, comparison = small_study(), small_comparison()
    assert set(comparison.families["d"]) == {8, 16}
    assert "N(0, 1) (grid)" in set(comparison.every()["family"])
    keys = ["family", "d", "n", "replicate", "rescaling"]
    for mine, theirs in [(comparison.families, study.main), (comparison.grid, study.grid)]:
        both = mine.merge(theirs, on=keys, suffixes=("", "_study"))
        assert len(both) > 0
        np.testing.assert_array_equal(both["wasserstein"], both["wasserstein_study"])
    with pytest.raises(ParameterError):
        run_comparison({}, study_rescalings(), **{
            k: v for k, v in dict(d_main=8, n_main=4, n_queries=50, family_settings=[],
                                  d_values=[8], n_values=[4], grid_queries=50, n_seeds=2,
                                  seed=3, threshold=0.9).items()})  # fmt: skip


def test_every_factor_rescaling_lies_on_the_curve_of_its_draws():
    curve = np.geomspace(0.001, 100.0, 26)
    study = run_study(
        study_families(),
        study_rescalings(),
        curve,
        d_main=16,
        n_main=8,
        n_queries=200,
        d_values=[16],
        n_values=[8],
        grid_queries=50,
        n_seeds=2,
        seed=3,
        threshold=0.9,
    )
    curves, points = frontier_points(summarize(study.main))
    cosine = [key for key, r in study_rescalings().items() if r.cosine]  # not a factor on q . k
    factor = points[~points["rescaling"].isin(cosine)]["off_curve"].abs()
    assert factor.dropna().max() < 0.05
    assert len(set(curves["rescaling"])) == 26


def test_family_moments_and_errors():
    table = family_moments(study_families(shift_mean=2.0), 8)
    assert table.loc["N(2, 1)", "E[k_j²]"] == 5.0
    with pytest.raises(ParameterError):
        run_study(
            {},
            study_rescalings(),
            [1.0],
            **{
                k: v
                for k, v in dict(
                    d_main=8,
                    n_main=4,
                    n_queries=50,
                    d_values=[8],
                    n_values=[4],
                    grid_queries=50,
                    n_seeds=2,
                    seed=3,
                    threshold=0.9,
                ).items()
            },
        )


def test_review_tables_reuse_the_study_draws_and_measure_what_the_rules_read():
    from attncore.simulate.study import (
        comparison_tables,
        curve_steps,
        query_scale_sweep,
        review_tables,
    )

    study = small_study()
    tables = review_tables(study, study_families()[NORMAL], [0.01, 1.0, 100.0])
    assert tables.prescaled_gap < 1e-12
    compared = comparison_tables(small_comparison(), study_families()[NORMAL], [1.0, 100.0])
    # the query-scale sweep shares the main setting's draws: its sqrt_d rows equal the study's
    scaled = query_scale_sweep(
        study_families()[NORMAL], [1.0], d=8, n=4, n_queries=50, n_seeds=2, seed=3, threshold=0.9
    )
    mine = scaled[scaled["rescaling"] == "sqrt_d"]["wasserstein"].to_numpy()
    main = study.main.query("family == @NORMAL and rescaling == 'sqrt_d'")["wasserstein"]
    np.testing.assert_allclose(mine, main.to_numpy())
    # under 1/k_total, queries 100 times longer distort more
    assert compared.query_scales.loc[100.0, "rise"] > 0
    # steps along the curve: the selectivity-driving factor grows, so W1 rises overall
    steps = curve_steps(study.main, ["curve_000", "curve_001", "curve_002"], ["wasserstein"])
    assert len(steps) == 2 and steps["wasserstein_diff"].sum() > 0
    with pytest.raises(ParameterError):
        curve_steps(study.main, ["curve_000"], ["wasserstein"])
    with pytest.raises(ParameterError):
        curve_steps(study.main, ["curve_000", "nope"], ["wasserstein"])
    assert {"extreme_share_diff", "jacobian_norm_diff_se"} <= set(tables.sqrt_vs_none_grid.columns)
    assert {"gradient_norm_a", "saturated_share_diff"} <= set(compared.k_vs_sqrt.columns)
