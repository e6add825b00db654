"""Runs trained together follow their runs alone; finished runs are cached per run."""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from attncore.checks import ParameterError  # noqa: E402
from attncore.sources.chuang import chuang_beta_search  # noqa: E402
from attncore.training import (  # noqa: E402
    ModelConfig,
    reversal_data,
    search_beta,
    search_betas,
    train_reversal,
)
from attncore.training.data import IGNORE, SequenceData  # noqa: E402
from attncore.training.ensemble import TRAINED, RunSpec, train_runs  # noqa: E402
from attncore.training.experiment import run_methods  # noqa: E402
from attncore.training.train import resolve_device  # noqa: E402

TINY = {"vocab": 6, "length": 4, "d_model": 8}

# Float32 sums taken in another order (batched against single matrix products) differ in the
# last bits, about 1e-7 relative per operation; training carries them along without blowing
# them up at these sizes (../shared/TOOLCHAIN.md measured 5e-7 over 1,200 steps of the
# chapter's model). 1e-5 leaves room for that and catches any real difference (a wrong batch
# or a shared optimizer state changes the losses in the first or second digit).
LOSS_TOLERANCE = 1e-5
CHECKPOINTS = (0, 10, 30, 59)


@pytest.fixture(scope="module")
def tiny_data():
    return reversal_data(3, n_train=256, n_val=64, n_test=64, length=4, vocab=6)


def one_token(data):
    """An accuracy step of one validation token: the most an argmax at a near tie may move."""
    return 1.0 / data.val_targets.size


def spec(scaling, seed, steps=60, beta=None, **fields):
    config = ModelConfig(scaling=scaling, beta=beta, layer_norm=True, init="pytorch", **TINY)
    options = {"batch_size": 16, "lr": 1e-2, "eval_every": 20, **fields}
    return RunSpec(config, seed=seed, steps=steps, **options)


def assert_same_run(together, alone, data):
    assert together.method == alone.method and together.seed == alone.seed
    assert together.eval_steps == alone.eval_steps
    losses = np.array(together.losses), np.array(alone.losses)
    assert losses[0].shape == losses[1].shape
    for step in CHECKPOINTS:
        assert losses[0][step] == pytest.approx(losses[1][step], abs=LOSS_TOLERANCE)
    np.testing.assert_allclose(together.val_accuracy, alone.val_accuracy, atol=one_token(data))
    np.testing.assert_allclose(together.spreads, alone.spreads, rtol=1e-4)
    for (s1, a1, _), (s2, a2, _) in zip(together.test_scores, alone.test_scores, strict=True):
        assert s1 == s2 and a1 == pytest.approx(a2, abs=1.0 / data.test_targets.size)


def test_models_trained_together_follow_their_runs_alone(tiny_data):
    """Three fixed factors x two seeds share one ensemble; every other scaling kind, and a
    model without LayerNorm and with two layers, forms its own."""
    specs = [
        spec(scaling, seed, beta=5.0 if scaling == "constant" else None, test_at=(20,))
        for scaling in ("sqrt_d", "constant", "mup")
        for seed in (0, 1)
    ]
    specs += [
        spec(name, seed) for name in ("learned", "k_total", "qk_norm_learned") for seed in (0, 1)
    ]
    keras = ModelConfig(scaling="mup", n_layers=2, **TINY)  # no LayerNorm, two layers
    specs += [replace(spec("mup", seed), config=keras) for seed in (0, 1)]
    before = TRAINED["runs"]
    together = train_runs(specs, tiny_data)
    assert TRAINED["runs"] - before == len(specs)
    for run, s in zip(together, specs, strict=True):
        alone = train_reversal(s.config, tiny_data, **s.options())
        assert_same_run(run, alone, tiny_data)
    # each model its own seed: the two seeds of one method differ
    assert together[0].losses != together[1].losses
    assert together[6].scales_end != together[7].scales_end


def first_task(seed, strings, length):
    """Chiang and Cholak's FIRST as a sequence task: bits, the label (the first bit) scored at
    position 0 and no other position."""
    rng = np.random.default_rng(seed)
    inputs = rng.integers(0, 2, size=(strings, length))
    targets = np.full_like(inputs, IGNORE)
    targets[:, 0] = inputs[:, 0]
    return inputs, targets


