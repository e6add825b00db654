"""Does a second torch thread help the reversal model? And are results thread-independent?

Trains the chapter's model (one layer, d_model 16, batches of 32 strings of 20 tokens) for
``--steps`` Adam steps with 1 and with 2 intra-op threads, ``--repeat`` times each in
alternation, and prints the best and median milliseconds per step, then whether the
training losses with 1 and 2 threads are bit-identical.

Run ``.venv/bin/python benchmarks/training_threads.py`` (a minute or so). Measured on the
2-core machines this book is built on: with nothing else running, 2 threads were about 15%
faster (1.2 against 1.4 ms per step); with one other process keeping a core busy, 2 threads
were 3 to 4 times slower, and under the load of a parallel build up to 30 times slower (39
against 1.4 ms per step). The losses with 1 and 2 threads part at step 118 (in the 7th
digit). Hence ``train_reversal(threads=1)``.
"""

from __future__ import annotations

import argparse
import statistics

import torch

from attncore.training import ModelConfig, reversal_data, train_reversal


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=500)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    data = reversal_data(0)
    config = ModelConfig()
    print(f"torch {torch.__version__}, {torch.get_num_threads()} threads available by default")
    times: dict[int, list[float]] = {1: [], 2: []}
    losses: dict[int, tuple[float, ...]] = {}
    for _ in range(args.repeat):
        for threads in (1, 2):
            run = train_reversal(
                config, data, steps=args.steps, eval_every=args.steps, threads=threads
            )
            times[threads].append(1000 * run.seconds / args.steps)
            losses[threads] = run.losses
    for threads, values in times.items():
        print(
            f"{threads} thread(s): best {min(values):.2f} ms/step, "
            f"median {statistics.median(values):.2f} ms/step"
        )
    same = losses[1] == losses[2]
    print(f"losses with 1 and 2 threads bit-identical: {same}")
    if not same:
        first = next(i for i, (a, b) in enumerate(zip(*losses.values(), strict=True)) if a != b)
        one, two = losses[1][first], losses[2][first]
        print(f"  first difference at step {first + 1}: {one!r} vs {two!r}")


if __name__ == "__main__":
    main()
