"""The claims of the four source texts, and the verdicts the chapters compute for them.

The catalogue (:data:`CLAIMS`) is data about the sources: what each says, where, and which
chapter tests it. The verdicts themselves are computed by the chapters' runs
(:mod:`attncore.claims.ledger` gathers them).

>>> CLAIMS["blog-softmax-example"].source
'pranay2025why'
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

__all__ = ["CLAIMS", "Claim", "Verdict"]


class Verdict(StrEnum):
    """How a claim fared against its check."""

    HOLDS = "holds"
    CAVEAT = "holds with a caveat"
    FAILS = "does not hold"
    UNTESTABLE = "not testable here"


@dataclass(frozen=True)
class Claim:
    """One claim of a source text: the chapter that tests it, where the claim stands
    (BibTeX key and section), and its words, quoted or paraphrased."""

    chapter: str
    source: str
    section: str
    text: str


CLAIMS: dict[str, Claim] = {
    "vaswani-variance": Claim(
        "why_sqrt_d",
        "vaswani2017attention",
        "3.2.1, footnote 4",
        "If the components of q and k are independent with mean 0 and variance 1, "
        "q.k has mean 0 and variance d_k.",
    ),
    "vaswani-small-gradients": Claim(
        "every_rescaling",
        "vaswani2017attention",
        "3.2.1",
        "For large d_k the dot products grow large in magnitude, pushing the softmax into "
        "regions where it has extremely small gradients; scaling by 1/sqrt(d_k) counteracts it.",
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
        "The printed Jacobians diag(s) - s s^T of both softmax outputs, to 5 decimals.",
    ),
    "blog-peaked-small-derivatives": Claim(
        "softmax_saturation",
        "pranay2025why",
        "Logic",
        "When the softmax output is very peaked, most s_i are close to 0, so the derivatives "
        "become very small (vanishing gradients).",
    ),
    "blog-scaled-variance": Claim(
        "why_sqrt_d",
        "pranay2025why",
        "Logic",
        "Dividing q.k by sqrt(d_k) gives Var(q.k / sqrt(d_k)) = d_k / d_k = 1 for every d_k.",
    ),
    "chuang-proposition-1": Claim(
        "why_sqrt_d", "chuang2023scaling", "6, Proposition 1", "Var[X] = E(X^2) - (EX)^2."
    ),
    "chuang-proposition-2": Claim(
        "why_sqrt_d", "chuang2023scaling", "6, Proposition 2", "Cov[X, Y] = EXY - EX EY."
    ),
    "chuang-proposition-3": Claim(
        "why_sqrt_d",
        "chuang2023scaling",
        "6, Proposition 3",
        "If X and Y are independent with zero means, Var[XY] = Var X Var Y.",
    ),
    "chuang-proposition-4": Claim(
        "why_sqrt_d",
        "chuang2023scaling",
        "6, Proposition 4",
        "For independent X_i, Var(sum X_i) = sum Var X_i.",
    ),
    "chuang-proposition-5": Claim(
        "why_sqrt_d",
        "chuang2023scaling",
        "6, Proposition 5",
        "With zero means, unit variances, Cov(q_i, k_i) = 0 and zero covariances within q "
        "and within k, Var(q.k) = d_k.",
    ),
    "chuang-relaxed-variance": Claim(
        "why_sqrt_d",
        "chuang2023scaling",
        "2",
        "Without assumption (ii), the variance of q.k for Q = X W_q, K = X W_k is approximately "
        "(d_x s_X^2 s_Wq^2)(d_x s_X^2 s_Wk^2) d_k.",
    ),
    "bernhard-cauchy-schwarz": Claim(
        "why_sqrt_d",
        "bernhard2023alternatives",
        "3",
        "By Cauchy-Schwarz, |k_i . q| / k_total <= (||k_i|| / k_total) ||q|| <= ||q||.",
    ),
    "bernhard-n-sqrt-d-normal": Claim(
        "why_sqrt_d",
        "bernhard2023alternatives",
        "5",
        "Dividing by n sqrt(d) seems to behave like dividing by k_total for independent "
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
        "Dividing by sqrt(d) before the softmax leaves a mild right skew but preserves the "
        "general shape of the distribution much better than not scaling.",
    ),
    "bernhard-fig2-k-total-better": Claim(
        "bernhard_figures",
        "bernhard2023alternatives",
        "4, Figure 2",
        "Pre-dividing by k_total before the softmax preserves the shape of the distribution "
        "much better than pre-dividing by sqrt(d) (d = 256).",
    ),
    "bernhard-other-moments": Claim(
        "every_rescaling",
        "bernhard2023alternatives",
        "4",
        "When the means and variances of the normal components change, dividing by sqrt(d) "
        "distorts the shape more than dividing by k_total.",
    ),
    "bernhard-other-families": Claim(
        "every_rescaling",
        "bernhard2023alternatives",
        "4",
        "Even more so when the distribution families change.",
    ),
    "bernhard-d-n-range": Claim(
        "every_rescaling",
        "bernhard2023alternatives",
        "4",
        "These patterns persist even when d and n vary over a wide range.",
    ),
    "bernhard-section5-worse": Claim(
        "every_rescaling",
        "bernhard2023alternatives",
        "5",
        "Dividing by the mean key length, by sqrt(sum ||k_i||^2), or by a p-norm of the key "
        "lengths did not perform as well as dividing by k_total.",
    ),
    "bernhard-n-sqrt-d-other": Claim(
        "every_rescaling",
        "bernhard2023alternatives",
        "5",
        "Dividing by n sqrt(d) does not behave as well as k_total for distributions other "
        "than standard normal.",
    ),
    "bernhard-vanishing-gradients": Claim(
        "every_rescaling",
        "bernhard2023alternatives",
        "5, 6",
        "Pre-dividing by k_total decreases the distortion by the softmax and helps avoid "
        "vanishing gradients.",
    ),
    "bernhard-transformer-performance": Claim(
        "string_reversal",
        "bernhard2023alternatives",
        "6",
        "In preliminary experiments, a transformer with the k_total rescaling appears to "
        "perform well.",
    ),
    "chuang-shift-invariance": Claim(
        "softmax_saturation",
        "chuang2023scaling",
        "1",
        "Softmax(beta z_i + epsilon) = Softmax(beta z_i): adding a constant to every logit "
        "changes nothing.",
    ),
    "chuang-beta-only-at-init": Claim(
        "beyond_initialization",
        "chuang2023scaling",
        "2",
        "beta = 1/sqrt(d_k) is valid only at initialization: training changes sigma_Wq and "
        "sigma_Wk, and with them the variance of the logits.",
    ),
    "chuang-beta-search": Claim(
        "beyond_initialization",
        "chuang2023scaling",
        "2",
        "Trying beta in {10^N, 10^-N} for N = 0, 1, 2, ... and then a binary search narrows "
        "down the best scaling factor.",
    ),
    "chuang-string-reversal": Claim(
        "string_reversal",
        "chuang2023scaling",
        "3",
        "Reversing strings of 20 integers from 0..100 (15,000 training samples), a small "
        "transformer reaches 1.5% accuracy with beta = 1/sqrt(d_k) and over 95% with a "
        "searched beta of about 5.",
    ),
    "chuang-overflow-709": Claim(
        "softmax_saturation",
        "chuang2023scaling",
        "2",
        "709 is the upper bound of the exponent of exp before the machine overflows.",
    ),
}
