"""What a chapter hands over from inside its kernel: figures, tables, verdicts, headlines
and measurements, as outputs of the executed notebook.

A chapter creates one :class:`Chapter` right after its imports. Everything it hands over
travels as outputs of the executed notebook, not as files in the kernel's working folder:
figures and numbers are glued (myst-nb's ``glue``), and each verdict, table, headline and
measurement is a display output of its own MIME type, which the book does not render and the
runner collects into the run's manifest (:mod:`attncore.book.runner`).

>>> page = Chapter("softmax_saturation", seed=3)
>>> page.data_link("tbl-shifts")
'{download}`Data (CSV) </_build/runs/softmax_saturation/tables/tbl-shifts.csv>`'
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import matplotlib.figure
import pandas as pd

from attncore.book.explorable import (
    DATA_BUDGET,
    EXPLORABLE_MIME,
    Explorable,
    data_bytes,
    describe_bytes,
)
from attncore.book.kit import verdict_line, verdict_record
from attncore.book.paths import RUNS, TABLES
from attncore.book.plotting import figure_styles, fit_text, smallest_text_px
from attncore.book.tidy_data import tidy
from attncore.claims import Finding
from attncore.symbolic.derivation import Derivation, Shown

__all__ = [
    "FIGURE_MIME",
    "HEADLINE_MIME",
    "MEASUREMENT_MIME",
    "TABLE_MIME",
    "VERDICT_MIME",
    "Chapter",
]

VERDICT_MIME = "application/vnd.attncore.verdict+json"
"""The MIME type of a verdict output in an executed chapter."""

FIGURE_MIME = "application/vnd.attncore.figure+json"
"""The MIME type of a figure's facts (its smallest text) in an executed chapter."""

TABLE_MIME = "application/vnd.attncore.table+json"
"""The MIME type of a table's data (its name, its CSV text as
:func:`~attncore.book.tidy_data.tidy` makes it, and its Table Schema) in an executed chapter;
the runner writes it to the run's ``tables/<name>.csv`` and the schema to the run's data
dictionary, ``tables/datapackage.json``."""

HEADLINE_MIME = "application/vnd.attncore.headline+json"
"""The MIME type of a headline (a computed sentence for the introduction) in an executed
chapter."""

MEASUREMENT_MIME = "application/vnd.attncore.measurement+json"
"""The MIME type of a measurement (one computed number or outcome for the introduction's
recommendation) in an executed chapter."""


