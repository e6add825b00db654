"""The training subpackage: data, scalings, initializations, repeatable training, errors."""

from __future__ import annotations

import inspect
import math

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from attncore.checks import ParameterError  # noqa: E402
from attncore.claims.thresholds import thresholds_of  # noqa: E402
from attncore.rescalings import RESCALINGS, get_rescaling, register  # noqa: E402
from attncore.training import (  # noqa: E402
    ModelConfig,
    ReversalTransformer,
    RunSpec,
    build_model,
    check_reversed,
    initialize,
    make_scaling,
    model_scalings,
    parameter_count,
    reversal_data,
    search_beta,
    summary_frame,
    train_reversal,
)

LEARNED = thresholds_of("training").LEARNED

TINY = {"vocab": 6, "length": 4, "d_model": 8}


def configs(**fixed):
    for scaling in model_scalings():
        beta = 5.0 if scaling == "constant" else None
        yield ModelConfig(scaling=scaling, beta=beta, **fixed)


@pytest.fixture(scope="module")
def tiny_data():
    return reversal_data(3, n_train=256, n_val=64, n_test=64, length=4, vocab=6)


def test_targets_are_the_inputs_reversed_and_splits_are_independent():
    data = reversal_data(7, n_train=50, n_val=20, n_test=30)
    for split in ("train", "val", "test"):
        inputs, targets = getattr(data, f"{split}_inputs"), getattr(data, f"{split}_targets")
        assert inputs.shape[1] == 20 and inputs.min() >= 0 and inputs.max() <= 100
        assert all(list(t) == list(reversed(list(x))) for x, t in zip(inputs, targets, strict=True))
    other = reversal_data(7, n_train=50, n_val=20, n_test=999)
    np.testing.assert_array_equal(data.train_inputs, other.train_inputs)
    np.testing.assert_array_equal(data.val_inputs, other.val_inputs)
    assert not np.array_equal(data.train_inputs, reversal_data(8, n_train=50).train_inputs)


def test_check_reversed_rejects_targets_that_are_not_reversed():
    x = np.array([[1, 2, 3], [4, 5, 6]])
    with pytest.raises(ParameterError, match="row 1 is not"):
        check_reversed(x, np.array([[3, 2, 1], [4, 5, 6]]))


@pytest.mark.parametrize("layer_norm", [False, True])
@pytest.mark.parametrize("n_layers", [1, 2])
def test_every_configuration_has_under_8000_parameters(layer_norm, n_layers):
    for config in configs(layer_norm=layer_norm, n_layers=n_layers):
        assert parameter_count(config) < 8000


def random_qk(seed=0, scale=1.0):
    gen = torch.Generator().manual_seed(seed)
    q = scale * torch.randn(3, 2, 20, 8, generator=gen)
    k = scale * torch.randn(3, 2, 20, 8, generator=gen)
    return q, k


@pytest.mark.parametrize("scale", [1e-6, 1.0, 1e4])
def test_every_scaling_gives_finite_logits(scale):
    q, k = random_qk(scale=scale)
    for name in model_scalings():
        scaling = make_scaling(name, d_k=8, n_heads=2, length=20, beta=5.0)
        logits = scaling(q, k)
        assert logits.shape == (3, 2, 20, 20) and torch.isfinite(logits).all(), name


