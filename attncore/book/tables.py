"""Tables as a reader sees them: numbered, captioned MyST list-tables that prose cites with
``{numref}``, numbers rounded to one number of decimals per column, yes/no for checks (the
book's minus signs are set on every page by :mod:`attncore.book.typography`). A table wider
than :data:`MAX_WIDTH` is transposed when that makes it narrow enough; otherwise it stays one
table, which scrolls sideways inside its box on a narrow screen (the theme's scrollable table
container, ``_static/attncore.css``), never split into parts.

>>> import pandas as pd
>>> wide = pd.DataFrame([range(9)], columns=[f"measurement{i}" for i in range(9)])
>>> print(numbered_table(wide, "tbl-wide", "Few rows.", index="row").splitlines()[4:8])
['* - row', '  - 0', '* - measurement0', '  - 0']
>>> whole = numbered_table(pd.concat([wide] * 20), "tbl-long", "Many rows.")
>>> [line for line in whole.splitlines() if line.startswith(("```{", ":name"))]
['```{list-table} Many rows.', ':name: tbl-long']
"""

from __future__ import annotations

import math
import numbers
import re
from collections.abc import Callable, Iterable, Mapping

import numpy as np
import pandas as pd

from attncore.book.kit import chip, claim_opening
from attncore.book.markup import shown_length
from attncore.checks import ParameterError
from attncore.claims import CLAIMS, Finding
from attncore.claims.saying import sentence

