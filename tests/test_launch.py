"""The launch buttons' targets, checked offline: the Colab copies are what the chapters make,
and every address names the repository, branch and a file git tracks."""

from __future__ import annotations

import subprocess
from urllib.parse import parse_qs, urlsplit

import nbformat
import pytest
import yaml
from conftest import REPO

from attncore.book.launch import COLAB_FOLDER, colab_notebook, launch_urls
from attncore.book.paths import NOTEBOOKS
from attncore.checks import ParameterError

CONFIG = yaml.safe_load((REPO / "_config.yml").read_text())
URL, BRANCH = CONFIG["repository"]["url"], CONFIG["repository"]["branch"]
CHAPTERS = sorted(p.stem for p in (REPO / NOTEBOOKS).glob("*.md"))


def test_every_colab_copy_is_what_its_chapter_makes():
    """``make colab`` rewrites them; a chapter edited without it fails here."""
    copies = sorted(p.stem for p in (REPO / COLAB_FOLDER).glob("*.ipynb"))
    assert copies == CHAPTERS
    for chapter in CHAPTERS:
        made = colab_notebook(REPO / NOTEBOOKS / f"{chapter}.md", URL, BRANCH)
        kept = (REPO / COLAB_FOLDER / f"{chapter}.ipynb").read_text(encoding="utf-8")
        assert kept == nbformat.writes(made) + "\n", f"{chapter}: run make colab"
        nbformat.validate(nbformat.reads(kept, as_version=4))


def test_every_launch_address_names_the_repository_branch_and_a_tracked_file():
    tracked = set(
        subprocess.run(
            ["git", "-C", str(REPO), "ls-files"], capture_output=True, text=True, check=True
        ).stdout.split()
    )
    owner, name = urlsplit(URL).path.strip("/").split("/")
    for chapter in CHAPTERS:
        urls = launch_urls(chapter, URL, BRANCH)
        binder = urlsplit(urls["Binder"])
        assert binder.path == f"/v2/gh/{owner}/{name}/{BRANCH}"
        (path,) = parse_qs(binder.query)["urlpath"]
        assert path.removeprefix("lab/tree/") in tracked, urls["Binder"]
        colab = urlsplit(urls["Colab"]).path
        prefix = f"/github/{owner}/{name}/blob/{BRANCH}/"
        assert colab.startswith(prefix) and colab.removeprefix(prefix) in tracked, colab


def test_a_repository_that_is_not_on_github_is_refused_in_one_line():
    with pytest.raises(ParameterError, match=r"repository\.url must be https://github\.com/"):
        launch_urls("why_sqrt_d", "https://gitlab.com/a/b", "main")
