"""A sweep as independent tasks: serially, on a local Dask cluster, or on a remote one.

:func:`run_tasks` calls ``fn(task)`` for every task and returns the results in task order.
Each task carries everything it needs, its random stream included (a seed and the task's
key, drawn with :func:`attncore.random.stream`, or a generator handed over with the task),
never a worker's state, so a sweep gives the same numbers, byte for byte, whether it ran in
a plain loop, on an embedded :class:`distributed.LocalCluster` or on a cluster elsewhere.

Where the work goes (:func:`resolve_scheduler`): the ``scheduler`` argument, else the
environment variable ``ATTNCORE_SCHEDULER`` (what ``attncore run --scheduler`` sets for the
chapters' kernels), else ``"auto"``:

* ``"synchronous"``: a plain loop in this process; nothing is started;
* ``"local"``: an embedded local cluster, one single-threaded worker process per core
  (:func:`attncore.simulate.threads.available_cores`), started on first use and kept for
  the life of the process; or, when ``ATTNCORE_LOCAL_CLUSTER`` names one (``attncore
  build`` starts one for all the chapters it runs at once, :func:`shared_local_cluster`),
  that cluster, so that concurrent chapters share one set of workers;
* ``"tcp://HOST:PORT"`` (or ``tls://``): an existing cluster (``dask scheduler`` and
  ``dask worker``); HOST is an IPv4 address, an IPv6 address in brackets or a DNS name, PORT
  is in 1-65535 and nothing follows it; any other address is refused in one line at once;
* ``"auto"``: synchronous below :data:`AUTO_THRESHOLD` tasks, else ``"local"``;
* a :class:`distributed.Client`, used as it is.

No wait on a cluster is unbounded (:func:`resolve_worker_wait`, 30 s unless ``worker_wait`` or
``ATTNCORE_WORKER_WAIT`` says otherwise): an address where nothing listens fails at once, one
where no Dask scheduler answers (another server, one that never replies) fails after that
wait (:func:`check_listening`), and a scheduler that has no worker for that long, at the
start or after its workers died, fails the sweep; each with one :class:`ClusterUnavailable`
line. Every cluster this module starts listens on loopback only, its dashboard included.

A task that raises stops the sweep with one :class:`TaskFailed` naming the task (its index
and key) and the original error's first line; the error is not retried (it would fail the
same way); a :class:`~attncore.checks.ParameterError` (the sweep's arguments are wrong) is
raised as it is, with a note naming the task. A task whose worker died is rescheduled by
the Dask scheduler on another worker (its ``allowed-failures``, 3 by default), then up to
``retries`` more times.

>>> run_tasks(lambda x: x * x, [1, 2, 3])
[1, 4, 9]
>>> run_tasks(lambda x: 1 / x, [1, 0], keys=[("a",), ("b",)], scheduler="synchronous")
Traceback (most recent call last):
...
attncore.simulate.tasks.TaskFailed: task 1 (key ('b',)) failed: ZeroDivisionError: division by zero
"""

from __future__ import annotations

import asyncio
import atexit
import ipaddress
import math
import os
import pickle
import re
import socket
import sys
import threading
import time
import traceback
import warnings
from collections.abc import Callable, Hashable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any, TypeVar

from attncore.checks import ParameterError
from attncore.simulate.threads import available_cores

__all__ = [
    "AUTO_THRESHOLD",
    "ENVIRONMENT_VARIABLE",
    "SHARED_CLUSTER_VARIABLE",
    "WAIT_VARIABLE",
    "WORKER_WAIT",
    "ClusterUnavailable",
    "TaskFailed",
    "check_listening",
    "close_local_cluster",
    "resolve_scheduler",
    "resolve_worker_wait",
    "run_tasks",
    "shared_local_cluster",
    "start_local_cluster",
]

T = TypeVar("T")
R = TypeVar("R")

ENVIRONMENT_VARIABLE = "ATTNCORE_SCHEDULER"
"""The environment variable naming the scheduler when no argument does."""

