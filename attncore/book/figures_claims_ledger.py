"""The claims ledger's figure: the verdicts of each source text, counted."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import matplotlib.figure
import matplotlib.pyplot as plt
import pandas as pd

from attncore.book.kit import VERDICT_COLOURS
from attncore.book.ledger_page import PLURAL, VERDICTS, fragile_count, source_name, tally
from attncore.claims import Kind

__all__ = ["tally_figure"]


def tally_figure(rows: Sequence[dict[str, Any]]) -> matplotlib.figure.Figure:
    """Stacked bars: the verdicts on the substantive findings of each source text, then those
    on the textbook identities and on the quotation checks of all four."""
    frame = pd.DataFrame(rows)
    frame["verdict"] = pd.Categorical(frame["verdict"], categories=VERDICTS, ordered=True)
    finding = frame["kind"] == Kind.FINDING.value
    frame["bar"] = [
        f"{source_name(source)} findings" if found else PLURAL[Kind(kind)]
        for source, kind, found in zip(frame["source"], frame["kind"], finding, strict=True)
    ]
    order = list(dict.fromkeys(frame.loc[finding, "bar"]))
    order += [PLURAL[k] for k in Kind if k is not Kind.FINDING and (frame["kind"] == k).any()]
    by_source = pd.crosstab(frame["bar"], frame["verdict"], dropna=False)
    by_source = by_source.reindex(index=order, columns=VERDICTS, fill_value=0)
    counts = tally(rows)
    fig, ax = plt.subplots(figsize=(8, 0.6 + 0.55 * len(by_source)))
    left = pd.Series(0, index=by_source.index)
    for verdict in VERDICTS:
        ax.barh(
            by_source.index,
            by_source[verdict],
            left=left,
            color=VERDICT_COLOURS[verdict],
            label=f"{verdict} ({counts[verdict]})",
        )
        left += by_source[verdict]
    ax.set(xlabel=f"number of claims ({fragile_count(rows)} verdicts fragile)")
    ax.invert_yaxis()
    ax.legend(ncol=3, loc="lower center", bbox_to_anchor=(0.5, 1.02), frameon=False)
    return fig
