"""One registry: a rescaling registered in one place reaches the sweeps, the plots, the trained
model and the ledger's vocabulary without another edit."""

from __future__ import annotations

import math

import pytest

from attncore.book.plotting import method_style
from attncore.distributions import Independent, Normal
from attncore.rescalings import RESCALINGS, register
from attncore.simulate.study import study_rescalings
from attncore.simulate.sweep import rescaling_sweep


@pytest.fixture
def third_root():
    """A rescaling registered for one test: c = d^(-1/3)."""

    @register("third_root_d", label="1/∛d", source="user")
    def third_root_d(keys, n: int, d: int) -> float:
        return 1.0 / math.cbrt(d)

    yield "third_root_d"
    del RESCALINGS["third_root_d"]


def test_a_registered_rescaling_reaches_the_study_the_plots_and_the_trained_model(third_root):
    assert third_root in study_rescalings()
    table = rescaling_sweep(
        {"normal": Independent(Normal(), Normal())},
        [third_root, "sqrt_d"],
        [16],
        [8],
        n_queries=20,
        n_seeds=1,
        seed=0,
    )
    assert set(table["rescaling"]) == {third_root, "sqrt_d"}
    style = method_style(third_root)
    assert style["label"] == "1/∛d" and style != method_style("sqrt_d")
    training = pytest.importorskip("attncore.training.model")
    assert third_root in training.model_scalings()
