"""The operating system's refusals: names too long, a full disk, publishers racing.

Each ends in one line (exit status 2 for an output the file system cannot hold, 1 for a run
that could not be written), with nothing half-written left and the earlier run as it was.
"""

from __future__ import annotations

import errno
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import write_chapter

from attncore.book import cli, runner
from attncore.book.cache import RunCache
from attncore.book.publish import publish
from attncore.scratch import remove_orphans, scratch_folder


def tree(folder: Path) -> dict[str, bytes]:
    """Every file below ``folder`` with its bytes, and every folder (as None)."""
    return {
        str(p.relative_to(folder)): p.read_bytes() if p.is_file() else None
        for p in sorted(folder.rglob("*"))
    }


def one_line(err: str) -> str:
    """The one line of ``err`` after papermill's progress bar (which a run prints first)."""
    lines = [line for line in err.split("\n") if line and "Executing:" not in line]
    assert err.endswith("\n") and len(lines) == 1 and len(lines[0]) < 400, err[-800:]
    assert "Traceback" not in err
    return lines[0]


@pytest.fixture
def toy(tmp_path, monkeypatch):
    """A toy chapter, run by the command with a cache of its own."""
    monkeypatch.setattr(cli, "RunCache", lambda: RunCache(tmp_path / "cache"))
    return write_chapter(tmp_path / "toy.md")


@pytest.mark.parametrize(
    ("output", "message"),
    [
        (Path("x" * 256), "has a name of 256 bytes; the file system allows 255"),
        (Path(*["d" * 200] * 21), "is a path of"),
        (Path(*["d" * 200] * 21, "x" * 300), "has a name of 300 bytes"),
    ],
)
def test_an_output_the_file_system_cannot_hold_is_one_line(tmp_path, capsys, output, message):
    status = cli.main(["run", "softmax_saturation", "-o", str(tmp_path / output)])
    err = capsys.readouterr().err
    one_line(err)
    assert status == 2 and message in err
    assert list(tmp_path.iterdir()) == []


def test_a_full_disk_after_the_run_is_one_line_and_keeps_the_earlier_run(
    toy, tmp_path, capsys, monkeypatch
):
    out = tmp_path / "out"
    (out / "toy").mkdir(parents=True)
    (out / "toy" / "toy.ipynb").write_text("the earlier run")
    earlier = tree(out)

    def full_disk(*args, **kwargs):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    capsys.readouterr()
    monkeypatch.setattr(runner.nbformat, "write", full_disk)
    assert cli.main(["run", str(toy), "-p", "n", "2", "-o", str(out)]) == 1
    err = capsys.readouterr().err
    one_line(err)
    assert "toy: the run could not be written to" in err and "No space left on device" in err
    assert tree(out) == earlier  # no scratch folder, the earlier run whole


def test_a_full_disk_on_a_first_run_leaves_no_output_folder(toy, tmp_path, capsys, monkeypatch):
    def full_disk(*args, **kwargs):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(runner.nbformat, "write", full_disk)
    out = tmp_path / "new" / "out"
    assert cli.main(["run", str(toy), "-o", str(out)]) == 1
    one_line(capsys.readouterr().err)
    assert not (tmp_path / "new").exists()


FULL_DISK = """
import json, os, sys
from pathlib import Path
from attncore.book import cli
from attncore.book.cache import RunCache
disk, chapter, cache = map(Path, sys.argv[1:4])
(disk / "out" / "toy").mkdir(parents=True)
(disk / "out" / "toy" / "earlier").write_text("the earlier run")
filler = os.open(disk / "filler", os.O_WRONLY | os.O_CREAT)
try:
    while os.write(filler, bytes(4096)):
        pass
except OSError:
    pass
cli.RunCache = lambda: RunCache(cache)
status = cli.main(["run", str(chapter), "-o", str(disk / "out")])
left = sorted(str(p.relative_to(disk)) for p in disk.rglob("*"))
print(json.dumps({"status": status, "left": left}))
"""


def test_a_really_full_disk_is_one_line_and_keeps_the_earlier_run(toy, tmp_path, capsys):
    """The same on a full tmpfs, mounted in a user and mount namespace of its own."""
    disk = tmp_path / "disk"
    disk.mkdir()
    mount = f'mount -t tmpfs -o size=256k tmpfs {disk} && exec "$0" -c "$1" "$2" "$3" "$4"'
    command = ["unshare", "-r", "-m", "sh", "-c", mount, sys.executable, FULL_DISK]
    try:
        done = subprocess.run(
            [*command, str(disk), str(toy), str(tmp_path / "cache")],
            capture_output=True,
            text=True,
            timeout=120,
        )
    except FileNotFoundError:
        pytest.skip("no unshare here")
    if done.returncode != 0 and "mount" in done.stderr:
        pytest.skip(f"no tmpfs can be mounted here: {done.stderr.strip()[:200]}")
    result = json.loads(done.stdout.splitlines()[-1])
    line = one_line(done.stderr)
    assert result["status"] == 1, done.stderr[-800:]
    assert "toy: the run could not be written to" in line and "No space left on device" in line
    assert result["left"] == ["filler", "out", "out/toy", "out/toy/earlier"]


def test_a_failed_publish_puts_the_earlier_folder_back(tmp_path):
    target = tmp_path / "site"
    target.mkdir()
    (target / "page").write_text("v1")
    with pytest.raises(FileNotFoundError):
        publish(tmp_path / "gone", target)  # the second rename fails: not a race
    assert tree(tmp_path) == {"site": None, "site/page": b"v1"}


RACE = """
import sys
from pathlib import Path
from attncore.book.publish import publish
from attncore.scratch import scratch_folder
root, me = Path(sys.argv[1]), sys.argv[2]
for i in range(int(sys.argv[3])):
    new = scratch_folder(root, "test")
    for name in ("a", "b", "c"):
        (new / name).write_text(f"{me} {i}")
    publish(new, root / "site")
"""


def test_publishers_racing_for_one_folder_leave_one_whole_folder(tmp_path):
    """Two processes publish one folder 200 times each as fast as they can: none fails, and
    the folder is always one publisher's, whole (this failed about once in 60 tries before)."""
    racers = [
        subprocess.Popen(
            [sys.executable, "-c", RACE, str(tmp_path), name, "200"], stderr=subprocess.PIPE
        )
        for name in ("p", "q")
    ]
    errors = [racer.communicate(timeout=120)[1].decode() for racer in racers]
    assert [racer.returncode for racer in racers] == [0, 0], errors
    contents = {(tmp_path / "site" / name).read_text() for name in ("a", "b", "c")}
    assert len(contents) == 1 and contents.pop().endswith(" 199")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["site"]


def test_scratch_of_dead_processes_is_removed_and_of_live_ones_kept(tmp_path):
    mine = scratch_folder(tmp_path, "run", "toy")
    dead = tmp_path / ".attncore-run-999999999-toy-x"
    dead.mkdir()
    (tmp_path / ".attncore-cache-999999999-y").write_text("half a file")
    (tmp_path / "kept").mkdir()
    remove_orphans(tmp_path)
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([mine.name, "kept"])
