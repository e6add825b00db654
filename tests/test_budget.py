"""Runs are estimated before they start: too much memory is refused, too much time needs --yes,
and --timeout stops a run with nothing published."""

import math
import time

import pytest
import yaml

from attncore.book.budget import TIME_BUDGET, check_budget, estimate
from attncore.book.build import toc_chapters
from attncore.book.cli import main
from attncore.book.paths import ROOT
from attncore.checks import ParameterError

PROFILES = yaml.safe_load((ROOT / "notebooks" / "profiles.yaml").read_text())


@pytest.mark.parametrize("chapter", toc_chapters())
def test_every_chapter_of_the_book_fits_its_budget_in_both_profiles(chapter):
    smoke, full = (estimate(chapter, PROFILES[chapter][p] or {}) for p in ("smoke", "full"))
    assert 0 < smoke.seconds <= full.seconds < TIME_BUDGET
    assert 0 < smoke.bytes <= full.bytes < 8 * 2**30


@pytest.mark.parametrize(
    ("chapter", "bigger"),
    [
        ("softmax_saturation", {"n_rows": 40000}),
        ("why_sqrt_d", {"n_pairs": 1_000_000}),
        ("derivations", {"n_pairs": 1_000_000}),
        ("bernhard_figures", {"n_seeds": 2000}),
        ("every_rescaling", {"n_seeds": 30}),
        ("k_total_alternatives", {"n_seeds": 30}),
        ("beyond_initialization", {"n_align_queries": 400_000}),
        ("string_reversal", {"long_steps": 30000}),
        ("critical_scale", {"n_draws": 40}),
        ("stability", {"steps": 4000}),
    ],
)
def test_more_work_is_estimated_to_take_longer(chapter, bigger):
    assert estimate(chapter, bigger).seconds > 2 * estimate(chapter, {}).seconds - 20


def test_too_much_memory_is_refused_even_with_yes():
    huge = {"n_rows": 1_000_000, "n_keys": 65536}
    with pytest.raises(ParameterError, match=r"estimated to need .* TiB of memory"):
        check_budget("softmax_saturation", huge, confirmed=True)


def test_too_much_time_needs_confirmation():
    long = {"n_train": 1_000_000, "long_steps": 100_000, "n_seeds": 20}
    with pytest.raises(ParameterError, match="pass --yes to run it anyway"):
        check_budget("string_reversal", long, memory=2.0**50)
    assert check_budget("string_reversal", long, confirmed=True, memory=2.0**50).seconds > 3600


@pytest.mark.parametrize(
    "argv",
    [
        ["softmax_saturation", "-p", "n_rows", "1000000", "-p", "n_keys", "65536"],
        ["string_reversal", "-p", "n_seeds", "20", "-p", "long_steps", "100000"],
    ],
)
def test_the_command_refuses_before_a_kernel_starts(tmp_path, capsys, argv):
    start = time.perf_counter()
    assert main(["run", *argv, "-o", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("attncore: error: ") and err.count("\n") == 1
    assert time.perf_counter() - start < 5 and not (tmp_path / "out").exists()


def test_a_bad_timeout_is_a_one_line_error(tmp_path, capsys):
    assert main(["run", "softmax_saturation", "--timeout", "-3", "-o", str(tmp_path)]) == 2
    assert "--timeout must be a number of seconds in (0, 1e7], got -3.0" in capsys.readouterr().err


@pytest.mark.notebooks
def test_timeout_stops_the_run_and_publishes_nothing(tmp_path, capsys):
    out = tmp_path / "out"
    argv = ["run", "softmax_saturation", "--timeout", "2", "--no-cache", "-o", str(out)]
    start = time.perf_counter()
    assert main(argv) == 124
    printed, err = capsys.readouterr()
    assert printed.startswith("estimated about")
    assert err.endswith("\nattncore: failed: the run passed --timeout 2 s; nothing was published\n")
    assert time.perf_counter() - start < 30
    assert not out.exists()


def test_the_smallest_search_tolerance_has_a_finite_estimate():
    # 1 / 5e-324 overflows to infinity; the estimate's log of the tolerance does not
    assert math.isfinite(estimate("string_reversal", {"search_tolerance": 5e-324}).seconds)
