"""Explorable figures: a figure's values over a grid, shipped with the page, moved by sliders.

An explorable extends a static figure of a chapter: the chapter computes the figure's values
at every point of a grid of its parameters (with the same library functions and the same run
as the static figure, so the two agree at the grid's points) and hands them to a Vega-Lite
specification written with Altair. Each slider selects one grid value of one parameter; the
specification filters the data to the selected point, so the reader's browser only looks up
precomputed values: no kernel, no server, no request to another host. The data travel inside
the page (:meth:`Explorable.html`); :mod:`attncore.book.explorable_assets` ships the Vega
libraries from the lock and draws every explorable of a page.

A slider moves over the indices ``0 .. len(values) - 1`` of its grid, and the page shows the
label of the selected value beside it and to screen readers (``aria-valuetext``): the data of
an explorable carry, for every slider they depend on, a column of that name holding the index.

>>> import pandas as pd
>>> slider = Slider("k", "factor c", ["1", "2", "4"], start=1)
>>> table = pd.DataFrame({"k": [0, 1, 2], "p": [0.25, 0.5, 1 / 3]})
>>> chart = alt.Chart(inline_data(table, "rows")).mark_point().encode(x="k:Q", y="p:Q")
>>> explorable = Explorable(chart, [slider], "p against the factor")
>>> explorable.spec()["data"]["values"]
'k,p\\n0,0.25\\n1,0.5\\n2,0.333333\\n'
>>> read_spec(explorable.html())["usermeta"]["attncore"]["sliders"]
{'k': ['1', '2', '4']}
"""

from __future__ import annotations

import html
import io
import json
import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import altair as alt
import pandas as pd

from attncore.checks import ParameterError, positive_int

__all__ = [
    "DATA_BUDGET",
    "EXPLORABLE_MIME",
    "MARKER",
    "Explorable",
    "Slider",
    "data_bytes",
    "datasets",
    "describe_bytes",
    "inline_data",
    "log_ticks",
    "read_spec",
    "read_specs",
    "readout",
    "vega_shape",
]

EXPLORABLE_MIME = "application/vnd.attncore.explorable+json"
"""The MIME type of an explorable's facts (its name and data size) in an executed chapter."""

MARKER = "attncore-explorable"
"""The class of the element that holds an explorable on a page."""

DATA_BUDGET = 2_000_000
"""Bytes of explorable data one page may carry (``tests/test_book.py`` checks every page)."""

_SPEC = re.compile(
    r'<script type="application/json" class="attncore-explorable-spec">(.*?)</script>', re.S
)

_SHAPES = {
    "o": "circle",
    "s": "square",
    "^": "triangle-up",
    "v": "triangle-down",
    "<": "triangle-left",
    ">": "triangle-right",
    "D": "diamond",
    "d": "M0,-1L0.6,0L0,1L-0.6,0Z",
    "x": "M-1,-0.7L-0.7,-1L0,-0.3L0.7,-1L1,-0.7L0.3,0L1,0.7L0.7,1L0,0.3L-0.7,1L-1,0.7L-0.3,0Z",
    "+": "cross",
    "P": "cross",
    "X": "M-1,-0.7L-0.7,-1L0,-0.3L0.7,-1L1,-0.7L0.3,0L1,0.7L0.7,1L0,0.3L-0.7,1L-1,0.7L-0.3,0Z",
    "p": "M0,-1L0.95,-0.31L0.59,0.81L-0.59,0.81L-0.95,-0.31Z",
    "h": "M0,-1L0.87,-0.5L0.87,0.5L0,1L-0.87,0.5L-0.87,-0.5Z",
    "H": "M-1,0L-0.5,-0.87L0.5,-0.87L1,0L0.5,0.87L-0.5,0.87Z",
    "8": "M-0.38,-0.92L0.38,-0.92L0.92,-0.38L0.92,0.38"
    "L0.38,0.92L-0.38,0.92L-0.92,0.38L-0.92,-0.38Z",
    "*": "M0,-1L0.22,-0.31L0.95,-0.31L0.36,0.12L0.59,0.81"
    "L0,0.38L-0.59,0.81L-0.36,0.12L-0.95,-0.31L-0.22,-0.31Z",
}
"""The Vega shape (a name or a closed SVG path in the unit square, so it can be filled or
outlined) of each matplotlib marker the book's methods use, so a method looks alike in the
static and in the explorable figure."""


def vega_shape(marker: str) -> str:
    """The Vega shape of a matplotlib ``marker``; markers without one become circles.

    >>> vega_shape("s"), vega_shape("1")
    ('square', 'circle')
    """
    return _SHAPES.get(marker, "circle")


