"""The built book: every chapter executed, pages complete, and nothing fetched from another host."""

from __future__ import annotations

import functools
import hashlib
import html
import http.server
import json
import math
import os
import re
import shutil
import subprocess
import tempfile
import threading
from pathlib import Path

import jupytext
import nbformat
import numpy as np
import pytest
import yaml
from conftest import CACHE, HEADLESS, PROFILE, REPO, WITH_PDF
from matplotlib.colors import to_rgb

from attncore.book.build import RUNS, BuildFailed, build_book, load_profile, toc_chapters
from attncore.book.cache import RunCache
from attncore.book.explorable import DATA_BUDGET, MARKER, data_bytes, datasets, read_specs
from attncore.book.kit import VERDICT_COLOURS, ledger_target
from attncore.book.plotting import MIN_TEXT_PX
from attncore.book.runner import chapter_parameters, find_chapter
from attncore.claims import CLAIMS

pytestmark = pytest.mark.notebooks

CHROMIUM = shutil.which("chromium")
REPORT_OUT = """  const pre = document.createElement("pre");
  pre.id = "attncore-probe";
  pre.textContent = JSON.stringify(out);
  document.body.appendChild(pre);
}, 1500));
</script></body>"""
"""How a probe ends: its object ``out``, reported where :func:`probe` reads it."""
PROBE = (
    """<script>
window.addEventListener("load", () => setTimeout(() => {
  const out = {
    resources: performance.getEntriesByType("resource").map(e => e.name),
    brokenImages: Array.from(document.images)
      .filter(i => !(i.complete && i.naturalWidth > 0)).map(i => i.src),
    images: document.images.length,
    math: document.querySelectorAll("mjx-container").length,
    column: (document.querySelector("article.bd-article") || document.body).clientWidth,
    // a table (or the box it scrolls in) fits its column; one in a full-width cell may use
    // the page's width but must end before the right sidebar (if the page has one) and the
    // window's edge
    wideTables: Array.from(document.querySelectorAll("article table"))
      .map(t => t.closest(".pst-scrollable-table-container") || t)
      .filter(t => {
        const box = t.getBoundingClientRect();
        if (!t.closest(".tag_full-width")) {
          return box.width > document.querySelector("article.bd-article").clientWidth + 1;
        }
        const side = document.querySelector(".bd-sidebar-secondary");
        const edge = side && side.offsetWidth ? side.getBoundingClientRect().left
                                              : document.documentElement.clientWidth;
        return box.right > edge + 1;
      })
      .map(t => (t.id || t.textContent.trim().slice(0, 60))),
    // each verdict chip's text and the colour the theme paints it
    chips: Array.from(document.querySelectorAll("article .sd-badge"))
      .map(b => [b.textContent.trim(), getComputedStyle(b).backgroundColor]),
    // search fields and buttons a reader sees
    searchBoxes: Array.from(document.querySelectorAll(
        "input[type=search], .search-button-field, .search-button"))
      .filter(e => !e.closest("dialog") && e.offsetParent !== null
                   && e.getBoundingClientRect().width > 0).length,
    // each figure's image: its text alternative and the file a click opens
    figures: Array.from(document.querySelectorAll("article figure img"))
      .map(i => [i.alt, i.closest("a") ? i.closest("a").href : null, i.src]),
    // code a reader can show whose long lines would run past the right edge of its box
    cutCode: Array.from(document.querySelectorAll("article .cell_input pre"))
      .filter(p => !/pre-wrap|break-spaces/.test(getComputedStyle(p).whiteSpace))
      .map(p => p.textContent.trim().slice(0, 60)),
  };
"""
    + REPORT_OUT
)


def html_pages(root: Path) -> list[Path]:
    html = root / "_build" / "html"
    pages = [p for p in html.rglob("*.html") if p.name not in {"genindex.html", "search.html"}]
    return [p for p in pages if "</body>" in p.read_text()]  # not the redirecting index.html


@pytest.fixture(scope="module")
def served(built_book):
    """The built book served on a loopback port, as a reader's browser would load it."""

    class QuietHandler(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *args: object) -> None:
            pass

    handler = functools.partial(QuietHandler, directory=str(built_book / "_build" / "html"))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}", built_book
    server.shutdown()


SMALLEST_WINDOW = 500
"""The narrowest window headless Chromium opens, in pixels."""


def probe(
    base_url: str,
    html_root: Path,
    page: Path,
    script: str = PROBE,
    budget_ms: int = 10000,
    width: int = 1400,
    dark: bool = False,
) -> dict:
    """Open ``page`` in headless Chromium, ``width`` pixels wide (in the browser's dark mode if
    ``dark``), with ``script`` added and return what it reports (by default its resources,
    images and typeset math), ``budget_ms`` of virtual time on. Headless Chromium keeps its
    window at least :data:`SMALLEST_WINDOW` pixels wide, so a narrower page is opened in a
    frame of that width (its media queries then see the frame's width), and the script
    reports to the window that holds it."""
    probe_page = page.with_name(f".probe-{page.name}")
    probe_page.write_text(page.read_text().replace("</body>", script))
    opened = probe_page
    if width < SMALLEST_WINDOW:
        opened = page.with_name(f".frame-{page.name}")
        opened.write_text(
            f'<!DOCTYPE html><html><body style="margin:0"><iframe src="{probe_page.name}" '
            f'style="width:{width}px;height:1000px;border:0"></iframe></body></html>'
        )
    try:
        with tempfile.TemporaryDirectory() as profile:
            flags = [
                *HEADLESS, f"--user-data-dir={profile}", f"--virtual-time-budget={budget_ms}",
                "--dump-dom", f"--window-size={max(width, SMALLEST_WINDOW)},1000",
            ] + (["--force-dark-mode"] if dark else [])  # fmt: skip
            url = f"{base_url}/{opened.relative_to(html_root).as_posix()}"
            dom = subprocess.run(
                [CHROMIUM, *flags, url], capture_output=True, text=True, timeout=120, check=True
            ).stdout
    finally:
        probe_page.unlink()
        opened.unlink(missing_ok=True)
    found = re.search(r'<pre id="attncore-probe"[^>]*>(.*?)</pre>', dom, flags=re.S)
    assert found, f"the probe did not run on {page.name}"
    return json.loads(found.group(1).replace("&quot;", '"').replace("&amp;", "&"))


def test_book_has_the_introduction_and_every_chapter(built_book):
    html = built_book / "_build" / "html"
    assert "url=book/generated/introduction.html" in (html / "index.html").read_text()
    intro = (html / "book" / "generated" / "introduction.html").read_text()
    assert "Should I use 1/√d?" in intro and "What this book found" in intro
    assert "What the alternatives cost" in intro and "fig-intro-lead" in intro
    for chapter in toc_chapters(built_book):
        page = html / "book" / "generated" / f"{chapter}.html"
        assert page.is_file(), chapter
        text = page.read_text()
        words = re.sub(r"<[^>]+>", "", text)  # the command is highlighted token by token
        assert "Reproduce" in words and "attncore run " + chapter in words
        assert "Traceback" not in text
        assert "output stderr" not in text, f"{chapter} shows a warning or error stream"