SHARED_CLUSTER_VARIABLE = "ATTNCORE_LOCAL_CLUSTER"
"""The environment variable holding the address of a local cluster that ``"local"`` uses
instead of starting its own."""

AUTO_THRESHOLD = 2000
"""Below this many tasks, ``"auto"`` runs them in a plain loop. Starting the embedded
cluster costs about 2 s and every task sent to it a few milliseconds of pickling and
messages; the sweeps of the book's full profile (up to a few hundred draws of a few
milliseconds to a second each) run faster in one process, and a book build that runs
chapters side by side already uses every core. Larger reruns (thousands of draws) pay the
start once and then use every core."""

_NAMED = ("auto", "synchronous", "local")

_ADDRESS = re.compile(r"(?:tcp|tls)://(\[[^\]]*\]|[^:/?#@\[\]]*):([0-9]{1,5})")
"""``tcp://HOST:PORT`` or ``tls://HOST:PORT``, HOST in brackets for IPv6, nothing after PORT."""

_LABEL = re.compile(r"(?!-)[A-Za-z0-9-]{1,63}(?<!-)")
"""One label of a DNS name."""

WAIT_VARIABLE = "ATTNCORE_WORKER_WAIT"
"""The environment variable holding the seconds a sweep waits for a cluster's worker."""

WORKER_WAIT = 30.0
"""Seconds a sweep waits, by default, for a scheduler to have a worker (at the start, or after
its workers died) before it fails: a local worker starts in 2 to 5 s, a remote one that is
restarting reconnects within seconds."""

_POLL = 1.0
"""Seconds between two looks at a cluster's workers while a sweep waits for its results."""


class ClusterUnavailable(RuntimeError):
    """A cluster cannot run a sweep: nothing listens at its address, it does not answer, or it
    has had no worker for :func:`resolve_worker_wait` seconds."""


def resolve_worker_wait(seconds: object = None) -> float:
    """Seconds a sweep waits for a cluster's worker: ``seconds`` if given, else
    ``$ATTNCORE_WORKER_WAIT``, else :data:`WORKER_WAIT`.

    >>> resolve_worker_wait(5), resolve_worker_wait()
    (5.0, 30.0)
    >>> resolve_worker_wait("soon")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    attncore.checks.ParameterError: worker_wait must be a number of seconds in (0, 86400], got ...
    """
    name = "worker_wait"
    if seconds is None:
        seconds = os.environ.get(WAIT_VARIABLE, "").strip() or WORKER_WAIT
        name = WAIT_VARIABLE
    try:
        value = float(seconds)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        value = math.nan
    if isinstance(seconds, bool) or not 0 < value <= 86400:
        raise ParameterError(f"{name} must be a number of seconds in (0, 86400], got {seconds!r}")
    return value


class TaskFailed(RuntimeError):
    """A task of :func:`run_tasks` raised: ``index`` and ``key`` name it, ``error`` is the
    original error's first line and ``details`` its traceback as text."""

    def __init__(self, index: int, key: object, error: str, details: str = "") -> None:
        super().__init__(f"task {index} (key {key!r}) failed: {error}")
        self.index, self.key, self.error, self.details = index, key, error, details

    def __reduce__(self) -> tuple[Any, ...]:
        return (TaskFailed, (self.index, self.key, self.error, self.details))


