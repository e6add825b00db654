"""The claims of Chuang et al. (2023), a searched scaling factor.

Each claim: its words, the book's reading and the sentences that say its verdict."""

from __future__ import annotations

from attncore.claims.catalogue.reasons import EXACT
from attncore.claims.claim import Claim, Kind, Verdict

_TWO_SIZES = (
    "confirming it needs a second training-set size, and the chapter trains one (the rule says "
    "what one size can refute)"
)


CLAIMS: dict[str, Claim] = {
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
        unreachable={Verdict.CAVEAT: EXACT},
    ),
    "chuang-proposition-2": Claim(
        "derivations",
        "chuang2023scaling",
        "6, Proposition 2",
        r"Proposition 2. … $$\text{Cov}[X, Y] = \mathbb{E}XY - \mathbb{E}X\mathbb{E}Y.$$",
        "Every line of the proof, re-derived in sympy, simplifies to the next.",
        Kind.IDENTITY,
        unreachable={Verdict.CAVEAT: EXACT},
    ),
    "chuang-proposition-3": Claim(
        "derivations",
        "chuang2023scaling",
        "6, Proposition 3",
        r"Proposition 3. If $X$ and $Y$ are independent and both have zero means, then … "
        r"$$\text{Var}[XY] = \text{Var}X \text{Var}Y.$$",
        "Every line of the proof, re-derived in sympy, simplifies to the next.",
        Kind.IDENTITY,
        unreachable={Verdict.CAVEAT: EXACT},
    ),
    "chuang-proposition-4": Claim(
        "derivations",
        "chuang2023scaling",
        "6, Proposition 4",
        r"Proposition 4. Let $X_i, i \in \{1, \dots, n\}$ be $n$ independent variables. … "
        r"$$\text{Var}\left(\sum_i X_i\right) = \sum_i \text{Var}X_i.$$",
        "Every line of the proof, re-derived in sympy, simplifies to the next.",
        Kind.IDENTITY,
        unreachable={Verdict.CAVEAT: EXACT},
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
        unreachable={Verdict.CAVEAT: EXACT},
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
        unreachable={Verdict.CAVEAT: EXACT},
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
}