def test_the_introduction_shows_every_headline_the_chapters_computed(built_book):
    """Each chapter's headlines reach its manifest and the first page, with their links."""
    import html as entities

    intro = built_book / "_build" / "html" / "book" / "generated" / "introduction.html"
    words = entities.unescape(re.sub(r"<[^>]+>", "", intro.read_text()))
    words = re.sub(r"\s+", " ", words)
    for chapter in ("every_rescaling", "beyond_initialization", "string_reversal"):
        manifest = json.loads((built_book / RUNS / chapter / "manifest.json").read_text())
        assert manifest["headlines"], chapter
        for headline in manifest["headlines"]:
            assert headline["chapter"] == chapter and headline["evidence"].startswith("sec-")
            first_words = " ".join(headline["text"].split()[:6])
            assert first_words in words, (chapter, first_words)


@pytest.mark.parametrize("chapter", toc_chapters())
def test_chapter_ran_without_errors_and_made_its_figures(built_book, chapter):
    generated = built_book / "book" / "generated"
    nb = nbformat.read(generated / f"{chapter}.ipynb", as_version=4)
    for cell in nb.cells:
        for output in cell.get("outputs", []):
            assert output["output_type"] != "error", f"{chapter}: {output.get('ename')}"
    injected = [c for c in nb.cells if "injected-parameters" in c.metadata.get("tags", [])]
    assert len(injected) == 1 and "remove-cell" in injected[0].metadata["tags"]
    assert "## Reproduce" in nb.cells[-1].source
    assert list((built_book / RUNS / chapter / "figures").glob("*.png")), "no figure saved"


def test_no_page_references_another_host_for_a_script_style_image_or_font(built_book):
    html = built_book / "_build" / "html"
    external = re.compile(
        r"""<(?:script|link|img|iframe|source)\b[^>]*\b(?:src|href)=["'](?:https?:)?//"""
    )
    css_url = re.compile(r"""(?:url\(\s*["']?|@import\s+["'])(?:https?:)?//""")
    for page in html_pages(built_book):
        assert not external.search(page.read_text()), page.name
    for sheet in html.rglob("*.css"):
        assert not css_url.search(sheet.read_text(errors="replace")), sheet.name


def test_every_chapter_downloads_its_notebook_rather_than_opening_it(built_book):
    """The theme's link to a page's .ipynb opens a tab of JSON; the book's makes it a download
    of the file that exists (attncore.book.download_links)."""
    html = built_book / "_build" / "html"
    for chapter in toc_chapters(built_book):
        page = html / "book" / "generated" / f"{chapter}.html"
        links = re.findall(
            r'<a href="([^"]+)"([^>]*)class="btn btn-sm btn-download-source', page.read_text()
        )
        assert len(links) == 1, chapter
        href, attributes = links[0]
        assert attributes.split() == ["download"], (chapter, attributes)
        assert (page.parent / href).resolve().is_file(), href


@pytest.mark.browser
@pytest.mark.skipif(
    CHROMIUM is None and not os.environ.get("CI"),
    reason="chromium is not installed (make test installs it; under CI its absence fails)",
)
def test_pages_in_headless_chromium(served):
    assert CHROMIUM, "chromium is not installed: make test installs Debian's chromium"
    base_url, root = served
    html = root / "_build" / "html"
    for page in html_pages(root):
        report = probe(base_url, html, page)
        foreign = [r for r in report["resources"] if not r.startswith(base_url)]
        assert not foreign, f"{page.name} loads {foreign}"
        assert not report["brokenImages"], f"{page.name}: {report['brokenImages']}"
        if 'class="math' in page.read_text():  # Sphinx marks every formula for MathJax
            assert report["math"] > 0, f"{page.name}: math is not typeset"
        if page.parent.name == "generated":
            assert report["images"] > 0, f"{page.name}: no figure"
        assert report["searchBoxes"] == 1, f"{page.name}: {report['searchBoxes']} search boxes"
        for alt, link, source in report["figures"]:  # a tap opens the image at full size
            assert link == source, (page.name, link, source)
            assert alt and not re.fullmatch(r"\S+\.(png|svg)", alt), (page.name, alt)
        assert not report["wideTables"], f"{page.name}: tables wider than the column"
        assert not report["cutCode"], f"{page.name}: code lines cut at the edge {report['cutCode']}"
        for verdict, painted in report["chips"]:  # chips look as in the verdict figures
            if verdict in VERDICT_COLOURS:
                red, green, blue = (round(255 * c) for c in to_rgb(VERDICT_COLOURS[verdict]))
                assert painted == f"rgb({red}, {green}, {blue})", (page.name, verdict, painted)
        manifest = root / RUNS / page.stem / "manifest.json"
        if manifest.is_file():  # every figure's smallest text, as shown in the column
            for figure in json.loads(manifest.read_text())["figures"]:
                if figure["min_text_px"] is None:  # an image glued from another chapter's run
                    continue
                shown = figure["min_text_px"] * min(1, report["column"] / figure["width_px"])
                assert shown >= 0.9 * MIN_TEXT_PX, f"{figure['file']}: text {shown:.1f} px"


def test_a_failing_chapter_names_its_cell_and_keeps_the_last_good_book(built_book, tmp_path):
    root = tmp_path / "repo"
    shutil.copytree(built_book, root)
    index = root / "_build" / "html" / "index.html"
    before = hashlib.sha256(index.read_bytes()).hexdigest()
    generated_before = sorted(p.name for p in (root / "book" / "generated").iterdir())
    kernel = {"name": "python3", "display_name": "Python 3", "language": "python"}
    parameters = nbformat.v4.new_code_cell("seed: int = 1  # seed, in [0, 10]")
    parameters.metadata["tags"] = ["parameters"]
    failing = nbformat.v4.new_code_cell("raise ValueError('deliberate failure')")
    broken = nbformat.v4.new_notebook(cells=[parameters, failing], metadata={"kernelspec": kernel})
    jupytext.write(broken, root / "notebooks" / "broken.md", fmt="md:myst")
    toc = yaml.safe_load((root / "_toc.yml").read_text())
    toc["parts"][0]["chapters"].insert(0, {"file": "book/generated/broken"})  # fails first
    (root / "_toc.yml").write_text(yaml.safe_dump(toc))
    profiles = yaml.safe_load((root / "notebooks" / "profiles.yaml").read_text())
    profiles["broken"] = {"full": {}, "smoke": {}}
    (root / "notebooks" / "profiles.yaml").write_text(yaml.safe_dump(profiles))
    expected = r"broken: cell 1 \(\"raise ValueError.*\"\) raised ValueError: deliberate"
    with pytest.raises(BuildFailed, match=expected):
        build_book("smoke", root=root, cache=RunCache(root / CACHE))
    assert hashlib.sha256(index.read_bytes()).hexdigest() == before
    assert sorted(p.name for p in (root / "book" / "generated").iterdir()) == generated_before


