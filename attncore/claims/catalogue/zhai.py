"""The claims of Zhai et al. (2023), entropy collapse and σReparam.

Each claim: its words, the book's reading and the sentences that say its verdict."""

from __future__ import annotations

from attncore.claims.catalogue.reasons import LOWER_SENSITIVITY, ONE_SEED, SWEEP, SWEEP_CHECK
from attncore.claims.claim import ANY, Claim

_ZHAI_ABSTRACT = (
    "the abstract of arXiv:2303.06296 in its later version (v1 says 'the proposed "
    "reparameterization' where it says 'σReparam' in one sentence), as public listings of it "
    "reproduce it; the book keeps no text of the paper"
)


CLAIMS: dict[str, Claim] = {
    "zhai-low-entropy-unstable": Claim(
        "stability",
        "zhai2023stabilizing",
        "abstract",
        "low attention entropy is accompanied by high training instability",
        setting=SWEEP,
        reading="Over every (method, rate) cell above its method's best rate (where the "
        "sweep's instability lies), a lower attention entropy (the lowest head's, the lowest "
        "recorded along training) goes with a higher final loss (capped at the initial "
        "loss): Spearman's rank correlation over the cells, each the mean of its seeds (the "
        "seeds of a cell share its setting, so the cell is the unit), is clearly negative "
        "(one-sided, 5 %). Negative but not clearly is a caveat. String "
        "reversal is solved by one-hot attention, so a low entropy is not pathological in "
        "itself here; the rates below the best are left out for that reason.",
        quote_checked=_ZHAI_ABSTRACT,
        check=SWEEP_CHECK,
        says={
            ANY: "Spearman's ρ between the lowest attention entropy and the final loss over the "
            "{cells:,} (method, rate) cells above their method's best rate ({runs:,} runs): "
            "{rho:+.2f} (one-sided p = {p:.2g})",
            "fails": "Spearman's ρ between the lowest attention entropy and the final loss over "
            "the {cells:,} (method, rate) cells above their method's best rate ({runs:,} runs): "
            "{rho:+.2f}, clearly positive (one-sided p = {p_positive:.2g})",
            "untestable": "Spearman's ρ between the lowest attention entropy and the final loss "
            "over the {cells:,} (method, rate) cells above their method's best rate ({runs:,} "
            "runs): {rho:+.2f}, neither clearly negative nor clearly positive: the cells cannot "
            "tell",
            "too-few": "{cells:number} (method, rate) cells above their method's best rate "
            "({runs:,} runs), too few or all alike",
            "one-seed": ONE_SEED,
        },
    ),
    "zhai-sigma-reparam-prevents-collapse": Claim(
        "stability",
        "zhai2023stabilizing",
        "abstract",
        "σReparam successfully prevents entropy collapse in the attention layers",
        setting=SWEEP,
        reading="σReparam on W_q and W_k only (Zhai et al. reparametrize every linear "
        "layer): at each rate above 1/√d's best where 1/√d's attention has collapsed (the "
        "lowest head's mean entropy, the lowest recorded along training, below a share of "
        "ln L, L the string length, on average over the seeds) and its loss rose clearly "
        "above the best rate's (a low entropy in a run that still learns is the task's "
        "solution, not Zhai et al.'s collapse), "
        "σReparam's entropy is clearly higher, paired by seed, with Holm's correction over "
        "those rates. At some of them only is a caveat; with no collapse to prevent the claim "
        "is not testable here. σReparam collapsed too only where its own loss also rose "
        "clearly: a low entropy while it still learns is the task's solution for it as for "
        "1/√d, and then the sweep cannot tell.",
        quote_checked=_ZHAI_ABSTRACT,
        check=SWEEP_CHECK,
        says={
            "holds": "1/√d's attention collapsed at {collapsed:share:rate} above its best; "
            "σReparam's entropy is clearly higher at each ({differences:items:difference} nats)",
            "caveat": "1/√d's attention collapsed at {collapsed:share:rate} above its best; "
            "σReparam's entropy is clearly higher at {higher:number} of them "
            "({differences:items:difference} nats)",
            "fails": "1/√d's attention collapsed at {collapsed:share:rate} above its best; "
            "σReparam's entropy is not clearly higher at any "
            "({differences:items:difference} nats) and it collapsed too, its loss rising",
            "sigma-solution": "1/√d's attention collapsed at {collapsed:share:rate} above its "
            "best; σReparam's entropy is as low there ({differences:items:difference} nats) "
            "while its loss did not clearly rise, so its low entropy is the task's solution: "
            "the sweep cannot tell a prevented collapse from a solved task",
            "untestable": "1/√d's attention collapsed at {collapsed:share:rate} above its best; "
            "σReparam's did not collapse, but the seeds cannot tell its entropy higher "
            "({differences:items:difference} nats)",
            "no-collapse": "1/√d's attention did not collapse at any rate above its best "
            "({best:.2g}): nothing to prevent",
            "solution": "1/√d's attention entropy fell low above its best rate ({best:.2g}) "
            "only where its loss did not clearly rise: there low entropy is the task's "
            "solution, not the collapse that comes with instability",
            "one-seed": ONE_SEED,
        },
        words={"difference": "at {rate:.2g}, {difference:+.2g} ± {se:.2g}"},
    ),
    "zhai-sigma-reparam-robust": Claim(
        "stability",
        "zhai2023stabilizing",
        "abstract",
        "We show that σReparam provides stability and robustness with respect to the choice "
        "of hyperparameters",
        setting=SWEEP,
        reading="For the one hyperparameter the sweep varies, the learning rate: "
        "σReparam's learning-rate sensitivity (Wortsman et al.'s definition) is clearly below "
        "1/√d's, paired by seed. Lower but not clearly is a caveat.",
        quote_checked=_ZHAI_ABSTRACT,
        check=SWEEP_CHECK,
        says=LOWER_SENSITIVITY,
        part="hyperparameters other than the learning rate",
    ),
}