@pytest.mark.parametrize("c", [1e-3, 0.5, 7.0, 1e3])
def test_k_total_is_invariant_to_scaling_every_key(c):
    q, k = random_qk(1)
    scaling = make_scaling("k_total", d_k=8, n_heads=2, length=20)
    torch.testing.assert_close(scaling(q, c * k), scaling(q, k), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("name", sorted(RESCALINGS))
def test_every_registered_rescaling_is_a_model_scaling_that_matches_the_registry(name):
    """The registry is the one home: every rescaling is a model scaling with its source, and
    the torch module gives the registry's logits for every head and sequence."""
    scaling = model_scalings()[name]
    assert scaling.source == RESCALINGS[name].source and not scaling.learned
    params = {"beta": 5.0} if name == "constant" else {}
    module = make_scaling(name, d_k=8, n_heads=2, length=20, **params)
    q, k = random_qk(2)
    logits = module(q, k)
    for batch, head in ((0, 1), (2, 0)):
        rescaling = get_rescaling(name, **params)
        expected = rescaling.scaled_logits(q[batch, head].double(), k[batch, head].double())
        np.testing.assert_allclose(logits[batch, head].numpy(), expected, rtol=1e-5, atol=1e-5)


def test_a_newly_registered_rescaling_of_n_and_d_becomes_a_model_scaling():
    """Issue 9: register a rescaling in one place and find it in the training model."""

    @register("test_half_sqrt_d", label="1/(2√d)", source="user")
    def half(keys, n, d):
        return 0.5 / math.sqrt(d)

    try:
        scaling = model_scalings()["test_half_sqrt_d"]
        assert (scaling.kind, scaling.source) == ("fixed", "user")
        config = ModelConfig(scaling="test_half_sqrt_d", **TINY)
        assert config.label == "1/(2√d)"
        assert make_scaling("test_half_sqrt_d", d_k=8, n_heads=2, length=20).factor == 0.5 / 8**0.5
        assert parameter_count(config) == parameter_count(ModelConfig(**TINY))
    finally:
        RESCALINGS.pop("test_half_sqrt_d")
    assert "test_half_sqrt_d" not in model_scalings()


def test_a_rescaling_of_the_keys_without_a_torch_form_is_not_offered():
    @register("test_max_key", label="1/max ‖k‖", source="user")
    def max_key(keys, n, d):
        return 1.0 / float(np.max(np.linalg.norm(keys, axis=1)))

    try:
        assert "test_max_key" not in model_scalings()
        with pytest.raises(ParameterError, match="add one to KEY_NORMS in attncore/training/model"):
            ModelConfig(scaling="test_max_key")
    finally:
        RESCALINGS.pop("test_max_key")


def test_learned_scalings_say_whose_they_are():
    scalings = model_scalings()
    assert scalings["learned"].learned and scalings["learned"].source.startswith("this book")
    assert scalings["qk_norm_learned"].source == "henry2020querykey"


def test_parameters_of_other_rescalings_reach_the_model():
    module = make_scaling("key_p_norm", d_k=8, n_heads=2, length=20, params={"p": 3.0})
    q, k = random_qk(3)
    expected = get_rescaling("key_p_norm", p=3.0).scaled_logits(q[1, 1].double(), k[1, 1].double())
    np.testing.assert_allclose(module(q, k)[1, 1].numpy(), expected, rtol=1e-5, atol=1e-5)
    with pytest.raises(ParameterError, match="p is not a parameter of sqrt_d"):
        ModelConfig(params={"p": 3.0})


def test_qk_norm_logits_are_bounded_by_the_gain():
    q, k = random_qk(4, scale=100.0)
    for gain in (0.5, 8.57, 30.0):
        logits = make_scaling("qk_norm", d_k=8, n_heads=2, length=20, gain=gain)(q, k)
        assert logits.abs().max() <= gain * (1 + 1e-6)


def test_learned_scales_receive_gradients():
    q, k = random_qk(5)
    for name in ("learned", "qk_norm_learned", "cosine_learned"):
        scaling = make_scaling(name, d_k=8, n_heads=2, length=20)
        scaling(q, k).square().sum().backward()
        (parameter,) = scaling.parameters()
        assert parameter.grad is not None and torch.all(parameter.grad != 0)
    assert list(make_scaling("qk_norm", d_k=8, n_heads=2, length=20).parameters()) == []


def test_keras_like_initialization_is_small_and_pytorch_default_is_not():
    keras = build_model(ModelConfig(init="keras"), 0)
    pytorch = build_model(ModelConfig(init="pytorch"), 0)
    assert keras.tokens.weight.abs().max() <= 0.05
    assert keras.attention[0].query.bias.abs().max() == 0
    limit = math.sqrt(6 / 32)
    assert keras.attention[0].query.weight.abs().max() <= limit
    assert pytorch.tokens.weight.std() > 0.5  # N(0, 1)


def test_building_a_model_leaves_the_global_generator_alone():
    torch.manual_seed(11)
    expected = torch.rand(1)
    torch.manual_seed(11)
    build_model(ModelConfig(), 3)
    assert torch.equal(torch.rand(1), expected)


def test_two_runs_with_one_seed_are_bit_identical(tiny_data):
    config = ModelConfig(scaling="learned", **TINY)
    a = train_reversal(config, tiny_data, steps=12, seed=5, batch_size=16, eval_every=4)
    b = train_reversal(config, tiny_data, steps=12, seed=5, batch_size=16, eval_every=4)
    c = train_reversal(config, tiny_data, steps=12, seed=6, batch_size=16, eval_every=4)
    assert a.losses == b.losses and a.val_accuracy == b.val_accuracy
    assert a.spreads == b.spreads and a.scales_end == b.scales_end
    assert a.losses != c.losses


def test_a_tiny_run_learns_an_easy_reversal(tiny_data):
    config = ModelConfig(scaling="qk_norm", layer_norm=True, init="pytorch", **TINY)
    result = train_reversal(config, tiny_data, steps=150, batch_size=32, lr=1e-2, eval_every=50)
    assert result.val_accuracy[0] < 0.5 < result.token_accuracy
    assert result.mirror_weights[-1] > result.mirror_weights[0]
    assert result.steps_to_target is not None and result.steps_to_target <= 150
    assert result.val_accuracy[result.eval_steps.index(result.steps_to_target)] >= 0.95


def test_search_counts_one_training_run_per_evaluation(tiny_data):
    run = search_beta(
        ModelConfig(**TINY), tiny_data, steps=3, batch_size=16, tolerance=0.5, max_exponent=1
    )
    assert run.evaluations == len(run.runs) == len(run.result.history)
    assert run.training_steps == 3 * run.evaluations
    assert all(r.config.scaling == "constant" for r in run.runs)


def test_search_seconds_are_the_training_time_of_its_runs_even_from_the_cache(tiny_data, tmp_path):
    options = {"steps": 3, "batch_size": 16, "tolerance": 0.5, "max_exponent": 1}
    trained = search_beta(ModelConfig(**TINY), tiny_data, cache=tmp_path, **options)
    assert trained.seconds == sum(r.seconds for r in trained.runs) > 0
    read = search_beta(ModelConfig(**TINY), tiny_data, cache=tmp_path, **options)
    assert read.seconds == trained.seconds  # what the runs took, not the time to read them


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda: ModelConfig(scaling="sqrt"), "scaling must be one of none, sqrt_d, k_total"),
        (lambda: ModelConfig(scaling="constant"), "beta must be given"),
        (lambda: ModelConfig(beta=-1.0, scaling="learned"), "beta must be a finite real"),
        (lambda: ModelConfig(init="xavier"), "init must be one of pytorch, keras"),
        (lambda: ModelConfig(n_heads=3), "n_heads must divide d_model"),
        (lambda: ModelConfig(n_layers=0), "n_layers must be an integer >= 1"),
        (lambda: ModelConfig(length=1), "length must be an integer >= 2"),
        (lambda: ModelConfig(gain=float("nan")), "gain must be a finite real"),
        (lambda: reversal_data(-1), "seed must be an integer >= 0"),
        (lambda: reversal_data(0, n_train=0), "n_train must be an integer >= 1"),
        (lambda: reversal_data(0, vocab=1), "vocab must be an integer >= 2"),
        (lambda: initialize(ReversalTransformer(ModelConfig()), "he"), "scheme must be one of"),
        (lambda: make_scaling("x", d_k=8, n_heads=2, length=20), "scaling must be one of"),
    ],
)
def test_bad_parameters_give_one_line_errors(make, message):
    with pytest.raises(ParameterError, match=message) as error:
        make()
    assert "\n" not in str(error.value)


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"steps": -1}, "steps must be an integer >= 0"),
        ({"batch_size": 10_000}, r"batch_size must be in \[1, 256\]"),
        ({"lr": 0.0}, "lr must be a finite real number > 0"),
        ({"eval_every": 0}, "eval_every must be an integer >= 1"),
        ({"target": 1.5}, r"target must be an accuracy in \(0, 1\]"),
        ({"threads": 0}, "threads must be an integer >= 1"),
        ({"seed": -2}, "seed must be an integer >= 0"),
    ],
)
def test_bad_training_options_give_one_line_errors(tiny_data, options, message):
    kwargs = {"steps": 1, **options}
    with pytest.raises(ParameterError, match=message):
        train_reversal(ModelConfig(**TINY), tiny_data, **kwargs)


