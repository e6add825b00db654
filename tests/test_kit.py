"""The chapter kit's verdict lines: each threshold's reason given once per page, on findings
of a real rule (the training chapter's two rules that share the ``unit`` threshold)."""

from __future__ import annotations

from attncore.book.kit import verdict_line
from attncore.book.markup import literal
from attncore.book.threshold_notes import LINK_TEXT, ThresholdNotes
from attncore.claims.rules.training import (
    chuang_assumptions_invalid,
    chuang_sigma_w_moving_factors,
    example_evaluations,
)
from attncore.claims.thresholds.training import UNIT


def test_a_shared_threshold_is_explained_once_per_page() -> None:
    evals = example_evaluations()
    findings = [chuang_sigma_w_moving_factors(evals), chuang_assumptions_invalid(evals)]
    notes = ThresholdNotes("threshold-page")
    lines = [verdict_line(finding, notes) for finding in findings]
    reason = literal(UNIT.reason)
    assert reason in lines[0] and reason not in lines[1]
    assert f"unit = 2 ({{ref}}`{LINK_TEXT} <threshold-page-unit>`)" in lines[1]
    # without a page's memory (the ledger, one line alone) every reason is given
    assert reason in verdict_line(findings[1])


def test_an_explorable_past_the_page_budget_is_left_out_in_words(monkeypatch) -> None:
    import altair as alt
    import pandas as pd

    from attncore.book import kit
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
    page = kit.Chapter("softmax_saturation")
    page.explorable(small, "small")
    page.explorable(large, "large")
    assert glued["small"] is small and "left out" not in str(glued["small_note"].data)
    assert "leaves the explorable out" in glued["large"].data
    assert "static figure" in glued["large_note"].data
    assert page.explorable_bytes == [data_bytes(small.spec())]
