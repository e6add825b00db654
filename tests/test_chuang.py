"""Chuang's beta search, golden-section and in rounds: the scan order, the optimum each finds,
and their guards."""

import math

import numpy as np
import pytest

from attncore.checks import ParameterError
from attncore.softmax import softmax
from attncore.sources.chuang import (
    CalibrationProblem,
    chuang_beta_search,
    chuang_grid_search,
    halving_search,
    noisy_search_errors,
)


@pytest.mark.parametrize("best", [0.003, 0.2, 1.0, 5.0, 70.0, 4000.0])
def test_finds_the_maximum_of_a_unimodal_objective(best):
    result = chuang_beta_search(lambda b: -abs(math.log10(b / best)), tolerance=0.01)
    assert abs(math.log10(result.beta / best)) <= 0.01


def batched(objective):
    """The objective of many betas at once, as :func:`chuang_grid_search` asks for it."""
    return lambda betas: [objective(b) for b in betas]


@pytest.mark.parametrize("best", [0.003, 0.2, 1.0, 5.0, 70.0, 4000.0])
@pytest.mark.parametrize("tolerance", [0.01, 0.1])
def test_the_rounds_find_what_the_golden_section_finds_within_the_tolerance(best, tolerance):
    def objective(beta):
        return -abs(math.log10(beta / best))

    rounds = chuang_grid_search(batched(objective), tolerance=tolerance)
    golden = chuang_beta_search(objective, tolerance=tolerance)
    assert abs(math.log10(rounds.beta / best)) <= tolerance
    assert abs(math.log10(rounds.beta / golden.beta)) <= 2 * tolerance


@pytest.mark.parametrize("best", [0.003, 0.2, 1.0, 5.0, 70.0])
def test_halving_finds_the_grid_point_nearest_the_maximum_where_short_budgets_rank_alike(best):
    """An objective whose ranking does not change with the budget (its scale does): successive
    halving keeps the best, so it ends within half a grid step of the maximum."""
    result, _ = halving_search(
        lambda betas, steps: [-steps * abs(math.log10(b / best)) for b in betas],
        budget=100, max_exponent=3, tolerance=0.1,
    )  # fmt: skip
    assert abs(math.log10(result.beta / best)) <= 0.05 + 1e-9


def test_halving_doubles_the_budget_as_it_halves_the_candidates():
    asked = []

    def objective(betas, steps):
        asked.append((len(betas), steps))
        return [-((math.log10(b) - 0.7) ** 2) for b in betas]

    result, budgets = halving_search(objective, budget=400, max_exponent=2, tolerance=0.25)
    assert asked == [(17, 25), (9, 50), (5, 100), (3, 200), (2, 400)]
    assert sum(budgets) == sum(n * s for n, s in asked) and len(budgets) == result.evaluations
    assert result.scan_evaluations == 17 and result.beta == pytest.approx(10**0.75)
    flat, _ = halving_search(lambda betas, steps: [1.0] * len(betas), budget=8, tolerance=0.5)
    assert flat.beta == 1.0  # a plateau: the beta nearest 1, as the decade scan's order has it
    with pytest.raises(ParameterError, match="objective must return one value per beta"):
        halving_search(lambda betas, steps: [0.0], budget=8)


def test_rounds_scan_the_decades_at_once_then_narrow_around_the_best():
    asked = []

    def objective(betas):
        asked.append(list(betas))
        return [-((math.log10(b) - 0.7) ** 2) for b in betas]

    result = chuang_grid_search(objective, max_exponent=3, tolerance=0.1)
    assert asked[0] == [1.0, 10.0, 0.1, 100.0, 0.01, 1000.0, 0.001]
    assert [len(a) for a in asked] == [7, 6, 6]  # spacing 1, 1/4, 1/16 decade
    second = sorted(math.log10(b) for b in asked[1])
    np.testing.assert_allclose(second, [0.25, 0.5, 0.75, 1.25, 1.5, 1.75])
    assert result.scan_evaluations == 7 and result.evaluations == 19
    assert abs(math.log10(result.beta) - 0.7) <= 1 / 16


def test_rounds_keep_the_first_of_equal_values_and_respect_the_overflow_bound():
    flat = chuang_grid_search(lambda betas: [1.0] * len(betas), tolerance=0.5)
    assert flat.beta == 1.0  # a plateau: the first evaluated, as the decade scan's rule has it
    seen = []

    def objective(betas):
        seen.extend(betas)
        return [math.log10(b) - 0.001 * b for b in betas]

    chuang_grid_search(objective, max_logit=5.0)
    assert max(seen) * 5.0 <= 709.79


@pytest.mark.parametrize(
    ("objective", "kwargs", "message"),
    [
        (lambda betas: [0.0], {}, r"objective must return one value per beta \(13\), got 1"),
        (lambda betas: [0.0] * len(betas), {"max_exponent": 0}, "max_exponent must be"),
        (lambda betas: [math.nan] * len(betas), {}, r"objective\(beta\) must be a finite"),
    ],
)
def test_rounds_refuse_bad_objectives_and_parameters(objective, kwargs, message):
    with pytest.raises(ParameterError, match=message):
        chuang_grid_search(objective, **kwargs)


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


@pytest.fixture(scope="module")
def problem():
    return CalibrationProblem.draw(beta_star=5.0, n_items=3000, n_classes=10, seed=7)


def test_calibration_log_likelihood_is_the_mean_log_softmax_of_the_labels(problem):
    rows = np.arange(20)
    p = softmax(2.0 * problem.logits[rows])
    expected = np.mean(np.log(p[rows, problem.labels[rows]]))
    assert problem.log_likelihood(2.0, rows) == pytest.approx(expected)


def test_calibration_grid_optimum_is_near_the_generating_beta(problem):
    betas, values = problem.grid()
    assert abs(math.log10(betas[np.argmax(values)] / 5.0)) < 0.1


def test_calibration_draw_is_reproducible():
    a = CalibrationProblem.draw(3.0, 50, 4, seed=1)
    b = CalibrationProblem.draw(3.0, 50, 4, seed=1)
    assert np.array_equal(a.labels, b.labels) and np.array_equal(a.logits, b.logits)


@pytest.mark.parametrize("search", ["golden", "rounds"])
def test_search_on_the_calibration_problem_matches_its_grid(problem, search):
    betas, values = problem.grid()
    if search == "golden":
        result = chuang_beta_search(problem.log_likelihood, max_logit=problem.max_logit)
    else:
        result = chuang_grid_search(batched(problem.log_likelihood), max_logit=problem.max_logit)
    assert abs(math.log10(result.beta / betas[np.argmax(values)])) <= 0.01


def test_noisy_searches_miss_less_with_larger_subsamples(problem):
    betas, values = problem.grid()
    t = noisy_search_errors(problem, [50, 2000], 30, betas[np.argmax(values)], seed=2)
    median = t.groupby("items")["error"].median()
    assert median[2000] < median[50]
    assert (t["evaluations"] >= 5).all()


def test_noisy_search_refuses_subsamples_larger_than_the_problem(problem):
    with pytest.raises(ParameterError, match="items must each be at most"):
        noisy_search_errors(problem, [4000], 1, 5.0, seed=0)
