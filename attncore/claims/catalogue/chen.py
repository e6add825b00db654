"""The claims of Chen et al. (2025), the critical log-n scale.

Each claim: its words, the book's reading and the sentences that say its verdict."""

from __future__ import annotations

from attncore.claims.claim import Claim

_ABSTRACT = (
    "the abstract of arXiv:2510.05554 (v1, 2025), its mathematics as displayed; the book keeps "
    "no text of the paper"
)

_CHEN_MODEL = (
    "The book's simulation of the paper's model (normalised almost-simplex tokens with "
    "pairwise correlation ρ, one attention layer with logits γ ln n ⟨y_i, y_j⟩ and the identity "
    "as value; the chapter gives the details)."
)


CLAIMS: dict[str, Claim] = {
    "chen-uniform-as-n-grows": Claim(
        "critical_scale",
        "chen2025critical",
        "abstract",
        "attention scores collapse toward uniformity as context length n increases, causing "
        "tokens to cluster excessively",
        setting=_CHEN_MODEL,
        reading="At a logit scale fixed in n (1/√d on tokens of norm √d, "
        "β = √d), the rows of attention move toward uniform (their normalised entropy rises) "
        "and the outputs move together (the ratio of output to input angle falls) from the "
        "smallest to the largest n, clearly over the draws, at every ρ.",
        quote_checked=_ABSTRACT,
    ),
    "chen-phase-transition": Claim(
        "critical_scale",
        "chen2025critical",
        "abstract",
        "In this model, attention exhibits a phase transition governed by the scaling factor "
        "β_n: insufficient scaling collapses all tokens to a single direction, while "
        "excessive scaling reduces attention to identity, thereby eliminating meaningful "
        "interactions between tokens.",
        setting=_CHEN_MODEL,
        reading="At the largest n, a factor below the critical scale "
        "1/(1 − ρ) the ratio of output to input angle is near 0 (the tokens collapse) and a "
        "factor above it near 1 (the identity), at every ρ; and the transition sharpens with "
        "n: below the critical scale the ratio falls as n grows, above it it does not fall.",
        quote_checked=_ABSTRACT,
    ),
    "chen-critical-log-n": Claim(
        "critical_scale",
        "chen2025critical",
        "abstract",
        "Our main result identifies the critical scaling β_n ≍ log n",
        setting=_CHEN_MODEL,
        reading="The transition sits at β_n = γ_c ln n with γ_c = 1/(1 − ρ) "
        "(the value derived here for the exact simplex, and the paper's critical scale as "
        "secondary accounts of its theorem report it): where the angle ratio crosses the "
        "value the exact simplex takes at γ_c (self weight 1/2), the measured γ lies within "
        "a tolerance of 1/(1 − ρ) at the largest n, at every ρ.",
        quote_checked=_ABSTRACT,
    ),
    "chen-justifies-yarn-qwen": Claim(
        "",
        "chen2025critical",
        "abstract",
        "provides a rigorous justification for attention scaling in YaRN and Qwen",
        untestable="a proof's rigour is judged by reading it, and the book keeps only the "
        "abstract; nor does it run YaRN or Qwen (the chapter on the critical scale tests the "
        "model the justification rests on)",
        reading="The paper's proofs justify the length-dependent attention scaling of YaRN "
        "and Qwen.",
        quote_checked=_ABSTRACT,
    ),
}
