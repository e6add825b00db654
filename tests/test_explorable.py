"""Explorable figures: the page element, its data, the vendored Vega bundle and the run folder."""

from __future__ import annotations

import json

import altair as alt
import jupytext
import nbformat
import pandas as pd
import pytest
import vl_convert
from docutils import nodes
from docutils.utils import new_document

from attncore.book import explorable_assets
from attncore.book.explorable import (
    MARKER,
    Explorable,
    Slider,
    data_bytes,
    inline_data,
    log_ticks,
    read_spec,
    vega_shape,
)
from attncore.book.plotting import _FIXED
from attncore.book.runner import run_chapter
from attncore.checks import ParameterError


def toy(label: str = "p") -> Explorable:
    table = pd.DataFrame({"k": [0, 1, 2], "p": [0.123456789, 0.5, 2.0e-9]})
    chart = alt.Chart(inline_data(table, "rows")).mark_point().encode(x="k:Q", y=f"{label}:Q")
    return Explorable(chart, [Slider("k", "factor", ["1", "2", "4"], start=1)], "p against k")


def test_the_page_carries_the_data_rounded_and_the_slider_labels():
    spec = read_spec(toy().html())
    assert spec["data"]["values"] == "k,p\n0,0.123457\n1,0.5\n2,2e-09\n"
    assert spec["data"]["format"]["parse"] == {"k": "number", "p": "number"}
    assert spec["params"] == [
        {"name": "k", "value": 1, "bind": {"input": "range", "min": 0, "max": 2, "step": 1,
                                          "name": "factor"}}
    ]  # fmt: skip
    assert spec["usermeta"]["attncore"]["sliders"] == {"k": ["1", "2", "4"]}
    assert spec["description"] == "p against k"
    assert data_bytes(spec) == len(spec["data"]["values"])


def test_no_text_of_the_data_can_close_the_script_element():
    hostile = pd.DataFrame({"k": [0], "label": ["</script><img src=x onerror=alert(1)>&"]})
    chart = alt.Chart(inline_data(hostile, "rows")).mark_text().encode(text="label:N")
    element = Explorable(chart, [Slider("k", 'a "label" </script>', ["x"])], "<b>&").html()
    assert element.count("</script>") == 1 and "<img" not in element
    assert 'aria-label="&lt;b&gt;&amp;"' in element
    spec = read_spec(element)
    assert "</script><img src=x onerror=alert(1)>&" in spec["data"]["values"]
    assert spec["params"][0]["bind"]["name"] == 'a "label" </script>'


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (("K", "k", ["1"]), "slider name must be a lower-case identifier"),
        (("k", "k", []), "slider k must have at least one value"),
        (("k", "k", ["1", "2"], 2), r"slider k start must be in \[0, 1\]"),
    ],
)
def test_a_bad_slider_is_a_one_line_error(arguments, message):
    with pytest.raises(ParameterError, match=message):
        Slider(*arguments)


def test_data_must_be_finite_and_not_empty():
    with pytest.raises(ParameterError, match="finite numbers only"):
        inline_data(pd.DataFrame({"a": [1.0, float("nan")]}), "t")
    with pytest.raises(ParameterError, match="finite numbers only"):
        inline_data(pd.DataFrame({"a": [1.0, float("inf")]}), "t")
    with pytest.raises(ParameterError, match="at least one row"):
        inline_data(pd.DataFrame({"a": []}), "t")


def test_every_method_marker_has_a_vega_shape():
    shapes = {marker: vega_shape(marker) for _, marker in _FIXED.values()}
    assert [m for m, shape in shapes.items() if shape == "circle"] == ["o"]  # no fallback
    paths = [shape for shape in shapes.values() if shape.startswith("M")]
    assert paths and all(path.endswith("Z") for path in paths)  # closed: they can be filled


def test_log_ticks_cover_the_range_and_refuse_a_bad_one():
    assert log_ticks(0.5, 8.0) == [0.5, 1.0, 2.0, 5.0]
    assert log_ticks(1e-7, 1.0)[0] == 1e-7 and len(log_ticks(1e-7, 1.0)) == 8
    with pytest.raises(ParameterError, match="0 < low < high"):
        log_ticks(1.0, 1.0)


def test_the_bundle_is_made_once_per_version_wrapped_and_named_by_it(tmp_path, monkeypatch):
    calls = []

    def bundle() -> str:
        calls.append(1)
        return "const _ = 1; window.vegaEmbed = () => _;"

    monkeypatch.setattr(vl_convert, "javascript_bundle", bundle)
    folder = explorable_assets.vega_bundle(tmp_path)
    again = explorable_assets.vega_bundle(tmp_path)
    assert folder == again and calls == [1]
    assert [p.name for p in folder.iterdir()] == [explorable_assets.bundle_name()]
    text = (folder / explorable_assets.bundle_name()).read_text()
    assert text.startswith("/* Vega ") and f"Vega {vl_convert.get_vega_version()}" in text
    assert '(function () {\n"use strict";\nconst _ = 1;' in text and text.endswith("})();\n")


def test_scripts_go_to_the_pages_with_an_explorable_only():
    page = new_document("page")
    page += nodes.paragraph(text="no figure here")
    assert not explorable_assets.has_explorable(page)
    page += nodes.raw("", toy().html(), format="html")
    assert explorable_assets.has_explorable(page) and not explorable_assets.has_explorable(None)
    assert (explorable_assets.STATIC / explorable_assets.LOADER).is_file()


@pytest.mark.notebooks
def test_a_chapter_run_keeps_each_explorable_and_its_size(tmp_path):
    kernel = {"name": "python3", "display_name": "Python 3", "language": "python"}
    parameters = nbformat.v4.new_code_cell("n: int = 1  # a number, in [0, 10]")
    parameters.metadata["tags"] = ["parameters", "remove-cell"]
    body = nbformat.v4.new_code_cell(
        "import altair as alt, pandas as pd\n"
        "from attncore.book.explorable import Explorable, Slider, inline_data\n"
        "from attncore.book.chapter import Chapter\n"
        "page = Chapter('toy')\n"
        "data = inline_data(pd.DataFrame({'k': [0, 1], 'p': [n, 2 * n]}), 'rows')\n"
        "chart = alt.Chart(data).mark_point().encode(x='k:Q', y='p:Q')\n"
        "page.explorable(Explorable(chart, [Slider('k', 'k', ['a', 'b'])], 'toy'), 'toy_explore')"
    )
    nb = nbformat.v4.new_notebook(cells=[parameters, body], metadata={"kernelspec": kernel})
    jupytext.write(nb, tmp_path / "toy.md", fmt="md:myst")
    run_chapter(tmp_path / "toy.md", {"n": 3}, tmp_path / "out")
    folder = tmp_path / "out" / "toy"
    manifest = json.loads((folder / "manifest.json").read_text())
    spec = json.loads((folder / "explorables" / "toy_explore.json").read_text())
    assert manifest["explorables"] == [
        {"file": "explorables/toy_explore.json", "data_bytes": data_bytes(spec)}
    ]
    assert spec["data"]["values"] == "k,p\n0,3\n1,6\n"
    executed = nbformat.read(folder / "toy.ipynb", as_version=4)
    outputs = json.dumps([c.get("outputs", []) for c in executed.cells])
    assert MARKER in outputs and "Its data add 12 bytes to this page." in outputs
