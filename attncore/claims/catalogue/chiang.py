"""The claims of Chiang and Cholak (2022), length generalization.

Each claim: its words, the book's reading and the sentences that say its verdict."""

from __future__ import annotations

from attncore.claims.catalogue.reasons import FIRST_TASK, ONE_SEED
from attncore.claims.claim import Claim

FIRST_CHECK = (
    "FIRST trained at the chapter's length and scored exactly over all strings of each test "
    "length, methods paired by seed, Student-t intervals over the seeds in brackets, "
    "simultaneous over the rule's comparisons"
)
"""How the chapter on length generalization checks its claims (each claim adds which
comparisons its rule makes)."""

FIRST_UNTESTABLE = {
    "no-models": "the run trained no models of {missing:list}",
    "one-seed": ONE_SEED,
    "no-longer-length": "no test length beyond the training length of {train_length:,} bits",
}
"""What the chapter's rules say of a run that cannot decide them."""

FIRST_UNLEARNED = (
    "not solved even at the training length of {train_length:,} bits, so there is no length "
    "generalization to measure: {unlearned:items:unlearned}"
)
"""What a rule says of methods that did not learn FIRST (the template of ``not-learned``)."""

FIRST_WORDS = {"unlearned": "{method} scores {accuracy:ci}"}
"""How ``not-learned`` names each method that did not learn FIRST, with its accuracy."""

_CHIANG = (
    "trained at {train_length:,} bits, ln n/√d scores {scaled:ci} there and 1/√d "
    "{standard:ci}, a difference of {gain:ci:+.3f} over {seeds} seeds"
)
"""The numbers of every verdict on Chiang and Cholak's remedy (after the verdict's words)."""

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
        check=FIRST_CHECK + " (two at the longest length)",
        says={
            "holds": "ln n/√d solves FIRST at {longest:,} bits and 1/√d does not: " + _CHIANG,
            "both-solved": "1/√d and ln n/√d both solve FIRST at {longest:,} bits, so ln n/√d "
            "has nothing to remedy there: " + _CHIANG,
            "not-clearly-above": "ln n/√d solves FIRST at {longest:,} bits and 1/√d does not, "
            "but the seeds cannot tell ln n/√d above 1/√d: " + _CHIANG,
            "above-unsolved": "ln n/√d is clearly above 1/√d at {longest:,} bits but does not "
            "solve FIRST there: " + _CHIANG,
            "fails": "ln n/√d clearly fails FIRST at {longest:,} bits and is not above 1/√d: "
            + _CHIANG,
            "untestable": "at {longest:,} bits the seeds cannot tell whether ln n/√d solves "
            "FIRST or is above 1/√d: " + _CHIANG,
            "not-learned": FIRST_UNLEARNED,
            **FIRST_UNTESTABLE,
        },
        words=FIRST_WORDS,
        part="machine translation",
    ),
}
