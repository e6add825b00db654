"""A Sphinx extension that typesets the minus sign of every number in the book's text, and
lets a long dotted name in code break after its dots on a narrow screen.

Numbers reach the pages from many places (glued values, verdicts' measured texts, table
cells, captions), most formatted by Python, which writes a hyphen-minus. This one transform
replaces a hyphen that starts a number (``-0.89``, ``N(-1, 1)``, ``shift -750``) or its
exponent (``2.8e-17``) by the minus sign ``−`` in the text of every page, after the glued
outputs are in place, table cells included. Code, literals and mathematics are left alone
(MathJax sets its own minus), and so are hyphens inside words or between digits
(``log-log``, ``3-4``).

>>> typeset_minus("slope -0.89 over N(-1, 1); log-log, 2.8e-17, pages 3-4")
'slope −0.89 over N(−1, 1); log-log, 2.8e−17, pages 3-4'

An inline literal such as ``attncore.sources.chuang.chuang_beta_search`` is one word wider
than a phone's column: it gets a line-break opportunity (``<wbr>``, which copying leaves out)
after each dot, so it wraps there instead of sticking out of the page.

>>> break_points("attncore.sources.chuang.chuang_beta_search")
['attncore.', 'sources.', 'chuang.', 'chuang_beta_search']
>>> break_points("x.y")
['x.y']
"""

from __future__ import annotations

import re
from typing import Any

from docutils import nodes
from sphinx.application import Sphinx
from sphinx.transforms.post_transforms import SphinxPostTransform

__all__ = ["DottedNameBreaks", "NumberMinus", "break_points", "setup", "typeset_minus"]

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


LONG_NAME = 24
"""The length (characters) from which an inline literal without spaces may break at dots."""


def break_points(text: str) -> list[str]:
    """``text`` cut after each dot when it is a name of at least :data:`LONG_NAME` characters
    without spaces, else whole."""
    if len(text) < LONG_NAME or any(c.isspace() for c in text):
        return [text]
    return [part for part in re.split(r"(?<=\.)", text) if part]


class DottedNameBreaks(SphinxPostTransform):
    """Let long dotted names in inline literals wrap after their dots (see the module)."""

    default_priority = 901
    formats = ("html",)

    def run(self, **kwargs: Any) -> None:
        for literal in list(self.document.findall(nodes.literal)):
            if len(literal.children) != 1 or not isinstance(literal[0], nodes.Text):
                continue
            parts = break_points(str(literal[0]))
            if len(parts) < 2:
                continue
            pieces: list[nodes.Node] = []
            for part in parts:
                pieces += [nodes.Text(part), nodes.raw("", "<wbr>", format="html")]
            literal.children = []
            literal.extend(pieces[:-1])


def setup(app: Sphinx) -> dict[str, Any]:
    """Register :class:`NumberMinus` and :class:`DottedNameBreaks` with Sphinx."""
    app.add_post_transform(NumberMinus)
    app.add_post_transform(DottedNameBreaks)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
