"""The parameters of a chapter notebook: declared, parsed, and validated before any kernel starts.

A chapter's ``parameters`` cell holds one typed literal per line with a comment that says
what it is and which values are allowed, for example::

    n_rows: int = 2000  # number of random logit rows per spread, in [10, 1000000]
    scales: list[float] = [1.0, 8.0]  # factors applied to y, each in (0, 100], length in [1, 20]
    family: str = "normal"  # distribution of the logits, one of normal, uniform

The comment grammar is: ``in [lo, hi]`` (brackets or parentheses for closed or open ends,
``inf`` allowed) for numbers; ``each in [lo, hi]`` and ``length in [a, b]`` for lists;
``distinct`` for a list whose entries may not repeat (a grid's axis); ``one of a, b, c`` for
strings; ``a folder path`` for a string naming a folder (empty for the chapter's default).

>>> p = Parameter.from_declaration("n", "int", "4", "number of keys, in [2, 64]")
>>> p.validate(8)
8
>>> p.validate(1)
Traceback (most recent call last):
...
attncore.checks.ParameterError: parameter n must be an integer in [2, 64], got 1
"""

from __future__ import annotations

import ast
import math
import re
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, ClassVar

import nbformat
import yaml
from papermill.translators import PythonTranslator

from attncore.checks import ParameterError

__all__ = [
    "Interval",
    "Parameter",
    "load_yaml",
    "read_parameters",
    "shorten",
    "validate_parameters",
]

_TYPES = {"int", "float", "str", "bool", "list[int]", "list[float]"}
_RELATIONS = {
    "below": lambda v, o: v < o,
    "above": lambda v, o: v > o,
    "at most": lambda v, o: v <= o,
    "at least": lambda v, o: v >= o,
    "dividing": lambda v, o: o % v == 0,
    "a multiple of": lambda v, o: v % o == 0,
}
_RELATION = (
    r"\b(same length as|below|above|at most|at least|dividing|a multiple of) ([a-z_][a-z0-9_]*)"
)


MAX_TEXT = 10_000
"""The longest parameter text or file (characters) that is parsed."""


_INT_LIMIT = 2**63
"""Integers a parameter text may hold are 64-bit: from ``-_INT_LIMIT`` to ``_INT_LIMIT - 1``
(no parameter's range comes near either; a larger number is written as a float, ``1e22``)."""


class _Loader(yaml.SafeLoader):
    """YAML with the number and boolean rules of YAML 1.2 (``010`` is 10, ``1:04`` is a string,
    ``1e-4`` a number, only ``true``/``false`` are booleans), without aliases, so a small
    text cannot expand into a huge value, without tags (``!!int 0x10``, ``!!timestamp x``:
    a value is what it reads as) and without a key given twice."""

    yaml_implicit_resolvers: ClassVar[dict] = {
        first: [(tag, regexp) for tag, regexp in resolvers if not tag.endswith(("int", "bool"))]
        for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
    }

    def compose_node(self, parent: Any, index: Any) -> Any:
        if self.check_event(yaml.AliasEvent):
            raise ParameterError("YAML aliases (*name) are not allowed in parameters")
        tag = getattr(self.peek_event(), "tag", None)
        if tag is not None:
            raise ParameterError(
                f"YAML tags ({tag.replace('tag:yaml.org,2002:', '!!')[:40]}) are not allowed "
                "in parameters; write the value plainly"
            )
        return super().compose_node(parent, index)

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict[Any, Any]:
        keys = [self.construct_object(key, deep=True) for key, _ in node.value]
        if (twice := _first_repeat(keys)) is not None:
            raise ParameterError(f"parameter {shorten(twice, 60)} is given twice")
        return super().construct_mapping(node, deep=deep)


def _first_repeat(values: list[Any]) -> Any:
    """The first value of ``values`` that an earlier one equals, or None.

    >>> _first_repeat([1, 2, 2.0, 1]), _first_repeat([[1], [2]])
    (2.0, None)
    """
    return next((v for i, v in enumerate(values) if v in values[:i]), None)


def _integer(loader: yaml.SafeLoader, node: yaml.ScalarNode) -> int:
    digits = node.value.lstrip("+-")
    if len(digits) > 19 or not -_INT_LIMIT <= (number := int(node.value, 10)) < _INT_LIMIT:
        raise ParameterError(
            f"integer {shorten(node.value, 30)} is outside the 64-bit range; "
            "write a large number as a float (1e22)"
        )
    return number


_Loader.add_implicit_resolver("tag:yaml.org,2002:bool", re.compile(r"^(?:true|false)$"), list("tf"))
_Loader.add_implicit_resolver(
    "tag:yaml.org,2002:int", re.compile(r"^[-+]?[0-9]+$"), list("-+0123456789")
)
_Loader.add_constructor("tag:yaml.org,2002:int", _integer)
_Loader.add_implicit_resolver(
    "tag:yaml.org,2002:float",
    re.compile(
        r"^[-+]?(?:[0-9][0-9_]*\.[0-9_]*(?:[eE][-+]?[0-9]+)?|[0-9][0-9_]*[eE][-+]?[0-9]+"
        r"|\.[0-9_]+(?:[eE][-+]?[0-9]+)?|\.(?:inf|Inf|INF))$|^\.(?:nan|NaN|NAN)$"
    ),
    list("-+0123456789."),
)


