"""The claims of the four source texts and of later papers, and the verdicts the chapters
compute for them.

The catalogue (:data:`CLAIMS`) is data about the sources: what each says in its own words
(``quote``, verbatim; an omission is marked with …), what exactly the book tests
(``reading``, in the book's words), what kind of claim it is (:class:`Kind`), and which
chapter tests it; :data:`SOURCES` says in which part of the ledger each source
stands. The verdicts themselves are computed by the chapters' runs
(:mod:`attncore.claims.ledger` gathers them).

>>> CLAIMS["blog-softmax-example"].source
'pranay2025why'
>>> SOURCES["chen2025critical"].part
'Modern practice'
>>> CLAIMS["chuang-proposition-1"].kind.value
'textbook identity'
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum

__all__ = [
    "CLAIMS",
    "FOUR_TEXTS",
    "MODERN_PRACTICE",
    "SOURCES",
    "Claim",
    "Kind",
    "Source",
    "Verdict",
]


class Verdict(StrEnum):
    """How a claim fared against its check."""

    HOLDS = "holds"
    CAVEAT = "holds with a caveat"
    FAILS = "does not hold"
    UNTESTABLE = "not testable here"


class Kind(StrEnum):
    """What a claim is, so that a tally weighs findings apart from identities and quotations.

    - ``FINDING``: a claim about what happens (a measurement, an inference, a judgement)
      that evidence can confirm or refute;
    - ``IDENTITY``: a mathematical identity or textbook fact, true by derivation, checked
      for slips;
    - ``QUOTATION``: what a text reproduces of another or of itself: a quotation, printed
      digits, a term.
    """

    FINDING = "substantive finding"
    IDENTITY = "textbook identity"
    QUOTATION = "quotation check"


@dataclass(frozen=True)
class Claim:
    """One claim of a source text: the chapter that tests it, where the claim stands (BibTeX
    key and section), the source's words (``quote``, verbatim but for whitespace, emphasis
    and typographic quotes; … marks an omission) and the book's ``reading`` of them (what
    exactly is tested), its ``kind``. A claim that nothing in the book can decide has no
    chapter and says why in ``untestable``; ``unreachable`` names each verdict its rule
    cannot return, with the reason; where no text of the source is kept beside the book,
    ``quote_checked`` says what its words were checked against; ``setting``, where several
    readings share one, is the experiment they are read in (the ledger states it once)."""

    chapter: str
    source: str
    section: str
    quote: str
    reading: str
    kind: Kind = Kind.FINDING
    untestable: str = ""
    unreachable: Mapping[Verdict, str] = field(default_factory=dict)
    quote_checked: str = ""
    setting: str = ""


FOUR_TEXTS = "The four source texts"
"""The ledger's part for the texts the book is a companion to."""

MODERN_PRACTICE = "Modern practice"
"""The ledger's part for later papers whose claims a chapter tests."""


@dataclass(frozen=True)
class Source:
    """A text whose claims the catalogue holds: the ``part`` of the ledger that lists it and
    the ``prefix`` of its rows' numbers (``V1``, ``CLPR2``)."""

    part: str
    prefix: str


SOURCES: dict[str, Source] = {
    "vaswani2017attention": Source(FOUR_TEXTS, "V"),
    "pranay2025why": Source(FOUR_TEXTS, "P"),
    "bernhard2023alternatives": Source(FOUR_TEXTS, "B"),
    "chuang2023scaling": Source(FOUR_TEXTS, "C"),
    "chen2025critical": Source(MODERN_PRACTICE, "CLPR"),
    "chiang2022overcoming": Source(MODERN_PRACTICE, "CC"),
    "nakanishi2025scalable": Source(MODERN_PRACTICE, "N"),
    "wortsman2024small": Source(MODERN_PRACTICE, "W"),
    "zhai2023stabilizing": Source(MODERN_PRACTICE, "Z"),
    "dehghani2023scaling": Source(MODERN_PRACTICE, "D"),
}
"""Every source of :data:`CLAIMS`, in the ledger's order of parts."""

_ABSTRACT = (
    "the abstract of arXiv:2510.05554 (v1, 2025), its mathematics as displayed; the book keeps "
    "no text of the paper"
)
_CHEN_MODEL = (
    "The book's simulation of the paper's model (normalised almost-simplex tokens with "
    "pairwise correlation ρ, one attention layer with logits γ ln n ⟨y_i, y_j⟩ and the identity "
    "as value; the chapter gives the details)."
)

_WORTSMAN_ABSTRACT = (
    "the abstract of arXiv:2309.14322 (v1, 2023) as public listings of it reproduce it; the "
    "book keeps no text of the paper"
)
_ZHAI_ABSTRACT = (
    "the abstract of arXiv:2303.06296 in its later version (v1 says 'the proposed "
    "reparameterization' where it says 'σReparam' in one sentence), as public listings of it "
    "reproduce it; the book keeps no text of the paper"
)
_DEHGHANI_ABSTRACT = (
    "the abstract of arXiv:2302.05442 as its ICML 2023 and OpenReview pages reproduce it; the "
    "book keeps no text of the paper"
)
_SWEEP = (
    "The book's learning-rate sweep (its small model, one attention layer with pre-"
    "LayerNorm, trained with Adam, a warm-up and a cosine decay on string reversal at every "
    "rate of the sweep, several seeds; the chapter gives the details)."
)

_FIRST = (
    "Chiang and Cholak's FIRST task (the label is a bit string's first bit), with the "
    "book's small transformer trained at the chapter's length and scored exactly over all "
    "strings of each longer length (the chapter gives the model and how it differs from the "
    "authors')."
)


