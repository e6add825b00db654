"""Parameter checks that fail early with one clear line.

Every public function of :mod:`attncore` validates its inputs with these helpers, so
bad input gives a :class:`ParameterError` naming the parameter and the allowed range,
never a traceback from deep inside numpy or a silent NaN. A failure the code recovers from
(a damaged cache entry, a cache that cannot be written) is said in one line by :func:`warn`.

>>> positive_int("d", 16)
16
>>> positive_int("d", 0)
Traceback (most recent call last):
...
attncore.checks.ParameterError: d must be an integer >= 1, got 0
"""

from __future__ import annotations

import math
import numbers
import sys
from collections.abc import Sequence

import numpy as np
import pandas as pd

__all__ = [
    "ParameterError",
    "finite_array",
    "finite_real",
    "positive_int",
    "positive_real",
    "table_with",
    "warn",
]


class ParameterError(ValueError):
    """A parameter is outside its allowed range; the message names both."""


def warn(text: str) -> None:
    r"""Say ``text`` in one line on stderr: something went wrong that the caller recovered from.

    >>> import contextlib, io
    >>> with contextlib.redirect_stderr(io.StringIO()) as err:
    ...     warn("the cache is read-only; continuing without it")
    >>> err.getvalue()
    'attncore: warning: the cache is read-only; continuing without it\n'
    """
    print(f"attncore: warning: {text}", file=sys.stderr, flush=True)


def positive_int(name: str, value: object, minimum: int = 1) -> int:
    """Return ``value`` as an ``int`` if it is an integer >= ``minimum``.

    >>> positive_int("n", np.int64(3), minimum=2)
    3
    """
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < minimum:
        raise ParameterError(f"{name} must be an integer >= {minimum}, got {value!r}")
    return int(value)


def finite_real(name: str, value: object) -> float:
    """Return ``value`` as a ``float`` if it is a finite real number.

    >>> finite_real("mean", float("nan"))
    Traceback (most recent call last):
    ...
    attncore.checks.ParameterError: mean must be a finite real number, got nan
    """
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not math.isfinite(value):
        raise ParameterError(f"{name} must be a finite real number, got {value!r}")
    return float(value)


def positive_real(name: str, value: object) -> float:
    """Return ``value`` as a ``float`` if it is finite and > 0.

    >>> positive_real("sd", -1.0)
    Traceback (most recent call last):
    ...
    attncore.checks.ParameterError: sd must be a finite real number > 0, got -1.0
    """
    x = finite_real(name, value)
    if x <= 0:
        raise ParameterError(f"{name} must be a finite real number > 0, got {value!r}")
    return x


def finite_array(
    name: str, values: object, ndim: int | None = None, min_size: int = 1
) -> np.ndarray:
    """Return ``values`` as a float array if every entry is finite (``ndim`` matches and it
    holds at least ``min_size`` entries).

    >>> finite_array("y", [0.2, 0.4]).tolist()
    [0.2, 0.4]
    >>> finite_array("y", [1.0, float("inf")])
    Traceback (most recent call last):
    ...
    attncore.checks.ParameterError: y must contain only finite numbers, got a non-finite entry
    """
    try:
        arr = np.asarray(values)
    except (ValueError, TypeError):  # a ragged nesting of lists, say
        raise ParameterError(f"{name} must be a rectangular array of real numbers") from None
    if arr.dtype.kind not in "iuf":
        raise ParameterError(f"{name} must be an array of real numbers, got dtype {arr.dtype}")
    if ndim is not None and arr.ndim != ndim:
        raise ParameterError(f"{name} must have {ndim} dimension(s), got shape {arr.shape}")
    if arr.size < min_size:
        raise ParameterError(f"{name} must hold at least {min_size} entries, got {arr.size}")
    if arr.dtype.kind != "f":
        arr = arr.astype(np.float64)
    if not np.isfinite(arr).all():
        raise ParameterError(f"{name} must contain only finite numbers, got a non-finite entry")
    return arr


def table_with(
    name: str, table: pd.DataFrame, columns: Sequence[str], allow_empty: bool = False
) -> pd.DataFrame:
    """Return ``table`` if it has every one of ``columns`` and, unless ``allow_empty``, at
    least one row.

    >>> table_with("runs", pd.DataFrame({"a": [1]}), ["a", "b"])
    Traceback (most recent call last):
    ...
    attncore.checks.ParameterError: runs must have the columns b
    """
    missing = [c for c in columns if c not in table.columns]
    if missing:
        raise ParameterError(f"{name} must have the columns {', '.join(missing)}")
    if table.empty and not allow_empty:
        raise ParameterError(f"{name} must hold at least one row")
    return table