def shorten(value: object, limit: int = 60) -> str:
    """``repr(value)``, cut to ``limit`` characters so an error message stays one short line.

    >>> shorten(list(range(100)), 20)
    '[0, 1, 2, 3, 4, 5, …'
    """
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def load_yaml(text: str) -> Any:
    """Parse YAML text, with numbers in scientific notation read as numbers.

    >>> load_yaml("[1e-4, 2, 0.5, 010]")
    [0.0001, 2, 0.5, 10]
    >>> load_yaml("1:04"), load_yaml("yes")
    ('1:04', 'yes')
    >>> load_yaml("n_rows: [1")
    Traceback (most recent call last):
    ...
    attncore.checks.ParameterError: not valid YAML: ...
    """
    if len(text) > MAX_TEXT:
        raise ParameterError(f"parameter values must be at most {MAX_TEXT} characters of YAML")
    try:
        return yaml.load(text, Loader=_Loader)  # _Loader is a SafeLoader: no arbitrary objects
    except RecursionError:
        raise ParameterError("parameter values are nested too deeply") from None
    except yaml.YAMLError as error:
        raise ParameterError(f"not valid YAML: {' '.join(str(error).split())}") from None


_IN_WORDS = {"int": "an integer", "float": "a number", "str": "a string", "bool": "true or false"}
_NUMBER = r"[-+]?(?:inf|\d+(?:\.\d*)?(?:e[-+]?\d+)?)"
_INTERVAL = rf"([\[(])\s*({_NUMBER})\s*,\s*({_NUMBER})\s*([\])])"


@dataclass(frozen=True)
class Interval:
    """A real interval with open or closed ends.

    >>> Interval(0.0, 1.0, low_closed=False).contains(0.0)
    False
    >>> str(Interval(1, math.inf))
    '[1, inf]'
    """

    low: float
    high: float
    low_closed: bool = True
    high_closed: bool = True

    @classmethod
    def parse(cls, match: re.Match[str]) -> Interval:
        left, low, high, right = match.groups()
        return cls(float(low), float(high), left == "[", right == "]")

    def contains(self, x: float) -> bool:
        above = x >= self.low if self.low_closed else x > self.low
        below = x <= self.high if self.high_closed else x < self.high
        return above and below

    def __str__(self) -> str:
        def fmt(v: float) -> str:
            return str(int(v)) if float(v).is_integer() else repr(float(v))

        low, high = fmt(self.low), fmt(self.high)
        return f"{'[' if self.low_closed else '('}{low}, {high}{']' if self.high_closed else ')'}"


def _usable_folder(text: str) -> bool:
    """Whether ``text`` can name a folder: no NUL, a name the system accepts, not a file."""
    try:
        return "\0" not in text and not Path(text).is_file()
    except OSError:  # a name too long for the file system
        return False


