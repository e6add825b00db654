"""Run one chapter with validated parameters through papermill, into its own run folder.

A chapter's source is a MyST Markdown notebook (``notebooks/<name>.md``), read with jupytext
and executed by papermill in a scratch folder. Its parameters are read and validated once,
here, and reach the kernel through papermill's injected cell. What the kernel hands over
travels in the executed notebook's outputs (see :mod:`attncore.book.kit`): the runner writes
the glued figures to ``figures/``, the tables' data to ``tables/`` (CSV) and the verdict
records into ``manifest.json``, then
publishes the folder as ``<output>/<chapter>/``, replacing any earlier run of the chapter
whole. A failed run leaves the earlier one as it was.

A chapter that reads other chapters' runs (the claims ledger) declares a string parameter
``run_folder``; left empty, it is set to the output folder of this run.

With a :class:`~attncore.book.cache.RunCache`, a run whose key is stored is copied from the
cache instead of executed (a damaged entry is reported, removed and executed again), and a
new run is stored, replacing any entry of its key (a cache that cannot be written costs a
warning, never the run).
"""

from __future__ import annotations

import base64
import json
import logging
import os
import shlex
import shutil
import signal
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import jupytext
import nbformat
import papermill
from jupyter_client.manager import AsyncKernelManager
from nbclient.exceptions import CellTimeoutError, DeadKernelError
from papermill.translators import PythonTranslator

import attncore
from attncore.book.cache import DamagedEntry, RunCache, code_fingerprint, run_key
from attncore.book.chapter import (
    FIGURE_MIME,
    HEADLINE_MIME,
    MEASUREMENT_MIME,
    TABLE_MIME,
    VERDICT_MIME,
)
from attncore.book.explorable import EXPLORABLE_MIME, read_spec
from attncore.book.manifest import source_revision, write_manifest
from attncore.book.parameters import Parameter, read_parameters, validate_parameters
from attncore.book.paths import DATA_DICTIONARY, EXPLORABLES, FIGURES, NOTEBOOKS, ROOT, TABLES
from attncore.book.publish import publish
from attncore.book.tidy_data import data_package
from attncore.checks import ParameterError, warn
from attncore.scratch import remove_orphans, scratch_folder

__all__ = [
    "NotebookFailed",
    "RunResult",
    "WriteFailed",
    "chapter_parameters",
    "check_output_path",
    "find_chapter",
    "is_cached",
    "rerun_command",
    "run_chapter",
    "shown",
    "stop_kernels",
]

RUN_FOLDER = "run_folder"
"""The parameter through which a chapter asks for the folder of the runs it reads."""

_GLUE_PREFIX = "application/papermill.record/"


class NotebookFailed(RuntimeError):
    """A cell of a chapter raised; the message names the chapter, the cell and the error."""


class WriteFailed(RuntimeError):
    """The operating system refused to write a run (a full disk, say); nothing was published
    and the earlier run of the chapter is as it was."""


@dataclass(frozen=True)
class RunResult:
    """Where a chapter's run went, with what parameters, and how long it took."""

    folder: Path
    notebook: Path
    parameters: dict[str, Any]
    seconds: float
    cached: bool = False


def find_chapter(name: str | Path) -> Path:
    """Resolve a chapter name (``softmax_saturation``) or a path to an existing ``.md`` source.

    >>> find_chapter("softmax_saturation").name
    'softmax_saturation.md'
    """
    if not str(name).strip():
        raise ParameterError("chapter must be a chapter name, got an empty name")
    path = Path(name)
    for candidate in (path, path.with_suffix(".md"), ROOT / NOTEBOOKS / f"{path.stem}.md"):
        if candidate.suffix == ".md" and candidate.is_file():
            return candidate.resolve()
    known = ", ".join(sorted(p.stem for p in (ROOT / NOTEBOOKS).glob("*.md")))
    raise ParameterError(f"chapter {name} not found; known chapters: {known}")


def chapter_parameters(source: Path) -> dict[str, Parameter]:
    """The declared parameters of the chapter source ``source``."""
    return read_parameters(_read_source(source))


def _read_source(source: Path) -> nbformat.NotebookNode:
    try:
        return jupytext.read(source)
    except Exception as error:  # jupytext raises many kinds for a malformed file
        raise ParameterError(f"chapter {source} is not a readable MyST notebook: {error}") from None


def _literal(value: Any) -> str:
    return json.dumps(value) if isinstance(value, list | bool) else str(value)


