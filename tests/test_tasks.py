"""attncore.simulate.tasks: the same tables serially, on a local cluster and on a remote one."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import cloudpickle
import numpy as np
import pandas as pd
import pytest

from attncore.checks import ParameterError
from attncore.distributions import Independent
from attncore.random import spawn, stream
from attncore.simulate import montecarlo, saturation, simplex, sweep
from attncore.simulate.tasks import (
    ENVIRONMENT_VARIABLE,
    TaskFailed,
    resolve_scheduler,
    run_tasks,
    shared_local_cluster,
)
from attncore.sources import bernhard

# the workers cannot import this test module: its functions travel by value
cloudpickle.register_pickle_by_value(sys.modules[__name__])

BIN = Path(sys.executable).parent


def draw_sum(key: tuple[int, int]) -> float:
    return float(stream(7, *key).standard_normal(100).sum())


def tables(scheduler: object) -> list[pd.DataFrame]:
    """One table of each kind of sweep, run on ``scheduler``."""
    panels, costs = bernhard.sweep(
        spawn(1000, 6), ["sqrt_d", "k_total"], n_queries=60, n_keys=8, scheduler=scheduler
    )
    grid = sweep.rescaling_sweep(
        {"normal": Independent()},
        ["sqrt_d", "k_total", "qk_norm"],
        [8, 32],
        [4, 16],
        n_queries=80,
        n_seeds=2,
        seed=11,
        gradient=["sqrt_d"],
        scheduler=scheduler,
    )
    curves = saturation.keys_table([2, 16], [0.5, 2.0], n_rows=100, seed=3, scheduler=scheduler)
    case = {"sample_or_model": Independent(), "mean": 0.0}
    cases = {d: {**case, "var": d, "d": d} for d in (2, 8)}
    moments = montecarlo.comparison_table(cases, 2000, iter(spawn(5, 2)), scheduler=scheduler)
    critical = simplex.critical_sweep(
        [16, 32], [0.3, 0.7], [0.5, 2.0], d=8, n_draws=2, n_probes=4, seed=5, scheduler=scheduler
    )
    return [panels, costs, grid, curves, moments, critical]


def assert_identical(first: list[pd.DataFrame], second: list[pd.DataFrame]) -> None:
    for a, b in zip(first, second, strict=True):
        assert a.equals(b)
        assert a.to_csv().encode() == b.to_csv().encode()


@pytest.fixture(scope="module")
def serial_tables() -> list[pd.DataFrame]:
    return tables("synchronous")


@pytest.fixture(scope="module")
def local_cluster():
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(
        n_workers=2,
        threads_per_worker=1,
        processes=True,
        host="127.0.0.1",
        dashboard_address=None,
    ) as cluster:
        yield cluster.scheduler_address


def _stop(processes: list[subprocess.Popen]) -> None:
    for process in processes:
        if process.poll() is None:
            process.terminate()
    for process in processes:
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=5)


@pytest.fixture(scope="module")
def remote_cluster(tmp_path_factory):
    """A ``dask scheduler`` and two ``dask worker`` processes on loopback."""
    distributed = pytest.importorskip("distributed")
    folder = tmp_path_factory.mktemp("dask")
    address_file = folder / "scheduler.json"
    env = {**os.environ, "DASK_DISTRIBUTED__WORKER__DAEMON": "False"}
    common = {"cwd": folder, "env": env, "stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL}
    loopback = ["--host", "127.0.0.1", "--dashboard-address", "127.0.0.1:0"]
    scheduler = [BIN / "dask", "scheduler", *loopback, "--port", "0"]
    processes = [subprocess.Popen([*scheduler, "--scheduler-file", str(address_file)], **common)]
    try:
        deadline = time.monotonic() + 60
        while not address_file.exists() and time.monotonic() < deadline:
            time.sleep(0.2)
        address = json.loads(address_file.read_text())["address"]
        assert address.startswith("tcp://127.0.0.1:")
        worker = [BIN / "dask", "worker", address, "--nthreads", "1", *loopback]
        for _ in range(2):
            processes.append(subprocess.Popen(worker, **common))
        with distributed.Client(address, timeout=30) as client:
            client.wait_for_workers(2, timeout=60)
        yield address
    finally:
        _stop(processes)


def test_serial_results_in_task_order_and_keyed_streams():
    keys = [(i, j) for i in range(3) for j in range(2)]
    assert run_tasks(draw_sum, keys, scheduler="synchronous") == [draw_sum(k) for k in keys]
    assert run_tasks(draw_sum, [], scheduler="synchronous") == []


def test_the_scheduler_comes_from_the_argument_then_the_environment(monkeypatch):
    monkeypatch.setenv(ENVIRONMENT_VARIABLE, "synchronous")
    assert resolve_scheduler() == "synchronous"
    assert resolve_scheduler("tcp://127.0.0.1:8786") == "tcp://127.0.0.1:8786"
    monkeypatch.delenv(ENVIRONMENT_VARIABLE)
    assert resolve_scheduler() == "auto"
    monkeypatch.setenv(ENVIRONMENT_VARIABLE, "everywhere")
    with pytest.raises(ParameterError, match="scheduler must be"):
        run_tasks(len, ["a"])


def test_a_failing_task_names_itself_and_the_error():
    def fail_on_two(x: int) -> int:
        if x == 2:
            raise ValueError("two is not allowed\nsecond line")
        return x

    with pytest.raises(TaskFailed, match=r"task 2 \(key 'c'\) failed: ValueError: two is") as info:
        run_tasks(fail_on_two, [0, 1, 2, 3], keys=list("abcd"), scheduler="synchronous")
    assert info.value.index == 2 and info.value.key == "c"
    assert "second line" not in str(info.value)
    assert isinstance(info.value.__cause__, ValueError)


def test_an_argument_error_stays_an_argument_error():
    with pytest.raises(ParameterError, match="seed must be"):
        run_tasks(lambda seed: stream(seed, 0), [1, -1], scheduler="synchronous")
    with pytest.raises(ParameterError, match="keys must name every task"):
        run_tasks(len, ["a"], keys=[1, 2])
    with pytest.raises(ParameterError, match="retries"):
        run_tasks(len, ["a"], retries=-1)


def test_progress_is_quiet_without_a_terminal(capsys):
    assert run_tasks(len, ["ab"] * 3, scheduler="synchronous", progress=True) == [2] * 3
    assert capsys.readouterr().err == ""


def test_the_callers_generators_are_left_as_they_were():
    generators = spawn(3, 2)
    before = [g.bit_generator.state for g in generators]
    bernhard.sweep(generators, ["sqrt_d"], n_queries=20, n_keys=4, scheduler="synchronous")
    assert [g.bit_generator.state for g in generators] == before


def test_a_local_cluster_gives_the_same_tables(serial_tables, local_cluster):
    assert_identical(serial_tables, tables(local_cluster))
    # batches of one task and of many give the same order
    keys = [(i, 0) for i in range(25)]
    expected = [draw_sum(k) for k in keys]
    for size in (1, 7, 100):
        assert run_tasks(draw_sum, keys, scheduler=local_cluster, batch_size=size) == expected


def test_a_remote_cluster_gives_the_same_tables(serial_tables, remote_cluster, monkeypatch):
    monkeypatch.setenv(ENVIRONMENT_VARIABLE, remote_cluster)
    assert_identical(serial_tables, tables(None))


def test_a_dead_worker_costs_only_its_task(local_cluster, tmp_path):
    marker = tmp_path / "died"

    def die_once(x: int) -> float:
        if x == 5 and not marker.exists():
            marker.write_text("x")
            os._exit(1)
        time.sleep(0.05)
        return float(x) ** 2

    out = run_tasks(die_once, list(range(12)), scheduler=local_cluster, batch_size=1)
    assert marker.exists()
    assert out == [float(x) ** 2 for x in range(12)]


def test_a_failing_task_on_a_cluster_names_itself(local_cluster):
    def fail_on_three(x: int) -> int:
        if x == 3:
            raise np.linalg.LinAlgError("singular matrix\ndetails")
        return x

    with pytest.raises(TaskFailed, match=r"task 3 \(key \(3, 'x'\)\) failed: LinAlgError: sing"):
        run_tasks(
            fail_on_three,
            list(range(6)),
            keys=[(i, "x") for i in range(6)],
            scheduler=local_cluster,
            batch_size=2,
        )


def test_the_command_passes_the_scheduler_to_the_kernels(remote_cluster, monkeypatch, capsys):
    from attncore.book import cli

    monkeypatch.setenv(ENVIRONMENT_VARIABLE, "auto")  # restored after the test
    cli._set_scheduler(remote_cluster)
    assert os.environ[ENVIRONMENT_VARIABLE] == remote_cluster
    assert cli.main(["run", "softmax_saturation", "--scheduler", "elsewhere"]) == 2
    assert "scheduler must be" in capsys.readouterr().err


def test_local_work_goes_to_the_shared_cluster_when_one_is_named():
    """What `attncore build` does for chapters that run at once: their kernels (other
    processes) send "local" work to the one cluster named in the environment."""
    probe = (
        "from attncore.simulate.tasks import _local_client, run_tasks;"
        "assert run_tasks(abs, [-2, 3], scheduler='local') == [2, 3];"
        "print(_local_client().scheduler.address)"
    )
    with shared_local_cluster() as address:
        done = subprocess.run(
            [sys.executable, "-c", probe], capture_output=True, text=True, check=True
        )
    assert done.stdout.strip() == address
