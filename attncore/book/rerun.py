"""Read an executed chapter as its reader does, to check that a rerun's page says only what
its own run supports.

A chapter rerun with other valid parameters must not carry sentences of the default run.
:func:`page_sentences` gives the text a reader sees (the prose with every glued value in
place, and the Markdown a cell displays); :func:`stale_sentences` finds the sentences that
state, in words that do not change with the run (:func:`fixed_text`), the value a
parameter had in another run while this run used another.

>>> stale_values(["Adam with a learning rate of 0.001."], {"lr": 0.001}, {"lr": 0.003})
[('lr', 0.001, 'Adam with a learning rate of 0.001.')]
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any

import nbformat

__all__ = ["fixed_text", "glued_text", "numbers_in", "page_sentences", "stale_values"]

_GLUE_TEXT = "application/papermill.record/text/plain"
_GLUE_MD = "application/papermill.record/text/markdown"
_ROLE = re.compile(r"\{glue(?::text|:md)?\}`([^`]+)`")
_NUMBER = re.compile(r"(?<![\w.,^_{-])\d[\d,]*(?:\.\d+)?(?:[eE][-+]?\d+)?(?![\w^])")
_SENTENCE = re.compile(r"(?<=[.;:!?])\s+(?=[A-Z{$(*“\"'])|\n{2,}|\n(?=[-|*#>])")


def glued_text(nb: nbformat.NotebookNode) -> dict[str, str]:
    """The values an executed notebook glued, by key, as a reader sees them (text or
    Markdown, without the quotes of a Python string's repr).

    >>> cell = nbformat.v4.new_code_cell()
    >>> cell.outputs = [nbformat.v4.new_output("display_data", data={_GLUE_TEXT: "'3 seeds'"},
    ...                 metadata={"scrapbook": {"name": "n"}})]
    >>> glued_text(nbformat.v4.new_notebook(cells=[cell]))
    {'n': '3 seeds'}
    """
    values: dict[str, str] = {}
    for cell in nb.cells:
        for output in cell.get("outputs", []):
            key = output.get("metadata", {}).get("scrapbook", {}).get("name")
            data = output.get("data", {})
            if key and _GLUE_MD in data:
                values[key] = data[_GLUE_MD]
            elif key and _GLUE_TEXT in data:
                text = data[_GLUE_TEXT]
                values[key] = text[1:-1] if text[:1] == text[-1:] and text[:1] in "'\"" else text
    return values


def page_sentences(nb: nbformat.NotebookNode) -> list[str]:
    """The sentences of an executed chapter as a reader sees them: its Markdown with every
    glue role replaced by the glued value, and the Markdown its code cells display.

    >>> md = nbformat.v4.new_markdown_cell("Trained {glue:text}`n`. Done.\\n\\n- a point")
    >>> cell = nbformat.v4.new_code_cell()
    >>> cell.outputs = [nbformat.v4.new_output("display_data", data={_GLUE_TEXT: "'3 seeds'"},
    ...                 metadata={"scrapbook": {"name": "n"}})]
    >>> page_sentences(nbformat.v4.new_notebook(cells=[md, cell]))
    ['Trained 3 seeds.', 'Done.', '- a point']
    """
    values = glued_text(nb)
    blocks = []
    for cell in nb.cells:
        if cell.cell_type == "markdown":
            blocks.append(_ROLE.sub(lambda m: values.get(m.group(1), m.group(0)), cell.source))
        elif cell.cell_type == "code":
            for output in cell.get("outputs", []):
                data = output.get("data", {})
                if "text/markdown" in data and not output.get("metadata", {}).get("scrapbook"):
                    blocks.append(data["text/markdown"])
    sentences = []
    for block in blocks:
        sentences += [" ".join(s.split()) for s in _SENTENCE.split(block) if s.strip()]
    return sentences


def numbers_in(sentence: str) -> list[float]:
    """The numbers a sentence states, thousands separators read as such; digits inside a
    word, a subscript, a power or its base (``log_2``, ``x^2``, ``10^N``, ``log_{10}``) are
    not numbers.

    >>> numbers_in("15,000 strings at 32 per step, lr 0.001, β_2, x^2, 1e-4, 10^N, log_{10}")
    [15000.0, 32.0, 0.001, 0.0001]
    """
    found = []
    for match in _NUMBER.finditer(sentence):
        try:
            found.append(float(match.group(0).replace(",", "")))
        except ValueError:
            continue
    return found


def _scalars(value: Any) -> list[float]:
    """The numbers a parameter value holds (a list's elements), none for strings and
    booleans."""
    items = value if isinstance(value, list) else [value]
    return [float(v) for v in items if isinstance(v, int | float) and not isinstance(v, bool)]


def _displayed(nb: nbformat.NotebookNode) -> list[str]:
    """The Markdown the code cells of ``nb`` display (tables, notes), glued values aside."""
    return [
        output["data"]["text/markdown"]
        for cell in nb.cells
        if cell.cell_type == "code"
        for output in cell.get("outputs", [])
        if "text/markdown" in output.get("data", {})
        and not output.get("metadata", {}).get("scrapbook")
    ]


def fixed_text(
    nb: nbformat.NotebookNode, other: nbformat.NotebookNode, measured: Iterable[str] = ()
) -> list[str]:
    """The pieces of ``nb``'s page that read the same after ``other``'s run: the hand-written
    prose between glue roles (the Markdown cells, the *Reproduce* section's help texts), the
    glued values and the displayed Markdown that came out identical in both runs. Glued
    values named in ``measured`` (a run's own time, say) are left out: they match only by
    chance, never because the page kept the other run's words.

    >>> def page(value):
    ...     md = nbformat.v4.new_markdown_cell("Ran {glue:text}`n`, as written.")
    ...     cell = nbformat.v4.new_code_cell()
    ...     cell.outputs = [nbformat.v4.new_output("display_data", data={_GLUE_TEXT: value},
    ...                     metadata={"scrapbook": {"name": "n"}})]
    ...     return nbformat.v4.new_notebook(cells=[md, cell])
    >>> fixed_text(page("'3 seeds'"), page("'5 seeds'"))
    ['Ran ', ', as written.']
    >>> fixed_text(page("'3 seeds'"), page("'3 seeds'"))
    ['Ran ', ', as written.', '3 seeds']
    """
    values, before = glued_text(nb), glued_text(other)
    pieces = []
    for cell in nb.cells:
        if "reproduce" in cell.get("metadata", {}).get("tags", []):
            pieces += _HELP.findall(cell.source)  # the command and values are the run's
        elif cell.cell_type == "markdown":
            pieces += [piece for piece in _ROLE.split(cell.source)[::2] if piece.strip()]
    kept = set(measured)
    pieces += [v for k, v in values.items() if before.get(k) == v and k not in kept]
    shown_before = set(_displayed(other))
    pieces += [text for text in _displayed(nb) if text in shown_before]
    return pieces


_HELP = re.compile(r"^\| `[^`]+` \| `[^`]*` \| (.*) \|$", re.MULTILINE)
"""A row of the *Reproduce* section's table; the group is the parameter's help text."""
_SPREAD = re.compile(r"±\s*[\d.,e-]+")
_RANGE = re.compile(r"[\[(]\s*[-+]?[\d.,e]+\s*,\s*[-+]?(?:inf|[\d.,e]+)\s*[\])]")


def stale_values(
    pieces: Iterable[str],
    other_values: Mapping[str, Any],
    values: Mapping[str, Any],
    *,
    smallest: float = 10.0,
    exempt: Iterable[str] = (),
) -> list[tuple[str, float, str]]:
    """Where ``pieces`` of a page that do not change with the run (:func:`fixed_text`) state
    a number that a parameter had in the other run (``other_values``) and no longer has in
    this one (``values``): such a sentence speaks of the other run.

    Left out: integers below ``smallest`` (counts, indices and exponents match them by
    chance), numbers some parameter of this run has, spreads after a ``±``, allowed ranges
    such as ``in [1, 100000]``, and the ``exempt`` phrases (a source's own numbers that equal
    a parameter's value). Returns (parameter, value, excerpt) triples.

    >>> stale_values(["one epoch of 15,000 strings, in [64, 1000000]"],
    ...              {"n_train": 15000, "n_test": 1000000}, {"n_train": 500, "n_test": 100})
    [('n_train', 15000.0, 'one epoch of 15,000 strings, in')]
    >>> stale_values(["d = 64 here."], {"d": [16, 64]}, {"d": [16]})
    [('d', 64.0, 'd = 64 here.')]
    >>> stale_values(["Chuang trains on 15,000 strings."], {"n": 15000}, {"n": 5},
    ...              exempt=["Chuang trains on 15,000"])
    []
    """
    exempt = list(exempt)
    used = {v for value in values.values() for v in _scalars(value)}
    found = []
    for piece in pieces:
        text = _SPREAD.sub(" ", _RANGE.sub(" ", " ".join(piece.split())))
        for phrase in exempt:
            text = text.replace(phrase, " ")
        for match in _NUMBER.finditer(text):
            number = float(match.group(0).replace(",", ""))
            if number in used:
                continue  # a value this run uses, whichever parameter had it before
            for name, before in other_values.items():
                now = set(_scalars(values.get(name)))
                if (
                    number in _scalars(before)
                    and number not in now
                    and not (number.is_integer() and abs(number) < smallest)
                ):
                    start, end = max(match.start() - 80, 0), match.end() + 80
                    found.append((name, number, text[start:end].strip()))
    return found
