"""The replication's counts: their shape, their summary, and the numbers other text quotes."""

import re

import pytest

from attncore.claims.thresholds import thresholds_of
from attncore.sources.replication import STRINGS_PER_TEST, replication_summary

SOLVED = thresholds_of("length_generalization").SOLVED


def test_every_cell_has_twenty_runs_of_counts_out_of_a_hundred():
    summary = replication_summary()
    assert set(summary["runs"]) == {20}
    assert summary["accuracy"].between(0, 1).all()
    assert (summary["solved"] <= summary["runs"]).all()
    assert STRINGS_PER_TEST == 100


def test_wilson_interval_brackets_the_share_of_runs_solved():
    summary = replication_summary()
    share = summary["solved"] / summary["runs"]
    assert (summary["solved_low"] <= share).all() and (share <= summary["solved_high"]).all()
    # 20 of 20 still leaves room below one: the Wilson interval, not a zero-width one
    assert summary.loc[("log_n", 30), "solved_low"] == pytest.approx(0.839, abs=1e-3)


def test_the_solved_threshold_quotes_the_replication_as_its_files_record_it():
    summary = replication_summary()
    quoted = [float(x) for x in re.findall(r"0\.\d\d", SOLVED.reason)]
    standard = [round(v, 2) for v in summary.loc["standard", "accuracy"].iloc[:3]]
    assert quoted[1:] == [round(summary.loc[("log_n", 10), "accuracy"], 2), *standard]


def test_the_authors_budget_is_read_from_the_same_files():
    """At epoch 100 the replication's files give 0.534 and 0.974 at a training length of 10,
    20 runs each, losses beside every count."""
    from attncore.sources.replication import replication_at_100_epochs, runs_at_100_epochs

    table = replication_at_100_epochs()
    assert set(table["runs"]) == {20}
    assert round(table.loc[("standard", 10), "accuracy"], 3) == 0.534
    assert round(table.loc[("log_n", 10), "accuracy"], 3) == 0.974
    runs = runs_at_100_epochs()
    assert all(len(r) == 20 and all(0 <= a <= 1 for a in r) for r in runs.values())
    low, high = table["accuracy_low"], table["accuracy_high"]
    assert ((low <= table["accuracy"]) & (table["accuracy"] <= high)).all()
