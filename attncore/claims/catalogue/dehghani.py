"""The claims of Dehghani et al. (2023), ViT-22B.

Each claim: its words, the book's reading and the sentences that say its verdict."""

from __future__ import annotations

from attncore.claims.claim import Claim

_DEHGHANI_ABSTRACT = (
    "the abstract of arXiv:2302.05442 as its ICML 2023 and OpenReview pages reproduce it; the "
    "book keeps no text of the paper"
)


CLAIMS: dict[str, Claim] = {
    "dehghani-stable-22b": Claim(
        "",
        "dehghani2023scaling",
        "abstract",
        "We present a recipe for highly efficient and stable training of a 22B-parameter ViT "
        "(ViT-22B)",
        untestable="a recipe for a 22-billion-parameter vision model is tested by training "
        "one; the book's model has about 5,000 parameters and one layer. The mechanism the "
        "recipe's QK normalization addresses, attention-logit growth, is measured in the "
        "chapter on training stability under Wortsman et al.'s claims",
        reading="The recipe (with LayerNorm on queries and keys) trains ViT-22B stably.",
        quote_checked=_DEHGHANI_ABSTRACT,
    ),
}
