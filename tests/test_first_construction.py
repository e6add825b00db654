"""The network built by hand for FIRST: its forward pass against the closed form of its logit
(the independent route), and its arguments checked."""

from __future__ import annotations

import numpy as np
import pytest

from attncore.checks import ParameterError
from attncore.simulate.first_construction import closed_form, cross_entropy_table, first_logits


@pytest.mark.parametrize("eps", [0.0, 1e-5])
def test_the_forward_pass_agrees_with_the_closed_form(eps):
    table = cross_entropy_table([2, 10, 1000, 100_000], [0.5, 3.0, 100.0], eps)
    for row in table.itertuples():
        expected = closed_form(row.length, row.scale, layer_norm=row.layer_norm, eps=eps)
        assert row.cross_entropy == pytest.approx(expected, rel=1e-9, abs=1e-300)
        assert row.accuracy == 1.0  # the sign is right at every length: only confidence fades


def test_only_the_first_bit_moves_the_logit():
    rng = np.random.default_rng(0)
    bits = rng.integers(0, 2, size=(40, 300))
    for normed in (False, True):
        logits = first_logits(bits, 7.0, layer_norm=normed)
        for first in (0, 1):
            assert np.ptp(logits[bits[:, 0] == first]) == 0.0


def test_without_layer_normalization_the_cross_entropy_approaches_one_bit():
    table = cross_entropy_table([10, 100, 10_000], [10.0], eps=0.0).query("not layer_norm")
    assert table["cross_entropy"].is_monotonic_increasing
    assert 0.99 < table["cross_entropy"].iloc[-1] < 1.0


@pytest.mark.parametrize(
    ("lengths", "scales", "eps", "name"),
    [([1], [1.0], 0.0, "lengths"), ([10], [0.0], 0.0, "scales"), ([10], [1.0], -1.0, "eps"),
     ([10], [], 0.0, "scales"), ([10], [float("nan")], 0.0, "scales")],
)  # fmt: skip
def test_bad_arguments_are_refused_by_name(lengths, scales, eps, name):
    with pytest.raises(ParameterError, match=f"^{name}"):
        cross_entropy_table(lengths, scales, eps)
