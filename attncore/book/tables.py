"""Tables as a reader sees them: numbered, captioned MyST list-tables that prose cites with
``{numref}``, numbers rounded, yes/no for checks, and never wider than the text column (the
book's minus signs are set on every page by :mod:`attncore.book.typography`). A table wider
than :data:`MAX_WIDTH` is transposed when that makes it narrow enough, and otherwise split
into parts that are, the index repeated: each part is a numbered table of its own, the first
named as asked and the next ones with ``-b``, ``-c``, ..., each captioned "(part 1 of 2)" and
so on.

>>> import pandas as pd
>>> wide = pd.DataFrame([range(9)], columns=[f"measurement{i}" for i in range(9)])
>>> print(numbered_table(wide, "tbl-wide", "Few rows.", index="row").splitlines()[4:8])
['* - row', '  - 0', '* - measurement0', '  - 0']
>>> parts = numbered_table(pd.concat([wide] * 20), "tbl-long", "Many rows.")
>>> [line for line in parts.splitlines() if line.startswith(("```{", ":name"))]
['```{list-table} Many rows. (part 1 of 2)', ':name: tbl-long', \
'```{list-table} Many rows. (part 2 of 2)', ':name: tbl-long-b']
"""

from __future__ import annotations

import itertools
import numbers
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from string import ascii_lowercase

import numpy as np
import pandas as pd

from attncore.book.kit import chip, claim_opening
from attncore.book.markup import shown_length
from attncore.checks import ParameterError
from attncore.claims import CLAIMS, Finding

__all__ = [
    "MAX_WIDTH",
    "claim_label",
    "fraction",
    "list_table",
    "numbered_table",
    "verdict_table",
]

MAX_WIDTH = 80
"""The most characters a table takes across the text column: each column, the index's
included, counts its longest word (header or cell; the browser breaks lines between words)
and 3 for its padding."""


def _width(table: pd.DataFrame, header: str) -> int:
    def longest(texts: Iterable[object]) -> int:
        return max((shown_length(w) for t in texts for w in str(t).split()), default=0)

    index = longest([header, *table.index]) + 3
    return index + sum(longest([c, *table[c]]) + 3 for c in table.columns)


def _cell(value: object, decimals: int) -> str:
    if isinstance(value, bool) or type(value).__name__ == "bool_":
        return "yes" if value else "no"
    if isinstance(value, numbers.Integral):
        text = f"{int(value):,}"
    elif isinstance(value, numbers.Real):
        v = float(value)
        if v == 0 or v != v:
            text = "0" if v == 0 else "–"
        elif abs(v) >= 1000:
            text = f"{v:,.0f}"
        elif abs(v) >= 10**-decimals:
            text = f"{v:.{decimals}f}"
        else:
            text = f"{v:.1e}"
    else:
        return str(value)
    return text


def list_table(
    frame: pd.DataFrame, name: str, caption: str, decimals: int = 3, index: str | None = None
) -> str:
    """``frame`` as a numbered, captioned MyST ``list-table`` that pages cite with
    ``{numref}`name```; numbers rounded to ``decimals`` places (thousands with separators,
    tiny values in scientific notation); the index is the first column,
    headed ``index`` or the index's name. It is written as given: :func:`numbered_table`
    keeps a table within the column.

    >>> table = pd.DataFrame({"$z$": [-1.23456, 2000.0]}, index=pd.Index([1, 2], name="$d$"))
    >>> list_table(table, "tbl-x", "Against {eq}`eq-a`.")
    Traceback (most recent call last):
    ...
    attncore.checks.ParameterError: caption of tbl-x must not hold a MyST role ...
    >>> print(list_table(table, "tbl-demo", "A demo.", decimals=2))
    ```{list-table} A demo.
    :name: tbl-demo
    :header-rows: 1
    <BLANKLINE>
    * - $d$
      - $z$
    * - 1
      - -1.23
    * - 2
      - 2,000
    ```
    <BLANKLINE>
    """
    if re.search(r"\{[\w:-]+\}`", caption):
        raise ParameterError(
            f"caption of {name} must not hold a MyST role (the table would lose its label): "
            f"{caption!r}"
        )
    header = [index if index is not None else str(frame.index.name or ""), *map(str, frame.columns)]
    lines = [f"```{{list-table}} {caption}", f":name: {name}", ":header-rows: 1", ""]
    rows = [header] + [
        [str(key) if not isinstance(key, tuple) else ", ".join(map(str, key))]
        + [_cell(v, decimals) for v in values]
        for key, values in zip(frame.index, frame.itertuples(index=False), strict=True)
    ]
    for row in rows:
        lines += [f"* - {row[0]}", *(f"  - {cell}" for cell in row[1:])]
    return "\n".join([*lines, "```", ""])


