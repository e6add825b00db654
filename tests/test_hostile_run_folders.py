"""A run folder from a stranger cannot run code in your browser or read your files.

The introduction and the claims ledger read the manifests of a run folder (``-p run_folder
DIR``). Their texts reach the pages escaped, their evidence references only when they name a
section of the chapter, their figures only as regular PNG files inside the folder, and a
manifest that is not a run's (a FIFO, a folder, a link, too large, another chapter's, a field
a run does not write) is refused in one line before any kernel starts.
"""

from __future__ import annotations

import html
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest
from conftest import HEADLESS, REPO

from attncore.book import cli
from attncore.book.answer import own_findings, recommendation
from attncore.book.cache import current_fingerprints, run_key
from attncore.book.intro_page import beyond_sources, key_findings
from attncore.book.ledger_page import ledger_tables
from attncore.book.markup import literal
from attncore.book.run_folders import RunFolderRefused, read_runs, run_figure
from attncore.book.runner import find_chapter, run_chapter
from attncore.claims import ledger

CHROMIUM = shutil.which("chromium")
PAYLOAD = (
    '<script>document.documentElement.dataset.pwned="script"</script>'
    '<img src=x onerror="document.documentElement.dataset.pwned=1" id="payload-img">'
    '\n```{raw} html\n<div id="payload-fence">fence</div>\n```\n'
    '{raw}`html <b id="payload-role">role</b>` :::{raw} html\n<i id="payload-colon">c</i>\n:::\n'
    "[link](javascript:alert(1)) <https://example.org> $x$ *em* &amp; \u202e% comment"
)
PNG = b"\x89PNG\r\n\x1a\n" + bytes(32)


def manifest(chapter: str, **fields: object) -> dict:
    return {
        "chapter": chapter,
        "parameters": {},
        "parameters_hash": "0123456789ab",
        "revision": {"commit": "a" * 40, "dirty": False},
        "code": "c0de",
        "source": "/etc/passwd",
        "verdicts": [],
        "headlines": [],
        "figures": [],
        **fields,
    }


def hostile(folder: Path, payload: str = PAYLOAD) -> Path:
    """A run folder whose every text is ``payload``."""
    threshold = {"name": payload, "value": 2.0, "reason": payload, "band": [1.0, 4.0]}
    flip = {"threshold": payload, "value": 3.0, "verdict": "does not hold"}
    record = {"claim": "vaswani-variance", "verdict": "holds", "measured": payload}
    record |= {"thresholds": [threshold], "fragile": [flip]}
    verdicts = [{**record, "check": payload, "evidence": payload}]
    headline = {"name": "x", "chapter": "every_rescaling", "text": payload, "evidence": payload}
    write(folder, manifest("why_sqrt_d", verdicts=verdicts))
    measured = {"name": "sqrt_d.saturated_share", "chapter": "every_rescaling", "value": 0.5}
    measurements = [{**measured, "evidence": payload}]
    write(folder, manifest("every_rescaling", headlines=[headline], measurements=measurements))
    return folder


def write(folder: Path, run: dict) -> Path:
    (folder / run["chapter"]).mkdir(parents=True, exist_ok=True)
    path = folder / run["chapter"] / "manifest.json"
    path.write_text(json.dumps(run))
    return path


def render(myst: str) -> str:
    """``myst`` as HTML, by the MyST parser and docutils (no Sphinx)."""
    from docutils.core import publish_string
    from myst_parser.parsers.docutils_ import Parser

    settings = {
        "report_level": 5,
        "halt_level": 5,
        "raw_enabled": True,
        "output_encoding": "unicode",
    }
    body = publish_string(myst, parser=Parser(), writer_name="html5", settings_overrides=settings)
    return body.split("<main>", 1)[-1] if "<main>" in body else body.split("<body>", 1)[-1]


MARKERS = ["<script", "<img", 'id="payload', 'href="javascript', 'href="https', "math"]


