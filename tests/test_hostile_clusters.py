"""Clusters that never wait forever, and sockets that listen on loopback only.

A scheduler address the parser cannot read is refused in one line before anything starts; one
where nothing listens fails at once, one where something else listens (a web server, a server
that never replies or replies garbage) fails within the wait; a scheduler with no worker, or
whose only worker dies mid-sweep, fails the sweep in one line after ``worker_wait`` seconds; a run
stopped by ``--timeout`` while a local cluster works ends with its one line and leaves no
process behind; every socket of the embedded cluster listens on loopback.
"""

from __future__ import annotations

import http.server
import ipaddress
import json
import os
import re
import socket
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from functools import partial
from pathlib import Path

import distributed
import psutil
import pytest
from conftest import write_chapter

from attncore.book import cli
from attncore.checks import ParameterError
from attncore.simulate.tasks import (
    ENVIRONMENT_VARIABLE,
    WAIT_VARIABLE,
    ClusterUnavailable,
    check_listening,
    resolve_scheduler,
    resolve_worker_wait,
    run_tasks,
    start_local_cluster,
)

pytestmark = pytest.mark.notebooks
BIN = Path(sys.executable).parent
LOOPBACK_ONLY = ["--host", "127.0.0.1", "--dashboard-address", "127.0.0.1:0"]


def closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]  # free, and nothing listens once it is closed


def test_a_closed_port_fails_at_once(capsys):
    address = f"tcp://127.0.0.1:{closed_port()}"
    start = time.perf_counter()
    with pytest.raises(ClusterUnavailable, match="nothing listens there"):
        run_tasks(abs, [1, 2], scheduler=address)
    assert cli.main(["run", "softmax_saturation", "--scheduler", address]) == 2
    assert time.perf_counter() - start < 15.0  # it took 42 s to say so
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


LONG_HOST = ".".join(["a" * 63] * 3 + ["b" * 61])  # 253 characters, the most DNS allows
UNREADABLE = [
    "tcp://a..b:8786",  # an empty label: UnicodeError from the idna codec
    "tcp://" + "a" * 300 + ":8786",  # a label and a name too long: UnicodeError
    "tcp://" + "a" * 64 + ".org:8786",  # a label of 64 characters
    "tcp://x" + LONG_HOST + ":8786",  # 254 characters
    "tcp://-node:8786",
    "tcp://node:0",
    "tcp://node:70000",
    "tcp://node:port",
    "tcp://:8786",
    "tcp://node",
    "tcp://node:80/path",
    "tcp://node:80?x=1",
    "tcp://user@node:80",
    "tcp://[::g]:8786",
    "tcp://::1:8786",
]


@pytest.mark.parametrize("address", UNREADABLE)
def test_an_unreadable_address_is_refused_in_one_line(address, monkeypatch, tmp_path, capsys):
    """These reached ValueError and UnicodeError tracebacks, or DNS look-ups of a path."""
    expected = "scheduler must be tcp://HOST:PORT (or tls://) with a host name or IP address"
    with pytest.raises(ParameterError, match=r"^scheduler must be tcp://HOST:PORT \(or tls") as e:
        resolve_scheduler(address)
    assert "\n" not in str(e.value) and len(str(e.value)) < 200
    monkeypatch.setenv(ENVIRONMENT_VARIABLE, address)  # what a chapter's kernel reads
    with pytest.raises(ParameterError, match="scheduler must be tcp://HOST:PORT"):
        run_tasks(abs, [1, 2])
    monkeypatch.delenv(ENVIRONMENT_VARIABLE)
    argv = ["run", "softmax_saturation", "--profile", "smoke", "-o", str(tmp_path / "out")]
    assert cli.main([*argv, "--scheduler", address]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith(f"attncore: error: {expected}"), err
    monkeypatch.setenv(ENVIRONMENT_VARIABLE, address)  # no --scheduler: the kernels would read it
    assert cli.main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"attncore: error: ${ENVIRONMENT_VARIABLE}: {expected}"), err


def test_an_inproc_scheduler_is_refused_by_the_command(tmp_path, capsys):
    """An inproc:// address names a scheduler inside one process: no kernel can reach it."""
    argv = ["run", "softmax_saturation", "-o", str(tmp_path / "out"), "--scheduler"]
    assert cli.main([*argv, "inproc://127.0.0.1/1/2"]) == 2
    assert "inproc:// scheduler lives in one process only" in capsys.readouterr().err


@pytest.mark.parametrize(
    "address",
    [
        "tcp://127.0.0.1:1",
        "tcp://[::1]:65535",
        "tls://node-1.Example.org:8786",
        f"tcp://{LONG_HOST}:1",
    ],
)
def test_a_readable_address_is_kept(address):
    assert resolve_scheduler(address) == address


