"""The ``attncore`` command: rerun a chapter with new parameters, list them, build the book.

    attncore run NOTEBOOK -p NAME VALUE ... [-f params.yaml] [-o OUT]
    attncore params NOTEBOOK
    attncore build [--profile full|smoke]

Bad parameters give a one-line error and exit status 2 before any kernel starts.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from attncore.build import PROFILES, BuildFailed, build_book
from attncore.checks import ParameterError
from attncore.execution import NotebookFailed, find_notebook, run_notebook
from attncore.parameters import load_yaml, read_parameters

__all__ = ["main"]


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="attncore", description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    run = commands.add_parser("run", help="run one chapter notebook with new parameters")
    run.add_argument("notebook", help="chapter name (e.g. softmax_saturation) or .ipynb path")
    run.add_argument(
        "-p", "--parameter", nargs=2, action="append", default=[], metavar=("NAME", "VALUE")
    )
    run.add_argument("-f", "--file", type=Path, help="YAML file of parameter values")
    run.add_argument(
        "-o",
        "--output",
        type=Path,
        default=Path("runs"),
        help="output folder, shared by chapters so the claims ledger finds their verdicts "
        "(default: runs)",
    )
    params = commands.add_parser("params", help="list a notebook's parameters")
    params.add_argument("notebook")
    build = commands.add_parser("build", help="execute every chapter and build the book")
    build.add_argument("--profile", choices=PROFILES, default="full")
    return parser


def _collect(args: argparse.Namespace) -> dict[str, object]:
    declared = read_parameters(find_notebook(args.notebook))
    values: dict[str, object] = {}
    if args.file:
        if not args.file.is_file():
            raise ParameterError(f"parameter file {args.file} does not exist")
        loaded = load_yaml(args.file.read_text()) or {}
        if not isinstance(loaded, dict):
            raise ParameterError(f"parameter file {args.file} must hold a mapping NAME: VALUE")
        values.update(loaded)
    for name, text in args.parameter:
        if name not in declared:
            raise ParameterError(
                f"unknown parameter {name}; known parameters: {', '.join(declared)}"
            )
        values[name] = declared[name].parse_text(text)
    return values


def _params(notebook: str) -> None:
    declared = read_parameters(find_notebook(notebook))
    width = max(len(name) for name in declared)
    for name, p in declared.items():
        print(f"{name:<{width}}  {p.type:<11}  default {p.default!r}")
        print(f"{'':<{width}}  {p.help}")


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``attncore`` command; returns the exit status."""
    args = _parser().parse_args(argv)
    try:
        if args.command == "params":
            _params(args.notebook)
        elif args.command == "run":
            values = _collect(args)
            result = run_notebook(args.notebook, values, args.output, progress=True)
            print(f"wrote {result.notebook} in {result.seconds:.1f} s")
        else:
            build_book(args.profile)
    except ParameterError as error:
        print(f"attncore: error: {error}", file=sys.stderr)
        return 2
    except (NotebookFailed, BuildFailed) as error:
        print(f"attncore: failed: {error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