def markup_left(page: str, emphasis: bool = True, own: str = "") -> list[str]:
    """What in ``page`` came from the payload as markup rather than text (``emphasis``: count
    emphasis too, where the page has none of its own): a marker found more often than in
    ``own``, the same page built from harmless text (the catalogue's quotes hold math)."""
    markers = MARKERS + ["<em"] * emphasis
    return [m for m in markers if page.count(m) > own.count(m)]


@pytest.mark.parametrize(
    "where",
    ["{}", "- {}", "  {}", "* - a\n  - {}", "```{{note}}\n{}\n```"],
    ids=["paragraph", "list item", "indented", "table cell", "directive"],
)
def test_escaped_text_renders_as_written_and_as_nothing_else(where):
    page = render(where.format(literal(PAYLOAD)))
    assert not markup_left(page), markup_left(page)
    shown = " ".join(html.unescape(page).split())
    expected = " ".join(PAYLOAD.replace("\u202e", " ").split())
    assert expected.replace("&amp;", "&") in shown.replace("&amp;", "&")


def pages(folder: Path) -> list[str]:
    """The introduction's findings and headlines and the ledger's tables built from the runs
    in ``folder``, as MyST."""
    runs = read_runs(folder)
    rows = ledger(runs, current_fingerprints(runs))
    return [key_findings(rows), beyond_sources(runs), ledger_tables(rows)]


def test_every_text_of_a_hostile_run_reaches_the_page_escaped(tmp_path):
    harmless = pages(hostile(tmp_path / "harmless", payload="plain words"))
    for myst, own in zip(pages(hostile(tmp_path / "hostile")), harmless, strict=True):
        assert PAYLOAD not in myst and "<script" not in myst and "```{raw}" not in myst
        assert "the run's evidence reference names no section of this chapter" in myst
        page = render(myst.replace("{", "("))  # the book's roles and directives aside
        left = markup_left(page, emphasis=False, own=render(own.replace("{", "(")))
        assert not left, left


def refused(folder: Path, match: str) -> None:
    start = time.perf_counter()
    with pytest.raises(RunFolderRefused, match=match):
        read_runs(folder)
    assert time.perf_counter() - start < 5.0  # a bound on hanging, not a speed check