_EXACT = "an identity has no condition to qualify it: it holds or it does not"
_RUNS = "the chapter always computes what the rule reads, so nothing leaves it undecided"
_DIGITS = "printed digits match or they do not"
_FORMULAS = (
    "the counts follow from the formulas alone: the mean key length always takes one division "
    "more whatever n, the other two a number of operations that grows with n"
)
_TWO_SIZES = (
    "confirming it needs a second training-set size, and the chapter trains one (the rule says "
    "what one size can refute)"
)

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
        unreachable={Verdict.CAVEAT: _EXACT},
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
        "while with 1/√d the Jacobian norm stays steady (within 25 %), at every number of keys.",
    ),
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
        unreachable={Verdict.CAVEAT: _EXACT, Verdict.UNTESTABLE: _RUNS},
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
        unreachable={Verdict.CAVEAT: _EXACT, Verdict.UNTESTABLE: _RUNS},
    ),
    "bernhard-softmax-depends-on-n": Claim(
        "softmax_saturation",
        "bernhard2023alternatives",
        "2",
        r"notice that it is impossible to apply softmax without knowing how many keys are in "
        r"$\mathcal{K}$ . As such, we might not be able to avoid all of the softmax-related "
        r"difficulties by adjusting the scalar attention function, since this function has "
        r"nothing to do with $\mathcal{K}$ , only with individual keys.",
        "At one spread of the logits (1, where 1/√d puts standard normal q and k), what the "
        "softmax does changes with the number of keys n: the largest probability or the "
        "Jacobian norm changes by a factor of at least 2 across n, relative to uniform "
        "attention.",
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
        unreachable={Verdict.CAVEAT: _EXACT},
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
        unreachable={Verdict.CAVEAT: _EXACT},
    ),
    "bernhard-other-reasons-large-dots": Claim(
        "why_sqrt_d",
        "bernhard2023alternatives",
        "2",
        r"The choice to divide by $\sqrt{d}$ was based on the absolute values of the query and "
        r"key dot products growing too large because of their dimension, but there are other "
        r"reasons besides the dimension why the absolute value of these dot products might "
        r"grow large. It would be good to compensate for those too.",
        "At a fixed d, non-zero means, larger variances, queries aligned with their keys and "
        "grown projection weights each raise the mean square of q·k/√d above its value 1 in "
        "the footnote's setting (by more than 10 %), by closed form and simulation.",
    ),
    "chuang-any-scalar-product-dk": Claim(
        "why_sqrt_d",
        "chuang2023scaling",
        "1",
        r"Furthermore, by convention, let $d_k = d_q$ . Then, with the four above conditions "
        r"satisfied, the any scalar products of column vectors in $Q^t$ and $K$ have variance "
        r"$d_k$ (see Appendix).",
        "With weights scaled so that the projected entries have unit variance (conditions (i) "
        "to (iv)), the scalar product of any query and key has variance d_k: two different "
        "tokens, and a token with itself; queries and keys that meet (iv) only as zero "
        "covariances are reported apart.",
    ),
    "chuang-assumptions-necessary": Claim(
        "why_sqrt_d",
        "chuang2023scaling",
        "2",
        r"To be able to make sense to use the scaling factor $\beta = \frac{1}{\sqrt{d_k}}$ in "
        r"the self-attention function, the four assumptions are necessary.",
        "Read as logical necessity: no law that breaks one of the four assumptions gives "
        "Var(q·k) = d_k. A law breaking an assumption with variance d_k by derivation and "
        "simulation refutes it.",
        unreachable={
            Verdict.CAVEAT: "necessity is refuted by one law that breaks an assumption and "
            "still gives d_k; laws that miss d_k confirm what was tried, with nothing to qualify"
        },
    ),
    "chuang-proposition-1": Claim(
        "derivations",
        "chuang2023scaling",
        "6, Proposition 1",
        r"Proposition 1. … $$\text{Var}[X] = \mathbb{E}(X^2) + (\mathbb{E}[X])^2 - "
        r"2(\mathbb{E}[x])^2 = \mathbb{E}(X^2) - (\mathbb{E}X)^2.$$",
        "Every line of the proof, re-derived in sympy, simplifies to the next.",
        Kind.IDENTITY,
        unreachable={Verdict.CAVEAT: _EXACT},
    ),
    "chuang-proposition-2": Claim(
        "derivations",
        "chuang2023scaling",
        "6, Proposition 2",
        r"Proposition 2. … $$\text{Cov}[X, Y] = \mathbb{E}XY - \mathbb{E}X\mathbb{E}Y.$$",
        "Every line of the proof, re-derived in sympy, simplifies to the next.",
        Kind.IDENTITY,
        unreachable={Verdict.CAVEAT: _EXACT},
    ),
    "chuang-proposition-3": Claim(
        "derivations",
        "chuang2023scaling",
        "6, Proposition 3",
        r"Proposition 3. If $X$ and $Y$ are independent and both have zero means, then … "
        r"$$\text{Var}[XY] = \text{Var}X \text{Var}Y.$$",
        "Every line of the proof, re-derived in sympy, simplifies to the next.",
        Kind.IDENTITY,
        unreachable={Verdict.CAVEAT: _EXACT},
    ),
    "chuang-proposition-4": Claim(
        "derivations",
        "chuang2023scaling",
        "6, Proposition 4",
        r"Proposition 4. Let $X_i, i \in \{1, \dots, n\}$ be $n$ independent variables. … "
        r"$$\text{Var}\left(\sum_i X_i\right) = \sum_i \text{Var}X_i.$$",
        "Every line of the proof, re-derived in sympy, simplifies to the next.",
        Kind.IDENTITY,
        unreachable={Verdict.CAVEAT: _EXACT},
    ),
    "chuang-proposition-5": Claim(
        "why_sqrt_d",
        "chuang2023scaling",
        "6, Proposition 5",
        r"Proposition 5. Let $q_i$ and $k_i$ be random variables with zero means, i.e. "
        r"$\mathbb{E}q_i = 0 = \mathbb{E}k_i, \forall i$ , and unit variances, i.e. "
        r"$\text{Var}q_i = 1 = \text{Var}k_i$ , where $i \in \{1, \dots, d_k\}$ , and they are "
        r"all independent in the following ways: … $$\text{Cov}(q_i, k_i) = 0, \forall i,$$ … "
        r"$$\text{Cov}(q_i, q_j) = 0, \forall i \neq j, \text{ and}$$ … "
        r"$$\text{Cov}(k_i, k_j) = 0, \forall i \neq j.$$ … Then … "
        r"$$\text{Var}(QK^T) = d_k.$$",
        "Zero means, unit variances and the three listed zero covariances give Var(q·k) = d_k. "
        "Read charitably ('independent in the following ways'): a counterexample whose listed "
        "pairs are all independent refutes it; one whose pairs are only uncorrelated refutes "
        "the covariance reading alone (a caveat).",
    ),
    "chuang-relaxed-variance": Claim(
        "why_sqrt_d",
        "chuang2023scaling",
        "2",
        r"Suppose the assumptions (ii) is relaxed, the variance of the scalar product "
        r"$q_i k_i$ is approximated to $(d_x \sigma_X^2 \sigma_{W_q}^2) \cdot (d_x \sigma_X^2 "
        r"\sigma_{W_k}^2) \cdot d_k$ .",
        "For tokens X with entries of variance σ_X² and weights W_q, W_k with entries of "
        "variance σ_Wq², σ_Wk² (fresh draws), Var(q·k) = (d_x σ_X² σ_Wq²)(d_x σ_X² σ_Wk²) d_k for "
        "two distinct tokens; a token with itself (Chuang's q_i k_i) has it times "
        "1 + (κ − 1)/d_x, which 'approximated' admits.",
        unreachable={
            Verdict.CAVEAT: "'approximated' admits the token-with-itself factor "
            "1 + (κ − 1)/d_x, which the measured text reports; the two-token formula is exact "
            "or it is not"
        },
    ),
    "bernhard-cauchy-schwarz": Claim(
        "derivations",
        "bernhard2023alternatives",
        "3",
        r"Some of the intuition behind this is that, by the Cauchy-Schwarz inequality, … "
        r"$$\frac{|k_i \cdot q|}{k_{total}} \leq \frac{\|k_i\|}{k_{total}} \|q\| \leq \|q\|.$$",
        "|k_i·q|/k_total ≤ (‖k_i‖/k_total)‖q‖ ≤ ‖q‖: a theorem, checked on simulated logits of "
        "several laws.",
        Kind.IDENTITY,
        unreachable={Verdict.CAVEAT: _EXACT},
    ),
    "bernhard-n-sqrt-d-normal": Claim(
        "derivations",
        "bernhard2023alternatives",
        "5",
        r"It is worth noting that dividing by $n\sqrt{d}$ seems to exhibit similar behavior to "
        r"dividing by $k_{total}$ for independent standard normally distributed key and query "
        r"components.",
        "For standard normal keys k_total/(n√d) is within 5 % of 1 (the Gamma-function "
        "closed form of E‖k‖, and simulated key sets), at every d from Bernhard's smallest, 16.",
    ),
    "bernhard-fig1-unscaled-distorts": Claim(
        "bernhard_figures",
        "bernhard2023alternatives",
        "2, Figure 1(b)",
        "Even with such a small key dimension as 16, Figure 1(b) shows that applying softmax "
        "without scaling severely distorts the shape of the distribution of the original dot "
        "products. Because the shape after applying softmax is weighted heavily near 0 and has "
        "a pronounced right skew, …",
        "At d = 16, n = 32, the unscaled softmax's first component, over many independent draws "
        "of Figure 1: a skewness change above 1 (pronounced right skew), a median weight below "
        "a tenth of the uniform 1/n (heavily near 0), a KS distance from the dot products above "
        "its 5 % critical value (severe distortion), each clearly on average and all three in "
        "at least 95 % of single draws.",
    ),
    "bernhard-fig1-sqrt-d-helps": Claim(
        "bernhard_figures",
        "bernhard2023alternatives",
        "2, Figure 1(c)",
        r"Although Figure 1(c) shows a mild right skew that was not present in the distribution "
        r"before softmax was applied, from the plot it is clear that dividing the dot products "
        r"by $\sqrt{d}$ before applying softmax did indeed help preserve the general shape of "
        r"the distribution compared to not scaling at all.",
        "Paired over draws of Figure 1: the W₁ and KS distortions with 1/√d clearly below those "
        "without scaling ('help preserve'), its skewness change clearly above 0 ('right skew') "
        "and clearly below the unscaled one ('mild', against panel (b)'s 'pronounced'); 'it is "
        "clear from the plot' read as: a single draw (one figure) shows the improvement at "
        "least 95 % of the time.",
    ),
    "bernhard-fig2-k-total-better": Claim(
        "bernhard_figures",
        "bernhard2023alternatives",
        "4, Figure 2",
        r"In these plots, it is apparent that pre-dividing by $k_{total}$ before applying "
        r"softmax preserves the shape of the distribution much better than pre-dividing by "
        r"$\sqrt{d}$.",
        "Paired over draws of Figure 2 (d = 256, n = 32): the W₁ and KS distortions with "
        "1/k_total clearly below those with 1/√d ('better'), their mean ratio clearly below 0.5 "
        "on both ('much better'); 'it is apparent in these plots' read as: a single draw shows "
        "it at least 95 % of the time. That the rows of attention are nearly uniform is "
        "reported, not held against the claim, which is about the shape.",
    ),
    "bernhard-other-components-similar": Claim(
        "bernhard_figures",
        "bernhard2023alternatives",
        "2; 4",
        "By symmetry, the other components should look similar, and this approach avoids any "
        "issues with displaying (in the same kernel density estimate plot) multiple components "
        "of the rescaled vector attention, which lack independence.",
        "Component 1 has the law of every other component (mean, sd and skewness over draws, "
        "paired; Bonferroni-corrected t bands); within one draw, which is what one figure shows, "
        "no more components differ from component 1 than chance makes (KS at 5 %).",
    ),
    "bernhard-other-moments": Claim(
        "k_total_alternatives",
        "bernhard2023alternatives",
        "4",
        r"Further experimentation readily shows that when normal distribution means and "
        r"variances change (and even more so when distribution families change), pre-dividing "
        r"by $\sqrt{d}$ leads to greater distortions of the distribution shape than "
        r"pre-dividing by $k_{total}$ .",
        "With normal components of shifted mean or wider variance, at every (d, n) of the "
        "family comparison: 1/k_total's W₁ clearly below 1/√d's in every configuration "
        "(paired over draws, Holm-corrected over the configurations). That 1/k_total's "
        "attention is nearly uniform is reported, not held against a claim about distortion.",
    ),
    "bernhard-other-families": Claim(
        "k_total_alternatives",
        "bernhard2023alternatives",
        "4",
        r"(and even more so when distribution families change), pre-dividing by $\sqrt{d}$ "
        r"leads to greater distortions of the distribution shape than pre-dividing by "
        r"$k_{total}$ .",
        "For other families (uniform, Laplace, Student t, correlated, projected): 1/k_total's "
        "W₁ clearly below 1/√d's in every configuration (Holm-corrected), and 'even more so': "
        "the gap clearly larger than for standard normal components at the same (d, n).",
    ),
    "bernhard-d-n-range": Claim(
        "k_total_alternatives",
        "bernhard2023alternatives",
        "4",
        r"Also, these patterns persist even when $d$ and $n$ vary over a wide range.",
        "On the standard normal grid of d and n, 1/k_total's W₁ is clearly below 1/√d's in "
        "every configuration (paired over draws, Holm-corrected over the grid).",
    ),
    "bernhard-section5-worse": Claim(
        "k_total_alternatives",
        "bernhard2023alternatives",
        "5",
        r"dividing by $\sum_{i=1}^n \|k_i\|/n$ , … dividing by "
        r"$\sqrt{\sum_{i=1}^n \|k_i\|^2}$ , … more generally, dividing by "
        r"$(\sum_{i=1}^n \|k_i\|^p)^{1/p}$ . … in the author’s explorations, none of them "
        r"seemed to perform as well as dividing by $k_{total}$ .",
        "'Perform' read in Bernhard's measure, distortion of the shape: each alternative's W₁ "
        "clearly above 1/k_total's in every configuration (every family and setting, and the "
        "grid; Holm-corrected). Every alternative is a larger factor than 1/k_total (a norm of "
        "the key lengths below their 1-norm), which the measured text reports as the reason.",
    ),
    "bernhard-n-sqrt-d-other": Claim(
        "k_total_alternatives",
        "bernhard2023alternatives",
        "5",
        r"As might be expected though, dividing by $n\sqrt{d}$ doesn’t appear to behave as "
        r"well for distributions other than standard normal.",
        "For every family other than the standard normal, 1/(n√d)'s W₁ is above 1/k_total's "
        "clearly (Holm-corrected tests) and by more than 10 % of 1/k_total's W₁ in every "
        "configuration.",
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
    "bernhard-sqrt-d-alleviates-vanishing": Claim(
        "every_rescaling",
        "bernhard2023alternatives",
        "2",
        "Correspondingly, this method helps alleviate the vanishing gradient issue with softmax "
        "(as has also been demonstrated time and again in its widespread use).",
        "In Bernhard's section 6 sense (components near 0 or 1): 1/√d has clearly fewer first "
        "components near 0 or 1 than no scaling, and a clearly larger Jacobian norm, in every "
        "configuration of the standard normal grid (Holm-corrected). 'Demonstrated time and "
        "again in its widespread use' is not tested.",
    ),
    "bernhard-small-logits-little-distortion": Claim(
        "k_total_alternatives",
        "bernhard2023alternatives",
        "3",
        "But the previous inequality shows that as long as the lengths of the queries don’t get "
        "too large, then the relative sizes of the components of the vectors to which softmax "
        "is applied won’t be distorted too much.",
        "Under 1/k_total, with the keys fixed and every query multiplied by a factor, W₁ rises "
        "with the query length (it is the query length that controls the distortion), and "
        "reaches 1/√d's only for queries more than 4 times longer than drawn ('too large' is "
        "not defined: the book's 'moderate'). Scales that stay too small for W₁ to rise, or a "
        "grid too coarse to place the crossing against 'moderate', cannot test it.",
    ),
    "bernhard-prescaled-softmax-same": Claim(
        "every_rescaling",
        "bernhard2023alternatives",
        "2",
        r"This minor shift in perspective is unimportant for using the “Attention” function "
        r"directly as formulated in “Attention Is All You Need” [1].",
        "softmax(x/√d) of the raw dot products equals the engine's 1/√d attention (queries "
        "scaled before the product) to rounding.",
        Kind.IDENTITY,
        unreachable={Verdict.CAVEAT: _EXACT, Verdict.UNTESTABLE: _RUNS},
    ),
    "bernhard-distortion-signals-vanishing": Claim(
        "every_rescaling",
        "bernhard2023alternatives",
        "6",
        "Vanishing gradients arise when individual components resulting from applying softmax "
        "approach 0 or 1, and this issue can be seen in the distortion of the shapes of the "
        "distributions of the vector attention components.",
        "Along the curve of constant factors, wherever W₁ moves clearly the share of first "
        "components near 0 or 1 does not move the other way, and the Jacobian norm does not "
        "move the same way; a caveat where only the Jacobian breaks this, before its peak.",
    ),
    "bernhard-conclusion-k-total-better": Claim(
        "k_total_alternatives",
        "bernhard2023alternatives",
        "6",
        "Dividing by the square root of the key dimension alleviates this distortion well, "
        "but, judging from simulations, in many situations dividing by the sum of the key "
        "lengths appears to preserve the shape of the distribution even better.",
        "Over every configuration: 1/√d's W₁ clearly below no scaling's, and 1/k_total's "
        "clearly below 1/√d's, each in at least half of the configurations ('many'; "
        "Holm-corrected counts).",
    ),
    "bernhard-abstract-more-effective": Claim(
        "k_total_alternatives",
        "bernhard2023alternatives",
        "Abstract",
        "We use simulated keys and queries to show that in many situations this appears to be "
        "more effective at avoiding regions where applying softmax leads to vanishing "
        "gradients.",
        "'This' is dividing by the sum of the key lengths. Where 1/√d has saturated rows or "
        "first components near 0 or 1, 1/k_total has clearly fewer of either and more of "
        "neither, in at least half of those configurations ('many'; Holm-corrected), at no "
        "price of a median gradient reaching the query below half of 1/√d's. Clearly more in "
        "at least half refutes it; fewer clear wins and losses than that leave it undecided.",
    ),
    "bernhard-vanishing-gradients": Claim(
        "k_total_alternatives",
        "bernhard2023alternatives",
        "5",
        r"In our explorations, pre-dividing by $k_{total}$ has appeared to decrease the "
        r"distortion by the softmax function and help avoid the issue of vanishing gradients",
        "In his section 6 definition (components near 0 or 1): 1/k_total saturates clearly less "
        "than 1/√d somewhere and clearly more nowhere (Holm-corrected over every configuration); "
        "a caveat where that comes at a price: nearly uniform attention, or a median gradient "
        "reaching the query below half of 1/√d's.",
    ),
    "bernhard-transformer-performance": Claim(
        "string_reversal",
        "bernhard2023alternatives",
        "6",
        "Although further and more systematic testing is still needed, the author has "
        "conducted preliminary experiments using this modified transformer architecture and it "
        "appears to perform well.",
        "On the one task trained here (Chuang's string reversal), 1/k_total learns it (every "
        "seed at 95 % validation token accuracy within the long budget) wherever 1/√d does, in "
        "the same runs. Bernhard names no task, model or baseline, so the verdict is about this "
        "task; his hedge is kept in the check.",
    ),
    "chuang-shift-invariance": Claim(
        "softmax_saturation",
        "chuang2023scaling",
        "1",
        r"Because of the mathematical form of the Boltzmann distribution, if the input is "
        r"$z_i + \epsilon$ , then $\text{Softmax}(\beta z_i + \epsilon) = "
        r"\text{Softmax}(\beta z_i)$ .",
        "Adding one constant to every logit leaves the softmax unchanged: on random rows, with "
        "and without shifts, to within the rounding of the shifted logits.",
        Kind.IDENTITY,
        unreachable={Verdict.CAVEAT: _EXACT},
    ),
    "chuang-beta-only-at-init": Claim(
        "string_reversal",
        "chuang2023scaling",
        "2",
        r"Hence, the scaling factor $\beta = \frac{1}{\sqrt{d_k}}$ is only valid at the initial "
        r"point given the four assumptions at the initial point in the moduli space, and it can "
        r"hold true if the thermodynamic system described by the Boltzmann distribution is in "
        r"statics, i.e. its temperature is fixed.",
        "A change from a start that meets Chuang's premise: 1/√d is valid (a logit spread "
        "within a factor 2 of 1, what the four assumptions give) at initialization and stops "
        "being valid as training moves σ_Wq and σ_Wk. His 'it can hold true if ... its "
        "temperature is fixed' is the same statement from the other side (valid while nothing "
        "moves). A setup whose spread starts outside the band cannot test it.",
    ),
    "chuang-beta-search": Claim(
        "beyond_initialization",
        "chuang2023scaling",
        "2",
        r"Hence, an alternative algorithm is: firstly try $\beta \in \{10^N, \frac{1}{10^N}\}$ "
        r"for $N = 0, 1, 2, \dots$ , then run a binary search to narrow down the range of the "
        r"best scaling factor $\beta$ during the training after either each iteration or batch.",
        "The decade scan followed by a binary (golden-section) search finds the best β of a "
        "calibration problem whose optimum a fine grid locates: on the exact objective within "
        "its tolerance; on noisy evaluations (the stand-in for one evaluation during training) "
        "missing by more than 0.1 decade no more often than 5 % (binomial test).",
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
    "chuang-standard-init-conditions": Claim(
        "beyond_initialization",
        "chuang2023scaling",
        "1",
        r"Now, in a standard implementation of a transformer-based model or any models that "
        r"have self-attention mechanism implemented in it, $W_k, W_v$ , and $W_q$ are initiated "
        r"in a way to satisfy the following four conditions:",
        "The library defaults give, on unit-variance tokens, Q and K entries of unit variance "
        "((ii), (iii)), zero means (iii) and zero covariances (iv) (each within sampling error; "
        "a significant correlation of at most 0.05 is a caveat).",
    ),
    "chuang-string-reversal": Claim(
        "string_reversal",
        "chuang2023scaling",
        "3",
        r"when the scaling factor $\beta$ is $\frac{1}{\sqrt{d_k}}$ the validation accuracy is "
        r"1.51%, and the test accuracy is 1.50%. … However, by applying the above alternative "
        r"algorithm, the scaling factor is in $O(1)$ , a constant $\sim 5$ , with training "
        r"sample size at 15000, the validation accuracy and test accuracy can already reach "
        r"above 95% stably.",
        "Chuang's gap: every seed of 1/√d below 5 % validation token accuracy while every seed "
        "of the searched β reaches 95 %, in every setup at both budgets, with the searched β "
        "about 5 (within a factor 2, in every search over seeds and budgets). Where a setup's "
        "searched β does not learn within the short budget its search evaluates, the search "
        "found no factor that learns there, and that setup says nothing either way.",
    ),
    "chuang-25000-samples": Claim(
        "string_reversal",
        "chuang2023scaling",
        "3",
        "To have a stable test accuracy above 95%, the training sample size needs to be "
        "increased from 15000 to 25000.",
        "With 1/√d_k, 15,000 training strings are not enough for a test token accuracy of 95 % "
        "on every seed, and 25,000 are. Chuang gives no training length, so one training-set "
        "size refutes the first half only if 1/√d reaches 95 % with at most 15,000 strings "
        "already after the short budget (one epoch), in every setup.",
        unreachable={Verdict.HOLDS: _TWO_SIZES, Verdict.CAVEAT: _TWO_SIZES},
    ),
    "chuang-not-memorizing": Claim(
        "string_reversal",
        "chuang2023scaling",
        "3",
        "Furthermore, the model that achieved the above accuracy did not achieve it by "
        "memorizing the training examples. … However, if it was by memorizing, then the model "
        r"had to memorize $100^{20}$ strings with length 20 which greatly exceed the number of "
        r"parameters of the model (less than 8000).",
        "A model that learned the task reaches at least 95 % token accuracy on test strings "
        "drawn independently of the training strings (few or none of them seen in training), "
        "so its accuracy is not memorized; the count of possible strings is reported.",
        unreachable={
            Verdict.FAILS: "memorizing would show as training accuracy far above test accuracy, "
            "and the runs record accuracy on unseen strings only; a run that falls short on "
            "them learned nothing to explain"
        },
    ),
    "chuang-96-half-data": Claim(
        "string_reversal",
        "chuang2023scaling",
        "4",
        "The empirical results in the previous section shows that with dynamic scaling factor "
        "being implemented, the model can reach an accuracy higher than 96% with about half of "
        "the training data compared to the fixed scaling factor introduced in the "
        "self-attention.",
        "The searched β (Chuang's dynamic factor, a constant from his search) needs about half "
        "the training strings 1/√d needs to exceed 96 % token accuracy. With one training-set "
        "size the rule can refute it only where, at both budgets and in every setup, every seed "
        "of 1/√d exceeds 96 % and no seed of the searched β does.",
        unreachable={Verdict.HOLDS: _TWO_SIZES, Verdict.CAVEAT: _TWO_SIZES},
    ),
    "chuang-sigma-w-moving-factors": Claim(
        "string_reversal",
        "chuang2023scaling",
        "2",
        r"Since the training set is given, i.e. it is fixed, and so are $d_x$ and $d_k$ , "
        r"$\sigma_{W_q}$ and $\sigma_{W_k}$ are the actual moving factors.",
        "On the 1/√d runs at every evaluation: σ_Wq σ_Wk moves (leaves a factor 1.25 of its "
        "start) while σ_X stays within it, and the relaxed formula with the measured σ tracks "
        "the logit spread (within a factor 2 of its ratio at step 0). σ_X moving too is a "
        "caveat: the input of attention is learned, not Chuang's fixed training set.",
    ),
    "chuang-assumptions-invalid-in-training": Claim(
        "string_reversal",
        "chuang2023scaling",
        "2",
        "However, since the initial point is random and unlikely to be the final point in the "
        "moduli space throughout the training mode, the assumption (ii) is not valid right "
        "after the training of the model that used self-attention function is initiated.",
        "A change from a start that meets (ii): the unit variance of the query and key entries "
        "(read through Chuang's d_x σ_X² σ_W², within a factor 2 of 1) holds at step 0 and "
        "fails from the first evaluation after it on. A setup where (ii) fails at step 0 "
        "cannot test it. (Whether (iii) and (iv) fall with (ii) is the claim 'without "
        "assumption (ii)'.)",
    ),
    "chuang-perfect-accuracy": Claim(
        "string_reversal",
        "chuang2023scaling",
        "3",
        "Since a 100% accuracy is also achievable within the ensemble, and once achieved that "
        "100% accuracy the model can flip any input string with the same length and the range "
        "of the values of its each word.",
        "Some trained model reverses every test string without an error (whole-string "
        "accuracy 100 %); 'any input string' can be tried only on the test strings.",
        unreachable={
            Verdict.HOLDS: "'any input string' cannot be tried: a model that reverses every test "
            "string confirms it with that caveat at most",
            Verdict.FAILS: "'achievable' is an existence claim: runs that fall short cannot show "
            "that 100 % is out of reach",
        },
    ),
    "bernhard-q-norm-undesirable": Claim(
        "string_reversal",
        "bernhard2023alternatives",
        "3",
        r"If we were modifying the scalar attention function, it might be tempting to divide "
        r"it by $\|q\|$ , but (even ignoring the possibility of this being 0) that would make "
        r"the scalar attention function independent of $\|q\|$ , which seems undesirable.",
        "A logit independent of ‖q‖ hurts: QK-norm (whose logits do not depend on ‖q‖; it also "
        "normalizes k and multiplies by a gain, so it is a proxy) trains worse than 1/√d in the "
        "same runs: lower accuracy by more than 2 standard errors, or slower to 95 % by a factor "
        "1.5. As good or better in every setup refutes it on this task.",
        unreachable={
            Verdict.HOLDS: "QK-norm is a proxy for dividing by ‖q‖ (it also normalizes k and "
            "adds a gain), so evidence for the claim is at most a caveat"
        },
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
    "chuang-exponential-growth": Claim(
        "",
        "chuang2023scaling",
        "4",
        "Hence, the difference of the number of training samples needed between models that "
        "use dynamic or static scaling factor will be an exponential growth when the number of "
        "features that need to be learned grow.",
        "The gap in training data between a dynamic and a static factor grows exponentially "
        "with the number of features a model learns.",
        untestable="a speculation about large models such as LLMs; the number of features is "
        "not defined, and the book's model, like Chuang's, learns one task",
    ),
    "chuang-overflow-709": Claim(
        "softmax_saturation",
        "chuang2023scaling",
        "2",
        r"In practice, 709 is the upper bound of the exponent of the exponential function based "
        r"$e$ in lots of machines before the machines start to overflow.",
        "709 is the largest integer exponent x with exp(x) finite in double precision (and, "
        "for a plain 'holds', in every floating-point format measured).",
        Kind.IDENTITY,
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
    "chuang-scale-by-standard-deviation": Claim(
        "",
        "chuang2023scaling",
        "6",
        r"The authors in [2] want to scale the result of $QK^T$ using the standard deviation "
        r"of the scalar product, so $QK^T$ is multiplied by a factor",
        "Vaswani et al. chose 1/√d_k to divide q·k by its standard deviation.",
        untestable="an attribution of intent; Vaswani et al. give softmax saturation as the "
        "reason and use the variance to illustrate why the dot products get large",
    ),
    "chuang-rnn-challenging": Claim(
        "",
        "chuang2023scaling",
        "3",
        "Since the model needs to learn to swap the first and last elements in the string, it "
        "could be a challenging task for recurrent neural nets if the length of the input "
        "string is large.",
        "Reversing long strings is hard for recurrent networks.",
        untestable="the book trains no recurrent model, and the claim is hedged (could be)",
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
    "chuang-sigma-w-algorithm": Claim(
        "",
        "chuang2023scaling",
        "2",
        r"To solve this problem, the solution could be written as an algorithm that it measures "
        r"$\sigma_{W_q}$ and $\sigma_{W_k}$ and updates the scaling factor $\beta$ in after "
        r"each iteration or batch during the training and the best scaling factor $\beta$ that "
        r"is going to be used in the predicting mode could be determined by the best model "
        r"chosen from the ensemble of all trained models.",
        "An algorithm that measures σ_Wq and σ_Wk and updates β during training solves the "
        "problem.",
        untestable="the book does not implement this algorithm, and Chuang reports no result "
        "for it; the training chapter measures σ_Wq and σ_Wk but keeps β fixed",
    ),
    "chuang-compresses-data-and-time": Claim(
        "",
        "chuang2023scaling",
        "3",
        "Thus, the above algorithms can not only compress the training set when the training "
        "samples are limited or rare, but also reduce the training time to reach the best "
        "accuracy.",
        "With the searched β a smaller training set and less training reach the best accuracy.",
        untestable="the training chapter trains on one training-set size, so it cannot find the "
        "smallest set each factor needs",
    ),
    "chuang-softmax-columns": Claim(
        "softmax_saturation",
        "chuang2023scaling",
        "1",
        r"By definition of softmax, apply softmax to the matrix $\frac{QK^T}{\sqrt{d_k}}$ means "
        r"to apply Softmax function on each column of the matrix "
        r"$\left(\frac{QK^T}{\sqrt{d_k}}\right)_{N \times N}$",
        "His formula divides by a sum over the first index (the queries) for each fixed key, so "
        "each column of weights sums to 1; the attention of Vaswani et al., and the softmax 'on "
        "the last dimension' his own definition names (as numpy and PyTorch read it), make each "
        "row, one query's weights on the keys, sum to 1. Tested on a random logit matrix: his "
        "column formula against the softmax over the last dimension.",
        Kind.IDENTITY,
        unreachable={
            Verdict.HOLDS: "normalizing the columns is the softmax over the rows only for a "
            "matrix that cannot tell them apart (not testable); for any other it differs",
            Verdict.CAVEAT: "a softmax normalizes one axis or the other",
        },
    ),
    "chuang-temperature-sd": Claim(
        "why_sqrt_d",
        "chuang2023scaling",
        "1",
        r"In self-attention, this $\beta$ is $\frac{1}{\sqrt{d_k}}$ , and $T$ is the standard "
        r"deviation of the scalar product $\sqrt{d_k}$ .",
        "With β = 1/T (his Definition 1), T = √d_k is the standard deviation of q·k under the "
        "footnote's assumptions: T² = d_k is Var(q·k), derived for a symbolic d and simulated "
        "at each d.",
        Kind.IDENTITY,
        unreachable={Verdict.CAVEAT: _EXACT},
    ),
    "chuang-iii-iv-based-on-ii": Claim(
        "beyond_initialization",
        "chuang2023scaling",
        "2",
        r"Since the way query and key matrices are defined, i.e. $Q = XW_q$ and $K = XW_k$ , "
        r"assumption (iii) and (iv) are based on assumption (ii).",
        "(iii) and (iv) stand and fall with (ii): across initializations, the zero means of "
        "(iii) and the zero covariances of (iv) hold exactly where the unit variance of (ii) "
        "holds. (iii)'s own unit variance is (ii) restated, so what is tested is what (iii) and "
        "(iv) add. No training is needed: the initializations of the chapter's table differ in "
        "(ii).",
        unreachable={
            Verdict.CAVEAT: "either the moments that (iii) and (iv) add follow (ii) across the "
            "initializations, or some initialization parts them"
        },
    ),
    "chuang-without-ii-invalid": Claim(
        "beyond_initialization",
        "chuang2023scaling",
        "2",
        "Without assumption (ii), assumption (iii) and (iv) are invalid throughout the training "
        "and predicting modes.",
        "Where (ii) fails, (iii) and (iv) fail too. (iii)'s unit variance is (ii) itself, so it "
        "falls with it by definition; the test is (iv): an initialization whose Q and K entries "
        "miss unit variance while their covariances vanish refutes it. The initializations of "
        "the chapter's table suffice; no training is needed.",
        unreachable={
            Verdict.CAVEAT: "(iii)'s unit variance falls with (ii) by definition, so the claim "
            "turns on (iv) alone, which survives without (ii) or does not"
        },
    ),
    "chuang-first-assumption-fixed": Claim(
        "",
        "chuang2023scaling",
        "2",
        "Within the four assumptions, the first assumption is usually fixed when self-attention "
        "is considered to be applied.",
        "The shapes of W_q, W_k and W_v (assumption (i)) are set by the architecture.",
        untestable="a remark on usage: the shapes of the projections are chosen with the "
        "architecture, so there is nothing to measure",
    ),
    "chuang-citation-counts": Claim(
        "",
        "chuang2023scaling",
        "1",
        "A statistics uses data from Google Scholar[?], shows that the paper written by Vaswani "
        "et. al.[2] was the fourth most cited paper in artificial intelligence upto 2020. In "
        "2023, [2] becomes the second most cited paper in that original list.",
        "Citation ranks of Vaswani et al.",
        untestable="citation statistics are outside what the book computes (and it works "
        "offline); Chuang's reference for them is missing ('[?]')",
    ),
    "chuang-almost-all-llms": Claim(
        "",
        "chuang2023scaling",
        "1",
        "Self-attention mechanism has been implemented into almost all most recent LLM models.",
        "Nearly every recent large language model uses self-attention.",
        untestable="a survey of models the book does not and cannot inspect",
    ),
    "chuang-issue-in-recent-publications": Claim(
        "",
        "chuang2023scaling",
        "1",
        "However, based on authors' knowledge we have not seen any papers have an mathematical "
        "and statistical analysis on the question raised and answered in this paper. The issue "
        "pointed out by this paper can still be found in the most recent publications that "
        "implemented self-attention in their models.",
        "No earlier paper analyses the question, and recent models still use a fixed 1/√d_k.",
        untestable="a claim about the literature, which the book does not survey",
    ),
    "bernhard-unscaled-good-scalar": Claim(
        "",
        "bernhard2023alternatives",
        "2",
        "It suggests that the ordinary, unscaled dot product (as used already in [3]) is "
        "actually a good scalar attention function; rescaling follows it only because of how it "
        "is to be used in a particular neural network context.",
        "The unscaled dot product is a good scalar attention function once the scale is moved "
        "into the rescaling function.",
        untestable="a choice of viewpoint: moving the factor into the rescaling leaves the "
        "attention unchanged (the 'minor shift in perspective' claim checks that), and 'good' "
        "names no measure",
    ),
    "bernhard-fig1-vanishing-inference": Claim(
        "bernhard_figures",
        "bernhard2023alternatives",
        "2, Figure 1(b)",
        "Because the shape after applying softmax is weighted heavily near 0 and has a "
        "pronounced right skew, it is apparent that applying softmax to the unscaled dot "
        "product would be prone to vanishing gradient issues.",
        "At Figure 1's setting (d = 16, n = 32), over many draws and paired with 1/√d on the "
        "same dot products: without scaling the softmax's own gradient is smaller (a clearly "
        "lower mean Jacobian norm of the rows) and more first components sit near 0 or 1 "
        "(Bernhard's own sign of vanishing gradients, section 6).",
    ),
    "bernhard-section5-more-complicated": Claim(
        "k_total_alternatives",
        "bernhard2023alternatives",
        "5",
        "These are more complicated,",
        "Each of the three alternatives (the mean key length Σ‖k_i‖/n, √(Σ‖k_i‖²), the p-norm) "
        "takes more arithmetic than k_total = Σ‖k_i‖, by an amount that grows with the number "
        "of keys n: operations counted by sympy on the key lengths for two n.",
        unreachable={
            Verdict.HOLDS: _FORMULAS,
            Verdict.FAILS: _FORMULAS,
            Verdict.UNTESTABLE: "the count needs only the formulas, which are always there",
        },
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
    "chiang-first-log-n": Claim(
        "length_generalization",
        "chiang2022overcoming",
        "abstract",
        "Third, when transformers need to focus on a single position, as for FIRST, we find "
        "that they can fail to generalize to longer strings; we offer a simple remedy to this "
        "problem that also improves length generalization in machine translation.",
        setting=_FIRST,
        reading="The remedy, in the paper's body, multiplies the attention logits by "
        "log n (as the book's anchors record it; the book keeps only the abstract), here "
        "ln n/√d. At the longest length, 1/√d is not solved (the lower end of its accuracy's "
        "interval over the seeds is below 0.95) while ln n/√d is solved and clearly above it, "
        "paired by seed.",
        quote_checked="the abstract of arXiv:2202.12172 as the paper's text gives it (the ACL "
        "Anthology's version words Hahn's result differently, not this sentence); the book "
        "keeps no text of the paper",
    ),
    "nakanishi-ssmax-flattening": Claim(
        "length_generalization",
        "nakanishi2025scalable",
        "abstract",
        "Transformer-based language models rely on Softmax to compute attention scores, "
        "causing the attention distribution to flatten as the context size grows. … To "
        "address this problem, we propose Scalable-Softmax (SSMax), which replaces Softmax in "
        "scenarios where the input vector size varies.",
        setting=_FIRST,
        reading="With 1/√d the last layer's attention row of the [CLS] position, "
        "where the label is read, flattens from the training length to the longest (its "
        "entropy over ln n rises clearly and its largest weight falls clearly, paired within "
        "seeds), and SSMax (s ln n/√d with s learned per head) keeps a clearly larger largest "
        "weight there, paired by seed. A small classifier, not the paper's language models.",
        quote_checked="the abstract of arXiv:2501.19399 (v1, 2025); the book keeps no text "
        "of the paper",
    ),
    "bernhard-k-total-long-strings": Claim(
        "length_generalization",
        "bernhard2023alternatives",
        "2",
        r"it opens up the possibility that the rescaling might depend not solely on the "
        r"dimension of the keys (as with dividing by  $\sqrt{d}$ ) but possibly on the number "
        r"of keys in  $\mathcal{K}$  (as softmax does), or even on the keys  "
        r"$k_1, \dots, k_n$  themselves.",
        setting=_FIRST,
        reading="1/k_total, which depends on the keys and so on their number, read "
        "at a number of keys it was not trained at, a prediction the book derives: with keys "
        "of similar lengths k_total grows like n, so its logits shrink like 1/n. Tested: at "
        "the longest length 1/k_total is solved (interval at or above 0.95) and not clearly "
        "below 1/√d, paired by seed. Clearly unsolved but clearly better than guessing is a "
        "caveat; clearly below 1/√d, or no better than guessing, refutes it. The verdict line "
        "gives how far its factor fell.",
    ),
    "wortsman-small-models-unstable": Claim(
        "stability",
        "wortsman2024small",
        "abstract",
        "we show that these instabilities also appear in small models when training at high "
        "learning rates",
        setting=_SWEEP,
        reading="The first of the two instabilities, attention-logit growth, read for "
        "1/√d: at the highest rate the largest attention logit at the end of training is more "
        "than a growth factor times its value at the rate with the lowest final loss, in every "
        "seed, and the final loss there (a diverged run counted at its initial loss) is clearly "
        "above the best rate's over the seeds. One of the two without the other is a caveat.",
        quote_checked=_WORTSMAN_ABSTRACT,
    ),
    "wortsman-mitigations-effective": Claim(
        "stability",
        "wortsman2024small",
        "abstract",
        "mitigations previously employed at large scales are equally effective in this regime",
        setting=_SWEEP,
        reading="The mitigation of logit growth they test, qk-layernorm, in the book's "
        "form QK-norm (the cosine of q and k times a learned gain per head; theirs is a "
        "LayerNorm on q and k before 1/√d): its learning-rate sensitivity (their definition: "
        "the mean over the rates of the final loss, capped at the initial loss, above the best "
        "rate's) is clearly below 1/√d's, paired by seed. Lower but not clearly is a caveat. "
        "'Equally effective' compares with large models, which the book does not train: it "
        "tests only that the mitigation works at its scale.",
        quote_checked=_WORTSMAN_ABSTRACT,
    ),
    "zhai-low-entropy-unstable": Claim(
        "stability",
        "zhai2023stabilizing",
        "abstract",
        "low attention entropy is accompanied by high training instability",
        setting=_SWEEP,
        reading="Over every run at a rate above its method's best (where the sweep's "
        "instability lies), a lower attention entropy (the lowest head's, the lowest "
        "recorded along training) goes with a higher final loss (capped at the initial "
        "loss): Spearman's rank correlation is "
        "clearly negative (one-sided, 5 %). Negative but not clearly is a caveat. String "
        "reversal is solved by one-hot attention, so a low entropy is not pathological in "
        "itself here; the rates below the best are left out for that reason.",
        quote_checked=_ZHAI_ABSTRACT,
    ),
    "zhai-sigma-reparam-prevents-collapse": Claim(
        "stability",
        "zhai2023stabilizing",
        "abstract",
        "σReparam successfully prevents entropy collapse in the attention layers",
        setting=_SWEEP,
        reading="σReparam on W_q and W_k only (Zhai et al. reparametrize every linear "
        "layer): at each rate above 1/√d's best where 1/√d's attention has collapsed (the "
        "lowest head's mean entropy, the lowest recorded along training, below a share of "
        "ln L, L the string length, on average over the seeds) and its loss rose clearly "
        "above the best rate's (a low entropy in a run that still learns is the task's "
        "solution, not Zhai et al.'s collapse), "
        "σReparam's entropy is clearly higher, paired by seed, with Holm's correction over "
        "those rates. At some of them only is a caveat; with no collapse to prevent the claim "
        "is not testable here.",
        quote_checked=_ZHAI_ABSTRACT,
    ),
    "zhai-sigma-reparam-robust": Claim(
        "stability",
        "zhai2023stabilizing",
        "abstract",
        "We show that σReparam provides stability and robustness with respect to the choice "
        "of hyperparameters",
        setting=_SWEEP,
        reading="For the one hyperparameter the sweep varies, the learning rate: "
        "σReparam's learning-rate sensitivity (Wortsman et al.'s definition) is clearly below "
        "1/√d's, paired by seed. Lower but not clearly is a caveat.",
        quote_checked=_ZHAI_ABSTRACT,
    ),
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