def _cut(text: str, limit: int = 60) -> str:
    """``text`` cut to ``limit`` characters, so that an error stays one short line."""
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _host_and_port(address: str) -> tuple[str, int]:
    """The host (IPv6 without its brackets) and port of a ``tcp://`` or ``tls://`` scheduler
    address, or a :class:`~attncore.checks.ParameterError` in one line.

    >>> _host_and_port("tcp://[::1]:8786"), _host_and_port("tls://node-1.example.org:8786")
    (('::1', 8786), ('node-1.example.org', 8786))
    >>> _host_and_port("tcp://a..b:8786")
    Traceback (most recent call last):
    ...
    attncore.checks.ParameterError: scheduler must be tcp://HOST:PORT (or tls://) with a host \
name or IP address and a port in 1-65535, got 'tcp://a..b:8786'
    """
    match = _ADDRESS.fullmatch(address)
    if match is not None and 1 <= int(match[2]) <= 65535:
        host = match[1]
        if host.startswith("["):
            try:
                return str(ipaddress.IPv6Address(host[1:-1])), int(match[2])
            except ValueError:
                pass
        elif len(host) <= 253 and all(_LABEL.fullmatch(label) for label in host.split(".")):
            return host, int(match[2])  # a DNS name, or an IPv4 address (its labels are digits)
    raise ParameterError(
        "scheduler must be tcp://HOST:PORT (or tls://) with a host name or IP address and a "
        f"port in 1-65535, got {_cut(repr(address))}"
    )


def resolve_scheduler(scheduler: object = None) -> object:
    """The scheduler to use: ``scheduler`` if given, else ``$ATTNCORE_SCHEDULER``, else
    ``"auto"``; a name is checked (``auto``, ``synchronous``, ``local``, ``inproc://...`` or
    a ``tcp://HOST:PORT`` or ``tls://HOST:PORT`` address that :func:`_host_and_port` reads),
    before anything connects.

    >>> resolve_scheduler("synchronous")
    'synchronous'
    >>> resolve_scheduler("tcp://127.0.0.1:8786")
    'tcp://127.0.0.1:8786'
    >>> resolve_scheduler("cluster")
    Traceback (most recent call last):
    ...
    attncore.checks.ParameterError: scheduler must be auto, synchronous, local, \
tcp://HOST:PORT or a distributed.Client, got 'cluster'
    >>> resolve_scheduler("tcp://" + "a" * 300 + ":8786")
    Traceback (most recent call last):
    ...
    attncore.checks.ParameterError: scheduler must be tcp://HOST:PORT (or tls://) with a host \
name or IP address and a port in 1-65535, got 'tcp://aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa…
    """
    if scheduler is None:
        scheduler = os.environ.get(ENVIRONMENT_VARIABLE, "").strip() or "auto"
    if isinstance(scheduler, str):
        if scheduler.startswith(("tcp://", "tls://")):
            _host_and_port(scheduler)
            return scheduler
        if scheduler in _NAMED or scheduler.startswith("inproc://"):
            return scheduler
    elif type(scheduler).__name__ == "Client":
        return scheduler
    raise ParameterError(
        f"scheduler must be {', '.join(_NAMED)}, tcp://HOST:PORT or a distributed.Client, "
        f"got {_cut(repr(scheduler))}"
    )


def _first_line(error: BaseException) -> str:
    text = str(error).strip().splitlines()
    return f"{type(error).__name__}: {text[0]}" if text else type(error).__name__


def _run_batch(
    fn: Callable[[Any], Any], batch: list[tuple[int, Hashable, Any]]
) -> tuple[bool, Any]:
    """Run the tasks of one batch in order: ``(True, results)`` or ``(False, failure)``.

    A task's error is returned, not raised, so that Dask does not retry it."""
    results = []
    for index, key, task in batch:
        try:
            results.append(fn(task))
        except Exception as error:  # reported with the task's name
            line, details, travels = _first_line(error), traceback.format_exc(), error
            try:
                pickle.dumps(error)
            except Exception:  # an error that cannot travel back is described in words only
                travels = None
            return False, (index, key, line, details, travels)
    return True, results


def _raise_failure(index: int, key: object, line: str, details: str, error: object) -> None:
    """Raise a task's failure: a :class:`~attncore.checks.ParameterError` as it is (the
    sweep's arguments are wrong), with a note naming the task; anything else as a
    :class:`TaskFailed` caused by the original error."""
    if isinstance(error, ParameterError):
        error.add_note(f"(raised by task {index}, key {key!r})")
        raise error
    raise TaskFailed(index, key, line, details) from (
        error if isinstance(error, BaseException) else None
    )


