"""A cache entry is valid or it does not exist.

Entries are checked file by file against their record as they are restored; a damaged one is
reported in one line (the chapter and the entry), removed and executed again, and the next
run is served from the repaired entry. ``--no-cache`` replaces an entry; a cache that cannot
be written costs a warning, never the finished run.
"""

from __future__ import annotations

import errno
import json
import os
import shutil
from pathlib import Path

import pytest
from conftest import REPO, write_chapter

from attncore.book import cache as cache_module
from attncore.book.cache import DamagedEntry, RunCache
from attncore.book.runner import run_chapter, shown

pytestmark = pytest.mark.notebooks


def make_run(folder: Path) -> Path:
    (folder / "figures").mkdir(parents=True)
    (folder / "toy.ipynb").write_text('{"cells": []}' + " " * 1000)
    (folder / "manifest.json").write_text(json.dumps({"chapter": "toy", "pad": "x" * 300}))
    (folder / "figures" / "a.png").write_bytes(b"\x89PNG" + bytes(200))
    return folder


def cut(path: Path, size: int) -> None:
    path.write_bytes(path.read_bytes()[:size])


DAMAGE = {
    "a truncated notebook": lambda run, entry: cut(run / "toy.ipynb", 100),
    "a deleted figure": lambda run, entry: (run / "figures" / "a.png").unlink(),
    "a manifest cut to 100 bytes": lambda run, entry: cut(run / "manifest.json", 100),
    "a deleted manifest": lambda run, entry: (run / "manifest.json").unlink(),
    "a changed byte": lambda run, entry: (run / "figures" / "a.png").write_bytes(
        b"\x89PNG" + bytes(199) + b"x"
    ),
    "an added file": lambda run, entry: (run / "extra.html").write_text("<script>"),
    "a symbolic link": lambda run, entry: (
        (run / "toy.ipynb").unlink(),
        (run / "toy.ipynb").symlink_to("/etc/passwd"),
    ),
    "a FIFO": lambda run, entry: ((run / "toy.ipynb").unlink(), os.mkfifo(run / "toy.ipynb")),
    "no record": lambda run, entry: (entry / "files.json").unlink(),
    "a record cut short": lambda run, entry: cut(entry / "files.json", 30),
    "a record of other things": lambda run, entry: (entry / "files.json").write_text("[1, 2]"),
    "an entry that is a file": lambda run, entry: (
        shutil.rmtree(entry),
        entry.write_text("x"),
    ),
}


@pytest.mark.parametrize("damage", DAMAGE.values(), ids=DAMAGE.keys())
def test_a_damaged_entry_is_removed_not_served(tmp_path, damage):
    cache = RunCache(tmp_path / "cache")
    cache.put("k", make_run(tmp_path / "run"))
    entry = cache.entry("k")
    damage(entry / "run", entry)
    with pytest.raises(DamagedEntry, match=rf"cache entry {entry} was damaged \(.+\)"):
        cache.restore("k", tmp_path / "copy")
    assert not os.path.lexists(entry) and not (tmp_path / "copy").exists()
    assert cache.restore("k", tmp_path / "copy") is False  # gone: the chapter runs again
    assert sorted(p.name for p in cache.folder.iterdir()) == []


def test_an_intact_entry_is_restored_byte_for_byte(tmp_path):
    cache = RunCache(tmp_path / "cache")
    run = make_run(tmp_path / "run")
    cache.put("k", run)
    assert cache.restore("k", tmp_path / "copy")

    def files(folder: Path) -> dict[Path, bytes]:
        return {p.relative_to(folder): p.read_bytes() for p in folder.rglob("*") if p.is_file()}

    assert files(tmp_path / "copy") == files(run)


def warnings_of(err: str) -> list[str]:
    return [line for line in err.splitlines() if line.startswith("attncore: warning:")]


def test_a_damaged_entry_is_reported_executed_again_and_repaired(tmp_path, capsys):
    chapter = write_chapter(tmp_path / "toy.md")
    cache = RunCache(tmp_path / "cache")
    out = tmp_path / "out"
    first = run_chapter(chapter, {}, out, cache=cache)
    (entry,) = [p for p in cache.folder.iterdir()]
    cut(entry / "run" / "toy.ipynb", 1000)
    capsys.readouterr()
    again = run_chapter(chapter, {}, out, cache=cache)
    (line,) = warnings_of(capsys.readouterr().err)
    assert f"toy: cache entry {entry} was damaged (toy.ipynb differs from its" in line
    assert line.endswith("removed it, executing the chapter again")
    assert not again.cached and (out / "toy" / "toy.ipynb").stat().st_size > 1000
    third = run_chapter(chapter, {}, out, cache=cache)  # served from the repaired entry
    assert third.cached and not warnings_of(capsys.readouterr().err)
    assert first.parameters == third.parameters


def test_no_cache_replaces_the_entry(tmp_path, capsys):
    chapter = write_chapter(tmp_path / "toy.md")
    cache = RunCache(tmp_path / "cache")
    out = tmp_path / "out"
    run_chapter(chapter, {}, out, cache=cache)
    (entry,) = [p for p in cache.folder.iterdir()]
    (entry / "run" / "manifest.json").unlink()
    assert not run_chapter(chapter, {}, out, cache=cache, reuse=False).cached
    assert run_chapter(chapter, {}, out, cache=cache).cached  # the replaced entry, intact
    assert not warnings_of(capsys.readouterr().err)