def rerun_command(chapter: str, parameters: dict[str, Any]) -> str:
    """The shell command that reruns ``chapter`` with ``parameters``.

    >>> rerun_command("x", {"n": 4, "scales": [1.0, 8.0]})
    "attncore run x -p n 4 -p scales '[1.0, 8.0]'"
    """
    words = ["attncore", "run", chapter]
    for name, value in parameters.items():
        if name != RUN_FOLDER:
            words += ["-p", name, _literal(value)]
    return shlex.join(words)


_TABLE_HEAD = "| parameter | value | what it is, and allowed values |\n|---|---|---|\n"


def _reproduce_section(
    name: str, values: dict[str, Any], declared: dict[str, Parameter]
) -> nbformat.NotebookNode:
    """The chapter's closing *Reproduce* section: the command and the parameters it ran with."""
    rows = [
        f"| `{p_name}` | `{_literal(value)}` | {declared[p_name].help.replace('|', '/')} |"
        for p_name, value in values.items()
        if p_name != RUN_FOLDER
    ]
    cell = nbformat.v4.new_markdown_cell(
        f"(sec-reproduce-{name.replace('_', '-')})=\n## Reproduce\n\n"
        ":::{dropdown} The command that reruns this page, and its parameters\n"
        "From the repository root, this command reruns this page with the parameters it ran "
        "with; `attncore params " + name + "` lists what each may be.\n\n"
        f"```bash\n{rerun_command(name, values)}\n```\n\n"
        + (_TABLE_HEAD if rows else "")
        + "\n".join(rows)
        + "\n:::"
    )
    cell.metadata["tags"] = ["reproduce"]
    return cell


def _present_parameters(
    nb: nbformat.NotebookNode,
    source: Path,
    values: dict[str, Any],
    declared: dict[str, Parameter],
    output_dir: Path,
) -> None:
    """Hide papermill's injected cell, end the chapter with its *Reproduce* section, and leave
    no path of the machine that ran it in the notebook readers download: a ``run_folder``
    that was the run's own output folder reads as its default ``""`` (the folder the page is
    run into), and papermill's record of its input names the source file, not a copy of
    the whole notebook."""
    defaulted = values.get(RUN_FOLDER) == str(output_dir)
    for cell in nb.cells:
        tags = cell.metadata.get("tags", [])
        if "injected-parameters" in tags:
            cell.metadata["tags"] = [*tags, "remove-cell"]
            if defaulted:
                written = PythonTranslator.translate_escaped_str(str(output_dir))
                cell.source = cell.source.replace(written, '""')
    record = nb.metadata.get("papermill", {})
    record["input_path"] = source.name
    if defaulted and RUN_FOLDER in record.get("parameters", {}):
        record["parameters"][RUN_FOLDER] = ""
    nb.cells.append(_reproduce_section(source.stem, values, declared))


def _failure(name: str, nb: nbformat.NotebookNode, error: Exception) -> NotebookFailed:
    """Name the failing cell by its index in the source (papermill counts its injected cell)."""
    if isinstance(error, papermill.PapermillExecutionError):
        tagged = [i for i, c in enumerate(nb.cells) if "parameters" in c.metadata.get("tags", [])]
        index = (
            error.cell_index - 1 if tagged and error.cell_index > tagged[0] else error.cell_index
        )
        source_line = "".join((error.source or "").strip().splitlines()[:1])
        error_line = "".join((error.evalue or "").strip().splitlines()[:1])
        return NotebookFailed(
            f"{name}: cell {index} ({source_line!r}) raised {error.ename}: {error_line}"
        )
    first_line = "".join(str(error).strip().splitlines()[:1])
    return NotebookFailed(f"{name}: the kernel failed ({type(error).__name__}: {first_line})")


def _outputs(nb: nbformat.NotebookNode) -> list[nbformat.NotebookNode]:
    return [out for cell in nb.cells for out in cell.get("outputs", [])]


def _write_figures(nb: nbformat.NotebookNode, folder: Path) -> list[dict[str, Any]]:
    """Write every glued figure of ``nb`` to ``folder/<key>.png``; return, per figure, its
    file, its width in pixels, the height of its smallest text in pixels and the colours and
    line styles it draws (:func:`attncore.book.plotting.figure_styles`)."""
    facts_of = {
        facts["name"]: facts
        for out in _outputs(nb)
        if (facts := out.get("data", {}).get(FIGURE_MIME))
    }
    explorables = {
        facts["name"] for out in _outputs(nb) if (facts := out.get("data", {}).get(EXPLORABLE_MIME))
    }
    figures = []
    for out in _outputs(nb):
        key = out.get("metadata", {}).get("scrapbook", {}).get("name")
        png = out.get("data", {}).get(_GLUE_PREFIX + "image/png")
        if key and png and key not in explorables:  # whose image is the PDF's, not a figure
            data = base64.b64decode(png)
            folder.mkdir(parents=True, exist_ok=True)
            (folder / f"{key}.png").write_bytes(data)
            width = int.from_bytes(data[16:20], "big")  # the PNG header's IHDR width
            facts = facts_of.get(key, {})
            figures.append(
                {
                    "file": f"{FIGURES}/{key}.png",
                    "width_px": width,
                    "min_text_px": facts.get("min_text_px"),
                    "colours": facts.get("colours"),
                    "line_styles": facts.get("line_styles"),
                }
            )
    return figures


