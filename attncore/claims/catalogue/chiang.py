"""The claims of Chiang and Cholak (2022), length generalization.

Each claim: its words, the book's reading and the sentences that say its verdict."""

from __future__ import annotations

from attncore.claims.catalogue.reasons import FIRST_TASK
from attncore.claims.claim import Claim

CLAIMS: dict[str, Claim] = {
    "chiang-first-log-n": Claim(
        "length_generalization",
        "chiang2022overcoming",
        "abstract",
        "Third, when transformers need to focus on a single position, as for FIRST, we find "
        "that they can fail to generalize to longer strings; we offer a simple remedy to this "
        "problem that also improves length generalization in machine translation.",
        setting=FIRST_TASK,
        reading="The remedy, in the paper's body, multiplies the attention logits by "
        "log n (as the book's anchors record it; the book keeps only the abstract), here "
        "ln n/√d. At the longest length, 1/√d is not solved (the lower end of its accuracy's "
        "interval over the seeds is below 0.95) while ln n/√d is solved and clearly above it, "
        "paired by seed.",
        quote_checked="the abstract of arXiv:2202.12172 as the paper's text gives it (the ACL "
        "Anthology's version words Hahn's result differently, not this sentence); the book "
        "keeps no text of the paper",
    ),
}