def _progress_bar(total: int, progress: bool) -> Any:
    if not progress or not sys.stderr.isatty():
        return None
    from tqdm.auto import tqdm

    return tqdm(total=total, unit="task", file=sys.stderr, dynamic_ncols=True)


_local_lock = threading.Lock()
_local: dict[str, Any] = {}


LOCAL_TCP_TIMEOUT = "600s"
"""How long a connection of the embedded cluster may stay silent before it counts as lost."""


def start_local_cluster(workers: int | None = None, threads: int = 1) -> Any:
    """A :class:`distributed.LocalCluster` as ``"local"`` starts it: ``workers`` worker
    processes (default one per core) of ``threads`` threads each, loopback only, on free ports.

    Dask starts its workers with ``MALLOC_TRIM_THRESHOLD_=65536``, which also freezes glibc's
    threshold for serving allocations from fresh pages: every array above 128 KiB is then
    mapped and zeroed anew, and a training group ran 2 to 2.5 times slower in a worker than in
    the kernel. The embedded cluster leaves glibc's defaults alone.

    Its workers share the machine with the process that starts them, so a silent connection
    is a starved process, not a lost one: on a 2-core machine loaded twentyfold, Dask's
    default 30 s TCP timeout dropped both workers of a training sweep while they received a
    35 MiB task. This process's connections wait :data:`LOCAL_TCP_TIMEOUT` instead (a worker
    that dies still closes its connection at once).

    >>> cluster = start_local_cluster(workers=1)
    >>> len(cluster.workers), cluster.scheduler_address.startswith("tcp://127.0.0.1:")
    (1, True)
    >>> cluster.close()
    """
    import dask
    from distributed import LocalCluster

    if os.environ.get("MALLOC_TRIM_THRESHOLD_") == "65536":  # left by a Dask cluster before
        del os.environ["MALLOC_TRIM_THRESHOLD_"]
    dask.config.set({"distributed.comm.timeouts.tcp": LOCAL_TCP_TIMEOUT})
    with dask.config.set({"distributed.nanny.pre-spawn-environ.MALLOC_TRIM_THRESHOLD_": None}):
        return LocalCluster(
            n_workers=available_cores() if workers is None else workers,
            threads_per_worker=threads,
            processes=True,
            host="127.0.0.1",
            # loopback, no fixed port: two clusters on one machine do not clash
            dashboard_address="127.0.0.1:0",
        )


def _local_client(wait: float | None = None) -> Any:
    """The client of the shared cluster (``$ATTNCORE_LOCAL_CLUSTER``) or of the embedded
    one, started on first use; connecting to the shared one waits at most ``wait`` seconds
    (:func:`resolve_worker_wait`)."""
    with _local_lock:
        if "client" not in _local:
            from distributed import Client

            shared = os.environ.get(SHARED_CLUSTER_VARIABLE, "").strip()
            if shared:
                _local["client"] = _connect(shared, resolve_worker_wait(wait))
            else:
                _local["cluster"] = start_local_cluster()
                _local["client"] = Client(_local["cluster"])
            atexit.register(close_local_cluster)
        return _local["client"]


@contextmanager
def shared_local_cluster() -> Iterator[str]:
    """Start a local cluster and name it in ``$ATTNCORE_LOCAL_CLUSTER`` while the block runs,
    so that every process started inside it (a chapter's kernel) sends its ``"local"`` work
    there: one set of workers, one per core, for chapters that run at once. Yields its
    address.

    >>> with shared_local_cluster() as address:
    ...     os.environ[SHARED_CLUSTER_VARIABLE] == address
    True
    """
    cluster = start_local_cluster()
    before = os.environ.get(SHARED_CLUSTER_VARIABLE)
    os.environ[SHARED_CLUSTER_VARIABLE] = cluster.scheduler_address
    try:
        yield cluster.scheduler_address
    finally:
        if before is None:
            os.environ.pop(SHARED_CLUSTER_VARIABLE, None)
        else:
            os.environ[SHARED_CLUSTER_VARIABLE] = before
        cluster.close(timeout=10)