def _write_tables(nb: nbformat.NotebookNode, folder: Path, chapter: str) -> list[str]:
    """Write the data of every table (and figure) the chapter handed over to
    ``folder/<name>.csv``, and their schemas to the data dictionary
    ``folder/datapackage.json``; return the CSV files, relative to the run folder."""
    tables, schemas = {}, {}
    for out in _outputs(nb):
        record = out.get("data", {}).get(TABLE_MIME)
        if record:
            tables[record["name"]] = record["csv"]
            schemas[record["name"]] = record["schema"]
    for name, text in tables.items():
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"{name}.csv").write_text(text, encoding="utf-8")
    if tables:
        package = json.dumps(data_package(chapter, schemas), ensure_ascii=False, indent=1)
        (folder / DATA_DICTIONARY).write_text(package + "\n", encoding="utf-8")
    return [f"{TABLES}/{name}.csv" for name in tables]


def _write_explorables(nb: nbformat.NotebookNode, folder: Path) -> list[dict[str, Any]]:
    """Write the specification of every glued explorable of ``nb`` to ``folder/<key>.json``;
    return, per explorable, its file and the bytes of data it adds to its page."""
    sizes = {
        facts["name"]: facts["data_bytes"]
        for out in _outputs(nb)
        if (facts := out.get("data", {}).get(EXPLORABLE_MIME))
    }
    explorables = []
    for out in _outputs(nb):
        key = out.get("metadata", {}).get("scrapbook", {}).get("name")
        page_html = out.get("data", {}).get(_GLUE_PREFIX + "text/html")
        if key in sizes and page_html:
            folder.mkdir(parents=True, exist_ok=True)
            spec = read_spec(page_html)
            (folder / f"{key}.json").write_text(json.dumps(spec, ensure_ascii=False))
            explorables.append({"file": f"{EXPLORABLES}/{key}.json", "data_bytes": sizes[key]})
    return explorables


def _records(nb: nbformat.NotebookNode, mime: str, key: str) -> list[dict[str, Any]]:
    """The records of type ``mime`` the chapter displayed (verdicts, headlines,
    measurements), in order; a later one with the same ``key`` field wins."""
    records: dict[str, dict[str, Any]] = {}
    for out in _outputs(nb):
        record = out.get("data", {}).get(mime)
        if record:
            records[record[key]] = dict(record)
    return list(records.values())


def run_chapter(
    chapter: str | Path,
    parameters: dict[str, Any],
    output_dir: Path,
    progress: bool = False,
    cache: RunCache | None = None,
    reuse: bool = True,
) -> RunResult:
    """Validate ``parameters``, run ``chapter`` and publish its run folder in ``output_dir``.

    Every declared parameter is injected, defaults included, so the executed notebook
    records the complete set it ran with. With ``cache``, a stored run of the same key is
    reused (unless ``reuse`` is false) and a new run is stored. Raises
    :class:`ParameterError` before any kernel starts if a parameter is unknown or out of
    range, :class:`NotebookFailed` if a cell raises, :class:`WriteFailed` if the operating
    system refuses to write the run (a full disk, say); in every failure the earlier run
    folder stays as it was and nothing else is left behind.
    """
    output_dir = Path(output_dir)
    check_output_path(output_dir)
    source, nb, declared, values, key = _plan(chapter, parameters, output_dir)
    name = source.stem
    created = _missing_folders(output_dir)
    try:
        output_dir.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        _remove_empty(created)
        raise ParameterError(
            f"output {shown(output_dir)} cannot be created: {error.strerror or error}"
        ) from None
    start = time.perf_counter()
    try:
        remove_orphans(output_dir)
        scratch = scratch_folder(output_dir, "run", name)
        try:
            folder = scratch / name
            cached = bool(cache and reuse and _restore(cache, key, folder, name))
            if not cached:
                _run_into(folder, source, nb, declared, values, key, progress, output_dir)
                if cache:
                    _store(cache, key, folder, name)
            publish(folder, output_dir / name)
        finally:
            shutil.rmtree(scratch, ignore_errors=True)
    except (NotebookFailed, KeyboardInterrupt):
        _remove_empty(created)  # a failed first run leaves no empty folder behind
        raise
    except OSError as error:
        _remove_empty(created)
        raise WriteFailed(
            f"{name}: the run could not be written to {shown(output_dir)}: "
            f"{error.strerror or error}; nothing was published"
        ) from None
    target = output_dir / name
    seconds = time.perf_counter() - start
    return RunResult(target, target / f"{name}.ipynb", values, seconds, cached=cached)


