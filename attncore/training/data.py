"""Sequence tasks for the trained models, and the string-reversal data set of Chuang
(chuang2023scaling, section 3), drawn from a seed.

:class:`SequenceData` is what training reads: three splits of token strings and one target
class per position, or :data:`IGNORE` where a position is not scored (a task that labels a
whole string, such as Chiang and Cholak's FIRST, gives the label at one position and ignores
the others). :class:`ReversalData` is the reversal task.

Every sample is a string of ``length`` integers drawn uniformly from ``0 .. vocab - 1``; its
target is the same string reversed, so position ``i`` must be answered with the input at
position ``length - 1 - i``. The paper's sizes are the defaults: strings of 20 integers
from 0..100 (``vocab = 101``), 15,000 training, 1,000 validation and 100,000 test samples.

The three splits come from independent child streams of one
:class:`numpy.random.SeedSequence`, so changing the size of one split never changes the
others; the same seed gives bit-identical arrays on every machine (numpy's PCG64 and its
integer sampling do not depend on the platform).

>>> data = reversal_data(seed=1, n_train=4, n_val=2, n_test=2, length=5, vocab=10)
>>> data.train_inputs.shape, data.train_targets.dtype
((4, 5), dtype('int64'))
>>> bool((data.train_targets[:, 0] == data.train_inputs[:, -1]).all())
True
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from attncore.checks import ParameterError, positive_int

__all__ = [
    "IGNORE",
    "ReversalData",
    "SequenceData",
    "check_reversed",
    "reversal_data",
    "shared_strings",
]

IGNORE = -1
"""The target of a position that is not scored (neither in the loss nor in the accuracies)."""


def check_reversed(inputs: np.ndarray, targets: np.ndarray) -> None:
    """Raise :class:`ParameterError` unless every row of ``targets`` is its input reversed.

    >>> check_reversed(np.array([[1, 2, 3]]), np.array([[3, 2, 1]]))
    >>> check_reversed(np.array([[1, 2, 3]]), np.array([[1, 2, 3]]))
    Traceback (most recent call last):
    ...
    attncore.checks.ParameterError: targets must be the inputs reversed, row 0 is not
    """
    inputs, targets = np.asarray(inputs), np.asarray(targets)
    if inputs.ndim != 2 or inputs.shape != targets.shape:
        raise ParameterError(
            f"inputs and targets must be matrices of one shape, got {inputs.shape} and "
            f"{targets.shape}"
        )
    wrong = np.flatnonzero((targets != inputs[:, ::-1]).any(axis=1))
    if wrong.size:
        raise ParameterError(f"targets must be the inputs reversed, row {wrong[0]} is not")


@dataclass(frozen=True)
class SequenceData:
    """Inputs (``int64``, ``samples x length``, tokens ``0 .. vocab - 1``) and targets (one class
    ``0 .. classes - 1`` per position, or :data:`IGNORE`; ``classes`` None means ``vocab``) of
    the three splits of a sequence task; every string has at least one scored position.

    >>> x = np.array([[0, 1, 1], [1, 0, 0]])
    >>> first = SequenceData(x, np.where(np.arange(3) == 0, x[:, :1], IGNORE), x, x, x, x,
    ...                      vocab=2, length=3)
    >>> first.train_targets.tolist()  # the label of the string at position 0, the rest ignored
    [[0, -1, -1], [1, -1, -1]]
    """

    train_inputs: np.ndarray
    train_targets: np.ndarray
    val_inputs: np.ndarray
    val_targets: np.ndarray
    test_inputs: np.ndarray
    test_targets: np.ndarray
    vocab: int
    length: int
    classes: int | None = None

    def __post_init__(self) -> None:
        for split in ("train", "val", "test"):
            inputs = np.asarray(getattr(self, f"{split}_inputs"))
            targets = np.asarray(getattr(self, f"{split}_targets"))
            if inputs.ndim != 2 or inputs.shape != targets.shape or inputs.shape[1] != self.length:
                raise ParameterError(
                    f"{split} inputs and targets must be matrices of samples x {self.length}, "
                    f"got {inputs.shape} and {targets.shape}"
                )
            if inputs.size and (inputs.min() < 0 or inputs.max() >= self.vocab):
                raise ParameterError(f"{split} inputs must be tokens in [0, {self.vocab})")
            scored = targets != IGNORE
            if targets.size and (
                targets[scored].min(initial=0) < 0 or targets.max() >= self.n_classes
            ):
                raise ParameterError(
                    f"{split} targets must be classes in [0, {self.n_classes}) or {IGNORE}"
                )
            if not scored.any(axis=1).all():
                raise ParameterError(f"{split} targets must score at least one position per string")

    @property
    def n_classes(self) -> int:
        """Number of target classes."""
        return self.vocab if self.classes is None else self.classes

    @property
    def sizes(self) -> dict[str, int]:
        """Number of samples per split.

        >>> reversal_data(seed=0, n_train=3, n_val=2, n_test=1).sizes
        {'train': 3, 'val': 2, 'test': 1}
        """
        return {
            "train": len(self.train_inputs),
            "val": len(self.val_inputs),
            "test": len(self.test_inputs),
        }


@dataclass(frozen=True)
class ReversalData(SequenceData):
    """The reversal task: every target is its input reversed."""

    def __post_init__(self) -> None:
        super().__post_init__()
        for split in ("train", "val", "test"):
            check_reversed(getattr(self, f"{split}_inputs"), getattr(self, f"{split}_targets"))


def reversal_data(
    seed: int,
    *,
    n_train: int = 15_000,
    n_val: int = 1_000,
    n_test: int = 100_000,
    length: int = 20,
    vocab: int = 101,
) -> ReversalData:
    """Draw the three splits of the reversal task from ``seed`` (an integer >= 0)."""
    if isinstance(seed, bool) or not isinstance(seed, int | np.integer) or seed < 0:
        raise ParameterError(f"seed must be an integer >= 0, got {seed!r}")
    sizes = [positive_int(name, n) for name, n in (("n_train", n_train), ("n_val", n_val))]
    sizes.append(positive_int("n_test", n_test))
    length = positive_int("length", length, minimum=2)
    vocab = positive_int("vocab", vocab, minimum=2)
    streams = np.random.SeedSequence(int(seed)).spawn(3)
    splits = []
    for size, stream in zip(sizes, streams, strict=True):
        rng = np.random.Generator(np.random.PCG64(stream))
        inputs = rng.integers(0, vocab, size=(size, length), dtype=np.int64)
        splits += [inputs, np.ascontiguousarray(inputs[:, ::-1])]
    return ReversalData(*splits, vocab=vocab, length=length)


def shared_strings(a: np.ndarray, b: np.ndarray) -> int:
    """Number of rows of ``b`` that are also rows of ``a`` (strings seen in training).

    >>> shared_strings(np.array([[1, 2], [3, 4]]), np.array([[3, 4], [4, 3], [3, 4]]))
    2
    """
    seen = {row.tobytes() for row in np.ascontiguousarray(a)}
    return sum(row.tobytes() in seen for row in np.ascontiguousarray(b))