def test_a_rebuild_with_nothing_changed_reuses_every_run_and_makes_the_same_pages(
    built_book, tmp_path, capsys
):
    root = tmp_path / "repo"
    shutil.copytree(built_book, root)
    html = root / "_build" / "html"
    before = {p.relative_to(html): p.read_bytes() for p in html_pages(root)}
    build_book("smoke", root=root, cache=RunCache(root / CACHE), pdf=WITH_PDF)
    summary = capsys.readouterr().out.split("Summary")[-1]
    for chapter in toc_chapters(root):
        assert re.search(rf"{chapter}\s+cached", summary), summary
    after = {p.relative_to(html): p.read_bytes() for p in html_pages(root)}
    assert after.keys() == before.keys()
    report = Path("book") / "execution.html"  # the one page that reports the build itself
    changed = [str(page) for page in before if before[page] != after[page] and page != report]
    assert not changed, f"pages differ between the uncached and the cached build: {changed}"
    rows = _report_rows(after[report].decode())
    assert rows and all(row[6] == "yes" for row in rows.values()), rows


def _report_rows(page: str) -> dict[str, list[str]]:
    """The execution report's rows (its cells' text) by chapter page."""
    rows = {}
    for row in re.findall(r"(?s)<tr[^>]*>(.*?)</tr>", page):
        cells = [
            html.unescape(re.sub(r"<[^>]+>", "", c)).strip()
            for c in re.findall(r"(?s)<td[^>]*>(.*?)</td>", row)
        ]
        link = re.search(r'href="generated/(\w+)\.html"', row)
        if link and cells:
            rows[link.group(1)] = cells
    return rows


def test_the_execution_report_lists_every_chapter_and_how_it_ran(built_book):
    """The build's execution report has a row per chapter (parameters hash, commit, code
    fingerprint, time of the run, seconds, whether the cache gave it, the estimate) and the
    total beside the estimate; the scratch build executed every chapter."""
    page = (built_book / "_build" / "html" / "book" / "execution.html").read_text()
    rows = _report_rows(page)
    assert sorted(rows) == sorted(toc_chapters(built_book))
    for chapter, cells in rows.items():
        manifest = json.loads((built_book / RUNS / chapter / "manifest.json").read_text())
        assert cells[1] == manifest["parameters_hash"][:8], chapter
        commit = manifest["revision"]["commit"][:8]
        assert re.fullmatch(rf"{commit}\*?|—", cells[2]), chapter
        assert cells[3] == manifest["code"][:8], chapter
        assert re.fullmatch(r"\d{4}-\d\d-\d\d\s\d\d:\d\d", cells[4]), chapter
        assert float(cells[5].replace(",", "")) == pytest.approx(manifest["seconds"], abs=0.051)
        assert cells[6] == "no" and re.fullmatch(r"[\d,]+|—", cells[7]), chapter
    assert re.search(r"This build ran (\d+) of its \1 chapters", page)


def test_every_verdict_links_to_its_ledger_row_and_every_row_to_its_evidence(built_book):
    html = built_book / "_build" / "html" / "book" / "generated"
    ledger = (html / "claims_ledger.html").read_text()
    for claim in CLAIMS:
        assert f'id="{ledger_target(claim)}"' in ledger, claim
    linked = set()
    for page in html.glob("*.html"):
        linked |= set(re.findall(r'claims_ledger\.html#(ledger-[a-z0-9-]+)"', page.read_text()))
    decided = set()
    runs = built_book / RUNS
    for manifest in runs.glob("*/manifest.json"):
        for record in json.loads(manifest.read_text())["verdicts"]:
            decided.add(record["claim"])
            assert ledger_target(record["claim"]) in linked, f"no link to {record['claim']}'s row"
            target = html / f"{record['chapter']}.html"
            assert f'id="{record["evidence"]}"' in target.read_text(), record["evidence"]
            assert f'{record["chapter"]}.html#{record["evidence"]}"' in ledger, record["claim"]
    assert decided, "no chapter recorded a verdict"


def test_no_raw_python_reprs_in_prose_or_tables(built_book):
    html = built_book / "_build" / "html" / "book" / "generated"
    raw = re.compile(
        r"Eq\(|array\(|<td[^>]*>\s*(?:<p>)?\s*(?:True|False|None|nan)\s*(?:</p>)?\s*</td>"
        r'|class="dataframe|<table id="T_'  # a raw pandas frame instead of a numbered table
    )
    for page in html.glob("*.html"):
        text = re.sub(r"<(script|style)\b.*?</\1>", "", page.read_text(), flags=re.S)
        found = raw.search(text)
        assert not found, f"{page.name}: {found.group(0)[:80]}"


def test_negative_numbers_carry_a_minus_sign_not_a_hyphen(built_book):
    """Outside code and mathematics, no number of any page starts with a hyphen-minus, nor
    does its exponent."""
    html = built_book / "_build" / "html" / "book" / "generated"
    hidden = (
        r"<(script|style|pre|code|math)\b.*?</\1>"
        r'|<(span|div) class="math[^"]*"[^>]*>.*?</\2>'  # mathematics, set by MathJax
    )
    for page in html.glob("*.html"):
        body = page.read_text().split('<article class="bd-article"', 1)[-1]
        text = re.sub(r"<[^>]+>", " ", re.sub(hidden, "", body, flags=re.S))
        found = re.search(r"(?<![\w.\-−])-\.?\d.{0,30}|\d[eE]-\d", text)
        assert not found, f"{page.name}: {found.group(0)}"


def test_no_raw_markup_in_the_visible_text(built_book):
    """Outside code and typeset mathematics, no page shows MyST or TeX as written: ``$d$``, a
    role such as ``{eq}`` or ``{ref}``, ``\\text{`` or ``\\sqrt`` (a section title with
    mathematics quoted as link text, say)."""
    hidden = (
        r"<(script|style|pre|code|math)\b.*?</\1>"
        r'|<(span|div) class="math[^"]*"[^>]*>.*?</\2>'  # mathematics, set by MathJax
    )
    raw = re.compile(
        r"\$[^$\s][^$<>]{0,40}\$|\{(?:eq|ref|doc|numref|cite:[tp])\}|\\(?:text|sqrt|frac)\b"
    )
    for page in html_pages(built_book):
        body = page.read_text().split('<article class="bd-article"', 1)[-1]
        text = html.unescape(re.sub(r"<[^>]+>", " ", re.sub(hidden, "", body, flags=re.S)))
        found = raw.search(text)
        assert not found, f"{page.name}: {text[max(0, found.start() - 60) : found.end() + 20]}"


def test_a_table_cell_holds_no_block_its_text_began_by_accident(built_book):
    """A cell whose text starts like a Markdown block ("> 99.9") stays text: no cell of any
    page is a quotation, a list or a heading (Tables 7.4 and 7.5 once showed "99.9" in a grey
    quotation box, its ">" lost)."""
    for page in html_pages(built_book):
        found = re.search(r"<td[^>]*>\s*<(blockquote|ul|ol|h\d)\b", page.read_text())
        assert not found, f"{page.name}: a table cell starts a <{found[1]}>"