def close_local_cluster() -> None:
    """Stop the embedded local cluster if one was started (it is started again on use)."""
    with _local_lock:
        client, cluster = _local.pop("client", None), _local.pop("cluster", None)
    if client is not None:
        client.close(timeout=10)
    if cluster is not None:
        cluster.close(timeout=10)


def _client_for(scheduler: object, wait: float) -> tuple[Any, bool]:
    """A client for ``scheduler`` and whether it must be closed after the sweep."""
    if scheduler == "local":
        return _local_client(wait), False
    if isinstance(scheduler, str):
        return _connect(scheduler, wait), True
    return scheduler, False


async def _identity(address: str) -> object:
    """The answer of the server at ``address`` to Dask's handshake and ``identity`` request
    (a Dask scheduler's says ``"type": "Scheduler"``); the connection is closed in any case.

    :func:`distributed.comm.connect` bounds only the TCP connection: it then waits for the
    peer's handshake without a limit, forever when the peer never sends one."""
    from distributed.comm.addressing import parse_address
    from distributed.comm.registry import get_backend
    from distributed.security import Security

    scheme, location = parse_address(address)
    comm = (
        await get_backend(scheme)
        .get_connector()
        .connect(location, **Security().get_connection_args("client"))
    )
    try:
        await comm.write(comm.handshake_info())
        await comm.read()  # the peer's handshake
        await comm.write({"op": "identity", "reply": True})
        return await comm.read()
    finally:
        comm.abort()


def _in_thread(work: Callable[[], object], wait: float, name: str) -> object:
    """What ``work()`` returns, or the error it raised, or a :class:`TimeoutError` if it has not
    ended after ``wait`` seconds: it runs in a daemon thread of its own, so that nothing it
    waits for (a peer, a name service) can hold the caller past the wait."""
    outcome: list[object] = [TimeoutError()]

    def run() -> None:
        try:
            outcome[0] = work()
        except Exception as error:  # reported by the caller
            outcome[0] = error

    thread = threading.Thread(target=run, name=name, daemon=True)
    thread.start()
    thread.join(wait)
    return outcome[0]


def _ask_identity(address: str, wait: float) -> object:
    """:func:`_identity` of ``address``, or the error that stopped it (a :class:`TimeoutError`
    after ``wait`` seconds). It runs in its own thread and event loop, so that it works where a
    loop already runs (a notebook's kernel)."""

    def ask() -> object:
        return asyncio.run(asyncio.wait_for(_identity(address), wait))

    # the loop cancels at the wait; the extra second is a backstop
    return _in_thread(ask, wait + 1.0, "attncore-scheduler-check")


def _look_up(address: str, host: str, wait: float) -> str:
    """The first IP address of ``host``, asked of the system's resolver within ``wait``
    seconds."""

    def ask() -> object:
        return socket.getaddrinfo(host, None, type=socket.SOCK_STREAM)[0][4][0]

    found = _in_thread(ask, wait, "attncore-scheduler-lookup")
    if isinstance(found, TimeoutError):
        raise ClusterUnavailable(f"scheduler {address}: no name lookup answered in {wait:g} s")
    if isinstance(found, BaseException):
        why = getattr(found, "strerror", None) or found
        raise ClusterUnavailable(f"scheduler {address}: {host} cannot be looked up ({why})")
    return str(found)


