"""The string-reversal chapter as the smoke build runs it: the effect keeps its direction."""

from __future__ import annotations

import json

import nbformat
import pytest

from attncore.book.build import RUNS

pytest.importorskip("torch")

pytestmark = pytest.mark.notebooks

RECORD = "application/papermill.record/text/plain"


def glued(notebook) -> dict[str, str]:
    """The text values a notebook glued, by key."""
    values = {}
    for cell in notebook.cells:
        for output in cell.get("outputs", []):
            key = output.get("metadata", {}).get("scrapbook", {}).get("name")
            if key and RECORD in output.get("data", {}):
                values[key] = output["data"][RECORD].strip("'\"")
    return values


def test_the_short_budget_gap_keeps_its_direction_in_the_smoke_build(built_book):
    generated = built_book / "book" / "generated"
    values = glued(nbformat.read(generated / "string_reversal.ipynb", as_version=4))
    run = built_book / RUNS / "string_reversal"
    verdicts = {r["claim"]: r for r in json.loads((run / "manifest.json").read_text())["verdicts"]}
    # without LayerNorm and with Keras-like initialization, after one epoch
    assert (
        "“no LayerNorm, Keras-like init” at 469 steps"
        in (verdicts["chuang-string-reversal"]["measured"])
    )
    assert verdicts["chuang-string-reversal"]["verdict"] != "does not hold"
    # the glued conclusions agree with the verdict
    assert values["chuang_verdict"] == verdicts["chuang-string-reversal"]["verdict"]
    assert values["gap_conclusion"].startswith(
        "Chuang’s gap is reproduced after 469 steps in “no LayerNorm, Keras-like init”"
    )
    assert verdicts["bernhard-transformer-performance"]["verdict"] in (
        "holds with a caveat",
        "not testable here",
    )
    for claim in ("chuang-beta-only-at-init", "chuang-not-memorizing", "chuang-25000-samples"):
        assert claim in verdicts
    figures = {p.stem for p in (run / "figures").glob("*.png")}
    assert figures == {"beta_search", "learning_curves", "attention_dynamics"}
