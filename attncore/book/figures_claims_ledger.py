"""The claims ledger's figure: the verdicts of each source text, counted."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import matplotlib.figure
import matplotlib.pyplot as plt
import pandas as pd

from attncore.book.kit import VERDICT_COLOURS
from attncore.book.ledger_page import PLURAL, STANDINGS, VERDICTS, source_name, standing, tally
from attncore.claims import Kind

__all__ = ["tally_figure"]


def tally_figure(rows: Sequence[dict[str, Any]]) -> matplotlib.figure.Figure:
    """Stacked bars: the verdicts on the substantive findings of each source text, then those
    on the textbook identities and on the quotation checks of all four; within each verdict,
    the fragile ones hatched with lines and those of closed rules with dots
    (:func:`~attncore.book.ledger_page.standing`), each counted apart in the legend.

    >>> rows = [{"claim": "vaswani-variance", "source": "vaswani2017attention",
    ...          "kind": "textbook identity", "verdict": "holds", "fragile": []}]
    >>> len(tally_figure(rows).axes)
    1
    """
    frame = pd.DataFrame(rows)
    frame["verdict"] = pd.Categorical(frame["verdict"], categories=VERDICTS, ordered=True)
    finding = frame["kind"] == Kind.FINDING.value
    frame["bar"] = [
        f"{source_name(source)} findings" if found else PLURAL[Kind(kind)]
        for source, kind, found in zip(frame["source"], frame["kind"], finding, strict=True)
    ]
    order = list(dict.fromkeys(frame.loc[finding, "bar"]))
    order += [PLURAL[k] for k in Kind if k is not Kind.FINDING and (frame["kind"] == k).any()]
    frame["standing"] = [standing(row) for row in rows]
    counts = {how: tally(rows, how=how) for how in STANDINGS}
    fig, ax = plt.subplots(figsize=(8, 0.9 + 0.55 * len(order)))
    left = pd.Series(0, index=order)
    for verdict in VERDICTS:
        for how, hatch in zip(STANDINGS, (None, "///", ".."), strict=True):
            part = frame[(frame["verdict"] == verdict) & (frame["standing"] == how)]
            widths = part["bar"].value_counts().reindex(order, fill_value=0)
            label = f"{verdict} ({counts['decided'][verdict]})" if how == "decided" else None
            ax.barh(order, widths, left=left, color=VERDICT_COLOURS[verdict], hatch=hatch,
                    edgecolor="white", linewidth=0, label=label)  # fmt: skip
            left += widths
    for how, hatch in zip(STANDINGS[1:], ("///", ".."), strict=True):
        total = sum(counts[how].values())
        ax.barh(
            [order[0]], [0], color="white", hatch=hatch, edgecolor="black", label=f"{how} ({total})"
        )
    ax.set(xlabel="number of claims")
    ax.invert_yaxis()
    ax.legend(ncol=3, loc="lower center", bbox_to_anchor=(0.5, 1.02), frameon=False)
    return fig
