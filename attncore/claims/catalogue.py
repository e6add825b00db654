"""The claims of the four source texts and of later papers, and the verdicts the chapters
compute for them.

The catalogue (:data:`CLAIMS`) is data about the sources: what each says, where, and which
chapter tests it; :data:`SOURCES` says in which part of the ledger each source stands. The
verdicts themselves are computed by the chapters' runs (:mod:`attncore.claims.ledger`
gathers them).

>>> CLAIMS["blog-softmax-example"].source
'pranay2025why'
>>> SOURCES["chen2025critical"].part
'Modern practice'
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
    """One claim of a source text: the chapter that tests it, where the claim stands
    (BibTeX key and section), and its words, quoted or paraphrased. A claim that nothing in
    the book can decide has no chapter and says why in ``untestable``.

    A claim whose ``text`` is the source's words verbatim (… marks an omission) states apart
    the book's ``reading`` of them (what exactly is tested), its ``kind``, the verdicts its
    rule cannot return with the reason (``unreachable``) and, where no text of the source is
    kept beside the book, what its words were checked against (``quote_checked``)."""

    chapter: str
    source: str
    section: str
    text: str
    untestable: str = ""
    reading: str = ""
    kind: Kind = Kind.FINDING
    unreachable: Mapping[Verdict, str] = field(default_factory=dict)
    quote_checked: str = ""


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
}
"""Every source of :data:`CLAIMS`, in the ledger's order of parts."""

_ABSTRACT = (
    "the abstract of arXiv:2510.05554 (v1, 2025), its mathematics as displayed; the book keeps "
    "no text of the paper"
)
_CHEN_MODEL = (
    "In the book's simulation of the paper's model (normalised almost-simplex tokens with "
    "pairwise correlation ρ, one attention layer with logits γ ln n ⟨y_i, y_j⟩ and the identity "
    "as value; the chapter gives the details): "
)