@dataclass(frozen=True)
class Parameter:
    """One declared notebook parameter: its name, type, default, comment and allowed values."""

    name: str
    type: str
    default: Any
    help: str
    values: Interval | None = None
    length: Interval | None = None
    choices: tuple[str, ...] | None = None
    relations: tuple[tuple[str, str], ...] = ()
    folder: bool = False
    distinct: bool = False

    @classmethod
    def from_declaration(cls, name: str, type_name: str, default: str, help: str) -> Parameter:
        """Build a parameter from papermill's parse of ``name: type = default  # help``."""
        type_name = type_name.replace(" ", "")
        if type_name not in _TYPES:
            raise ParameterError(
                f"parameter {name} must be annotated with one of {sorted(_TYPES)}, got {type_name}"
            )
        each = re.search(rf"each in {_INTERVAL}", help)
        length = re.search(rf"length in {_INTERVAL}", help)
        plain = re.search(rf"(?<!each )(?<!length )\bin {_INTERVAL}", help)
        choices = re.search(r"one of (.+)$", help)
        param = cls(
            name=name,
            type=type_name,
            default=ast.literal_eval(default),
            help=help,
            values=Interval.parse(each or plain) if (each or plain) else None,
            length=Interval.parse(length) if length else None,
            choices=tuple(c.strip() for c in choices.group(1).split(",")) if choices else None,
            folder=type_name == "str" and "a folder path" in help,
            distinct=type_name.startswith("list") and bool(re.search(r"\bdistinct\b", help)),
        )
        param.validate(param.default)
        return param

    @property
    def allowed(self) -> str:
        """The allowed values, in words."""
        if self.choices:
            return "one of " + ", ".join(self.choices)
        if self.folder:
            return "a folder path (empty for the default), not an existing file"
        parts = []
        if self.type.startswith("list"):
            parts.append(f"a list of {self.type[5:-1]}s")
            if self.values:
                parts.append(f"each in {self.values}")
            if self.length:
                parts.append(f"length in {self.length}")
            if self.distinct:
                parts.append("no value twice")
        else:
            parts.append(_IN_WORDS[self.type] + (f" in {self.values}" if self.values else ""))
        return ", ".join(parts)

    def _fail(self, value: object) -> ParameterError:
        return ParameterError(f"parameter {self.name} must be {self.allowed}, got {shorten(value)}")

    def _scalar(self, type_name: str, value: object) -> Any:
        if type_name == "bool":
            if not isinstance(value, bool):
                raise self._fail(value)
            return value
        if type_name == "str":
            if not isinstance(value, str) or (self.choices and value not in self.choices):
                raise self._fail(value)
            if self.folder and not _usable_folder(value):
                raise self._fail(value)
            return value
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise self._fail(value)
        if type_name == "int" and not (isinstance(value, int) or float(value).is_integer()):
            raise self._fail(value)
        try:
            number = int(value) if type_name == "int" else float(value)
            finite = math.isfinite(number)
        except OverflowError:  # an integer too large for a float
            raise self._fail(value) from None
        if not finite or (self.values and not self.values.contains(number)):
            raise self._fail(value)
        return number

    def validate(self, value: object) -> Any:
        """Return ``value`` converted to the declared type, or raise a one-line error."""
        if not self.type.startswith("list"):
            return self._scalar(self.type, value)
        if not isinstance(value, list | tuple) or (
            self.length and not self.length.contains(len(value))
        ):
            raise self._fail(value)
        checked = [self._scalar(self.type[5:-1], v) for v in value]
        if self.distinct and (twice := _first_repeat(checked)) is not None:
            raise ParameterError(
                f"parameter {self.name} must be {self.allowed}, got {shorten(value)} "
                f"({twice!r} twice)"
            )
        return checked

    def parse_text(self, text: str) -> Any:
        """Parse a command-line value (YAML syntax: ``8``, ``0.5``, ``[1, 8]``) and validate it.

        >>> scales = Parameter.from_declaration("s", "list[float]", "[1.0]", "each in (0, 10]")
        >>> scales.parse_text("[1, 8]")
        [1.0, 8.0]
        """
        try:
            value = load_yaml(text)
        except ParameterError:
            value = text
        if self.type == "str" and not isinstance(value, str):
            value = text
        return self.validate(value)


def read_parameters(notebook: nbformat.NotebookNode) -> dict[str, Parameter]:
    """Return the declared parameters of ``notebook``, in the order of its parameters cell.

    The cell is parsed by papermill's own Python translator, so what papermill injects and
    what is validated here cannot drift apart. A comment may also relate a parameter to
    another one by name: ``below NAME``, ``above NAME``, ``at most NAME``, ``at least NAME``
    (for a list: each entry), ``dividing NAME``, ``a multiple of NAME`` and ``same length as NAME``;
    :func:`validate_parameters` checks these too.
    """
    tagged = [c for c in notebook.cells if "parameters" in c.get("metadata", {}).get("tags", [])]
    if not tagged:
        raise ParameterError("the chapter has no cell tagged parameters")
    found = PythonTranslator.inspect(tagged[0])
    declared = {
        p.name: Parameter.from_declaration(p.name, p.inferred_type_name, p.default, p.help)
        for p in found
    }
    return {
        name: replace(
            p,
            relations=tuple(
                (relation, other)
                for relation, other in re.findall(_RELATION, p.help)
                if other in declared and other != name
            ),
        )
        for name, p in declared.items()
    }


def _check_relations(declared: dict[str, Parameter], values: dict[str, Any]) -> None:
    for name, p in declared.items():
        for relation, other in p.relations:
            value, bound = values[name], values[other]
            if relation == "same length as":
                ok = len(value) == len(bound)
            else:
                test = _RELATIONS[relation]
                ok = all(test(v, bound) for v in (value if isinstance(value, list) else [value]))
            if not ok:
                raise ParameterError(
                    f"parameter {name} must be {relation} {other} ({shorten(bound)}), "
                    f"got {shorten(value)}"
                )


def validate_parameters(declared: dict[str, Parameter], given: dict[str, Any]) -> dict[str, Any]:
    """Validate ``given`` against ``declared``; unknown names list the known ones.

    >>> declared = {"d": Parameter.from_declaration("d", "int", "16", "dimension, in [1, 4096]")}
    >>> validate_parameters(declared, {"d": 64.0})
    {'d': 64}
    >>> validate_parameters(declared, {"dim": 64})
    Traceback (most recent call last):
    ...
    attncore.checks.ParameterError: unknown parameter dim; known parameters: d
    """
    unknown = [name for name in given if name not in declared]
    if unknown:
        raise ParameterError(
            f"unknown parameter {', '.join(unknown)}; known parameters: {', '.join(declared)}"
        )
    validated = {name: declared[name].validate(value) for name, value in given.items()}
    _check_relations(declared, {**{n: p.default for n, p in declared.items()}, **validated})
    return validated
