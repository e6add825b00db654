"""The claims-ledger page: the per-source tables, from ledger rows: one
row per claim to scan (number, verdict, what was measured), its claim and check one click away.

The rows come from :func:`attncore.claims.ledger`; this module only presents them. Each row
carries a target (:func:`~attncore.book.kit.ledger_target`) that the chapters' verdict lines
link to, and links to the section that holds its evidence.

>>> rows = [{"claim": "vaswani-variance", "source": "vaswani2017attention", "section": "3.2.1",
...          "quote": "has mean 0 and variance d_k", "reading": "Var = d",
...          "kind": "textbook identity", "unreachable": {}, "verdict": "holds",
...          "measured": "z = 0.3", "check": "MC", "evidence": "sec-variance-proof",
...          "chapter": "why_sqrt_d",
...          "run": "parameters 0123, commit abcd", "stale": False, "thresholds": [],
...          "fragile": []}]
>>> print(ledger_tables(rows))  # doctest: +ELLIPSIS
(ledger-the-four-source-texts)=
## The four source texts
<BLANKLINE>
(ledger-vaswani)=
### {cite:t}`vaswani2017attention`
...
* - (ledger-vaswani-variance)=
<BLANKLINE>
    **V1**
  - {bdg-success}`holds`
  - z \\= 0\\.3
<BLANKLINE>
    :::{dropdown} The claim (3\\.2\\.1, a textbook identity) and its check
    “has mean 0 and variance d\\_k”
...
    *Evidence*: {doc}`why_sqrt_d`: {ref}`The footnote, proved for every d <sec-variance-proof>`
    :::
...
>>> tally(rows)["holds"], tally(rows, kind="substantive finding")["holds"]
(1, 0)
>>> summary(rows)[:50]
'All 1 claims have a computed verdict. Of the 0 sub'
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from attncore.book.kit import (
    chip,
    ledger_number,
    ledger_target,
    quote_markdown,
)
from attncore.book.markup import literal
from attncore.book.sections import evidence_link
from attncore.book.threshold_notes import ThresholdNotes, explained
from attncore.claims import CLAIMS, PENDING, Kind, Verdict
from attncore.claims.catalogue import SOURCES
from attncore.claims.saying import finding_and_details

__all__ = [
    "PLURAL",
    "STANDINGS",
    "VERDICTS",
    "fragile_count",
    "fragile_list",
    "ledger_tables",
    "shared_notes",
    "shared_tables",
    "source_name",
    "stale_note",
    "standing",
    "summary",
    "tally",
]

VERDICTS = [v.value for v in Verdict] + [PENDING]


def _evidence(row: dict[str, Any]) -> str:
    """The evidence cell: the chapter (a link) and the section that holds the evidence."""
    if not row["chapter"]:
        return ""
    chapter = f"{{doc}}`{row['chapter']}`"
    if not row["evidence"]:
        if row["verdict"] != PENDING:
            return chapter
        return f"{chapter} ({'not checked by its run' if row['measured'] else 'not run'})"
    return f"{chapter}: {evidence_link(row['chapter'], row['evidence'])}"


def stale_note(run: str) -> str:
    """The short mark of a verdict from a run of other code than the chapter's now; which
    run (``run``, its parameters and commit) shows on hovering.

    >>> stale_note("parameters 0123, commit abcd")
    '{abbr}`stale: run of other code (from the run with parameters 0123, commit abcd)`'
    """
    return f"{{abbr}}`stale: run of other code (from the run with {re.sub(r'[()`]', '', run)})`"


STANDINGS = ("decided", "fragile", "closed")
"""How firmly a verdict stands: decided by the evidence, *fragile* (a threshold inside its
band would change it) or *closed* (its rule cannot return the opposite verdict, so the
evidence could not have gone the other way); tallies count the three apart."""


def standing(row: dict[str, Any]) -> str:
    """One of :data:`STANDINGS` for a ledger row: *closed* where the claim's catalogue files
    the opposite of its verdict as unreachable (*does not hold* for a verdict that holds;
    both *holds* and *holds with a caveat* for one that does not), else *fragile* where the
    row has flips, else *decided*.

    >>> standing({"claim": "chuang-perfect-accuracy", "verdict": "holds", "fragile": []})
    'closed'
    >>> standing({"claim": "vaswani-variance", "verdict": "holds", "fragile": [{"at": 1}]})
    'fragile'
    """
    unreachable = {v.value for v in CLAIMS[row["claim"]].unreachable}
    holding = (Verdict.HOLDS.value, Verdict.CAVEAT.value)
    if row["verdict"] in holding and Verdict.FAILS.value in unreachable:
        return "closed"
    if row["verdict"] == Verdict.FAILS.value and set(holding) <= unreachable:
        return "closed"
    return "fragile" if row.get("fragile") else "decided"


def tally(
    rows: Sequence[dict[str, Any]], kind: str | None = None, how: str | None = None
) -> dict[str, int]:
    """How many rows (of ``kind`` only, and of standing ``how`` only, if given) have each
    verdict, :data:`PENDING` included, in a fixed order."""
    counts = dict.fromkeys(VERDICTS, 0)
    for row in rows:
        if (kind is None or row["kind"] == kind) and (how is None or standing(row) == how):
            counts[row["verdict"]] += 1
    return counts


_COUNTED = {
    Verdict.HOLDS.value: "hold",
    Verdict.CAVEAT.value: "hold with a caveat",
    Verdict.FAILS.value: "do not hold",
    Verdict.UNTESTABLE.value: "are not testable here",
    PENDING: "are pending",
}
"""Each verdict as the words of a count of claims that have it."""

PLURAL = {
    Kind.FINDING: "substantive findings",
    Kind.IDENTITY: "textbook identities",
    Kind.QUOTATION: "quotation checks",
}
"""Each kind of claim, as the words of a group of them."""


_APART = {
    "fragile": "a threshold inside its band would flip them",
    "closed": "their rule could not have gone the other way",
}
"""Why the fragile and the closed verdicts are counted apart from the decided ones."""


_SINGULAR = {
    Verdict.HOLDS.value: "holds",
    Verdict.CAVEAT.value: "holds with a caveat",
    Verdict.FAILS.value: "does not hold",
    Verdict.UNTESTABLE.value: "is not testable here",
    PENDING: "is pending",
}
"""Each verdict as the words of a count of one claim that has it."""


def _apart(counts: dict[str, int], why: str) -> str:
    """``(why: 1 holds, 2 do not hold)``: the verdicts a group of rows has, or ``(why)``."""
    found = [
        f"{n} {_SINGULAR[v] if n == 1 else words}"
        for v, words in _COUNTED.items()
        if (n := counts[v])
    ]
    return f"({why}: {', '.join(found)})" if found else f"({why})"


def fragile_count(rows: Sequence[dict[str, Any]]) -> int:
    """How many of ``rows`` have a fragile verdict."""
    return sum(bool(row["fragile"]) for row in rows if row["verdict"] != PENDING)


def source_name(key: str) -> str:
    """``vaswani2017attention`` -> ``Vaswani 2017``."""
    return re.sub(r"^([a-z]+)(\d{4}).*$", lambda m: f"{m[1].capitalize()} {m[2]}", key)


def _claim_cell(row: dict[str, Any], notes: dict[str, str], readings: dict[str, str]) -> list[str]:
    """The claim in a row's dropdown: the source's words as a quotation, the book's reading,
    any verdict its rule cannot return and, where the book keeps no text of the source, what
    the quote was checked against; a setting, a reason or a check that several rows share is
    a link to its place among the ``notes`` (text to label, :func:`shared_notes`), a reading
    an earlier row gave (``readings``) a link to that row."""
    lines = [f"    “{quote_markdown(row['quote'])}”"]
    if row.get("setting"):
        setting = row["setting"]
        where = _shared(setting, notes, "shared by several rows") or f": {literal(setting)}"
        lines += ["", f"    *Setting*{where}"]
    reading = _once(row["claim"], row["reading"], readings, "the same as")
    lines += ["", f"    Read as: {reading}" + ("." if reading.startswith("the same as") else "")]
    for verdict, reason in row["unreachable"].items():
        why = _shared(reason, notes, "why") or f": {literal(reason)}."
        lines += ["", f"    *Cannot return* “{literal(verdict)}”{why}"]
    if row.get("quote_checked"):
        checked = row["quote_checked"]
        against = _shared(checked, notes, "against what") or f" against {literal(checked)}."
        lines += ["", f"    *Quote checked*{against}"]
    return lines


def _shared(text: str, notes: dict[str, str], words: str) -> str:
    """A link (its text ``words``) to ``text``'s place among the shared notes, or ``""`` if
    it has none."""
    return f" ({{ref}}`{words} <{notes[text]}>`)." if text in notes else ""


def _once(claim: str, text: str, seen: dict[str, str], words: str, shown: str = "") -> str:
    """``text`` escaped (or ``shown``, the part of it a row shows), or, where an earlier row
    gave it (``seen``: text to that row's claim, filled as rows are laid out), ``words`` and a
    link to that row."""
    if text in seen:
        earlier = seen[text]
        return f"{words} {{ref}}`{ledger_number(earlier)} <{ledger_target(earlier)}>`"
    seen[text] = claim
    return literal(shown or text)


def _note_texts(rows: Sequence[dict[str, Any]]) -> list[str]:
    """The reasons and quote checks that more than one row holds, in the rows' order."""
    texts = [
        text
        for row in rows
        for text in [
            row.get("setting") or "",
            *row["unreachable"].values(),
            row.get("quote_checked") or "",
        ]
        if text
    ]
    return [text for text in dict.fromkeys(texts) if texts.count(text) > 1]


def _registered(rows: Sequence[dict[str, Any]]) -> ThresholdNotes:
    """Every threshold of the rows, each under its own label, in the rows' order."""
    notes = ThresholdNotes("ledger-threshold")
    for row in rows:
        for threshold in row["thresholds"]:
            notes.label(threshold)
    return notes


def shared_notes(rows: Sequence[dict[str, Any]]) -> dict[str, str]:
    """The label of each reason or quote check that several rows share (text to label)."""
    return {text: f"ledger-note-{i}" for i, text in enumerate(_note_texts(rows), start=1)}


def shared_tables(rows: Sequence[dict[str, Any]]) -> str:
    """MyST for what several rows share, said once: a table of the thresholds (each with its
    reason, band and the rows it decides) and a table of the reasons and quote checks that
    more than one row gives; the rows link here.

    >>> row = {"claim": "vaswani-variance", "unreachable": {"holds with a caveat": "exact"},
    ...        "thresholds": [{"name": "z", "value": 4.0, "reason": "many tests",
    ...                        "band": None}], "quote_checked": ""}
    >>> print(shared_tables([row, {**row, "claim": "blog-scaled-variance"}]))
    ... # doctest: +ELLIPSIS
    (ledger-thresholds)=
    ## Thresholds and shared notes
    <BLANKLINE>
    ::::{dropdown} Each threshold, with its reason, its band and the rows it decides
    ...
    * - (ledger-threshold-z)=
    <BLANKLINE>
        z = 4 (many tests)
      - {ref}`V1 <ledger-vaswani-variance>`, {ref}`P7 <ledger-blog-scaled-variance>`
    ...
    * - (ledger-note-1)=
    <BLANKLINE>
        exact
      - {ref}`V1 <ledger-vaswani-variance>`, {ref}`P7 <ledger-blog-scaled-variance>`
    ...
    """
    registered = _registered(rows)

    def decided_by(row: dict[str, Any]) -> set[str]:
        return {registered.label(t) for t in row["thresholds"]}

    lines = ["(ledger-thresholds)=", "## Thresholds and shared notes", ""]
    if not registered.records and not _note_texts(rows):
        return "\n".join([*lines, "No row of this build names a threshold or shares a note."])
    lines += [
        "::::{dropdown} Each threshold, with its reason, its band and the rows it decides",
        "",
    ]

    def rows_of(found: Any) -> str:
        return ", ".join(
            f"{{ref}}`{ledger_number(r['claim'])} <{ledger_target(r['claim'])}>`"
            for r in rows
            if found(r)
        )

    def table(header: str, entries: list[tuple[str, str, str]]) -> list[str]:
        out = ["```{list-table}", ":header-rows: 1", ":widths: 70 30", "", f"* - {header}"]
        out += ["  - rows"]
        for label, text, decided in entries:
            out += [f"* - ({label})=", "", f"    {text}", f"  - {decided}"]
        return [*out, "```", ""]

    if registered.records:
        entries = [
            (label, explained(record), rows_of(lambda r, at=label: at in decided_by(r)))
            for label, record in registered.records.items()
        ]
        lines += table("threshold = value (reason; band)", entries)
    notes = shared_notes(rows)
    if notes:
        lines += ["Settings, reasons and quote checks that several rows give:", ""]
        entries = [
            (
                label,
                literal(text),
                rows_of(
                    lambda r, t=text: (
                        t in r["unreachable"].values()
                        or t in (r.get("quote_checked"), r.get("setting"))
                    )
                ),
            )
            for text, label in notes.items()
        ]
        lines += table("setting, reason, or what a quote was checked against", entries)
    return "\n".join([*lines, "::::"])


def _slug(words: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", words.lower()).strip("-")


def ledger_tables(rows: Sequence[dict[str, Any]], order: str = "catalogue") -> str:
    """One MyST list-table per source text, under the heading of its part of the ledger
    (:data:`~attncore.claims.catalogue.SOURCES`); ``order`` is ``catalogue`` or ``verdict``.
    A row shows its number, its verdict and what was measured; the claim's words, the book's
    reading, how it was checked, the thresholds and the evidence are the row's dropdown."""
    ordered = list(rows)
    if order == "verdict":
        ordered.sort(key=lambda row: VERDICTS.index(row["verdict"]))
    lines: list[str] = []
    thresholds, notes = _registered(rows), shared_notes(rows)
    seen: dict[str, dict[str, str]] = {"reading": {}, "measured": {}, "check": {}}
    listed = list(dict.fromkeys(row["source"] for row in ordered))
    for part in dict.fromkeys(source.part for source in SOURCES.values()):
        in_part = [source for source in listed if SOURCES[source].part == part]
        if in_part:
            lines += [f"(ledger-{_slug(part)})=", f"## {part}", ""]
        for source in in_part:
            label = re.match(r"[a-z]+", source)[0]
            lines += [f"(ledger-{label})=", f"### {{cite:t}}`{source}`", ""]
            lines += [
                "```{list-table}",
                ":header-rows: 1",
                ":widths: 7 15 78",
                ":class: ledger-table",
                "",
                "* - row",
                "  - verdict",
                "  - what the book found",
            ]
            for row in (r for r in ordered if r["source"] == source):
                lines += [
                    f"* - ({ledger_target(row['claim'])})=",
                    "",
                    f"    **{ledger_number(row['claim'])}**",
                    f"  - {chip(row['verdict'])}",
                    *(["", f"    *{how}*"] if (how := standing(row)) != "decided" else []),
                    *(["", f"    {stale_note(row['run'])}"] if row["stale"] else []),
                    f"  - {_found(row, seen['measured'])}",
                    "",
                    *_detail(row, notes, thresholds, seen),
                ]
            lines += ["```", ""]
    return "\n".join(lines)


_SAME = "the same measurement as"


def _found(row: dict[str, Any], measured: dict[str, str]) -> str:
    """What the row shows of its measurement: the finding, before the sentence's break
    (:func:`~attncore.claims.saying.finding_and_details`; the rest is the dropdown's), or a
    link to an earlier row that measured the same."""
    finding = finding_and_details(row["measured"])[0]
    return _once(row["claim"], row["measured"], measured, _SAME, shown=finding)


def _detail(
    row: dict[str, Any],
    notes: dict[str, str],
    thresholds: ThresholdNotes,
    seen: dict[str, dict[str, str]],
) -> list[str]:
    """The row's dropdown, titled with where the claim stands and its kind: the whole claim
    (:func:`_claim_cell`), how it was checked, its thresholds (each named with its value and
    a link to where the ledger explains it) and the section that holds the evidence."""
    kind = "" if row["kind"] == Kind.FINDING.value else f", a {literal(row['kind'])}"
    title = f"The claim ({literal(row['section'])}{kind}) and its check"
    body = _claim_cell(row, notes, seen["reading"])
    if row["check"]:
        checked = _once(row["claim"], row["check"], seen["check"], "the same check as")
        body += ["", f"    *Checked by* {checked}."]
    details = finding_and_details(row["measured"])[1]
    if details:
        stop = "" if details.endswith(".") else "."
        body += ["", f"    *Measured*: {literal(details)}{stop}"]
    note = thresholds.note(row["thresholds"], row["fragile"])
    if note:
        body += ["", f"    {note}"]
    evidence = _evidence(row)
    if evidence:
        body += ["", f"    *Evidence*: {evidence}"]
    return ["    :::{dropdown} " + title, *body, "    :::"]


def fragile_list(rows: Sequence[dict[str, Any]]) -> str:
    r"""A MyST list of the fragile verdicts: per row its number (a link to the row), the
    verdict and, per change inside a band, the threshold and the value at which the verdict
    becomes another; or a sentence saying there is none.

    >>> row = {"claim": "vaswani-small-gradients", "verdict": "holds",
    ...        "fragile": [{"threshold": "falls_to", "value": 0.405,
    ...                     "verdict": "holds with a caveat"}]}
    >>> print(fragile_list([row]))
    - {ref}`V2 <ledger-vaswani-small-gradients>`, holds: “holds with a caveat” at falls\_to = 0.405
    >>> fragile_list([])
    'No verdict of this build changes inside the band of a threshold that decides it.'
    """
    lines = [
        f"- {{ref}}`{ledger_number(row['claim'])} <{ledger_target(row['claim'])}>`, "
        f"{literal(row['verdict'])}: "
        + "; ".join(
            f"“{literal(flip['verdict'])}” at {literal(flip['threshold'])} = "
            f"{float(flip['value']):.3g}"
            for flip in row["fragile"]
        )
        for row in rows
        if row["fragile"] and row["verdict"] != PENDING
    ]
    if not lines:
        return "No verdict of this build changes inside the band of a threshold that decides it."
    return "\n".join(lines)


def summary(rows: Sequence[dict[str, Any]]) -> str:
    """The ledger's count: the verdicts on the substantive findings that their evidence
    decides, then the fragile and the closed ones counted apart, then how many claims are
    textbook identities or quotation checks, and how many verdicts are stale.

    >>> rows = [{"claim": "vaswani-variance", "kind": "textbook identity", "verdict": "holds",
    ...          "fragile": [], "stale": False},
    ...         {"claim": "chuang-perfect-accuracy", "kind": "substantive finding",
    ...          "verdict": "holds", "fragile": [], "stale": False}]
    >>> text = summary(rows)
    >>> text[text.index("0 are neither"):text.index(": 0 hold")]
    '0 are neither fragile nor closed'
    >>> text[text.index("1 closed"):text.index(". The ledger")]
    '1 closed (their rule could not have gone the other way: 1 holds)'

    """
    counts = tally(rows)
    decided = len(rows) - counts[PENDING]
    text = (
        f"All {len(rows)} claims have a computed verdict."
        if counts[PENDING] == 0
        else f"Of {len(rows)} claims, {decided} {'has' if decided == 1 else 'have'} a computed "
        f"verdict and {counts[PENDING]} {'is' if counts[PENDING] == 1 else 'are'} pending."
    )
    if decided == 0:
        return text + (
            " No chapter has run into this page's output folder yet: run the chapters first "
            "(`attncore run <chapter>`, all into the same folder, `runs` by default), "
            "then this page."
        )
    finding = Kind.FINDING.value
    by = {how: tally(rows, finding, how) for how in STANDINGS}
    firm = sum(by["decided"].values())
    text += (
        f" Of the {sum(tally(rows, finding).values())} substantive findings, {firm} "
        f"{'is' if firm == 1 else 'are'} neither fragile nor closed: "
        + ", ".join(
            f"{by['decided'][v]} {words}"
            for v, words in _COUNTED.items()
            if v != PENDING or by["decided"][v]
        )
        + ". Counted apart and marked in their rows: "
        + " and ".join(
            f"{sum(by[how].values())} {how} {_apart(by[how], why)}" for how, why in _APART.items()
        )
        + ". The ledger also holds "
        + " and ".join(
            f"{sum(tally(rows, k.value).values())} {PLURAL[k]}"
            for k in Kind
            if k is not Kind.FINDING
        )
        + f"; the figure's legend counts all {len(rows)} claims."
    )
    others = fragile_count(rows) - sum(by["fragile"].values())
    if others:
        text += f" Of those, {others} {'is' if others == 1 else 'are'} fragile."
    stale = sum(bool(row["stale"]) for row in rows)
    if stale:
        return text + f" {stale} verdicts come from a run of older code and are marked stale."
    return text + " Every verdict comes from a run of the current code."
