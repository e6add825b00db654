"""The claims of the blog post on softmax saturation (Pranay, 2025).

Each claim: its words, the book's reading and the sentences that say its verdict."""

from __future__ import annotations

from attncore.claims.catalogue.reasons import EXACT, RUNS
from attncore.claims.claim import Claim, Kind, Verdict

_DIGITS = "printed digits match or they do not"


CLAIMS: dict[str, Claim] = {
    "blog-softmax-example": Claim(
        "softmax_saturation",
        "pranay2025why",
        "Logic (code outputs)",
        "Softmax of y: [0.202 0.247 0.183 0.368] … Softmax of y_scaled: [0.008 0.039 0.004 0.95]",
        "The post's printed softmax of y = [0.2, 0.4, 0.1, 0.8] and of 8y, recomputed and "
        "rounded to the printed digits.",
        Kind.QUOTATION,
        unreachable={
            Verdict.CAVEAT: _DIGITS,
            Verdict.UNTESTABLE: "a run with other inputs than the post's checks nothing and "
            "records no verdict (the ledger shows the claim pending)",
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
        unreachable={
            Verdict.CAVEAT: _DIGITS,
            Verdict.UNTESTABLE: "a run with other inputs than the post's checks nothing and "
            "records no verdict (the ledger shows the claim pending)",
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
    ),
    "blog-variance-derivation": Claim(
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
        Kind.IDENTITY,
        unreachable={Verdict.CAVEAT: EXACT},
    ),
    "blog-stable-responsive-region": Claim(
        "every_rescaling",
        "pranay2025why",
        "Logic",
        "As a result, the softmax stays in a stable, responsive region, …",
        "Under 1/√d on standard normal queries and keys, at each n the Jacobian norm stays "
        "within a factor 1.25 across d and entropy/ln n and the saturated share within 0.05; "
        "a caveat where they move with n or with the family.",
    ),
    "blog-gradient-flow-preserved": Claim(
        "every_rescaling",
        "pranay2025why",
        "Logic",
        "the softmax stays in a stable, responsive region, and the gradient flow is preserved.",
        "The gradient reaching the query, ‖ds/dq‖ = ‖c J K‖, stays of the same order (within a "
        "factor 2) across d under 1/√d at every n, where without scaling its median falls.",
    ),
    "blog-init-unit-variance": Claim(
        "beyond_initialization",
        "pranay2025why",
        "Logic",
        "During initialization, weights are typically assigned randomly from a distribution "
        "with zero mean and unit variance.",
        "The library defaults a model starts from (Keras, PyTorch, JAX/Flax initializers) draw "
        "weights of mean 0 and variance 1 (within 0.1 plus sampling error).",
    ),
    "blog-vanishing-gradients-learning": Claim(
        "",
        "pranay2025why",
        "Logic",
        "This leads to vanishing gradients, meaning the model’s parameters update very little "
        "(or not at all). As a result, learning slows down dramatically or fails altogether.",
        "Large unscaled logits at initialization make the updates of W_q and W_k tiny and "
        "learning slow or impossible.",
        untestable="the training chapter's setups start with small logits (d_k = 8, Keras-like "
        "or PyTorch initialization), the opposite regime, and its runs do not record the "
        "gradients of W_q and W_k; testing it needs a setup with large unscaled logits at "
        "initialization",
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
    ),
}
