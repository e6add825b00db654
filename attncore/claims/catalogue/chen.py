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

_CHECK = (
    "simulated almost-simplex at the chapter's d, n and ρ, intervals over the draws "
    "simultaneous over ρ by Bonferroni"
)

_ENDS = (
    "at n = {n}, the angle ratio is {collapse:range:.3f} a factor below the critical scale "
    "and {identity:range:.3f} a factor above it over ρ = {rhos:list:g}"
)
"""What the ratio is at both ends of the transition, which each verdict on the phase
transition states after its result."""

_FALLS = "; below it the ratio changed by {falls:range:+.3f} from n = {n_min}"

_CHANGES = (
    "from n = {n:range:d} (γ = {gammas:range:.2f}), the rows' normalised entropy changed by "
    "{entropy:range:+.3f} and the angle ratio by {ratio:range:+.3f} over ρ = {rhos:list:g}"
)

_BOUNDARY = (
    "at n = {n}, it lies at {boundary:range:.3f} times 1/(1 − ρ) over ρ = {rhos:list:g} "
    "(intervals {intervals:range:.3f}, {draws} draws or more)"
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
        check=_CHECK + ", the logit scale of {scale} on tokens of norm √d",
        says={
            "holds": "the rows flattened and the tokens clustered, both clearly at every ρ: "
            + _CHANGES,
            "caveat": "the rows flattened or the tokens clustered clearly at some ρ, but not "
            "both at ρ = {unclear:list:g}: " + _CHANGES,
            "fails": "neither did the rows flatten nor the tokens cluster: at every ρ the draws "
            "keep the entropy's rise and the ratio's fall within what counts as no change; "
            + _CHANGES,
            "untestable": "at no ρ did the rows clearly flatten or the tokens clearly cluster, "
            "but the draws cannot tell whether the changes are within what counts as no change "
            "at ρ = {undecided:list:g}: " + _CHANGES,
            "one-n": "the sweep has {count:count:value} of n at this scale: no change with n "
            "to measure",
            "one-draw": "fewer than two draws at some n and ρ at this scale: too few draws to tell",
        },
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
        check=_CHECK + ", the angle ratio interpolated in ln γ a factor below and above γ_c",
        says={
            "holds": "both ends are reached and the transition sharpens, clearly at every ρ: "
            + _ENDS
            + _FALLS,
            "caveat": "the transition shows only in part ({exceptions:items:exception}): "
            + _ENDS
            + _FALLS,
            "fails": "at every ρ an end is clearly missed and the transition clearly does not "
            "sharpen: " + _ENDS + _FALLS,
            "untestable": "both ends are reached clearly at no ρ, nor does the transition "
            "sharpen clearly, but the draws cannot tell whether an end is missed and the "
            "transition does not sharpen at ρ = {undecided:list:g}: " + _ENDS + _FALLS,
            "one-n": "both ends are reached clearly at every ρ; with one n, whether the "
            "transition sharpens is not measured: " + _ENDS,
            "one-n-partly": "both ends are reached clearly at some ρ, not at "
            "ρ = {missed:list:g}; with one n, whether the transition sharpens is not "
            "measured: " + _ENDS,
            "one-n-untestable": "both ends are reached clearly at no ρ, and with one n whether "
            "the transition sharpens is not measured: " + _ENDS,
            "off-grid": "at n = {n}, the γ grid does not reach both a factor below and a factor "
            "above the critical scale in two draws or more at any ρ",
        },
        words={
            "exception": "{why:words} at ρ = {rhos:list:g}",
            "ends": "both ends not clearly reached",
            "blunt": "no clear sharpening",
        },
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
        check=_CHECK + ", the boundary where the angle ratio reaches the exact simplex's limit",
        says={
            "holds": "the measured boundary is within the tolerance at every ρ: " + _BOUNDARY,
            "caveat": "the measured boundary is within the tolerance at some ρ only "
            "({exceptions:items:exception}): " + _BOUNDARY,
            "fails": "the measured boundary is outside the tolerance at every ρ: " + _BOUNDARY,
            "untestable": "the measured boundary is within the tolerance at no ρ, nor clearly "
            "outside it at every ρ ({exceptions:items:exception}): " + _BOUNDARY,
            "no-crossing": "at n = {n}, the γ grid brackets a crossing in two draws or more at "
            "no ρ",
        },
        words={
            "exception": "{why:words} at ρ = {rhos:list:g}",
            "outside": "outside it",
            "unclear": "the draws cannot tell whether within it",
            "unbracketed": "no crossing bracketed in two draws or more",
        },
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
