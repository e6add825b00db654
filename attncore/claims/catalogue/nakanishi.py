"""The claims of Nakanishi (2025), scalable-softmax.

Each claim: its words, the book's reading and the sentences that say its verdict."""

from __future__ import annotations

from attncore.claims.catalogue.reasons import FIRST_TASK
from attncore.claims.claim import Claim

CLAIMS: dict[str, Claim] = {
    "nakanishi-ssmax-flattening": Claim(
        "length_generalization",
        "nakanishi2025scalable",
        "abstract",
        "Transformer-based language models rely on Softmax to compute attention scores, "
        "causing the attention distribution to flatten as the context size grows. … To "
        "address this problem, we propose Scalable-Softmax (SSMax), which replaces Softmax in "
        "scenarios where the input vector size varies.",
        setting=FIRST_TASK,
        reading="With 1/√d the last layer's attention row of the [CLS] position, "
        "where the label is read, flattens from the training length to the longest (its "
        "entropy over ln n rises clearly and its largest weight falls clearly, paired within "
        "seeds), and SSMax (s ln n/√d with s learned per head) keeps a clearly larger largest "
        "weight there, paired by seed. A small classifier, not the paper's language models.",
        quote_checked="the abstract of arXiv:2501.19399 (v1, 2025); the book keeps no text "
        "of the paper",
    ),
}
