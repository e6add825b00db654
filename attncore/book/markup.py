r"""Text as it was written, whatever it holds: the one escape for text that reaches a page.

Every text that comes from a run folder (a verdict's measured text and check, a headline) and
every claim quoted from the catalogue passes through :func:`literal` before it is placed in the
MyST Markdown of a page. The result shows the text as written in MyST (every ASCII punctuation
mark is escaped, which CommonMark guarantees to print as itself, so no role, directive, fence,
link, emphasis or math can start) and in HTML (``& < > " '`` become character references,
which MyST prints as the characters and a browser never reads as markup); line breaks and other
control characters become spaces, so a text cannot start a block of its own.

>>> print(literal("<script>alert(4)</script>"))
&lt;script&gt;alert\(4\)&lt;\/script&gt;
>>> print(literal("```{raw} html\n<b>"))
\`\`\`\{raw\} html &lt;b&gt;
"""

from __future__ import annotations

import re
import unicodedata

__all__ = ["literal", "shown_length"]

_HTML = {"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;"}
_PUNCTUATION = re.compile(r"[!-/:-@\[-`{-~]")
"""Every ASCII punctuation character (CommonMark's backslash escapes)."""


def _escape(match: re.Match[str]) -> str:
    char = match[0]
    return _HTML.get(char) or "\\" + char


def _visible(char: str) -> str:
    """A control or format character (line breaks, tabs, bidirectional overrides) as a space."""
    return " " if unicodedata.category(char) in ("Cc", "Cf", "Zl", "Zp") else char


def literal(text: object) -> str:
    r"""``text`` escaped so that a MyST page, and the HTML built from it, show it as written
    and interpret none of it (see the module's description).

    >>> print(literal("1/√d * 2_i"))
    1\/√d \* 2\_i
    """
    visible = "".join(map(_visible, str(text)))
    return _PUNCTUATION.sub(_escape, visible)


_ESCAPES = re.compile(r"\\[!-/:-@\[-`{-~]|&(?:amp|lt|gt|quot|#39);")


def shown_length(text: str) -> int:
    r"""How many characters ``text`` shows on a page: an escape of :func:`literal` counts as
    the one character it shows.

    >>> shown_length(literal("a<b_c")), len(literal("a<b_c"))
    (5, 9)
    """
    return len(_ESCAPES.sub("x", text))