def log_ticks(low: float, high: float) -> list[float]:
    """Tick values for a logarithmic axis from ``low`` to ``high``: the powers of 10 between
    them, with 2 and 5 times each where the range spans fewer than three decades.

    >>> log_ticks(0.003, 0.5)
    [0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5]
    >>> log_ticks(1e-6, 1.0)
    [1e-06, 1e-05, 0.0001, 0.001, 0.01, 0.1, 1.0]
    """
    if not 0 < low < high:
        raise ParameterError(f"low and high must satisfy 0 < low < high, got {low!r}, {high!r}")
    steps = (1.0, 2.0, 5.0) if high / low < 1000 else (1.0,)
    first, last = math.floor(math.log10(low)), math.ceil(math.log10(high))
    ticks = [float(f"{m * 10.0**e:.12g}") for e in range(first, last + 1) for m in steps]
    return [t for t in ticks if low <= t <= high]


def inline_data(table: pd.DataFrame, name: str, digits: int = 6) -> alt.Data:
    """``table`` as a named inline data source of CSV text, floats to ``digits`` significant
    digits (what the page carries), with every numeric column parsed back as a number.

    >>> data = inline_data(pd.DataFrame({"a": [1, 2], "b": ["x, y", "z"]}), "t")
    >>> data.to_dict()["values"], data.to_dict()["format"]["parse"]
    ('a,b\\n1,"x, y"\\n2,z\\n', {'a': 'number'})
    """
    digits = positive_int("digits", digits)
    if table.empty:
        raise ParameterError(f"table {name!r} must have at least one row")
    numeric = table.select_dtypes("number")
    if numeric.isna().any().any() or not numeric.map(float).map(abs).lt(float("inf")).all().all():
        raise ParameterError(f"table {name!r} must hold finite numbers only")
    text = table.to_csv(index=False, float_format=f"%.{digits}g", lineterminator="\n")
    parse = dict.fromkeys(numeric.columns, "number")
    return alt.Data(values=text, format=alt.CsvDataFormat(type="csv", parse=parse), name=name)


@dataclass(frozen=True)
class Slider:
    """A slider over the grid values of one parameter.

    ``name`` is the Vega-Lite parameter (the index of the selected value) and the column of
    the data that holds each row's index; ``label`` is written before the slider; ``values``
    are the labels of the grid's values, shown beside the slider as it moves; ``start`` is
    the index shown first (the static figure's setting).
    """

    name: str
    label: str
    values: Sequence[str]
    start: int = 0

    def __post_init__(self) -> None:
        if not re.fullmatch(r"[a-z_][a-z0-9_]*", self.name):
            raise ParameterError(f"slider name must be a lower-case identifier, got {self.name!r}")
        if not self.values:
            raise ParameterError(f"slider {self.name} must have at least one value")
        if not 0 <= self.start < len(self.values):
            raise ParameterError(
                f"slider {self.name} start must be in [0, {len(self.values) - 1}], "
                f"got {self.start!r}"
            )

    def param(self) -> alt.Parameter:
        """The Vega-Lite parameter, bound to a range input over the indices."""
        bind = alt.binding_range(min=0, max=len(self.values) - 1, step=1, name=self.label)
        return alt.param(name=self.name, value=self.start, bind=bind)

    def selects(self) -> str:
        """The filter expression that keeps the rows of the selected value.

        >>> Slider("d_index", "d", ["16", "64"]).selects()
        'datum.d_index == d_index'
        """
        return f"datum.{self.name} == {self.name}"


def selects(sliders: Sequence[Slider]) -> str:
    """The filter expression that keeps the rows of every slider's selected value.

    >>> selects([Slider("a", "a", ["1"]), Slider("b", "b", ["2"])])
    'datum.a == a && datum.b == b'
    """
    return " && ".join(s.selects() for s in sliders)


