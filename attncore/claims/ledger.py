"""The ledger: every catalogued claim with the verdict of the run that tested it.

The input is the manifests of chapter runs (``{chapter: manifest}``, see
:mod:`attncore.book.manifest`): each holds the chapter's parameters, the revision and the
fingerprint of the code it ran, and the verdict records it produced. A claim whose chapter did
not run, or ran without checking it (with other inputs than the source's, say), is
:data:`PENDING`; a verdict from a run whose code differs from the chapter's code now is
stale. A claim the catalogue marks untestable is "not testable here", with the catalogue's
reason.

>>> rows = ledger({})
>>> len(rows) == len(CLAIMS), sorted({row["verdict"] for row in rows})
(True, ['not testable here', 'pending'])
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict
from typing import Any

from attncore.claims.catalogue import CLAIMS, Verdict

__all__ = ["PENDING", "ledger"]

PENDING = "pending"
"""The verdict of a claim that no run in the ledger's folder checked."""


def _run_label(run: Mapping[str, Any]) -> str:
    revision = run["revision"]
    dirty = " with uncommitted changes" if revision["dirty"] else ""
    return f"parameters {run['parameters_hash']}, commit {revision['commit'][:12]}{dirty}"


def ledger(
    runs: Mapping[str, Mapping[str, Any]], fingerprints: Mapping[str, str] | None = None
) -> list[dict[str, Any]]:
    """One row per catalogued claim, in catalogue order.

    Each row has the claim's catalogue fields (``kind`` as its words), ``verdict`` (or
    :data:`PENDING`), ``measured``, ``check``, ``evidence``, ``run`` (which run decided it),
    ``stale`` (the run's code fingerprint differs from ``fingerprints[chapter]``, the code
    now), the run's ``thresholds`` and ``fragile`` records
    (:func:`attncore.claims.thresholds.decided_by`) and the verdict's ``catch``.
    """
    rows = []
    for key, claim in CLAIMS.items():
        catalogued = {"claim": key, **asdict(claim), "kind": claim.kind.value}
        if claim.untestable:
            rows.append(
                {
                    **catalogued,
                    "verdict": Verdict.UNTESTABLE.value,
                    "measured": claim.untestable,
                    "check": "",
                    "evidence": "",
                    "run": "",
                    "stale": False,
                    "thresholds": [],
                    "fragile": [],
                    "catch": "",
                    "branch": "",
                }
            )
            continue
        run = runs.get(claim.chapter)
        records = {r["claim"]: r for r in run["verdicts"]} if run else {}
        record = records.get(key)
        if run is None:
            measured = ""
        elif record is None:
            measured = f"the chapter's run ({_run_label(run)}) did not check it"
        else:
            measured = record["measured"]
        stale = bool(
            record and fingerprints is not None and run["code"] != fingerprints.get(claim.chapter)
        )
        rows.append(
            {
                **catalogued,
                "verdict": record["verdict"] if record else PENDING,
                "branch": record.get("branch", "") if record else "",
                "measured": measured,
                "check": record["check"] if record else "",
                "evidence": record["evidence"] if record else "",
                "run": _run_label(run) if record else "",
                "stale": stale,
                "thresholds": list(record.get("thresholds", [])) if record else [],
                "fragile": list(record.get("fragile", [])) if record else [],
                "catch": record.get("catch", "") if record else "",
            }
        )
    return rows