__all__ = [
    "MAX_WIDTH",
    "claim_label",
    "fraction",
    "list_table",
    "numbered_table",
    "percent",
    "significant",
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
        return f"{int(value):,}"
    if isinstance(value, numbers.Real):
        v = float(value)
        if v == 0 or v != v:
            return "0" if v == 0 else "–"
        if abs(v) >= 1000:
            return f"{v:,.0f}"
        if abs(v) >= 10**-decimals:
            return f"{v:.{decimals}f}"
        return _scientific(v)
    return str(value)


def _scientific(value: float) -> str:
    """``value`` in scientific notation with two significant digits, the exponent unpadded.

    >>> _scientific(1e-7), _scientific(-0.0149)
    ('1.0e-7', '-1.5e-2')
    """
    mantissa, exponent = f"{value:.1e}".split("e")
    return f"{mantissa}e{int(exponent)}"


def _whole(values: Iterable[object]) -> bool:
    """Whether every number of a column is a whole number (a float that counts, a bin edge)."""
    reals = [
        float(v)
        for v in values
        if isinstance(v, numbers.Real) and not isinstance(v, bool) and type(v).__name__ != "bool_"
    ]
    finite = [v for v in reals if math.isfinite(v)]
    return bool(finite) and all(v == round(v) and abs(v) < 1e15 for v in finite)


def list_table(
    frame: pd.DataFrame, name: str, caption: str, decimals: int = 3, index: str | None = None
) -> str:
    """``frame`` as a numbered, captioned MyST ``list-table`` that pages cite with
    ``{numref}`name```; numbers rounded to ``decimals`` places (a column of whole numbers
    without decimals, thousands with separators, tiny values in scientific notation); the
    index is the first column,
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
    places = [0 if _whole(frame.iloc[:, i]) else decimals for i in range(frame.shape[1])]
    rows = [header] + [
        [str(key) if not isinstance(key, tuple) else ", ".join(map(str, key))]
        + [_cell(v, d) for v, d in zip(values, places, strict=True)]
        for key, values in zip(frame.index, frame.itertuples(index=False), strict=True)
    ]
    for row in rows:
        lines += [f"* - {_inline(row[0])}", *(f"  - {_inline(cell)}" for cell in row[1:])]
    return "\n".join([*lines, "```", ""])


_BLOCK_START = re.compile(r"(>|#{1,6}(?=\s)|[-+*](?=\s)|\d+(?=[.)]\s))")


def _inline(cell: str) -> str:
    r"""A cell's text kept inline: a start that Markdown would read as a block (``> 99.9`` a
    quotation, ``- 1`` a list, ``1. x`` a numbered list, ``# x`` a heading) escaped.

    >>> _inline("> 99.9"), _inline("- 0.5"), _inline("3. ok"), _inline("0.5"), _inline("-0.5")
    ('\\> 99.9', '\\- 0.5', '3\\. ok', '0.5', '-0.5')
    """
    found = _BLOCK_START.match(cell)
    if not found:
        return cell
    if found[0][0].isdigit():
        end = found.end()
        return f"{cell[:end]}\\{cell[end:]}"
    return "\\" + cell


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


def significant(value: float, digits: int = 3) -> str:
    """``value`` to ``digits`` significant digits on its own, for a column whose values span
    decades (a factor from 1/(n√d) to 10): below 0.001 in scientific notation.

    >>> significant(0.125), significant(1.0), significant(10.0), significant(0.0039063)
    ('0.125', '1', '10', '0.00391')
    >>> significant(9.5367e-7)
    '9.54e-7'
    """
    if value != value:
        return "–"
    if value != 0 and abs(value) < 1e-3:
        mantissa, exponent = f"{value:.{digits - 1}e}".split("e")
        return f"{mantissa}e{int(exponent)}"
    return f"{value:.{digits}g}"


def percent(value: float, decimals: int = 1) -> str:
    """A percentage in [0, 100] to ``decimals`` places, without the sign (the column's header
    carries "(%)"); one that is not 0 or 100 never reads as 0 or 100.

    >>> percent(97.531), percent(100.0), percent(99.999), percent(0.0), percent(2e-3)
    ('97.5', '100.0', '> 99.9', '0.0', '< 0.1')
    """
    if value != value:
        return "–"
    text = f"{value:.{decimals}f}"
    step = 10.0**-decimals
    if 0 < value < 100 and float(text) >= 100:
        return f"> {100 - step:.{decimals}f}"
    if 0 < value < 100 and float(text) <= 0:
        return f"< {step:.{decimals}f}"
    return text


Format = str | Callable[[object], str]
"""A column's format: a format string such as ``"{:.3f}"``, or a function of the value."""


def _decimals(value: float, digits: int) -> int:
    """The decimals that show ``value`` with ``digits`` significant digits (0 to 6)."""
    exponent = math.floor(math.log10(abs(value))) if value else 0
    return min(max(digits - 1 - exponent, 0), 6)


def _column_format(
    values: pd.Series, digits: int, errors: pd.Series | None = None
) -> Callable[[object], object]:
    """The format of one column of numbers: every real number with the decimals that give the
    column's largest ``digits`` significant digits, or, with ``errors``, its smallest
    standard error two (a column of whole numbers has none), so the column reads in one
    precision; a value too small for them in scientific notation."""
    reals = [float(v) for v in values if isinstance(v, float | np.floating) and np.isfinite(v)] or [
        0.0
    ]
    whole = all(v == round(v) and abs(v) < 1e15 for v in reals)
    spreads = [abs(float(e)) for e in (errors if errors is not None else []) if e == e and e]
    if spreads:
        decimals = _decimals(min(spreads), 2)
    else:
        decimals = 0 if whole else _decimals(max(abs(v) for v in reals), digits)

    def show(v: object) -> object:
        if not isinstance(v, float | np.floating):
            return v
        if np.isnan(v):
            return "–"
        if v != 0 and abs(v) < 0.5 * 10.0**-decimals:
            return _scientific(v)
        return f"{v:,.{decimals}f}"

    return show


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
    """``frame`` as a numbered, captioned MyST table that prose cites with ``{numref}`name```
    (see the module docstring): booleans as yes/no, the real numbers of each column with one
    number of decimals, those that give the column's largest ``digits`` significant digits
    (a column of whole numbers without decimals), a missing value a dash; the index is
    formatted per value to ``digits`` significant digits and headed ``index`` or its own name.
    The columns of ``formats`` are written with their own format; each column of ``errors``
    is shown with its standard error (the column ``errors`` names) as "value ± s.e.", both
    with the decimals that give the column's smallest standard error 2 significant digits;
    ``columns``, if given, picks the columns to show and their headers. With
    ``transpose`` false a wide table is never transposed (for tables of one kind that must
    keep one layout whatever their widths).

    >>> frame = pd.DataFrame({"p": [0.7235, 0.07202], "n": [80.0, 2734.0], "q": [0.0149, 15.31]},
    ...                      index=pd.Index([2.0, 22.627], name="σ"))
    >>> print(numbered_table(frame, "tbl-demo", "A demo.", digits=3))
    ```{list-table} A demo.
    :name: tbl-demo
    :header-rows: 1
    <BLANKLINE>
    * - σ
      - p
      - n
      - q
    * - 2
      - 0.724
      - 80
      - 1.5e-2
    * - 22.6
      - 0.072
      - 2,734
      - 15.3
    ```
    <BLANKLINE>
    >>> frame = pd.DataFrame({"seconds": [12.34, float("nan")]}, index=pd.Index(["a", "b"]))
    >>> numbered_table(frame, "tbl-x", "Cost.", formats={"seconds": "{:.0f}"}).splitlines()[-5:-1]
    ['* - a', '  - 12', '* - b', '  - –']
    >>> frame = pd.DataFrame({"w": [0.05031], "w_se": [0.000656], "x": [1]})
    >>> text = numbered_table(frame, "tbl-y", "W.", 3, errors={"w": "w_se"}, columns={"w": "W₁"})
    >>> text.splitlines()[4:8]
    ['* - ', '  - W₁', '* - 0', '  - 0.05031 ± 0.00066']
    """

    def label(v: object) -> object:
        if isinstance(v, float | np.floating):
            return (
                "–" if np.isnan(v) else f"{v:,.0f}" if abs(v) >= 10**digits else f"{v:.{digits}g}"
            )
        return v

    def formatted(v: object, form: Format) -> object:
        if isinstance(v, float | np.floating) and np.isnan(v):
            return "–"
        return form(v) if callable(form) else form.format(v)

    shown = frame.astype(object).copy()
    errors = dict(errors or {})
    for column in frame.columns:
        form = (formats or {}).get(column)
        spread = frame[errors[column]] if column in errors else None
        show = _column_format(frame[column], digits, spread) if form is None else None
        shown[column] = [formatted(v, form) if form else show(v) for v in frame[column]]
    for column, se in errors.items():
        show = _column_format(frame[se], 2, frame[se])
        shown[column] = [
            value if np.isnan(s) else f"{value} ± {show(s)}"
            for value, s in zip(shown[column], frame[se], strict=True)
        ]
    if columns is not None:
        shown = shown[list(columns)].rename(columns=columns)
    shown.index = shown.index.map(
        lambda k: tuple(map(label, k)) if isinstance(k, tuple) else label(k)
    )
    header = index if index is not None else str(frame.index.name or "")
    if _width(shown, header) <= MAX_WIDTH or not transpose:
        return list_table(shown, name, caption, index=header)
    transposed = shown.T
    transposed.columns = [
        ", ".join(map(str, k)) if isinstance(k, tuple) else k for k in shown.index
    ]
    if _width(transposed, header) <= MAX_WIDTH:
        return list_table(transposed, name, caption, index=header)
    return list_table(shown, name, caption, index=header)


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
    >>> found = Finding("chuang-perfect-accuracy", Verdict.UNTESTABLE, branch="unmeasured")
    >>> print(verdict_table([found], "tbl-v", "Verdicts.").splitlines()[7:10])
    ['* - Chuang, §3: “Since a 100\\\\% accuracy is also achievable within …”', \
'  - {bdg-info}`not testable here`', '  - No whole-string accuracy on the test strings was \
measured in this run']
    """
    rows = {claim_label(f.claim): [chip(f.verdict.value), sentence(f)] for f in findings}
    frame = pd.DataFrame.from_dict(rows, orient="index", columns=["verdict", "measured"])
    return list_table(frame, name, caption, index="claim")