@dataclass(frozen=True)
class Explorable:
    """A chart (any Altair chart without its parameters) moved by ``sliders``.

    ``description`` is the text alternative of the chart (its ``aria-label``). The chart's
    data are inline (:func:`inline_data`) and filtered by the sliders' parameters.
    """

    chart: alt.TopLevelMixin
    sliders: Sequence[Slider]
    description: str
    config: Mapping[str, Any] = field(default_factory=dict)

    def spec(self) -> dict[str, Any]:
        """The Vega-Lite specification, with the sliders' labels in ``usermeta``."""
        chart = self.chart.add_params(*(s.param() for s in self.sliders))
        spec = chart.properties(description=self.description).to_dict()
        spec["usermeta"] = {"attncore": {"sliders": {s.name: list(s.values) for s in self.sliders}}}
        spec["config"] = {**spec.get("config", {}), **_CONFIG, **self.config}
        return spec

    def html(self) -> str:
        """The element a page shows: the chart's place, its specification and data as JSON,
        and for readers without JavaScript a pointer to the static figure."""
        return self._element(self.spec())

    def _element(self, spec: dict[str, Any]) -> str:
        text = json.dumps(spec, ensure_ascii=False, separators=(",", ":"))
        # "<", ">" and "&" as JSON escapes, so no string can end the script element
        text = text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
        return (
            f'<div class="{MARKER}">'
            f'<div class="attncore-explorable-view" role="figure" '
            f'aria-label="{html.escape(self.description)}"></div>'
            f'<script type="application/json" class="attncore-explorable-spec">{text}</script>'
            "<noscript><p>This figure moves with JavaScript, which is off: the static figure "
            "above shows the same values at this run's setting.</p></noscript></div>"
        )

    def _repr_mimebundle_(self, include: object = None, exclude: object = None) -> dict[str, Any]:
        """The page's element, and for the PDF edition the chart as an image at the setting it
        opens with, the static figure's (drawn offline by vl-convert), from one
        specification."""
        import vl_convert

        spec = self.spec()
        return {
            "text/html": self._element(spec),
            "image/png": vl_convert.vegalite_to_png(spec, scale=2),
            "text/plain": f"<explorable: {self.description}>",
        }


_CONFIG = {
    "font": "system-ui, -apple-system, 'Segoe UI', Roboto, sans-serif",
    "axis": {"labelFontSize": 12, "titleFontSize": 12, "gridColor": "#e6e6e6"},
    "legend": {"labelFontSize": 12, "titleFontSize": 12, "labelLimit": 260},
    "header": {"labelFontSize": 12, "titleFontSize": 12},
    "title": {"fontSize": 13, "subtitleFontSize": 12, "anchor": "start"},
    "text": {"fontSize": 12},
    "view": {"stroke": "#cccccc"},
}
"""The look shared by every explorable: text no smaller than the static figures' 12 px."""


def readout(*pieces: tuple[str, str, str]) -> str:
    """A Vega expression that reads out fields of the selected row: each piece is a text, a
    field and its d3 format.

    >>> readout(("c = ", "c", ".3g"), (", W₁ ", "wasserstein", ".3f"))
    "'c = ' + format(datum.c, '.3g') + ', W₁ ' + format(datum.wasserstein, '.3f')"
    """
    return " + ".join(f"'{text}' + format(datum.{name}, '{fmt}')" for text, name, fmt in pieces)


def datasets(spec: object) -> dict[str, pd.DataFrame]:
    """Every named inline data source of a specification as the page carries it (the values
    rounded as :func:`inline_data` wrote them), by name.

    >>> table = pd.DataFrame({"k": [0, 1], "p": [1 / 3, 0.5]})
    >>> chart = alt.Chart(inline_data(table, "rows")).mark_point()
    >>> datasets(chart.to_dict())["rows"]["p"].tolist()
    [0.333333, 0.5]
    """
    found: dict[str, pd.DataFrame] = {}
    if isinstance(spec, Mapping):
        if isinstance(spec.get("values"), str) and "name" in spec:
            found[spec["name"]] = pd.read_csv(io.StringIO(spec["values"]))
        for key, value in spec.items():
            if key != "values":
                found.update(datasets(value))
    elif isinstance(spec, list):
        for item in spec:
            found.update(datasets(item))
    return found


def describe_bytes(size: int) -> str:
    """A number of bytes in words.

    >>> describe_bytes(16), describe_bytes(27_453), describe_bytes(1_234_567)
    ('16 bytes', '27 kB', '1.2 MB')
    """
    if size < 1000:
        return f"{size} bytes"
    return f"{size / 1000:.0f} kB" if size < 1_000_000 else f"{size / 1_000_000:.1f} MB"


def read_specs(page_html: str) -> list[dict[str, Any]]:
    """The specifications of the explorables in ``page_html`` (a page, or the element of
    :meth:`Explorable.html`), in the order they appear."""
    return [json.loads(found.group(1)) for found in _SPEC.finditer(page_html)]


def read_spec(page_html: str) -> dict[str, Any]:
    """The specification of the first explorable in ``page_html``."""
    specs = read_specs(page_html)
    if not specs:
        raise ParameterError("page_html holds no explorable")
    return specs[0]


def data_bytes(spec: object) -> int:
    """Bytes of inline data in a specification (every ``values`` text, however nested).

    >>> data_bytes({"data": {"values": "a\\n1\\n"}, "layer": [{"data": {"values": "bc\\n"}}]})
    7
    """
    found = 0
    if isinstance(spec, Mapping):
        values = spec.get("values")
        if isinstance(values, str):
            found += len(values.encode())
        for key, value in spec.items():
            if key != "values":
                found += data_bytes(value)
    elif isinstance(spec, list):
        found += sum(data_bytes(item) for item in spec)
    return found
