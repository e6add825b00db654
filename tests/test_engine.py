"""The chunked engine against a plain per-query loop, the same bits on any number of threads,
properties (hypothesis), errors."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from attncore.checks import ParameterError
from attncore.distributions import Independent, Laplace, Normal
from attncore.measures import SATURATION_THRESHOLD
from attncore.random import make_rng
from attncore.rescalings import from_callable, get_rescaling
from attncore.simulate.engine import attention_metrics
from attncore.softmax import softmax

ROW_METRICS = (
    "entropy",
    "normalized_entropy",
    "effective_keys",
    "max_probability",
    "jacobian_frobenius",
    "gradient_norm",
)
"""The per-row arrays of an engine result that the tests compare."""


def loop_reference(queries, keys, rescaling, threshold=SATURATION_THRESHOLD):
    """One query at a time, every quantity from its definition, explicit Jacobian."""
    rescaling = get_rescaling(rescaling)
    c, n = rescaling.factor_for(keys), len(keys)
    rows = []
    for q in queries:
        if rescaling.cosine:
            k_hat = keys / np.linalg.norm(keys, axis=1, keepdims=True)
            dlogits_dq = c / np.linalg.norm(q) * (k_hat - np.outer(k_hat @ q, q) / (q @ q))
            z = c * (k_hat @ q) / np.linalg.norm(q)
        else:
            dlogits_dq = c * keys
            z = c * (keys @ q)
        s = np.exp(z - z.max()) / np.exp(z - z.max()).sum()
        jac = np.diag(s) - np.outer(s, s)
        entropy = -sum(p * math.log(p) for p in s if p > 0)
        rows.append(
            {
                "entropy": entropy,
                "normalized_entropy": entropy / math.log(n),
                "effective_keys": 1 / (s @ s),
                "max_probability": s.max(),
                "jacobian_frobenius": np.linalg.norm(jac),
                "gradient_norm": np.linalg.norm(jac @ dlogits_dq),
                "probabilities": s,
                "saturated": s.max() > threshold,
            }
        )
    return {name: np.array([row[name] for row in rows]) for name in rows[0]}


RESCALINGS_UNDER_TEST = [
    "none",
    "sqrt_d",
    "k_total",
    "key_p_norm",
    "mup",
    "ssmax",
    get_rescaling("qk_norm", g=6.0),
    get_rescaling("constant", beta=0.3),
    from_callable(lambda keys, n, d: -2.0 / n),
]


@pytest.mark.parametrize(
    "rescaling", RESCALINGS_UNDER_TEST, ids=lambda r: r if isinstance(r, str) else r.name
)
@pytest.mark.parametrize("chunk_size", [1, 3, 64])
def test_engine_equals_per_query_loop(rescaling, chunk_size):
    queries, keys = Independent(Normal(0.3, 2.0), Laplace()).sample(make_rng(20), 7, 9, 5)
    result = attention_metrics(
        queries, keys, rescaling, chunk_size=chunk_size, gradient=True, columns=(0, 8, 0)
    )
    expected = loop_reference(queries, keys, rescaling)
    for name in ROW_METRICS:
        np.testing.assert_allclose(getattr(result, name), expected[name], rtol=1e-9, err_msg=name)
    np.testing.assert_allclose(result.columns, expected["probabilities"][:, [0, 8, 0]], rtol=1e-12)
    assert result.saturated_share == pytest.approx(expected["saturated"].mean())


def test_float32_products_stay_close_to_float64():
    queries, keys = make_rng(21).standard_normal((2, 40, 16))
    exact = attention_metrics(queries, keys, "sqrt_d", gradient=True, columns=(0,))
    single = attention_metrics(
        queries, keys, "sqrt_d", dtype=np.float32, gradient=True, columns=(0,)
    )
    for name in ("entropy", "effective_keys", "jacobian_frobenius", "gradient_norm", "columns"):
        np.testing.assert_allclose(
            getattr(single, name), getattr(exact, name), rtol=1e-4, err_msg=name
        )


def test_aggregates_are_row_means():
    queries, keys = make_rng(22).standard_normal((2, 10, 4))
    result = attention_metrics(queries, keys, "none", gradient=True, threshold=0.5)
    aggregates = result.aggregates()
    assert aggregates["mean_entropy"] == pytest.approx(result.entropy.mean())
    assert aggregates["mean_gradient_norm"] == pytest.approx(result.gradient_norm.mean())
    assert aggregates["saturated_share"] == pytest.approx(np.mean(result.max_probability > 0.5))
    assert "mean_gradient_norm" not in attention_metrics(queries, keys).aggregates()


def test_huge_logits_stay_finite():
    queries, keys = make_rng(23).standard_normal((2, 5, 64))
    result = attention_metrics(1e4 * queries, keys, "none", gradient=True)
    for values in (result.entropy, result.max_probability, result.gradient_norm):
        assert np.isfinite(values).all()
    np.testing.assert_array_equal(result.max_probability, 1.0)


def test_same_seed_gives_bit_identical_results():
    def run(seed):
        queries, keys = Independent().sample(make_rng(seed), 50, 16, 8)
        return attention_metrics(queries, keys, "k_total", chunk_size=7, gradient=True)

    first, second = run(24), run(24)
    for name in ("entropy", "effective_keys", "jacobian_frobenius", "gradient_norm"):
        assert np.array_equal(getattr(first, name), getattr(second, name))


THREADED_SHAPES = [
    # (queries, keys, d, chunk_size): many chunks, chunks of one query, the default chunk,
    # a last chunk shorter than the others, and d = 1000, where OpenBLAS on two threads
    # blocks the product's inner dimension differently from one thread
    (50, 40, 8, 7),
    (23, 9, 5, 1),
    (600, 2048, 16, None),
    (130, 300, 1000, 32),
]


@pytest.mark.parametrize(("m", "n", "d", "chunk_size"), THREADED_SHAPES)
@pytest.mark.parametrize(
    "rescaling", ["sqrt_d", "k_total", get_rescaling("qk_norm", g=6.0)], ids=str
)
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_results_are_bit_identical_whatever_the_thread_count(m, n, d, chunk_size, rescaling, dtype):
    queries, keys = Independent(Normal(0.3, 2.0), Laplace()).sample(make_rng(25), m, n, d)
    results = [
        attention_metrics(
            queries,
            keys,
            rescaling,
            chunk_size=chunk_size,
            dtype=dtype,
            gradient=True,
            columns=(0, n - 1),
            threads=threads,
        )
        for threads in (1, 2, 4)
    ]
    for name in (*ROW_METRICS, "columns"):
        for other in results[1:]:
            assert np.array_equal(getattr(results[0], name), getattr(other, name)), name


def test_results_do_not_depend_on_the_callers_blas_threads():
    threadpoolctl = pytest.importorskip("threadpoolctl")
    queries, keys = make_rng(26).standard_normal((2, 130, 1000))
    runs = []
    for blas_threads in (1, 2):
        with threadpoolctl.threadpool_limits(blas_threads, user_api="blas"):
            runs.append(attention_metrics(queries, keys[:300], chunk_size=32, gradient=True))
    assert np.array_equal(runs[0].gradient_norm, runs[1].gradient_norm)
    assert np.array_equal(runs[0].entropy, runs[1].entropy)


small = st.integers(2, 12)


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), m=small, n=small, d=small, spread=st.floats(0.01, 30))
def test_rows_lie_on_the_simplex(seed, m, n, d, spread):
    queries, keys = make_rng(seed).standard_normal((2, max(m, n), d))
    result = attention_metrics(spread * queries[:m], keys[:n], "none", columns=range(n))
    assert (result.columns >= 0).all()
    np.testing.assert_allclose(result.columns.sum(axis=1), 1.0, rtol=1e-12)
    assert (result.normalized_entropy <= 1 + 1e-12).all() and (result.entropy >= -1e-12).all()
    assert ((result.effective_keys >= 1 - 1e-12) & (result.effective_keys <= n + 1e-9)).all()


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), shift=st.floats(-1e3, 1e3))
def test_softmax_is_shift_invariant(seed, shift):
    logits = make_rng(seed).standard_normal((3, 6))
    np.testing.assert_allclose(softmax(logits + shift), softmax(logits), rtol=1e-9, atol=1e-15)


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), scale=st.floats(0.1, 10))
def test_engine_is_invariant_to_a_common_key_shift(seed, scale):
    # q.(k_i + v) = q.k_i + q.v shifts a whole row of logits, which the softmax ignores;
    # so does the gradient, as J 1 = 0.
    queries, keys = make_rng(seed).standard_normal((2, 6, 5))
    shifted = keys + scale * make_rng(seed + 1).standard_normal(5)
    base = attention_metrics(queries, keys, "sqrt_d", gradient=True, columns=(0,))
    moved = attention_metrics(queries, shifted, "sqrt_d", gradient=True, columns=(0,))
    for name in ("entropy", "columns", "gradient_norm"):
        np.testing.assert_allclose(
            getattr(moved, name), getattr(base, name), rtol=1e-8, atol=1e-12, err_msg=name
        )


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (
            lambda: attention_metrics(np.ones((2, 3)), np.ones((1, 3))),
            r"^n_keys must be an integer >= 2, got 1$",
        ),
        (
            lambda: attention_metrics(np.ones((2, 3)), np.ones((4, 2))),
            r"^keys must have as many columns as queries \(3\), got 2$",
        ),
        (lambda: attention_metrics(np.ones(3), np.ones((4, 3))), r"^queries must have 2 dim"),
        (
            lambda: attention_metrics([[np.nan, 1.0]], np.ones((4, 2))),
            r"^queries must contain only finite numbers",
        ),
        (
            lambda: attention_metrics(np.ones((2, 3)), np.zeros((4, 3)), "k_total"),
            r"^k_total must be a finite real number > 0, got 0\.0$",
        ),
        (
            lambda: attention_metrics(np.zeros((2, 3)), np.ones((4, 3)), "qk_norm"),
            r"^queries must have rows of length > 0 for cosines, row 0 is 0$",
        ),
        (
            lambda: attention_metrics(
                np.vstack([np.ones((5, 3)), np.zeros((1, 3))]),
                np.ones((4, 3)),
                "qk_norm",
                chunk_size=2,
            ),
            r"^queries must have rows of length > 0 for cosines, row 5 is 0$",
        ),
        (
            lambda: attention_metrics(np.ones((2, 3)), np.ones((4, 3)), threads=0),
            r"^threads must be an integer >= 1, got 0$",
        ),
        (
            lambda: attention_metrics(np.ones((2, 3)), np.ones((4, 3)), chunk_size=0),
            r"^chunk_size must be an integer >= 1, got 0$",
        ),
        (
            lambda: attention_metrics(np.ones((2, 3)), np.ones((4, 3)), dtype=np.int64),
            r"^dtype must be float64 or float32, got int64$",
        ),
        (
            lambda: attention_metrics(np.ones((2, 3)), np.ones((4, 3)), threshold=0.0),
            r"^threshold must be a real number in \(0, 1\), got 0\.0$",
        ),
        (
            lambda: attention_metrics(np.ones((2, 3)), np.ones((4, 3)), columns=(4,)),
            r"^columns must be key indices in \[0, 3\], got 4$",
        ),
        (
            lambda: attention_metrics(np.ones((2, 3)), np.ones((4, 3)), "sqrt"),
            r"^rescaling must be one of",
        ),
    ],
)
def test_bad_input_gives_one_line_parameter_error(call, message):
    with pytest.raises(ParameterError, match=message) as error:
        call()
    assert "\n" not in str(error.value)
