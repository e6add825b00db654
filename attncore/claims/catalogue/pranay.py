"""The claims of the blog post on softmax saturation (Pranay, 2025).

Each claim: its words, the book's reading and the sentences that say its verdict."""

from __future__ import annotations

from attncore.claims.catalogue.reasons import (
    EXACT,
    REPORTED_SIMULATION,
    RUNS,
    proof,
)
from attncore.claims.claim import ANY, Claim, Kind, Verdict

_DIGITS = "printed digits match or they do not"

_RECOMPUTED = "recomputed with a max-subtracted softmax, rounded to the printed digits"

_PRINTED = {
    Verdict.CAVEAT: _DIGITS,
    Verdict.UNTESTABLE: "a run with other inputs than the post's checks nothing and records no "
    "verdict (the ledger shows the claim pending)",
}
"""The verdicts a check of the post's printed outputs cannot return, with the reasons."""


CLAIMS: dict[str, Claim] = {
    "blog-softmax-example": Claim(
        "softmax_saturation",
        "pranay2025why",
        "Logic (code outputs)",
        "Softmax of y: [0.202 0.247 0.183 0.368] … Softmax of y_scaled: [0.008 0.039 0.004 0.95]",
        "The post's printed softmax of y = [0.2, 0.4, 0.1, 0.8] and of 8y, recomputed and "
        "rounded to the printed digits.",
        Kind.QUOTATION,
        unreachable=_PRINTED,
        check=_RECOMPUTED,
        says={
            "holds": "every printed digit of softmax(y) and softmax(8y) is reproduced",
            "fails": "the printed digits of softmax(y) {unscaled:match|do not match}, those of "
            "softmax(8y) {scaled:match|do not match}",
        },
    ),
    "blog-jacobian-example": Claim(
        "softmax_saturation",
        "pranay2025why",
        "Logic (code outputs)",
        "Jacobian of softmax(y): [[ 0.16125, -0.04988, -0.03695, -0.07441], … Jacobian of "
        "softmax(y * 8): [[ 0.00776, -0.0003 , -0.00003, -0.00743],",
        "The post's printed Jacobians diag(s) − s sᵀ of both softmax outputs (every entry, to "
        "5 decimals; the quote shows their first rows), recomputed and rounded to the printed "
        "digits.",
        Kind.QUOTATION,
        unreachable=_PRINTED,
        check=_RECOMPUTED,
        says={
            "holds": "every printed digit of both Jacobians is reproduced",
            "fails": "the printed digits of the Jacobian of softmax(y) "
            "{unscaled:match|do not match}, those of the Jacobian of softmax(8y) "
            "{scaled:match|do not match}",
        },
    ),
    "blog-peaked-small-derivatives": Claim(
        "softmax_saturation",
        "pranay2025why",
        "Logic",
        r"In highly skewed distributions, most $s_i$ values are close to 0, so their "
        r"derivatives become very small.",
        "As rows of random logits become peaked (mean largest probability at least the "
        "chapter's saturation threshold), the mean Frobenius norm of the softmax Jacobian falls "
        "from its largest value over the spreads, and falls at least as far as in the post's "
        "own example (multiplying its logits by 8), which the post calls very small.",
        check="mean Jacobian Frobenius norm of random rows against their mean largest "
        "probability; peaked means a mean largest probability of at least the chapter's "
        "saturation threshold; 'very small' means a fall to at most {example_ratio:.2f} of the "
        "largest mean norm, as far as in the blog's own example (book's reading); two standard "
        "errors",
        says={
            "holds": "the mean ‖J‖_F falls as far as in the blog's example: from its peak, "
            "{peak_norm:.3g} at spread {peak_spread:.3g}, to {peaked_norm:.3g} ({share:.2g} of "
            "the peak) at the most peaked rows of the grid (spread {peaked_spread:.3g}, mean "
            "largest probability {peaked_p:.3f})",
            "caveat": "the mean ‖J‖_F falls, but less far than in the blog's example: from its "
            "peak, {peak_norm:.3g} at spread {peak_spread:.3g}, to {peaked_norm:.3g} "
            "({share:.2g} of the peak) at the most peaked rows of the grid (spread "
            "{peaked_spread:.3g}, mean largest probability {peaked_p:.3f}); the book's reading: "
            "rows whose two largest logits are close keep a sizeable gradient",
            "fails": "the mean ‖J‖_F does not clearly fall: it is {peaked_norm:.3g} "
            "({share:.2g} of its peak) at the most peaked rows of the grid (spread "
            "{peaked_spread:.3g}, mean largest probability {peaked_p:.3f}), against its peak of "
            "{peak_norm:.3g} at spread {peak_spread:.3g}",
            "untestable": "no spread of the grid makes the rows peaked: the most peaked "
            "(spread {peaked_spread:.3g}) have a mean largest probability of {peaked_p:.3f}; "
            "the mean ‖J‖_F there is {peaked_norm:.3g}, {share:.2g} of its peak of "
            "{peak_norm:.3g} at spread {peak_spread:.3g}",
        },
    ),
    "blog-jacobian-formula": Claim(
        "softmax_saturation",
        "pranay2025why",
        "Logic",
        r"For $i = j$: $\text{softmax}' = s_i(1 - s_i)$ … For $i \ne j$: "
        r"$\text{softmax}' = -s_i s_j$ … This entire operation can be compactly written as - "
        r"$\text{softmax}' = \text{diag}(\vec{s}) - \vec{s} \vec{s}^T$",
        "The softmax's Jacobian is diag(s) − s sᵀ: sympy's derivative of exp(z_i)/Σ_j exp(z_j) "
        "and a complex-step Jacobian (no formula used) on random rows agree with it.",
        Kind.IDENTITY,
        unreachable={Verdict.CAVEAT: EXACT, Verdict.UNTESTABLE: RUNS},
        check="symbolic differentiation of exp(z_i) / Σ_j exp(z_j), and a complex-step "
        "Jacobian (no formula used) on random rows, from nearly uniform to saturated",
        says={
            "holds": "sympy's derivative of the softmax equals diag(s) − s sᵀ, and over {rows} "
            "random rows of {keys} logits the complex-step Jacobian differs from it by at most "
            "{difference:.1e}, within rounding",
            "fails": "sympy's derivative of the softmax {symbolic:equals|differs from} "
            "diag(s) − s sᵀ; over {rows} random rows of {keys} logits the complex-step Jacobian "
            "differs from it by up to {difference:.1e}, {numeric:within|beyond} rounding",
        },
    ),
    "blog-variance-skews-softmax": Claim(
        "softmax_saturation",
        "pranay2025why",
        "Logic",
        "A higher variance causes the output of the softmax to become very skewed. In other "
        "words, the softmax outputs are extremely close to 1 for one position and near 0 for "
        "others.",
        "The mean largest probability of rows of random logits rises with their spread, and "
        "at the spread of unscaled logits (d = 64, 512) it reaches the post's own 'extremely "
        "peaked' example, 0.95, for every number of keys measured.",
        check="mean largest probability of rows of iid N(0, spread²) logits against the "
        "spread, and at the spreads of unscaled logits for several numbers of keys; 'extremely "
        "close to 1' read as the largest probability of the post's own example (book's "
        "reading); two standard errors",
        says={
            "holds": "the mean largest probability rises with the spread and is not clearly "
            "below the post's example at any marked spread: {by_keys:details:keys}",
            "caveat": "the mean largest probability rises with the spread but stays clearly "
            "below the post's example for {short:items:short}: {by_keys:details:keys}",
            "fails": "the mean largest probability does not clearly rise with the spread "
            "everywhere: {by_keys:details:keys}",
            "untestable": "fewer than two spreads, or no number of keys, measured",
        },
        words={
            "keys": "n = {n}: {points:items:point}",
            "point": "{p:.3f} at spread {spread:.3g}",
            "short": "n = {n_keys} at spread {spread:.3g}, d = {d}",
        },
    ),
    "blog-variance-factor-64": Claim(
        "softmax_saturation",
        "pranay2025why",
        "Logic",
        r"Since variance scales with the square of the scaling factor, the new vector has "
        r"$\( 8^2 = 64 \)$ times the original variance.",
        "Var(8y)/Var(y) = 64 for the post's y, in exact arithmetic, and Var(cY) = c² Var(Y) "
        "for a general finite distribution, in sympy.",
        Kind.IDENTITY,
        unreachable={Verdict.CAVEAT: EXACT, Verdict.UNTESTABLE: RUNS},
        check="exact rational arithmetic on the post's y, and sympy on a general finite "
        "distribution",
        says={
            "holds": "Var({factor:g}y) / Var(y) = {exact:g} exactly for the post's y "
            "({float:.15g} in floating point), and Var(cY) = c² Var(Y) derived symbolically",
            "fails": "Var({factor:g}y) / Var(y) = {exact:g} exactly for the post's y "
            "({float:.15g} in floating point); Var(cY) = c² Var(Y) "
            "{symbolic:derived|not derived} symbolically",
        },
    ),
    "blog-scaled-variance": Claim(
        "why_sqrt_d",
        "pranay2025why",
        "Logic",
        r"This normalization keeps the variance of the scaled dot product around 1, regardless "
        r"of the input dimension $\( d_k \)$.",
        "Var(q·k/√d_k) = d_k/d_k = 1 for every d_k (under the post's assumptions: independent "
        "components of mean 0 and variance 1): derived for a symbolic d and simulated at each d.",
        Kind.IDENTITY,
        unreachable={Verdict.CAVEAT: EXACT},
        check=REPORTED_SIMULATION,
        says={
            "holds": "Var(q·k/√d) = 1 for every d: derived minus claimed simplifies to zero, "
            "and the simulation is the one reported for the footnote's Var(q·k) = d, whose "
            "logits this divides by √d",
            "fails": "the derivation for a symbolic d misses Var(q·k/√d) = 1: derived minus "
            "claimed is {residual}",
            "untestable": "the derivation gives Var(q·k/√d) = 1 for a symbolic d, but the "
            "footnote's simulation, whose logits this divides by √d, lies {worst:.2f} standard "
            "errors from its closed form: the two routes disagree, so no verdict",
        },
    ),
    "blog-variance-derivation": proof(
        "why_sqrt_d",
        "pranay2025why",
        "Logic",
        r"Each $q_i$ and $k_i$ are independent, with $\( \mathbb{E}[q_i] = \mathbb{E}[k_i] = 0 "
        r"\)$ and $\( \text{Var}(q_i) = \text{Var}(k_i) = 1 \)$. So each pair "
        r"$\(q_i \cdot k_i\)$ is also independent. … This shows that the variance grows "
        r"linearly with $\( d_k \)$, while the mean remains 0.",
        "Each line of the post's derivation of Var(q·k) = d_k (the variance of the sum is the "
        "sum of the variances; Var(q_i k_i) = E[q_i²] E[k_i²] = 1) follows from the line before, "
        "re-derived in sympy.",
    ),
    "blog-stable-responsive-region": Claim(
        "every_rescaling",
        "pranay2025why",
        "Logic",
        "As a result, the softmax stays in a stable, responsive region, …",
        "Under 1/√d on standard normal queries and keys, at each n the Jacobian norm stays "
        "within a factor 1.25 across d and entropy/ln n and the saturated share within 0.05; "
        "a caveat where they move with n or with the family.",
        says={
            ANY: "under 1/√d, across d at each n, the Jacobian norm, entropy / ln n and the "
            "saturated share stay clearly within their bounds at {within} of {ns} n"
            "{beyond:items:beyond}{unclear:items:unclear}; across n, entropy / ln n spans "
            "{entropy:range:.2f} and the saturated share {saturation:range:.3g} (a clear move "
            "at {moving_n} of {ds} d){leaving:items:leaving}"
        },
        check="every family at the main setting ({main}), and the {setting}",
        words={
            "beyond": "; clearly beyond them at n = {ns:list}",
            "unclear": "; the draws cannot tell at n = {ns:list}",
            "leaving": "; the entropy / ln n of {families:list} differs clearly from the "
            "standard normal's",
        },
    ),
    "blog-gradient-flow-preserved": Claim(
        "every_rescaling",
        "pranay2025why",
        "Logic",
        "the softmax stays in a stable, responsive region, and the gradient flow is preserved.",
        "The gradient reaching the query, ‖ds/dq‖ = ‖c J K‖, stays of the same order (within a "
        "factor 2) across d under 1/√d at every n, where without scaling its median falls.",
        says={
            ANY: "under 1/√d the median ‖ds/dq‖, largest over smallest across d, is "
            "{ratio:range:.3g} over the n measured: of the same order clearly at {within} of "
            "{ns} n{beyond:items:beyond}{unclear:items:unclear}; unscaled, the median falls "
            "clearly from the smallest to the largest d at {falls} of {fall_ns} n; under 1/√d "
            "the gradient moves across n beyond the same order at {moving_n} of {ds} d (mean "
            "{mean:range:.3g})"
        },
        check="{setting}",
        words={
            "beyond": "; clearly not at n = {ns:list}",
            "unclear": "; the draws cannot tell at n = {ns:list}",
        },
    ),
    "blog-init-unit-variance": Claim(
        "beyond_initialization",
        "pranay2025why",
        "Logic",
        "During initialization, weights are typically assigned randomly from a distribution "
        "with zero mean and unit variance.",
        "The library defaults a model starts from (Keras, PyTorch, JAX/Flax initializers) draw "
        "weights of mean 0 and variance 1 (within 0.1 plus sampling error).",
        check="weights drawn as each library default does (its documented formula, "
        "re-implemented in numpy); a weight variance counts as unit within a tolerance plus "
        "sampling error over initializations, a mean as zero within sampling error",
        says={
            "holds": "every library default draws weights of unit variance and zero mean; "
            "the variances of the weights and of the Q entries they give on unit-variance "
            "tokens are {defaults:items:default}",
            "caveat": "some library defaults draw weights of unit variance and zero mean, "
            "others do not; the variances of the weights and of the Q entries they give on "
            "unit-variance tokens are {defaults:items:default}",
            "fails": "no library default draws weights of unit variance and zero mean; the "
            "variances of the weights and of the Q entries they give on unit-variance tokens "
            "are {defaults:items:default}",
            "untestable": "no library default was measured",
        },
        words={"default": "{weight:.3g} and {q:.2f} ({label})"},
    ),
    "blog-vanishing-gradients-learning": Claim(
        "string_reversal",
        "pranay2025why",
        "Logic",
        "This leads to vanishing gradients, meaning the model’s parameters update very little "
        "(or not at all). As a result, learning slows down dramatically or fails altogether.",
        "Large logits at initialization slow learning or stop it. Read in the runs of "
        "Chuang's searches on string reversal, which train one model per β from the same "
        "start for the same budget (one seed, so one run per β): where some run whose logits "
        "start about unit reaches 95 % token accuracy, the runs whose logits start spread by "
        "a large amount (across keys, the threshold in the ledger) stay below it. A "
        "large-logit run that reaches it refutes the claim; a setup and budget where no run "
        "reaches it cannot tell.",
        check="runs of Chuang's searches, one per β, setup and budget, first seed; logit "
        "spread measured at initialization",
        says={
            "holds": "runs starting with logits spread by {large:g} or more stay below 95 % "
            "where runs starting about unit reach it ({shown:count:search}): "
            "{setups:details:setup}",
            "fails": "a run whose logits start spread by {large:g} or more reaches 95 %: "
            "{setups:details:setup}",
            "untestable": "no run that starts about unit reaches 95 % beside runs whose logits "
            "start spread by {large:g} or more, so the budgets cannot tell slowed learning "
            "apart: {setups:details:setup}",
            "no-contrast": "the search trained no run whose logits start spread by {large:g} "
            "or more beside one that starts about unit",
        },
        words={
            "setup": "{setup}, {steps:,} steps: β {big_betas:range} (large logits) best "
            "{big_best}, β {small_betas:range} (about unit) best {small_best}",
        },
        part="the mechanism, tiny updates of W_q and W_k, which the runs do not record",
    ),
    "blog-vaswani-quote": Claim(
        "softmax_saturation",
        "pranay2025why",
        "Logic",
        r"“We suspect that for large values of $d_k$, the dot products grow large in "
        r"magnitude, pushing the softmax function into regions where it has extremely small "
        r"gradients. To counteract this effect, we scale dot products by $\sqrt{d_k}$”",
        "The post's quotation of Vaswani et al. matches their sentence word for word.",
        Kind.QUOTATION,
        unreachable={
            Verdict.UNTESTABLE: "the quotation and the original are both in the catalogue"
        },
        check="word-by-word comparison with the original sentence",
        says={
            "holds": "the quotation matches the original word for word",
            "caveat": "the quotation differs in wording only: it {changes:items:change}",
            "fails": "the quotation changes a word with mathematics: it {changes:items:change}",
        },
        words={
            "change": "{replaced:items:replaced}{omitted:items:omitted}{added:items:added}",
            "replaced": "writes “{now}” where the original writes “{was}”",
            "omitted": "leaves out “{was}”",
            "added": "adds “{now}”",
        },
    ),
    "blog-theoretical-motivation": Claim(
        "",
        "pranay2025why",
        "Overview",
        r"Unlike many hyperparameters in deep learning that are often tuned through trial and "
        r"error or heuristics, the scaling factor $\sqrt{d_k}$ has a theoretical motivation.",
        "The factor √d_k follows from an argument rather than tuning.",
        untestable="a characterisation, not a measurable statement; what the motivation covers "
        "(a variance at initialization) is tested with Vaswani et al.'s footnote, Var(q·k) = d",
    ),
    "blog-embedding-dimension": Claim(
        "string_reversal",
        "pranay2025why",
        "Logic",
        r"the dot product $\( q \cdot k \)$ will have a variance proportional to "
        r"$\( d_k \)$, where $\( d_k \)$ is the embedding dimension.",
        "In Vaswani et al.'s multi-head attention (their section 3.2.2) d_k is the width the "
        "d_model-dimensional embeddings are projected to in each head, d_model/h, so it is the "
        "embedding dimension only with one head. Tested on the model trained here: its d_k "
        "against its embedding width d_model.",
        Kind.QUOTATION,
        unreachable={
            Verdict.HOLDS: "even where d_k equals d_model (one head), Vaswani et al. define d_k "
            "as the projected width, so the equality is a caveat, not the definition",
            Verdict.UNTESTABLE: "the model trained here always has a d_model and heads",
        },
        check="the book's model against Vaswani et al.'s section 3.2.2, where the queries, "
        "keys and values of d_model dimensions are projected to d_k, d_k and d_v dimensions "
        "per head",
        says={
            "caveat": "d_k = {d_k} equals the embedding width d_model = {d_model} here only "
            "because the model has {heads:count:head}: Vaswani et al. define d_k as the width "
            "the keys are projected to",
            "fails": "d_k = {d_k} is the width of a head's keys, d_model/h with d_model = "
            "{d_model} and {heads:count:head}, not the embedding dimension",
        },
    ),
}
