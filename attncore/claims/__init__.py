"""The claims of the four source texts and the ledger of their verdicts.

:data:`CLAIMS` catalogues what each text says (its words, and the book's reading of them) and
which chapter tests it; the rules of :mod:`attncore.claims.rules` turn a chapter's
measurements into a :class:`Finding`, with the thresholds that decided it checked across
their bands (:mod:`attncore.claims.thresholds`); :func:`ledger` joins the catalogue with the
findings the chapters' runs recorded.
"""

from attncore.claims.catalogue import CLAIMS, Claim, Kind, Verdict
from attncore.claims.finding import Finding
from attncore.claims.ledger import PENDING, ledger

__all__ = ["CLAIMS", "PENDING", "Claim", "Finding", "Kind", "Verdict", "ledger"]
