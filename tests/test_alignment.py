"""The aligned-key weight, computed two ways, and its 1/d limit."""

import math

import numpy as np
import pytest

from attncore.checks import ParameterError
from attncore.simulate.alignment import aligned_key_weight, mup_limit
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
        ({"scaling": "k_total"}, "scaling must be one of sqrt_d, mup"),
        ({"n_keys": 1}, "n_keys must be an integer >= 2"),
    ],
)
def test_bad_parameters(kwargs, message):
    args = {"d": 8, "n_keys": 4, "rho": 0.5, "scaling": "mup", "n_queries": 10, "seed": 0}
    with pytest.raises(ParameterError, match=message):
        aligned_key_weight(**{**args, **kwargs})
