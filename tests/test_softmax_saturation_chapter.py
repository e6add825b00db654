"""The saturation chapter under two parameter sets with different outcomes: its glued
conclusions change with the numbers and always agree with the verdicts of its manifest."""

from __future__ import annotations

import json

import nbformat
import pytest

from attncore.book.runner import run_chapter

pytestmark = pytest.mark.notebooks

RECORD = "application/papermill.record/text/plain"
SMALL = {"n_rows": 200, "n_spreads": 21}
BLOG_INPUTS = SMALL  # the blog's y and factor, spreads up to 100: rows become very peaked
OTHER_INPUTS = {**SMALL, "y": [1.0, 2.0], "spread_max": 20.0}  # peaked, but not as far


def glued(notebook: nbformat.NotebookNode) -> dict[str, str]:
    """The text values a notebook glued, by key."""
    values = {}
    for cell in notebook.cells:
        for output in cell.get("outputs", []):
            key = output.get("metadata", {}).get("scrapbook", {}).get("name")
            if key and RECORD in output.get("data", {}):
                values[key] = output["data"][RECORD].strip("'\"")
    return values


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """By run name: (glued texts, verdict records by claim) of one run of the chapter."""
    outcome = {}
    for name, parameters in [("blog", BLOG_INPUTS), ("other", OTHER_INPUTS)]:
        result = run_chapter("softmax_saturation", parameters, tmp_path_factory.mktemp(name))
        manifest = json.loads((result.folder / "manifest.json").read_text())
        verdicts = {record["claim"]: record for record in manifest["verdicts"]}
        outcome[name] = (glued(nbformat.read(result.notebook, as_version=4)), verdicts)
    return outcome


@pytest.mark.parametrize("name", ["blog", "other"])
def test_conclusions_agree_with_the_verdicts(runs, name):
    texts, verdicts = runs[name]
    peaked = verdicts["blog-peaked-small-derivatives"]
    assert texts["peaked_verdict"] == peaked["verdict"]
    shift_holds = verdicts["chuang-shift-invariance"]["verdict"] == "holds"
    assert ("agree to within the rounding" in texts["shift_sentence"]) == shift_holds
    assert verdicts["chuang-overflow-709"]["verdict"] == "holds with a caveat"
    assert texts["overflow_sentence"].startswith("His 709 is the bound of double precision;")
    if name == "blog":
        assert texts["blog_verdict"] == "Every printed digit of the post is reproduced."
        assert verdicts["blog-softmax-example"]["verdict"] == "holds"
        assert verdicts["blog-jacobian-example"]["verdict"] == "holds"
        assert peaked["verdict"] == "holds"
    else:
        # nothing printed to compare with: no verdict, and the page says so
        assert "blog-softmax-example" not in verdicts
        assert "blog-jacobian-example" not in verdicts
        assert "other inputs than the post" in texts["blog_verdict"]
        assert "records no verdict" in texts["blog_verdict"]
        assert peaked["verdict"] == "holds with a caveat"


def test_the_two_runs_conclude_differently(runs):
    (blog, _), (other, _) = runs["blog"], runs["other"]
    for key in ["blog_verdict", "scaling_sentence", "peaked_verdict", "decline_sentence"]:
        assert blog[key] != other[key], key
