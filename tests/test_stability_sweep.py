"""The learning-rate sweep: runs trained together follow the same runs swept alone, the
recorded measures are what they say, and bad input is refused in one line."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

pytest.importorskip("torch")

from attncore.checks import ParameterError
from attncore.training import reversal_data
from attncore.training.stability import METHODS, learning_rate, lr_sweep

OPTIONS = {"steps": 12, "batch_size": 8, "records": 3, "widths": [8],
           "probe_strings": 8, "scheduler": "synchronous"}  # fmt: skip


@pytest.fixture(scope="module")
def data():
    return reversal_data(2, n_train=96, n_val=24, n_test=8, length=5, vocab=6)


def test_a_run_swept_with_others_follows_it_swept_alone(data):
    runs, curves = lr_sweep(data, list(METHODS), [3e-3, 0.3], [0, 1], **OPTIONS)
    assert len(runs) == len(METHODS) * 2 * 2 and not runs["diverged"].any()
    alone, alone_curves = lr_sweep(data, ["sigma_reparam"], [0.3], [1], **OPTIONS)
    together = runs.query("method == 'sigma_reparam' and lr == 0.3 and seed == 1")
    assert together["final_loss"].item() == pytest.approx(alone["final_loss"].item(), abs=1e-5)
    mine = curves.query("method == 'sigma_reparam' and lr == 0.3 and seed == 1")
    np.testing.assert_allclose(mine["entropy"], alone_curves["entropy"], rtol=1e-4)
    # entropies lie between 0 and ln L; the capped method's logits never pass its cap
    assert curves["entropy"].between(0, math.log(5) + 1e-6).all()
    assert (curves.query("method == 'soft_cap'")["max_logit"] <= 50.0).all()
    assert sorted(set(curves["step"])) == [0, 4, 8, 12]
    # the first loss is the untrained model's, near ln 6 for every run
    assert np.allclose(runs["initial_loss"], math.log(6), atol=0.5)


def test_the_schedule_warms_up_and_decays_to_zero():
    rates = [learning_rate(s, 100, 0.5, 0.1) for s in range(1, 101)]
    assert rates[9] == 0.5 and max(rates) == 0.5 and rates[-1] == pytest.approx(0.0, abs=1e-12)
    assert all(b <= a for a, b in itertools.pairwise(rates[9:]))


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"methods": ["tanh"]}, "method must be one of sqrt_d"),
        ({"lrs": []}, "methods, lrs, seeds and widths must each name at least one value"),
        ({"widths": [12]}, r"every width must be a multiple of head_dim \(8\), got 12"),
        ({"device": "tpu"}, "device must be one of cpu, cuda, auto"),
        ({"lrs": [-1.0]}, "lr must be a finite real number > 0"),
        ({"warmup": 1.0}, r"warmup must be a share in \[0, 1\)"),
        ({"batch_size": 1000}, r"batch_size must be in \[1, 96\]"),
    ],
)
def test_bad_input_is_refused_in_one_line(data, changes, message):
    arguments = {"methods": ["sqrt_d"], "lrs": [1e-2], "seeds": [0], **OPTIONS, **changes}
    with pytest.raises(ParameterError, match=message):
        lr_sweep(data, **arguments)
