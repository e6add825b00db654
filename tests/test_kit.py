"""The chapter kit's verdict lines, on findings of a real rule (the training chapter's two rules
that share the ``unit`` threshold): the thresholds are the ledger's, a fragile verdict is marked."""

from __future__ import annotations

from dataclasses import replace

from attncore.book.kit import verdict_line
from attncore.book.markup import literal
from attncore.claims import Verdict
from attncore.claims.rules.training import (
    chuang_assumptions_invalid,
    chuang_sigma_w_moving_factors,
)
from attncore.claims.thresholds import Flip, thresholds_of
from attncore.evidence.training import example_evaluations

UNIT = thresholds_of("training").UNIT


def test_a_verdict_line_marks_a_fragile_verdict_and_leaves_its_thresholds_to_the_ledger() -> None:
    evals = example_evaluations()
    findings = [chuang_sigma_w_moving_factors(evals), chuang_assumptions_invalid(evals)]
    for finding in findings:
        line = verdict_line(finding)
        assert literal(UNIT.reason) not in line and "unit =" not in line
        assert ("{ref}`fragile <ledger-fragile>`" in line) == bool(finding.fragile)
    fragile = replace(findings[0], fragile=(Flip("unit", 3.0, Verdict.FAILS),))
    assert verdict_line(fragile).startswith("{bdg-success}`holds` {ref}`fragile")


def test_an_explorable_past_the_page_budget_is_left_out_in_words(monkeypatch) -> None:
    import altair as alt
    import pandas as pd

    from attncore.book import chapter
    from attncore.book.explorable import DATA_BUDGET, Explorable, Slider, data_bytes, inline_data

    glued: dict[str, object] = {}
    monkeypatch.setattr(
        "myst_nb.glue", lambda name, value, display=True: glued.update({name: value})
    )
    monkeypatch.setattr("IPython.display.display", lambda *args, **kwargs: None)

    def explorable(rows: int) -> Explorable:
        frame = pd.DataFrame({"x": range(rows), "note": ["n" * 600] * rows, "s": [1] * rows})
        chart = alt.Chart(inline_data(frame, "t")).mark_line().encode(x="x:Q", y="s:Q")
        return Explorable(chart, [Slider("s", "s", ["1"])], "a test chart")

    small, large = explorable(10), explorable(4_000)
    assert data_bytes(large.spec()) > DATA_BUDGET
    page = chapter.Chapter("softmax_saturation")
    page.explorable(small, "small")
    page.explorable(large, "large")
    assert glued["small"] is small and "left out" not in str(glued["small_note"].data)
    assert "leaves the explorable out" in glued["large"].data
    assert "static figure" in glued["large_note"].data
    assert page.explorable_bytes == [data_bytes(small.spec())]
