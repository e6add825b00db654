"""The attncore command: bad parameters stop before a kernel starts; good ones rerun a chapter."""

import json

import jupytext
import nbformat
import pytest

from attncore.book.cli import main


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["-p", "n_keys", "1"], "parameter n_keys must be an integer in [2, 65536], got 1"),
        (["-p", "nkeys", "8"], "unknown parameter nkeys; known parameters: y, factor, n_keys"),
        (["-p", "factor", "abc"], "parameter factor must be a number in [0.001, 1000], got 'abc'"),
        (["-p", "seed", "-1"], "parameter seed must be an integer in [0, 4294967295], got -1"),
    ],
)
def test_bad_parameter_exits_2_with_one_line_and_writes_nothing(tmp_path, capsys, argv, message):
    out = tmp_path / "out"
    status = main(["run", "softmax_saturation", *argv, "-o", str(out)])
    err = capsys.readouterr().err
    assert status == 2
    assert err.count("\n") == 1 and message in err
    assert not out.exists()


def test_bad_parameter_file_exits_2(tmp_path, capsys):
    params = tmp_path / "p.yaml"
    params.write_text("threshold: 1.5\n")
    assert main(["run", "softmax_saturation", "-f", str(params), "-o", str(tmp_path / "o")]) == 2
    assert "parameter threshold must be a number in (0, 1), got 1.5" in capsys.readouterr().err


def test_unknown_notebook_exits_2(capsys):
    assert main(["params", "no_such_chapter"]) == 2
    err = capsys.readouterr().err
    assert "chapter no_such_chapter not found; known chapters:" in err
    assert "softmax_saturation" in err


def test_params_lists_type_default_and_comment(capsys):
    assert main(["params", "softmax_saturation"]) == 0
    out = capsys.readouterr().out
    assert "n_keys" in out and "int" in out and "default 64" in out and "in [2, 65536]" in out


@pytest.mark.notebooks
def test_run_reruns_the_chapter_with_new_parameters(tmp_path):
    params = tmp_path / "p.yaml"
    params.write_text("n_spreads: 5\n")
    out = tmp_path / "rerun"
    argv = ["run", "softmax_saturation", "-f", str(params), "-p", "n_rows", "50", "-o", str(out)]
    assert main(argv) == 0
    nb = nbformat.read(out / "softmax_saturation" / "softmax_saturation.ipynb", as_version=4)
    injected = next(c for c in nb.cells if "injected-parameters" in c.metadata.get("tags", []))
    assert "n_rows = 50" in injected.source and "n_spreads = 5" in injected.source
    assert "remove-cell" in injected.metadata["tags"]
    reproduce = nb.cells[-1]
    assert "## Reproduce" in reproduce.source and "-p n_rows 50" in reproduce.source
    assert (out / "softmax_saturation" / "figures" / "saturation_curves.png").is_file()
    manifest = json.loads((out / "softmax_saturation" / "manifest.json").read_text())
    assert manifest["parameters"]["n_rows"] == 50 and manifest["parameters"]["n_spreads"] == 5
    shown = ["figures/worked_example.png", "figures/saturation_curves.png"]
    assert [f["file"] for f in manifest["figures"]] == shown
    assert [e["file"] for e in manifest["explorables"]] == [
        "explorables/worked_example_explore.json"
    ]
    assert all(f["width_px"] > 0 and f["min_text_px"] > 0 for f in manifest["figures"])
    assert {r["claim"] for r in manifest["verdicts"]} >= {"blog-softmax-example"}
    outputs = json.dumps([c.get("outputs", []) for c in nb.cells])
    assert '"output_type": "error"' not in outputs


def test_malformed_parameter_file_is_a_one_line_error(tmp_path, capsys):
    params = tmp_path / "p.yaml"
    params.write_text("n_rows: [1\n")
    assert main(["run", "softmax_saturation", "-f", str(params), "-o", str(tmp_path / "o")]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"attncore: error: parameter file {params}: not valid YAML")
    assert err.count("\n") == 1


def test_relation_between_parameters_exits_2_before_running(tmp_path, capsys):
    argv = ["run", "softmax_saturation", "-p", "spread_min", "50", "-p", "spread_max", "10"]
    assert main([*argv, "-o", str(tmp_path / "o")]) == 2
    assert "spread_min must be below spread_max (10.0), got 50.0" in capsys.readouterr().err
    assert not (tmp_path / "o").exists()


@pytest.mark.notebooks
def test_a_failing_first_run_leaves_no_output_folder(tmp_path, capsys):
    parameters = nbformat.v4.new_code_cell("seed: int = 1  # seed, in [0, 10]")
    parameters.metadata["tags"] = ["parameters"]
    failing = nbformat.v4.new_code_cell("1 / 0")
    kernel = {"name": "python3", "display_name": "Python 3", "language": "python"}
    notebook = tmp_path / "broken.md"
    jupytext.write(
        nbformat.v4.new_notebook(cells=[parameters, failing], metadata={"kernelspec": kernel}),
        notebook,
        fmt="md:myst",
    )
    assert main(["run", str(notebook), "-o", str(tmp_path / "out")]) == 1
    assert "broken: cell 1 ('1 / 0') raised ZeroDivisionError" in capsys.readouterr().err
    assert not (tmp_path / "out").exists()