@dataclass(frozen=True)
class Chapter:
    """One chapter's kernel-side helper: the chapter's name and, if it draws, its seed (the
    chapter's *Reproduce* section states it with every other parameter)."""

    name: str
    seed: int | None = None
    shown: Shown = field(init=False, repr=False, compare=False)
    explorable_bytes: list[int] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "shown", Shown())
        object.__setattr__(self, "explorable_bytes", [])

    def derivation(self, derivation: Derivation, label: str = "") -> None:
        """Show ``derivation`` (numbered ``label``, if given): what an earlier numbered
        derivation of the page stated (an assumption, a step's rule or chain) is referred to,
        not repeated (:meth:`~attncore.symbolic.derivation.Derivation.to_markdown`)."""
        from IPython.display import Markdown, display

        numbered = derivation.numbered(label) if label else derivation
        display(Markdown(numbered.to_markdown(self.shown)))

    def data_link(self, name: str) -> str:
        """A MyST link that downloads the CSV of the table or figure ``name`` from the book
        (the runner writes it to the run's ``tables/``; the book build publishes the runs)."""
        return f"{{download}}`Data (CSV) </{RUNS}/{self.name}/{TABLES}/{name}.csv>`"

    def _hand_over(self, frame: pd.DataFrame, name: str) -> None:
        from IPython.display import display

        data, schema = tidy(frame)
        record = {"name": name, "csv": data.to_csv(index=False), "schema": schema}
        display({TABLE_MIME: record}, raw=True)

    def download(self, frame: pd.DataFrame, name: str) -> None:
        """Show only a link that downloads ``frame`` as CSV (the run's ``tables/<name>.csv``):
        for numbers a verdict line on the page already states, which a table would repeat."""
        from IPython.display import Markdown, display

        self._hand_over(frame, name)
        display(Markdown(f"{self.data_link(name)}\n"))

    def table(
        self,
        layout: Callable[..., str],
        frame: pd.DataFrame,
        name: str,
        caption: str,
        *args: Any,
        data: pd.DataFrame | None = None,
        folded: bool = False,
        **kwargs: Any,
    ) -> None:
        """Show ``layout(frame, name, caption, *args, **kwargs)`` (a numbered table:
        :func:`~attncore.book.tables.numbered_table` or :func:`~attncore.book.tables.list_table`)
        with a link under it that downloads the table as CSV, which the runner writes to the
        run's ``tables/<name>.csv`` (:func:`~attncore.book.tidy_data.tidy`: plain column
        names): ``data`` where the page shows text made from numbers (an interval, a
        percentage), so the download holds the numbers, else ``frame``. A ``folded`` table is
        glued instead (key ``name``), for a dropdown of the page to place with
        ``{glue:md} name`` and ``:format: myst``: numbers a figure already shows."""
        from IPython.display import Markdown, display
        from myst_nb import glue

        self._hand_over(frame if data is None else data, name)
        markdown = layout(frame, name, caption, *args, **kwargs)
        shown = Markdown(f"{markdown}\n{self.data_link(name)}\n")
        if folded:
            glue(name, shown, display=False)
        else:
            display(shown)

    def figure(
        self, fig: matplotlib.figure.Figure, name: str, data: pd.DataFrame | None = None
    ) -> None:
        """Glue ``fig`` (key ``name``); with ``data`` (the numbers it plots), hand those over
        as the run's ``tables/<name>.csv`` and glue a link that downloads them (key
        ``name + '_data'``).

        A markdown cell places it: ``{glue:figure} name`` and a caption (ending in
        ``{glue:md}`name_data:myst``` when it has data). The runner writes the same image to the
        run's ``figures/name.png`` and records the colours and line styles it draws, which a
        test checks against the caption's words.
        """
        import matplotlib.pyplot as plt
        from IPython.display import Markdown, display
        from myst_nb import glue

        fit_text(fig)
        glue(name, fig, display=False)
        if data is not None:
            self._hand_over(data, name)
            glue(f"{name}_data", Markdown(self.data_link(name)), display=False)
        facts = {"name": name, "min_text_px": smallest_text_px(fig), **figure_styles(fig)}
        display({FIGURE_MIME: facts}, raw=True)
        plt.close(fig)

    def explorable(self, explorable: Explorable, name: str) -> None:
        """Glue ``explorable`` (key ``name``) and its note (key ``name + '_note'``): the
        bytes of data it adds to the page.

        A markdown cell places it like a figure, next to the static figure it extends:
        ``{glue:figure} name``, a caption, ``{glue:md}`name_note```. The runner writes its
        specification and data to the run's ``explorables/name.json``.

        An explorable whose data would take the page's explorables past
        :data:`~attncore.book.explorable.DATA_BUDGET` (a rerun with extreme parameters) is left
        out: its place says so, and the static figure beside it shows the same values.
        """
        from IPython.display import Markdown, display
        from myst_nb import glue

        size = data_bytes(explorable.spec())
        if sum(self.explorable_bytes) + size >= DATA_BUDGET:
            left_out = (
                f"*This run leaves the explorable out: its data would add "
                f"{describe_bytes(size)}, past the page's budget of "
                f"{describe_bytes(DATA_BUDGET)}. The caption below says what it shows in a "
                "build with smaller parameters.*"
            )
            glue(name, Markdown(left_out), display=False)
            note = "Here it is left out; the static figure above shows this run's values."
            glue(f"{name}_note", Markdown(note), display=False)
            return
        self.explorable_bytes.append(size)
        glue(name, explorable, display=False)
        note = f"Its data add {describe_bytes(size)} to this page."
        glue(f"{name}_note", Markdown(note), display=False)
        display({EXPLORABLE_MIME: {"name": name, "data_bytes": size}}, raw=True)

    def headline(self, name: str, text: str, evidence: str) -> None:
        """Hand the introduction ``text``, a sentence a tested rule computed from this run
        (the chapter shows it itself, e.g. among its takeaways), with the label of the
        section that shows the evidence. A later headline of one ``name`` wins."""
        from IPython.display import display

        record = {"name": name, "chapter": self.name, "text": text, "evidence": evidence}
        display({HEADLINE_MIME: record}, raw=True)

    def measure(self, name: str, value: float | str, evidence: str) -> None:
        """Hand the introduction one computed ``value`` (a number, or the name of an outcome a
        tested rule chose) with the label of the section that shows it, so that the first
        page can state it once and link there. A later measurement of one ``name`` wins."""
        from IPython.display import display

        record = {"name": name, "chapter": self.name, "value": value, "evidence": evidence}
        display({MEASUREMENT_MIME: record}, raw=True)

    def record(self, finding: Finding, evidence: str) -> None:
        """Hand ``finding`` to the runner, with the label of the section that shows it, and
        show the verdict on the page with a link to its row in the claims ledger."""
        from IPython.display import Markdown, display

        display({VERDICT_MIME: verdict_record(finding, evidence)}, raw=True)
        display(Markdown(verdict_line(finding)))
