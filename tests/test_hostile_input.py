"""Hostile but fair input: every bad value is a one-line error with exit status 2, fast.

Hypothesis draws values for every declared parameter of every chapter; the command either
accepts a value that validates, or refuses it with one line on stderr and exit status 2. No
kernel starts: the run itself is replaced by a stub that records what it was given.
"""

from __future__ import annotations

import os
import time

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from attncore.book import cli
from attncore.book.build import toc_chapters
from attncore.book.runner import chapter_parameters, find_chapter

CHAPTERS = toc_chapters()
DECLARED = {chapter: chapter_parameters(find_chapter(chapter)) for chapter in CHAPTERS}

hostile_text = st.one_of(
    st.integers(min_value=-(10**500), max_value=10**500).map(str),
    st.floats(allow_nan=True, allow_infinity=True).map(repr),
    st.text(max_size=40),
    st.sampled_from(
        ["", "-", "--", "-1e-3", "010", "1:04", "yes", "~", "null", "[", "[1, [2]]", "{a: 1}",
         "[&a [1, 2], *a]", "!!python/object:os.system ls", "1e999", "-inf", ".nan", "0x10",
         "[" * 200 + "]" * 200, "a" * 20000, "!!int 0x10", "!!timestamp x", "!!float x",
         "[1, !!int 0x10]", "!foo 1", "!!binary x", "9" * 4500, "-" + "9" * 25]
    ),
)  # fmt: skip


@pytest.fixture
def recorded(monkeypatch):
    calls = []

    def fake_run(chapter, values, output, **kwargs):
        calls.append(values)
        raise KeyboardInterrupt  # stop right there: nothing is executed

    monkeypatch.setattr(cli, "run_chapter", fake_run)
    return calls


@settings(
    max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(chapter=st.sampled_from(CHAPTERS), data=st.data(), text=hostile_text)
def test_any_value_is_accepted_valid_or_refused_in_one_line(
    chapter, data, text, recorded, capsys, tmp_path
):
    name = data.draw(st.sampled_from([*DECLARED[chapter], "no_such_name"]))
    start = time.perf_counter()
    status = cli.main(["run", chapter, "-p", name, text, "-o", str(tmp_path / "out")])
    seconds = time.perf_counter() - start
    err = capsys.readouterr().err
    # a bound on hanging, not a speed check (a loaded machine stretches the first import)
    assert seconds < 20.0, f"{name}={text[:40]!r} took {seconds:.2f} s"
    assert err.count("\n") == 1 and len(err) < 400, err[:400]
    assert "Traceback" not in err
    if status == 2:
        assert err.startswith("attncore: error: ")
    else:  # accepted: the stub was reached with a validated value
        assert status == 130 and recorded and name in recorded[-1]
        assert recorded[-1][name] == DECLARED[chapter][name].validate(recorded[-1][name])
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"\xff\xfe\x00binary", "must be readable UTF-8 text"),
        (b"1: 2\n", "must hold a mapping NAME: VALUE"),
        (b"- 1\n", "must hold a mapping NAME: VALUE"),
        (b"a: &x [1]\nb: *x\n", "YAML aliases"),
        (b"steps: !!int 0x10\n", "YAML tags (!!int) are not allowed"),
        (b"seed: !!timestamp x\n", "YAML tags (!!timestamp) are not allowed"),
        (b"n_rows: [!!float x]\n", "YAML tags (!!float) are not allowed"),
        (b"seed: " + b"9" * 4500 + b"\n", "outside the 64-bit range"),
        (b"seed: -9223372036854775809\n", "outside the 64-bit range"),
        (b"seed: 1\nseed: 2\n", "parameter 'seed' is given twice"),
    ],
)
def test_a_bad_parameter_file_is_one_line(tmp_path, capsys, content, message):
    params = tmp_path / "p.yaml"
    params.write_bytes(content)
    status = cli.main(["run", "softmax_saturation", "-f", str(params), "-o", str(tmp_path / "o")])
    err = capsys.readouterr().err
    assert status == 2 and err.count("\n") == 1 and message in err


def test_an_output_that_is_a_file_or_unwritable_is_refused(tmp_path, capsys):
    afile = tmp_path / "file"
    afile.write_text("x")
    assert cli.main(["run", "softmax_saturation", "-o", str(afile)]) == 2
    assert "exists and is not a folder" in capsys.readouterr().err
    assert cli.main(["run", "softmax_saturation", "-o", str(afile / "below")]) == 2
    assert "cannot be written" in capsys.readouterr().err


def test_numbers_read_as_yaml_1_2_and_dash_values_reach_the_parameter(recorded, tmp_path):
    out = str(tmp_path / "o")
    assert cli.main(["run", "softmax_saturation", "-p", "seed", "010", "-o", out]) == 130
    assert recorded[-1]["seed"] == 10
    assert cli.main(["run", "softmax_saturation", "-p", "y", "[-1e-3, 2]", "-o", out]) == 130
    assert cli.main(["run", "every_rescaling", "-p", "seed", "1", "-p", "n_seeds", "-1"]) == 2
    assert cli.main(["run", "softmax_saturation", "-p", "y", "-1e-3", "-o", out]) == 2


def test_params_of_an_empty_name_is_one_line(capsys):
    assert cli.main(["params", ""]) == 2
    assert capsys.readouterr().err.count("\n") == 1


def test_a_parameter_file_that_is_not_a_regular_file_is_named_as_such(tmp_path, capsys):
    fifo = tmp_path / "params.fifo"
    os.mkfifo(fifo)  # opening it to read would block until a writer came
    start = time.perf_counter()
    status = cli.main(["run", "softmax_saturation", "-f", str(fifo), "-o", str(tmp_path / "o")])
    err = capsys.readouterr().err
    assert status == 2 and "must be a regular file" in err and err.count("\n") == 1
    assert time.perf_counter() - start < 20.0
    assert cli.main(["run", "softmax_saturation", "-f", str(tmp_path), "-o", str(tmp_path)]) == 2
    assert "must be a regular file" in capsys.readouterr().err
    assert cli.main(["run", "softmax_saturation", "-f", str(tmp_path / "none.yaml")]) == 2
    assert "does not exist" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["critical_scale", "-p", "rho_values", "[0.5, 0.5]"], "(0.5 twice)"),
        (["critical_scale", "-p", "n_values", "[64, 64.0]"], "(64 twice)"),
        (["length_generalization", "-p", "test_lengths", "[10, 30, 10]"], "(10 twice)"),
        (["stability", "-p", "batch_size", "1024", "-p", "n_train", "64"], "at most n_train"),
        (["string_reversal", "-p", "batch_size", "512", "-p", "n_train", "64"], "at most n_train"),
        (["softmax_saturation", "-p", "factor", "5e-324"], "parameter factor must be"),
        (["softmax_saturation", "-p", "factor", "1e-300"], "parameter factor must be"),
    ],
)
def test_relations_a_kernel_would_reject_are_refused_before_it_starts(
    argv, message, recorded, capsys, tmp_path
):
    status = cli.main(["run", *argv, "-o", str(tmp_path / "o")])
    err = capsys.readouterr().err
    assert status == 2 and not recorded, err
    assert message in err and err.count("\n") == 1


def test_a_name_given_twice_with_p_is_refused(recorded, capsys, tmp_path):
    argv = ["run", "softmax_saturation", "-p", "seed", "1", "-p", "seed", "2"]
    assert cli.main([*argv, "-o", str(tmp_path / "o")]) == 2 and not recorded
    assert "parameter seed is given twice with -p" in capsys.readouterr().err
