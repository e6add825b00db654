"""attncore.book.tables: numbered tables that stay within the text column."""

import re

import numpy as np
import pandas as pd

from attncore.book.tables import fraction, list_table, numbered_table, percent


def widths(text: str) -> list[int]:
    """Columns of each table in ``text`` (the header row's cells)."""
    return [
        len(re.findall(r"^ *[*]? *- ", t.split("\n\n")[1].split("\n* ")[0], flags=re.M))
        for t in text.split("```{list-table}")[1:]
    ]


def characters(text: str) -> list[int]:
    """Per table in ``text``: the sum over columns of the longest word, 3 each for padding."""
    out = []
    for table in text.split("```{list-table}")[1:]:
        rows = [re.split(r"\n  - ", row) for row in table.split("\n* - ")[1:]]
        longest = [max(len(w) for row in rows for w in row[i].split()) for i in range(len(rows[0]))]
        out.append(sum(width + 3 for width in longest))
    return out


def test_list_table_is_numbered_and_rounded() -> None:
    frame = pd.DataFrame(
        {"ok": [np.True_, False], "n": [np.int64(12000), 3], "x": [1e-7, -0.5]},
        index=pd.Index(["a", "b"], name="law"),
    )
    text = list_table(frame, "tbl-x", "Caption.", decimals=2)
    assert text.startswith("```{list-table} Caption.\n:name: tbl-x\n:header-rows: 1")
    assert "  - yes" in text and "  - 12,000" in text and "  - 1.0e-7" in text
    assert "  - -0.50" in text and "* - law" in text


def test_a_narrow_table_is_one_table_as_given() -> None:
    frame = pd.DataFrame({"a": [1.5, 2.25], "b": [True, False]}, index=pd.Index([1, 2], name="k"))
    text = numbered_table(frame, "tbl-n", "Narrow.")
    assert text.count("```{list-table}") == 1 and widths(text) == [3]
    assert "  - yes" in text and "* - k" in text


def test_a_wide_table_with_few_rows_is_transposed() -> None:
    frame = pd.DataFrame([np.arange(8.0), np.arange(8.0) / 3], index=pd.Index([8, 512], name="n"))
    frame.columns = [f"measurement {i} of something" for i in range(8)]
    text = numbered_table(frame, "tbl-t", "Transposed.", digits=3)
    assert text.count("```{list-table}") == 1 and widths(text) == [3]
    assert (
        "* - n\n  - 8\n  - 512" in text
        and "* - measurement 7 of something\n  - 7.00\n  - 2.33" in text
    )


def test_a_table_of_short_words_keeps_its_columns() -> None:
    frame = pd.DataFrame(np.ones((10, 9)), columns=[f"acc. {i}" for i in range(9)])
    assert widths(numbered_table(frame, "tbl-k", "Kept.")) == [10]


def test_a_wide_long_table_stays_one_table_to_scroll_in_its_box() -> None:
    frame = pd.DataFrame(np.ones((30, 12)), columns=[f"measurement{i}" for i in range(12)])
    frame.index.name = "row"
    text = numbered_table(frame, "tbl-s", "Whole.")
    assert re.findall(r":name: (\S+)", text) == ["tbl-s"] and "part" not in text
    assert widths(text) == [13] and characters(text)[0] > 80


def test_each_column_has_one_number_of_decimals() -> None:
    """Table 1.5 once mixed 0.7235, 0.07202 and 2734 in one table; now each column has the
    decimals that give its largest value the digits asked for, and a column of whole numbers
    (bin edges, counts held as floats) has none."""
    frame = pd.DataFrame(
        {"share": [0.7235, 0.07202, 0.5], "keys": [2734.0, 80.0, 12.0], "tiny": [0.5, 2e-6, 0.0]}
    )
    text = numbered_table(frame, "tbl-c", "C.", digits=3)
    rows = [row.split("\n  - ")[1:] for row in text.split("```\n")[0].split("\n* - ")[2:]]
    assert [r[0] for r in rows] == ["0.724", "0.072", "0.500"]
    assert [r[1] for r in rows] == ["2,734", "80", "12"]
    assert [r[2].strip() for r in rows] == ["0.500", "2.0e-6", "0.000"]
    bins = list_table(pd.DataFrame({"bin": [80.0, 120.0], "p": [0.5, 0.25]}), "tbl-b", "B.", 2)
    assert "  - 80\n" in bins and "  - 0.50\n" in bins


def test_a_percentage_never_reads_as_0_or_100_when_it_is_not() -> None:
    assert [percent(v) for v in (50, 97.531, 100.0, 0.0)] == ["50.0", "97.5", "100.0", "0.0"]
    assert percent(99.9995) == "> 99.9" and percent(1e-4) == "< 0.1"
    assert percent(99.99999, 3) == "> 99.999" and percent(float("nan")) == "–"


def test_errors_fold_into_the_value_and_columns_pick_and_name() -> None:
    frame = pd.DataFrame({"w": [0.5, -0.25], "w_se": [0.01, float("nan")], "code_name": [1, 2]})
    text = numbered_table(frame, "tbl-e", "E.", errors={"w": "w_se"}, columns={"w": "W₁"})
    assert "  - 0.500 ± 0.010" in text and "  - -0.250\n" in text
    assert "code_name" not in text and "w_se" not in text and "  - W₁" in text


def test_a_share_below_one_never_reads_as_one() -> None:
    for value in [0.9995, 0.99996, 0.999999, 1 - 1e-12, 0.5, 1e-5, 1e-12]:
        text = fraction(value)
        shown = float(text.lstrip("<> "))
        assert text.startswith(("<", ">")) or 0 < shown < 1, (value, text)
    assert fraction(1.0) == "1.000" and fraction(0.0) == "0" and fraction(0.1234, 2) == "0.12"
    text = numbered_table(
        pd.DataFrame({"acc": [0.99996]}), "tbl-f", "F.", formats={"acc": fraction}
    )
    assert "  - 0.99996" in text


def test_every_claim_has_a_readable_label_and_verdicts_show_it() -> None:
    from attncore.book.tables import claim_label, verdict_table
    from attncore.claims import CLAIMS, Finding, Verdict

    for claim in CLAIMS:
        label = claim_label(claim)
        assert claim not in label and label[0].isupper() and "“" in label, label
    found = [Finding(c, Verdict.HOLDS) for c in ("blog-softmax-example", "blog-jacobian-example")]
    text = verdict_table(found, "tbl-v", "Verdicts.")
    assert not any(c in text for c in CLAIMS) and text.count("{bdg-success}") == 2


def test_a_wide_table_is_transposed_unless_its_layout_must_stay() -> None:
    wide = pd.DataFrame(
        {f"validationaccuracyheader{i}": [1.5, 2.5] for i in range(7)},
        index=pd.Index(["first", "second"], name="method"),
    )
    transposed = numbered_table(wide, "tbl-w", "W.")
    assert "* - method\n  - first\n  - second" in transposed
    kept = numbered_table(wide, "tbl-w", "W.", transpose=False)
    assert kept.count("```{list-table}") == 1 and widths(kept) == [8]


def test_large_numbers_print_in_full_not_in_scientific_notation() -> None:
    frame = pd.DataFrame({"w": [0.5, 12345.6]}, index=pd.Index([1000.0, 30.0], name="factor"))
    text = numbered_table(frame, "tbl-l", "L.", 3)
    assert "1,000" in text and "12,346" in text and "e+" not in text