def test_a_task_that_labels_whole_strings_trains_together_as_alone():
    """The engine is not tied to reversal: two classes read at one position (the others
    ignored), post-LayerNorm, two layers of one head, and position features that do not
    depend on the length, so that the trained models read longer strings too."""
    splits = [first_task(seed, n, 6) for seed, n in ((0, 128), (1, 40), (2, 40))]
    data = SequenceData(*(a for split in splits for a in split), vocab=2, length=6, classes=2)
    config = ModelConfig(
        vocab=2,
        length=6,
        classes=2,
        d_model=8,
        n_heads=1,
        n_layers=2,
        layer_norm=True,
        norm_position="post",
        position_buckets=3,
        init="pytorch",
    )
    specs = [
        RunSpec(
            replace(config, scaling=name),
            seed=seed,
            steps=30,
            batch_size=8,
            lr=1e-2,
            eval_every=10,
            test_at=(30,),
        )
        for name in ("sqrt_d", "log_n", "qk_norm_learned")
        for seed in (0, 1)
    ]
    together = train_runs(specs, data)
    for run, s in zip(together, specs, strict=True):
        alone = train_reversal(s.config, data, **s.options())
        np.testing.assert_allclose(run.losses, alone.losses, atol=LOSS_TOLERANCE)
        np.testing.assert_allclose(run.val_accuracy, alone.val_accuracy, atol=1 / 40)
        assert run.test_scores[0][1] == pytest.approx(alone.test_scores[0][1], abs=1 / 40)
    # the trained models read strings twice as long, alone and stacked alike
    from attncore.training.engine import Engine
    from attncore.training.train import accuracy, build_model

    long_x, long_y = (torch.from_numpy(a) for a in first_task(3, 50, 12))
    models = [build_model(s.config, s.seed) for s in specs[:2]]
    stacked = Engine(models, lr=1e-2).hits([0, 1], long_x, long_y)
    for model, score in zip(models, stacked, strict=True):
        assert score == pytest.approx(accuracy(model, long_x, long_y))


def test_cosine_attention_trained_together_follows_its_run_alone(tiny_data):
    """Swin's cosine attention with its learned temperature, in float64: its logit scale of 10
    amplifies float32's rounding (a loss 7e-5 apart after 60 steps at this learning rate), so
    the comparison is made where rounding cannot hide a wrong gradient or optimizer state."""
    before = torch.get_default_dtype()
    torch.set_default_dtype(torch.float64)
    try:
        specs = [spec("cosine_learned", seed) for seed in (0, 1)]
        together = train_runs(specs, tiny_data)
        for run, s in zip(together, specs, strict=True):
            alone = train_reversal(s.config, tiny_data, **s.options())
            np.testing.assert_allclose(run.losses, alone.losses, rtol=0, atol=1e-12)
            assert run.scales_end == pytest.approx(alone.scales_end, abs=1e-12)
    finally:
        torch.set_default_dtype(before)
    assert together[0].scales_end != together[1].scales_end


def test_every_scaling_of_one_model_shape_trains_in_one_ensemble(tiny_data):
    """Scalings differ only inside the attention, so one shape key covers them all; a fixed
    QK-norm gain beside a learned one stays where it started."""
    from attncore.training.ensemble import _shape_key

    names = ("sqrt_d", "mup", "learned", "k_total", "key_rss", "qk_norm", "qk_norm_learned")
    assert len({_shape_key(spec(name, 0))[0] for name in names}) == 1
    from attncore.training.engine import Stack
    from attncore.training.train import build_model

    models = [build_model(spec(name, 0).config, 0) for name in ("qk_norm", "qk_norm_learned")]
    gain = Stack(models).params["attention.0.scaling.gain"]
    gain.sum().backward()
    assert not gain.grad[0].any() and gain.grad[1].all()  # the fixed gain gets no gradient
    specs = [spec("qk_norm", 0), spec("qk_norm_learned", 0)]
    fixed, _ = train_runs(specs, tiny_data)
    assert_same_run(
        fixed, train_reversal(specs[0].config, tiny_data, **specs[0].options()), tiny_data
    )


def test_adding_a_method_trains_only_that_method(tiny_data, tmp_path):
    seeds = [0, 1]
    methods = {"sqrt_d": spec("sqrt_d", 0).config, "k_total": spec("k_total", 0).config}
    options = {"steps": 20, "batch_size": 16, "eval_every": 10, "cache": tmp_path}
    before = TRAINED["runs"]
    first = run_methods(methods, tiny_data, seeds=seeds, **options)
    assert TRAINED["runs"] - before == 4
    more = {**methods, "qk_norm": spec("qk_norm", 0).config}
    before = TRAINED["runs"]
    second = run_methods(more, tiny_data, seeds=seeds, **options)
    assert TRAINED["runs"] - before == 2  # the two seeds of qk_norm, nothing else
    assert second[:4] == first  # read back exactly as stored
    assert [r.method for r in second[4:]] == ["qk_norm", "qk_norm"]
    before = TRAINED["runs"]
    run_methods(more, tiny_data, seeds=seeds, **{**options, "steps": 21})
    assert TRAINED["runs"] - before == 6  # another budget is another run


