"""The data a reader downloads: a table as the page shows it, turned into one number per cell
under a plain column name, and the data dictionary that says what each column is.

A page's table has headers written for the eye (``$\\rho$``, ``‖J‖``, ``validation accuracy
at 469 steps (%)``) and often its row labels as the index. The CSV beside it keeps every
column under a plain name (lower case, digits and ``_``, from :func:`plain_name`), the labels as
an ordinary column, and no display formatting: a chapter whose page shows text made from
numbers (an interval, a percentage) hands over the numbers themselves (``data=`` of
:meth:`attncore.book.chapter.Chapter.table`). :func:`table_schema` is the column's entry of the
run's data dictionary, ``tables/datapackage.json`` (a Frictionless Data Package: each table
a resource, each column a field with its plain ``name``, its header in the frame the chapter handed
over as ``title``, which carries the unit, and its ``type``). The run folder keeps it beside
the CSV files.

>>> frame = pd.DataFrame({"$\\\\rho$": [0.1, 0.2], "‖J‖ (%)": [1.5, 2.5]})
>>> data, schema = tidy(frame)
>>> list(data.columns)
['rho', 'norm_j_pct']
>>> [(field["name"], field["type"]) for field in schema["fields"]]
[('rho', 'number'), ('norm_j_pct', 'number')]
"""

from __future__ import annotations

import re
from typing import Any

import pandas as pd

__all__ = ["PLAIN_NAME", "data_package", "plain_name", "table_schema", "tidy"]

PLAIN_NAME = re.compile(r"[a-z0-9][a-z0-9_]*")
"""What a column name of a downloaded table may be."""

_WORDS = {
    "α": "alpha",
    "β": "beta",
    "γ": "gamma",
    "Δ": "delta",
    "ε": "epsilon",
    "θ": "theta",
    "λ": "lambda",
    "μ": "mu",
    "π": "pi",
    "ρ": "rho",
    "σ": "sigma",
    "τ": "tau",
    "χ": "chi",
    "√": " sqrt ",
    "∂": " d ",
    "·": " dot ",
    "%": " pct ",
    "±": " pm ",
    "÷": " over ",
    "×": " times ",
    "/": " over ",
    "−": " minus ",
    " - ": " minus ",
    "+": " plus ",
    ">": " above ",
    "<": " below ",
    "²": "2",
    "₁": "1",
    "₂": "2",
    "ⱼ": "j",
}
"""What a symbol of a header becomes in its plain name."""


def plain_name(header: object) -> str:
    """The plain column name of a header as a page writes it: MyST roles and LaTeX commands
    read as their words, Greek letters named, symbols spelled, the rest lower case words
    joined by ``_``.

    >>> plain_name("$1/(1 - \\\\rho)$"), plain_name("sd(c q·k₁)"), plain_name("$\\\\|J\\\\|_F$")
    ('1_over_1_minus_rho', 'sd_c_q_dot_k1', 'norm_j_f')
    >>> plain_name("{eq}`eq-k-total`"), plain_name("E[k_j²]")
    ('eq_k_total', 'e_k_j2')
    """
    text = str(header)
    text = re.sub(r"\{\w+\}`([^`]*)`", r" \1 ", text)  # a MyST role: its target
    text = re.sub(r"\\\|(.+?)\\\|", r" norm \1 ", text)
    text = re.sub(r"‖(.+?)‖", r" norm \1 ", text)
    text = re.sub(r"\\(mathrm|operatorname|text|left|right)\b", " ", text)
    text = re.sub(r"\\([A-Za-z]+)", r" \1 ", text)  # \sqrt, \pi, \ln: their names
    for symbol, word in _WORDS.items():
        text = text.replace(symbol, word)
    words = re.findall(r"[a-z0-9]+", text.lower())
    if not words:
        raise ValueError(f"the header {header!r} has no letter or digit to name its column")
    return "_".join(words)


def tidy(frame: pd.DataFrame) -> tuple[pd.DataFrame, dict[str, Any]]:
    """``frame`` as a reader downloads it (its index, unless it only counts the rows, as the
    first columns, an unnamed level named ``row``; every column under its :func:`plain_name`)
    and its Table Schema, each field titled by its header in ``frame``.

    Raises ValueError when two headers have one plain name, which the headers must avoid.

    >>> tidy(pd.DataFrame({"x": [1, 2]}, index=["a", "b"]))[0].columns.tolist()
    ['row', 'x']
    """
    data = frame.infer_objects()
    if _row_count(data.index):
        data = data.reset_index(drop=True)
    else:
        names = [name if name is not None else "row" for name in data.index.names]
        data.index.names = [
            f"{name}_{i + 1}" if names.count(name) > 1 else name for i, name in enumerate(names)
        ]
        clash = sorted(set(map(str, data.index.names)) & set(map(str, data.columns)))
        if clash:
            raise ValueError(f"index levels named like columns: {', '.join(clash)}")
        data = data.reset_index()
    titles = [str(header) for header in data.columns]
    plain = [plain_name(header) for header in data.columns]
    twice = sorted({name for name in plain if plain.count(name) > 1})
    if twice:
        raise ValueError(f"headers with one plain name {', '.join(twice)}: {titles}")
    data.columns = plain
    return data, table_schema(data, titles)


def _row_count(index: pd.Index) -> bool:
    """Whether ``index`` says nothing but the rows' order: unnamed and ``0, 1, 2, ...``."""
    return index.name is None and index.equals(pd.RangeIndex(len(index)))


def table_schema(data: pd.DataFrame, titles: list[str]) -> dict[str, Any]:
    """The Table Schema of ``data`` (plain column names), each field titled by the header the
    page writes (``titles``, in column order)."""
    fields = [
        {"name": name, "title": title, "type": _field_type(data[name])}
        for name, title in zip(data.columns, titles, strict=True)
    ]
    return {"fields": fields}


def data_package(name: str, tables: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """The data dictionary of a run: a Data Package named ``name`` whose resources are the
    run's tables (``tables``: table name -> its schema), each at ``<table>.csv``.

    >>> data_package("x", {"t": {"fields": []}})["resources"][0]["path"]
    't.csv'
    """
    resources = [
        {"name": table, "path": f"{table}.csv", "format": "csv", "schema": schema}
        for table, schema in tables.items()
    ]
    return {"name": name, "resources": resources}


def _field_type(column: pd.Series) -> str:
    if pd.api.types.is_bool_dtype(column):
        return "boolean"
    if pd.api.types.is_integer_dtype(column):
        return "integer"
    if pd.api.types.is_numeric_dtype(column):
        return "number"
    return "string"