CASES = {
    "a FIFO": (lambda f: os.mkfifo(f / "why_sqrt_d" / "manifest.json"), "is a FIFO"),
    "a folder": (lambda f: (f / "why_sqrt_d" / "manifest.json").mkdir(), "is a folder"),
    "a link": (
        lambda f: (f / "why_sqrt_d" / "manifest.json").symlink_to("/etc/passwd"),
        "manifest.json is a symbolic link",
    ),
    "too large": (
        lambda f: write(f, manifest("why_sqrt_d", pad="x" * 3_000_000)),
        "more than the 2,000,000 allowed",
    ),
    "not JSON": (
        lambda f: (f / "why_sqrt_d" / "manifest.json").write_bytes(b"\xff{"),
        "is not JSON",
    ),
    "another chapter's": (
        lambda f: write(f, manifest("why_sqrt_d")).rename(f / "derivations" / "manifest.json"),
        "names chapter 'why_sqrt_d', not its folder's, derivations",
    ),
    "a long text": (
        lambda f: write(f, manifest("why_sqrt_d", verdicts=[long_text()])),
        r"verdicts\[0\].measured holds 5,000 characters, more than 4,000",
    ),
    "an unknown verdict": (
        lambda f: write(f, manifest("why_sqrt_d", verdicts=[{**verdict(), "verdict": "x"}])),
        r"verdicts\[0\].verdict must be one of",
    ),
    "a commit with markup": (
        lambda f: write(f, manifest("why_sqrt_d", revision={"commit": "`<b>`", "dirty": 0})),
        "revision must hold a hexadecimal commit",
    ),
    "no code fingerprint": (
        lambda f: write(f, {k: v for k, v in manifest("why_sqrt_d").items() if k != "code"}),
        "code must be text",
    ),
    "a headline of another chapter": (
        lambda f: write(f, manifest("why_sqrt_d", headlines=[{**headline(), "chapter": "x"}])),
        r"headlines\[0\].chapter must be its folder's",
    ),
    "a measurement of another chapter": (
        lambda f: write(f, manifest("why_sqrt_d", measurements=[measurement()])),
        r"measurements\[0\].chapter must be its folder's",
    ),
    "a measurement that is not a number": (
        lambda f: measured(f, value=None),
        r"measurements\[0\].value must be a finite number",
    ),
    "an infinite measurement": (
        lambda f: measured(f).write_text(measured(f).read_text().replace("0.5", "Infinity")),
        "is not JSON a run writes: a number out of range, Infinity",
    ),
    "a fragility record whose verdict is an object": (
        lambda f: write(f, manifest("why_sqrt_d", verdicts=[fragile({"holds": 1})])),
        r"verdicts\[0\].fragile\[0\].verdict must be one of",
    ),
    "a verdict that is a list": (
        lambda f: write(f, manifest("why_sqrt_d", verdicts=[{**verdict(), "verdict": ["x"]}])),
        r"verdicts\[0\].verdict must be one of",
    ),
    "nesting 100,000 deep": (
        lambda f: (f / "why_sqrt_d" / "manifest.json").write_text("[" * 100_000 + "]" * 100_000),
        "nests more deeply than 12 levels",
    ),
    "nesting 20 deep below a field no page reads": (
        lambda f: write(f, manifest("why_sqrt_d", pad=nested(20))),
        "nests more deeply than 12 levels",
    ),
    "a 4,000-digit measurement": (
        lambda f: measured(f).write_text(measured(f).read_text().replace("0.5", "7" * 4000)),
        "an integer of 4,000 digits",
    ),
    "a training length of 1e308 bits": (
        lambda f: lengths(f, train_length=1e308),
        r"measurements\[0\].value must be the run's own train_length: 10",
    ),
    "a longest length the run did not test": (
        lambda f: lengths(f, longest=2_000_000),
        r"measurements\[1\].value must be the run's own train_length, test_lengths: 1000",
    ),
    "a length measured of parameters the chapter does not allow": (
        lambda f: lengths(f, parameters={"train_length": 10, "test_lengths": [10, 10**9]}),
        "parameters.test_lengths is not a value the chapter allows",
    ),
    "a length measured without its parameters": (
        lambda f: lengths(f, parameters={}),
        "parameters.train_length is missing",
    ),
    "a threshold at the open end of its range": (
        lambda f: write(
            f,
            manifest(
                "every_rescaling",
                parameters={"threshold": 0.0},
                measurements=[{**measurement(), "name": "threshold", "value": 0.0}],
            ),
        ),
        "parameters.threshold is not a value the chapter allows",
    ),
    "a negative zero spread": (
        lambda f: measured(f, "string_reversal", name="spread_a", value=-0.0),
        "must be a number in",
    ),
    "a negative share": (
        lambda f: measured(f, "bernhard_figures", name="refill.differing_share", value=-0.001),
        r"must be a number in \[0, 1\], got -0.001",
    ),
    "a negative count": (
        lambda f: measured(f, "bernhard_figures", name="refill.changed_verdicts", value=-3),
        r"must be a whole number in \[0, 1e\+06\], got -3",
    ),
    "a count that is not whole": (
        lambda f: measured(f, "bernhard_figures", name="refill.changed_verdicts", value=2.5),
        "must be a whole number",
    ),
    "a spread of zero": (
        lambda f: measured(f, "string_reversal", name="spread_a", value=0),
        r"must be a number in \[1e-12, 1e\+12\], got 0",
    ),
    "an outcome no rule gives": (
        lambda f: measured(f, "string_reversal", name="gap_a", value="<b>closes</b>"),
        "must be one of none, closes, open",
    ),
    "a measurement the chapter does not hand over": (
        lambda f: measured(f, name="sqrt_d.anything"),
        r"measurements\[0\].name 'sqrt_d.anything' is not a measurement of every_rescaling",
    ),
    "two verdicts for one claim": (
        lambda f: write(f, manifest("why_sqrt_d", verdicts=[verdict(), verdict()])),
        r"verdicts\[1\].claim 'c' appears twice",
    ),
    "two measurements of one name": (
        lambda f: write(
            f, manifest("every_rescaling", measurements=[measurement(), measurement()])
        ),
        r"measurements\[1\].name 'sqrt_d.saturated_share' appears twice",
    ),
    "11,000 headlines": (
        lambda f: write(
            f,
            manifest(
                "why_sqrt_d", headlines=[{**headline(), "name": str(i)} for i in range(11_000)]
            ),
        ),
        "headlines holds 11,000 records, more than 20",
    ),
    "a figure linked to /etc/passwd": (
        lambda f: figure(f, lambda path: path.symlink_to("/etc/passwd")),
        "figures/frontier.png is a symbolic link",
    ),
    "a figure folder linked elsewhere": (
        lambda f: figure(f, lambda path: path.parent.rmdir() or path.parent.symlink_to(f / "zzz")),
        "why_sqrt_d/figures is a symbolic link",
    ),
    "a figure that is not a PNG": (
        lambda f: figure(f, lambda path: path.write_text("#!/bin/sh")),
        "is not a PNG image",
    ),
    "a huge figure": (
        lambda f: figure(f, lambda path: path.touch() or os.truncate(path, 3 * 10**9)),
        "more than the 20,000,000 allowed",
    ),
    "a figure path outside": (
        lambda f: write(f, manifest("why_sqrt_d", figures=[{"file": "../../etc/passwd"}])),
        r"figures\[0\].file must be figures/NAME.png",
    ),
    "a linked chapter folder": (
        lambda f: (f / "why_sqrt_d").rmdir() or (f / "why_sqrt_d").symlink_to("/etc"),
        "why_sqrt_d is a symbolic link",
    ),
}