def fraction(value: float, decimals: int = 3) -> str:
    """A share in [0, 1] to ``decimals`` places, with as many more (up to 6) as it takes not to
    read as exactly 1 or 0 when it is not; past that, ``> 0.999999`` or ``< 0.000001``.

    >>> fraction(0.97531), fraction(1.0), fraction(0.99996), fraction(0.9993), fraction(0.0)
    ('0.975', '1.000', '0.99996', '0.999', '0')
    >>> fraction(1 - 1e-9), fraction(2e-4), fraction(1e-9)
    ('> 0.999999', '0.0002', '< 0.000001')
    """
    if value == 0 or value == 1:
        return f"{value:.{decimals}f}" if value == 1 else "0"
    for places in range(decimals, 7):
        text = f"{value:.{places}f}"
        if 0 < float(text) < 1:
            return text
    return "> 0.999999" if value > 0.5 else "< 0.000001"


Format = str | Callable[[object], str]
"""A column's format: a format string such as ``"{:.3f}"``, or a function of the value."""


def numbered_table(
    frame: pd.DataFrame,
    name: str,
    caption: str,
    digits: int = 4,
    index: str | None = None,
    formats: Mapping[str, Format] | None = None,
    columns: Mapping[str, str] | None = None,
    errors: Mapping[str, str] | None = None,
    transpose: bool = True,
) -> str:
    """``frame`` as a numbered, captioned MyST table that prose cites with ``{numref}`name```,
    kept within the column (see the module docstring): booleans as yes/no, real numbers to
    ``digits`` significant digits, a missing value a dash; the index is
    formatted as the cells and headed ``index`` or its own name. The columns of ``formats``
    are written with their own format; each column of ``errors`` is shown with its standard
    error (the column ``errors`` names, 2 significant digits) as "value ± s.e.";
    ``columns``, if given, picks the columns to show and their headers. With ``transpose``
    false a wide table is split rather than transposed (for tables of one kind that must
    keep one layout whatever their widths).

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
    >>> frame = pd.DataFrame({"w": [0.05031], "w_se": [0.000656], "x": [1]})
    >>> text = numbered_table(frame, "tbl-y", "W.", 3, errors={"w": "w_se"}, columns={"w": "W₁"})
    >>> text.splitlines()[4:8]
    ['* - ', '  - W₁', '* - 0', '  - 0.0503 ± 0.00066']
    """

    def cell(v: object, form: Format | None = None) -> object:
        if isinstance(v, float | np.floating) and np.isnan(v):
            return "–"
        if callable(form):
            return form(v)
        if form is not None:
            return form.format(v)
        if not isinstance(v, float | np.floating):
            return v
        return f"{v:,.0f}" if abs(v) >= 10**digits else f"{v:.{digits}g}"  # no "1e+03"

    shown = frame.astype(object).map(cell)
    for column, form in (formats or {}).items():
        shown[column] = [cell(v, form) for v in frame[column]]
    for column, se in (errors or {}).items():
        shown[column] = [
            value if np.isnan(s) else f"{value} ± {s:.2g}"
            for value, s in zip(shown[column], frame[se], strict=True)
        ]
    if columns is not None:
        shown = shown[list(columns)].rename(columns=columns)
    shown.index = shown.index.map(
        lambda k: tuple(map(cell, k)) if isinstance(k, tuple) else cell(k)
    )
    header = index if index is not None else str(frame.index.name or "")
    if _width(shown, header) <= MAX_WIDTH:
        return list_table(shown, name, caption, index=header)
    transposed = shown.T
    transposed.columns = [
        ", ".join(map(str, k)) if isinstance(k, tuple) else k for k in shown.index
    ]
    if transpose and _width(transposed, header) <= MAX_WIDTH:
        return list_table(transposed, name, caption, index=header)
    index_width = _width(shown[[]], header)
    widths = [_width(shown[[c]], header) - index_width for c in shown.columns]
    count, used = 1, 0  # the fewest parts: fill each up to MAX_WIDTH
    for width in widths:
        if used and index_width + used + width > MAX_WIDTH:
            count, used = count + 1, 0
        used += width
    parts = [[shown.columns[i] for i in part] for part in _balanced(widths, count)]
    return "\n".join(
        list_table(
            shown[columns],
            name if part == 0 else f"{name}-{ascii_lowercase[part]}",
            f"{caption} (part {part + 1} of {len(parts)})",
            index=header,
        )
        for part, columns in enumerate(parts)
    )


