"""The claims of Nakanishi (2025), scalable-softmax.

Each claim: its words, the book's reading and the sentences that say its verdict."""

from __future__ import annotations

from attncore.claims.catalogue.chiang import FIRST_CHECK, FIRST_UNTESTABLE
from attncore.claims.catalogue.reasons import FIRST_TASK
from attncore.claims.claim import Claim

_ENTROPY = "{entropy:ci:+.3f}"
_LARGEST = "{largest:ci:+.3f}"
_FOCUS = "{focus:ci:+.3f}"
_CHANGES = (
    "under 1/√d the [CLS] row's entropy over ln n changes by {entropy:ci:+.3f} and its "
    "largest weight by {largest:ci:+.3f}; at the longest length SSMax's largest weight minus "
    "1/√d's is {focus:ci:+.3f}"
)

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
        check=FIRST_CHECK + " (three, on the last layer's [CLS] row)",
        says={
            "holds": "from {train_length} to {longest:,} bits 1/√d's attention flattens and "
            "SSMax's stays clearly more focused: " + _CHANGES,
            "caveat": "from {train_length} to {longest:,} bits only part of it is clear: under "
            "1/√d the [CLS] row's entropy over ln n {rises:rises clearly|does not rise clearly} "
            "(" + _ENTROPY + ") and its largest weight {falls:falls clearly|does not fall "
            "clearly} (" + _LARGEST + "); at the longest length SSMax's largest weight is "
            "{focused:clearly|not clearly} above 1/√d's (" + _FOCUS + ")",
            "fails": "from {train_length} to {longest:,} bits 1/√d's attention clearly does not "
            "flatten and SSMax's is clearly not more focused: " + _CHANGES,
            "untestable": "the seeds can tell neither a flattening of 1/√d's attention from "
            "{train_length} to {longest:,} bits nor its absence: " + _CHANGES,
            **FIRST_UNTESTABLE,
        },
    ),
}