def test_one_of_a_thing_takes_the_singular(built_book):
    """No "1 passes", "1 seeds" or "1 draws" in the visible text (a table's cells apart)."""
    plural = re.compile(
        r"(?<![\d.,−-])1\s+(passes|seeds|steps|runs|draws|verdicts|methods|strings|searches)\b"
    )
    for page in html_pages(built_book):
        body = page.read_text().split('<article class="bd-article"', 1)[-1]
        body = re.sub(r"<(script|style)\b.*?</\1>", "", body, flags=re.S)
        body = re.sub(r"</?(td|th|tr|p|li|div|table|h\d)\b[^>]*>", " | ", body)  # blocks apart
        text = html.unescape(re.sub(r"<[^>]+>", "", body))
        found = plural.search(text)
        assert not found, f"{page.name}: {text[max(0, found.start() - 60) : found.end() + 20]}"


def test_the_frontier_table_gives_each_factor_to_three_significant_digits(built_book):
    """The factor c spans decades: 1/√d at d = 64 reads 0.125, not the column's 0.1."""
    values = {
        **{n: p.default for n, p in chapter_parameters(find_chapter("every_rescaling")).items()},
        **load_profile("every_rescaling", PROFILE, built_book),
    }
    page = built_book / "_build" / "html" / "book" / "generated" / "every_rescaling.html"
    table = page.read_text().split('id="tbl-frontier"', 1)[1].split("</table>", 1)[0]
    rows = {
        cells[0]: cells[1]
        for row in re.findall(r"<tr[^>]*>(.*?)</tr>", table, re.S)
        if len(
            cells := [
                re.sub(r"<[^>]+>", "", c).strip()
                for c in re.findall(r"<td[^>]*>(.*?)</td>", row, re.S)
            ]
        )
        > 1
    }
    assert rows["1/√d"] == f"{1 / math.sqrt(values['d_main']):.3g}", rows["1/√d"]
    assert rows["none"] == "1"


def test_a_seed_is_printed_as_the_number_it_is(built_book):
    """A seed names a random stream: ``20231004``, never ``20,231,004``."""
    for chapter in toc_chapters(built_book):
        declared = chapter_parameters(find_chapter(built_book / "notebooks" / f"{chapter}.md"))
        values = {
            **{n: p.default for n, p in declared.items()},
            **load_profile(chapter, PROFILE, built_book),
        }
        seeds = [v for name, v in values.items() if name.endswith("seed") and v >= 1000]
        page = built_book / "_build" / "html" / "book" / "generated" / f"{chapter}.html"
        text = page.read_text() if page.exists() else ""
        for seed in seeds:
            assert f"{seed:,}" not in text, f"{chapter}: seed {seed} printed as {seed:,}"


MOVE_SLIDERS = """<script>
window.addEventListener("load", () => setTimeout(async () => {
  // the data of every named mark of a Vega view, as plotted
  const marks = (view) => {
    const found = {};
    (function walk(node) {
      if (node.marktype && node.marktype !== "group" && node.name) {
        found[node.name] = (node.items || []).map((item) => ({...item.datum}));
      }
      (node.items || []).forEach(walk);
    })(view.scenegraph().root);
    return found;
  };
  const explorables = [];
  let error = null;
  try {
  for (const figure of document.querySelectorAll(".attncore-explorable")) {
    for (let i = 0; i < 100 && !figure.dataset.ready; i++) {
      await new Promise((done) => setTimeout(done, 100));
    }
    const entry = {ready: figure.dataset.ready || "never", sliders: [], moves: []};
    explorables.push(entry);
    if (entry.ready !== "true") continue;
    const view = figure.attncoreView;
    const inputs = Array.from(figure.querySelectorAll(".vega-bind input"));
    const state = () => Object.fromEntries(inputs.map((i) => [i.name, Number(i.value)]));
    entry.sliders = inputs.map((i) => ({
      name: i.name, type: i.type, min: Number(i.min), max: Number(i.max),
      label: i.closest("label") ? i.closest("label").textContent : null,
      valuetext: i.getAttribute("aria-valuetext"), focusable: i.tabIndex >= 0,
    }));
    entry.start = {state: state(), marks: marks(view)};
    for (const input of inputs) {  // each slider to the other end of its grid, in turn
      input.value = Number(input.value) === Number(input.max) ? input.min : input.max;
      input.dispatchEvent(new Event("input", {bubbles: true}));
      await view.runAsync();
      const shown = input.nextElementSibling.textContent;
      input.dispatchEvent(new Event("change", {bubbles: true}));  // a release, an arrow key
      await view.runAsync();
      entry.moves.push({slider: input.name, state: state(), marks: marks(view),
                        valuetext: input.getAttribute("aria-valuetext"), shown: shown,
                        released: input.nextElementSibling.textContent});
    }
  }
  } catch (e) {
    error = String(e) + " " + e.stack;
  }
  const pre = document.createElement("pre");
  pre.id = "attncore-probe";
  const resources = performance.getEntriesByType("resource").map((e) => e.name);
  try {
    pre.textContent = JSON.stringify({explorables, error, resources});
  } catch (e) {
    pre.textContent = JSON.stringify({explorables: [], error: String(e), resources});
  }
  document.body.appendChild(pre);
}, 1500));
</script></body>"""


def _rows(table, state, *sliders):
    """The rows of ``table`` at the sliders' selected grid indices."""
    chosen = table
    for name in sliders:
        chosen = chosen[chosen[name] == state[name]]
    return chosen


def _mark(marks, name):
    """The items of the unit ``name`` (Vega-Lite names its marks ``name_marks``, with the
    unit's place added inside a layer: ``name_0_marks``)."""
    found = [m for m in marks if re.fullmatch(rf"{name}(_\d+)?_marks", m)]
    assert len(found) == 1, (name, sorted(marks))
    return marks[found[0]]


def _plotted(marks, name, columns):
    return sorted(tuple(round(float(item[c]), 12) for c in columns) for item in _mark(marks, name))


def _expected(table, columns):
    return sorted(tuple(round(float(v), 12) for v in row) for row in table[columns].to_numpy())


def _check_frontier(data, state, marks):
    curve = _rows(data["curve_data"], state, "d_index", "n_index")
    curve = curve[(curve["selectivity"] > 0) & (curve["wasserstein"] > 0)]
    xy = ["selectivity", "wasserstein"]
    assert _plotted(marks, "curve", xy) == _expected(curve, xy)
    chosen = _rows(curve, state, "f_index")
    assert _plotted(marks, "factor", xy) == _expected(chosen, xy)
    points = _rows(data["rescaling_data"], state, "d_index", "n_index")
    shown = _mark(marks, "rescalings") + _mark(marks, "references")
    assert sorted(item["rescaling"] for item in shown) == sorted(points["rescaling"])
    assert _plotted({"all_marks": shown}, "all", xy) == _expected(points, xy)
    text = _mark(marks, "readout")[0]["text"]
    assert f"W₁ {chosen['wasserstein'].iloc[0]:.3f}" in text, text


