"""The aligned-key weight, computed two ways, and its 1/d limit."""

import math

import numpy as np
import pytest

from attncore.checks import ParameterError
from attncore.random import spawn
from attncore.rescalings import RESCALINGS, get_rescaling, register
from attncore.simulate.alignment import (
    aligned_key_table,
    aligned_key_weight,
    keyless_factor,
    mup_deviation,
    mup_limit,
)
from attncore.softmax import softmax


def explicit_vectors(d, n_keys, rho, factor, n_queries, seed):
    """The plain route: draw q and its keys as vectors and take the softmax of q.k."""
    rng = np.random.default_rng(seed)
    weights = []
    for _ in range(n_queries):
        q = rng.standard_normal(d)
        keys = rng.standard_normal((n_keys, d))
        keys[0] = rho * q + math.sqrt(1 - rho * rho) * keys[0]
        weights.append(softmax(factor * keys @ q)[0])
    return np.array(weights)


@pytest.mark.parametrize(("d", "rho", "scaling"), [(16, 0.5, "sqrt_d"), (64, 0.3, "mup")])
def test_fast_route_matches_explicit_vectors_within_standard_errors(d, rho, scaling):
    factor = 1 / math.sqrt(d) if scaling == "sqrt_d" else 1 / d
    fast = aligned_key_weight(d, 8, rho, scaling, 20_000, seed=1)
    slow = explicit_vectors(d, 8, rho, factor, 4_000, seed=2)
    se = math.sqrt(fast.var() / fast.size + slow.var() / slow.size)
    assert abs(fast.mean() - slow.mean()) <= 4 * se


def test_mup_weight_approaches_its_width_independent_limit():
    d = 16384
    w = aligned_key_weight(d, 8, 0.5, "mup", 4000, seed=3)
    se = w.std() / math.sqrt(w.size)
    assert abs(w.mean() - mup_limit(8, 0.5)) <= 4 * se + 2 / d  # bias of order 1/d


def test_sqrt_d_weight_saturates_with_width():
    means = [aligned_key_weight(d, 8, 0.5, "sqrt_d", 2000, seed=4).mean() for d in (16, 256, 4096)]
    assert means[0] < means[1] < means[2] and means[2] > 0.99


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"rho": 1.5}, r"rho must be in \[-1, 1\]"),
        ({"scaling": "k_total"}, "scaling must be a rescaling whose factor does not read"),
        ({"scaling": "qk_norm"}, "scaling must be a rescaling whose factor does not read"),
        ({"scaling": "sqrt"}, "rescaling must be one of"),
        ({"n_keys": 1}, "n_keys must be an integer >= 2"),
    ],
)
def test_bad_parameters(kwargs, message):
    args = {"d": 8, "n_keys": 4, "rho": 0.5, "scaling": "mup", "n_queries": 10, "seed": 0}
    with pytest.raises(ParameterError, match=message):
        aligned_key_weight(**{**args, **kwargs})


@pytest.mark.parametrize("name", ["sqrt_d", "mup", "n_sqrt_d", "log_n", "none"])
def test_the_factor_is_the_registrys(name):
    keys = np.random.default_rng(0).standard_normal((6, 32))
    assert keyless_factor(name, 6, 32) == get_rescaling(name).factor_for(keys)


def test_a_newly_registered_keyless_rescaling_is_accepted():
    register("third", label="1/3", source="user")(lambda keys, n, d: 1 / 3)
    try:
        a = aligned_key_weight(16, 4, 0.5, "third", 50, seed=5)
        b = aligned_key_weight(16, 4, 0.5, "constant", 50, seed=5)  # factor 1
        assert not np.allclose(a, b)
        rng = np.random.default_rng(5)
        norm_sq = rng.chisquare(16, size=50)
        z = rng.standard_normal((50, 4))
        logits = np.sqrt(norm_sq)[:, None] * z
        logits[:, 0] = 0.5 * norm_sq + math.sqrt(0.75) * np.sqrt(norm_sq) * z[:, 0]
        np.testing.assert_allclose(a, softmax(logits / 3)[:, 0])
    finally:
        RESCALINGS.pop("third")


def test_table_rows_follow_the_streams_in_order():
    table = aligned_key_table([16, 64], [0.2, 0.5], ["sqrt_d", "mup"], 4, 30, iter(spawn(1, 8)))
    assert list(zip(table["rho"], table["scaling"], table["d"], strict=True))[:3] == [
        (0.2, "sqrt_d", 16),
        (0.2, "sqrt_d", 64),
        (0.2, "mup", 16),
    ]
    w = aligned_key_weight(64, 4, 0.5, "mup", 30, spawn(1, 8)[7])
    assert table["weight"].iloc[7] == pytest.approx(w.mean())
    assert table["se"].iloc[7] == pytest.approx(w.std(ddof=1) / math.sqrt(30))


def test_mup_deviation_is_measured_at_the_largest_width_in_standard_errors():
    table = aligned_key_table([16, 4096], [0.0, 0.5], ["sqrt_d", "mup"], 8, 2000, iter(spawn(2, 8)))
    deviation = mup_deviation(table, 8)
    assert deviation["d"].tolist() == [4096, 4096]
    assert deviation["limit"].tolist() == [mup_limit(8, 0.0), mup_limit(8, 0.5)]
    assert (deviation["z"] < 4).all()