def _restore(cache: RunCache, key: str, folder: Path, name: str) -> bool:
    """Copy the cached run of ``key`` to ``folder``; a damaged entry is reported, removed and
    the chapter executed again (False)."""
    try:
        return cache.restore(key, folder)
    except DamagedEntry as damage:
        warn(f"{name}: {damage}; removed it, executing the chapter again")
        return False


def _store(cache: RunCache, key: str, folder: Path, name: str) -> None:
    """Store the finished run in the cache; a cache that cannot be written (read-only, a full
    disk) costs a warning, never the run."""
    try:
        cache.put(key, folder)
    except OSError as error:
        warn(
            f"{name}: the run could not be stored in the cache {shown(cache.folder)} "
            f"({error.strerror or error}); publishing it uncached"
        )


_ROOM = 256
"""Bytes a run's own names add below its output folder (scratch folder, chapter, figures)."""


def check_output_path(output: Path) -> None:
    """Refuse, with a :class:`ParameterError`, an output folder whose path the file system
    cannot hold together with the names a run creates below it.

    >>> check_output_path(Path("runs") / ("x" * 300))  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    attncore.checks.ParameterError: output runs/x...x has a name of 300 bytes; the file system ...
    """
    path = Path(os.path.abspath(output))
    longest = max((len(os.fsencode(part)) for part in path.parts), default=0)
    name_max, path_max = _limits(path)
    if longest > name_max:
        raise ParameterError(
            f"output {shown(output)} has a name of {longest} bytes; the file system allows "
            f"{name_max}"
        )
    if len(os.fsencode(path)) + _ROOM > path_max:
        raise ParameterError(
            f"output {shown(output)} is a path of {len(os.fsencode(path))} bytes; a run "
            f"needs it below {path_max - _ROOM} (the file system allows {path_max})"
        )


def _limits(path: Path) -> tuple[int, int]:
    """The longest name and path the file system of ``path``'s nearest existing folder allows."""
    for folder in path.parents:
        try:
            return os.pathconf(folder, "PC_NAME_MAX"), os.pathconf(folder, "PC_PATH_MAX")
        except OSError:  # not there (yet), or its own path is too long
            continue
    return 255, 4096


def shown(path: Path, width: int = 60) -> str:
    """``path`` as text for a one-line message: a long one keeps its first and last characters.

    >>> shown(Path("a" * 100), 20)
    'aaaaaaaaaaaaaaaaaaaa…aaaaaaaaaa'
    """
    text = str(path)
    return text if len(text) <= width + 10 else f"{text[:width]}…{text[-10:]}"


def _missing_folders(output_dir: Path) -> list[Path]:
    """``output_dir`` and those of its parents that do not exist yet, deepest first."""
    missing = []
    for folder in [output_dir, *output_dir.parents]:
        if os.path.lexists(folder):
            break
        missing.append(folder)
    return missing


def _remove_empty(folders: list[Path]) -> None:
    for folder in folders:
        try:
            folder.rmdir()
        except OSError:  # not empty, or not there
            return


def _plan(
    chapter: str | Path, parameters: dict[str, Any], output_dir: Path
) -> tuple[Path, nbformat.NotebookNode, dict[str, Parameter], dict[str, Any], str]:
    """The chapter's source, notebook, declared parameters, complete validated values and
    run key (what :func:`run_chapter` would run)."""
    source = find_chapter(chapter)
    nb = _read_source(source)
    declared = read_parameters(nb)
    values = {p_name: p.default for p_name, p in declared.items()}
    values.update(validate_parameters(declared, parameters))
    if RUN_FOLDER in declared:
        if not values[RUN_FOLDER]:
            values[RUN_FOLDER] = str(output_dir.resolve())
        elif not _is_folder(values[RUN_FOLDER]):
            raise ParameterError(
                f"parameter {RUN_FOLDER} must be an existing folder, got {values[RUN_FOLDER]!r}"
            )
    reads = Path(values[RUN_FOLDER]) if RUN_FOLDER in declared else None
    key = run_key(source, {k: v for k, v in values.items() if k != RUN_FOLDER}, reads)
    return source, nb, declared, values, key