def test_the_golden_search_is_the_search_run_one_candidate_at_a_time(tiny_data):
    options = {"steps": 8, "batch_size": 16, "tolerance": 0.5, "max_exponent": 2}
    config = spec("sqrt_d", 0).config
    run = search_beta(config, tiny_data, strategy="golden", **options)

    def objective(beta):
        trial = replace(config, scaling="constant", beta=beta)
        return train_reversal(trial, tiny_data, steps=8, batch_size=16, eval_every=8).token_accuracy

    alone = chuang_beta_search(objective, max_exponent=2, tolerance=0.5)
    assert [b for b, _ in run.result.history] == [b for b, _ in alone.history]
    np.testing.assert_allclose(
        [v for _, v in run.result.history], [v for _, v in alone.history], atol=one_token(tiny_data)
    )
    assert run.beta == alone.beta and run.evaluations == len(run.runs)


def test_the_search_in_rounds_against_the_golden_section_on_the_same_seed(tiny_data):
    """Both scan the decades (the same runs, bit for bit: one ensemble of the whole scan in both,
    though the golden section reads only as far as its scan goes); the rounds then train their
    candidates together. They return the same beta within the tolerance, or,
    where they do not, a beta that scores at least as well on a plateau the golden section
    stopped on: the difference is where each stops among betas that score alike."""
    config = spec("sqrt_d", 0).config
    options = {"steps": 40, "batch_size": 16, "lr": 1e-2, "tolerance": 0.25, "max_exponent": 2}
    rounds = search_beta(config, tiny_data, strategy="rounds", **options)
    golden = search_beta(config, tiny_data, strategy="golden", **options)
    scan = golden.result.scan_evaluations
    assert rounds.result.history[:scan] == golden.result.history[:scan]
    apart = abs(math.log10(rounds.beta / golden.beta))
    assert apart <= options["tolerance"] or rounds.result.value >= golden.result.value
    assert all(r is not None for r in rounds.runs) and rounds.evaluations == len(rounds.runs)


def test_the_halving_search_against_the_rounds_on_the_same_seed(tiny_data):
    """Successive halving trains every beta of the grid for a fraction of the budget and only
    the last two for all of it: it costs fewer training steps than the rounds, counts exactly
    the steps its runs trained, and ends within the tolerance of the rounds' beta or on a
    beta that scores at least as well at the full budget."""
    config = spec("sqrt_d", 0).config
    options = {"steps": 40, "batch_size": 16, "lr": 1e-2, "tolerance": 0.25, "max_exponent": 2}
    rounds = search_beta(config, tiny_data, strategy="rounds", **options)
    halving = search_beta(config, tiny_data, strategy="halving", **options)
    assert halving.training_steps == sum(r.steps for r in halving.runs if r is not None)
    assert halving.training_steps < rounds.training_steps
    apart = abs(math.log10(halving.beta / rounds.beta))
    assert apart <= options["tolerance"] or halving.result.value >= rounds.result.value
    assert halving.runs[-1].steps == options["steps"]


def test_a_diverging_run_gives_none_or_raises(tiny_data):
    """beta = 1e300 is infinite in float32: the logits and the loss are not finite."""
    diverging, fine = (
        RunSpec(ModelConfig(scaling="constant", beta=beta, **TINY), steps=5, batch_size=16)
        for beta in (1e300, 1.0)
    )
    together = train_runs([diverging, fine], tiny_data, diverged="none")
    assert together[0] is None and together[1] is not None  # trained together
    assert train_runs([diverging], tiny_data, diverged="none") == [None]  # alone
    with pytest.raises(FloatingPointError, match="diverged"):
        train_runs([diverging, fine], tiny_data)


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda d: resolve_device("tpu"), "device must be one of cpu, cuda, auto"),
        (lambda d: train_runs([spec("sqrt_d", 0)], d, diverged="x"), "diverged must be one of"),
        (lambda d: train_runs([spec("sqrt_d", 0, batch_size=999)], d), "batch_size must be in"),
        (lambda d: train_runs([spec("sqrt_d", -1)], d), "seed must be an integer >= 0"),
    ],
)
def test_bad_options_give_one_line_errors(tiny_data, call, message):
    with pytest.raises(ParameterError, match=message):
        call(tiny_data)


def test_groups_and_searches_on_a_local_cluster_match_one_process(tiny_data):
    """Every group of runs (and every search) is a task: sent to worker processes it gives
    the same numbers, bit for bit, as in this process (the wall times aside)."""
    specs = [spec("sqrt_d", 0), spec("constant", 1, beta=2.0), spec("k_total", 0)]

    def timeless(runs):
        return [replace(r, seconds=0.0) for r in runs]

    here = train_runs(specs, tiny_data, scheduler="synchronous")
    assert timeless(train_runs(specs, tiny_data, scheduler="local")) == timeless(here)
    config = spec("sqrt_d", 0).config
    options = {"batch_size": 16, "lr": 1e-2, "tolerance": 0.5, "max_exponent": 1}
    searched = [
        search_betas({"a": config}, tiny_data, budgets=[10, 20], scheduler=where, **options)
        for where in ("synchronous", "local")
    ]
    for key in searched[0]:
        assert searched[0][key].result == searched[1][key].result
        assert timeless(searched[0][key].runs) == timeless(searched[1][key].runs)
