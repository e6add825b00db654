"""The training chapter's arithmetic, compiled against eager, and its search in rounds against
the golden section, in one run.

Times are the process's CPU time (``time.process_time``), which other work on a shared machine
disturbs much less than the wall clock (the chapter's wall time is measured by running it).
Prints, with the load average at the start and the end:

1. **The step.** Milliseconds per model and step of the chapter's ensemble (every method of
   ``--setup`` with ``--seeds`` seeds: 21 models by default), eager and compiled, timed in
   ``--rounds`` alternations of ``--steps`` steps (best of the rounds), their ratio, the largest
   loss difference of the two over the timed steps (the same weights and batches), and the
   floating-point rate each reaches against that of one large matrix product on one thread,
   this core's practical ceiling.
2. **Evaluation.** Seconds of one validation pass (the learning curve's measurements of every
   model on the 1,000 validation strings) and of one test pass (token and whole-string accuracy
   of the runs scored on the test strings, 1/sqrt(d) and the searched beta, on ``--test``
   strings), eager and compiled, with strings per second and the ratio.
3. **The search** (``--search``): Chuang's search of the first setup with ``--budget`` steps per
   run, as the chapter ran it before (golden section, eager: the decade scan trained together,
   then one lone run per evaluation) and as it runs now (rounds of candidates trained together,
   compiled), from the same seed: seconds, speed-up, the beta and accuracy each returns, and
   whether they agree within the tolerance.

The compiled functions are compiled (or read from ``.cache/compiled``) before the clock runs.
Run ``.venv/bin/python benchmarks/training_speed.py --search`` (a few minutes on 2 cores; the
first run compiles for a few minutes more). Times depend on what else the machine is doing:
compare the lines of one run, not runs.
"""

from __future__ import annotations

import argparse
import math
import os
import time
from pathlib import Path

import numpy as np
import torch

from attncore.book.budget import reversal_step_flops, reversal_token_flops
from attncore.training import (
    METHODS,
    SETUPS,
    ModelConfig,
    build_model,
    method_configs,
    reversal_data,
    search_beta,
)
from attncore.training.engine import Engine, compile_cache_folder
from attncore.training.train import BatchOrder, DeviceData

CACHE = Path(__file__).resolve().parent.parent / ".cache" / "compiled"
SEED = 20231004