def is_cached(
    chapter: str | Path, parameters: dict[str, Any], output_dir: Path, cache: RunCache
) -> bool:
    """Whether :func:`run_chapter` with these arguments would reuse a run of ``cache``."""
    return cache.contains(_plan(chapter, parameters, Path(output_dir))[-1])


def _is_folder(text: str) -> bool:
    try:
        return Path(text).is_dir()
    except OSError:  # a name too long for the file system
        return False


def _run_into(
    folder: Path,
    source: Path,
    nb: nbformat.NotebookNode,
    declared: dict[str, Parameter],
    values: dict[str, Any],
    key: str,
    progress: bool,
    output_dir: Path,
) -> None:
    """Execute the chapter and write its notebook, figures, tables and manifest into
    ``folder``, a scratch folder that will be published in ``output_dir``."""
    name = source.stem
    revision = source_revision()
    start = time.perf_counter()
    folder.mkdir()
    executed = _execute(name, nb, values, folder, progress)
    _present_parameters(executed, source, values, declared, output_dir.resolve())
    nbformat.write(executed, folder / f"{name}.ipynb")
    write_manifest(
        folder,
        name,
        values,
        revision,
        attncore_version=attncore.__version__,
        source=str(source),
        code=code_fingerprint(source),
        key=key,
        seconds=round(time.perf_counter() - start, 3),
        ran_at=datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        figures=_write_figures(executed, folder / FIGURES),
        explorables=_write_explorables(executed, folder / EXPLORABLES),
        tables=_write_tables(executed, folder / TABLES, name),
        verdicts=_records(executed, VERDICT_MIME, "claim"),
        headlines=_records(executed, HEADLINE_MIME, "name"),
        measurements=_records(executed, MEASUREMENT_MIME, "name"),
    )


_RUNNING: set[AsyncKernelManager] = set()
"""The kernels this process's runs are executing now."""


def _kernel_class(started: list[AsyncKernelManager]) -> type[AsyncKernelManager]:
    """The kernel manager of one run, which lists its kernel in ``started`` and
    :data:`_RUNNING`, so that a run stopped by Ctrl-C or ``--timeout`` can end the kernel and
    everything it started (a Dask cluster's worker processes) at once (:func:`stop_kernels`)."""

    class Kernel(AsyncKernelManager):
        async def start_kernel(self, **kwargs: Any) -> None:
            await super()._async_start_kernel(**kwargs)
            started.append(self)
            _RUNNING.add(self)

    return Kernel


def _kill(kernel: AsyncKernelManager) -> None:
    """SIGKILL the process group of ``kernel`` (it runs in a session of its own): the kernel
    and its workers end without the interrupt jupyter_client would send first, on which
    those processes print their tracebacks and warnings."""
    pgid = getattr(kernel.provisioner, "pgid", None)
    try:
        if pgid:
            os.killpg(pgid, signal.SIGKILL)
    except OSError:  # gone already
        pass


def stop_kernels() -> None:
    """End every kernel this process is running a chapter in, with the processes each
    started, at once and quietly (``attncore run --timeout`` calls it before it unwinds)."""
    for kernel in list(_RUNNING):
        _kill(kernel)
    logging.getLogger("asyncio").setLevel(logging.CRITICAL)  # the abandoned cells' tasks


def _execute(
    name: str, nb: nbformat.NotebookNode, values: dict, cwd: Path, progress: bool
) -> nbformat.NotebookNode:
    started: list[AsyncKernelManager] = []
    try:
        return papermill.execute_notebook(
            nb,
            None,
            parameters=values,
            # the kernel's working folder; papermill's own cwd= would chdir the whole process,
            # which chapters running in parallel threads cannot share
            resources={"metadata": {"path": str(cwd)}},
            progress_bar=progress,
            log_output=False,
            # the kernel's own log would print ipykernel's notice about its local TCP transport
            # into every run; its errors still reach the terminal
            extra_arguments=["--IPKernelApp.log_level=CRITICAL"],
            kernel_manager_class=_kernel_class(started),
        )
    except (papermill.PapermillExecutionError, DeadKernelError, CellTimeoutError) as error:
        raise _failure(name, nb, error) from None
    except KeyboardInterrupt:  # Ctrl-C, SIGTERM or --timeout: end the kernel and its workers
        for kernel in started:
            _kill(kernel)
        logging.getLogger("asyncio").setLevel(logging.CRITICAL)  # the abandoned cell's task
        raise
    finally:
        _RUNNING.difference_update(started)
