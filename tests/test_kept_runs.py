"""Kept sweeps: written with their provenance, read as untrusted data, marked stale when their
code or recipe changes, and re-executed runs compared with the kept numbers."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pandas as pd
import pytest

pytest.importorskip("torch")

from attncore.book import kept_runs
from attncore.book.kept_runs import (
    STABILITY_WIDTHS,
    choose_runs,
    keep_sweep,
    read_kept,
    read_recipe,
    reproduce,
    sweep_by_width,
    sweep_code,
)
from attncore.checks import ParameterError

RECIPE = """lr_min: 0.01
lr_max: 1.0
n_rates: 3
n_seeds: 2
steps: 30
widths: [8, 16]
n_layers: 2
head_dim: 8
batch_size: 16
warmup: 0.05
vocab: 6
length: 5
n_train: 200
n_val: 32
cap: 50.0
records: 3
seed: 0
"""


@pytest.fixture(scope="module")
def kept_folder(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("kept") / "tiny"
    folder.mkdir()
    (folder / "recipe.yaml").write_text(RECIPE)
    return keep_sweep(folder, device="cpu", commit="0" * 40, engine="eager")


@pytest.fixture
def copy(kept_folder, tmp_path) -> Path:
    return Path(shutil.copytree(kept_folder, tmp_path / "tiny"))


def test_a_kept_sweep_reads_back_with_its_provenance(kept_folder):
    kept = read_kept(kept_folder)
    assert not kept.stale and kept.why == ""
    assert len(kept.runs) == 2 * 8 * 3 * 2 and set(kept.runs["width"]) == {8, 16}
    assert kept.device == "cpu" and kept.commit == "0" * 40 and kept.seconds > 0
    manifest = json.loads((kept_folder / "manifest.json").read_text())
    assert manifest["parameters"]["steps"] == 30 and set(manifest["tables"]) == {
        "runs.csv",
        "curves.csv",
    }


def test_a_number_changed_by_hand_is_refused(copy):
    table = copy / "runs.csv"
    lines = table.read_text().splitlines()
    lines[1] = lines[1].replace(lines[1].split(",")[5], "0.123", 1)
    table.write_text("\n".join(lines) + "\n")
    with pytest.raises(ParameterError, match=r"runs\.csv is not the table its manifest recorded"):
        read_kept(copy)


def test_a_hand_change_that_also_forges_the_digest_fails_re_execution(copy):
    kept = read_kept(copy)
    picks = choose_runs(kept, seed=3)
    forged = kept.runs.copy()
    target = forged.index[
        (forged["method"] == picks["method"][0])
        & (forged["seed"] == picks["seed"][0])
        & (forged["lr"] == picks["lr"][0])
        & (forged["width"] == picks["width"][0])
    ]
    forged.loc[target, "final_loss"] += 0.05
    data = forged.to_csv(index=False, float_format="%.9g").encode()
    (copy / "runs.csv").write_bytes(data)
    manifest = json.loads((copy / "manifest.json").read_text())
    manifest["tables"]["runs.csv"] = kept_runs._sha256(data)
    (copy / "manifest.json").write_text(json.dumps(manifest))
    changed = read_kept(copy)
    checked = reproduce(changed, choose_runs(changed, seed=3))
    assert checked["agrees"].tolist() == [False, True]
    assert checked["difference"].iloc[0] == pytest.approx(-0.05, abs=1e-6)


def test_re_executed_runs_reproduce_the_kept_losses(kept_folder):
    kept = read_kept(kept_folder)
    picks = choose_runs(kept, seed=1)
    assert len(picks) == 2 and picks["method"].nunique() == 2
    assert (picks["width"] == 8).all()  # the narrowest
    checked = reproduce(kept, picks)
    assert checked["agrees"].all(), checked
    assert (checked["tolerance"] >= kept_runs.TOLERANCE_FLOOR).all()
    assert choose_runs(kept, seed=1).equals(picks)  # the seed decides the draw


def test_a_changed_recipe_or_code_marks_the_sweep_stale(copy, monkeypatch):
    recipe = copy / "recipe.yaml"
    recipe.write_text(recipe.read_text().replace("steps: 30", "steps: 31"))
    assert read_kept(copy).why == "recipe.yaml no longer says what the manifest ran"
    recipe.write_text(RECIPE)
    monkeypatch.setattr(kept_runs, "code_fingerprint", lambda: "other")
    kept = read_kept(copy)
    assert kept.stale and kept.why == "the code it ran has changed since"


@pytest.mark.parametrize(
    ("damage", "message"),
    [
        (lambda f: (f / "manifest.json").unlink(), "manifest.json cannot be read"),
        (lambda f: (f / "manifest.json").write_text("[1, 2]"), "is not a kept sweep's manifest"),
        (lambda f: (f / "recipe.yaml").write_text("steps: 3\n"), "recipe.yaml must name exactly"),
        (
            lambda f: (f / "recipe.yaml").write_text(RECIPE.replace("[8, 16]", "[12]")),
            "widths must be a multiple of head_dim",
        ),
        (
            lambda f: ((f / "curves.csv").unlink(), (f / "curves.csv").symlink_to("/etc/passwd")),
            "curves.csv is a symbolic link",
        ),
    ],
)
def test_damaged_folders_are_refused_in_one_line(copy, damage, message):
    damage(copy)
    with pytest.raises(ParameterError, match=message) as caught:
        read_kept(copy)
    assert "\n" not in str(caught.value)


def test_widths_trained_apart_give_the_numbers_of_one_sweep(kept_folder):
    from attncore.training.stability import chapter_sweep

    recipe = read_recipe(kept_folder)
    apart = sweep_by_width(recipe, device="cpu", engine="eager")
    together = chapter_sweep(recipe, engine="eager", scheduler="synchronous")
    for mine, theirs in zip(apart, together, strict=True):
        pd.testing.assert_frame_equal(mine, theirs)


def test_the_command_refuses_no_processes(kept_folder, capsys):
    assert kept_runs.main([str(kept_folder), "--commit", "abc", "--processes", "0"]) == 2
    assert capsys.readouterr().err.strip() == "--processes must be an integer >= 1, got 0"


def test_the_command_refuses_a_folder_without_a_recipe(tmp_path, capsys):
    assert kept_runs.main([str(tmp_path), "--commit", "abc"]) == 2
    assert "recipe.yaml cannot be read" in capsys.readouterr().err


def test_the_fingerprint_covers_the_code_the_sweep_computes_with():
    names = {p.relative_to(p.parents[1]).as_posix() for p in sweep_code()}
    assert {"training/stability.py", "training/engine.py", "training/optimizers.py",
            "training/model.py", "training/train.py"} <= names  # fmt: skip
    assert not any(name.startswith("book/") for name in names)


def test_the_books_kept_sweep_is_whole():
    kept = read_kept(STABILITY_WIDTHS)
    p = kept.parameters
    assert len(kept.runs) == len(p["widths"]) * 8 * p["n_rates"] * p["n_seeds"]
    assert kept.device == "cuda"
