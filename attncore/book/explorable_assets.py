"""A Sphinx extension that ships the Vega libraries with the book and loads them on the pages
that hold an explorable figure (:mod:`attncore.book.explorable`).

The JavaScript comes from the pinned wheel of ``vl-convert-python`` (see ``pyproject.toml``
and ``requirements.lock``), which carries Vega, Vega-Lite and Vega-Embed: its
``javascript_bundle()`` joins them into one script with no further dependency, which is
wrapped in a function so that its names stay its own. The bundle is made once per version of
the wheel and kept in the build's cache (``.cache/vega/``, a few
seconds to make), copied to the book's ``_static/`` with the small loader
``attncore-explorable.js``, and the two are added, deferred, to exactly the pages that show an
explorable. Nothing is loaded from another host.

>>> bundle_name().startswith("vega-bundle-")
True
"""

from __future__ import annotations

from importlib import metadata
from pathlib import Path
from typing import Any

from docutils import nodes
from sphinx.application import Sphinx
from sphinx.config import Config

from attncore.book.explorable import MARKER

__all__ = ["LOADER", "STATIC", "bundle_name", "has_explorable", "setup", "vega_bundle"]

STATIC = Path(__file__).resolve().parent / "static"
"""The folder of the loader, copied to the book's ``_static/``."""

LOADER = "attncore-explorable.js"
"""The script that draws the explorables of a page."""

_PACKAGE = "vl-convert-python"


def bundle_name() -> str:
    """The file name of the Vega bundle: it carries the version of the wheel it came from,
    so a new pin is a new file and no reader's browser keeps an old one."""
    return f"vega-bundle-{metadata.version(_PACKAGE)}.js"


def vega_bundle(cache: Path) -> Path:
    """The folder in ``cache`` that holds the Vega bundle (and only it), made if missing."""
    import vl_convert

    folder = Path(cache) / "vega" / metadata.version(_PACKAGE)
    path = folder / bundle_name()
    if not path.is_file():
        folder.mkdir(parents=True, exist_ok=True)
        head = (
            f"/* Vega {vl_convert.get_vega_version()}, Vega-Lite "
            f"{vl_convert.get_vegalite_versions()[-1]} and Vega-Embed "
            f"{vl_convert.get_vega_embed_version()} (BSD-3-Clause, the Vega project), bundled "
            f"by {_PACKAGE} {metadata.version(_PACKAGE)}. */\n"
        )
        partial = path.with_suffix(".partial")
        # the bundle is an ES module's body: in a function of its own its top-level names
        # (``_``, ``t``, ...) do not clash with the page's other scripts (Sphinx's ``_``)
        body = f'(function () {{\n"use strict";\n{vl_convert.javascript_bundle()}\n}})();\n'
        partial.write_text(head + body, encoding="utf-8")
        partial.replace(path)  # a bundle interrupted half-way is never taken for a whole one
    return folder


def has_explorable(doctree: nodes.document | None) -> bool:
    """Whether a page's document shows an explorable figure."""
    if doctree is None:
        return False
    return any(MARKER in node.astext() for node in doctree.findall(nodes.raw))


def _static_paths(app: Sphinx, config: Config) -> None:
    cache = Path(app.srcdir) / ".cache"
    config.html_static_path = [*config.html_static_path, str(vega_bundle(cache)), str(STATIC)]


def _page_scripts(
    app: Sphinx, pagename: str, templatename: str, context: dict[str, Any], doctree: Any
) -> None:
    if has_explorable(doctree):
        app.add_js_file(bundle_name(), loading_method="defer")
        app.add_js_file(LOADER, loading_method="defer")


def setup(app: Sphinx) -> dict[str, Any]:
    """Register the static folders and the per-page scripts with Sphinx."""
    app.connect("config-inited", _static_paths)
    app.connect("html-page-context", _page_scripts)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
