"""Numbers as the source texts print them, quoted so the book can compare against them.

These are data about the sources, not results: the book recomputes each one and
the tests check that the recomputed value rounds to the printed digits.

>>> BLOG_WORKED_EXAMPLE.decimals_softmax, BLOG_WORKED_EXAMPLE.decimals_jacobian
(3, 5)
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["BLOG_WORKED_EXAMPLE", "WorkedExample"]


@dataclass(frozen=True)
class WorkedExample:
    """The blog post's worked example: a logit vector, a factor, and the printed outputs."""

    source: str
    y: tuple[float, ...]
    factor: float
    softmax_y: tuple[float, ...]
    softmax_scaled: tuple[float, ...]
    jacobian_y: tuple[tuple[float, ...], ...]
    jacobian_scaled: tuple[tuple[float, ...], ...]
    decimals_softmax: int
    decimals_jacobian: int


BLOG_WORKED_EXAMPLE = WorkedExample(
    source="pranay2025why, section Logic (printed outputs of its code cells)",
    y=(0.2, 0.4, 0.1, 0.8),
    factor=8.0,
    softmax_y=(0.202, 0.247, 0.183, 0.368),
    softmax_scaled=(0.008, 0.039, 0.004, 0.95),
    jacobian_y=(
        (0.16125, -0.04988, -0.03695, -0.07441),
        (-0.04988, 0.1859, -0.04513, -0.09089),
        (-0.03695, -0.04513, 0.14942, -0.06733),
        (-0.07441, -0.09089, -0.06733, 0.23264),
    ),
    jacobian_scaled=(
        (0.00776, -0.0003, -0.00003, -0.00743),
        (-0.0003, 0.03722, -0.00014, -0.03678),
        (-0.00003, -0.00014, 0.0035, -0.00334),
        (-0.00743, -0.03678, -0.00334, 0.04755),
    ),
    decimals_softmax=3,
    decimals_jacobian=5,
)
