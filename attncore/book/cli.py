"""The ``attncore`` command: rerun a chapter with new parameters, list them, build the book
(and its PDF edition).

    attncore run CHAPTER -p NAME VALUE ... [-f params.yaml] [--profile smoke] [-o OUT] [--no-cache]
                 [--scheduler tcp://HOST:PORT] [--worker-wait SECONDS] [--yes]
                 [--timeout SECONDS]
    attncore params CHAPTER
    attncore build [--profile full|smoke] [--jobs N] [--force] [--pdf]
                   [--scheduler tcp://HOST:PORT] [--worker-wait SECONDS]

``--scheduler`` sends the chapters' sweeps to a Dask cluster (or names ``synchronous``,
``local`` or ``auto``, see :mod:`attncore.simulate.tasks`): it sets ``ATTNCORE_SCHEDULER``
for the kernels, which inherit the environment; an address that is not ``tcp://HOST:PORT``
is refused at once, so is one where nothing listens, and one where something else listens
after at most ``min(--worker-wait, 10 s)``. ``--worker-wait`` (``ATTNCORE_WORKER_WAIT``,
30 s by default) bounds how long a sweep waits for the cluster to have a worker, at the start
or after its workers died. The results
are the same wherever the sweeps run, so the scheduler is not part of a run's cache key.

Bad parameters give a one-line error and exit status 2 before any kernel starts. A value given
with ``-p`` replaces the same name's value from ``-f``. Before a run starts, its time and memory
are estimated (:mod:`attncore.book.budget`): a run that needs more memory than is free is
refused, one estimated above the time budget needs ``--yes`` (both exit status 2); a run
stopped by ``--timeout`` exits with status 124 and publishes nothing.
"""

from __future__ import annotations

import argparse
import math
import os
import signal
import stat
import sys
from pathlib import Path

from attncore.book.budget import TIME_BUDGET, check_budget
from attncore.book.build import PROFILES, BuildFailed, build_book, load_profile
from attncore.book.cache import RunCache
from attncore.book.parameters import MAX_TEXT, Parameter, load_yaml, validate_parameters
from attncore.book.runner import (
    NotebookFailed,
    WriteFailed,
    chapter_parameters,
    check_output_path,
    find_chapter,
    run_chapter,
    stop_kernels,
)
from attncore.checks import ParameterError
from attncore.simulate.tasks import (
    ENVIRONMENT_VARIABLE,
    WAIT_VARIABLE,
    WORKER_WAIT,
    ClusterUnavailable,
    check_listening,
    resolve_scheduler,
    resolve_worker_wait,
)

__all__ = ["main"]


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="attncore", description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    run = commands.add_parser("run", help="run one chapter with new parameters")
    run.add_argument("chapter", help="chapter name (e.g. softmax_saturation) or .md path")
    run.add_argument(
        "-p",
        "--parameter",
        nargs=2,
        action="append",
        default=[],
        metavar=("NAME", "VALUE"),
        help="a parameter value (YAML); wins over the same name in -f",
    )
    run.add_argument("-f", "--file", type=Path, help="YAML file of parameter values NAME: VALUE")
    run.add_argument(
        "--profile",
        choices=PROFILES,
        default=None,
        help="start from a profile of notebooks/profiles.yaml (-f and -p win over it)",
    )
    run.add_argument(
        "-o",
        "--output",
        type=Path,
        default=Path("runs"),
        help="output folder, shared by chapters so the claims ledger finds their verdicts "
        "(default: runs)",
    )
    run.add_argument("--no-cache", action="store_true", help="execute even if a cached run matches")
    run.add_argument(
        "--yes",
        action="store_true",
        help=f"run even if the estimate exceeds the time budget ({TIME_BUDGET / 60:.0f} min)",
    )
    run.add_argument(
        "--timeout",
        type=float,
        default=None,
        metavar="SECONDS",
        help="stop the run after this many seconds, publishing nothing",
    )
    _scheduler_option(run)
    params = commands.add_parser("params", help="list a chapter's parameters")
    params.add_argument("chapter")
    build = commands.add_parser("build", help="execute every chapter and build the book")
    build.add_argument("--profile", choices=PROFILES, default="full")
    build.add_argument(
        "--jobs", type=int, default=None, help="chapters run at once (default: one per core)"
    )
    build.add_argument(
        "--force", action="store_true", help="execute every chapter even if its run is cached"
    )
    _scheduler_option(build)
    build.add_argument(
        "--pdf",
        action="store_true",
        help="also typeset the book as one PDF (_build/html/attncore.pdf), checked against "
        "the pages, which link it (needs TeX Live: make pdf installs it)",
    )
    return parser


