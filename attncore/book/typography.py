"""A Sphinx extension that typesets the minus sign of every number in the book's text.

Numbers reach the pages from many places (glued values, verdicts' measured texts, table
cells, captions), most formatted by Python, which writes a hyphen-minus. This one transform
replaces a hyphen that starts a number (``-0.89``, ``N(-1, 1)``, ``shift -750``) or its
exponent (``2.8e-17``) by the minus sign ``−`` in the text of every page, after the glued
outputs are in place, table cells included. Code, literals and mathematics are left alone
(MathJax sets its own minus), and so are hyphens inside words or between digits
(``log-log``, ``3-4``).

>>> typeset_minus("slope -0.89 over N(-1, 1); log-log, 2.8e-17, pages 3-4")
'slope −0.89 over N(−1, 1); log-log, 2.8e−17, pages 3-4'
"""

from __future__ import annotations

import re
from typing import Any

from docutils import nodes
from sphinx.application import Sphinx
from sphinx.transforms.post_transforms import SphinxPostTransform

__all__ = ["NumberMinus", "setup", "typeset_minus"]

_MINUS = re.compile(r"(?<![\w.\-−])-(?=\.?\d)|(?<=\d[eE])-(?=\d)")
"""A hyphen that starts a number, or the exponent of a number in scientific notation."""

_KEEP = (nodes.FixedTextElement, nodes.literal, nodes.math, nodes.raw)
"""Nodes whose text is shown as written: code, literals, mathematics, raw HTML."""


def typeset_minus(text: str) -> str:
    """``text`` with every hyphen-minus that starts a number or its exponent replaced by
    ``−``."""
    return _MINUS.sub("−", text)


class NumberMinus(SphinxPostTransform):
    """Replace the hyphen-minus of negative numbers in a page's text (see the module)."""

    default_priority = 900  # after myst-nb has put the glued outputs in place

    def run(self, **kwargs: Any) -> None:
        stack: list[nodes.Node] = [self.document]
        while stack:  # one walk down the tree, not into code, literals or mathematics
            node = stack.pop()
            for child in list(node.children):
                if isinstance(child, nodes.Text):
                    fixed = typeset_minus(str(child)) if "-" in child else child
                    if fixed != child:
                        node.replace(child, nodes.Text(fixed))
                elif isinstance(child, nodes.Element) and not isinstance(child, _KEEP):
                    stack.append(child)


def setup(app: Sphinx) -> dict[str, Any]:
    """Register :class:`NumberMinus` with Sphinx."""
    app.add_post_transform(NumberMinus)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
