"""The execution cache: a chapter runs again exactly when its source, parameters or code change."""

from __future__ import annotations

import shutil

import pytest
from conftest import write_chapter

from attncore.book import cache as cache_module
from attncore.book.cache import RunCache, code_fingerprint, run_key
from attncore.book.runner import run_chapter

pytestmark = pytest.mark.notebooks


def test_a_run_is_reused_until_its_source_or_parameters_change(tmp_path):
    chapter = write_chapter(tmp_path / "toy.md")
    cache = RunCache(tmp_path / "cache")
    out = tmp_path / "out"
    first = run_chapter(chapter, {}, out, cache=cache)
    executed = (out / "toy" / "toy.ipynb").read_bytes()
    again = run_chapter(chapter, {}, out, cache=cache)
    assert not first.cached and again.cached
    assert (out / "toy" / "toy.ipynb").read_bytes() == executed  # the same page, byte for byte
    assert not run_chapter(chapter, {"n": 2}, out, cache=cache).cached  # a parameter changed
    write_chapter(chapter, prose="Other words.")
    assert not run_chapter(chapter, {}, out, cache=cache).cached  # the prose changed
    assert run_chapter(chapter, {}, out, cache=cache).cached
    assert not run_chapter(chapter, {}, out, cache=cache, reuse=False).cached  # forced


def test_a_library_change_changes_every_chapters_key(tmp_path, monkeypatch):
    chapter = write_chapter(tmp_path / "toy.md")
    package = tmp_path / "attncore"
    shutil.copytree(cache_module._PACKAGE, package, ignore=shutil.ignore_patterns("__pycache__"))
    monkeypatch.setattr(cache_module, "_PACKAGE", package)
    before = code_fingerprint(chapter), run_key(chapter, {"n": 1})
    softmax = package / "softmax.py"
    softmax.write_text(softmax.read_text() + "\n# an edit\n")
    assert code_fingerprint(chapter) != before[0] and run_key(chapter, {"n": 1}) != before[1]
    # a reworded verdict sentence is a change too: the runs record the rendered sentences
    edited = code_fingerprint(chapter)
    templates = package / "claims" / "catalogue" / "vaswani.yaml"
    templates.write_text(templates.read_text() + "# an edit\n")
    assert code_fingerprint(chapter) != edited


def test_scratch_left_by_a_killed_run_is_removed_by_the_next(tmp_path):
    chapter = write_chapter(tmp_path / "toy.md")
    out = tmp_path / "out"
    orphan = out / ".attncore-run-999999999-toy-abc"  # no such process
    orphan.mkdir(parents=True)
    run_chapter(chapter, {}, out, cache=RunCache(tmp_path / "cache"))
    assert sorted(p.name for p in out.iterdir()) == ["toy"]