def _check_worked_example(data, state, marks):
    rows = _rows(data["probabilities"], state, "c_index")
    columns = ["key", "probability"]
    assert _plotted(marks, "probabilities", columns) == _expected(rows, columns)
    measures = _rows(data["measures"], state, "c_index")
    assert _plotted(marks, "measures", ["c", "value"]) == _expected(measures, ["c", "value"])


def _check_panels(data, state, marks):
    for panel, row in (
        _rows(data["panels"], state, "n_index", "d_index").set_index("panel").iterrows()
    ):
        density = [float(v) for v in row["density"].split(" ")]
        items = _mark(marks, f"panel_{panel}")
        assert [item["density"] for item in items] == density, panel
        x = np.linspace(row["lo"], row["hi"], len(density))
        np.testing.assert_allclose([item["x"] for item in items], x, rtol=1e-9, atol=1e-12)
        text = _mark(marks, f"readout_{panel}")[0]["text"].replace("−", "-")  # d3's minus
        shown = float(re.search(r"skewness (\S+)", text).group(1))
        assert abs(shown - row["skewness"]) <= 0.005 + 1e-12, (panel, text)


_CHECKS = {"curve_data": _check_frontier, "probabilities": _check_worked_example,
           "panels": _check_panels}  # fmt: skip
"""How the plotted values of each kind of explorable are read, by the name of its data."""


@pytest.mark.browser
@pytest.mark.skipif(
    CHROMIUM is None and not os.environ.get("CI"),
    reason="chromium is not installed (make test installs it; under CI its absence fails)",
)
def test_moving_each_slider_plots_the_precomputed_values_and_loads_nothing_else(served):
    """Every explorable of every page: its sliders are labelled range inputs a keyboard can
    reach; moving each to another grid value plots exactly the values the page carries for
    that setting, which are the chapter run's; and no request leaves the book's host."""
    assert CHROMIUM, "chromium is not installed: make test installs Debian's chromium"
    base_url, root = served
    html = root / "_build" / "html"
    checked = []
    for page in html_pages(root):
        specs = read_specs(page.read_text())
        if not specs:
            continue
        runs = root / RUNS / page.stem / "explorables"
        saved = [json.loads(p.read_text()) for p in sorted(runs.glob("*.json"))]
        assert sorted(map(json.dumps, specs)) == sorted(map(json.dumps, saved)), page.name
        report = probe(base_url, html, page, MOVE_SLIDERS, budget_ms=40000)
        assert report["error"] is None, f"{page.name}: {report['error']}"
        assert not [r for r in report["resources"] if not r.startswith(base_url)], page.name
        assert len(report["explorables"]) == len(specs), page.name
        for spec, shown in zip(specs, report["explorables"], strict=True):
            data = datasets(spec)
            check = next(_CHECKS[name] for name in data if name in _CHECKS)
            labels = spec["usermeta"]["attncore"]["sliders"]
            assert shown["ready"] == "true", page.name
            assert [s["name"] for s in shown["sliders"]] == list(labels)
            for slider in shown["sliders"]:
                assert slider["type"] == "range" and slider["focusable"], slider
                assert slider["label"].strip() and slider["max"] == len(labels[slider["name"]]) - 1
            check(data, shown["start"]["state"], shown["start"]["marks"])
            for move in shown["moves"]:
                assert move["state"] != shown["start"]["state"]
                text = labels[move["slider"]][move["state"][move["slider"]]]
                assert move["valuetext"] == move["shown"] == move["released"] == text
                check(data, move["state"], move["marks"])
            assert shown["moves"][-1]["marks"] != shown["start"]["marks"]
            checked.append(check.__name__)
    assert sorted(checked) == sorted(_CHECKS[name].__name__ for name in _CHECKS)


def test_every_page_carries_less_explorable_data_than_its_budget(built_book):
    """The data of a page's explorables, as the manifests record them, stay under
    DATA_BUDGET; pages without one load no Vega."""
    for page in html_pages(built_book):
        text = page.read_text()
        specs = read_specs(text)
        assert sum(data_bytes(spec) for spec in specs) < DATA_BUDGET, page.name
        assert ("vega-bundle-" in text) == (MARKER in text), page.name
        manifest = built_book / RUNS / page.stem / "manifest.json"
        if manifest.is_file():
            recorded = json.loads(manifest.read_text())["explorables"]
            assert sorted(e["data_bytes"] for e in recorded) == sorted(map(data_bytes, specs))


def test_every_page_names_the_version_commit_and_date_of_its_build(built_book):
    """The footer of every page says what it was built from, and links how to cite it."""
    citation = yaml.safe_load((built_book / "CITATION.cff").read_text())
    url = yaml.safe_load((built_book / "_config.yml").read_text())["repository"]["url"]
    for page in html_pages(built_book):
        footer = re.search(r'<p class="attncore-build">(.*?)</p>', page.read_text(), flags=re.S)
        assert footer, f"{page.name} has no build line in its footer"
        text = footer.group(1)
        assert f"attncore {citation['version']}" in text and f'href="{url}"' in text, text
        assert re.search(r"commit (<a [^>]+>)?([0-9a-f]{12}|unknown)", text), text
        assert re.search(r"of \d{4}-\d{2}-\d{2}", text) or "unknown" in text, text
        assert "#sec-how-to-cite" in text
        if page.stem == "introduction":  # the first page links its own box, not "##…"
            assert 'href="#sec-how-to-cite"' in text, text
    intro = built_book / "_build" / "html" / "book" / "generated" / "introduction.html"
    words = re.sub(r"<[^>]+>", "", intro.read_text())  # the BibTeX is highlighted in spans
    assert 'id="sec-how-to-cite"' in intro.read_text() and "@misc{attncore," in words


def test_no_file_of_the_site_names_a_path_of_the_build_machine(built_book):
    """The pages, the .ipynb downloads and the CSV files name neither the folder the book
    was built in, nor the temporary folder, nor the virtual environment."""
    import sys

    html = built_book / "_build" / "html"
    machine = {str(built_book), str(REPO), tempfile.gettempdir() + "/", sys.prefix}
    for path in html.rglob("*"):
        if path.suffix not in {".html", ".ipynb", ".csv", ".txt", ".json", ".js", ".md"}:
            continue
        text = path.read_text(errors="replace")
        for folder in machine:
            assert folder not in text, f"{path.relative_to(html)} names {folder}"


def test_every_table_comes_with_its_data_as_csv_and_none_is_split(built_book):
    """Each numbered table a chapter shows is written to its run folder as CSV, and the page
    links the copy the site serves; no table is cut into parts."""
    import html as entities

    generated = built_book / "_build" / "html" / "book" / "generated"
    served_tables = 0
    for chapter in toc_chapters(built_book):
        page = (generated / f"{chapter}.html").read_text()
        assert "(part 1 of" not in page, chapter
        manifest = json.loads((built_book / RUNS / chapter / "manifest.json").read_text())
        for table in manifest.get("tables", []):
            written = built_book / RUNS / chapter / table
            link = re.search(rf'href="([^"]*/{re.escape(Path(table).name)})"', page)
            assert link, f"{chapter}: no link to {table}"
            target = (generated / entities.unescape(link.group(1))).resolve()
            assert target.read_bytes() == written.read_bytes(), table
            assert written.read_text().count("\n") >= 2, f"{table} holds no row"
            served_tables += 1
    assert served_tables >= 20