def attncore_run(address: str, out: Path, *options: str) -> subprocess.CompletedProcess[str]:
    """``attncore run`` with ``--scheduler address``, stopped after 90 s if it hangs."""
    command = [BIN / "attncore", "run", "softmax_saturation", "--profile", "smoke"]
    return subprocess.run(
        [*command, "--scheduler", address, "-o", str(out), *options],
        capture_output=True,
        text=True,
        timeout=90,
    )


def test_an_unreadable_address_exits_2_with_one_line(tmp_path):
    done = attncore_run("tcp://a..b:8786", tmp_path / "out")
    assert done.returncode == 2, done.stderr
    assert done.stderr.count("\n") == 1
    assert done.stderr.startswith("attncore: error: scheduler must be tcp://HOST:PORT")


@contextmanager
def impostor_at(kind: str, folder: Path) -> Iterator[str]:
    """The address of a loopback server, in a thread, that is no Dask scheduler: ``http`` (what
    ``python -m http.server`` runs), ``silent`` (accepts and never replies) or ``garbage``
    (replies bytes that are no Dask message and closes)."""
    if kind == "http":
        server = http.server.ThreadingHTTPServer(
            ("127.0.0.1", 0),
            partial(http.server.SimpleHTTPRequestHandler, directory=str(folder)),
        )
        threading.Thread(target=server.serve_forever, daemon=True).start()
        try:
            yield f"tcp://127.0.0.1:{server.server_address[1]}"
        finally:
            server.shutdown()
            server.server_close()
        return
    listener = socket.create_server(("127.0.0.1", 0))
    held: list[socket.socket] = []

    def accept() -> None:
        while True:
            try:
                connection, _ = listener.accept()
            except OSError:  # the listener was closed
                return
            if kind == "silent":
                held.append(connection)  # open, and never a byte
                continue
            connection.recv(1024)
            connection.sendall(b"HTTP/1.0 400 Bad Request\r\n\r\n\xff\x00garbage" * 8)
            connection.close()

    threading.Thread(target=accept, daemon=True).start()
    try:
        yield f"tcp://127.0.0.1:{listener.getsockname()[1]}"
    finally:
        listener.close()
        for connection in held:
            connection.close()


@pytest.fixture(params=["http", "silent", "garbage"])
def impostor(request, tmp_path) -> Iterator[str]:
    with impostor_at(request.param, tmp_path) as address:
        yield address


def test_a_server_that_is_no_scheduler_is_refused_within_the_wait(impostor, tmp_path):
    """``attncore run`` and the kernels waited for its handshake forever (a bare TCP connect
    succeeded, then Dask's connect read the handshake without a limit)."""
    refused = f"scheduler {impostor}: something listens there, but "
    start = time.perf_counter()
    with pytest.raises(ClusterUnavailable, match=re.escape(refused)):
        check_listening(impostor, 2)
    assert time.perf_counter() - start < 3.5
    done = attncore_run(impostor, tmp_path / "out", "--worker-wait", "2")
    assert done.returncode == 2, done.stderr
    assert done.stderr.count("\n") == 1
    assert done.stderr.startswith(f"attncore: error: --scheduler: {refused}"), done.stderr
    sweep = (
        "from attncore.simulate.tasks import run_tasks\n"
        f"run_tasks(abs, [1, 2], scheduler={impostor!r}, worker_wait=2)"
    )
    start = time.perf_counter()
    kernel = subprocess.run(
        [sys.executable, "-c", sweep], capture_output=True, text=True, timeout=90
    )
    assert time.perf_counter() - start < 30.0  # a bound on hanging, not a speed check
    last = kernel.stderr.strip().splitlines()[-1]
    assert last.startswith(f"attncore.simulate.tasks.ClusterUnavailable: {refused}"), kernel.stderr


def test_the_cli_bounds_its_check_without_worker_wait(tmp_path):
    """Without ``--worker-wait`` the check waits min(30 s, 10 s), not the run's --timeout."""
    with impostor_at("silent", tmp_path) as address:
        start = time.perf_counter()
        done = attncore_run(address, tmp_path / "out")
        assert 10.0 <= time.perf_counter() - start < 40.0
    assert done.returncode == 2 and done.stderr.count("\n") == 1, done.stderr
    assert "no Dask scheduler answered in 10 s" in done.stderr


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
    # a bound on hanging, not a speed check: it used to wait forever
    assert 2.0 <= time.perf_counter() - start < 20.0


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
        assert time.perf_counter() - start < 90.0  # it used to wait forever; not a speed check
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