def verdict() -> dict:
    return {"claim": "c", "verdict": "holds", "measured": "m", "check": "", "evidence": ""}


def lengths(folder: Path, parameters: dict | None = None, **values: float) -> Path:
    """A length chapter's run whose train_length and longest measurements are ``values``."""
    own = {"train_length": 10, "test_lengths": [10, 1000]} if parameters is None else parameters
    values = {"train_length": 10, "longest": 1000, **values}
    records = [
        {"name": k, "chapter": "length_generalization", "value": v, "evidence": "sec-x"}
        for k, v in values.items()
    ]
    return write(folder, manifest("length_generalization", parameters=own, measurements=records))


def fragile(outcome: object) -> dict:
    return {**verdict(), "fragile": [{"threshold": "t", "value": 1.0, "verdict": outcome}]}


def nested(depth: int) -> object:
    """A value ``depth`` levels deep, objects and lists in turn."""
    value: object = 1
    for level in range(depth):
        value = {"x": value} if level % 2 else [value]
    return value


def long_text() -> dict:
    return {**verdict(), "measured": "x" * 5000}


def headline() -> dict:
    return {"name": "n", "chapter": "why_sqrt_d", "text": "t", "evidence": "sec-x"}


def measurement() -> dict:
    return {"name": "sqrt_d.saturated_share", "chapter": "every_rescaling", "value": 0.5} | {
        "evidence": "sec-x"
    }


def measured(folder: Path, chapter: str = "every_rescaling", **fields: object) -> Path:
    """A run folder whose ``chapter`` hands over one measurement with ``fields`` changed."""
    record = {**measurement(), "chapter": chapter, **fields}
    return write(folder, manifest(chapter, measurements=[record]))


def figure(folder: Path, damage) -> None:
    write(folder, manifest("why_sqrt_d", figures=[{"file": "figures/frontier.png"}]))
    path = folder / "why_sqrt_d" / "figures" / "frontier.png"
    path.parent.mkdir()
    damage(path)