def _scheduler_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--scheduler",
        default=None,
        metavar="tcp://HOST:PORT",
        help="where the chapters' sweeps run: a Dask scheduler's address, or synchronous, "
        f"local or auto (default: ${ENVIRONMENT_VARIABLE}, else auto)",
    )
    parser.add_argument(
        "--worker-wait",
        default=None,
        metavar="SECONDS",
        help="how long a sweep waits for a cluster to have a worker before it fails "
        f"(default: ${WAIT_VARIABLE}, else {WORKER_WAIT:g})",
    )


def _set_scheduler(scheduler: str | None, wait: str | None = None) -> None:
    """Check ``--scheduler`` and ``--worker-wait`` and pass them to the kernels through the
    environment; a scheduler address where no Dask scheduler answers is refused
    (:func:`~attncore.simulate.tasks.check_listening`)."""
    if wait is not None:
        os.environ[WAIT_VARIABLE] = f"{resolve_worker_wait(wait.strip()):g}"
    seconds = resolve_worker_wait()  # checks $ATTNCORE_WORKER_WAIT too
    option = "--scheduler" if scheduler is not None else f"${ENVIRONMENT_VARIABLE}"
    try:  # without --scheduler, the kernels would read $ATTNCORE_SCHEDULER: check it here
        resolved = resolve_scheduler(None if scheduler is None else scheduler.strip())
    except ParameterError as error:
        raise ParameterError(f"{option}: {error}" if scheduler is None else str(error)) from None
    if isinstance(resolved, str) and resolved.startswith("inproc://"):
        raise ParameterError(f"{option}: an inproc:// scheduler lives in one process only")
    if isinstance(resolved, str) and "://" in resolved:
        try:
            check_listening(resolved, min(seconds, 10.0))
        except ClusterUnavailable as error:
            raise ParameterError(f"{option}: {error}") from None
    if scheduler is not None:
        os.environ[ENVIRONMENT_VARIABLE] = str(resolved)


def _read_file(path: Path) -> dict[str, object]:
    try:
        facts = path.stat()
    except FileNotFoundError:
        raise ParameterError(f"parameter file {path} does not exist") from None
    except OSError as error:
        raise ParameterError(f"parameter file {path} cannot be read: {error.strerror}") from None
    if not stat.S_ISREG(facts.st_mode):  # a FIFO or a device would block the reader
        raise ParameterError(f"parameter file {path} must be a regular file")
    if facts.st_size > MAX_TEXT:
        raise ParameterError(f"parameter file {path} must be at most {MAX_TEXT} bytes")
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        raise ParameterError(f"parameter file {path} must be readable UTF-8 text") from None
    try:
        loaded = load_yaml(text) or {}
    except ParameterError as error:
        raise ParameterError(f"parameter file {path}: {error}") from None
    if not isinstance(loaded, dict) or not all(isinstance(k, str) for k in loaded):
        raise ParameterError(f"parameter file {path} must hold a mapping NAME: VALUE")
    return loaded


def _collect(args: argparse.Namespace) -> tuple[dict[str, Parameter], dict[str, object]]:
    """The chapter's declared parameters and the values given (profile, then -f, then -p)."""
    source = find_chapter(args.chapter)
    declared = chapter_parameters(source)
    values: dict[str, object] = {}
    if args.profile:
        values.update(load_profile(source.stem, args.profile))
    values.update(_read_file(args.file) if args.file else {})
    for i, (name, text) in enumerate(args.parameter):
        if name not in declared:
            raise ParameterError(
                f"unknown parameter {name[:60]}; known parameters: {', '.join(declared)}"
            )
        if any(name == earlier for earlier, _ in args.parameter[:i]):
            raise ParameterError(f"parameter {name} is given twice with -p")
        values[name] = declared[name].parse_text(text.strip())
    return declared, values


