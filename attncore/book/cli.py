"""The ``attncore`` command: rerun a chapter with new parameters, list them, build the book.

    attncore run CHAPTER -p NAME VALUE ... [-f params.yaml] [-o OUT]
    attncore params CHAPTER
    attncore build [--profile full|smoke]

Bad parameters give a one-line error and exit status 2 before any kernel starts.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from attncore.book.build import PROFILES, BuildFailed, build_book
from attncore.book.parameters import load_yaml
from attncore.book.runner import NotebookFailed, chapter_parameters, find_chapter, run_chapter
from attncore.checks import ParameterError

__all__ = ["main"]


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="attncore", description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    run = commands.add_parser("run", help="run one chapter with new parameters")
    run.add_argument("chapter", help="chapter name (e.g. softmax_saturation) or .md path")
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
    params = commands.add_parser("params", help="list a chapter's parameters")
    params.add_argument("chapter")
    build = commands.add_parser("build", help="execute every chapter and build the book")
    build.add_argument("--profile", choices=PROFILES, default="full")
    return parser


def _collect(args: argparse.Namespace) -> dict[str, object]:
    declared = chapter_parameters(find_chapter(args.chapter))
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


def _params(chapter: str) -> None:
    declared = chapter_parameters(find_chapter(chapter))
    width = max(len(name) for name in declared)
    for name, p in declared.items():
        print(f"{name:<{width}}  {p.type:<11}  default {p.default!r}")
        print(f"{'':<{width}}  {p.help}")


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``attncore`` command; returns the exit status."""
    args = _parser().parse_args(argv)
    try:
        if args.command == "params":
            _params(args.chapter)
        elif args.command == "run":
            values = _collect(args)
            result = run_chapter(args.chapter, values, args.output, progress=True)
            print(f"wrote {result.folder} in {result.seconds:.1f} s")
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