def _balanced(widths: Sequence[int], parts: int) -> list[list[int]]:
    """The columns (by position) in ``parts`` consecutive groups whose widest is as narrow as
    possible, so that a split table has no stub of one column after wide parts.

    >>> _balanced([10, 10, 10, 10, 3], 2)  # widest part 23, where filling up gives 30 and 13
    [[0, 1], [2, 3, 4]]
    """
    n = len(widths)
    ends = [sum(widths[:i]) for i in range(n + 1)]
    best: dict[tuple[int, int], tuple[int, list[int]]] = {(0, 0): (0, [])}
    for k in range(1, parts + 1):
        for stop in range(k, n + 1):
            options = [
                (
                    max(best[k - 1, start][0], ends[stop] - ends[start]),
                    [*best[k - 1, start][1], stop],
                )
                for start in range(k - 1, stop)
                if (k - 1, start) in best
            ]
            best[k, stop] = min(options)
    cuts = [0, *best[parts, n][1]]
    return [list(range(a, b)) for a, b in itertools.pairwise(cuts)]


LABEL_WORDS = 8
"""Words of a claim's text in its label (the ledger has it whole)."""


def claim_label(claim: str) -> str:
    """A reader's name for ``claim``: the source's author, the section (§ when numbered) and
    the first :data:`LABEL_WORDS` words of its quote, as MyST.

    >>> claim_label("chuang-perfect-accuracy")
    'Chuang, §3: “Since a 100\\\\% accuracy is also achievable within …”'
    """
    found = CLAIMS[claim]
    author = re.match(r"[a-z]+", found.source)[0].capitalize()
    where = f"§{found.section}" if found.section[:1].isdigit() else found.section
    return f"{author}, {where}: “{claim_opening(claim, LABEL_WORDS)}”"


def verdict_table(findings: Iterable[Finding], name: str, caption: str) -> str:
    """``findings`` as a numbered table: the claim by :func:`claim_label`, the verdict as a
    chip and what was measured.

    >>> from attncore.claims import Verdict
    >>> found = Finding("chuang-perfect-accuracy", Verdict.UNTESTABLE, "best 99.93%", "exact")
    >>> print(verdict_table([found], "tbl-v", "Verdicts.").splitlines()[7:10])
    ['* - Chuang, §3: “Since a 100\\\\% accuracy is also achievable within …”', \
'  - {bdg-info}`not testable here`', '  - best 99.93%']
    """
    rows = {claim_label(f.claim): [chip(f.verdict.value), f.measured] for f in findings}
    frame = pd.DataFrame.from_dict(rows, orient="index", columns=["verdict", "measured"])
    return list_table(frame, name, caption, index="claim")