DISPLAY_NUMBER = re.compile(r"^\s*[-−+]?\d[\d.,]*\s*(?:%|\(|to\b|±)")
"""Text made from a number for the eye: a percentage, a number with its interval."""


def test_every_csv_is_tidy_data_with_its_data_dictionary(built_book):
    """Every CSV of the build holds one value per cell under a plain column name, and the
    run's data dictionary describes each of its columns with a type that pandas finds: the
    numeric columns read as numbers, and no text column holds a number formatted for the
    eye."""
    import pandas as pd

    from attncore.book.paths import DATA_DICTIONARY, TABLES
    from attncore.book.tidy_data import PLAIN_NAME

    read = 0
    for chapter in toc_chapters(built_book):
        manifest = json.loads((built_book / RUNS / chapter / "manifest.json").read_text())
        if not manifest.get("tables"):
            continue
        package = json.loads((built_book / RUNS / chapter / TABLES / DATA_DICTIONARY).read_text())
        schemas = {Path(r["path"]).stem: r["schema"] for r in package["resources"]}
        for table in manifest["tables"]:
            data = pd.read_csv(built_book / RUNS / chapter / table)
            fields = schemas[Path(table).stem]["fields"]
            assert [f["name"] for f in fields] == list(data.columns), table
            for field in fields:
                column, name = data[field["name"]], f"{table}: {field['name']}"
                assert PLAIN_NAME.fullmatch(field["name"]), name
                assert field["title"], name
                if field["type"] in ("number", "integer"):
                    assert pd.api.types.is_numeric_dtype(column), name
                elif field["type"] == "string":
                    text = column.dropna().astype(str)
                    assert not text.str.contains(DISPLAY_NUMBER).any(), name
            read += 1
    assert read >= 20


@pytest.mark.skipif(not WITH_PDF, reason="TeX Live is not installed (make test installs it)")
def test_the_pdf_edition_matches_the_pages_and_page_one_links_it(built_book):
    """The build typesets the book as one PDF (offline, XeLaTeX) and publishes it only when
    it matches the pages (the build checks LaTeX's numbers against the site's): every
    chapter of the site in it, nothing unresolved, every font embedded; page one links it."""
    from attncore.book.paths import GENERATED
    from attncore.book.pdf import numbered_items, pdf_problems
    from attncore.book.pdf_edition import PDF_NAME

    site = built_book / "_build" / "html"
    pdf = site / PDF_NAME
    assert pdf.read_bytes()[:5] == b"%PDF-"
    numbers = {}
    for page in (site / GENERATED).glob("*.html"):
        items = numbered_items(page.read_text(), f"{GENERATED.as_posix()}/{page.stem}")
        numbers |= {label: item.split()[-1].strip("()") for label, item in items.items()}
    assert len(numbers) >= 40
    assert pdf_problems(pdf, site, numbers) == []
    page_one = (site / GENERATED / "introduction.html").read_text()
    link = re.search(r'<p class="attncore-pdf-edition">.*?href="([^"]+)"', page_one, re.S)
    assert link, "page one does not link the PDF"
    assert (site / GENERATED / link.group(1)).resolve() == pdf.resolve()


@pytest.mark.skipif(not WITH_PDF, reason="TeX Live is not installed (make test installs it)")
def test_the_pdf_check_names_what_the_pdf_lacks(built_book, tmp_path):
    """Against pages with a chapter the PDF does not have, and a figure LaTeX numbered
    otherwise or not at all, and a LaTeX log with a citation left unresolved and text past
    the bottom of a page, the check names each."""
    from attncore.book.paths import GENERATED
    from attncore.book.pdf import latex_numbers, pdf_problems
    from attncore.book.pdf_edition import PDF_NAME

    site = built_book / "_build" / "html"
    shutil.copytree(site / GENERATED, tmp_path / GENERATED)
    shutil.copy2(site / "index.html", tmp_path / "index.html")
    for page in (tmp_path / GENERATED).glob("*.html"):  # numbered items of these pages only
        page.write_text(re.sub(r'class="(caption-number|eqno)"', "", page.read_text()))
    page_one = tmp_path / GENERATED / "introduction.html"
    extra = '<li class="toctree-l1"><a class="reference internal" href="x.html">99. Absent</a>'
    extra += '<figure id="fig-a"><span class="caption-number">Fig. 99.1 </span></figure>'
    extra += '<figure id="fig-b"><span class="caption-number">Fig. 99.2 </span></figure>'
    page_one.write_text(page_one.read_text() + extra)
    aux = r"\newlabel{book/generated/introduction:fig-a}{{99.3}{1}{}{figure.99.3}{}}"
    log = "Overfull \\vbox (244.9pt too high) has occurred while \\output is active []\n"
    log += "LaTeX Warning: Citation `x2023' on page 4 undefined on input line 9.\n"
    problems = pdf_problems(site / PDF_NAME, tmp_path, latex_numbers(aux), log)
    assert problems == [
        "citation x2023 is unresolved",
        "text runs past the bottom of a page",
        "chapter 99 (Absent) is not in the PDF",
        "Fig. 99.1 of the site (book/generated/introduction:fig-a) is numbered 99.3 in the PDF",
        "Fig. 99.2 of the site (book/generated/introduction:fig-b) is absent in the PDF",
    ]


def test_every_chapter_page_has_binder_and_colab_buttons_to_its_sources(built_book):
    """The header of each chapter's page offers Binder and Colab, at the addresses that open
    the chapter's source and its Colab copy (whose targets tests/test_launch.py checks)."""
    from attncore.book.launch import launch_urls

    config = yaml.safe_load((built_book / "_config.yml").read_text())["repository"]
    generated = built_book / "_build" / "html" / "book" / "generated"
    for chapter in toc_chapters(built_book):
        page = html.unescape((generated / f"{chapter}.html").read_text())
        for name, url in launch_urls(chapter, config["url"], config["branch"]).items():
            assert f'href="{url}"' in page, (chapter, name)


def _caption_words(text: str) -> tuple[set[str], set[str]]:
    """The colour words (by :data:`CAPTION_COLOURS`) and line-style words of a caption."""
    from attncore.book.plotting import CAPTION_COLOURS

    text = re.sub(r"\{[\w:-]+\}`[^`]*`|\$[^$]*\$", " ", text).lower()
    colours = set(re.findall(r"\b(" + "|".join(CAPTION_COLOURS) + r")\b", text))
    styles = re.findall(r"\b(dash-dotted|dash-dot|dashed|dashes|dotted|solid)\b", text)
    names = {"dash-dot": "dash-dotted", "dashes": "dashed"}
    return colours, {names.get(s, s) for s in styles}


