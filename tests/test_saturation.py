"""The saturation curve against a plain loop over rows."""

import math

import numpy as np
import pytest

from attncore.checks import ParameterError
from attncore.measures import SATURATION_THRESHOLD
from attncore.random import make_rng
from attncore.simulate.saturation import jacobian_landmarks, saturation_curve, shift_table
from attncore.softmax import softmax


def loop_reference(spread, n_keys, n_rows, seed, threshold):
    z = make_rng(seed).standard_normal((n_rows, n_keys))
    rows = []
    for row in z:
        e = [math.exp(spread * v - spread * max(row)) for v in row]
        s = [v / sum(e) for v in e]
        sq = sum(p * p for p in s)
        rows.append(
            (
                -sum(p * math.log(p) for p in s if p > 0) / math.log(n_keys),
                max(s),
                1 / sq,
                math.sqrt(sum(p * p for p in s) - 2 * sum(p**3 for p in s) + sq * sq),
                float(max(s) > threshold),
            )
        )
    return np.mean(rows, axis=0)


@pytest.mark.parametrize("spread", [0.1, 1.0, 7.0])
def test_vectorized_curve_equals_loop(spread):
    curve = saturation_curve([spread], n_keys=5, n_rows=30, seed=3, threshold=0.5).iloc[0]
    expected = loop_reference(spread, 5, 30, 3, 0.5)
    columns = ["entropy_ratio", "max_probability", "effective_keys", "jacobian_norm", "saturated"]
    np.testing.assert_allclose(curve[columns].to_numpy(float), expected, rtol=1e-10)


def test_same_seed_same_numbers_bit_for_bit():
    a = saturation_curve([0.5, 2.0], n_keys=16, n_rows=100, seed=11)
    b = saturation_curve([0.5, 2.0], n_keys=16, n_rows=100, seed=11)
    assert a.equals(b)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"spreads": [0.0]}, "spreads must all be > 0"),
        ({"spreads": [float("nan")]}, "spreads must contain only finite numbers"),
        ({"n_keys": 1}, "n_keys must be an integer >= 2"),
        ({"n_rows": 2.5}, "n_rows must be an integer >= 2"),
        ({"threshold": 1.0}, "threshold must be a real number in (0, 1)"),
    ],
)
def test_bad_input_names_the_parameter(kwargs, message):
    args = {"spreads": [1.0], "n_keys": 4, "n_rows": 10, "seed": 0, **kwargs}
    with pytest.raises(ParameterError, match=message.replace("(", r"\(").replace(")", r"\)")):
        saturation_curve(**args)


def test_landmarks_of_a_curve_that_peaks_and_falls():
    curve = saturation_curve(np.geomspace(0.1, 100.0, 31), n_keys=16, n_rows=300, seed=2)
    marks = jacobian_landmarks(curve, n_keys=16)
    peak = curve["jacobian_norm"].idxmax()
    assert marks.peak_norm == curve["jacobian_norm"].max()
    assert marks.peak_spread == curve["spread"][peak]
    assert marks.uniform_norm == pytest.approx(math.sqrt(15) / 16)
    assert (marks.smallest_spread, marks.largest_spread) == (0.1, 100.0)
    assert marks.peaked_max_probability == curve["max_probability"].max()
    past = curve[(curve["spread"] > marks.peak_spread)]
    first_half = past[past["jacobian_norm"] < marks.peak_norm / 2]["spread"].iloc[0]
    assert marks.spread_at_half == first_half
    tail = curve[curve["spread"] >= 10.0]
    slope = np.polyfit(np.log(tail["spread"]), np.log(tail["jacobian_norm"]), 1)[0]
    assert marks.tail_slope == pytest.approx(slope)
    assert 0 < marks.tail_slope_se < 0.2


def test_landmarks_without_a_fall_or_a_tail():
    curve = saturation_curve([0.1, 1.0], n_keys=16, n_rows=100, seed=2)
    marks = jacobian_landmarks(curve, n_keys=16)
    assert marks.peak_spread == 1.0
    assert math.isnan(marks.spread_at_half) and math.isnan(marks.tail_slope)


def test_shift_table_against_the_naive_formula():
    rows = make_rng(4).standard_normal((50, 6))
    table = shift_table(rows, [0.5, -800.0])
    assert table["shift"].tolist() == [0.5, -800.0]
    assert table["naive_finite"].tolist() == [True, False]
    naive = np.exp(rows + 0.5) / np.exp(rows + 0.5).sum(axis=1, keepdims=True)
    assert table["largest_difference"].iloc[0] < 1e-15 + np.abs(naive - softmax(rows)).max()
    assert table["rounding"].iloc[1] == np.spacing(np.abs(rows - 800.0).max())
    assert (table["largest_difference"] <= 4 * table["rounding"]).all()


def test_default_threshold_is_the_one_of_measures():
    spread = [5.0]
    assert saturation_curve(spread, n_keys=8, n_rows=50, seed=1).equals(
        saturation_curve(spread, n_keys=8, n_rows=50, seed=1, threshold=SATURATION_THRESHOLD)
    )
    assert SATURATION_THRESHOLD == 0.9


def test_keys_table_is_the_curve_for_each_n():
    from attncore.simulate.saturation import keys_table

    table = keys_table([4, 32], [1.0, 8.0], n_rows=100, seed=5)
    alone = saturation_curve([1.0, 8.0], n_keys=32, n_rows=100, seed=5)
    part = table[table["n_keys"] == 32].reset_index(drop=True)
    assert np.array_equal(part["jacobian_norm"], alone["jacobian_norm"])
    assert np.allclose(part["top_over_uniform"], 32 * alone["max_probability"])
    assert np.allclose(part["norm_over_uniform"] * np.sqrt(31) / 32, alone["jacobian_norm"])


def test_keys_table_refuses_a_single_key():
    from attncore.simulate.saturation import keys_table

    with pytest.raises(ParameterError, match="n_keys"):
        keys_table([1], [1.0], n_rows=10, seed=0)


def test_jacobian_agreement_detects_a_wrong_formula(monkeypatch):
    from attncore.simulate import saturation

    good = saturation.jacobian_agreement(5, 4, [1.0], seed=0)
    assert good["largest_difference"] <= good["rounding"] and good["symbolic"]
    # a softmax that is not the one differentiated: the complex step sees the difference
    monkeypatch.setattr(saturation, "softmax", lambda z: np.full(z.shape, 1 / z.shape[-1]))
    bad = saturation.jacobian_agreement(5, 4, [1.0], seed=0)
    assert bad["largest_difference"] > 1e-3
