"""The claims of Wortsman et al. (2024), small-scale proxies of instability.

Each claim: its words, the book's reading and the sentences that say its verdict."""

from __future__ import annotations

from attncore.claims.catalogue.reasons import LOWER_SENSITIVITY, ONE_SEED, SWEEP, SWEEP_CHECK
from attncore.claims.claim import ANY, Claim

_WORTSMAN_ABSTRACT = (
    "the abstract of arXiv:2309.14322 (v1, 2023) as public listings of it reproduce it; the "
    "book keeps no text of the paper"
)


CLAIMS: dict[str, Claim] = {
    "wortsman-small-models-unstable": Claim(
        "stability",
        "wortsman2024small",
        "abstract",
        "we show that these instabilities also appear in small models when training at high "
        "learning rates",
        setting=SWEEP,
        reading="The first of the two instabilities, attention-logit growth, read for "
        "1/√d: at the highest rate the largest attention logit at the end of training is more "
        "than a growth factor times its value at the rate with the lowest final loss, in every "
        "seed, and the final loss there (a diverged run counted at its initial loss) is clearly "
        "above the best rate's over the seeds. One of the two without the other is a caveat.",
        quote_checked=_WORTSMAN_ABSTRACT,
        check=SWEEP_CHECK,
        says={
            ANY: "1/√d's best rate {best:.2g}, highest {top:.2g}; the final loss there is "
            "{rise:+.3g} ± {se:.2g} above the best rate's over {seeds:count:seed} "
            "({higher:clearly|not clearly}), and its largest attention logit {smallest:plain} "
            "times the best rate's or more in every seed",
            "untestable": "1/√d's best rate {best:.2g}, highest {top:.2g}: the final loss there "
            "is {rise:+.3g} ± {se:.2g} above the best rate's over {seeds:count:seed}, its "
            "largest attention logit {smallest:plain} times the best rate's or more in every "
            "seed; the seeds cannot tell whether the loss rises or the logits grow there",
            "no-logits": "1/√d's best rate {best:.2g}, highest {top:.2g}: the final loss there "
            "is {rise:+.3g} ± {se:.2g} above the best rate's over {seeds:count:seed} "
            "({higher:clearly|not clearly}); no finite attention logit was recorded at both",
            "one-seed": ONE_SEED,
        },
        part="the second instability, divergence of the output logits, which the sweep does "
        "not measure",
    ),
    "wortsman-mitigations-effective": Claim(
        "stability",
        "wortsman2024small",
        "abstract",
        "mitigations previously employed at large scales are equally effective in this regime",
        setting=SWEEP,
        reading="The mitigation of logit growth they test, qk-layernorm, in the book's "
        "form QK-norm (the cosine of q and k times a learned gain per head; theirs is a "
        "LayerNorm on q and k before 1/√d): its learning-rate sensitivity (their definition: "
        "the mean over the rates of the final loss, capped at the initial loss, above the best "
        "rate's) is clearly below 1/√d's, paired by seed. Lower but not clearly is a caveat. "
        "'Equally effective' compares with large models, which the book does not train: it "
        "tests only that the mitigation works at its scale.",
        quote_checked=_WORTSMAN_ABSTRACT,
        check=SWEEP_CHECK,
        says=LOWER_SENSITIVITY,
        part="“equally” (no large model is trained to compare with) and the z-loss",
    ),
}