def _check_output(output: Path) -> None:
    """Refuse an output that is a file, a folder (or its nearest existing parent) that
    cannot be written, or a path too long for the file system, before anything runs."""
    check_output_path(output)
    if output.exists() and not output.is_dir():
        raise ParameterError(f"output {output} exists and is not a folder")
    existing = next(p for p in [output, *output.absolute().parents] if p.exists())
    if not existing.is_dir() or not os.access(existing, os.W_OK | os.X_OK):
        raise ParameterError(f"output {output} cannot be written (no write access to {existing})")


def _protect_dash_values(argv: list[str]) -> list[str]:
    """Let a ``-p`` value start with a dash (``-p shift_mean -1e-3``), which argparse would take
    for an option: such a value is passed on behind a space, which YAML ignores."""
    out = list(argv)
    i = 0
    while i < len(out):
        if out[i] in ("-p", "--parameter") and i + 2 < len(out):
            if out[i + 2].startswith("-"):
                out[i + 2] = " " + out[i + 2]
            i += 3
        else:
            i += 1
    return out


def _params(chapter: str) -> None:
    declared = chapter_parameters(find_chapter(chapter))
    width = max(len(name) for name in declared)
    for name, p in declared.items():
        print(f"{name:<{width}}  {p.type:<11}  default {p.default!r}")
        print(f"{'':<{width}}  {p.help}")


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``attncore`` command; returns the exit status."""
    args = _parser().parse_args(_protect_dash_values(sys.argv[1:] if argv is None else argv))
    signal.signal(signal.SIGTERM, _interrupted)
    try:
        if args.command == "params":
            _params(args.chapter)
        elif args.command == "run":
            declared, values = _collect(args)
            _check_output(args.output)
            _set_scheduler(args.scheduler, args.worker_wait)
            need = check_budget(
                args.chapter, validate_parameters(declared, values), confirmed=args.yes
            )
            if need is not None:
                print(f"estimated {need.describe()}", flush=True)
            _start_timer(args.timeout)
            result = run_chapter(
                args.chapter,
                values,
                args.output,
                progress=True,
                cache=RunCache(),
                reuse=not args.no_cache,
            )
            how = "from the cache" if result.cached else f"in {result.seconds:.1f} s"
            print(f"wrote {result.folder} {how}")
        else:
            if args.jobs is not None and args.jobs < 1:
                raise ParameterError(f"--jobs must be an integer >= 1, got {args.jobs}")
            _set_scheduler(args.scheduler, args.worker_wait)
            build_book(args.profile, jobs=args.jobs, force=args.force, pdf=args.pdf)
    except ParameterError as error:
        print(f"attncore: error: {error}", file=sys.stderr)
        return 2
    except (NotebookFailed, WriteFailed, BuildFailed) as error:
        print(f"attncore: failed: {error}", file=sys.stderr)
        return 1
    except TimedOut as error:
        print(f"attncore: failed: {error}; nothing was published", file=sys.stderr)
        return 124
    except KeyboardInterrupt:
        print("attncore: interrupted; nothing was published", file=sys.stderr)
        return 130
    finally:
        signal.alarm(0)
    return 0


class TimedOut(KeyboardInterrupt):
    """``--timeout`` ran out: unwinds like Ctrl-C (the kernel is stopped, scratch removed)."""


def _start_timer(seconds: float | None) -> None:
    """Raise :class:`TimedOut` in ``seconds`` (rounded up to whole seconds)."""
    if seconds is None:
        return
    if not 0 < seconds <= 10**7:
        raise ParameterError(f"--timeout must be a number of seconds in (0, 1e7], got {seconds}")
    limit = math.ceil(seconds)

    def expired(signum: int, frame: object) -> None:
        stop_kernels()  # first, so no interrupt reaches the kernel and its workers
        raise TimedOut(f"the run passed --timeout {limit} s")

    signal.signal(signal.SIGALRM, expired)
    signal.alarm(limit)


def _interrupted(signum: int, frame: object) -> None:
    """SIGTERM unwinds like Ctrl-C, so scratch folders are removed on the way out."""
    raise KeyboardInterrupt


if __name__ == "__main__":
    sys.exit(main())