@pytest.mark.parametrize(("make", "match"), CASES.values(), ids=CASES.keys())
def test_a_manifest_that_is_not_a_runs_is_refused_in_one_line(tmp_path, make, match):
    (tmp_path / "why_sqrt_d").mkdir()
    (tmp_path / "derivations").mkdir()
    make(tmp_path)
    refused(tmp_path, match)


def test_the_command_refuses_a_hostile_run_folder_before_a_kernel_starts(tmp_path, capsys):
    (tmp_path / "runs" / "why_sqrt_d").mkdir(parents=True)
    os.mkfifo(tmp_path / "runs" / "why_sqrt_d" / "manifest.json")  # used to hang the ledger
    start = time.perf_counter()
    status = cli.main(
        ["run", "claims_ledger", "-p", "run_folder", str(tmp_path / "runs"), "-o", str(tmp_path)]
    )
    err = capsys.readouterr().err
    assert status == 2 and time.perf_counter() - start < 10.0  # it hung
    assert err.count("\n") == 1 and "why_sqrt_d/manifest.json is a FIFO" in err


def test_nothing_a_manifest_names_is_opened(tmp_path):
    """Its ``source`` used to be read to fingerprint the chapter: a FIFO hung the ledger and
    a 3 GB file was read whole; the chapter's own source in the repository is used instead."""
    os.mkfifo(tmp_path / "fifo")
    (tmp_path / "huge").touch()
    os.truncate(tmp_path / "huge", 3 * 10**9)
    runs = tmp_path / "runs"
    write(runs, manifest("why_sqrt_d", source=str(tmp_path / "fifo")))
    write(runs, manifest("softmax_saturation", source=str(tmp_path / "huge")))
    start = time.perf_counter()
    fingerprints = current_fingerprints(read_runs(runs))
    run_key(find_chapter("claims_ledger"), {}, runs)
    assert time.perf_counter() - start < 2.5  # hashing the 3 GB file takes longer
    assert fingerprints["why_sqrt_d"] == current_fingerprints({"why_sqrt_d": {}})["why_sqrt_d"]


def test_a_figure_is_read_from_inside_the_folder_only(tmp_path):
    write(tmp_path, manifest("every_rescaling", figures=[{"file": "figures/frontier.png"}]))
    (tmp_path / "every_rescaling" / "figures").mkdir()
    (tmp_path / "every_rescaling" / "figures" / "frontier.png").write_bytes(PNG)
    assert run_figure(tmp_path, "every_rescaling", "frontier") == PNG
    assert run_figure(tmp_path, "why_sqrt_d", "frontier") is None  # not run
    with pytest.raises(RunFolderRefused, match="do not name a figure"):
        run_figure(tmp_path, "..", "passwd")


def mini_book(root: Path, notebooks: list[Path]) -> Path:
    """A book of the given executed notebooks (the introduction first), built by Sphinx."""
    root.mkdir()
    shutil.copy2(REPO / "_config.yml", root / "_config.yml")
    shutil.copy2(REPO / "CITATION.cff", root / "CITATION.cff")  # every page's footer cites it
    shutil.copytree(REPO / "_static", root / "_static")
    (root / "book" / "generated").mkdir(parents=True)
    shutil.copy2(REPO / "book" / "references.bib", root / "book" / "references.bib")
    for notebook in notebooks:
        shutil.copy2(notebook, root / "book" / "generated" / notebook.name)
    chapters = "".join(f"  - file: book/generated/{n.stem}\n" for n in notebooks[1:])
    (root / "_toc.yml").write_text(
        f"format: jb-book\nroot: book/generated/{notebooks[0].stem}\nchapters:\n{chapters}"
    )
    jupyter_book = Path(sys.executable).with_name("jupyter-book")
    subprocess.run(
        [str(jupyter_book), "build", str(root)], capture_output=True, check=True, timeout=300
    )
    return root / "_build" / "html" / "book" / "generated"