def ceiling_gflops(size: int = 512, repeat: int = 20) -> float:
    """GFLOP/s of a ``size`` square float32 matrix product on one thread (best of ``repeat``)."""
    a, b = torch.randn(size, size), torch.randn(size, size)
    best = math.inf
    for _ in range(repeat):
        start = time.process_time()
        a @ b
        best = min(best, time.process_time() - start)
    return 2 * size**3 / best / 1e9


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--setup", type=int, default=1, choices=range(len(SETUPS)))
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--steps", type=int, default=60, help="steps per timed round")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--test", type=int, default=20_000, help="test strings per pass")
    parser.add_argument("--search", action="store_true", help="also time the beta search")
    parser.add_argument("--budget", type=int, default=469, help="steps per search run")
    args = parser.parse_args()
    torch.set_num_threads(1)
    print(f"torch {torch.__version__}, 1 thread; load average {os.getloadavg()[0]:.2f}")
    data = reversal_data(SEED)
    setup = list(SETUPS)[args.setup]
    configs = method_configs(METHODS["all"], SETUPS[setup], {}, 5.0)
    specs = [(c, SEED + s) for c in configs.values() for s in range(args.seeds)]
    scored = [i for i, (c, _) in enumerate(specs) if c.scaling in ("sqrt_d", "constant")]
    splits = DeviceData(data, torch.device("cpu"))
    orders = [
        BatchOrder(seed, len(data.train_inputs), 32, torch.device("cpu")) for _, seed in specs
    ]
    total = 1 + args.rounds * args.steps
    batches = [torch.stack([o.next(step) for o in orders]) for step in range(1, total + 1)]
    models = len(specs)
    engines = {}
    with compile_cache_folder(CACHE):
        for name in ("eager", "compiled"):
            built = [build_model(config, seed) for config, seed in specs]
            engines[name] = Engine(built, lr=1e-3, engine=name)
            start = time.perf_counter()
            engines[name].step(splits.train_x[batches[0]], splits.train_y[batches[0]])
            engines[name].measure(splits.val_x, splits.val_y, 100)
            engines[name].hits(scored, splits.test_x[:200], splits.test_y[:200])
            print(f"{name}: first step and passes (compiling) {time.perf_counter() - start:.1f} s")
        step_ms = {name: [] for name in engines}
        losses = {name: [] for name in engines}
        val_s = {name: [] for name in engines}
        test_s = {name: [] for name in engines}
        test_x, test_y = splits.test_x[: args.test], splits.test_y[: args.test]
        for r in range(args.rounds):
            steps = batches[1 + r * args.steps : 1 + (r + 1) * args.steps]
            for name, engine in engines.items():
                start = time.process_time()
                for index in steps:
                    losses[name].append(engine.step(splits.train_x[index], splits.train_y[index]))
                step_ms[name].append((time.process_time() - start) / len(steps) / models * 1e3)
                start = time.process_time()
                engine.measure(splits.val_x, splits.val_y, 100)
                val_s[name].append(time.process_time() - start)
                start = time.process_time()
                engine.hits(scored, test_x, test_y)
                test_s[name].append(time.process_time() - start)
    gap = float(np.max(np.abs(np.subtract(losses["eager"], losses["compiled"]))))
    step_flops = reversal_step_flops(32, 20, 16, 1, 101)
    token_flops = reversal_token_flops(20, 16, 1, 101)
    ceiling = ceiling_gflops()
    print(f"\n1. the step: {models} models ({setup}, {args.seeds} seeds), batches of 32 x 20")
    print(f"   {step_flops / 1e6:.1f} MFLOP per model-step; a 512^3 product: {ceiling:.0f} GFLOP/s")
    for name in engines:
        best = min(step_ms[name])
        rounds = ", ".join(f"{t:.3f}" for t in step_ms[name])
        rate = step_flops / best / 1e6
        print(
            f"   {name:8s} {best:.3f} ms per model-step (rounds {rounds}), {rate:.1f} GFLOP/s, "
            f"{rate / ceiling:.0%} of the product's rate"
        )
    print(f"   compiled/eager: {min(step_ms['eager']) / min(step_ms['compiled']):.2f}x faster")
    print(f"   largest loss difference over {len(losses['eager'])} steps: {gap:.2e}")
    print("\n2. evaluation")
    for name in engines:
        val, test = min(val_s[name]), min(test_s[name])
        val_strings, test_strings = models * len(splits.val_x), len(scored) * args.test
        val_rate = val_strings * 20 * token_flops / val / 1e9
        print(
            f"   {name:8s} validation pass {val:.3f} s ({val_strings / val:,.0f} strings/s, "
            f"{val_rate:.1f} GFLOP/s); test pass {test:.3f} s "
            f"({test_strings / test:,.0f} strings/s)"
        )
    print(
        f"   compiled/eager: validation {min(val_s['eager']) / min(val_s['compiled']):.2f}x, "
        f"test {min(test_s['eager']) / min(test_s['compiled']):.2f}x faster"
    )
    if args.search:
        search(data, args.budget)
    print(f"\nload average at the end: {os.getloadavg()[0]:.2f}")


def search(data: object, budget: int) -> None:
    """Time the first setup's search both ways from the same seed."""
    setup = next(iter(SETUPS))
    config = ModelConfig(**SETUPS[setup])
    options = {"steps": budget, "seed": SEED, "tolerance": 0.1, "max_exponent": 3}
    found = {}
    for strategy, engine in (("golden", "eager"), ("rounds", "compiled")):
        search_beta(
            config,
            data,
            strategy=strategy,
            engine=engine,
            compile_cache=CACHE,
            **options | {"steps": 2},
        )
        start = time.process_time()
        run = search_beta(
            config, data, strategy=strategy, engine=engine, compile_cache=CACHE, **options
        )
        found[strategy] = (time.process_time() - start, run)
    (golden_s, golden), (rounds_s, rounds) = found["golden"], found["rounds"]
    apart = abs(math.log10(rounds.beta / golden.beta))
    print(f"\n3. the search ({setup}, {budget} steps per run, tolerance 0.1 decade)")
    for label, seconds, run in (
        ("golden, eager", golden_s, golden),
        ("rounds, compiled", rounds_s, rounds),
    ):
        print(
            f"   {label:17s} {seconds:6.1f} s, {run.evaluations} runs: beta {run.beta:.4g} "
            f"at {run.result.value:.2%}"
        )
    agree = "within the tolerance" if apart <= 0.1 else "further apart than the tolerance"
    print(
        f"   speed-up {golden_s / rounds_s:.2f}x; the betas are {apart:.3f} decade apart ({agree})"
    )


if __name__ == "__main__":
    main()
