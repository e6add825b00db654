"""The claims of the four source texts and the ledger of their verdicts.

:data:`CLAIMS` catalogues what each text says and which chapter tests it; the rules of
:mod:`attncore.claims.rules` turn a chapter's measurements into a :class:`Finding`; :func:`ledger`
joins the catalogue with the findings the chapters' runs recorded.
"""

from attncore.claims.catalogue import CLAIMS, Claim, Verdict
from attncore.claims.finding import Finding
from attncore.claims.ledger import PENDING, ledger

__all__ = ["CLAIMS", "PENDING", "Claim", "Finding", "Verdict", "ledger"]