@pytest.mark.notebooks
@pytest.mark.browser
@pytest.mark.skipif(
    CHROMIUM is None and not os.environ.get("CI"),
    reason="chromium is not installed (make test installs it; under CI its absence fails)",
)
def test_pages_built_from_a_hostile_run_folder_run_none_of_it(tmp_path):
    runs = hostile(tmp_path / "hostile")
    out = tmp_path / "out"
    notebooks = [
        run_chapter(chapter, {"run_folder": str(runs)}, out).notebook
        for chapter in ("introduction", "claims_ledger")
    ]
    pages = mini_book(tmp_path / "book", notebooks)
    for page in ("introduction.html", "claims_ledger.html"):
        with tempfile.TemporaryDirectory() as profile:
            flags = [
                *HEADLESS,
                f"--user-data-dir={profile}",
                "--virtual-time-budget=3000",
                "--dump-dom",
            ]
            dom = subprocess.run(
                [CHROMIUM, *flags, (pages / page).as_uri()],
                capture_output=True, text=True, timeout=120, check=True,
            ).stdout  # fmt: skip
        assert "payload-fence" in dom, f"{page}: the payload is not shown as text"
        assert "data-pwned" not in dom, f"{page}: a script from the run folder ran"
        assert 'id="payload' not in dom, f"{page}: an element from the run folder exists"
        assert 'src="x"' not in dom and "javascript:" not in dom.replace("(javascript:", "")


def test_the_answer_escapes_a_hostile_runs_texts_and_refuses_its_section_labels(tmp_path):
    names = ["d", "n", "threshold"] + [
        f"{r}.{c}"
        for r in ("sqrt_d", "none")
        for c in ("selectivity", "selectivity_se", "saturated_share", "jacobian_norm")
    ]
    values = {name: 0.5 for name in names} | {"sqrt_d.selectivity": 0.1, "none.gradient_norm": 1.0}
    values |= {"d": 64, "n": 32}
    values["draws"] = 10
    values["sqrt_d.gradient_norm"] = 0.5
    measurements = [
        {"name": k, "chapter": "every_rescaling", "value": v, "evidence": PAYLOAD}
        for k, v in values.items()
    ]
    headline = {"name": "rescaling-curve", "chapter": "every_rescaling"}
    headlines = [headline | {"text": PAYLOAD, "evidence": PAYLOAD}]
    own = {"d_main": 64, "n_main": 32, "threshold": 0.5, "n_seeds": 10}
    run = manifest("every_rescaling", measurements=measurements, headlines=headlines)
    write(tmp_path, run | {"parameters": own})
    runs = read_runs(tmp_path)
    for myst in (recommendation([], runs), own_findings(runs)):
        assert myst.startswith((":::{admonition} What to use", "- **Where"))
        assert PAYLOAD not in myst and "<script" not in myst
        assert "the run's evidence reference names no section of this chapter" in myst


def test_an_unrelated_link_or_folder_in_a_run_folder_is_skipped_with_a_warning(tmp_path, capsys):
    write(tmp_path, manifest("why_sqrt_d"))
    (tmp_path / "latest").symlink_to(tmp_path / "why_sqrt_d")
    (tmp_path / "notes.txt").symlink_to("/etc/passwd")
    write(tmp_path / "old", manifest("why_sqrt_d"))  # a copy of earlier runs, say
    assert list(read_runs(tmp_path)) == ["why_sqrt_d"]
    err = capsys.readouterr().err
    assert "skipped 'latest', a symbolic link (not followed)" in err
    assert "skipped 'old', not a chapter's folder" in err
    assert "skipped 'notes.txt'" in err and err.count("\n") == 3


def test_a_real_length_run_passes_and_its_longest_length_is_its_own(tmp_path):
    lengths(tmp_path)
    assert read_runs(tmp_path)["length_generalization"]["measurements"][1]["value"] == 1000