def test_config_must_match_the_data(tiny_data):
    with pytest.raises(ParameterError, match="config must match the data"):
        train_reversal(ModelConfig(), tiny_data, steps=1)


def test_summary_rejects_budgets_beyond_the_runs(tiny_data):
    result = train_reversal(ModelConfig(**TINY), tiny_data, steps=2, batch_size=16)
    with pytest.raises(ParameterError, match="budgets must be <= the steps"):
        summary_frame([result], budgets=[5])


def test_run_methods_needs_methods_and_seeds(tiny_data):
    from attncore.training import run_methods

    with pytest.raises(ParameterError, match="methods must name at least one"):
        run_methods({}, tiny_data, seeds=[0], steps=1)
    with pytest.raises(ParameterError, match="seeds must hold at least one seed"):
        run_methods({"x": ModelConfig(**TINY)}, tiny_data, seeds=[], steps=1)


def test_weight_sds_are_recorded_at_every_evaluation(tiny_data):
    config = ModelConfig(**TINY)
    result = train_reversal(config, tiny_data, steps=8, batch_size=16, eval_every=4, lr=1e-2)
    assert len(result.weight_sds) == len(result.eval_steps) == 3
    sd_x, sd_q, _ = result.weight_sds[0]
    limit = math.sqrt(6 / 16)  # Glorot-uniform, fan_in = fan_out = 8
    assert sd_q == pytest.approx(limit / math.sqrt(3), rel=0.3) and sd_x < 0.1
    assert result.weight_sds[-1] != result.weight_sds[0]


