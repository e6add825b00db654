"""Training the chapter's runs one after another against training them together.

Trains a slice of the string-reversal chapter's grid (every method of ``--methods`` in both
setups, ``--seeds`` seeds, ``--steps`` steps, scored every ``--eval-every`` steps on the
validation strings, ``1/sqrt(d)`` and the searched beta also on the test strings) twice in
the same process: one run after another with :func:`train_reversal`, then with
:func:`train_runs` (runs of one shape trained together) in this process, then one
:func:`train_runs` per method (an ensemble per scaling, as before the scalings of one setup
shared one), then with its groups spread over a local Dask cluster of one worker per core
(started before the clock runs), and prints the times, their ratios and the largest loss
difference between a run alone and trained together. The groups train with the eager engine;
the compiled one and Chuang's search are timed by ``benchmarks/training_speed.py``.

Run ``.venv/bin/python benchmarks/training_ensemble.py`` (a few minutes on 2 cores). Times
depend on what else the machine is doing; compare the two lines of one run, not runs.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import torch

from attncore.training import (
    METHODS,
    SETUPS,
    RunSpec,
    method_configs,
    reversal_data,
    train_reversal,
    train_runs,
)


def grid(methods: str, seeds: int, steps: int, eval_every: int) -> list[RunSpec]:
    specs = []
    for options in SETUPS.values():
        for name, config in method_configs(METHODS[methods], options, {}, 5.0).items():
            scored = (steps // 2, steps) if name in ("sqrt_d", "constant") else ()
            specs += [
                RunSpec(
                    config,
                    seed=seed,
                    steps=steps,
                    eval_every=eval_every,
                    eval_at=(steps // 2,),
                    test_at=scored,
                    method=name,
                )
                for seed in range(seeds)
            ]
    return specs


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--methods", default="all", choices=sorted(METHODS))
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--steps", type=int, default=300)
    parser.add_argument("--eval-every", type=int, default=50)
    parser.add_argument("--n-test", type=int, default=100_000, help="test strings")
    parser.add_argument("--rounds", type=int, default=2, help="alternations of the two ways")
    args = parser.parse_args()
    torch.set_num_threads(1)
    data = reversal_data(20231004, n_test=args.n_test)
    specs = grid(args.methods, args.seeds, args.steps, args.eval_every)
    print(
        f"torch {torch.__version__}, 1 thread; {len(specs)} runs of {args.steps} steps "
        f"({args.methods} methods x 2 setups x {args.seeds} seeds)"
    )
    times: dict[str, list[float]] = {"alone": [], "together": [], "per method": [], "cores": []}
    train_runs(specs[:2], data, scheduler="local")  # start the cluster and its imports
    for _ in range(args.rounds):  # alternate, so that the load of the machine hits all
        start = time.perf_counter()
        alone = [train_reversal(s.config, data, **s.options()) for s in specs]
        times["alone"].append(time.perf_counter() - start)
        start = time.perf_counter()
        together = train_runs(specs, data, scheduler="synchronous")
        times["together"].append(time.perf_counter() - start)
        start = time.perf_counter()
        for name in METHODS[args.methods]:
            train_runs([s for s in specs if s.method == name], data, scheduler="synchronous")
        times["per method"].append(time.perf_counter() - start)
        start = time.perf_counter()
        spread = train_runs(specs, data, scheduler="local")
        times["cores"].append(time.perf_counter() - start)
    assert [r.losses for r in spread] == [r.losses for r in together]
    gap = max(
        float(np.max(np.abs(np.subtract(a.losses, b.losses))))
        for a, b in zip(alone, together, strict=True)
    )
    one_by_one, batched, per_method, cores = (min(t) for t in times.values())
    rounds = ", ".join("/".join(f"{t:.1f}" for t in r) for r in zip(*times.values(), strict=True))
    print(f"one after another:          {one_by_one:7.1f} s (best of {args.rounds})")
    print(f"trained together, one core: {batched:7.1f} s   ratio {one_by_one / batched:.2f}x")
    print(
        f"one ensemble per method:    {per_method:7.1f} s   "
        f"ratio to together {per_method / batched:.2f}x"
    )
    print(f"together, every core:       {cores:7.1f} s   ratio {one_by_one / cores:.2f}x")
    print(f"every round, alone/together/per method/every core: {rounds} s")
    print("the groups on the cluster give the same losses, bit for bit, as in one process")
    print(f"largest loss difference of a run alone and together: {gap:.2e}")


if __name__ == "__main__":
    main()
