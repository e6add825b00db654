"""One look for every figure of the book, and one colour, marker and label per method.

A *method* is a registered rescaling (:data:`attncore.rescalings.RESCALINGS`) or a scaling
that exists only in the trained model (:data:`TRAINED_ONLY`). :func:`method_style` gives
every chapter the same colour, marker and label for it; a newly registered rescaling gets
the next colour of the palette, so it needs no entry here.

>>> use_book_style()
>>> import matplotlib
>>> matplotlib.rcParams["figure.dpi"]
110.0
>>> method_style("sqrt_d")["label"], method_style("sqrt_d") == method_style("sqrt_d")
('1/√d', True)
>>> method_style("learned")["label"]
'learned β per head'
"""

from __future__ import annotations

from typing import Any

import matplotlib
import seaborn as sns

from attncore.checks import ParameterError
from attncore.rescalings import RESCALINGS

__all__ = ["CONTRAST", "TRAINED_ONLY", "method_style", "use_book_style"]

TRAINED_ONLY: dict[str, str] = {
    "learned": "learned β per head",
    "qk_norm_learned": "QK-norm, learned gain",
    "cosine_learned": "cosine, learned τ (Swin v2)",
}
"""Scalings of the trained model that are not rescalings of fixed queries and keys, with
their labels."""

_FIXED = {
    "sqrt_d": ("#0072B2", "o"),
    "k_total": ("#E69F00", "s"),
    "none": ("#555555", "x"),
    "mup": ("#009E73", "^"),
    "constant": ("#A50F15", "D"),
    "qk_norm": ("#CC79A7", "v"),
    "learned": ("#8C564B", "P"),
    "qk_norm_learned": ("#332288", "X"),
    "n_sqrt_d": ("#8C6D31", "<"),
    "mean_key_length": ("#6A3D9A", "p"),
    "key_rss": ("#E7298A", "h"),
    "key_p_norm": ("#17BECF", "*"),
    "log_n": ("#66A61E", "d"),
    "log512_n": ("#000000", ">"),
    "ssmax": ("#DDCC77", "8"),
    "cosine": ("#2200FF", "H"),
    "cosine_learned": ("#66CCEE", "H"),
}
"""Every method of the book, mostly with colours of the Okabe–Ito palette for the ones it
compares most; the others were chosen so that any two rescalings drawn in one figure of
chapter 4 are at least 36 apart in CIELAB (``tests/test_plotting.py``), and the searched β
(dark red) and the QK-norm with a learned gain (indigo) are set off from 1/k_total (orange)
and the fixed-gain QK-norm (pink), which train beside them."""

_SPARE = ["#BCBD22", "#7F7F7F", "#AEC7E8", "#FF9896", "#98DF8A", "#C5B0D5", "#44AA99"]
_MARKERS = ["+", "1", "2", "3", "4", "|"]
"""Colours and markers, none of them in :data:`_FIXED`, for rescalings registered later."""


CONTRAST = ("#1A1A1A", "#8C8C8C", "#525252", "#BDBDBD")
"""Inks for contrasts that are not methods (two samples, the phases of a search, subsample
sizes): greys, told apart by line style and marker, so that a colour of :data:`_FIXED`
always means its method."""


def method_style(name: str, **params: float) -> dict[str, Any]:
    """Colour, marker and label of the method ``name`` for matplotlib (``**style``).

    ``params`` fill the label of a parametrized rescaling (``method_style("constant",
    beta=5.0)``).
    """
    if name in TRAINED_ONLY:
        label = TRAINED_ONLY[name]
    elif name in RESCALINGS:
        label = RESCALINGS[name].with_params(**params).label
    else:
        known = ", ".join([*RESCALINGS, *TRAINED_ONLY])
        raise ParameterError(f"method must be one of {known}, got {name!r}")
    if name in _FIXED:
        color, marker = _FIXED[name]
    else:
        index = [n for n in RESCALINGS if n not in _FIXED].index(name)
        color, marker = _SPARE[index % len(_SPARE)], _MARKERS[index % len(_MARKERS)]
    return {"color": color, "marker": marker, "label": label}


def use_book_style() -> None:
    """Apply the book's seaborn theme: white grid, colour-blind palette, readable sizes."""
    sns.set_theme(context="notebook", style="whitegrid", palette="colorblind")
    matplotlib.rcParams.update(
        {"figure.dpi": 110, "axes.titlesize": 11, "axes.labelsize": 10, "legend.framealpha": 0.9}
    )
