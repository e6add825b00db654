"""attncore.book.tables: numbered tables that stay within the text column."""

import re

import numpy as np
import pandas as pd

from attncore.book.tables import MAX_WIDTH, fraction, list_table, numbered_table


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
    assert "  - yes" in text and "  - 12,000" in text and "  - 1.0e-07" in text
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
        and "* - measurement 7 of something\n  - 7\n  - 2.33" in text
    )


def test_a_table_of_short_words_keeps_its_columns() -> None:
    frame = pd.DataFrame(np.ones((10, 9)), columns=[f"acc. {i}" for i in range(9)])
    assert widths(numbered_table(frame, "tbl-k", "Kept.")) == [10]


def test_a_wide_long_table_is_split_into_citable_captioned_parts() -> None:
    frame = pd.DataFrame(np.ones((30, 12)), columns=[f"measurement{i}" for i in range(12)])
    frame.index.name = "row"
    text = numbered_table(frame, "tbl-s", "Split.")
    assert re.findall(r":name: (\S+)", text) == ["tbl-s", "tbl-s-b", "tbl-s-c"]
    assert re.findall(r"list-table\} (.*)", text) == [f"Split. (part {i} of 3)" for i in (1, 2, 3)]
    assert all(w <= MAX_WIDTH for w in characters(text)) and text.count("* - row") == 3
    assert sum(widths(text)) == 12 + 3


def test_errors_fold_into_the_value_and_columns_pick_and_name() -> None:
    frame = pd.DataFrame({"w": [0.5, -0.25], "w_se": [0.01, float("nan")], "code_name": [1, 2]})
    text = numbered_table(frame, "tbl-e", "E.", errors={"w": "w_se"}, columns={"w": "W₁"})
    assert "  - 0.5 ± 0.01" in text and "  - -0.25\n" in text
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
    found = [Finding(c, Verdict.HOLDS, "measured", "check") for c in list(CLAIMS)[:3]]
    text = verdict_table(found, "tbl-v", "Verdicts.")
    assert not any(c in text for c in CLAIMS) and text.count("{bdg-success}") == 3


def test_a_wide_table_is_transposed_or_split_into_balanced_parts() -> None:
    wide = pd.DataFrame(
        {f"validationaccuracyheader{i}": [1.5, 2.5] for i in range(7)},
        index=pd.Index(["first", "second"], name="method"),
    )
    transposed = numbered_table(wide, "tbl-w", "W.")
    assert "* - method\n  - first\n  - second" in transposed and "part" not in transposed
    split = numbered_table(wide, "tbl-w", "W.", transpose=False)
    parts = split.split("```{list-table}")[1:]
    assert len(parts) >= 2 and all("(part" in part for part in parts)
    sizes = [
        part.count("* - method") and part.split("* - first")[0].count("  - ") for part in parts
    ]
    assert max(sizes) - min(sizes) <= 1, sizes  # no stub part of one column


def test_large_numbers_print_in_full_not_in_scientific_notation() -> None:
    frame = pd.DataFrame({"w": [0.5, 12345.6]}, index=pd.Index([1000.0, 30.0], name="factor"))
    text = numbered_table(frame, "tbl-l", "L.", 3)
    assert "1,000" in text and "12,346" in text and "e+" not in text