def fails_halfway(error: int):
    """``shutil.copytree`` that writes part of the entry, then fails with ``error``."""
    copy = shutil.copytree

    def copytree(source, target, *args, **kwargs):
        if args:  # copytree's own call for a subfolder
            return copy(source, target, *args, **kwargs)
        copy(source, target, ignore=lambda folder, names: names[1:], **kwargs)
        raise OSError(error, os.strerror(error))

    return copytree


def test_a_cache_that_cannot_be_written_costs_a_warning_not_the_run(tmp_path, capsys, monkeypatch):
    chapter = write_chapter(tmp_path / "toy.md")
    cache = RunCache(tmp_path / "cache")
    monkeypatch.setattr(cache_module.shutil, "copytree", fails_halfway(errno.ENOSPC))
    result = run_chapter(chapter, {}, tmp_path / "out", cache=cache)
    (line,) = warnings_of(capsys.readouterr().err)
    where = shown(cache.folder)  # a long temporary path is shortened in the message
    assert f"toy: the run could not be stored in the cache {where} (No space" in line
    assert line.endswith("publishing it uncached")
    assert result.notebook.is_file() and not result.cached
    assert list(cache.folder.iterdir()) == []  # no half-written entry, no scratch


@pytest.mark.parametrize("error", [errno.ENOSPC, errno.EROFS, errno.EACCES])
def test_a_failed_store_leaves_nothing_and_says_why(tmp_path, monkeypatch, error):
    cache = RunCache(tmp_path / "cache")
    monkeypatch.setattr(cache_module.shutil, "copytree", fails_halfway(error))
    with pytest.raises(OSError, match=os.strerror(error)):
        cache.put("k", make_run(tmp_path / "run"))
    assert list(cache.folder.iterdir()) == []


def test_scratch_of_a_dead_writer_is_removed(tmp_path):
    cache = RunCache(tmp_path / "cache")
    (cache.folder / ".attncore-cache-999999999-abc-x" / "entry").mkdir(parents=True)
    cache.put("k", make_run(tmp_path / "run"))
    assert [p.name for p in cache.folder.iterdir()] == ["k"]


def test_the_environment_fingerprint_does_not_depend_on_sys_path(monkeypatch):
    """With the checkout on sys.path, attncore.egg-info was listed a second time."""
    fingerprint = cache_module.environment_fingerprint.__wrapped__  # not the cached value
    plain = fingerprint()
    monkeypatch.syspath_prepend(str(REPO))
    assert len(plain) == 64 and fingerprint() == plain


TRAINING_DAMAGE = {
    "cut short": lambda path: cut(path, 50),
    "edited": lambda path: path.write_text(path.read_text().replace('"seed', '"SEED', 1)),
    "not JSON": lambda path: path.write_bytes(b"\xff\x00"),
    "a FIFO": lambda path: (path.unlink(), os.mkfifo(path)),
    "a folder": lambda path: (path.unlink(), path.mkdir()),
    "a link": lambda path: (path.unlink(), path.symlink_to("/etc/passwd")),
}


@pytest.fixture(scope="module")
def tiny():
    pytest.importorskip("torch")
    from attncore.training import ModelConfig, reversal_data
    from attncore.training.ensemble import RunSpec

    data = reversal_data(3, n_train=64, n_val=16, n_test=16, length=4, vocab=6)
    specs = [
        RunSpec(ModelConfig(vocab=6, length=4, d_model=8), seed=s, steps=4, batch_size=8)
        for s in (0, 1)
    ]
    return data, specs


@pytest.mark.parametrize("damage", TRAINING_DAMAGE.values(), ids=TRAINING_DAMAGE.keys())
def test_a_damaged_training_entry_names_its_file_and_is_trained_again(
    tiny, tmp_path, capsys, damage
):
    from attncore.training.ensemble import TRAINED, train_runs

    data, specs = tiny
    first = train_runs(specs, data, cache=tmp_path)
    (entry, _) = sorted(tmp_path.glob("*.json"), key=lambda p: p.stat().st_mtime_ns)[:2]
    damage(entry)
    before = TRAINED["runs"]
    again = train_runs(specs, data, cache=tmp_path)
    (line,) = warnings_of(capsys.readouterr().err)
    assert f"training cache entry {entry} was damaged (" in line
    assert line.endswith("removed it, training the run again")
    assert TRAINED["runs"] - before == 1  # the damaged run only
    assert [r.losses for r in again] == [r.losses for r in first]
    before = TRAINED["runs"]
    assert train_runs(specs, data, cache=tmp_path) == again  # repaired: read back
    assert TRAINED["runs"] == before and not warnings_of(capsys.readouterr().err)


def test_a_training_cache_that_cannot_be_written_costs_a_warning(
    tiny, tmp_path, capsys, monkeypatch
):
    from attncore.training import ensemble

    def full_disk(handle, *args, **kwargs):
        os.close(handle)
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(ensemble.os, "fdopen", full_disk)
    data, specs = tiny
    results = ensemble.train_runs(specs, data, cache=tmp_path)
    lines = warnings_of(capsys.readouterr().err)
    assert len(lines) == 2 and all("No space left on device" in line for line in lines)
    assert len(results) == 2 and list(tmp_path.iterdir()) == []  # no scratch left
