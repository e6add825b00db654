"""The claims of Vaswani et al. (2017), Attention is all you need.

Each claim: its words, the book's reading and the sentences that say its verdict."""

from __future__ import annotations

from attncore.claims.catalogue.reasons import EXACT
from attncore.claims.claim import ANY, Claim, Kind, Verdict

CLAIMS: dict[str, Claim] = {
    "vaswani-variance": Claim(
        "why_sqrt_d",
        "vaswani2017attention",
        "3.2.1, footnote 4",
        r"assume that the components of q and k are independent random variables with mean 0 "
        r"and variance 1. Then their dot product, $q \cdot k = \sum_{i=1}^{d_k} q_i k_i$, has "
        r"mean 0 and variance d_k .",
        "For q and k with independent components of mean 0 and variance 1, q·k has mean 0 and "
        "variance d_k: derived for a symbolic d and simulated at each d of the chapter.",
        Kind.IDENTITY,
        unreachable={Verdict.CAVEAT: EXACT},
        check="symbolic derivation (cumulants of independent terms) and a simulation at each d",
        says={
            "holds": "Var(q·k) = d for every d: derived minus claimed simplifies to zero, and "
            "simulated at d = {ds:range:d} with {pairs:,} pairs each, every mean and variance "
            "lies within {worst:.2f} standard errors of its closed form (pass mark {z_limit:g})",
            "fails": "the derivation for a symbolic d misses Var(q·k) = d: derived minus "
            "claimed is {residual}; simulated at d = {ds:range:d} with {pairs:,} pairs each, "
            "every mean and variance lies within {worst:.2f} standard errors of the derived "
            "forms (pass mark {z_limit:g})",
            "untestable": "the derivation gives Var(q·k) = d for a symbolic d, but simulated at "
            "d = {ds:range:d} with {pairs:,} pairs each, a mean or variance lies {worst:.2f} "
            "standard errors from its closed form (pass mark {z_limit:g}): the two routes "
            "disagree, so no verdict",
        },
    ),
    "vaswani-small-gradients": Claim(
        "every_rescaling",
        "vaswani2017attention",
        "3.2.1",
        r"We suspect that for large values of d_k , the dot products grow large in magnitude, "
        r"pushing the softmax function into regions where it has extremely small gradients "
        r"⁴. To counteract this effect, we scale the dot products by $\frac{1}{\sqrt{d_k}}$.",
        "A hedged suspicion about the softmax's own gradient, its Jacobian ds/dz: on standard "
        "normal queries and keys, without scaling the mean Jacobian norm falls (to below half "
        "between the smallest and largest d) and the share of saturated rows rises as d grows, "
        "while with 1/√d the Jacobian norm stays steady (within 25 %), at every number of keys. "
        "'Counteract' compares the two at the same size: at the largest d, 1/√d's Jacobian norm "
        "is clearly above the unscaled one at every number of keys; where it is not, the "
        "suspicion holds with a caveat.",
        says={
            ANY: "standard normal, d {d:range:d}: unscaled, the mean softmax Jacobian norm "
            "falls to {ratio:range:.3f} of its value at the smallest d (clearly at {falls} of "
            "the {ns} n), and the share of rows whose largest probability exceeds "
            "{threshold:g} is {sat_first:range:.3g} at the smallest d and {sat_last:range:.3g} "
            "at the largest (a clear rise at {rises}); with 1/√d the Jacobian norm varies "
            "across d by a factor {spread:.2f} at most (clearly steady at {stable}), and at the "
            "largest d it is {against:range:.2f} times the unscaled one (clearly above at "
            "{counteracts})",
            "not-counteracted": "d {d:range:d}: unscaled, the Jacobian norm falls to "
            "{ratio:range:.3f} of its start and saturation (largest probability above "
            "{threshold:g}) rises to {sat_last:range:.3g}; with 1/√d it stays within a factor "
            "{spread:.2f}, but at the largest d it is {against:range:.2f} times the unscaled "
            "norm, clearly above it at only {counteracts} of the {ns} n",
        },
    ),
    "vaswani-additive-outperforms-unscaled": Claim(
        "",
        "vaswani2017attention",
        "3.2.1",
        "While for small values of d_k the two mechanisms perform similarly, additive attention "
        "outperforms dot product attention without scaling for larger values of d_k [3].",
        "Additive attention beats unscaled dot-product attention for large d_k.",
        untestable="the book trains no additive-attention model; Vaswani et al. cite the "
        "evidence (machine translation experiments of their reference [3])",
    ),
    "vaswani-dot-product-faster": Claim(
        "",
        "vaswani2017attention",
        "3.2.1",
        "While the two are similar in theoretical complexity, dot-product attention is much "
        "faster and more space-efficient in practice, since it can be implemented using highly "
        "optimized matrix multiplication code.",
        "Dot-product attention is faster and leaner than additive attention in practice.",
        untestable="the book implements no additive attention to time against",
    ),
}
