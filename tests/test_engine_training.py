"""The compiled engine against the eager one: the same runs up to float32 rounding, and one seed
gives the same numbers wherever it runs."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from attncore.checks import ParameterError  # noqa: E402
from attncore.training import ModelConfig, RunSpec, reversal_data, train_runs  # noqa: E402
from attncore.training.engine import _COMPILED, compiler_available, resolve_engine  # noqa: E402

COMPILE_CACHE = Path(__file__).resolve().parent.parent / ".cache" / "compiled"
"""The book's cache of compiled code, so that a second test run compiles nothing."""

needs_compiler = pytest.mark.skipif(
    not compiler_available(), reason="torch.compile needs a C++ compiler on the CPU"
)

# Float32 sums taken in another order (inductor's fused kernels against PyTorch's operations)
# differ in the last bits, about 1e-7 relative per operation; over 40 steps at this learning rate
# training carries them without blowing them up (the same bound as tests/test_ensemble.py's, for
# runs trained together against alone). A wrong gradient, batch or optimizer state moves the
# losses in the first or second digit.
LOSS_TOLERANCE = 1e-5
SIZES = {"vocab": 6, "length": 4, "d_model": 8}
SCALINGS = ("sqrt_d", "learned", "k_total", "qk_norm", "qk_norm_learned", "cosine_learned")


@pytest.fixture(scope="module")
def tiny_data():
    return reversal_data(5, n_train=256, n_val=150, n_test=230, length=4, vocab=6)


def specs(names=SCALINGS, seed=0):
    """Every form of scaling (fixed, learned, keys, cosine with a fixed and a learned gain, and
    with a learned temperature)."""
    return [
        RunSpec(
            ModelConfig(scaling=name, layer_norm=True, init="pytorch", **SIZES),
            seed=seed,
            steps=40,
            batch_size=16,
            lr=1e-2,
            eval_every=20,
            test_at=(20, 40) if name == "sqrt_d" else (),
        )
        for name in names
    ]


def timeless(runs):
    return [replace(r, seconds=0.0) for r in runs]


@needs_compiler
def test_compiled_training_follows_the_eager_run_within_float32_rounding(tiny_data):
    eager = train_runs(specs(), tiny_data, engine="eager")
    compiled = train_runs(specs(), tiny_data, engine="compiled", compile_cache=COMPILE_CACHE)
    # the step and the validation pass of all six models, and the test pass of 1/sqrt(d)'s
    ran = {(name, layout.models) for name, layout in _COMPILED}
    assert {("losses", 6), ("measure", 6), ("hits", 1)} <= ran
    token = 1.0 / tiny_data.val_targets.size
    for e, c in zip(eager, compiled, strict=True):
        np.testing.assert_allclose(c.losses, e.losses, atol=LOSS_TOLERANCE)
        np.testing.assert_allclose(c.val_accuracy, e.val_accuracy, atol=token)
        np.testing.assert_allclose(c.spreads, e.spreads, rtol=1e-4)
        np.testing.assert_allclose(c.mirror_weights, e.mirror_weights, rtol=1e-4)
        np.testing.assert_allclose(c.query_norms, e.query_norms, rtol=1e-4)
        np.testing.assert_allclose(np.array(c.weight_sds), np.array(e.weight_sds), rtol=1e-4)
        assert [s for s, _, _ in c.test_scores] == [s for s, _, _ in e.test_scores]
        for (_, a, x), (_, b, y) in zip(c.test_scores, e.test_scores, strict=True):
            assert a == pytest.approx(b, abs=1.0 / tiny_data.test_targets.size)
            assert x == pytest.approx(y, abs=1.0 / len(tiny_data.test_targets))


@needs_compiler
def test_compiled_groups_on_a_local_cluster_match_one_process(tiny_data):
    """Worker processes compile (or read the compiled code from the cache) and give the same
    numbers, bit for bit, as this process."""
    options = {"engine": "compiled", "compile_cache": COMPILE_CACHE}
    here = train_runs(specs(), tiny_data, scheduler="synchronous", **options)
    spread = train_runs(specs(), tiny_data, scheduler="local", **options)
    assert timeless(spread) == timeless(here)


def test_engines_are_named_and_checked():
    assert resolve_engine("eager") == "eager"
    assert resolve_engine("auto") == ("compiled" if compiler_available() else "eager")
    with pytest.raises(ParameterError, match="engine must be one of auto, compiled, eager"):
        resolve_engine("jit")
