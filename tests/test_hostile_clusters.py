"""Clusters that never wait forever, and sockets that listen on loopback only.

A scheduler address where nothing listens fails at once; a scheduler with no worker, or whose
only worker dies mid-sweep, fails the sweep in one line after ``worker_wait`` seconds; a run
stopped by ``--timeout`` while a local cluster works ends with its one line and leaves no
process behind; every socket of the embedded cluster listens on loopback.
"""

from __future__ import annotations

import ipaddress
import json
import os
import subprocess
import sys
import time
import uuid
from pathlib import Path

import distributed
import psutil
import pytest
from conftest import write_chapter

from attncore.book import cli
from attncore.checks import ParameterError
from attncore.simulate.tasks import (
    WAIT_VARIABLE,
    ClusterUnavailable,
    resolve_worker_wait,
    run_tasks,
    start_local_cluster,
)

pytestmark = pytest.mark.notebooks
BIN = Path(sys.executable).parent
LOOPBACK_ONLY = ["--host", "127.0.0.1", "--dashboard-address", "127.0.0.1:0"]


def closed_port() -> int:
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]  # free, and nothing listens once it is closed


def test_a_closed_port_fails_at_once(capsys):
    address = f"tcp://127.0.0.1:{closed_port()}"
    start = time.perf_counter()
    with pytest.raises(ClusterUnavailable, match="nothing listens there"):
        run_tasks(abs, [1, 2], scheduler=address)
    assert cli.main(["run", "softmax_saturation", "--scheduler", address]) == 2
    assert time.perf_counter() - start < 3.0  # it took 42 s to say so
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"--scheduler: scheduler {address}: nothing" in err


def test_the_wait_is_a_setting_checked_in_one_line(monkeypatch, capsys):
    monkeypatch.setenv(WAIT_VARIABLE, "2.5")
    assert resolve_worker_wait() == 2.5 and resolve_worker_wait(7) == 7.0
    for bad in ("0", "-1", "nan", "inf", "soon"):
        monkeypatch.setenv(WAIT_VARIABLE, bad)
        with pytest.raises(ParameterError, match=f"{WAIT_VARIABLE} must be a number of seconds"):
            resolve_worker_wait()
    monkeypatch.delenv(WAIT_VARIABLE)
    assert cli.main(["run", "softmax_saturation", "--worker-wait", "never"]) == 2
    assert "worker_wait must be a number of seconds" in capsys.readouterr().err


@pytest.fixture(scope="module")
def scheduler(tmp_path_factory):
    """A ``dask scheduler`` on loopback, with no worker."""
    folder = tmp_path_factory.mktemp("dask")
    address_file = folder / "scheduler.json"
    process = subprocess.Popen(
        [
            BIN / "dask",
            "scheduler",
            *LOOPBACK_ONLY,
            "--port",
            "0",
            "--scheduler-file",
            address_file,
        ],
        cwd=folder,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 60
        while not address_file.exists() and time.monotonic() < deadline:
            time.sleep(0.2)
        yield json.loads(address_file.read_text())["address"], process
    finally:
        process.kill()
        process.wait(timeout=15)


def test_a_scheduler_without_workers_fails_after_the_wait(scheduler):
    address, _ = scheduler
    start = time.perf_counter()
    with pytest.raises(ClusterUnavailable, match=f"scheduler {address} has no worker; waited 2 s"):
        run_tasks(abs, [1, 2], scheduler=address, worker_wait=2)
    assert 2.0 <= time.perf_counter() - start < 6.0  # it used to wait forever


def test_a_sweep_whose_only_worker_dies_fails_after_the_wait(scheduler, tmp_path):
    address, _ = scheduler

    def die(x: int) -> int:  # a local function travels by value, not by module name
        time.sleep(0.5)
        os._exit(1)

    worker = subprocess.Popen(
        [BIN / "dask", "worker", address, "--no-nanny", "--nthreads", "1", *LOOPBACK_ONLY],
        cwd=tmp_path,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        with distributed.Client(address, timeout=30) as client:
            client.wait_for_workers(1, timeout=60)  # the sweep starts with its worker there
        start = time.perf_counter()
        with pytest.raises(
            ClusterUnavailable, match="lost every worker during the sweep; waited 2"
        ):
            run_tasks(die, [1, 2], scheduler=address, worker_wait=2)
        assert time.perf_counter() - start < 30.0  # it used to wait forever
    finally:
        worker.kill()
        worker.wait(timeout=15)


def listening(processes: list[psutil.Process]) -> list[tuple[int, str, int]]:
    return [
        (p.pid, c.laddr.ip, c.laddr.port)
        for p in processes
        for c in p.net_connections(kind="inet")
        if c.status == psutil.CONN_LISTEN
    ]


def assert_loopback_only(before: set[tuple[int, str, int]]) -> None:
    me = psutil.Process()
    sockets = set(listening([me, *me.children(recursive=True)])) - before
    assert len(sockets) >= 4, sockets  # scheduler, dashboard, nanny, worker at least
    wide = [s for s in sockets if not ipaddress.ip_address(s[1]).is_loopback]
    assert not wide, f"listening beyond loopback: {wide}"


def test_the_embedded_cluster_listens_on_loopback_only():
    """The embedded cluster's dashboard listened on 0.0.0.0."""
    before = set(listening([psutil.Process()]))
    cluster = start_local_cluster(workers=1)
    try:
        assert_loopback_only(before)
    finally:
        cluster.close()  # shared_local_cluster, which `attncore build` starts, is this one


def quiet_child_env(marker: str) -> dict[str, str]:
    return {**os.environ, "ATTNCORE_TEST_MARKER": marker}


def marked(marker: str) -> list[int]:
    """The processes still running with ``marker`` in their environment."""
    found = []
    for process in psutil.process_iter():
        try:
            if process.environ().get("ATTNCORE_TEST_MARKER") == marker:
                found.append(process.pid)
        except (psutil.Error, OSError):
            continue
    return found


def test_a_timeout_during_a_local_sweep_ends_quietly_and_leaves_nothing(tmp_path):
    body = (
        "import time\n"
        "from attncore.simulate.tasks import run_tasks\n"
        "run_tasks(time.sleep, [60, 60], scheduler='local')"
    )
    chapter = write_chapter(tmp_path / "sweep.md", body=body)
    marker = uuid.uuid4().hex
    command = [sys.executable, "-m", "attncore.book.cli", "run", str(chapter), "--no-cache"]
    done = subprocess.run(
        [*command, "-o", str(tmp_path / "out"), "--timeout", "6"],
        env=quiet_child_env(marker),
        capture_output=True,
        text=True,
        timeout=120,
    )
    lines = [line for line in done.stderr.splitlines() if line and "Executing:" not in line]
    assert done.returncode == 124
    expected = "attncore: failed: the run passed --timeout 6 s; nothing was published"
    assert lines == [expected], done.stderr
    deadline = time.monotonic() + 10
    while marked(marker) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert not marked(marker), "a kernel or worker outlived the run"
