"""Tables as a reader sees them: rounded numbers, yes/no for checks, and never wider than the
text column (a table with many columns is shown transposed).

>>> import pandas as pd
>>> frame = pd.DataFrame({"d": [16, 64], "z": [0.123456, -2.0], "clear": [True, False]})
>>> shown = reader_table(frame)
>>> shown.data.loc[0, "clear"], shown.data.shape
('yes', (2, 3))
>>> reader_table(pd.DataFrame([range(9)], columns=list("abcdefghi"))).data.shape
(9, 1)
"""

from __future__ import annotations

import pandas as pd
from pandas.io.formats.style import Styler

__all__ = ["MAX_COLUMNS", "reader_table"]

MAX_COLUMNS = 6
"""The most columns a table shows side by side in the text column; more are transposed."""


def reader_table(frame: pd.DataFrame, digits: int = 4) -> Styler:
    """``frame`` for the page: booleans as yes/no, numbers to ``digits`` significant digits,
    transposed when it has more than :data:`MAX_COLUMNS` columns, a plain index hidden."""
    table = frame.copy()
    for column in table.columns:
        if table[column].dtype == bool:
            table[column] = table[column].map({True: "yes", False: "no"})
    plain_index = isinstance(table.index, pd.RangeIndex)
    if len(table.columns) > MAX_COLUMNS:
        table = table.T
        table.columns = table.columns.map(str)
        plain_index = False
    styled = table.style.format(
        lambda v: f"{v:.{digits}g}" if isinstance(v, float) else str(v), na_rep="–"
    )
    return styled.hide(axis="index") if plain_index else styled
