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


def test_swin_cosine_attention_is_registered_once_and_reaches_every_use():
    """Swin Transformer v2's cos(q, k)/tau (liu2022swin): one registration gives the sweeps
    their rescaling, the plots a style, and the trained model a learned tau, kept >= 0.01."""
    import numpy as np

    cosine = RESCALINGS["cosine"]
    assert cosine.cosine and cosine.params == {"tau": 0.1} and cosine.source == "liu2022swin"
    q, k = np.array([[3.0, 4.0]]), np.array([[6.0, 8.0], [0.0, 2.0]])
    np.testing.assert_allclose(cosine.scaled_logits(q, k), [[10.0, 8.0]])
    assert "cosine" in study_rescalings()
    assert method_style("cosine") != method_style("qk_norm")
    assert method_style("cosine_learned")["label"].startswith("cosine")
    training = pytest.importorskip("attncore.training.model")
    torch = pytest.importorskip("torch")
    from attncore.training.experiment import METHODS

    assert "cosine_learned" in METHODS["all"]
    scalings = training.model_scalings()
    assert scalings["cosine"].kind == "cosine" and not scalings["cosine"].learned
    assert scalings["cosine_learned"].learned and scalings["cosine_learned"].source == "liu2022swin"
    module = training.make_scaling("cosine_learned", d_k=4, n_heads=2, length=8)
    assert isinstance(module, training.CosineTemperature)
    torch.testing.assert_close(module.scales, torch.full((2,), 10.0))
    with torch.no_grad():
        module.log_scale.fill_(10.0)  # tau = e^-10, below the floor: the scale stops at 1/0.01
    torch.testing.assert_close(module.scales, torch.full((2,), 100.0))
    ones = torch.ones(1, 2, 1, 4)
    torch.testing.assert_close(module(ones, ones), torch.full((1, 2, 1, 1), 100.0))
