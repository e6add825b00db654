"""The claims of the four source texts and of later papers, and the verdicts the chapters
compute for them.

The catalogue (:data:`CLAIMS`) is data about the sources, one YAML file per source beside
this module, each a text a person edits: what each claim says in its own words (``quote``,
verbatim; an omission is marked with …), what exactly the book tests (``reading``, in the
book's words), what kind of claim it is (:class:`Kind`), which chapter tests it, and the
sentences that state its verdict (``says``), one template per line. ``shared.yaml`` holds the
phrases several sources share (a claim names one as ``!shared name``; ``like: proof`` gives a
claim the fields of a derivation checked line by line). :data:`SOURCES` says in which part of
the ledger each source stands. The verdicts themselves are computed by the chapters' runs
(:mod:`attncore.claims.ledger` gathers them).

>>> CLAIMS["blog-softmax-example"].source
'pranay2025why'
>>> SOURCES["chen2025critical"].part
'Modern practice'
>>> CLAIMS["chuang-proposition-1"].kind.value
'textbook identity'
"""

from __future__ import annotations

from importlib.resources import files
from typing import Any

import yaml

from attncore.claims.claim import Claim, Kind, Source, Verdict

__all__ = ["CLAIMS", "SOURCES", "Claim", "Kind", "Source", "Verdict", "load_source"]

FILES = "vaswani pranay bernhard chuang chen chiang nakanishi wortsman zhai dehghani liu".split()
"""The sources' files, in the ledger's order."""


def _read(name: str) -> str:
    return (files(__package__) / f"{name}.yaml").read_text(encoding="utf-8")


SHARED: dict[str, Any] = yaml.safe_load(_read("shared"))
"""The phrases of ``shared.yaml``, by name."""


class _Loader(yaml.SafeLoader):
    """Safe YAML plus one tag, ``!shared name``: the phrase of that name in ``shared.yaml``."""


def _shared(loader: _Loader, node: yaml.ScalarNode) -> Any:
    name = loader.construct_scalar(node)
    if name not in SHARED:
        raise ValueError(f"!shared {name}: shared.yaml has no phrase of that name")
    return SHARED[name]


_Loader.add_constructor("!shared", _shared)

_VERDICTS = {verdict.key: verdict for verdict in Verdict}


def _claim(source: str, entry: dict[str, Any]) -> Claim:
    fields = {**SHARED[entry.pop("like")], **entry} if "like" in entry else entry
    kind = Kind[fields.pop("kind", "finding").upper()]
    unreachable = {_VERDICTS[k]: why for k, why in fields.pop("unreachable", {}).items()}
    return Claim(source=source, kind=kind, unreachable=unreachable, **fields)


def load_source(name: str, text: str) -> tuple[str, Source, dict[str, Claim]]:
    r"""One source's file, ``text``, read: its BibTeX key, where it stands and its claims; a
    malformed file raises a one-line :class:`ValueError` naming it.

    >>> load_source("x", "source: s\npart: p\nprefix: P\nclaims: {}")
    ('s', Source(part='p', prefix='P'), {})
    >>> load_source("x", "source: s\npart: p\nprefix: P\nclaims: {k: {chapter: c, size: 1}}")
    Traceback (most recent call last):
    ValueError: claims/catalogue/x.yaml: Claim.__init__() got an unexpected keyword argument 'size'
    """
    try:
        data = yaml.load(text, Loader=_Loader)
        source = data["source"]
        claims = {key: _claim(source, dict(entry)) for key, entry in data["claims"].items()}
        return source, Source(data["part"], data["prefix"]), claims
    except (KeyError, TypeError, ValueError, AttributeError, yaml.YAMLError) as error:
        message = " ".join(str(error).split())
        raise ValueError(f"claims/catalogue/{name}.yaml: {message}") from None


_FILES = [load_source(name, _read(name)) for name in FILES]

SOURCES: dict[str, Source] = {source: where for source, where, _ in _FILES}
"""Every source of :data:`CLAIMS`, in the ledger's order of parts."""

CLAIMS: dict[str, Claim] = {key: claim for *_, claims in _FILES for key, claim in claims.items()}
"""Every claim, by key: each source's claims (its file here) in the order of :data:`SOURCES`."""
