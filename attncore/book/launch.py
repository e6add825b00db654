"""Launch a chapter online: Binder and Colab buttons on every chapter page.

A Sphinx extension. The theme's own launch buttons link the page's source, here the executed
``book/generated/<chapter>.ipynb``, which the repository does not hold; these link what it
holds, at the address and branch of the one setting ``repository`` of ``_config.yml``:

- **Binder** builds the repository's ``environment.yml`` and opens the chapter's source,
  ``notebooks/<chapter>.md``, in JupyterLab, which reads MyST Markdown as a notebook through
  jupytext (pinned there);
- **Colab** opens only ``.ipynb`` files, so it opens the chapter's Colab copy,
  ``notebooks/colab/<chapter>.ipynb``: the chapter's cells after one that, in Colab only, clones
  the repository, installs it and runs the chapter from the clone (not tried in Colab here:
  nothing reaches it from the build machines). :func:`colab_notebook` makes the copy from the
  chapter; ``make colab`` writes them all, and a test fails when one is not what the chapter
  makes.

>>> urls = launch_urls("why_sqrt_d", "https://github.com/attncore/attncore", "main")
>>> urls["Binder"]
'https://mybinder.org/v2/gh/attncore/attncore/main?urlpath=lab/tree/notebooks/why_sqrt_d.md'
>>> urls["Colab"]
'https://colab.research.google.com/github/attncore/attncore/blob/main/notebooks/colab/why_sqrt_d.ipynb'
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import jupytext
import nbformat
from sphinx.application import Sphinx

from attncore.book.paths import GENERATED, NOTEBOOKS, ROOT
from attncore.checks import ParameterError

__all__ = [
    "BINDER",
    "COLAB",
    "COLAB_FOLDER",
    "colab_notebook",
    "launch_urls",
    "setup",
    "write_colab_notebooks",
]

BINDER = "https://mybinder.org"
"""The public BinderHub."""

COLAB = "https://colab.research.google.com"
"""Google Colaboratory."""

COLAB_FOLDER = NOTEBOOKS / "colab"
"""Where the chapters' Colab copies are kept, relative to the repository root."""

_SETUP = """\
# In Colab only: the chapter runs inside a clone of its repository, with the book's library
# installed from it (elsewhere, run it in the repository after `make book`).
import os, sys
if "google.colab" in sys.modules:
    if not os.path.isdir("/content/attncore"):
        !git clone --depth 1 --branch {branch} {url} /content/attncore
        %pip install --quiet -e /content/attncore
    sys.path.insert(0, "/content/attncore")
    os.chdir("/content/attncore/notebooks")"""


def _github(url: str) -> tuple[str, str]:
    parts = url.rstrip("/").removesuffix(".git").split("/")
    if len(parts) != 5 or parts[2] != "github.com":
        raise ParameterError(f"repository.url must be https://github.com/OWNER/NAME, got {url!r}")
    return parts[3], parts[4]


def launch_urls(chapter: str, url: str, branch: str) -> dict[str, str]:
    """The Binder and Colab addresses that open ``chapter`` of the repository ``url``
    (``https://github.com/OWNER/NAME``) at ``branch``."""
    owner, name = _github(url)
    source = f"{NOTEBOOKS.as_posix()}/{chapter}.md"
    copy = f"{COLAB_FOLDER.as_posix()}/{chapter}.ipynb"
    return {
        "Binder": f"{BINDER}/v2/gh/{owner}/{name}/{branch}?urlpath=lab/tree/{source}",
        "Colab": f"{COLAB}/github/{owner}/{name}/blob/{branch}/{copy}",
    }


def colab_notebook(source: Path, url: str, branch: str) -> nbformat.NotebookNode:
    """The Colab copy of the chapter ``source`` (MyST Markdown): its cells, without outputs,
    after the cell that sets the chapter up in Colab."""
    notebook = jupytext.read(source)
    setup_cell = nbformat.v4.new_code_cell(_SETUP.format(branch=branch, url=url))
    setup_cell.pop("id", None)
    for cell in notebook.cells:
        cell.pop("id", None)
    notebook.cells.insert(0, setup_cell)
    notebook.metadata.pop("jupytext", None)
    notebook.nbformat, notebook.nbformat_minor = 4, 4
    return notebook


def write_colab_notebooks(root: Path = ROOT) -> list[Path]:
    """Write the Colab copy of every chapter of ``root`` (``notebooks/*.md``) to
    ``notebooks/colab/``; return the files written."""
    url, branch = _repository(root)
    folder = root / COLAB_FOLDER
    folder.mkdir(exist_ok=True)
    sources = sorted((root / NOTEBOOKS).glob("*.md"))
    for stale in set(folder.glob("*.ipynb")) - {folder / f"{s.stem}.ipynb" for s in sources}:
        stale.unlink()  # the copy of a chapter that is gone
    written = []
    for source in sources:
        target = folder / f"{source.stem}.ipynb"
        text = nbformat.writes(colab_notebook(source, url, branch)) + "\n"
        scratch = target.with_name(f".{target.name}")
        scratch.write_text(text, encoding="utf-8")
        scratch.replace(target)
        written.append(target)
    return written


def _repository(root: Path) -> tuple[str, str]:
    """The repository's address and branch, from ``_config.yml``."""
    import yaml

    config = yaml.safe_load((root / "_config.yml").read_text(encoding="utf-8"))
    repository = config.get("repository") or {}
    return str(repository.get("url", "")), str(repository.get("branch", "main"))


def _add_buttons(
    app: Sphinx, pagename: str, templatename: str, context: dict[str, Any], doctree: Any
) -> None:
    """The launch group in the header of a chapter's page."""
    prefix = f"{GENERATED.as_posix()}/"
    if not pagename.startswith(prefix) or "header_buttons" not in context:
        return
    options = app.config.html_theme_options
    urls = launch_urls(
        pagename.removeprefix(prefix),
        options.get("repository_url", ""),
        options.get("repository_branch", "main"),
    )
    icons = {"Binder": "_static/images/logo_binder.svg", "Colab": "_static/images/logo_colab.png"}
    buttons = [
        {
            "type": "link",
            "text": name,
            "tooltip": f"Launch on {name}",
            "icon": icons[name],
            "url": u,
        }
        for name, u in urls.items()
    ]
    context["header_buttons"].append(
        {
            "type": "group",
            "tooltip": "Run this chapter online",
            "icon": "fas fa-rocket",
            "buttons": buttons,
            "label": "launch-buttons",
        }
    )


def setup(app: Sphinx) -> dict[str, Any]:
    """Register the launch buttons (after the theme has made its header buttons)."""
    app.connect("html-page-context", _add_buttons, priority=600)
    return {"parallel_read_safe": True, "parallel_write_safe": True}


if __name__ == "__main__":  # make colab
    for path in write_colab_notebooks():
        print(path.relative_to(ROOT))
