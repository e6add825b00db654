"""The page's download button downloads its notebook.

A Sphinx extension. The book's theme (sphinx-book-theme 1.3) links each page's ``.ipynb`` with
``target="_blank"`` and no ``download`` attribute (its upstream issue 918), so a browser opens
the notebook's JSON in a tab. When the build has written the pages, each such link gets the
attribute in place of the new tab; nothing else on a page changes.

>>> page = '<a href="x.ipynb" target="_blank"\\n class="btn btn-sm btn-download-source-button x"'
>>> print(with_download_links(page))
<a href="x.ipynb" download
 class="btn btn-sm btn-download-source-button x"
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from sphinx.application import Sphinx

__all__ = ["setup", "with_download_links"]

_SOURCE_LINK = re.compile(
    r'(<a href="[^"<>]*" )target="_blank"(\s+class="btn btn-sm btn-download-source-button[ "])'
)


def with_download_links(page: str) -> str:
    """``page`` (HTML) with the theme's download-source links made downloads."""
    return _SOURCE_LINK.sub(r"\1download\2", page)


def _rewrite_pages(app: Sphinx, exception: Exception | None) -> None:
    if exception is not None or app.builder.format != "html":
        return
    for page in Path(app.outdir).rglob("*.html"):
        text = page.read_text(encoding="utf-8")
        if (changed := with_download_links(text)) != text:
            page.write_text(changed, encoding="utf-8")


def setup(app: Sphinx) -> dict[str, Any]:
    """Register the rewrite of the built pages."""
    app.connect("build-finished", _rewrite_pages)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
