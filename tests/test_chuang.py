"""Chuang's beta search: the scan order, the optimum it finds, and its guards."""

import math

import numpy as np
import pytest

from attncore.checks import ParameterError
from attncore.sources.chuang import chuang_beta_search


@pytest.mark.parametrize("best", [0.003, 0.2, 1.0, 5.0, 70.0, 4000.0])
def test_finds_the_maximum_of_a_unimodal_objective(best):
    result = chuang_beta_search(lambda b: -abs(math.log10(b / best)), tolerance=0.01)
    assert abs(math.log10(result.beta / best)) <= 0.01


def test_matches_a_fine_grid_on_a_smooth_objective():
    rng = np.random.default_rng(3)
    logits = rng.standard_normal((200, 10))
    target = np.exp(5.0 * logits)
    target /= target.sum(axis=1, keepdims=True)

    def log_likelihood(beta):
        z = beta * logits
        z -= z.max(axis=1, keepdims=True)
        log_p = z - np.log(np.exp(z).sum(axis=1, keepdims=True))
        return float((target * log_p).sum())

    grid = np.geomspace(0.1, 100, 30001)
    grid_best = grid[np.argmax([log_likelihood(b) for b in grid])]
    result = chuang_beta_search(log_likelihood, tolerance=0.001)
    assert abs(math.log10(result.beta / grid_best)) <= 0.001


def test_scans_decades_outward_from_one_and_counts_every_evaluation():
    result = chuang_beta_search(lambda b: -((math.log10(b) - 2.3) ** 2))
    assert [b for b, _ in result.history[:7]] == [1.0, 10.0, 0.1, 100.0, 0.01, 1000.0, 0.001]
    assert result.scan_evaluations == 7  # N = 3 brings no improvement, so the scan stops
    assert result.evaluations == len(result.history)


def test_never_evaluates_a_beta_that_would_overflow_exp():
    seen = []

    def objective(beta):
        seen.append(beta)
        return math.log10(beta) - 0.001 * beta  # increasing up to beta = 434

    chuang_beta_search(objective, max_logit=5.0)
    assert max(seen) * 5.0 <= 709.79


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"tolerance": 0.0}, "tolerance must be a finite real number > 0"),
        ({"max_exponent": -1}, "max_exponent must be an integer >= 0"),
        ({"max_logit": float("inf")}, "max_logit must be a finite real number"),
    ],
)
def test_bad_parameters(kwargs, message):
    with pytest.raises(ParameterError, match=message):
        chuang_beta_search(lambda b: 0.0, **kwargs)


def test_a_nan_objective_is_an_error_not_a_silent_choice():
    with pytest.raises(ParameterError, match=r"objective\(beta\) must be a finite real number"):
        chuang_beta_search(lambda b: float("nan"))
