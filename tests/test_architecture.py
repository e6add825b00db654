"""The package's layers: which part of attncore may import which.

- core (checks, random, softmax, rescalings, distributions, measures, density, fingerprint,
  scratch, untrusted) imports only core;
- simulate, sources, symbolic and training import core and each other, never claims or book;
- evidence (the numbers a rule reads) imports only core and evidence;
- claims imports only core, evidence and claims;
- book may import anything, and nothing outside book imports it.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "attncore"
CORE = {
    "checks",
    "random",
    "softmax",
    "rescalings",
    "distributions",
    "measures",
    "density",
    "fingerprint",
    "scratch",
    "untrusted",
    "intervals",
}
MODELS = {"simulate", "sources", "symbolic", "training"}
ALLOWED = {
    "core": {"core"},
    **{part: {"core", *MODELS} for part in MODELS},
    "evidence": {"core", "evidence"},
    "claims": {"core", "evidence", "claims"},
    "book": {"core", *MODELS, "evidence", "claims", "book"},
}


def part(module: str) -> str:
    """The layer of ``attncore.<module...>``: core, a subpackage's name, or the package root."""
    head = module.split(".")[0]
    if head in CORE:
        return "core"
    return head or "root"


def imports(path: Path) -> set[str]:
    """The attncore modules that ``path`` imports, without the ``attncore.`` prefix."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names = [node.module]
        elif isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        else:
            continue
        found |= {n.removeprefix("attncore.") for n in names if n.startswith("attncore.")}
    return found


MODULES = sorted(p for p in PACKAGE.rglob("*.py") if p.name != "__init__.py" or p.parent != PACKAGE)


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(PACKAGE)))
def test_imports_follow_the_layers(path):
    relative = path.relative_to(PACKAGE).with_suffix("")
    layer = part(".".join(relative.parts))
    assert layer in ALLOWED, f"{relative} is in no layer; add it to tests/test_architecture.py"
    wrong = sorted(m for m in imports(path) if part(m) not in ALLOWED[layer])
    assert not wrong, f"{relative} ({layer}) must not import {wrong}"


def test_every_module_is_in_a_layer():
    top = {p.stem for p in PACKAGE.glob("*.py")} - {"__init__"}
    subpackages = {p.name for p in PACKAGE.iterdir() if (p / "__init__.py").is_file()}
    assert top == CORE and subpackages == MODELS | {"evidence", "claims", "book"}
