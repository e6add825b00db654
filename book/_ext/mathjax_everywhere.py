"""Load the bundled MathJax on every page, not only on pages whose body has math.

The navigation shows chapter titles with math (the chapter "Why sqrt(d)") on every page;
without MathJax a page with no formula of its own would show them as raw TeX.
"""

from sphinx.application import Sphinx


def setup(app: Sphinx) -> dict[str, bool]:
    app.set_html_assets_policy("always")
    return {"parallel_read_safe": True, "parallel_write_safe": True}