def test_predicted_spread_follows_the_registry_factor():
    from attncore.training import predicted_logit_spread

    base = predicted_logit_spread(ModelConfig(init="pytorch", layer_norm=True))
    mup = predicted_logit_spread(ModelConfig(init="pytorch", layer_norm=True, scaling="mup"))
    assert mup == pytest.approx(base / math.sqrt(8))
    beta = predicted_logit_spread(
        ModelConfig(init="pytorch", layer_norm=True, scaling="constant", beta=5.0)
    )
    assert beta == pytest.approx(base * 5 * math.sqrt(8))


@pytest.mark.parametrize("levels", [3, 1000])
def test_hits_equal_argmax_even_with_ties(levels):
    """The fast hit count is argmax's, ties included (few levels make ties common)."""
    from attncore.training.train import _hits

    generator = torch.Generator().manual_seed(levels)
    logits = torch.randint(0, levels, (50, 20, 7), generator=generator).float()
    logits[0, 0] = float("nan")  # a row of NaN is never a hit
    targets = torch.randint(0, 7, (50, 20), generator=generator)
    expected = logits.argmax(dim=-1) == targets
    expected[0, 0] = False
    assert torch.equal(_hits(logits, targets), expected)


def test_the_runs_target_is_the_accuracy_the_verdict_rules_call_learned():
    # A run's "steps to target" and the rules' "learned" are one threshold: the book's
    # tables and figures print the rules' value beside the runs' counts.
    assert RunSpec(ModelConfig()).target == LEARNED
    assert inspect.signature(train_reversal).parameters["target"].default == LEARNED
