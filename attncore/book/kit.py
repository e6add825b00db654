"""The kit a chapter uses inside its kernel: figures, glued text and verdicts.

A chapter creates one :class:`Chapter` right after its imports. Everything it hands over
travels as outputs of the executed notebook, not as files in the kernel's working folder:
figures and numbers are glued (myst-nb's ``glue``), and each verdict is a display output of
the MIME type :data:`VERDICT_MIME`, which the book does not render and the runner collects
into the run's manifest (:mod:`attncore.book.runner`).

>>> page = Chapter("softmax_saturation", seed=3)
>>> page.data_link("tbl-shifts")
'{download}`Data (CSV) </_build/runs/softmax_saturation/tables/tbl-shifts.csv>`'
>>> finding = Finding("blog-softmax-example", Verdict.HOLDS)
>>> verdict_record(finding, "sec-x")["verdict"]
'holds'
"""

from __future__ import annotations

import re
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
from attncore.book.markup import literal
from attncore.book.paths import RUNS, TABLES
from attncore.book.plotting import figure_styles
from attncore.claims import CLAIMS, PENDING, Finding, Verdict
from attncore.claims.catalogue import SOURCES
from attncore.claims.saying import catch, how_checked, sentence
from attncore.symbolic.derivation import Derivation, Shown

__all__ = [
    "COLUMN_PX",
    "FIGURE_MIME",
    "HEADLINE_MIME",
    "MEASUREMENT_MIME",
    "MIN_TEXT_PX",
    "TABLE_MIME",
    "VERDICT_COLOURS",
    "VERDICT_MIME",
    "Chapter",
    "chip",
    "claim_opening",
    "fit_text",
    "ledger_number",
    "ledger_target",
    "quote_markdown",
    "smallest_text_px",
    "verdict_line",
    "verdict_record",
]

VERDICT_MIME = "application/vnd.attncore.verdict+json"
"""The MIME type of a verdict output in an executed chapter."""

FIGURE_MIME = "application/vnd.attncore.figure+json"
"""The MIME type of a figure's facts (its smallest text) in an executed chapter."""

TABLE_MIME = "application/vnd.attncore.table+json"
"""The MIME type of a table's data (its name and its CSV text) in an executed chapter; the
runner writes it to the run's ``tables/<name>.csv``."""

HEADLINE_MIME = "application/vnd.attncore.headline+json"
"""The MIME type of a headline (a computed sentence for the introduction) in an executed
chapter."""

MEASUREMENT_MIME = "application/vnd.attncore.measurement+json"
"""The MIME type of a measurement (one computed number or outcome for the introduction's
recommendation) in an executed chapter."""

_BADGES = {
    Verdict.HOLDS.value: ("success", "#00843f"),
    Verdict.CAVEAT.value: ("warning", "#f66a0a"),
    Verdict.FAILS.value: ("danger", "#d72d47"),
    Verdict.UNTESTABLE.value: ("info", "#276be9"),
    PENDING: ("muted", "#29313d"),
}

VERDICT_COLOURS = {verdict: colour for verdict, (_, colour) in _BADGES.items()}
"""One colour per verdict, for chips and figures alike: the colour the book's theme (the
PyData theme of Jupyter Book, light mode) gives each chip's badge class."""


def chip(verdict: str) -> str:
    """The verdict as a coloured MyST badge.

    >>> chip("holds")
    '{bdg-success}`holds`'
    """
    return f"{{bdg-{_BADGES[verdict][0]}}}`{verdict}`"


def ledger_target(claim: str) -> str:
    """The label of ``claim``'s row in the claims ledger.

    >>> ledger_target("vaswani-variance")
    'ledger-vaswani-variance'
    """
    return f"ledger-{claim}"


def ledger_number(claim: str) -> str:
    """The number of ``claim``'s row in the claims ledger, for citing it: the source's prefix
    (:data:`~attncore.claims.catalogue.SOURCES`) and the claim's place among that source's
    claims in the catalogue.

    >>> ledger_number("vaswani-variance"), ledger_number("chen-phase-transition")
    ('V1', 'CLPR2')
    """
    source = CLAIMS[claim].source
    same = [c for c, found in CLAIMS.items() if found.source == source]
    return f"{SOURCES[source].prefix}{same.index(claim) + 1}"


def verdict_record(finding: Finding, evidence: str) -> dict[str, Any]:
    """The record of ``finding`` for the run's manifest; ``evidence`` is the label of the
    section that shows it (a MyST target). The claim itself (its quote and reading) stays in
    the catalogue: the ledger reads it there."""
    return {
        "claim": finding.claim,
        "source": CLAIMS[finding.claim].source,
        "chapter": CLAIMS[finding.claim].chapter,
        "verdict": finding.verdict.value,
        "measured": sentence(finding, keep_break=True),
        "catch": catch(finding),
        "check": how_checked(finding),
        "evidence": evidence,
        "thresholds": [t.record() for t in finding.thresholds],
        "fragile": [f.record() for f in finding.fragile],
    }


def smallest_text_px(fig: matplotlib.figure.Figure) -> float:
    """The height in pixels of the figure's smallest visible text, as the figure is saved.

    >>> import matplotlib.pyplot as plt
    >>> fig, ax = plt.subplots(dpi=72)
    >>> _ = ax.set_title("t", fontsize=20); _ = ax.set_xticks([]); _ = ax.set_yticks([])
    >>> smallest_text_px(fig)
    20.0
    >>> plt.close(fig)
    """
    import matplotlib.text

    sizes = [
        text.get_fontsize()
        for text in fig.findobj(matplotlib.text.Text)
        if text.get_visible() and text.get_text().strip()
    ]
    return round(min(sizes, default=0.0) * fig.dpi / 72, 2)


