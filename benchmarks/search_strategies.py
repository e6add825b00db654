"""Chuang's search in rounds against successive halving, on the training chapter's setups,
budgets and search seeds: what each costs and what it finds.

For every setup, budget (steps per evaluation at full budget) and seed, both strategies of
:func:`attncore.training.search.search_beta` from the same seed: the training steps the search
spent, the beta it returned and that beta's validation token accuracy after the full budget.
A search agrees with the rounds where its beta is within the tolerance of theirs or scores at
least as well; the last line counts the searches that agree, those whose beta is more than a
point of accuracy worse, and the steps saved.

Successive halving trains every beta of the grid for a fraction of the budget (1/32 of it
at the chapter's tolerance): it finds the rounds' beta only where so short a run ranks the
betas as the full one does.

Run ``.venv/bin/python benchmarks/search_strategies.py`` (about 4 minutes on 2 cores with the
chapter's run cache, which holds the rounds' runs after a full build; ``--no-cache`` trains
everything).
"""

from __future__ import annotations

import argparse
import math
import time
from pathlib import Path

from attncore.book.runner import chapter_parameters, find_chapter
from attncore.training import SETUPS, ModelConfig, reversal_data, search_betas

ROOT = Path(__file__).resolve().parent.parent
STRATEGIES = ("rounds", "halving")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--no-cache", action="store_true", help="train every run afresh")
    args = parser.parse_args()
    p = {n: v.default for n, v in chapter_parameters(find_chapter("string_reversal")).items()}
    data = reversal_data(
        p["seed"], n_train=p["n_train"], n_val=p["n_val"], n_test=p["n_test"],
        length=p["length"], vocab=p["vocab"],
    )  # fmt: skip
    shape = {k: p[k] for k in ("vocab", "length", "d_model", "n_heads", "n_layers")}
    configs = {setup: ModelConfig(**options, **shape) for setup, options in SETUPS.items()}
    options = {
        "budgets": p["search_steps"], "tolerance": p["search_tolerance"],
        "max_exponent": p["search_max_exponent"], "batch_size": p["batch_size"], "lr": p["lr"],
        "threads": 1, "device": "cpu", "engine": "auto",
        "compile_cache": ROOT / ".cache" / "compiled",
        "cache": None if args.no_cache else ROOT / ".cache" / "training",
    }  # fmt: skip
    found, seconds = {}, dict.fromkeys(STRATEGIES, 0.0)
    for strategy in STRATEGIES:
        for i in range(p["search_seeds"]):
            start = time.perf_counter()
            runs = search_betas(configs, data, seed=p["seed"] + i, strategy=strategy, **options)
            seconds[strategy] += time.perf_counter() - start
            found |= {(strategy, i, *key): run for key, run in runs.items()}
    print(f"{'setup':32s} {'budget':>6s} seed  {'rounds: beta, acc., steps':>28s}  halving")
    agree, worse, steps = 0, 0, dict.fromkeys(STRATEGIES, 0)
    keys = sorted({key[1:] for key in found}, key=lambda k: (k[1], k[2], k[0]))
    for i, setup, budget in keys:
        rounds, halving = found["rounds", i, setup, budget], found["halving", i, setup, budget]
        same = abs(math.log10(halving.beta / rounds.beta)) <= p["search_tolerance"]
        agree += same or halving.result.value >= rounds.result.value
        worse += halving.result.value < rounds.result.value - 0.01
        steps["rounds"] += rounds.training_steps
        steps["halving"] += halving.training_steps
        print(
            f"{setup:32s} {budget:6d} +{i:<3d} "
            + "  ".join(
                f"{r.beta:8.3g} {r.result.value:7.2%} {r.training_steps:7,d}"
                for r in (rounds, halving)
            )
        )
    print(
        f"\nhalving agrees with the rounds in {agree} of {len(keys)} searches (beta within "
        f"{p['search_tolerance']:g} decade, or as accurate) and finds a beta more than a point "
        f"less accurate in {worse}; it spent {steps['halving']:,} "
        f"training steps against {steps['rounds']:,} ({steps['halving'] / steps['rounds']:.0%}); "
        + ", ".join(f"{s} {seconds[s]:.0f} s" for s in STRATEGIES)
    )


if __name__ == "__main__":
    main()