def check_listening(address: str, wait: float) -> None:
    """Raise :class:`ClusterUnavailable` unless a Dask scheduler answers at ``address``
    (``tcp://HOST:PORT`` or ``tls://HOST:PORT``; ``inproc://`` is not checked) within ``wait``
    seconds: at once where nothing listens, after at most ``wait`` seconds where something else
    listens (another server, one that never replies). A bad address is a
    :class:`~attncore.checks.ParameterError` (:func:`_host_and_port`).

    >>> check_listening("tcp://127.0.0.1:1", 5)
    Traceback (most recent call last):
    ...
    attncore.simulate.tasks.ClusterUnavailable: scheduler tcp://127.0.0.1:1: nothing listens ...
    >>> silent = socket.create_server(("127.0.0.1", 0))  # connects, never replies
    >>> check_listening(f"tcp://127.0.0.1:{silent.getsockname()[1]}", 1)
    Traceback (most recent call last):
    ...
    attncore.simulate.tasks.ClusterUnavailable: scheduler tcp://127.0.0.1:...: something \
listens there, but no Dask scheduler answered in 1 s
    >>> silent.close()
    """
    if address.startswith("inproc://"):
        return
    host, port = _host_and_port(address)
    deadline = time.monotonic() + wait

    def left() -> float:  # the look-up, the connection and the handshake share the wait
        return max(deadline - time.monotonic(), 0.1)

    ip = _look_up(address, host, left())
    try:
        socket.create_connection((ip, port), timeout=left()).close()
    except ConnectionRefusedError:
        raise ClusterUnavailable(
            f"scheduler {address}: nothing listens there (connection refused)"
        ) from None
    except TimeoutError:
        raise ClusterUnavailable(f"scheduler {address}: no answer in {wait:g} s") from None
    except OSError as error:
        raise ClusterUnavailable(f"scheduler {address}: {error.strerror or error}") from None
    answer = _ask_identity(address, left())
    if isinstance(answer, dict) and answer.get("type") == "Scheduler":
        return
    if isinstance(answer, TimeoutError):
        why = f"no Dask scheduler answered in {wait:g} s"
    elif isinstance(answer, BaseException):  # garbage, a closed connection, a TLS mismatch
        why = f"no Dask scheduler answered ({_cut(_first_line(answer), 120)})"
    else:
        why = f"it is not a Dask scheduler (it answered {_cut(repr(answer))})"
    raise ClusterUnavailable(f"scheduler {address}: something listens there, but {why}")


def _connect(address: str, wait: float) -> Any:
    """A client of the scheduler at ``address``, failing in one line, never hanging: the
    address is checked first (:func:`check_listening`), since a connecting client waits for
    its peer's handshake without a limit."""
    from distributed import Client

    check_listening(address, wait)
    try:
        return Client(address, timeout=wait)
    except (OSError, TimeoutError) as error:  # it listens, but is not a Dask scheduler
        raise ClusterUnavailable(
            f"scheduler {address}: no Dask scheduler answered in {wait:g} s ({_first_line(error)})"
        ) from None


def run_tasks(
    fn: Callable[[T], R],
    tasks: Sequence[T],
    *,
    keys: Sequence[Hashable] | None = None,
    scheduler: object = None,
    progress: bool = False,
    retries: int = 2,
    batch_size: int | None = None,
    worker_wait: float | None = None,
) -> list[R]:
    """``[fn(task) for task in tasks]``, run where :func:`resolve_scheduler` says.

    ``keys`` name the tasks in errors (by default their index). ``fn`` and the tasks must
    pickle (``cloudpickle``: lambdas and closures do) when they leave the process. On a
    cluster the tasks travel in batches of ``batch_size`` (by default enough for about
    eight batches per worker thread, at most 1000 tasks a batch), so that short tasks do not
    pay a message each; a worker that dies costs the batches it held, which are run again.
    ``progress`` shows a bar (tasks done / total, time left) when stderr is a terminal.
    On a cluster, ``worker_wait`` seconds (:func:`resolve_worker_wait`) bound every wait for a
    worker.

    >>> run_tasks(len, ["a", "bb"], scheduler="synchronous", progress=True)
    [1, 2]
    """
    tasks = list(tasks)
    names = list(range(len(tasks))) if keys is None else list(keys)
    if len(names) != len(tasks):
        raise ParameterError(f"keys must name every task: {len(names)} keys, {len(tasks)} tasks")
    if isinstance(retries, bool) or not isinstance(retries, int) or retries < 0:
        raise ParameterError(f"retries must be an integer >= 0, got {retries!r}")
    resolved = resolve_scheduler(scheduler)
    if resolved == "auto":
        resolved = "synchronous" if len(tasks) < AUTO_THRESHOLD else "local"
    if not tasks:
        return []
    indexed = list(zip(range(len(tasks)), names, tasks, strict=True))
    bar = _progress_bar(len(tasks), progress)
    try:
        if resolved == "synchronous":
            results = []
            for index, key, task in indexed:
                ok, out = _run_batch(fn, [(index, key, task)])
                if not ok:
                    _raise_failure(*out)
                results += out
                if bar is not None:
                    bar.update(1)
            return results
        wait = resolve_worker_wait(worker_wait)
        return _run_on_cluster(fn, indexed, resolved, retries, batch_size, bar, wait)
    finally:
        if bar is not None:
            bar.close()