COLUMN_PX = 760
"""The width of the book's text column in pixels, where a wider figure is shown shrunk."""

MIN_TEXT_PX = 12.0
"""The smallest text a figure may show once fitted into the column (the theme's small text)."""


def fit_text(fig: matplotlib.figure.Figure) -> float:
    """Raise every text of ``fig`` that would show smaller than :data:`MIN_TEXT_PX` in the text
    column to that size, leaving larger text as it is; return the smallest size in points.

    >>> import matplotlib.pyplot as plt
    >>> fig, ax = plt.subplots(figsize=(12, 3), dpi=100)
    >>> _ = ax.set_title("t", fontsize=30); _ = ax.set_xlabel("x", fontsize=6)
    >>> round(fit_text(fig), 2), ax.title.get_fontsize()
    (13.64, 30.0)
    >>> round(smallest_text_px(fig) * COLUMN_PX / 1200, 2)
    12.0
    >>> plt.close(fig)
    """
    import matplotlib.text

    fig.canvas.draw()  # creates the tick labels, so they are measured and raised too
    scale = min(1.0, COLUMN_PX / (fig.get_size_inches()[0] * fig.dpi))
    floor = round(float(MIN_TEXT_PX / scale * 72 / fig.dpi), 2)
    for text in fig.findobj(matplotlib.text.Text):
        if text.get_fontsize() < floor:
            text.set_fontsize(floor)
    for ax in fig.axes:
        for axis, name in ((ax.xaxis, "x"), (ax.yaxis, "y")):
            labels = axis.get_ticklabels(which="both")
            if labels and labels[0].get_fontsize() <= floor:
                ax.tick_params(axis=name, which="both", labelsize=floor)
    if fig.get_layout_engine() is None:
        fig.tight_layout()
    return floor


def verdict_line(finding: Finding) -> str:
    """One line for the chapter page: the verdict chip (marked *fragile* where a threshold
    inside its band would change it), the opening of the claim's words, a link to its row in
    the claims ledger and what was measured. The thresholds, their reasons and bands, and the
    whole quote are the ledger row's detail, not the chapter's.

    >>> print(verdict_line(Finding("blog-softmax-example", Verdict.HOLDS)))
    {bdg-success}`holds` {ref}`P1 <ledger-blog-softmax-example>` {cite:t}`pranay2025why`: \
“Softmax of y\\: \\[0\\.202 0\\.247 0\\.183 0\\.368\\] … Softmax of y\\_scaled\\: \
\\[0\\.008 0\\.039 …”: every printed digit of softmax(y) and softmax(8y) is reproduced
    """
    claim = CLAIMS[finding.claim]
    fragile = " {ref}`fragile <ledger-fragile>`" if finding.fragile else ""
    return (
        f"{chip(finding.verdict.value)}{fragile} "
        f"{{ref}}`{ledger_number(finding.claim)} <{ledger_target(finding.claim)}>` "
        f"{{cite:t}}`{claim.source}`: “{claim_opening(finding.claim, CLAIM_WORDS)}”: "
        f"{sentence(finding)}"
    )


CLAIM_WORDS = 12
"""Words of a claim quoted beside its verdict on a chapter page: enough to name the claim (its
ledger row, a link away, has it whole)."""


def claim_opening(claim: str, words: int) -> str:
    """The first ``words`` words of ``claim``'s quote (an ellipsis if there are more), as
    MyST (:func:`quote_markdown`).

    >>> claim_opening("vaswani-variance", 4)
    'assume that the components …'
    """
    return quote_markdown(CLAIMS[claim].quote, words)


_MATH = re.compile(r"(\$\$.+?\$\$|\$.+?\$)", re.S)


def quote_markdown(text: str, words: int | None = None) -> str:
    r"""A quote as MyST that prints as written: its mathematics as inline math, every other
    special character of Markdown escaped; cut after ``words`` words (a formula counts as
    one, punctuation none) with an ellipsis. Display math ``$$…$$`` and the blog's
    ``$\( x \)$`` are shown as inline ``$x$``.

    >>> print(quote_markdown(r"the *new* [1] $\( d_k \)$, and $$a = b.$$ end", words=6))
    the \*new\* \[1\] $d_k$\, and $a = b.$ …
    """
    shown, count = [], 0
    for i, piece in enumerate(_MATH.split(text)):
        parts = [piece] if i % 2 else re.split(r"(\s+)", piece)
        for part in parts:
            if not part or part.isspace():
                shown.append(" " if part else "")
                continue
            if words is not None and count >= words:
                return re.sub(r"\s+", " ", "".join(shown)).strip() + " …"
            count += bool(i % 2 or re.search(r"\w", part))
            if i % 2:
                inner = part.strip("$").replace("\\(", "").replace("\\)", "").strip()
                shown.append(f"${inner}$")
            else:
                shown.append(literal(part))
    return re.sub(r"\s+", " ", "".join(shown)).strip()


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

        display({TABLE_MIME: {"name": name, "csv": frame.to_csv()}}, raw=True)

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
        **kwargs: Any,
    ) -> None:
        """Show ``layout(frame, name, caption, *args, **kwargs)`` (a numbered table:
        :func:`~attncore.book.tables.numbered_table` or :func:`~attncore.book.tables.list_table`)
        with a link under it that downloads the table as CSV, which the runner writes to the
        run's ``tables/<name>.csv``: ``data`` where the page shows text made from numbers
        (an interval, a percentage), so the download holds the numbers, else ``frame``."""
        from IPython.display import Markdown, display

        self._hand_over(frame if data is None else data, name)
        markdown = layout(frame, name, caption, *args, **kwargs)
        display(Markdown(f"{markdown}\n{self.data_link(name)}\n"))

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
