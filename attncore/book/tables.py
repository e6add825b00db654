"""Tables as a reader sees them: rounded numbers, yes/no for checks, and never wider than the
text column: a table with many columns is transposed when that makes it narrow, and otherwise
shown as several tables of a few columns each, the index repeated.

>>> import pandas as pd
>>> frame = pd.DataFrame({"d": [16, 64], "z": [0.123456, -2.0], "clear": [True, False]})
>>> shown = reader_table(frame)
>>> shown.parts[0].data.loc[0, "clear"], len(shown.parts)
('yes', 1)
>>> [part.data.shape for part in reader_table(pd.DataFrame([range(9)])).parts]
[(9, 1)]
>>> [part.data.shape for part in reader_table(pd.DataFrame([range(9)] * 20)).parts]
[(20, 6), (20, 3)]
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
import pandas as pd
from pandas.io.formats.style import Styler

from attncore.symbolic.typeset import list_table

__all__ = ["MAX_COLUMNS", "ReaderTable", "numbered_table", "reader_table"]

MAX_COLUMNS = 6
"""The most columns, index included, that a table shows side by side in the text column."""


@dataclass
class ReaderTable:
    """One table for the page, shown as one or more parts of at most :data:`MAX_COLUMNS`."""

    parts: list[Styler]

    def set_caption(self, caption: str) -> ReaderTable:
        """Caption the first part (the others continue it)."""
        self.parts[0] = self.parts[0].set_caption(caption)
        return self

    def _repr_html_(self) -> str:
        return "\n".join(part.to_html() for part in self.parts)


def _styled(table: pd.DataFrame, digits: int, plain_index: bool) -> Styler:
    styled = table.style.format(
        lambda v: f"{v:.{digits}g}" if isinstance(v, float) else str(v), na_rep="–"
    )
    return styled.hide(axis="index") if plain_index else styled


def reader_table(frame: pd.DataFrame, digits: int = 4) -> ReaderTable:
    """``frame`` for the page: booleans as yes/no, numbers to ``digits`` significant digits, a
    plain index hidden, and at most :data:`MAX_COLUMNS` columns side by side."""
    table = frame.copy()
    for column in table.columns:
        if table[column].dtype == bool:
            table[column] = table[column].map({True: "yes", False: "no"})
    plain_index = isinstance(table.index, pd.RangeIndex)
    index_width = 0 if plain_index else table.index.nlevels
    if len(table.columns) + index_width <= MAX_COLUMNS:
        return ReaderTable([_styled(table, digits, plain_index)])
    if len(table.index) + 1 <= MAX_COLUMNS:  # few rows: transposed, it is narrow
        transposed = table.T
        transposed.columns = transposed.columns.map(str)
        return ReaderTable([_styled(transposed, digits, False)])
    width = max(2, MAX_COLUMNS - index_width)
    return ReaderTable(
        [
            _styled(table.iloc[:, start : start + width], digits, plain_index)
            for start in range(0, len(table.columns), width)
        ]
    )


def numbered_table(
    frame: pd.DataFrame,
    name: str,
    caption: str,
    digits: int = 4,
    index: str | None = None,
    formats: Mapping[str, str] | None = None,
) -> str:
    """``frame`` as a numbered, captioned MyST table that prose cites with ``{numref}`name```:
    booleans as yes/no, real numbers to ``digits`` significant digits, minus signs typeset
    (:func:`attncore.symbolic.typeset.list_table`, which names the index column ``index``);
    the index is formatted as the cells; the columns of ``formats`` are written with their own
    format string; a missing value is a dash.

    >>> frame = pd.DataFrame({"p": [0.014912, 15.31]}, index=pd.Index([2.0, 22.627], name="σ"))
    >>> print(numbered_table(frame, "tbl-demo", "A demo.", digits=3))
    ```{list-table} A demo.
    :name: tbl-demo
    :header-rows: 1
    <BLANKLINE>
    * - σ
      - p
    * - 2
      - 0.0149
    * - 22.6
      - 15.3
    ```
    <BLANKLINE>
    >>> frame = pd.DataFrame({"seconds": [12.34, float("nan")]}, index=pd.Index(["a", "b"]))
    >>> numbered_table(frame, "tbl-x", "Cost.", formats={"seconds": "{:.0f}"}).splitlines()[-5:-1]
    ['* - a', '  - 12', '* - b', '  - –']
    """

    def cell(v: object, form: str | None = None) -> object:
        if isinstance(v, float | np.floating) and np.isnan(v):
            return "–"
        if form is not None:
            return form.format(v).replace("-", "−")
        return f"{v:.{digits}g}".replace("-", "−") if isinstance(v, float) else v

    shown = frame.astype(object).map(cell)
    for column, form in (formats or {}).items():
        shown[column] = [cell(v, form) for v in frame[column]]
    keys = shown.index
    shown.index = keys.map(lambda k: tuple(map(cell, k)) if isinstance(k, tuple) else cell(k))
    return list_table(shown, name, caption, index=index)
