r"""A Sphinx extension that makes every figure of the book open at full size and describe itself.

A chapter's figure is a PNG wider than the text column (and far wider than a phone), shown
shrunk. Here each figure's image becomes a link to the image file itself, so a tap or a click
opens it at its own size, to be zoomed; and an image whose alternative text is its file name
(what myst-nb gives a glued figure) gets its caption's first sentence instead, which says
what it shows (an ``:alt:`` given in the source is kept).

>>> first_sentence("Bernhard's Figure 1 redrawn from one seed. Top row: as in the paper.")
"Bernhard's Figure 1 redrawn from one seed."
>>> first_sentence("Left: the softmax of y (e.g. key 1) and of 8 y")
'Left: the softmax of y (e.g. key 1) and of 8 y'

Mathematics in a caption is TeX; in the text alternative it is read as plain text:

>>> plain_tex(r"1/\sqrt{d}, k_\text{total}, \frac{a}{n} and \beta \approx 5")
'1/√d, k_total, a/n and β ≈ 5'
"""

from __future__ import annotations

import posixpath
import re
from typing import Any
from urllib.parse import quote

from docutils import nodes
from sphinx.application import Sphinx
from sphinx.transforms.post_transforms import SphinxPostTransform
from sphinx.util.osutil import relative_uri

__all__ = ["FigureLinks", "caption_text", "first_sentence", "plain_tex", "setup"]

_SENTENCE_END = re.compile(r"(?<!\be\.g)(?<!\bi\.e)(?<!\bcf)(?<!\bvs)\.(?=\s+[A-Z(])")


def first_sentence(text: str) -> str:
    """The first sentence of ``text``, whitespace collapsed."""
    text = " ".join(text.split())
    found = _SENTENCE_END.search(text)
    return text[: found.end()] if found else text


_SYMBOLS = {
    "alpha": "α", "beta": "β", "gamma": "γ", "kappa": "κ", "mu": "μ", "rho": "ρ", "sigma": "σ",
    "approx": "≈", "cdot": "·", "pm": "±", "times": "×", "le": "≤", "ge": "≥", "to": "→",
    "infty": "∞", "ell": "ℓ", "|": "‖",
}  # fmt: skip
"""TeX commands read as one symbol; any other command is read as its name."""


def plain_tex(tex: str) -> str:
    """TeX ``tex`` as plain text: square roots, fractions and text commands unwrapped,
    Greek letters and common operators as symbols, braces and spacing commands dropped."""
    text = re.sub(r"\\sqrt\{([^{}])\}", r"√\1", tex)
    text = re.sub(r"\\sqrt\{([^{}]*)\}", r"√(\1)", text)
    text = re.sub(r"\\frac\{([^{}]*)\}\{([^{}]*)\}", r"\1/\2", text)
    text = re.sub(r"\\(?:text|mathrm|operatorname|mathbf|hat|bar|tilde)\b", "", text)
    text = re.sub(r"\\[,;:! ]", " ", text)
    text = re.sub(r"\\([a-zA-Z]+|\|)", lambda m: _SYMBOLS.get(m[1], m[1]), text)
    return " ".join(text.replace("{", "").replace("}", "").split())


def caption_text(caption: nodes.Element) -> str:
    """The text of ``caption``, its mathematics as plain text (:func:`plain_tex`)."""
    return "".join(
        plain_tex(str(text)) if isinstance(text.parent, nodes.math) else str(text)
        for text in caption.findall(nodes.Text)
    )


def _is_file_name(alt: str, node: nodes.image) -> bool:
    return not alt or alt == node.get("uri") or bool(re.fullmatch(r"\S+\.(png|svg|jpe?g)", alt))


class FigureLinks(SphinxPostTransform):
    """Link each figure's image to its file and give it its caption's first sentence as
    alternative text (see the module)."""

    default_priority = 800
    formats = ("html",)

    def run(self, **kwargs: Any) -> None:
        builder = self.app.builder
        page = builder.get_target_uri(self.env.docname)
        for figure in list(self.document.findall(nodes.figure)):
            image = next(iter(figure.findall(nodes.image)), None)
            if image is None or isinstance(image.parent, nodes.reference):
                continue
            caption = next(iter(figure.findall(nodes.caption)), None)
            if caption is not None and _is_file_name(image.get("alt", ""), image):
                image["alt"] = first_sentence(caption_text(caption))
            source = image["candidates"].get("image/png") or image["uri"]
            if source not in self.env.images:
                continue
            target = posixpath.join(
                relative_uri(page, builder.imagedir), quote(self.env.images[source][1])
            )
            link = nodes.reference("", "", refuri=target, internal=True)
            link["classes"].append("attncore-full-size")
            image.replace_self(link)
            link.append(image)


def setup(app: Sphinx) -> dict[str, Any]:
    """Register :class:`FigureLinks` with Sphinx."""
    app.add_post_transform(FigureLinks)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