def _image_colours(png: Path, least: int = 40) -> set[str]:
    """The colour words of which ``png`` holds at least ``least`` pixels."""
    import matplotlib.image

    from attncore.book.plotting import colour_words

    pixels = matplotlib.image.imread(png)[..., :3].reshape(-1, 3)
    words, counts = np.unique(colour_words(pixels), return_counts=True)
    return {str(w) for w, c in zip(words, counts, strict=True) if c >= least}


def _spec_styles(spec: dict) -> tuple[set[str], set[str]]:
    """The colour words and line styles a Vega-Lite specification draws with."""
    from attncore.book.plotting import colour_words

    colours, styles = [], {"solid"}

    def walk(node: object, key: str = "") -> None:
        if isinstance(node, dict):
            for k, v in node.items():
                walk(v, k)
        elif isinstance(node, list):
            if key == "strokeDash" or (node and all(isinstance(v, list) for v in node)):
                for dash in node if node and isinstance(node[0], list) else [node]:
                    if len(dash) == 2 and dash[1]:
                        styles.add("dashed" if dash[0] > dash[1] else "dotted")
            for v in node:
                walk(v, key)
        elif isinstance(node, str) and key in {"color", "stroke", "fill", "range"}:
            if re.fullmatch(r"#[0-9a-fA-F]{6}|black|grey|gray", node):
                colours.append(node)

    walk(spec)
    return {str(w) for w in colour_words(colours)} if colours else set(), styles


def test_captions_name_the_colours_and_line_styles_their_figures_draw(built_book):
    """Each caption's colour words are inks its image holds (counted in its pixels) and its
    plotting calls use, and its line-style words are styles those calls draw (Figs 3.1 to 3.3
    once promised blue and orange in images of greys)."""
    from attncore.book.plotting import CAPTION_COLOURS

    checked = 0
    for chapter in toc_chapters(built_book):
        source = (built_book / "notebooks" / f"{chapter}.md").read_text()
        manifest = json.loads((built_book / RUNS / chapter / "manifest.json").read_text())
        figures = {Path(f["file"]).stem: f for f in manifest["figures"]}
        explorables = {Path(e["file"]).stem: e for e in manifest.get("explorables", [])}
        for key, caption in re.findall(r"```\{glue:figure\} (\w+)\n(.*?)\n```", source, re.S):
            colours, styles = _caption_words(caption.split("\n\n", 1)[-1])
            if not colours and not styles:
                continue
            where = f"{chapter}: {key}"
            if key in explorables:
                spec = json.loads(
                    (built_book / RUNS / chapter / explorables[key]["file"]).read_text()
                )
                drawn, drawn_styles = _spec_styles(spec)
                pixels = drawn
            else:
                assert key in figures, where
                pixels = _image_colours(built_book / RUNS / chapter / figures[key]["file"])
                # a figure another chapter drew (the first page's lead figure) has no plotting
                # calls here: its pixels are what it draws, and it draws no line style we know
                recorded = figures[key]["colours"]
                drawn = pixels if recorded is None else set(recorded)
                drawn_styles = set(figures[key].get("line_styles") or ())
            for word in colours:
                assert CAPTION_COLOURS[word] & drawn, f"{where}: no {word} is drawn ({drawn})"
                assert CAPTION_COLOURS[word] & pixels, f"{where}: no {word} pixels ({pixels})"
            assert styles <= drawn_styles, f"{where}: {styles - drawn_styles} not drawn"
            checked += 1
    assert checked >= 10


PHONE = """<script>
window.addEventListener("load", () => setTimeout(() => {
  const article = document.querySelector("article.bd-article");
  const width = document.documentElement.clientWidth;
  // a word broken across lines anywhere but after a hyphen, a dash, a slash or closing
  // punctuation (a line may break between ")" and "(", as in "(σ_Wq²)(d_x")
  const split = [];
  const range = document.createRange();
  // (an address is not a word: a long one may break anywhere)
  const walker = document.createTreeWalker(article, NodeFilter.SHOW_TEXT, {acceptNode: (n) =>
    n.parentElement.closest("pre, mjx-container, script, style, svg, .vega-embed")
      || (n.parentElement.closest("a[href^='http']") && !/\\s/.test(n.textContent.trim()))
      ? NodeFilter.FILTER_REJECT : NodeFilter.FILTER_ACCEPT});
  const top = (node, i) => {
    range.setStart(node, i); range.setEnd(node, i + 1);
    const box = range.getBoundingClientRect();
    return box.height ? box.top + box.height / 2 : null;
  };
  while (walker.nextNode()) {
    const node = walker.currentNode;
    for (const match of node.data.matchAll(/\\S{2,}/g)) {
      range.setStart(node, match.index); range.setEnd(node, match.index + match[0].length);
      const lines = new Set(Array.from(range.getClientRects()).filter((r) => r.width > 0)
        .map((r) => Math.round(r.top)));
      if (lines.size < 2) continue;
      for (let i = 1; i < match[0].length; i++) {
        const a = top(node, match.index + i - 1), b = top(node, match.index + i);
        const breaks = /[-\\u2010-\\u2014\\/)\\],;]/.test(match[0][i - 1]);
        if (a !== null && b !== null && b - a > 4 && !breaks) {
          split.push(match[0]);
          break;
        }
      }
    }
  }
  // an element that sticks out of the window, or out of a box that hides what overflows,
  // unless a box it is in scrolls
  const clipped = [];
  for (const element of article.querySelectorAll("*")) {
    const box = element.getBoundingClientRect();
    if (!box.width || !box.height || element.closest("mjx-container")) continue;
    let scrolls = false, hidden = null;
    for (let up = element.parentElement; up && up !== document.body; up = up.parentElement) {
      const style = getComputedStyle(up);
      if (/auto|scroll/.test(style.overflowX) && up.scrollWidth > up.clientWidth) {
        scrolls = true;
        break;
      }
      if (!hidden && /hidden|clip/.test(style.overflowX)) hidden = up.getBoundingClientRect();
    }
    if (scrolls) continue;
    const out = box.right > width + 1 || box.left < -1
      || (hidden && (box.right > hidden.right + 1 || box.left < hidden.left - 1));
    if (out) clipped.push(element.tagName + "." + element.className + ": "
                          + element.textContent.trim().slice(0, 50));
  }
  // captions stay in view even when their table scrolls: within the window and within the
  // visible part of the box the table scrolls in
  const captions = Array.from(article.querySelectorAll("caption, figcaption"))
    .filter((c) => {
      const box = c.closest(".pst-scrollable-table-container");
      const edge = box ? box.getBoundingClientRect().left + box.clientWidth : width;
      return c.getBoundingClientRect().right > Math.min(width, edge) + 1;
    })
    .map((c) => c.textContent.trim().slice(0, 50));
  const pre = document.createElement("pre");
  pre.id = "attncore-probe";
  pre.textContent = JSON.stringify({
    split, clipped, captions, pageWidth: document.documentElement.scrollWidth, width,
    cards: Array.from(document.querySelectorAll("table.ledger-table tr"))
      .map((r) => getComputedStyle(r).display),
    // each figure as shown: its file, its shown and natural widths, and the hint under it
    shrunk: Array.from(article.querySelectorAll("a.attncore-full-size img")).map((img) => [
      img.getAttribute("src").split("/").pop(), img.clientWidth, img.naturalWidth,
      getComputedStyle(img.closest("a"), "::after").content]),
  });
  window.parent.document.body.appendChild(pre);  // the page's own window, or its frame's
}, 1500));
</script></body>"""


