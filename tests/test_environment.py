"""One place pins the dependencies; environment.yml repeats them; the README's commands are real."""

import re
import tomllib
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parent.parent


def pyproject_pins():
    project = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    pins = list(project["dependencies"])
    for requirements in project["optional-dependencies"].values():
        pins += requirements
    return pins


def test_every_dependency_is_pinned_exactly():
    for requirement in pyproject_pins():
        assert re.fullmatch(r"[A-Za-z0-9_.\-]+==[0-9][A-Za-z0-9_.]*", requirement), requirement


def test_environment_yml_states_the_same_pins():
    env = yaml.safe_load((REPO / "environment.yml").read_text())
    pip_section = next(d["pip"] for d in env["dependencies"] if isinstance(d, dict))
    stated = sorted(r for r in pip_section if "==" in r)
    assert stated == sorted(pyproject_pins())
    assert "python=3.11" in env["dependencies"]


def test_the_lock_pins_every_direct_dependency_as_pyproject_does():
    """requirements.lock holds the whole installed set with hashes, torch aside (installed on
    its own, see the Makefile); every direct pin of pyproject.toml appears in it unchanged."""
    lock = (REPO / "requirements.lock").read_text()
    locked = dict(re.findall(r"^([a-z0-9_.\-]+)==(\S+) \\$", lock, flags=re.M))
    assert len(locked) > 100
    hashed = re.findall(r"^[a-z0-9_.\-]+==\S+ \\\n    --hash=sha256:[0-9a-f]{64}", lock, flags=re.M)
    assert len(hashed) == len(locked), "every locked package carries its hashes"
    for requirement in pyproject_pins():
        name, version = requirement.lower().replace("_", "-").split("==")
        if name == "torch":
            assert name not in locked
            continue
        assert locked.get(name) == version, requirement


def test_readme_starts_with_the_two_commands_and_ci_runs_the_second():
    readme = (REPO / "README.md").read_text()
    commands = re.findall(r"```(?:bash|sh)\n(.*?)\n```", readme, flags=re.S)
    assert commands[:2] == ["make book", "make test"]
    assert "make test" in (REPO / ".ci" / "run").read_text()
