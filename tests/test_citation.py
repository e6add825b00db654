"""The book can be cited: CITATION.cff is valid, and it, the README and the pages agree with the
one home of each fact (the address in _config.yml, the version in pyproject.toml)."""

from __future__ import annotations

import json
import re
import tomllib
from pathlib import Path

import jsonschema
import pytest
import yaml

import attncore
from attncore.book.citation import CITATION_FILE, bibtex, book_citation, sentence
from attncore.book.manifest import source_revision

REPO = Path(__file__).resolve().parent.parent
SCHEMA = REPO / "tests" / "data" / "cff-1.2.0.schema.json"


def config() -> dict:
    return yaml.safe_load((REPO / "_config.yml").read_text())


def cff() -> dict:
    return yaml.safe_load((REPO / CITATION_FILE).read_text())


def test_citation_cff_is_valid_citation_file_format_1_2_0():
    schema = json.loads(SCHEMA.read_text())
    validator = jsonschema.Draft7Validator(
        schema, format_checker=jsonschema.Draft7Validator.FORMAT_CHECKER
    )
    errors = [f"{list(e.absolute_path)}: {e.message}" for e in validator.iter_errors(cff())]
    assert not errors, errors


def test_the_schema_catches_what_a_citation_file_must_have():
    """The validation can fail: a file without authors, or with a malformed address, is
    refused."""
    validator = jsonschema.Draft7Validator(json.loads(SCHEMA.read_text()))
    broken = {k: v for k, v in cff().items() if k != "authors"}
    assert not validator.is_valid(broken)
    assert not validator.is_valid({**cff(), "repository-code": "not an address"})


def test_citation_cff_agrees_with_the_config_and_the_package():
    settings, citation = config(), cff()
    project = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    assert citation["repository-code"] == settings["repository"]["url"]
    assert citation["title"] == settings["title"]
    assert [a["name"] for a in citation["authors"]] == [settings["author"]]
    assert citation["version"] == project["version"] == attncore.__version__.split("+")[0]
    assert citation["license"] == project["license"]["text"]


def test_the_readme_says_how_to_cite_with_the_same_address_and_version():
    readme = (REPO / "README.md").read_text()
    section = re.search(r"^## How to cite\n(.*?)(?=^## )", readme, flags=re.S | re.M)
    assert section, "the README has no 'How to cite' section"
    url = config()["repository"]["url"]
    addresses = set(re.findall(r"https?://[^\s<>}`]+", section.group(1)))
    assert addresses == {url}, addresses
    assert f"Version {cff()['version']}" in section.group(1)
    assert f"title        = {{{cff()['title']}}}" in section.group(1)


def test_the_book_citation_names_the_commit_and_its_date():
    citation = book_citation(REPO, config()["repository"]["url"])
    revision = source_revision()
    assert citation.revision == revision
    if revision.commit == "unknown":
        pytest.skip("not a git checkout")
    assert re.fullmatch(r"\d{4}-\d{2}-\d{2}", citation.date)
    entry = bibtex(citation)
    assert revision.short in entry and citation.year in entry and citation.url in entry
    assert sentence(citation).startswith(f"The attncore contributors ({citation.year}).")


def test_every_work_the_book_cites_has_an_address_or_says_it_has_none():
    entries = re.split(r"\n(?=@)", (REPO / "book" / "references.bib").read_text().strip())
    without = [
        e.split("{", 1)[1].split(",", 1)[0]
        for e in entries
        if not re.search(r"^\s*(url|eprint|doi)\s*=", e, re.M)
        and "no public address is known" not in e
    ]
    assert not without, f"book/references.bib: give these an url, eprint or doi: {without}"