MODES_PROBE = (
    r"""<script>
window.addEventListener("load", () => setTimeout(() => {
  const rgba = s => (s.match(/[\d.]+/g) || []).map(Number);
  const lum = ([r, g, b]) => {
    const c = [r, g, b].map(v => v / 255)
      .map(v => v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4);
    return 0.2126 * c[0] + 0.7152 * c[1] + 0.0722 * c[2];
  };
  const ground = e => {  // the colour painted behind an element: its own, else an ancestor's
    for (let n = e; n; n = n.parentElement) {
      const c = rgba(getComputedStyle(n).backgroundColor);
      if (c.length === 3 || (c.length === 4 && c[3] > 0.5)) return c;
    }
    return [255, 255, 255];
  };
  const contrast = e => {
    const a = lum(rgba(getComputedStyle(e).color)), b = lum(ground(e));
    return (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05);
  };
  const corner = img => {  // the image's top-left pixel as drawn from its file
    const c = document.createElement("canvas");
    c.width = img.naturalWidth; c.height = img.naturalHeight;
    const x = c.getContext("2d"); x.drawImage(img, 0, 0);
    return Array.from(x.getImageData(1, 1, 1, 1).data);
  };
  const text = Array.from(document.querySelectorAll(
      "article p, article li, article td, article th, article figcaption, article summary"))
    .filter(e => e.offsetParent !== null && e.textContent.trim());
  const out = {
    theme: document.documentElement.dataset.theme,
    page: lum(ground(document.querySelector("article.bd-article") || document.body)),
    lowContrast: text.filter(e => contrast(e) < 4.5)
      .map(e => [e.tagName, contrast(e).toFixed(2), e.textContent.trim().slice(0, 50)]),
    figures: Array.from(document.querySelectorAll("article figure img"))
      .filter(i => i.complete && i.naturalWidth > 0)
      .map(i => [i.src.split("/").pop(), corner(i)]),
    charts: Array.from(document.querySelectorAll(
        "article .vega-embed canvas, article .vega-embed svg"))
      .map(c => c.tagName === "canvas"
        ? Array.from(c.getContext("2d").getImageData(1, 1, 1, 1).data)
        : getComputedStyle(c).backgroundColor),
  };
"""
    + REPORT_OUT
)
"""What a reader meets in the browser's light or dark mode: the theme's mode, how light the
article's ground is (relative luminance, 0 to 1), text whose contrast with what is painted
behind it is below WCAG's 4.5, each figure's top-left pixel as its file draws it, and each
explorable's ground."""


@pytest.mark.browser
@pytest.mark.skipif(
    CHROMIUM is None and not os.environ.get("CI"),
    reason="chromium is not installed (make test installs it; under CI its absence fails)",
)
@pytest.mark.parametrize("dark", [False, True], ids=["light", "dark"])
@pytest.mark.parametrize("page", ["introduction", "every_rescaling", "claims_ledger"])
def test_pages_read_well_in_the_light_and_the_dark_mode(served, page, dark, tmp_path):
    """Text keeps its contrast, and figures and explorables sit on an opaque light card, in
    the theme's light and dark modes; a screenshot shows the page in the mode asked for."""
    base_url, root = served
    html = root / "_build" / "html"
    path = html / "book" / "generated" / f"{page}.html"
    report = probe(base_url, html, path, script=MODES_PROBE, dark=dark)
    assert report["theme"] == ("dark" if dark else "light"), report["theme"]
    assert (report["page"] < 0.05) if dark else (report["page"] > 0.9), report["page"]
    assert not report["lowContrast"], report["lowContrast"]
    assert report["figures"], "no figure"
    for name, (red, green, blue, alpha) in report["figures"]:
        assert alpha == 255 and min(red, green, blue) >= 240, (name, red, green, blue, alpha)
    for ground in report["charts"]:
        assert ground in ("rgb(255, 255, 255)", [255, 255, 255, 255]), ground
    shot = tmp_path / "page.png"
    flags = [*HEADLESS, "--hide-scrollbars", f"--user-data-dir={tmp_path / 'profile'}"]
    flags += ["--virtual-time-budget=8000"]
    flags += ["--window-size=1400,1000", f"--screenshot={shot}"]
    flags += ["--force-dark-mode"] if dark else []
    url = f"{base_url}/{path.relative_to(html).as_posix()}"
    subprocess.run([CHROMIUM, *flags, url], capture_output=True, timeout=120, check=True)
    from PIL import Image

    pixels = np.asarray(Image.open(shot).convert("L"))
    ground = np.bincount(pixels.ravel()).argmax() / 255  # the commonest level: the ground
    assert (ground < 0.2) if dark else (ground > 0.9), ground


@pytest.mark.browser
@pytest.mark.skipif(
    CHROMIUM is None and not os.environ.get("CI"),
    reason="chromium is not installed (make test installs it; under CI its absence fails)",
)
def test_on_a_390_pixel_phone_no_word_is_split_and_nothing_is_clipped(served):
    """Every page at the width of a phone: no word breaks across lines mid-word (the ledger
    once set "compone nts"), nothing sticks out of the window or of a box that hides it
    (what is wider scrolls inside its box), no caption leaves the window, and the ledger is
    one card per claim."""
    assert CHROMIUM, "chromium is not installed: make test installs Debian's chromium"
    base_url, root = served
    html = root / "_build" / "html"
    for page in html_pages(root):
        report = probe(base_url, html, page, PHONE, width=390)
        assert report["width"] <= 390, report["width"]
        assert not report["split"], f"{page.name}: words split {report['split'][:5]}"
        assert not report["clipped"], f"{page.name}: clipped {report['clipped'][:5]}"
        assert not report["captions"], f"{page.name}: captions out of view {report['captions']}"
        assert report["pageWidth"] <= report["width"] + 1, f"{page.name} scrolls sideways"
        if page.stem == "claims_ledger":
            assert report["cards"] and set(report["cards"]) == {"block"}, report["cards"]
        # the page's images carry hashed names: hold each to the smallest text of the page's
        # figures, and where a phone shrinks that below the floor, the hint must say a tap
        # opens it full size
        manifest = root / RUNS / page.stem / "manifest.json"
        texts = [] if not manifest.is_file() else json.loads(manifest.read_text())["figures"]
        text = min((f["min_text_px"] for f in texts if f["min_text_px"]), default=None)
        for name, shown, natural, hint in report["shrunk"]:
            if text and natural and text * shown / natural < 0.9 * MIN_TEXT_PX:
                assert "full size" in hint, f"{page.name}: {name} shrunk to {shown} px, no hint"