def _run_on_cluster(
    fn: Callable[[Any], Any],
    indexed: list[tuple[int, Hashable, Any]],
    scheduler: object,
    retries: int,
    batch_size: int | None,
    bar: Any,
    wait: float,
) -> list[Any]:
    client, close = _client_for(scheduler, wait)
    try:
        _wait_for_a_worker(client, wait)
        if batch_size is None:
            threads = max(1, sum(client.nthreads().values()))
            batch_size = min(1000, max(1, math.ceil(len(indexed) / (8 * threads))))
        elif isinstance(batch_size, bool) or not isinstance(batch_size, int) or batch_size < 1:
            raise ParameterError(f"batch_size must be an integer >= 1, got {batch_size!r}")
        batches = [indexed[i : i + batch_size] for i in range(0, len(indexed), batch_size)]
        with warnings.catch_warnings():
            # a task's function may carry its data (the training chapter's strings, about
            # 35 MiB) to the workers; Dask warns about every such "large graph", which would
            # land on the chapter's page
            warnings.filterwarnings("ignore", "Sending large graph", UserWarning)
            futures = [
                client.submit(_run_batch, fn, batch, pure=False, retries=retries)
                for batch in batches
            ]
        try:
            return _gather(client, futures, bar, wait)
        except BaseException:  # a failed task, no worker left, Ctrl-C, --timeout
            client.cancel(futures)
            raise
    finally:
        if close:
            client.close(timeout=10)


def _scheduler_name(client: Any) -> str:
    return str(getattr(client.scheduler, "address", None) or "the cluster's scheduler")


def _wait_for_a_worker(client: Any, wait: float) -> None:
    try:
        client.wait_for_workers(1, timeout=wait)
    except TimeoutError:
        raise ClusterUnavailable(
            f"scheduler {_scheduler_name(client)} has no worker; waited {wait:g} s "
            f"(${WAIT_VARIABLE} sets how long)"
        ) from None


def _gather(client: Any, futures: list[Any], bar: Any, wait: float) -> list[Any]:
    """The batches' results in order; fails when a task fails, or when the cluster has had no
    worker for ``wait`` seconds (its tasks would wait for one forever)."""
    from distributed import wait as wait_for

    order = {future.key: i for i, future in enumerate(futures)}
    done: list[Any] = [None] * len(futures)
    pending = set(futures)
    alone_since = None
    while pending:
        try:
            finished, pending = wait_for(pending, timeout=_POLL, return_when="FIRST_COMPLETED")
        except TimeoutError:
            finished = set()
        for future in finished:
            ok, out = future.result()
            if not ok:
                _raise_failure(*out)
            done[order[future.key]] = out
            if bar is not None:
                bar.update(len(out))
        if finished or client.nthreads():
            alone_since = None
        elif alone_since is None:
            alone_since = time.monotonic()
        elif time.monotonic() - alone_since > wait:
            raise ClusterUnavailable(
                f"scheduler {_scheduler_name(client)} lost every worker during the sweep; "
                f"waited {wait:g} s for one (${WAIT_VARIABLE} sets how long)"
            )
    return [result for part in done for result in part]
