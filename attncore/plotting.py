"""One look for every figure of the book.

>>> use_book_style()
>>> import matplotlib
>>> matplotlib.rcParams["figure.dpi"]
110.0
"""

from __future__ import annotations

import matplotlib
import seaborn as sns

__all__ = ["use_book_style"]


def use_book_style() -> None:
    """Apply the book's seaborn theme: white grid, colour-blind palette, readable sizes."""
    sns.set_theme(context="notebook", style="whitegrid", palette="colorblind")
    matplotlib.rcParams.update(
        {"figure.dpi": 110, "axes.titlesize": 11, "axes.labelsize": 10, "legend.framealpha": 0.9}
    )
