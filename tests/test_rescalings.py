"""Rescalings: registry, factors, invariances (hypothesis) and errors."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from attncore.checks import ParameterError
from attncore.random import make_rng
from attncore.rescalings import RESCALINGS, from_callable, get_rescaling, register
from attncore.softmax import softmax

SOURCES = {
    "none": "luong2015effective",
    "sqrt_d": "vaswani2017attention",
    "k_total": "bernhard2023alternatives",
    "mean_key_length": "bernhard2023alternatives",
    "key_rss": "bernhard2023alternatives",
    "key_p_norm": "bernhard2023alternatives",
    "n_sqrt_d": "bernhard2023alternatives",
    "mup": "yang2022tensor",
    "log_n": "chiang2022overcoming",
    "log512_n": "su2021entropy",
    "ssmax": "nakanishi2025scalable",
    "qk_norm": "henry2020querykey",
    "cosine": "liu2022swin",
    "constant": "chuang2023scaling",
}

KEYS = np.array([[3.0, 4.0, 0.0, 0.0], [0.0, 0.0, 1.0, 0.0], [0.0, 2.0, 0.0, 0.0]])  # 5, 1, 2


def test_registry_holds_every_rescaling_with_its_cited_source():
    assert {name: r.source for name, r in RESCALINGS.items()} == SOURCES
    for name, rescaling in RESCALINGS.items():
        assert rescaling.name == name and rescaling.label
        assert rescaling.source in rescaling.factor.__doc__


@pytest.mark.parametrize(
    ("name", "params", "expected"),
    [
        ("none", {}, 1.0),
        ("sqrt_d", {}, 1 / 2),
        ("k_total", {}, 1 / 8),
        ("mean_key_length", {}, 3 / 8),
        ("key_rss", {}, 1 / math.sqrt(30)),
        ("key_p_norm", {"p": 1.0}, 1 / 8),
        ("key_p_norm", {"p": 2.0}, 1 / math.sqrt(30)),
        ("key_p_norm", {"p": 3.0}, 1 / 134 ** (1 / 3)),
        ("key_p_norm", {"p": 500.0}, 1 / 5),
        ("n_sqrt_d", {}, 1 / 6),
        ("mup", {}, 1 / 4),
        ("log_n", {}, math.log(3) / 2),
        ("log512_n", {}, math.log(3) / math.log(512) / 2),
        ("ssmax", {}, math.log(3) / 2),
        ("ssmax", {"s": 0.5}, math.log(3) / 4),
        ("qk_norm", {}, math.log2(6)),
        ("qk_norm", {"g": 4.0}, 4.0),
        ("constant", {"beta": 5.0}, 5.0),
    ],
)
def test_factors(name, params, expected):
    assert get_rescaling(name, **params).factor_for(KEYS) == pytest.approx(expected, rel=1e-12)


def test_log512_equals_sqrt_d_at_512_keys():
    keys = np.ones((512, 16))
    assert RESCALINGS["log512_n"].factor_for(keys) == pytest.approx(0.25, rel=1e-14)


finite = st.floats(-10, 10, allow_nan=False, allow_infinity=False)
matrices = arrays(np.float64, (3, 4), elements=finite)


@settings(max_examples=30, deadline=None)
@given(queries=matrices, keys=matrices, c=st.floats(0.01, 100.0))
def test_k_total_is_invariant_to_scaling_the_keys(queries, keys, c):
    assume(np.linalg.norm(keys, axis=1).sum() > 1e-3)
    k_total = RESCALINGS["k_total"]
    np.testing.assert_allclose(
        k_total.scaled_logits(queries, c * keys),
        k_total.scaled_logits(queries, keys),
        rtol=1e-9,
        atol=1e-9,
    )


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), c=st.floats(2.0, 10.0))
def test_sqrt_d_is_not_invariant_to_scaling_the_keys(seed, c):
    queries, keys = make_rng(seed).standard_normal((2, 3, 4))
    sqrt_d = RESCALINGS["sqrt_d"]
    scaled = sqrt_d.scaled_logits(queries, c * keys)
    expected = c * sqrt_d.scaled_logits(queries, keys)
    # a logit near 0 is a cancellation: its rounding is relative to the row's size, not its own
    np.testing.assert_allclose(scaled, expected, rtol=1e-12, atol=1e-14 * np.abs(expected).max())
    assert not np.allclose(softmax(scaled), softmax(sqrt_d.scaled_logits(queries, keys)))


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), a=st.floats(0.01, 100.0), b=st.floats(0.01, 100.0))
def test_qk_norm_is_invariant_to_scaling_queries_and_keys(seed, a, b):
    queries, keys = make_rng(seed).standard_normal((2, 3, 4))
    qk_norm = RESCALINGS["qk_norm"].with_params(g=3.0)
    logits = qk_norm.scaled_logits(queries, keys)
    np.testing.assert_allclose(qk_norm.scaled_logits(a * queries, b * keys), logits, rtol=1e-9)
    assert np.abs(logits).max() <= 3.0 + 1e-12


def test_user_callables_register_or_stay_unregistered():
    half = from_callable(lambda keys, n, d, scale=0.5: scale / n, label="{scale}/n")
    assert half.factor_for(KEYS) == pytest.approx(0.5 / 3)
    assert half.with_params(scale=3.0).factor_for(KEYS) == pytest.approx(1.0)
    assert half.with_params(scale=3.0).label == "3/n"
    assert "custom" not in RESCALINGS
    try:
        register("max_key", label="1/max‖k‖", source="user")(
            lambda keys, n, d: 1 / np.linalg.norm(keys, axis=1).max()
        )
        assert get_rescaling("max_key").factor_for(KEYS) == pytest.approx(0.2)
    finally:
        RESCALINGS.pop("max_key")


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: RESCALINGS["k_total"].factor_for(np.zeros((3, 2))), r"^k_total must be .* > 0"),
        (
            lambda: RESCALINGS["mean_key_length"].factor_for(np.zeros((3, 2))),
            r"^mean_key_length must be a finite real number > 0, got 0\.0$",
        ),
        (lambda: RESCALINGS["key_rss"].factor_for(np.zeros((2, 2))), r"^key_rss must be"),
        (lambda: RESCALINGS["key_p_norm"].factor_for(np.zeros((2, 2))), r"^key_p_norm must"),
        (
            lambda: RESCALINGS["qk_norm"].scaled_logits(np.ones((1, 2)), np.zeros((2, 2))),
            r"^keys must have rows of length > 0 for cosines, row 0 is 0$",
        ),
        (lambda: RESCALINGS["qk_norm"].factor_for(np.ones((1, 2))), r"^n must be .* >= 2"),
        (lambda: RESCALINGS["sqrt_d"].factor_for([[1.0, np.nan]]), r"^keys must contain only"),
        (lambda: RESCALINGS["sqrt_d"].factor_for([1.0, 2.0]), r"^keys must have 2 dimension"),
        (lambda: get_rescaling("ssmax", s=-1.0), r"^s must be a finite real number > 0"),
        (lambda: get_rescaling("ssmax", s=math.nan), r"^s must be a finite real number"),
        (lambda: get_rescaling("key_p_norm", p=0.0), r"^p must be a finite real number > 0"),
        (lambda: get_rescaling("constant", beta=math.inf), r"^beta must be a finite real"),
        (lambda: get_rescaling("ssmax", p=2.0), r"^p is not a parameter of ssmax"),
        (lambda: get_rescaling("softmax"), r"^rescaling must be one of constant, .*'softmax'$"),
        (
            lambda: from_callable(lambda keys, n, d: math.inf).factor_for(KEYS),
            r"^factor of custom must be a finite real number, got inf$",
        ),
        (
            lambda: RESCALINGS["sqrt_d"].scaled_logits(np.ones((1, 3)), KEYS),
            r"^queries must have as many columns as keys \(4\), got 3$",
        ),
    ],
)
def test_bad_input_gives_one_line_parameter_error(call, message):
    with pytest.raises(ParameterError, match=message) as error:
        call()
    assert "\n" not in str(error.value)


def test_every_registered_source_is_in_the_bibliography():
    bibliography = (Path(__file__).resolve().parent.parent / "book" / "references.bib").read_text()
    missing = [r.source for r in RESCALINGS.values() if f"{{{r.source}," not in bibliography]
    assert not missing, f"add these to book/references.bib: {missing}"
