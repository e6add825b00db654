"""The chapters' sections as a reader meets them in links: a heading as plain words, and a
link to the section that holds a piece of evidence, checked against the chapter's source.

>>> plain_title(r"Key lengths: why $k_\\text{total}$ is close to $n\\sqrt{d}$")
'Key lengths: why k_total is close to n√d'
"""

from __future__ import annotations

import re
from pathlib import Path

from attncore.book.paths import ROOT, chapter_source

__all__ = ["LABEL", "evidence_link", "plain_title", "section_title"]

_SYMBOLS = {r"\beta": "β", r"\sigma": "σ", r"\rho": "ρ", r"\mu": "μ", r"\Sigma": "Σ", r"\ln": "ln"}


def plain_title(heading: str) -> str:
    r"""A section heading as plain words for a link text: math unwrapped into Unicode, glued
    text left out.

    >>> plain_title(r"Key lengths: why $k_\text{total}$ is close to $n\sqrt{d}$")
    'Key lengths: why k_total is close to n√d'
    >>> plain_title(r"$1/\sqrt{d}$, $d = 16$: {glue:text}`verdict_sqrt_d`")
    '1/√d, d = 16'
    >>> plain_title(r"No scaling, $d =$ {glue:text}`d_small`: {glue:text}`verdict`")
    'No scaling'
    """
    text = re.sub(r"[:,]?\s*\{glue:\w+\}`[^`]*`", "", heading)
    text = re.sub(r"\\text\{([^}]*)\}", r"\1", text)
    text = re.sub(r"\\sqrt\{(\w)\}", r"√\1", text)
    text = re.sub(r"\\sqrt\{([^}]*)\}", r"√(\1)", text)
    for command, symbol in _SYMBOLS.items():
        text = text.replace(command, symbol)
    text = text.replace("$", "").strip()
    return re.sub(r"[,:]?\s*[^,:]*=$", "", text).strip()  # a value that was glued


def section_title(chapter: str, label: str, root: Path = ROOT) -> str | None:
    """The plain title (:func:`plain_title`) of the section ``label`` of ``chapter``'s
    source, or ``None`` where the source has no heading under that label.

    >>> section_title("derivations", "sec-key-lengths")
    'Key lengths: why k_total is close to n√d'
    """
    source = chapter_source(chapter, root)
    if not source.is_file():
        return None
    found = re.search(rf"^\({re.escape(label)}\)=\s*\n#+ (.+)$", source.read_text(), re.M)
    return plain_title(found[1]) if found else None


LABEL = re.compile(r"sec-[a-z0-9]+(?:-[a-z0-9]+)*")
"""The book's section labels: a run's evidence reference must match it to become a link."""


def evidence_link(chapter: str, label: str, text: str | None = None, root: Path = ROOT) -> str:
    """MyST for the section of ``chapter`` that holds a verdict's evidence: a link to it (its
    title, or ``text``), or, where ``label`` (which comes from a run folder) does not match
    :data:`LABEL` or names no section of the chapter's source, a note that says so.

    >>> evidence_link("derivations", "sec-key-lengths")
    '{ref}`Key lengths: why k_total is close to n√d <sec-key-lengths>`'
    >>> evidence_link("derivations", "sec-x` <b>")
    "*the run's evidence reference names no section of this chapter*"
    """
    source = chapter_source(chapter, root)
    if LABEL.fullmatch(label) and source.is_file():
        if re.search(rf"^\({re.escape(label)}\)=", source.read_text(), re.M):
            title = text or section_title(chapter, label, root)
            return f"{{ref}}`{label}`" if title is None else f"{{ref}}`{title} <{label}>`"
    return "*the run's evidence reference names no section of this chapter*"