CLAIMS: dict[str, Claim] = {
    "vaswani-variance": Claim(
        "why_sqrt_d",
        "vaswani2017attention",
        "3.2.1, footnote 4",
        "If the components of q and k are independent with mean 0 and variance 1, "
        "q·k has mean 0 and variance d_k.",
    ),
    "vaswani-small-gradients": Claim(
        "every_rescaling",
        "vaswani2017attention",
        "3.2.1",
        "We suspect that for large values of d_k, the dot products grow large in magnitude, "
        "pushing the softmax function into regions where it has extremely small gradients. To "
        "counteract this effect, we scale the dot products by 1/√d_k.",
    ),
    "blog-softmax-example": Claim(
        "softmax_saturation",
        "pranay2025why",
        "Logic (code outputs)",
        "softmax([0.2, 0.4, 0.1, 0.8]) = [0.202, 0.247, 0.183, 0.368] and softmax of 8 times "
        "that vector = [0.008, 0.039, 0.004, 0.95].",
    ),
    "blog-jacobian-example": Claim(
        "softmax_saturation",
        "pranay2025why",
        "Logic (code outputs)",
        "The printed Jacobians diag(s) − s sᵀ of both softmax outputs, to 5 decimals.",
    ),
    "blog-peaked-small-derivatives": Claim(
        "softmax_saturation",
        "pranay2025why",
        "Logic",
        "In highly skewed distributions, most s_i values are close to 0, so their derivatives "
        "become very small.",
    ),
    "blog-jacobian-formula": Claim(
        "softmax_saturation",
        "pranay2025why",
        "Logic",
        "The derivative of the softmax is s_i(1 − s_i) for i = j and −s_i s_j for i ≠ j, "
        "compactly softmax′ = diag(s) − s sᵀ.",
    ),
    "blog-variance-skews-softmax": Claim(
        "softmax_saturation",
        "pranay2025why",
        "Logic",
        "A higher variance causes the output of the softmax to become very skewed. In other "
        "words, the softmax outputs are extremely close to 1 for one position and near 0 for "
        "others.",
    ),
    "blog-variance-factor-64": Claim(
        "softmax_saturation",
        "pranay2025why",
        "Logic",
        "Since variance scales with the square of the scaling factor, the new vector has "
        "8² = 64 times the original variance.",
    ),
    "bernhard-softmax-depends-on-n": Claim(
        "softmax_saturation",
        "bernhard2023alternatives",
        "2",
        "... notice that it is impossible to apply softmax without knowing how many keys are in "
        "K. As such, we might not be able to avoid all of the softmax-related difficulties by "
        "adjusting the scalar attention function, since this function has nothing to do with "
        "K, only with individual keys.",
    ),
    "blog-scaled-variance": Claim(
        "why_sqrt_d",
        "pranay2025why",
        "Logic",
        "Dividing q·k by √d_k gives Var(q·k / √d_k) = d_k / d_k = 1 for every d_k.",
    ),
    "blog-variance-derivation": Claim(
        "why_sqrt_d",
        "pranay2025why",
        "Logic",
        "With each q_i and k_i independent, E[q_i] = E[k_i] = 0 and Var(q_i) = Var(k_i) = 1, "
        '"each pair q_i k_i is also independent", so Var(q·k) = Σ_i Var(q_i k_i) with '
        'Var(q_i k_i) = E[q_i²] E[k_i²] = 1, hence Var(q·k) = d_k: "the variance grows '
        'linearly with d_k, while the mean remains 0".',
    ),
    "bernhard-other-reasons-large-dots": Claim(
        "why_sqrt_d",
        "bernhard2023alternatives",
        "2",
        "The choice to divide by √d was based on the absolute values of the query and key "
        "dot products growing too large because of their dimension, but there are other reasons "
        "besides the dimension why the absolute value of these dot products might grow large. "
        "It would be good to compensate for those too.",
    ),
    "chuang-any-scalar-product-dk": Claim(
        "why_sqrt_d",
        "chuang2023scaling",
        "1",
        "Furthermore, by convention, let d_k = d_q. Then, with the four above conditions "
        "satisfied, the any scalar products of column vectors in Qᵗ and K have variance d_k "
        "(see Appendix).",
    ),
    "chuang-assumptions-necessary": Claim(
        "why_sqrt_d",
        "chuang2023scaling",
        "2",
        "To be able to make sense to use the scaling factor β = 1/√d_k in the "
        "self-attention function, the four assumptions are necessary.",
    ),
    "chuang-proposition-1": Claim(
        "derivations", "chuang2023scaling", "6, Proposition 1", "Var[X] = E(X²) − (EX)²."
    ),
    "chuang-proposition-2": Claim(
        "derivations", "chuang2023scaling", "6, Proposition 2", "Cov[X, Y] = EXY − EX EY."
    ),
    "chuang-proposition-3": Claim(
        "derivations",
        "chuang2023scaling",
        "6, Proposition 3",
        "If X and Y are independent with zero means, Var[XY] = Var X Var Y.",
    ),
    "chuang-proposition-4": Claim(
        "derivations",
        "chuang2023scaling",
        "6, Proposition 4",
        "For independent X_i, Var(Σ X_i) = Σ Var X_i.",
    ),
    "chuang-proposition-5": Claim(
        "why_sqrt_d",
        "chuang2023scaling",
        "6, Proposition 5",
        'Let q_i and k_i (i = 1, …, d_k) have zero means and unit variances, "and they are all '
        'independent in the following ways": Cov(q_i, k_i) = 0 for all i, Cov(q_i, q_j) = 0 and'
        " Cov(k_i, k_j) = 0 for i ≠ j. Then Var(QKᵀ) = d_k.",
    ),
    "chuang-relaxed-variance": Claim(
        "why_sqrt_d",
        "chuang2023scaling",
        "2",
        "Without assumption (ii), the variance of q·k for Q = X W_q, K = X W_k is approximately "
        "(d_x σ_X² σ_Wq²)(d_x σ_X² σ_Wk²) d_k.",
    ),
    "bernhard-cauchy-schwarz": Claim(
        "derivations",
        "bernhard2023alternatives",
        "3",
        "By Cauchy-Schwarz, |k_i · q| / k_total ≤ (‖k_i‖ / k_total) ‖q‖ ≤ ‖q‖.",
    ),
    "bernhard-n-sqrt-d-normal": Claim(
        "derivations",
        "bernhard2023alternatives",
        "5",
        "Dividing by n√d seems to behave like dividing by k_total for independent "
        "standard normal components.",
    ),
    "bernhard-fig1-unscaled-distorts": Claim(
        "bernhard_figures",
        "bernhard2023alternatives",
        "2, Figure 1(b)",
        "Applying softmax without scaling severely distorts the shape of the distribution of "
        "the dot products (d = 16): weighted heavily near 0 with a pronounced right skew.",
    ),
    "bernhard-fig1-sqrt-d-helps": Claim(
        "bernhard_figures",
        "bernhard2023alternatives",
        "2, Figure 1(c)",
        "Although Figure 1(c) shows a mild right skew that was not present in the distribution "
        "before softmax was applied, dividing the dot products by √d before applying "
        "softmax did indeed help preserve the general shape of the distribution compared to not"
        " scaling at all.",
    ),
    "bernhard-fig2-k-total-better": Claim(
        "bernhard_figures",
        "bernhard2023alternatives",
        "4, Figure 2",
        "Pre-dividing by k_total before the softmax preserves the shape of the distribution "
        "much better than pre-dividing by √d (d = 256).",
    ),
    "bernhard-other-components-similar": Claim(
        "bernhard_figures",
        "bernhard2023alternatives",
        "2; 4",
        "By symmetry, the other components should look similar.",
    ),
    "bernhard-other-moments": Claim(
        "every_rescaling",
        "bernhard2023alternatives",
        "4",
        "When the means and variances of the normal components change, dividing by √d "
        "distorts the shape more than dividing by k_total.",
    ),
    "bernhard-other-families": Claim(
        "every_rescaling",
        "bernhard2023alternatives",
        "4",
        "When distribution families change, pre-dividing by √d leads to greater "
        "distortions of the distribution shape than pre-dividing by k_total, even more so than "
        "when only the means and variances of normal components change.",
    ),
    "bernhard-d-n-range": Claim(
        "every_rescaling",
        "bernhard2023alternatives",
        "4",
        "These patterns (pre-dividing by √d distorting the shape more than pre-dividing by"
        " k_total, for standard normal components and when the moments or the family change) "
        "persist even when d and n vary over a wide range.",
    ),
    "bernhard-section5-worse": Claim(
        "every_rescaling",
        "bernhard2023alternatives",
        "5",
        "In the author's explorations, none of dividing by the mean key length Σ_i ‖k_i‖ / n, "
        "by √(Σ_i ‖k_i‖²), or more generally by ᵖ√(Σ_i ‖k_i‖ᵖ) seemed to "
        "perform as well as dividing by k_total.",
    ),
    "bernhard-n-sqrt-d-other": Claim(
        "every_rescaling",
        "bernhard2023alternatives",
        "5",
        "As might be expected though, dividing by n√d doesn't appear to behave as well "
        "[as dividing by k_total] for distributions other than standard normal.",
    ),
    "blog-stable-responsive-region": Claim(
        "every_rescaling",
        "pranay2025why",
        "Logic",
        "This normalization keeps the variance of the scaled dot product around 1, regardless "
        "of the input dimension d_k. As a result, the softmax stays in a stable, responsive "
        "region.",
    ),
    "blog-gradient-flow-preserved": Claim(
        "every_rescaling",
        "pranay2025why",
        "Logic",
        "As a result, the softmax stays in a stable, responsive region, and the gradient flow "
        "is preserved.",
    ),
    "bernhard-sqrt-d-alleviates-vanishing": Claim(
        "every_rescaling",
        "bernhard2023alternatives",
        "2; 3",
        "Correspondingly, this method helps alleviate the vanishing gradient issue with softmax "
        "(as has also been demonstrated time and again in its widespread use).",
    ),
    "bernhard-small-logits-little-distortion": Claim(
        "every_rescaling",
        "bernhard2023alternatives",
        "3",
        "But the previous inequality shows that as long as the lengths of the queries don't "
        "get too large, then the relative sizes of the components of the vectors to which "
        "softmax is applied won't be distorted too much.",
    ),
    "bernhard-prescaled-softmax-same": Claim(
        "every_rescaling",
        "bernhard2023alternatives",
        "2",
        "Viewing the scalar attention as the ordinary dot product q·k and the rescaling as a "
        '"prescaled softmax" s_K(x) = softmax(x / √d) is a minor shift in perspective '
        "that is unimportant for using the Attention function directly.",
    ),
    "bernhard-distortion-signals-vanishing": Claim(
        "every_rescaling",
        "bernhard2023alternatives",
        "6",
        "Vanishing gradients arise when individual components resulting from applying softmax "
        "approach 0 or 1, and this issue can be seen in the distortion of the shapes of the "
        "distributions of the vector attention components.",
    ),
    "bernhard-conclusion-k-total-better": Claim(
        "every_rescaling",
        "bernhard2023alternatives",
        "6",
        "Dividing by the square root of the key dimension alleviates this distortion well, "
        "but, judging from simulations, in many situations dividing by the sum of the key "
        "lengths appears to preserve the shape of the distribution even better.",
    ),
    "bernhard-abstract-more-effective": Claim(
        "every_rescaling",
        "bernhard2023alternatives",
        "Abstract",
        "We use simulated keys and queries to show that in many situations this [dividing by "
        "the sum of the key lengths] appears to be more effective at avoiding regions where "
        "applying softmax leads to vanishing gradients.",
    ),
    "bernhard-vanishing-gradients": Claim(
        "every_rescaling",
        "bernhard2023alternatives",
        "5",
        "In our explorations, pre-dividing by k_total has appeared to decrease the distortion "
        "by the softmax function and help avoid the issue of vanishing gradients.",
    ),
    "bernhard-transformer-performance": Claim(
        "string_reversal",
        "bernhard2023alternatives",
        "6",
        "Although further and more systematic testing is still needed, in preliminary "
        "experiments a transformer with the k_total rescaling appears to perform well.",
    ),
    "chuang-shift-invariance": Claim(
        "softmax_saturation",
        "chuang2023scaling",
        "1",
        "Softmax(β z_i + ε) = Softmax(β z_i): adding a constant to every logit changes nothing.",
    ),
    "chuang-beta-only-at-init": Claim(
        "string_reversal",
        "chuang2023scaling",
        "2",
        "The scaling factor β = 1/√d_k is only valid at the initial point given the "
        "four assumptions at the initial point, since training moves σ_Wq and σ_Wk and "
        "with them the variance of the logits.",
    ),
    "chuang-beta-search": Claim(
        "beyond_initialization",
        "chuang2023scaling",
        "2",
        "Firstly try β ∈ {10ᴺ, 1/10ᴺ} for N = 0, 1, 2, …, then run a binary search to "
        "narrow down the range of the best scaling factor β during the training after either"
        " each iteration or batch.",
    ),
    "blog-init-unit-variance": Claim(
        "beyond_initialization",
        "pranay2025why",
        "Logic",
        "During initialization, weights are typically assigned randomly from a distribution "
        "with zero mean and unit variance. So, when we generate the query vector q and key "
        "vector k, the dot product q·k will have a variance proportional to d_k, where d_k is "
        "the embedding dimension.",
    ),
    "chuang-standard-init-conditions": Claim(
        "beyond_initialization",
        "chuang2023scaling",
        "1",
        "In a standard implementation of a transformer-based model, W_q, W_k, W_v are "
        "initialised so that (i) they have shapes d_x × d_q, d_x × d_k, d_x × d_v; (ii) the "
        "inner product of each column of Xᵗ with each column of W_q, W_k or W_v (the entries "
        "of Q, K, V) has unit variance; (iii) the components of q_i and k_i have zero mean and "
        "unit variance; (iv) Cov(q_i1, k_i2) = 0 for all i1, i2, and Cov(q_i1, q_i2) = "
        "Cov(k_i1, k_i2) = 0 for i1 ≠ i2.",
    ),
    "chuang-string-reversal": Claim(
        "string_reversal",
        "chuang2023scaling",
        "3",
        "Flipping strings of length 20 of integers between 0 and 100 (15,000 training, 1,000 "
        "validation, 100,000 test samples), a transformer reaches 1.51% validation and 1.50% "
        "test accuracy with β = 1/√d_k; with the search algorithm the scaling factor is"
        " a constant of about 5, and the validation and test accuracy can already reach above "
        "95% stably.",
    ),
    "chuang-25000-samples": Claim(
        "string_reversal",
        "chuang2023scaling",
        "3",
        "With β = 1/√d_k, to have a stable test accuracy above 95%, the training sample "
        "size needs to be increased from 15000 to 25000.",
    ),
    "chuang-not-memorizing": Claim(
        "string_reversal",
        "chuang2023scaling",
        "3",
        "The model did not achieve its accuracy by memorizing the training examples: 100% "
        "accuracy is achievable within the ensemble, and memorizing would mean 100²⁰ strings of "
        "length 20, far more than the model's fewer than 8,000 parameters.",
    ),
    "chuang-96-half-data": Claim(
        "string_reversal",
        "chuang2023scaling",
        "4",
        "With the dynamic scaling factor the model can reach an accuracy higher than 96% with "
        "about half of the training data compared to the fixed scaling factor.",
    ),
    "chuang-sigma-w-moving-factors": Claim(
        "string_reversal",
        "chuang2023scaling",
        "2",
        "Since the training set is given, i.e. it is fixed, and so are d_x and d_k, σ_Wq and "
        "σ_Wk are the actual moving factors.",
    ),
    "chuang-assumptions-invalid-in-training": Claim(
        "string_reversal",
        "chuang2023scaling",
        "2",
        "However, since the initial point is random and unlikely to be the final point in the "
        "moduli space throughout the training mode, the assumption (ii) is not valid right after "
        "the training of the model that used self-attention function is initiated. Without "
        "assumption (ii), assumption (iii) and (iv) are invalid throughout the training and "
        "predicting modes.",
    ),
    "chuang-perfect-accuracy": Claim(
        "string_reversal",
        "chuang2023scaling",
        "3",
        "A 100% accuracy is also achievable within the ensemble of trained models, and once it "
        "reaches 100% the model can flip any input string of the same length and the same range "
        "of values.",
    ),
    "bernhard-q-norm-undesirable": Claim(
        "string_reversal",
        "bernhard2023alternatives",
        "3",
        "If we were modifying the scalar attention function, it might be tempting to divide it by "
        "‖q‖, but (even ignoring the possibility of this being 0) that would make the scalar "
        "attention function independent of ‖q‖, which seems undesirable.",
    ),
    "blog-vanishing-gradients-learning": Claim(
        "",
        "pranay2025why",
        "Logic",
        "This leads to vanishing gradients, meaning the model's parameters update very little (or "
        "not at all). As a result, learning slows down dramatically or fails altogether.",
        untestable="the training chapter's setups start with small logits (d_k = 8, Keras-like "
        "or PyTorch initialization), the opposite regime, and its runs do not record the "
        "gradients of W_q and W_k; testing it needs a setup with large unscaled logits at "
        "initialization",
    ),
    "chuang-exponential-growth": Claim(
        "",
        "chuang2023scaling",
        "4",
        "The difference of the number of training samples needed between models that use a "
        "dynamic or a static scaling factor will be an exponential growth when the number of "
        "features that need to be learned grows.",
        untestable="a speculation about large models such as LLMs; the number of features is "
        "not defined, and the book's model, like Chuang's, learns one task",
    ),
    "chuang-overflow-709": Claim(
        "softmax_saturation",
        "chuang2023scaling",
        "2",
        "In practice, 709 is the upper bound of the exponent of the exponential function based "
        "e in lots of machines before the machines start to overflow.",
    ),
    "blog-vaswani-quote": Claim(
        "softmax_saturation",
        "pranay2025why",
        "Logic",
        'Quoting Vaswani et al.: "To counteract this effect, we scale dot products by √d_k".',
    ),
    "blog-theoretical-motivation": Claim(
        "",
        "pranay2025why",
        "Overview",
        "Unlike many hyperparameters in deep learning that are often tuned through trial and "
        "error or heuristics, the scaling factor √d_k has a theoretical motivation.",
        untestable="a characterisation, not a measurable statement; what the motivation covers "
        "(a variance at initialization) is tested with Vaswani et al.'s footnote, Var(q·k) = d",
    ),
    "chuang-scale-by-standard-deviation": Claim(
        "",
        "chuang2023scaling",
        "6",
        "The authors of Attention Is All You Need want to scale QKᵀ by the standard deviation "
        "of the scalar product, so QKᵀ is multiplied by 1/√(Var(QKᵀ)) = 1/√d_k.",
        untestable="an attribution of intent; Vaswani et al. give softmax saturation as the "
        "reason and use the variance to illustrate why the dot products get large",
    ),
    "chuang-rnn-challenging": Claim(
        "",
        "chuang2023scaling",
        "3",
        "Since the model needs to learn to swap the first and last elements in the string, it "
        "could be a challenging task for recurrent neural nets if the input string is long.",
        untestable="the book trains no recurrent model, and the claim is hedged (could be)",
    ),
    "vaswani-additive-outperforms-unscaled": Claim(
        "",
        "vaswani2017attention",
        "3.2.1",
        "While for small values of d_k the two mechanisms perform similarly, additive attention "
        "outperforms dot product attention without scaling for larger values of d_k.",
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
        untestable="the book implements no additive attention to time against",
    ),
    "chuang-sigma-w-algorithm": Claim(
        "",
        "chuang2023scaling",
        "2",
        "An algorithm could measure σ_Wq and σ_Wk and update the scaling factor β "
        "after each iteration or batch during the training, the best β for prediction being "
        "determined by the best model chosen from the ensemble of all trained models.",
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
        untestable="the training chapter trains on one training-set size, so it cannot find the "
        "smallest set each factor needs",
    ),
    "chen-uniform-as-n-grows": Claim(
        "critical_scale",
        "chen2025critical",
        "abstract",
        "attention scores collapse toward uniformity as context length n increases, causing "
        "tokens to cluster excessively",
        reading=_CHEN_MODEL + "at a logit scale fixed in n (1/√d on tokens of norm √d, "
        "β = √d), the rows of attention move toward uniform (their normalised entropy rises) "
        "and the outputs move together (the ratio of output to input angle falls) from the "
        "smallest to the largest n, clearly over the draws, at every ρ.",
        unreachable={Verdict.UNTESTABLE: "the chapter always simulates at least two n"},
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
        reading=_CHEN_MODEL + "at the largest n, a factor below the critical scale "
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
        reading=_CHEN_MODEL + "the transition sits at β_n = γ_c ln n with γ_c = 1/(1 − ρ) "
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
