"""Run a chapter notebook with validated parameters through papermill.

The executed notebook and its figures are written to a scratch folder first and moved to
their destination only when every cell ran, so a failed run never overwrites a good one.
After execution, papermill's injected-parameters cell is kept but collapsed (tag
``hide-cell``) and followed by a note with the exact command that reruns the chapter.
"""

from __future__ import annotations

import json
import shlex
import shutil
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import nbformat
import papermill
from nbclient.exceptions import CellTimeoutError, DeadKernelError

from attncore.checks import ParameterError
from attncore.parameters import read_parameters, validate_parameters

__all__ = [
    "NOTEBOOK_DIR",
    "NotebookFailed",
    "RunResult",
    "find_notebook",
    "rerun_command",
    "run_notebook",
]

NOTEBOOK_DIR = Path(__file__).resolve().parent.parent / "notebooks"
FIGURE_DIR = "figures"
VERDICT_DIR = "verdicts"


class NotebookFailed(RuntimeError):
    """A cell of a notebook raised; the message names the notebook, the cell and the error."""


@dataclass(frozen=True)
class RunResult:
    """Where an executed notebook went, with what parameters, and how long it took."""

    notebook: Path
    parameters: dict[str, Any]
    seconds: float


def find_notebook(name: str | Path) -> Path:
    """Resolve a chapter name (``softmax_saturation``) or a path to an existing notebook.

    >>> find_notebook("softmax_saturation").name
    'softmax_saturation.ipynb'
    """
    path = Path(name)
    candidates = [path, path.with_suffix(".ipynb"), NOTEBOOK_DIR / path.with_suffix(".ipynb").name]
    for candidate in candidates:
        if candidate.suffix == ".ipynb" and candidate.is_file():
            return candidate.resolve()
    known = ", ".join(sorted(p.stem for p in NOTEBOOK_DIR.glob("*.ipynb")))
    raise ParameterError(f"notebook {name} not found; known chapters: {known}")


def _literal(value: Any) -> str:
    return json.dumps(value) if isinstance(value, list | bool) else str(value)


def rerun_command(notebook: Path, parameters: dict[str, Any]) -> str:
    """The shell command that reruns ``notebook`` with ``parameters``.

    >>> rerun_command(Path("notebooks/x.ipynb"), {"n": 4, "scales": [1.0, 8.0]})
    "attncore run x -p n 4 -p scales '[1.0, 8.0]'"
    """
    words = ["attncore", "run", notebook.stem]
    for name, value in parameters.items():
        words += ["-p", name, _literal(value)]
    return shlex.join(words)


def _present_parameters(path: Path, command: str) -> None:
    nb = nbformat.read(path, as_version=4)
    for index, cell in enumerate(nb.cells):
        tags = cell.metadata.get("tags", [])
        if "injected-parameters" in tags:
            cell.metadata["tags"] = [*tags, "hide-cell"]
            note = nbformat.v4.new_markdown_cell(
                "```{admonition} Rerun this chapter\n:class: tip\n"
                "The parameters this page ran with are in the collapsed cell above. "
                "From the repository root, this command reruns it with the same parameters:\n\n"
                f"    {command}\n```"
            )
            note.metadata["tags"] = ["rerun-command"]
            nb.cells.insert(index + 1, note)
            break
    nbformat.write(nb, path)


def _failure(notebook: Path, error: papermill.PapermillExecutionError) -> NotebookFailed:
    """Name the failing cell by its index in the source notebook (papermill counts its own)."""
    cells = nbformat.read(notebook, as_version=4).cells
    tagged = [i for i, c in enumerate(cells) if "parameters" in c.metadata.get("tags", [])]
    index = error.cell_index - 1 if tagged and error.cell_index > tagged[0] else error.cell_index
    first_source_line = (error.source or "").strip().splitlines()[:1]
    first_error_line = (error.evalue or "").strip().splitlines()[:1]
    return NotebookFailed(
        f"{notebook.name}: cell {index} ({''.join(first_source_line)!r}) raised "
        f"{error.ename}: {''.join(first_error_line)}"
    )


def run_notebook(
    notebook: str | Path,
    parameters: dict[str, Any],
    output_dir: Path,
    progress: bool = False,
) -> RunResult:
    """Validate ``parameters``, run ``notebook``, write it and its figures to ``output_dir``.

    Every declared parameter is injected, defaults included, so the executed notebook
    records the complete set it ran with. The kernel runs in a scratch folder inside
    ``output_dir``; what the notebook writes to ``figures/<notebook>/`` and ``verdicts/``
    there is moved into ``output_dir`` after success, so a later notebook run into the same
    ``output_dir`` (the claims ledger) finds earlier verdicts in ``../verdicts``.
    Raises :class:`ParameterError` before any kernel starts if a parameter is unknown or
    out of range, :class:`NotebookFailed` if a cell raises.
    """
    source = find_notebook(notebook)
    declared = read_parameters(source)
    values = {name: p.default for name, p in declared.items()}
    values.update(validate_parameters(declared, parameters))
    output_dir = Path(output_dir)
    created = not output_dir.exists()
    output_dir.mkdir(parents=True, exist_ok=True)
    start = time.perf_counter()
    try:
        with tempfile.TemporaryDirectory(prefix=f".{source.stem}-", dir=output_dir) as scratch:
            executed = Path(scratch) / source.name
            _execute(source, executed, values, scratch, progress)
            target = _collect(source, executed, values, Path(scratch), output_dir)
    except NotebookFailed:
        if created and not any(output_dir.iterdir()):
            output_dir.rmdir()  # a failed first run leaves no empty folder behind
        raise
    return RunResult(target, values, time.perf_counter() - start)


def _execute(source: Path, executed: Path, values: dict, scratch: str, progress: bool) -> None:
    try:
        papermill.execute_notebook(
            str(source),
            str(executed),
            parameters=values,
            cwd=scratch,
            progress_bar=progress,
            log_output=False,
        )
    except papermill.PapermillExecutionError as error:
        raise _failure(source, error) from None
    except (DeadKernelError, CellTimeoutError) as error:
        first_line = str(error).strip().splitlines()[:1]
        raise NotebookFailed(
            f"{source.name}: the kernel failed ({type(error).__name__}: {''.join(first_line)})"
        ) from None


def _collect(source: Path, executed: Path, values: dict, scratch: Path, output_dir: Path) -> Path:
    """Move the executed notebook, its figures and its verdicts from ``scratch``."""
    _present_parameters(executed, rerun_command(source, values))
    target = output_dir / source.name
    executed.replace(target)
    figures = scratch / FIGURE_DIR / source.stem
    if figures.is_dir():
        destination = output_dir / FIGURE_DIR / source.stem
        shutil.rmtree(destination, ignore_errors=True)
        destination.parent.mkdir(parents=True, exist_ok=True)
        shutil.move(figures, destination)
    for verdict in (scratch / VERDICT_DIR).glob("*.json"):
        (output_dir / VERDICT_DIR).mkdir(exist_ok=True)
        verdict.replace(output_dir / VERDICT_DIR / verdict.name)
    return target
