"""Notebook parameters: the comment grammar, validation, and the declared cells of every chapter."""

import ast

import jupytext
import pytest

from attncore.book.build import toc_chapters
from attncore.book.parameters import Parameter, validate_parameters
from attncore.book.runner import chapter_parameters, find_chapter
from attncore.checks import ParameterError


def declare(type_name, default, help_text, name="p"):
    return Parameter.from_declaration(name, type_name, default, help_text)


@pytest.mark.parametrize(
    ("help_text", "inside", "outside"),
    [
        ("in [1, 10]", [1, 10], [0, 11]),
        ("in (0, 1)", [0.5], [0, 1]),
        ("in (0, inf]", [1e300], [0, -1]),
    ],
)
def test_interval_grammar(help_text, inside, outside):
    p = declare("float", repr(float(inside[0])), f"a number, {help_text}")
    for value in inside:
        assert p.validate(value) == value
    for value in outside:
        with pytest.raises(ParameterError, match=r"parameter p must be a number in"):
            p.validate(value)


def test_list_grammar_checks_each_entry_and_the_length():
    p = declare("list[float]", "[1.0]", "scales, each in (0, 10], length in [1, 3]")
    assert p.validate([1, 2.5]) == [1.0, 2.5]
    for bad in ([0.0], [1.0] * 4, [], "1.0", [True]):
        with pytest.raises(ParameterError, match="each in \\(0, 10\\], length in \\[1, 3\\]"):
            p.validate(bad)


def test_choices_and_types():
    family = declare("str", '"normal"', "family, one of normal, uniform")
    assert family.validate("uniform") == "uniform"
    with pytest.raises(ParameterError, match="one of normal, uniform, got 'laplace'"):
        family.validate("laplace")
    count = declare("int", "3", "count, in [1, 5]")
    assert count.validate(4.0) == 4
    for bad in (2.5, True, "3", float("nan")):
        with pytest.raises(ParameterError, match="parameter p must be an integer in"):
            count.validate(bad)


def test_command_line_text_is_parsed_as_yaml_then_validated():
    p = declare("list[float]", "[1.0]", "each in [0, 100]")
    assert p.parse_text("[1, 8]") == [1.0, 8.0]
    with pytest.raises(ParameterError):
        p.parse_text("[1, nan]")


def test_a_default_outside_its_own_range_is_rejected():
    with pytest.raises(ParameterError, match="parameter p must be an integer in \\[1, 5\\], got 9"):
        declare("int", "9", "in [1, 5]")


def test_unannotated_parameter_is_rejected():
    with pytest.raises(ParameterError, match="must be annotated"):
        declare("None", "1", "")


def test_unknown_names_list_the_known_ones():
    declared = {"d": declare("int", "4", "in [1, 8]", name="d")}
    with pytest.raises(ParameterError, match="unknown parameter e; known parameters: d"):
        validate_parameters(declared, {"e": 1})


@pytest.mark.parametrize("chapter", toc_chapters())
def test_every_chapter_declares_typed_commented_ranged_parameters(chapter):
    declared = chapter_parameters(find_chapter(chapter))
    assert declared, "a chapter has at least one parameter"
    for p in declared.values():
        assert p.help, f"{p.name} has no comment"
        assert p.values or p.choices or p.folder or p.type == "bool", f"{p.name}: no allowed values"


@pytest.mark.parametrize("chapter", toc_chapters())
def test_parameters_cell_holds_one_typed_literal_per_line(chapter):
    nb = jupytext.read(find_chapter(chapter))
    cell = next(c for c in nb.cells if "parameters" in c.metadata.get("tags", []))
    assert "remove-cell" in cell.metadata["tags"]
    for line in cell.source.splitlines():
        if line.strip() and not line.lstrip().startswith("#"):
            (node,) = ast.parse(line).body
            assert isinstance(node, ast.AnnAssign), line
            ast.literal_eval(node.value)


def test_relations_between_parameters_are_checked_before_any_kernel(tmp_path):
    from attncore.book.parameters import validate_parameters

    declared = chapter_parameters(find_chapter("softmax_saturation"))
    assert declared["spread_min"].relations == (("below", "spread_max"),)
    with pytest.raises(ParameterError, match=r"spread_min must be below spread_max \(10\.0\)"):
        validate_parameters(declared, {"spread_min": 50.0, "spread_max": 10.0})
    assert validate_parameters(declared, {"spread_min": 5.0, "spread_max": 10.0})


def test_scientific_notation_and_malformed_yaml():
    from attncore.book.parameters import load_yaml

    p = declare("float", "0.5", "a rate, in (0, 1]")
    assert p.parse_text("1e-4") == 1e-4
    assert load_yaml("[1e-3, 2.5e+2]") == [1e-3, 250.0]
    with pytest.raises(ParameterError, match="not valid YAML"):
        load_yaml("n_rows: [1")
